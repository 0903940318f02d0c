//! SQL: libinjection reads the value as the rest of a query after the point of insertion, as is and after a
//! single or a double quote, and knows the token shapes (fingerprints) of injections. Words alone ("select",
//! "union", "drop") are not one; a quote or a number followed by an operator, a keyword and an expression is.
//!
//! libinjection looks at the first tokens only, so a statement written out in words after some other text
//! (`) UNION ALL SELECT NULL,NULL--`, `from information_schema.tables where ...`) escapes it; such statements
//! are recognised by the clauses only SQL writes in that order ([`STATEMENTS`]), which prose does not ("select
//! a size from the list" has no `from <table> where`).
//!
//! In text of several lines, a document or rich text, finding SQL is not finding an injection: a forum post shows the query it is
//! asking about, a ticket quotes the statement that failed. There the value must also *work* as one: put into a
//! query as a number, a single-quoted or a double-quoted string, the query must still parse, and the value must
//! have left its place (a string it closed, an operator, a second statement), as an attacker writes it (`great
//! post' UNION SELECT name, password FROM users-- `). A post goes on with sentences after its SQL, and code in
//! another language around a query is no SQL: neither parses ([`works_as_injection`], with `sqlparser` in the
//! dialects attackers aim at).

use super::shape::{self, Shape};
use crate::detect::sqli;
use regex_automata::meta::Regex;
use sqlparser::ast::{
    BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, SetExpr, Statement,
};
use sqlparser::dialect::{
    Dialect, GenericDialect, MsSqlDialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect,
};
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};
use std::borrow::Cow;
use std::sync::OnceLock;

/// Clauses and objects of SQL statements, case-insensitive, as words.
const STATEMENTS: &str = r"(?i)\bunion(?:\s+(?:all|distinct))?\s+select\b|\bselect\b[^;]{0,200}?\bfrom\s+[\w.`\x22\[\]]+\s+(?:where|limit|order\s+by|group\s+by|having|join|union)\b|\binsert\s+into\s+[\w.`\x22\[\]]+\s*(?:\(|values\b|select\b)|\bdelete\s+from\s+[\w.`\x22\[\]]+\s+where\b|\bupdate\s+[\w.`\x22\[\]]+\s+set\s+[\w.`\x22\[\]]+\s*=|\b(?:drop|alter|truncate)\s+(?:table|database|schema|procedure|function)\b|\bcreate\s+(?:table|database|procedure|function|trigger)\s+\w|\bgroup\s+by\b[^;]{0,100}?\bhaving\b|\binformation_schema\b|\bsqlite_(?:master|compileoption_\w+)\b|\bpg_sleep\s*\(|\bwaitfor\s+delay\b|\bbenchmark\s*\(|\bload_file\s*\(|\binto\s+(?:out|dump)file\b|\bexec(?:ute)?\s+(?:xp|sp)_\w|::\s*(?:int|text|varchar)\b";

fn statements() -> &'static Regex {
    static STATEMENTS_RE: OnceLock<Regex> = OnceLock::new();
    // The pattern is a constant this crate's tests compile: it cannot fail at run time.
    STATEMENTS_RE
        .get_or_init(|| Regex::new(STATEMENTS).expect("the SQL statement pattern compiles"))
}

/// What SQL writes and OData's expression language does not (OASIS OData 4.01 ABNF: comparisons are words, `eq`,
/// `gt`; strings are single-quoted literals, which [`odata_syntax`] has removed): an OData expression that has
/// none of it is the service's language however many of OData's functions (`endswith(`, `length(`) it calls.
const SQL_ONLY: &str = r"(?i)[=<>;|#]|--|/\*|(?:union|select|insert|update|delete|drop|exec|execute|sleep|benchmark|waitfor|having|information_schema|into)";

fn sql_only() -> &'static Regex {
    static SQL_ONLY_RE: OnceLock<Regex> = OnceLock::new();
    // The pattern is a constant this crate's tests compile: it cannot fail at run time.
    SQL_ONLY_RE.get_or_init(|| Regex::new(SQL_ONLY).expect("the SQL-only syntax pattern compiles"))
}

/// libinjection's fingerprint of a value that only ends a string and starts another, an operator between
/// (`'+'`, `'||'`): the query gets a string where it had one. Text quoting a symbol reads so (`replacing '+'
/// with a more meaningful symbol`); an injection needs more tokens than three.
const JOINED_STRINGS: &str = "sos";

/// libinjection's tokens of words alone: a bare word, a keyword, a function's name (without its bracket), a
/// number, a logical operator, a grouping keyword (`order by`, `group by`, `limit`). Text of words is
/// fingerprinted from them when its words are also SQL's (`Deeply merge 2 or more objects`: `nk1&n`; `Simple SQL
/// escape and format for MySQL`: `nkn&f`; `Order by 18 Dec for Christmas delivery`: `nB1kn`), and a sentence of
/// words is no injection unless it works as one: breaking out needs a quote, an operator, a bracket, a comment or
/// a statement.
const WORD_TOKENS: &str = "nkf1&B";

/// The fingerprint or the statement, when `value`, data of `shape`, holds an SQL injection.
pub fn injection(value: &[u8], shape: Shape) -> Option<String> {
    // An arithmetic expression is a number wherever SQL reads it: no string to leave, no condition to add.
    if shape == Shape::Math || (shape == Shape::Expression && !sql_only().is_match(value)) {
        return None;
    }
    let mut statement_first = false;
    let mut words_only = false;
    let fingerprint = sqli::fingerprint(value)
        .filter(|fp| !(shape == Shape::Text && fp.as_str() == JOINED_STRINGS));
    let found = if let Some(fp) = fingerprint {
        statement_first = fp.as_str().starts_with('E');
        words_only = fp.as_str().chars().all(|token| WORD_TOKENS.contains(token));
        format!("libinjection SQL fingerprint `{fp}`")
    } else {
        let m = statements().find(value)?;
        format!(
            "SQL statement `{}`",
            String::from_utf8_lossy(&value[m.range()])
                .chars()
                .take(60)
                .collect::<String>()
        )
    };
    // A line is where short injections are written (a search, a name, a header), often not as valid SQL: a hit
    // there scores. Several lines of text, a document or rich text are where SQL is shown.
    let shown = match shape {
        // A generated secret's characters make libinjection's shapes by chance (`H!ZR,(l9CZ...`): it must
        // parse as an injection, as a document's SQL must.
        // So must SQL in a formula, whose functions have SQL's names (`IF`, `AND`, `OR`) and whose strings may
        // hold a query of the spreadsheet's own (`=QUERY(A:G,"select * where B contains 'x'")`).
        Shape::Document | Shape::Markup | Shape::Secret | Shape::Formula => true,
        Shape::Text => {
            shape::lines(value) > 1
                || has_code_span(value)
                || shape::is_error_message(value)
                || words_only
        }
        Shape::Json
        | Shape::Math
        | Shape::Token
        | Shape::Url
        | Shape::Pairs
        | Shape::Expression
        | Shape::Sample
        | Shape::File => false,
    };
    // A value that starts with a statement's keyword breaks out of nothing: it injects only where it is run as
    // it is, so it must parse as SQL there (a log line quoting a query, `SELECT ... took 298ms`, does not).
    if !shown && !statement_first {
        return Some(found);
    }
    works_as_injection(value).map(|how| format!("{found}, and {how}"))
}

