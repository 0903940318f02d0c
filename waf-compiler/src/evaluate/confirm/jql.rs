//! JQL, Jira's query language: the issue navigator's address (`/issues/?jql=...`), its REST search
//! (`/rest/api/3/search?jql=...`, a `jql` member of a JSON body), saved filters and boards send a whole query the
//! user typed or built: clauses of a field, an operator and a value (`project = OPS AND status was "In Progress"
//! ON "2024-02-14"`, `assignee in membersOf("jira-users")`, `created >= -1w ORDER BY priority DESC`), whose
//! history operators (`WAS`, `CHANGED`), functions and relative dates no SQL parser reads, while libinjection
//! reads `"Epic Name" ~ "N+1 query" AND ...` as a string and a condition. A value that parses as JQL from end to
//! end, in a parameter named for a query, is the API's language. An injection into an SQL statement needs what
//! JQL has no place for: a quote left open, a comment, a second statement, a condition of literals alone
//! (`1 = 1`, `"a" = "a"`), a keyword where a clause or an operator goes (`UNION SELECT`).

/// Parentheses nested deeper than this are no query a person writes; the parser stops there (its recursion is
/// bounded whatever the value).
const DEPTH_LIMIT: usize = 16;

/// JQL's operators written with symbols, longest first.
const SYMBOLS: [&str; 8] = ["!=", ">=", "<=", "!~", "=", ">", "<", "~"];

/// The words of JQL's history predicates (`status WAS "Open" BY jsmith DURING ("2024-01-01", now())`).
const PREDICATES: [&str; 7] = ["after", "before", "by", "during", "on", "from", "to"];

/// Whether `value` is a whole JQL query: clauses joined by `AND`, `OR` and `NOT` (or `&&`, `||`, `!`) and
/// grouped by parentheses, each a field (a name, a quoted name, `cf[10020]`), an operator and an operand (a
/// value, a function's call, a list), history predicates after `WAS` and `CHANGED`, then `ORDER BY` fields.
/// A clause whose field and value are the same word is a tautology, not a query's.
pub fn is_query(value: &str) -> bool {
    // An unquoted value may hold a dash or a slash (`-1w`, `2024/01/15`), never SQL's comments.
    if value.contains("--") || value.contains("/*") {
        return false;
    }
    let Some(tokens) = tokens(value) else {
        return false;
    };
    let mut parser = Parser {
        tokens: &tokens,
        at: 0,
    };
    let clauses = if parser.is_word("order") {
        true
    } else {
        parser.expression(0)
    };
    clauses && parser.order_by() && parser.at == tokens.len()
}

#[derive(Debug, PartialEq, Eq)]
enum Token<'a> {
    /// A name or an unquoted value: letters, digits and `_ . - + @ / : *` (`PROJ-123`, `-1w`, `2024/01/15`).
    Word(&'a str),
    /// A quoted string, without its quotes.
    Quoted(&'a str),
    /// An operator written with symbols, or `&&`, `||`, `!`.
    Symbol(&'a str),
    Open,
    Close,
    Comma,
    /// `[`, `]` of a custom field's id.
    Bracket(char),
}

/// The tokens of `value`, or `None` where it holds what JQL has no token for (`;`, `#`, a quote left open).
fn tokens(value: &str) -> Option<Vec<Token<'_>>> {
    let mut tokens = Vec::new();
    let mut rest = value;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let (token, len) = match c {
            '(' => (Token::Open, 1),
            ')' => (Token::Close, 1),
            ',' => (Token::Comma, 1),
            '[' | ']' => (Token::Bracket(c), 1),
            '"' | '\'' => {
                let len = quoted_len(rest, c)?;
                (Token::Quoted(&rest[1..len - 1]), len)
            }
            '&' | '|' => {
                let pair = if c == '&' { "&&" } else { "||" };
                rest.starts_with(pair).then_some(())?;
                (Token::Symbol(pair), 2)
            }
            _ => {
                if let Some(symbol) = SYMBOLS.iter().find(|symbol| rest.starts_with(*symbol)) {
                    (Token::Symbol(symbol), symbol.len())
                } else if c == '!' {
                    (Token::Symbol("!"), 1)
                } else {
                    let len = rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len());
                    (len > 0).then_some(())?;
                    (Token::Word(&rest[..len]), len)
                }
            }
        };
        tokens.push(token);
        rest = &rest[len..];
    }
    Some(tokens)
}

/// The characters of an unquoted name or value.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || "_.-+@/:*".contains(c)
}

/// The length of the string quoted by `quote` at the start of `rest`, with its quotes; a backslash escapes the
/// character after it. `None` when it is not closed.
fn quoted_len(rest: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in rest.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            _ if c == quote => return Some(at + 1),
            _ => {}
        }
    }
    None
}

struct Parser<'t, 'v> {
    tokens: &'t [Token<'v>],
    at: usize,
}

impl Parser<'_, '_> {
    fn peek(&self) -> Option<&Token<'_>> {
        self.tokens.get(self.at)
    }

    fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word))
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let is = self.is_word(word);
        self.at += usize::from(is);
        is
    }

    fn eat(&mut self, token: &Token<'_>) -> bool {
        let is = self.peek() == Some(token);
        self.at += usize::from(is);
        is
    }

    /// Terms joined by `AND`, `OR`, `&&` or `||`.
    fn expression(&mut self, depth: usize) -> bool {
        if !self.term(depth) {
            return false;
        }
        while self.eat_word("and")
            || self.eat_word("or")
            || self.eat(&Token::Symbol("&&"))
            || self.eat(&Token::Symbol("||"))
        {
            if !self.term(depth) {
                return false;
            }
        }
        true
    }

    /// A clause, a negated term or a group in parentheses.
    fn term(&mut self, depth: usize) -> bool {
        if depth > DEPTH_LIMIT {
            return false;
        }
        if self.eat_word("not") || self.eat(&Token::Symbol("!")) {
            return self.term(depth + 1);
        }
        if self.eat(&Token::Open) {
            return self.expression(depth + 1) && self.eat(&Token::Close);
        }
        self.clause()
    }

    /// A field, an operator and its operand, with history predicates after `WAS` and `CHANGED`.
    fn clause(&mut self) -> bool {
        let Some(field) = self.field() else {
            return false;
        };
        let history = if self.eat_word("changed") {
            true
        } else if self.eat_word("was") {
            self.eat_word("not");
            self.eat_word("in");
            self.operand(Some(field))
        } else {
            return self.operator() && self.operand(Some(field));
        };
        history && self.predicates()
    }

    /// A field's name: a word that starts with a letter, a quoted name with a letter in it, or a custom field's
    /// id (`cf[10020]`). Its text, to tell a tautology.
    fn field(&mut self) -> Option<String> {
        let name = match self.peek()? {
            Token::Word(word) if word.starts_with(char::is_alphabetic) && !is_keyword(word) => {
                word.to_lowercase()
            }
            Token::Quoted(name) if name.contains(char::is_alphabetic) => name.to_lowercase(),
            _ => return None,
        };
        self.at += 1;
        if self.eat(&Token::Bracket('[')) {
            let id = matches!(self.peek(), Some(Token::Word(id)) if id.chars().all(|c| c.is_ascii_digit()));
            self.at += usize::from(id);
            if !(id && self.eat(&Token::Bracket(']'))) {
                return None;
            }
        }
        Some(name)
    }

    /// `=`, `!=`, `<`... `~`, `IN`, `NOT IN`, `IS`, `IS NOT`.
    fn operator(&mut self) -> bool {
        if matches!(self.peek(), Some(Token::Symbol(s)) if !matches!(*s, "!" | "&&" | "||")) {
            self.at += 1;
            return true;
        }
        if self.eat_word("not") {
            return self.eat_word("in");
        }
        if self.eat_word("is") {
            self.eat_word("not");
            return true;
        }
        self.eat_word("in")
    }

    /// A value, a function's call or a list of those. A value that repeats `field` makes a tautology.
    fn operand(&mut self, field: Option<String>) -> bool {
        match self.peek() {
            Some(Token::Open) => {
                self.at += 1;
                self.list()
            }
            Some(Token::Quoted(value)) => {
                let same = field.is_some_and(|field| value.to_lowercase() == field);
                self.at += 1;
                !same
            }
            Some(Token::Word(value)) if !is_keyword(value) => {
                let same = field.is_some_and(|field| value.to_lowercase() == field);
                let named = value.starts_with(char::is_alphabetic);
                self.at += 1;
                if self.eat(&Token::Open) {
                    return named && self.list_or_empty();
                }
                !same
            }
            _ => false,
        }
    }

    /// Operands separated by commas, then `)`.
    fn list(&mut self) -> bool {
        loop {
            if !self.operand(None) {
                return false;
            }
            if self.eat(&Token::Close) {
                return true;
            }
            if !self.eat(&Token::Comma) {
                return false;
            }
        }
    }

    /// A function's arguments: none, or a list.
    fn list_or_empty(&mut self) -> bool {
        self.eat(&Token::Close) || self.list()
    }

    /// History predicates: `AFTER`, `BEFORE`, `BY`, `DURING`, `ON`, `FROM`, `TO`, each with an operand.
    fn predicates(&mut self) -> bool {
        while PREDICATES.iter().any(|word| self.is_word(word)) {
            self.at += 1;
            if !self.operand(None) {
                return false;
            }
        }
        true
    }

    /// `ORDER BY` fields, each `ASC` or `DESC` or neither, when there is one.
    fn order_by(&mut self) -> bool {
        if !self.eat_word("order") {
            return true;
        }
        if !self.eat_word("by") {
            return false;
        }
        loop {
            if self.field().is_none() {
                return false;
            }
            let _ = self.eat_word("asc") || self.eat_word("desc");
            if !self.eat(&Token::Comma) {
                return true;
            }
        }
    }
}