/// Why `value` is no injection though libinjection reads it as one: its fingerprint is one statement's keyword
/// among words, numbers and parentheses alone (`E(n1)`: `Update (Jan 14):`, a heading's or a button's first
/// word; `nE(n)`: `Phone case (silicone) for iPhone 15`, a product's name), no function, operator or other
/// keyword of SQL; so it breaks out of no place a value has and injects only where it is run as it is; and it
/// works as an injection in no context, as a statement neither. (A payload cut short, `SELECT CONCAT(0x71,
/// (SELECT (CASE`, has SQL's functions and keywords besides, and still counts.)
pub fn statement_that_does_not_parse(value: &[u8]) -> Option<String> {
    let fingerprint = sqli::fingerprint(value)?;
    let tokens = fingerprint.as_str();
    let words_around =
        tokens.matches('E').count() == 1 && tokens.chars().all(|token| "En1()".contains(token));
    (words_around && works_as_injection(value).is_none()).then(|| {
        format!(
            "libinjection SQL fingerprint `{fingerprint}` is a statement's keyword among words, and it parses as \
             an injection in no context"
        )
    })
}

/// Why `value` is no injection though libinjection reads it as one: what it takes for SQL's modulo is a
/// percentage (`Save 20% (today only)`, an audience's `LAL 1% (Purchasers)`: a number's `%` before a blank or the
/// value's end) or a format string's placeholder (`Share "%@" with.`, `%1$s`, `%.2f`: the strings an iOS or
/// Android app's translators edit), without those the value has no fingerprint, and it parses as an injection in
/// no context (`1% (select 1)` does, as a modulo).
pub fn percent_signs(value: &[u8]) -> Option<String> {
    static PERCENT_RE: OnceLock<Regex> = OnceLock::new();
    let signs = PERCENT_RE.get_or_init(|| {
        Regex::new(
            r"[0-9]%(?:\s|$)|%(?:[0-9]+\$)?[-+ #0]*[0-9]*(?:\.[0-9]+)?(?:hh|h|ll|l|q|L|z|t|j)?[@diouxXeEfgGcsSp]",
        )
        .expect("the percent pattern compiles")
    });
    // A percentage keeps its number and loses its sign; a placeholder becomes a word.
    let mut plain = Vec::with_capacity(value.len());
    let mut from = 0;
    for found in signs.find_iter(value) {
        plain.extend_from_slice(&value[from..found.start()]);
        let text = &value[found.range()];
        if text[0].is_ascii_digit() {
            plain.push(text[0]);
            plain.extend_from_slice(&text[2..]);
        } else {
            plain.push(b'x');
        }
        from = found.end();
    }
    if from == 0 {
        return None;
    }
    plain.extend_from_slice(&value[from..]);
    (sqli::fingerprint(&plain).is_none() && works_as_injection(value).is_none()).then(|| {
        "a percentage's sign or a format string's placeholder, which libinjection reads as SQL's modulo: without \
         them, no fingerprint"
            .to_owned()
    })
}

/// Whether the line of text `value` marks code as Markdown does, between backquotes that stand apart from the
/// words around them and hold several words (`` One nit: `SELECT COUNT(*) FROM orders` is slow ``): a comment or
/// a chat message showing a query, which must then work as an injection to count, as in a post of several
/// lines. (MySQL quotes a name in backquotes, `` `users` ``, `` `information_schema`.tables ``: one word, or
/// followed by more of the query.)
fn has_code_span(value: &[u8]) -> bool {
    let opens = |i: usize| i == 0 || value[i - 1].is_ascii_whitespace() || value[i - 1] == b'(';
    let closes = |j: usize| match value.get(j + 1) {
        None => true,
        Some(b'.') => value.get(j + 2).is_none_or(u8::is_ascii_whitespace),
        Some(b) => b.is_ascii_whitespace() || b",;:!?)".contains(b),
    };
    let ticks: Vec<usize> = memchr::memchr_iter(b'`', value).collect();
    ticks.windows(2).any(|pair| {
        let inside = &value[pair[0] + 1..pair[1]];
        inside.trim_ascii().contains(&b' ') && opens(pair[0]) && closes(pair[1])
    })
}

/// Parameters named for a query, whose operators the API asks for: Strapi's `filters[title][$containsi]`,
/// `filters[$or][0][slug][$eq]`, Parse's and Loopback's `where[...]`, `query[...]`, `conditions[...]`.
const QUERY_PARAMETERS: &[&str] = &[
    "filter",
    "filters",
    "where",
    "query",
    "q",
    "conditions",
    "criteria",
    "populate",
];

/// OData's system query options (OASIS OData 4.01, URL conventions): parameter names every OData service
/// reads (SharePoint, Dynamics, SAP), which CRS's MongoDB operator list has too (`$filter`, `$top`, `$count`).
const ODATA_OPTIONS: &[&str] = &[
    "$filter",
    "$select",
    "$expand",
    "$orderby",
    "$top",
    "$skip",
    "$count",
    "$search",
    "$format",
    "$apply",
    "$compute",
    "$skiptoken",
    "$deltatoken",
    "$levels",
];

/// The OData system query options whose values are expressions of OData's own language (`$filter=startswith(
/// Name,'Jo') and Price gt 10`, `$orderby=Price desc`), which the service parses: its functions, operators and
/// string literals are the API's syntax, as SQL's are a query's.
const ODATA_EXPRESSIONS: &[&str] = &[
    "$filter", "$select", "$expand", "$orderby", "$search", "$apply", "$compute",
];

/// Whether the value of the parameter `name` is an OData expression.
pub fn is_odata_expression(name: &[u8]) -> bool {
    ODATA_EXPRESSIONS
        .iter()
        .any(|option| name.eq_ignore_ascii_case(option.as_bytes()))
}

/// The syntax of OData expression `value` without what its string literals say (`contains(Name,'drop table')`
/// becomes `contains(Name,0)`): the service parses a literal as a value and passes it on as one, so only the
/// syntax around literals can carry an injection. `None` when a literal is not closed (OData doubles a quote
/// inside a literal: `'O''Reilly'`), where the quotes may be an injection's.
pub fn odata_syntax(value: &[u8]) -> Option<Vec<u8>> {
    let mut syntax = Vec::with_capacity(value.len());
    let mut rest = value;
    while let Some(open) = rest.iter().position(|&b| b == b'\'') {
        syntax.extend_from_slice(&rest[..open]);
        let mut at = open + 1;
        loop {
            let close = at + rest.get(at..)?.iter().position(|&b| b == b'\'')?;
            if rest.get(close + 1) == Some(&b'\'') {
                at = close + 2;
            } else {
                syntax.push(b'0');
                rest = &rest[close + 1..];
                break;
            }
        }
    }
    syntax.extend_from_slice(rest);
    Some(syntax)
}

/// Why `value` is no injection though libinjection reads it as one: what it takes for a comment's start is a path's
/// wildcard, `/*` ending a path or a URL pattern (`acme.io/api/*`, a CDN rule's target; `Rewrite /app/* to SPA
/// index`, a rule's description), with no `*/` anywhere; without the wildcards the value has no fingerprint, and
/// it parses as an injection in no context. An injection's comment follows a quote, a keyword or a blank
/// (`admin'/*`, `1 or 1=1 /*`), not a name and a `/`.
pub fn path_wildcards(value: &[u8]) -> Option<String> {
    if memchr::memmem::find(value, b"*/").is_some() {
        return None;
    }
    let mut plain = value.to_vec();
    let mut found = false;
    for at in memchr::memmem::find_iter(value, b"/*") {
        // The path before it: names and separators back to a blank, a comma or the value's start, from a letter
        // or a `/` (`acme.io/api`, `/app`, `system`), not from a number (`3/*`, a division).
        let path = &value[value[..at]
            .iter()
            .rposition(|b| b.is_ascii_whitespace() || *b == b',')
            .map_or(0, |blank| blank + 1)..at];
        let after_name = path.last().is_some_and(u8::is_ascii_alphanumeric)
            && path
                .first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'/')
            && path
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b"/.-_:~".contains(&b));
        // The wildcard, perhaps with an extension (`*.js`, SMART on FHIR's scopes `system/*.read`, `patient/*.*`),
        // then the path's end.
        let extension = match value.get(at + 2) {
            Some(b'.') => {
                1 + value[at + 3..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'*')
                    .count()
            }
            _ => 0,
        };
        let ends = value
            .get(at + 2 + extension)
            .is_none_or(|b| b.is_ascii_whitespace() || b"/\",)".contains(b));
        if !(after_name && ends) {
            return None;
        }
        plain[at + 1] = b'x';
        found = true;
    }
    (found && sqli::fingerprint(&plain).is_none() && works_as_injection(value).is_none()).then(|| {
        "a path's wildcard (`/app/*`), which libinjection reads as a comment's start: without it, no fingerprint"
            .to_owned()
    })
}

/// Why `value`'s `--` end no injection: they are glued to the word character after them inside one run of bytes
/// with no whitespace, quote, bracket, `;`, `#` or `/*` (a signed cookie's `data--digest`, base64url ids, the
/// `*`-separated values of Google's cross-domain linker `_gl`), and libinjection reads at most a number or a
/// name before them (`1c`: `2/HIWD...+cW...--2987ad` folds to a number and a comment). MySQL wants whitespace
/// after `--` for a comment; other databases read one there, which cuts what follows a number and brings no
/// condition, clause or statement of its own.
pub fn glued_comment(value: &[u8]) -> Option<String> {
    let blocked =
        |b: &u8| b.is_ascii_whitespace() || b.is_ascii_control() || b"'\"`();#".contains(b);
    if value.iter().any(blocked) || memchr::memmem::find(value, b"/*").is_some() {
        return None;
    }
    let mut dashes = memchr::memmem::find_iter(value, b"--").peekable();
    dashes.peek()?;
    let glued = dashes.all(|at| {
        let after = value[at..]
            .iter()
            .position(|&b| b != b'-')
            .map(|n| value[at + n]);
        after.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
    });
    let plain = sqli::fingerprint(value).is_none_or(|fp| matches!(fp.as_str(), "1c" | "nc"));
    (glued && plain).then(|| {
        "`--` glued to the word after it in a run without spaces, quotes or brackets (a signed cookie, \
         base64url data): no comment ends an injection there"
            .to_owned()
    })
}

/// The names the IAB's US Privacy string travels under, lower-cased without `_` and `-`: the `usprivacy` cookie
/// its specification names, `us_privacy` of OpenRTB's `regs.ext`, Google Ad Manager's and Amazon's bid
/// requests, `uspString` of its JavaScript API.
const US_PRIVACY_NAMES: [&str; 3] = ["usprivacy", "uspstring", "usprivacystring"];

/// Why `value` under `name` is no comment cutting a query: it is the IAB's US Privacy string (CCPA), a version
/// `1` and three flags of `Y`, `N` or `-` (`1---`, not applicable, in most ad requests of US sites), under a
/// name it travels under ([`US_PRIVACY_NAMES`], a JSON member's or a form field's last part). libinjection
/// reads `1---` as a number and a comment; a parameter of that name is a consent signal no query is built from.
pub fn us_privacy_string(name: &[u8], value: &[u8]) -> Option<String> {
    let normalized: Vec<u8> = super::name::last_part(name)
        .iter()
        .filter(|&&b| b != b'_' && b != b'-')
        .map(u8::to_ascii_lowercase)
        .collect();
    let named = US_PRIVACY_NAMES
        .iter()
        .any(|known| known.as_bytes() == normalized);
    let string = value.len() == 4
        && value[0] == b'1'
        && value[1..]
            .iter()
            .all(|b| matches!(b, b'Y' | b'N' | b'y' | b'n' | b'-'));
    (named && string).then(|| {
        format!(
            "the US Privacy string `{}` under `{}`: a consent signal, not a query",
            String::from_utf8_lossy(value),
            String::from_utf8_lossy(name)
        )
    })
}

/// Words of SQL an injection written without blanks spells out (`'UNION(SELECT(password)FROM(users))#`); a
/// generated secret that holds one, bounded by other characters than letters, is judged as a fragment.
const SPELLED_WORDS: &[&str] = &[
    "union",
    "select",
    "from",
    "where",
    "and",
    "or",
    "xor",
    "not",
    "null",
    "like",
    "rlike",
    "regexp",
    "having",
    "order",
    "group",
    "limit",
    "insert",
    "update",
    "delete",
    "drop",
    "exec",
    "execute",
    "declare",
    "waitfor",
    "delay",
    "sleep",
    "benchmark",
    "case",
    "when",
    "then",
    "if",
    "char",
    "concat",
    "substr",
    "substring",
    "ascii",
    "version",
    "user",
    "database",
    "table",
    "tables",
    "information_schema",
];

/// Whether `value` spells one of [`SPELLED_WORDS`] as a whole run of letters.
pub fn spells_a_word(value: &[u8]) -> bool {
    value
        .split(|b| !b.is_ascii_alphabetic() && *b != b'_')
        .any(|run| {
            SPELLED_WORDS
                .iter()
                .any(|word| run.eq_ignore_ascii_case(word.as_bytes()))
        })
}

/// How `name`, a parameter's name (or a value shaped as one), is a query language's by design rather than a
/// MongoDB operator smuggled where an application expects a plain value (`u_id[$ne]=2`, `password[$gt]=`): an
/// OData option, or operators inside a parameter named for a query.
pub fn query_language(name: &[u8]) -> Option<String> {
    // A JSON body names an option by its member's path (`{"options":{"$top":100}}` of Azure Resource Graph,
    // Microsoft Graph's batches): the last part is the option's name.
    let option = match name.strip_prefix(b"json.") {
        Some(path) => path.rsplit(|&b| b == b'.').next().unwrap_or(path),
        None => name,
    };
    if ODATA_OPTIONS
        .iter()
        .any(|known| option.eq_ignore_ascii_case(known.as_bytes()))
    {
        return Some(format!(
            "`{}` is an OData system query option",
            String::from_utf8_lossy(option)
        ));
    }
    let root = &name[..name.iter().position(|&b| b == b'[')?];
    QUERY_PARAMETERS
        .iter()
        .any(|parameter| root.eq_ignore_ascii_case(parameter.as_bytes()))
        .then(|| {
            format!(
                "an operator inside `{}[...]`, a parameter named for a query",
                String::from_utf8_lossy(root)
            )
        })
}