/// JQL's reserved words that join clauses or order them: no field or value is named so unquoted.
fn is_keyword(word: &str) -> bool {
    ["and", "or", "not", "order"]
        .iter()
        .any(|keyword| word.eq_ignore_ascii_case(keyword))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_people_write_in_jira_are_jql() {
        for query in [
            r#""Epic Name" ~ "N+1 query" AND fixVersion in unreleasedVersions() AND created > "2024/01/15 08:00" AND (created >= -1w AND priority = High)"#,
            r#"project = SEC AND issuetype = Bug AND organization = "Wayne Enterprises" ORDER BY created DESC"#,
            r#"status in ("To Do", Reopened, "Code Review") AND status was "In Progress" ON "2024-02-14" AND labels in (ux) AND (cf[10020] = 134 OR cf[10020] is EMPTY)"#,
            r#"text ~ "\"SSO / SAML\"" AND project in (OPS, INFRA) AND issueFunction in linkedIssuesOf("project = OPS", "blocks")"#,
            r#"fixVersion = "2024.02 (Hotfix)" AND (status changed to Done during (startOfWeek(), now()))"#,
            "assignee was currentUser() AND project = DATA AND attachments IS NOT EMPTY",
            "issue in (SUP-1645, SUP-1581) AND resolution = Unresolved ORDER BY priority DESC, updated",
            "NOT reporter = nhuong && !(labels is empty) || status != Done",
            "order by created DESC",
        ] {
            assert!(is_query(query), "{query}");
        }
    }

    #[test]
    fn injections_and_tautologies_are_not_jql() {
        for value in [
            "1 = 1",
            "x = 1 OR 1 = 1",
            r#"name = "x" OR "a" = "a""#,
            "id = a OR b = b",
            "name = 'x' UNION SELECT password FROM users",
            "name = 'x",
            "status = Done; DROP TABLE users",
            "sleep(5)",
            "x = 1 AND sleep(5)",
            "status = Done #",
            "",
            "((((((((((((((((((a = 1))))))))))))))))))",
            "project = OPS ORDER created",
            "summary = a--",
        ] {
            assert!(!is_query(value), "{value}");
        }
    }
}