/// How a MongoDB operator the pattern's `hit` found (`$ne`, `[$gt]`, 942290's) is an injection in `value`, a
/// JSON document sent as the parameter `name`: the operator is one of its member names, a query where the
/// application expects a value (`{"$gt": ""}` matches every password). Not under a parameter named for a query
/// ([`QUERY_PARAMETERS`], [`QUERY_VALUE_PARAMETERS`]), whose operators the API asks for, and not an update
/// operator ([`UPDATE_OPERATORS`]: a JSON document of a person's properties that an analytics SDK posts in a
/// form field, Mixpanel's `data`, carries `$set`).
pub fn operator_member(value: &[u8], hit: &[u8], name: &[u8]) -> Option<String> {
    let operator = hit.strip_prefix(b"[").unwrap_or(hit);
    let operator = operator.strip_suffix(b"]").unwrap_or(operator);
    if operator.len() < 2 || operator[0] != b'$' || update_operator(operator).is_some() {
        return None;
    }
    let root = name.split(|&b| b == b'[').next().unwrap_or(name);
    let root = root.rsplit(|&b| b == b'.').next().unwrap_or(root);
    let for_a_query = QUERY_PARAMETERS
        .iter()
        .chain(QUERY_VALUE_PARAMETERS)
        .any(|parameter| root.eq_ignore_ascii_case(parameter.as_bytes()));
    if for_a_query || !shape::is_json_document(value) {
        return None;
    }
    super::json::strings(value)?
        .iter()
        .any(|string| string.as_bytes().eq_ignore_ascii_case(operator))
        .then(|| {
            format!(
                "the query operator `{}` is a member of a JSON document sent where a value is expected (NoSQL injection)",
                String::from_utf8_lossy(operator)
            )
        })
}

/// MongoDB's update operators, and Rest.li's `$delete`: they name the fields an update changes and what it does
/// to them (`{"$set": {"email": ...}}`); none is a query operator, so none makes a query match what it should not.
const UPDATE_OPERATORS: &[&str] = &[
    "$set",
    "$setOnInsert",
    "$unset",
    "$inc",
    "$mul",
    "$rename",
    "$currentDate",
    "$addToSet",
    "$pop",
    "$pull",
    "$pullAll",
    "$push",
    "$delete",
];

/// MongoDB's query operators: what makes a query match what it should not, or run code (`$where`, `$function`).
const QUERY_OPERATORS: &[&str] = &[
    "$eq",
    "$ne",
    "$gt",
    "$gte",
    "$lt",
    "$lte",
    "$in",
    "$nin",
    "$regex",
    "$where",
    "$exists",
    "$expr",
    "$or",
    "$and",
    "$not",
    "$nor",
    "$elemMatch",
    "$all",
    "$size",
    "$type",
    "$mod",
    "$text",
    "$jsonSchema",
    "$function",
    "$accumulator",
];

/// The update operator `hit` is (`$set`, `[$unset]`), when it is one.
fn update_operator(hit: &[u8]) -> Option<&'static str> {
    let operator = hit.strip_prefix(b"[").unwrap_or(hit);
    let operator = operator.strip_suffix(b"]").unwrap_or(operator);
    UPDATE_OPERATORS
        .iter()
        .copied()
        .find(|known| operator.eq_ignore_ascii_case(known.as_bytes()))
}

/// Why the operator the pattern's `hit` found in `name`, a JSON member's path, is an update's rather than an
/// injected query's: an update operator ([`UPDATE_OPERATORS`]) whose value names fields, an object or an array
/// (the path goes on after it with no query operator). Analytics SDKs update a person's properties so on every identified page view
/// (PostHog's and Amplitude's `properties.$set.email`, `user_properties.$unset.utm_source`, Mixpanel's `$set`),
/// and Rest.li's partial updates on every change a LinkedIn page makes (`patch.$set.read`, `patch.$delete.0`).
pub fn update_member(name: &[u8], hit: &[u8]) -> Option<String> {
    let operator = update_operator(hit)?;
    let path = name.strip_prefix(b"json.")?;
    let parts: Vec<&[u8]> = path.split(|&b| b == b'.').collect();
    let at = parts
        .iter()
        .position(|part| part.eq_ignore_ascii_case(operator.as_bytes()))?;
    // The path goes on with field names (analytics name theirs with a `$` too: PostHog's `$survey_responded`,
    // Mixpanel's `$email`); a query operator under it (`$set.x.$ne`) is judged as itself.
    let fields = &parts[at + 1..];
    let query_operator = |part: &&[u8]| {
        QUERY_OPERATORS
            .iter()
            .any(|known| part.eq_ignore_ascii_case(known.as_bytes()))
    };
    (!fields.is_empty() && !fields.iter().any(query_operator)).then(|| {
        format!(
            "`{operator}` names the fields an update changes: an update operator, not a query's"
        )
    })
}

/// The names MongoDB's `$type` operator takes for a BSON type (it also takes the type's number).
const BSON_TYPE_ALIASES: &[&str] = &[
    "double",
    "string",
    "object",
    "array",
    "binData",
    "undefined",
    "objectId",
    "bool",
    "date",
    "null",
    "regex",
    "dbPointer",
    "javascript",
    "symbol",
    "javascriptWithScope",
    "int",
    "timestamp",
    "long",
    "decimal",
    "minKey",
    "maxKey",
    "number",
];

/// Why the parameter's `name`, in which the pattern's `hit` found a MongoDB operator, is a clause of Socrata's
/// query language (SoQL, which every open-data portal on Socrata serves: `?$where=boro = 'Brooklyn'`) rather
/// than an operator smuggled into a query object: the name is the clause's (`$where`, `$having`) and its `value`
/// is a whole condition that names a field ([`whole_query`]). MongoDB's `$where` takes JavaScript
/// (`sleep(5000)`, `this.a == this.b`), which no SQL condition naming a field is.
pub fn soql_clause(name: &[u8], hit: &[u8], value: Option<&[u8]>) -> Option<String> {
    let clause = [&b"$where"[..], b"$having"]
        .into_iter()
        .find(|clause| name.eq_ignore_ascii_case(clause) && hit.eq_ignore_ascii_case(clause))?;
    whole_query(clause, value?).map(|_| {
        format!(
            "`{}` is a clause of Socrata's query language (SoQL), and its value a condition on fields",
            String::from_utf8_lossy(clause)
        )
    })
}

/// Why a member named `$type`, the body argument `name` (`json.record.$type`) the pattern's `hit` found, is a
/// schema's type tag rather than MongoDB's operator: its `value` is a string that names no BSON type, as the
/// type tags of AT Protocol (Bluesky's `{"$type":"app.bsky.feed.post"}`), Rest.li (LinkedIn's
/// `com.linkedin.voyager...`) and Json.NET name their records' types. MongoDB's `$type` takes a BSON type's
/// number or alias ([`BSON_TYPE_ALIASES`]) or a list of them; `{"password":{"$type":"string"}}` matches every
/// password, and stays an injection.
pub fn type_tag(name: &[u8], hit: &[u8], value: Option<&[u8]>) -> Option<String> {
    let value = value?;
    let member = name.rsplit(|&b| b == b'.').next()?;
    let names_a_type = value.is_empty()
        || value
            .strip_prefix(b"-")
            .unwrap_or(value)
            .iter()
            .all(u8::is_ascii_digit)
        || BSON_TYPE_ALIASES
            .iter()
            .any(|alias| value.trim_ascii().eq_ignore_ascii_case(alias.as_bytes()));
    (hit.eq_ignore_ascii_case(b"$type") && member.eq_ignore_ascii_case(b"$type") && !names_a_type)
        .then(|| {
            format!(
                "`$type` is `{}`, a schema's type tag: MongoDB's operator takes a BSON type",
                String::from_utf8_lossy(value)
                    .chars()
                    .take(60)
                    .collect::<String>()
            )
        })
}

/// Why the MongoDB operator the pattern's `hit` found (`$set`, 942290's) is no operator in `value`: the value
/// is a string member of a JSON body (`name` is its path under `json`) and the operator's name alone, as
/// frameworks send a method or an update's name (Livewire's `{"method":"$set"}`). MongoDB reads an operator
/// only as a member's name, and a JSON string's content is no name; an operator in the body's own member names
/// (`{"user":{"$ne":null}}`) is judged where those names are.
pub fn operator_as_string(value: &[u8], hit: &[u8], name: &[u8]) -> Option<String> {
    let operator = hit.first() == Some(&b'$') && value.trim_ascii().eq_ignore_ascii_case(hit);
    (operator && name.starts_with(b"json.")).then(|| {
        format!(
            "`{}` is the whole string value of the JSON member `{}`: a name sent as data, not an operator",
            String::from_utf8_lossy(hit),
            String::from_utf8_lossy(name)
        )
    })
}

/// Parameters that APIs name for a query written in their own language: Jira's `jql`, Confluence's `cql`,
/// Salesforce's and InfluxDB's `q` (SOQL, InfluxQL), Prometheus's `query`, search and reporting APIs' `filter`,
/// `where`, `sql`.
const QUERY_VALUE_PARAMETERS: &[&str] = &[
    "q",
    "query",
    "queries",
    "jql",
    "cql",
    "sql",
    "soql",
    "wiql",
    // the Google Visualization API's query language (`/gviz/tq?tq=select A, B where C > 1`)
    "tq",
    "filter",
    "where",
    "search",
    "expr",
    "expression",
];

/// How `value`, sent as `name`, is a whole query of an API's language rather than an injection: under a
/// parameter named for one ([`QUERY_VALUE_PARAMETERS`], also after a prefix, `sql_query`; the last part of a JSON
/// member's path too), it parses on
/// its own as one plain `SELECT` (SOQL, InfluxQL) or as the condition of one (simple JQL, PromQL's selectors, search
/// filters), with no comment or second statement, and each condition it joins names a field
/// ([`names_fields`]). (JQL, whose history operators no SQL parser reads, is [`super::jql`]'s.) An injection breaks out of the place a value has: a quote it leaves open, a comment that
/// cuts the rest, a stacked statement, a condition of literals alone (`1 or 1=1`, `'a'='a'`).
pub fn whole_query(name: &[u8], value: &[u8]) -> Option<String> {
    let named = is_query_parameter(name);
    // A statement may end with its `;` (osquery's, SOQL as people paste it); a `;` with more after it starts a
    // second statement.
    let text = std::str::from_utf8(value).ok()?.trim_end();
    let text = text.strip_suffix(';').unwrap_or(text);
    if !named || ["--", "/*", "#", ";"].iter().any(|cut| text.contains(cut)) {
        return None;
    }
    let text = &empty_as_null(text);
    // SQL Server's dialect reads the bracketed names and `@` macros of Azure DevOps' WIQL
    // (`SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = @project`).
    let dialects: [(&str, &dyn Dialect); 4] = [
        ("standard SQL", &GenericDialect {}),
        ("PostgreSQL", &PostgreSqlDialect {}),
        ("MySQL", &MySqlDialect {}),
        ("SQL Server", &MsSqlDialect {}),
    ];
    dialects.iter().find_map(|&(dialect_name, dialect)| {
        let parse = |sql: &str| {
            Parser::new(dialect)
                .with_recursion_limit(RECURSION_LIMIT)
                .try_with_sql(sql)
                .and_then(|mut parser| parser.parse_statements())
                .ok()
        };
        let as_statement = parse(text).is_some_and(|statements| plain_select(&statements));
        let as_condition = || {
            parse(&format!("SELECT * FROM t WHERE {text}"))
                .is_some_and(|statements| plain_select(&statements))
        };
        (as_statement || as_condition()).then(|| {
            format!(
                "`{}` holds a whole query of the API's language ({dialect_name} reads it), not a value breaking out of one",
                String::from_utf8_lossy(name)
            )
        })
    })
}

/// Whether the parameter `name` is named for a whole query ([`QUERY_VALUE_PARAMETERS`]): its last part (after a
/// JSON member path's `.`) is one, or ends with one after `_` or `-` (`search_query`; after `$` too in a
/// parameter of a URL or a form, Socrata's `$where`) or as the last word of a
/// camel-case name (Grafana's SQL data sources' `rawSql`, `searchQuery`).
pub fn is_query_parameter(name: &[u8]) -> bool {
    let last = super::name::member_name(name);
    QUERY_VALUE_PARAMETERS.iter().any(|parameter| {
        let parameter = parameter.as_bytes();
        let camel_case_word = last.len() > parameter.len() && {
            let at = last.len() - parameter.len();
            last[at].is_ascii_uppercase()
                && last[at - 1].is_ascii_lowercase()
                && last[at..].eq_ignore_ascii_case(parameter)
        };
        // A `$` prefixes the clauses of Socrata's query language (`?$where=...`, `$query`) in a URL; a JSON
        // member named so is MongoDB's operator (`{"$where": ...}`).
        let separators: &[u8] = if last.len() == name.len() {
            b"_-$"
        } else {
            b"_-"
        };
        camel_case_word || super::name::ends_with_name(last, parameter, separators)
    })
}

/// JQL's (Jira's) test for a field without a value, `IS [NOT] EMPTY`, written as SQL's `IS [NOT] NULL`: the
/// same condition, which SQL's parsers read.
fn empty_as_null(text: &str) -> Cow<'_, str> {
    static EMPTY_RE: OnceLock<Regex> = OnceLock::new();
    let empty = EMPTY_RE.get_or_init(|| {
        Regex::new(r"(?i)\bis(?:\s+not)?\s+empty\b").expect("the EMPTY test pattern compiles")
    });
    let mut spans = empty.find_iter(text).peekable();
    if spans.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut sql = String::with_capacity(text.len());
    let mut from = 0;
    for span in spans {
        // The match ends in the five letters of `empty`.
        sql.push_str(&text[from..span.end() - 5]);
        sql.push_str("NULL");
        from = span.end();
    }
    sql.push_str(&text[from..]);
    Cow::Owned(sql)
}

/// Whether `statements` are one `SELECT` without a set operation or `INTO`, whose condition, if any, names a
/// field in each part it joins.
fn plain_select(statements: &[Statement]) -> bool {
    let [Statement::Query(query)] = statements else {
        return false;
    };
    let SetExpr::Select(select) = query.body.as_ref() else {
        return false;
    };
    select.into.is_none() && select.selection.as_ref().is_none_or(names_fields)
}

/// Whether every condition `expr` joins with AND, OR, XOR or NOT names a field (a column, a function's call: in
/// a comparison, a list or pattern test, a range): real queries compare fields, an injection's tautology
/// compares literals.
fn names_fields(expr: &Expr) -> bool {
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And | BinaryOperator::Or | BinaryOperator::Xor,
            right,
        } => names_fields(left) && names_fields(right),
        Expr::Nested(inner) | Expr::UnaryOp { expr: inner, .. } => names_fields(inner),
        other => has_field(other),
    }
}

/// Whether `expr` names a field: a column or a call, itself or as an operand.
fn has_field(expr: &Expr) -> bool {
    match expr {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => true,
        // A call of a field (`UPPER(description)`, `within_circle(location, ...)`); one of literals alone
        // (`sleep(5000)`) names none.
        Expr::Function(function) => match &function.args {
            FunctionArguments::List(list) => list.args.iter().any(|argument| {
                let (FunctionArg::Named { arg, .. }
                | FunctionArg::ExprNamed { arg, .. }
                | FunctionArg::Unnamed(arg)) = argument;
                matches!(arg, FunctionArgExpr::Expr(expr) if has_field(expr))
            }),
            FunctionArguments::None | FunctionArguments::Subquery(_) => false,
        },
        Expr::BinaryOp { left, right, .. } => has_field(left) || has_field(right),
        Expr::Nested(inner)
        | Expr::UnaryOp { expr: inner, .. }
        | Expr::IsNull(inner)
        | Expr::IsNotNull(inner)
        | Expr::In { expr: inner, .. }
        | Expr::Between { expr: inner, .. }
        | Expr::Like { expr: inner, .. }
        | Expr::ILike { expr: inner, .. } => has_field(inner),
        _ => false,
    }
}

/// Where in a query a value lands.
#[derive(Clone, Copy)]
enum Place {
    /// Compared as a number: it stays one plain value, or it changed the query.
    Number,
    /// Inside a string of this quote: it must close the string to change the query.
    Quoted(char),
    /// At the start of a statement (an application that runs what it is sent, a stacked query).
    Statement,
}

/// The queries a value is tried in: what comes before it, after it, and where that puts it.
const CONTEXTS: [(&str, &str, &str, Place); 5] = [
    (
        "as a number",
        "SELECT * FROM t WHERE c = ",
        "",
        Place::Number,
    ),
    (
        "in a single-quoted string",
        "SELECT * FROM t WHERE c = '",
        "'",
        Place::Quoted('\''),
    ),
    (
        "in a double-quoted string",
        "SELECT * FROM t WHERE c = \"",
        "\"",
        Place::Quoted('"'),
    ),
    (
        "in a list of values",
        "INSERT INTO t VALUES ('",
        "')",
        Place::Quoted('\''),
    ),
    ("as a statement", "", "", Place::Statement),
];

/// Nesting the parser follows: injections nest a few levels; a hostile value nested deeper is refused with an
/// error, well before the stack of a proxy worker is at risk.
const RECURSION_LIMIT: usize = 16;

/// How `value` works as an injection, if it does: the context and dialect in which a query holding it parses
/// with a structure the value changed.
fn works_as_injection(value: &[u8]) -> Option<String> {
    let value = std::str::from_utf8(value).ok()?;
    let dialects: [(&str, &dyn Dialect); 5] = [
        ("MySQL", &MySqlDialect {}),
        ("PostgreSQL", &PostgreSqlDialect {}),
        ("SQL Server", &MsSqlDialect {}),
        ("SQLite", &SQLiteDialect {}),
        ("standard SQL", &GenericDialect {}),
    ];
    CONTEXTS
        .iter()
        .find_map(|&(context, before, after, place)| {
            if let Place::Quoted(quote) = place
                && !closes(value, quote)
            {
                return None;
            }
            let query = format!("{before}{value}{after}");
            dialects.iter().find_map(|&(name, dialect)| {
                let statements = Parser::new(dialect)
                    .with_recursion_limit(RECURSION_LIMIT)
                    .try_with_sql(&query)
                    .and_then(|mut parser| parser.parse_statements())
                    .ok()?;
                let changed = match place {
                    Place::Number => {
                        !one_value(&statements, before)
                            && sql_words(dialect, &query) > sql_words(dialect, before)
                    }
                    // Quotes in text come in pairs as often as not: closing the string and opening another
                    // around `<br>` parses (`c = "..." < br > "..."`) and injects nothing. An injection brings
                    // SQL's own words: a logical operator, a clause, a call, a second statement.
                    Place::Quoted(_) => {
                        !statements.is_empty()
                            && sql_words(dialect, &query)
                                > sql_words(dialect, &format!("{before}{after}"))
                    }
                    Place::Statement => !statements.is_empty(),
                };
                changed.then(|| format!("it parses as an injection {context} ({name})"))
            })
        })
}

/// Words an injection brings into a query: what joins or negates conditions, clauses and statements, outside
/// strings and quoted names.
const INJECTION_WORDS: &[Keyword] = &[
    Keyword::AND,
    Keyword::OR,
    Keyword::XOR,
    Keyword::NOT,
    Keyword::IS,
    Keyword::LIKE,
    Keyword::RLIKE,
    Keyword::REGEXP,
    Keyword::IN,
    Keyword::BETWEEN,
    Keyword::UNION,
    Keyword::SELECT,
    Keyword::INSERT,
    Keyword::UPDATE,
    Keyword::DELETE,
    Keyword::DROP,
    Keyword::EXEC,
    Keyword::EXECUTE,
    Keyword::WAITFOR,
    Keyword::HAVING,
    Keyword::ORDER,
    Keyword::GROUP,
    Keyword::LIMIT,
    Keyword::CASE,
];

/// How many of SQL's own words `query` has outside strings: [`INJECTION_WORDS`], MySQL's `||` and `&&` (its
/// `OR` and `AND`), function calls (`SLEEP(`), and statement separators followed by more.
fn sql_words(dialect: &dyn Dialect, query: &str) -> usize {
    let Ok(tokens) = Tokenizer::new(dialect, query).tokenize() else {
        return 0;
    };
    let mut meaningful = tokens
        .iter()
        .filter(|token| !matches!(token, Token::Whitespace(_)))
        .peekable();
    let mut count = 0;
    while let Some(token) = meaningful.next() {
        let next = meaningful.peek();
        count += usize::from(match token {
            Token::Word(word) if word.quote_style.is_none() => {
                INJECTION_WORDS.contains(&word.keyword) || matches!(next, Some(Token::LParen))
            }
            Token::SemiColon => next.is_some_and(|next| !matches!(next, Token::EOF)),
            Token::StringConcat | Token::Overlap => true,
            _ => false,
        });
    }
    count
}

/// Whether `value` closes a string opened by `quote`: a quote not doubled (`''`) nor escaped (`\'`).
fn closes(value: &str, quote: char) -> bool {
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c == quote {
            if chars.peek() != Some(&quote) {
                return true;
            }
            chars.next();
        }
    }
    false
}

/// Whether `statements` are the query `before` with one plain value compared to `c`: the value stayed in its
/// place.
fn one_value(statements: &[Statement], before: &str) -> bool {
    let [Statement::Query(query)] = statements else {
        return false;
    };
    let SetExpr::Select(select) = query.body.as_ref() else {
        return false;
    };
    let Some(Expr::BinaryOp {
        op: BinaryOperator::Eq,
        right,
        ..
    }) = &select.selection
    else {
        return false;
    };
    let plain = match right.as_ref() {
        Expr::Value(_) | Expr::Identifier(_) => true,
        Expr::UnaryOp { expr, .. } => matches!(expr.as_ref(), Expr::Value(_)),
        _ => false,
    };
    // Nothing else added to the query: no ORDER BY, LIMIT, locking clause...
    plain && query.to_string() == format!("{before}{right}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paths_wildcard_is_no_comment() {
        for value in [
            &b"Rewrite /app/* to SPA index"[..],
            b"acme.io/api/*",
            b"system/*.read system/Patient.rs",
            b"patient/*.* openid fhirUser",
            b"/static/*, /assets/*",
        ] {
            assert!(
                path_wildcards(value).is_some(),
                "{}",
                String::from_utf8_lossy(value)
            );
        }
        for value in [
            &b"admin'/*"[..],
            b"1 or 1=1 /*",
            b"x/* or 1=1",
            b"3 where prod.id=3/*",
            b"a/*b*/c",
            b"1' union select 1 from t/*",
        ] {
            assert!(
                path_wildcards(value).is_none(),
                "{}",
                String::from_utf8_lossy(value)
            );
        }
    }

    #[test]
    fn sql_shown_in_a_code_span_must_work_as_an_injection() {
        let comment = "Great article! One nit: `SELECT COUNT(*) FROM orders WHERE status = 'shipped'` is slow.";
        assert_eq!(injection(comment.as_bytes(), Shape::Text), None);
        let wrapped = "I really like this shop a lot `' union select password from users-- `";
        assert!(injection(wrapped.as_bytes(), Shape::Text).is_some());
        let plain = "I really like this shop a lot ' union select password from users-- ";
        assert!(injection(plain.as_bytes(), Shape::Text).is_some());
    }

    #[test]
    fn text_quoting_a_symbol_joins_strings_only() {
        let summary = "A package for replacing '+' with a more meaningful symbol.";
        assert_eq!(injection(summary.as_bytes(), Shape::Text), None);
        assert!(injection(summary.as_bytes(), Shape::Token).is_some());
        let tautology = "I really like this shop a lot' or '1'='1";
        assert!(injection(tautology.as_bytes(), Shape::Text).is_some());
    }

    #[test]
    fn a_sentence_of_words_must_work_as_an_injection() {
        for sentence in [
            "Deeply merge 2 or more objects respecting type information.",
            "Simple SQL escape and format for MySQL",
        ] {
            assert_eq!(
                injection(sentence.as_bytes(), Shape::Text),
                None,
                "{sentence}"
            );
            assert!(
                injection(sentence.as_bytes(), Shape::Token).is_some(),
                "{sentence}"
            );
        }
        let union = "1 union select password from users limit 1";
        assert!(injection(union.as_bytes(), Shape::Text).is_some());
    }

    #[test]
    fn an_error_message_quoting_code_must_work_as_an_injection() {
        for message in [
            "Uncaught SyntaxError: Unexpected token '<'",
            "Uncaught SyntaxError: Unexpected identifier 'select'",
        ] {
            assert_eq!(
                injection(message.as_bytes(), Shape::Text),
                None,
                "{message}"
            );
        }
        let forged = "TypeError: ' union select password from users-- ";
        assert!(injection(forged.as_bytes(), Shape::Text).is_some());
    }

    #[test]
    fn the_us_privacy_string_is_a_consent_signal_under_its_names() {
        assert!(us_privacy_string(b"us_privacy", b"1---").is_some());
        assert!(us_privacy_string(b"json.regs.ext.us_privacy", b"1YNN").is_some());
        assert!(us_privacy_string(b"usprivacy", b"1---").is_some());
        assert!(us_privacy_string(b"id", b"1---").is_none());
        assert!(us_privacy_string(b"us_privacy", b"1-- or 1=1").is_none());
        assert!(us_privacy_string(b"us_privacy", b"1--").is_none());
    }

    #[test]
    fn a_comment_glued_inside_a_token_ends_nothing() {
        for token in [
            "1*xhy4yu*_gcl_au*dNk75Nm5o7DOS9--mklgWBshG-f9ZR6B*_ga*LjQ2VRNSDJNjmJmzNmFEwAtM",
            "2/HIWDzAHiSl6XhMHpZ+cWYnVhwHfAfY1yv9mkL5dZLEvSxqs==--2987ad0e006d0fab0d44122076223611",
            "5--RAGu_731vuaF9SatLnko5ADWNYusS2zMONEtCmM0-1739222196-1.2.1.1-ToEeI7IjQPmH3PPpAqOX",
        ] {
            assert!(glued_comment(token.as_bytes()).is_some(), "{token}");
        }
        for injection in [
            "1--",
            "1-- -",
            "1 or 1=1--x",
            "1/**/or/**/1=1--x",
            "1'--x",
            "1)--x",
            "1||1--x",
            "1;drop--x",
            "1-x",
        ] {
            assert_eq!(glued_comment(injection.as_bytes()), None, "{injection}");
        }
    }

    #[test]
    fn query_languages_by_design() {
        for name in [
            "$filter",
            "$TOP",
            "json.requests.0.content.options.$skip",
            "filters[title][$containsi]",
            "filters[$or][0][slug][$eq]",
            "where[age][$gt]",
        ] {
            assert!(query_language(name.as_bytes()).is_some(), "{name}");
        }
        for name in [
            "u_id[$ne]",
            "password[$gt]",
            "$where",
            "$not",
            "json.user.$ne",
            "json.$where",
            "[$lte]asdfsd",
            "user",
        ] {
            assert_eq!(query_language(name.as_bytes()), None, "{name}");
        }
    }

    #[test]
    fn whole_queries_of_an_api_language() {
        for (name, query) in [
            ("jql", "assignee = currentUser() ORDER BY updated DESC"),
            (
                "json.jql",
                "project = FSD AND status = 'To Do' ORDER BY created DESC",
            ),
            (
                "q",
                "SELECT Id,Name FROM Contact WHERE Email LIKE '%example.com' LIMIT 10",
            ),
            ("query", "count(http_requests_total)"),
            (
                "json.query",
                "SELECT * FROM programs WHERE name = 'AcmeCorpAgent';",
            ),
            (
                "sql_query",
                "SELECT * FROM `products` WHERE `sku` = 'x' ORDER BY `title` DESC",
            ),
            (
                "json.queries.0.rawSql",
                "SELECT status, count(*) FROM jobs WHERE queue = 'mail' GROUP BY status",
            ),
            (
                "jql",
                "project=QA AND labels in (qa-ready,blocked) AND status in ('Done')",
            ),
            (
                "jql",
                "project=\"ZK\"AND\"status\"=\"closed\"AND\"affectedVersion\"IS NOT EMPTY",
            ),
            (
                "tq",
                "select B, count(A) where A is not null group by B order by count(A) desc",
            ),
            ("$where", "boro = 'Queens' AND street_name = 'O''FARRELL'"),
            (
                "json.query",
                "SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = @project",
            ),
        ] {
            assert!(
                whole_query(name.as_bytes(), query.as_bytes()).is_some(),
                "{query}"
            );
        }
        assert!(!is_query_parameter(b"json.rawsql"));
        assert!(is_query_parameter(b"json.searchQuery"));
        assert!(is_query_parameter(b"$where"));
        assert!(!is_query_parameter(b"json.$where"));
        for (name, value) in [
            ("q", "1 or 1=1"),
            ("q", "sleep(5000)"),
            ("q", "x' or 'a'='a"),
            ("q", "test' or 1="),
            ("filter", "1 union select password from users"),
            ("q", "id = 1; drop table users"),
            ("q", "name = 'x' -- "),
            ("id", "assignee = currentUser()"),
        ] {
            assert_eq!(
                whole_query(name.as_bytes(), value.as_bytes()),
                None,
                "{value}"
            );
        }
    }

    #[test]
    fn an_operator_member_is_a_nosql_injection() {
        assert!(operator_member(br#"{"$gt": ""}"#, b"$gt", b"password").is_some());
        assert!(operator_member(br#"{"a":{"$NE":null}}"#, b"$ne", b"json.user").is_some());
        assert!(operator_member(br#"{"score":{"$gt":10}}"#, b"$gt", b"where").is_none());
        assert!(operator_member(br#"{"price":"$gt 10"}"#, b"$gt", b"note").is_none());
    }

    #[test]
    fn an_operator_as_a_json_string_is_data() {
        assert!(operator_as_string(b"$set", b"$set", b"json.updates.1.payload.method").is_some());
        assert!(operator_as_string(b"$set", b"$set", b"method").is_none());
        assert!(operator_as_string(b"$where: 1", b"$where", b"json.q").is_none());
        assert!(operator_as_string(b"json.$ne", b"$ne", b"json.$ne").is_none());
        assert!(type_tag(b"json.record.$type", b"$type", Some(b"app.bsky.feed.post")).is_some());
        assert!(type_tag(b"json.password.$type", b"$type", Some(b"string")).is_none());
        assert!(type_tag(b"json.password.$type", b"$type", Some(b"2")).is_none());
        assert!(type_tag(b"json.password.$type", b"$type", Some(b"")).is_none());
        assert!(type_tag(b"json.password.$type", b"$type", None).is_none());
        assert!(type_tag(b"json.password.$ne", b"$ne", Some(b"app.bsky.feed.post")).is_none());
        assert!(update_member(b"json.entities.urn:li:x:(1,2).patch.$set.read", b"$set").is_some());
        assert!(update_member(b"json.patch.name.$delete.0", b"$delete").is_some());
        assert!(update_member(b"json.0.properties.$set.email", b"$set").is_some());
        assert!(
            update_member(
                b"json.events.2.user_properties.$unset.utm_source",
                b"$unset"
            )
            .is_some()
        );
        assert!(update_member(b"json.user.$set", b"$set").is_none());
        assert!(update_member(b"json.$set.role.$ne", b"$set").is_none());
        assert!(update_member(b"json.0.properties.$set.$survey_responded/0a1", b"$set").is_some());
        assert!(update_member(b"u_id[$set][x]", b"$set").is_none());
        assert!(update_member(b"json.patch.password.$ne", b"$ne").is_none());
        assert!(operator_member(b"$gt", b"$gt", b"id").is_none());
        assert!(operator_member(br#"{"$set":{"plan":"pro"}}"#, b"$set", b"data").is_none());
    }

    #[test]
    fn statements_in_words_are_sql_and_prose_is_not() {
        for sql in [
            ") UNION ALL SELECT NULL,NULL,NULL--",
            "from information_schema.tables where table_schema=database()",
            "SELECT x GROUP BY SOMETHING HAVING COUNT(Id) >= 9",
            "ALTER TABLE `mass_mails` CHANGE `receivers`",
            "admin@example.com' or sqlite_compileoption_used (id)--",
        ] {
            // Shaped as other data than words, a statement found is enough.
            assert!(injection(sql.as_bytes(), Shape::Json).is_some(), "{sql}");
        }
        for text in [
            "Please select the size you would like from the list below and update your cart",
            "We drop prices every Friday; create an account to hear first.",
            "Select your country from our shop where shipping is free",
        ] {
            assert_eq!(injection(text.as_bytes(), Shape::Json), None, "{text}");
        }
    }

    #[test]
    fn a_value_starting_with_a_statement_must_parse_as_one() {
        // It breaks out of no string or number: it injects only where it is run as it is.
        for sql in [
            "SELECT password FROM users WHERE id = 1",
            "select pg_sleep(5)",
        ] {
            assert!(injection(sql.as_bytes(), Shape::Text).is_some(), "{sql}");
        }
        let logged = "SELECT id, name FROM products WHERE category_id = 15 took 298ms";
        assert_eq!(injection(logged.as_bytes(), Shape::Text), None);
    }

    #[test]
    fn sql_in_a_post_is_shown_not_injected() {
        for document in [
            "Why is this slow?\n\n```sql\nSELECT * FROM orders WHERE customer_id = 42 ORDER BY id;\n```\n\n\
             It takes a minute on a small table, any idea what I am missing here?",
            "fyi\n```\n<?php\n$stmt = $pdo->prepare('SELECT * FROM products WHERE quantity = ?');\n\
             $stmt->execute([$_GET['id'] ?? 0]);\n```",
            "It's the query that fails: select name from users where id = 1 union select 2 -- any idea?\n\
             I'd really like to know why, thanks",
            "Hello,\nthe page breaks here:\n<?php\nforeach ($stmt as $row) {\n    echo $row['name'], \"<br>\";\n}\n\
             Ref: #16782 | env: prod",
        ] {
            assert_eq!(
                injection(document.as_bytes(), Shape::Document),
                None,
                "{document}"
            );
        }
    }

    #[test]
    fn an_injection_in_words_works_as_one() {
        for text in [
            "Great article, thanks!' UNION SELECT name, password FROM users-- and more words after it",
            "nice post' or name like '%admin",
            "I agree with you'; DROP TABLE users; --",
            "very helpful review' AND SLEEP(5)#",
        ] {
            let reason = injection(text.as_bytes(), Shape::Document);
            assert!(
                reason
                    .as_deref()
                    .is_some_and(|r| r.contains("parses as an injection")),
                "{text}: {reason:?}"
            );
        }
    }
}
