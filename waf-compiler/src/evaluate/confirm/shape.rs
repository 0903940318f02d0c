//! Which values need a parser's confirmation: those shaped as data that holds attack words by nature. A JSON
//! document carried in a field, and prose (a review, a post, a message, text with its punctuation), hold SQL
//! keywords, angle brackets, pipes and command names as a matter of course; a pattern hit there means little
//! until a parser finds an injection. A short value of no such shape (an id, a search term, a fragment such
//! as `x' mod id--` or `database (`) has nothing else to be: there a pattern hit scores as written.

/// The shape of a value that makes it data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// An object or an array that parses as JSON, or a JavaScript object literal of JSON's values.
    Json,
    /// One word, name, number, identifier or email address, a comma-separated list of words, a list of
    /// media types (a browser's `Accept` header that a page's script reports: `text/html,application/xhtml+xml`),
    /// or a record of such fields and base64 joined by `;` (Akamai's sensor data: [`is_field_record`]).
    Token,
    /// An absolute `http` or `https` URL of URL characters only (no quote, blank, bracket or backslash): the page
    /// an analytics beacon reports, a redirect target, a link in a document; or the route of a page of a web
    /// framework with dynamic segments (`/blog/[slug]`: [`is_route_template`]).
    Url,
    /// Sentences of natural language.
    Text,
    /// Several lines: a post, a ticket, a Markdown or configuration file, a snippet of code.
    Document,
    /// HTML, as a rich-text editor writes it.
    Markup,
    /// `name=value` pairs joined by `&`: a query string carried in a value (an ad server's targeting, a page's
    /// query copied into a tracking parameter, a serialised form).
    Pairs,
    /// An expression of a query language an API defines and parses, its string literals closed (OData's
    /// `$filter`; the parameter's name says so: [`super::sql::is_odata_expression`]), or, to the XSS parser, a
    /// whole query under a parameter named for one (Jira's `jql`, Confluence's `cql`: [`super::sql::whole_query`]),
    /// or a search engine's boolean query ([`is_boolean_search`]: PubMed's, a library catalogue's).
    /// One with a literal left open is a fragment.
    Expression,
    /// A spreadsheet formula as spreadsheet APIs take a cell's value (Google Sheets' and Excel's `USER_ENTERED`
    /// input, Smartsheet's, Airtable's): `=`, a function's call whose arguments are cell references, ranges,
    /// numbers, double-quoted strings and operators (`=IF(C4="", "", D4/C4)`, `=SUM(Sheet1!A1:A9)`), no single
    /// quote ([`is_formula`]).
    Formula,
    /// An arithmetic expression as a maths exercise, a calculator or a search takes it (`sqrt(2)/2`,
    /// `3x^2 + 2x - 1`, `(a+b)*(a-b)`), or an equation of such with a variable (`g(x)=sin(x)`, a student's
    /// answer `z = (x - μ)/σ = 1.5`): numbers, one-letter variables, the functions of maths, `+ - * / ^ %`,
    /// maths' own signs and brackets, no comparison of literals, no logical operator and no comment ([`is_math`]).
    Math,
    /// The code a browser's violation report or an error report's stack frame quotes, or a notebook's cell
    /// stores (the field says so, not the bytes: [`super::report`], [`super::notebook`]).
    Sample,
    /// A file written as a data URI (`data:image/gif;base64,...`, `data:application/pdf;base64,...`) of a type no
    /// browser runs code in, whose bytes are the file its type names (its signature, where it has one) and hold no
    /// PHP tag ([`is_file_data_uri`]): a page's placeholder image (Outlook on the web sends its inline-image
    /// template in every conversation call), an avatar, a pasted screenshot, a form's attached PDF, a caption file.
    File,
    /// A password of random characters as a password manager generates it, in a field named for a password:
    /// [`SECRET_LENGTH`] or more printable characters without a blank, punctuation among two of lower case
    /// letters, upper case letters and digits ([`is_secret`]); or a message a web framework signed or encrypted
    /// for a cookie, parts of base64 joined by `--` (Rails' session cookies: [`is_signed_message`]).
    Secret,
}

impl Shape {
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Json => "a JSON document",
            Shape::Token => "a plain word or name",
            Shape::Url => "a URL",
            Shape::Text => "text",
            Shape::Document => "a document of several lines",
            Shape::Markup => "HTML",
            Shape::Pairs => "a query string",
            Shape::Expression => "an expression of a query language",
            Shape::Formula => "a spreadsheet formula",
            Shape::Math => "an arithmetic expression",
            Shape::Sample => "code a report quotes or a notebook stores",
            Shape::File => "a file as a data URI",
            Shape::Secret => {
                "a generated secret (a password of random characters, a signed message)"
            }
        }
    }
}

/// What makes `value` data rather than a fragment of code, when it is.
pub fn data_shape(value: &[u8]) -> Option<Shape> {
    if is_json_document(value) || super::json::is_object_literal(value) {
        Some(Shape::Json)
    } else if is_file_data_uri(value) {
        Some(Shape::File)
    } else if is_formula(value) {
        Some(Shape::Formula)
    } else if is_signed_message(value) {
        Some(Shape::Secret)
    } else if is_plain_token(value)
        || is_media_types(value)
        || is_field_record(value)
        || is_routed_session_id(value)
    {
        Some(Shape::Token)
    } else if is_math(value) {
        Some(Shape::Math)
    } else if is_url(value) || is_route_template(value) {
        Some(Shape::Url)
    } else if is_boolean_search(value) {
        Some(Shape::Expression)
    } else if is_pairs(value) || is_url_with_pairs(value) {
        Some(Shape::Pairs)
    } else if is_text(value) {
        Some(Shape::Text)
    } else if is_document(value) {
        Some(Shape::Document)
    } else if is_markup(value) {
        Some(Shape::Markup)
    } else {
        None
    }
}

/// Whether `value` is [`Shape::Text`]: prose, a phrase or an error message. Formulas of TeX in it
/// (`$f(x)=\sin(1/x)$`) are read as the page shows them, typeset, each one word ([`super::tex::without_formulas`]).
fn is_text(value: &[u8]) -> bool {
    let typeset = super::tex::without_formulas(value);
    let text = typeset.as_deref().unwrap_or(value);
    is_prose(text) || is_phrase(text) || is_error_message(value)
}

/// Non-empty lines of `value`.
pub fn lines(value: &[u8]) -> usize {
    value
        .split(|&b| b == b'\n')
        .filter(|line| !line.trim_ascii().is_empty())
        .count()
}

/// Lines and words of a document: a snippet of two lines is still a fragment.
const DOCUMENT_LINES: usize = 3;
const DOCUMENT_WORDS: usize = 10;

/// At least [`DOCUMENT_LINES`] non-empty lines and [`DOCUMENT_WORDS`] words.
fn is_document(value: &[u8]) -> bool {
    lines(value) >= DOCUMENT_LINES && words(value) >= DOCUMENT_WORDS
}

/// Start tags and comments of HTML: a paragraph with a link has two, as has an image block a rich-text editor
/// saves with no text at all (`<figure class="wp-block-image"><img src="..." alt=""/></figure>`), and a heading
/// block between the editor's comments (`<!-- wp:heading --><h2>...</h2><!-- /wp:heading -->`).
const MARKUP_ELEMENTS: usize = 2;

/// At least [`MARKUP_ELEMENTS`] start tags (`<` and a letter) and closed comments (`<!--` ... `-->`, not a
/// server-side include's `<!--#`), or an element with its end tag in a sentence ([`INLINE_WORDS`]): HTML, which
/// the XSS parser reads as a browser does.
pub fn is_markup(value: &[u8]) -> bool {
    let tags = value
        .windows(2)
        .filter(|w| w[0] == b'<' && w[1].is_ascii_alphabetic())
        .count();
    let mut comments = 0;
    let mut rest = value;
    while let Some(start) = memchr::memmem::find(rest, b"<!--") {
        let Some(end) = memchr::memmem::find(&rest[start + 4..], b"-->") else {
            break;
        };
        // `<!--#exec ...-->` is a server-side include directive: code, not a comment.
        comments += usize::from(rest.get(start + 4) != Some(&b'#'));
        rest = &rest[start + 4 + end + 3..];
    }
    let end_tags = value
        .windows(3)
        .filter(|w| w[0] == b'<' && w[1] == b'/' && w[2].is_ascii_alphabetic())
        .count();
    tags + comments >= MARKUP_ELEMENTS
        || (tags + end_tags >= MARKUP_ELEMENTS && words(&text_outside_tags(value)) >= INLINE_WORDS)
}

/// Words of text around a single element for it to be a sentence with inline markup (a consent label with its
/// link, `I accept the <a href="/privacy/">privacy notice</a>`), not an element alone.
const INLINE_WORDS: usize = 3;

/// `value` without its tags (`<` to the next `>`).
fn text_outside_tags(value: &[u8]) -> Vec<u8> {
    let mut text = Vec::with_capacity(value.len());
    let mut in_tag = false;
    for &b in value {
        match b {
            b'<' => in_tag = true,
            b'>' if in_tag => {
                in_tag = false;
                text.push(b' ');
            }
            _ if !in_tag => text.push(b),
            _ => {}
        }
    }
    text
}

/// Runs of two or more letters (of any script).
fn words(value: &[u8]) -> usize {
    value
        .split(|&b| !(b.is_ascii_alphabetic() || b >= 0x80))
        .filter(|run| run.len() >= 2)
        .count()
}

/// Whether `value` is a [`Shape::File`]: `data:type/subtype;base64,` and base64 to its end, the type a file's
/// that no browser renders as a document that runs code (images, audio, video, fonts, PDFs, archives,
/// `octet-stream`; not HTML, XML, SVG, a script, or text), decoding to the signature of the type where it has one
/// and to no `<?` (PHP runs a data URI it includes whatever its type says, and a GIF with PHP after its header is
/// the classic polyglot).
fn is_file_data_uri(value: &[u8]) -> bool {
    let Some(rest) = value.strip_prefix(b"data:") else {
        return false;
    };
    let Some(comma) = rest.iter().position(|&b| b == b',') else {
        return false;
    };
    let Some(media_type) = rest[..comma].strip_suffix(b";base64") else {
        return false;
    };
    let Ok(media_type) = std::str::from_utf8(media_type) else {
        return false;
    };
    let lower = media_type.to_ascii_lowercase();
    let inert = match lower.split_once('/') {
        Some(("image" | "audio" | "video" | "font", subtype)) => !subtype.contains("svg"),
        Some(("application", subtype)) => !["xml", "html", "javascript", "ecmascript", "php", "sh"]
            .iter()
            .any(|active| subtype.contains(active)),
        // Text is what PHP's `data://` wrapper is fed as (`data:text/plain;base64,...`), whatever it holds.
        _ => false,
    };
    let payload = &rest[comma + 1..];
    let base64 = payload
        .iter()
        .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
    if !inert || !base64 {
        return false;
    }
    let bytes = crate::transform::apply(
        crate::rule::Transform::Base64Decode,
        payload,
        crate::transform::UnicodeMap::default(),
    );
    let signed = !crate::policy::has_signature(media_type)
        || crate::policy::is_labelled_file(media_type, &bytes);
    signed && memchr::memmem::find(&bytes, b"<?").is_none()
}

/// The top-level media types of IANA's registry (RFC 6838), and `*` of a media range.
const TOP_LEVEL_TYPES: &[&str] = &[
    "application",
    "audio",
    "font",
    "haptics",
    "image",
    "message",
    "model",
    "multipart",
    "text",
    "video",
    "*",
];

/// A list of media types with their parameters, each named with a registered top-level type (`text/html`,
/// `*/*`): a browser's `Accept` header as scripts report it (YouTube's clients send theirs in every call), which
/// holds `xhtml` and `xml`. (`HTTP/1.1` has the shape but no such type.)
fn is_media_types(value: &[u8]) -> bool {
    let registered = value.split(|&b| b == b',').all(|element| {
        let kind = element.split(|&b| b == b'/').next().unwrap_or_default();
        !element.contains(&b'/')
            || TOP_LEVEL_TYPES
                .iter()
                .any(|top| kind.trim_ascii().eq_ignore_ascii_case(top.as_bytes()))
    });
    value.contains(&b'/') && registered && crate::policy::is_media_range_list(value)
}

/// Whether `value` is a field selection as APIs take one in `fields` (Google's partial responses,
/// `nextPageToken,files(id,name,parents),changes(file(id,name))`, `items/snippet/title`; Facebook's Graph API,
/// `id,name,picture{url}`; YouTrack's, `id,author(login),visibility($type)`): field names (letters, digits,
/// `_`, `*`, a `$` first) joined by `/`, each item perhaps followed by a
/// nested selection in parentheses or braces, items apart by commas, with one nested selection at least. It
/// names fields and nothing else: no quote, operator, blank or call with an argument that is not a field.
pub fn is_field_selection(value: &[u8]) -> bool {
    /// Where the reading is: before a name, inside one, after a nested selection's end.
    #[derive(PartialEq)]
    enum At {
        Start,
        Name,
        Closed,
    }
    let (mut closers, mut nested, mut at) = (Vec::new(), false, At::Start);
    for &b in value {
        at = match b {
            b'(' | b'{' if at == At::Name => {
                closers.push(if b == b'(' { b')' } else { b'}' });
                nested = true;
                At::Start
            }
            b')' | b'}' if at != At::Start && closers.pop() == Some(b) => At::Closed,
            b',' if at != At::Start => At::Start,
            b'/' if at == At::Name => At::Start,
            b if (b.is_ascii_alphanumeric() || matches!(b, b'_' | b'*')) && at != At::Closed => {
                At::Name
            }
            // A name's `$` first: YouTrack's `$type`, the entity type it returns with each item.
            b'$' if at == At::Start => At::Name,
            _ => return false,
        };
    }
    nested && at != At::Start && closers.is_empty()
}

/// Whether `value` is a list of media types ([`is_media_types`]) with a quoted parameter, and every quoted
/// parameter holds letters, digits and `=_-.+/:` alone: a multipart boundary as RFC 2046 quotes it
/// (`multipart/mixed; boundary="=====bcrn674bg7kv====="`, which Google's JavaScript client sends in `$ct` with
/// each batch call), whose quotes are the media type's syntax and hold nothing that could close another's.
pub fn is_quoted_media_type(value: &[u8]) -> bool {
    let mut quoted = value.split(|&b| b == b'"').skip(1).step_by(2).peekable();
    quoted.peek().is_some()
        && quoted.all(|inside| {
            inside.iter().all(|&b| {
                b.is_ascii_alphanumeric()
                    || matches!(b, b'=' | b'_' | b'-' | b'.' | b'+' | b'/' | b':')
            })
        })
        && is_media_types(value)
}

/// An object or an array that parses as JSON: a document inside a field (JSON in a JSON string, a form field
/// holding a serialised state, a GET's search query).
pub fn is_json_document(value: &[u8]) -> bool {
    let trimmed = value.trim_ascii();
    matches!(trimmed.first(), Some(b'{' | b'['))
        && serde_json::from_slice::<serde::de::IgnoredAny>(trimmed).is_ok()
}

/// Whether `value` is two JSON documents or more one after another, each an object or an array, set apart by
/// blanks and line breaks or by nothing: NDJSON (Elasticsearch's bulk requests, log shippers' batches) and the
/// concatenated events of Splunk's HTTP Event Collector.
pub fn is_json_sequence(value: &[u8]) -> bool {
    let starts_a_document =
        |rest: &[u8]| matches!(rest.trim_ascii_start().first(), Some(b'{' | b'['));
    let mut documents =
        serde_json::Deserializer::from_slice(value).into_iter::<serde::de::IgnoredAny>();
    let mut count = 0;
    loop {
        let offset = documents.byte_offset();
        let rest = &value[offset..];
        if rest.trim_ascii().is_empty() {
            return count >= 2;
        }
        if !starts_a_document(rest) || !matches!(documents.next(), Some(Ok(_))) {
            return false;
        }
        count += 1;
    }
}

/// A single word, name, number or identifier (`northwind`, `de-DE`, `v2.1`, `user_id`, `urn:li:member:7`,
/// `ctl00$MainContent$GridView1` [`joins_names`]), an email address
/// ([`is_email_address`]), or a comma-separated list
/// of them as APIs take fields and options (`sh,fc`, `id,name,price`): no quote, no operator, no bracket, no blank,
/// so nothing that could change the syntax it is inserted into on its own, and the parsers judge it. A GUID in Microsoft's registry
/// form, in braces and perhaps quotes (`"{D312D9D2-3ABD-4847-A91F-44061A2C8B60}"`, as Exchange's and
/// SharePoint's cookies and parameters carry it; `'{...}'` in SharePoint's REST parameter aliases, `@a1`), is one
/// too: hex digits and hyphens inject nothing.
fn is_plain_token(value: &[u8]) -> bool {
    let unquoted = value
        .strip_prefix(b"\"")
        .and_then(|v| v.strip_suffix(b"\""))
        .or_else(|| value.strip_prefix(b"'").and_then(|v| v.strip_suffix(b"'")))
        .unwrap_or(value);
    let guid = unquoted
        .strip_prefix(b"{")
        .and_then(|v| v.strip_suffix(b"}"))
        .is_some_and(is_guid);
    guid || is_email_address(value)
        || (!value.is_empty()
            && value.split(|&b| b == b',').all(|word| {
                !word.is_empty()
                    && word.iter().enumerate().all(|(at, &b)| {
                        b.is_ascii_alphanumeric()
                            || b >= 0x80
                            || matches!(b, b'_' | b'-' | b'.' | b':')
                            || (b == b'$' && joins_names(word, at))
                    })
                    && !names_a_script_scheme(word)
            }))
}

/// Whether the `$` at `at` in `word` joins two names, a letter or digit on each side: ASP.NET's control ids and
/// postback arguments (`ctl00$MainContent$GridView1`, `Page$First`, `Sort$Name`), Java's nested classes
/// (`Outer$Inner`). An operator's or a variable's `$` starts its word (`$where`, `$HOME`).
fn joins_names(word: &[u8], at: usize) -> bool {
    let alphanumeric = |i: Option<usize>| {
        i.and_then(|i| word.get(i))
            .is_some_and(u8::is_ascii_alphanumeric)
    };
    alphanumeric(at.checked_sub(1)) && alphanumeric(Some(at + 1))
}

/// A Java application server's session id with the server's route after `!` (Oracle WebLogic's `JSESSIONID`,
/// PeopleSoft's `PSJSESSIONID`: `vQEj23-SOVYoTjD5YuMyLt-DiCgGstza!-1630794642`, perhaps a second hash and a
/// creation time after more `!`), or the view state token of the same servers' ADF pages: an identifier and
/// signed numbers, whose `!-1` the shell would read as its history but which no shell ever sees.
fn is_routed_session_id(value: &[u8]) -> bool {
    // Oracle ADF's and Apache Trinidad's view state token, `javax.faces.ViewState=!-6p693zdqiv`: a `!` and the
    // state's id.
    let state_token = value.strip_prefix(b"!").is_some_and(|token| {
        let id = token.strip_prefix(b"-").unwrap_or(token);
        id.len() >= STATE_TOKEN_LENGTH && id.iter().all(u8::is_ascii_alphanumeric)
    });
    if state_token {
        return true;
    }
    let mut parts = value.split(|&b| b == b'!');
    let id = parts.next().unwrap_or_default();
    let routes: Vec<&[u8]> = parts.collect();
    id.len() >= ROUTED_SESSION_ID_LENGTH
        && id
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        && (1..=3).contains(&routes.len())
        && routes.iter().all(|route| {
            let digits = route.strip_prefix(b"-").unwrap_or(route);
            (1..=20).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit)
        })
}

/// The shortest id of a [`is_routed_session_id`]: WebLogic's are 32 characters and more; a word is no session.
const ROUTED_SESSION_ID_LENGTH: usize = 16;

/// The shortest id of an ADF view state token (`!-6p693zdqiv`); a history expansion is a few characters (`!-1`).
const STATE_TOKEN_LENGTH: usize = 8;

/// URL schemes whose URL a browser runs as a script or renders as a page of the URL's own making.
const SCRIPT_SCHEMES: [&[u8]; 5] = [b"javascript", b"vbscript", b"livescript", b"mocha", b"data"];

/// Whether `word`, names joined by colons, starts with a [`SCRIPT_SCHEMES`] scheme (`javascript:name` renders
/// `window.name` as a page). Other such words are identifiers: URNs (`urn:dss:source:sdk:javascript:windows`,
/// `urn:li:fsd_profile:ACoAAB`), Spotify's URIs, AWS's ARNs, IPv6 addresses, times of day.
fn names_a_script_scheme(word: &[u8]) -> bool {
    word.split(|&b| b == b':').next().is_some_and(|scheme| {
        word.len() > scheme.len()
            && SCRIPT_SCHEMES
                .iter()
                .any(|known| scheme.eq_ignore_ascii_case(known))
    })
}

/// The functions of maths, as calculators, maths exercises and graphing tools write them.
const MATH_FUNCTIONS: [&str; 26] = [
    "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "tanh", "sqrt", "cbrt", "abs", "log", "log2", "log10", "ln", "lg", "exp",
    "floor", "ceil",
];

/// Whether `value` is a [`Shape::Math`]: numbers, one-letter variables (`3x`, `a`, Greek letters: `μ`, `σ`),
/// `pi`, [`MATH_FUNCTIONS`] called with brackets,
/// `+ - * / ^ %` and maths' own signs (`±`, `×`, `÷`, `−`, `√`, `²`), commas, paired brackets and blanks, with an
/// operator or a call among them; or an equation of such expressions (`g(x)=sin(x)`, `x = (-b ± sqrt(b^2 -
/// 4*a*c)) / 2a`) with a variable or a call in it and no two sides alike. (Letters run together, `4ac`, are no
/// product here: URL-encoding puts a digit before every word, `%20or`.) In a numeric context of SQL such an
/// expression is a number (`id = sqrt(2)/2`) or a comparison of the row's own columns; what turns one into a
/// condition that holds for every row is absent: a comparison of literals (`1=1`, `a=a`), a logical operator
/// (`||`, `or`), a comment (`--`, `/*`), a quote, a word of SQL.
fn is_math(value: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(value) else {
        return false;
    };
    // One pass over the characters, stopping at the first that no expression holds (most values are words).
    let (mut operators, mut variables, mut calls) = (0usize, 0usize, 0usize);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_ascii_alphabetic() {
            let end = text[i..]
                .find(|c: char| !c.is_ascii_alphabetic())
                .map_or(text.len(), |at| i + at);
            let word = &text[i..end];
            let call = text[end..].starts_with('(');
            if call
                && MATH_FUNCTIONS
                    .iter()
                    .any(|name| word.eq_ignore_ascii_case(name))
            {
                operators += 1;
                calls += 1;
            } else if word.len() == 1 || word.eq_ignore_ascii_case("pi") {
                variables += 1;
            } else {
                return false;
            }
            while chars.next_if(|&(at, _)| at < end).is_some() {}
            continue;
        }
        match c {
            '+' | '-' | '*' | '/' | '^' | '%' | '±' | '×' | '÷' | '−' | '√' | '·' => {
                operators += 1
            }
            '=' | '0'..='9' | '.' | ',' | '(' | ')' | ' ' | '²' | '³' => {}
            'α'..='ω' | 'Α'..='Ω' => variables += 1,
            _ => return false,
        }
    }
    let mut depth = 0usize;
    let balanced = value.iter().all(|&b| match b {
        b'(' => {
            depth += 1;
            true
        }
        b')' => depth.checked_sub(1).map(|d| depth = d).is_some(),
        _ => true,
    }) && depth == 0;
    let math = if text.contains('=') {
        // An equation: its sides are all there and none alike.
        let sides: Vec<&str> = text.split('=').map(str::trim).collect();
        (variables > 0 || calls > 0)
            && sides
                .iter()
                .enumerate()
                .all(|(i, side)| !side.is_empty() && !sides[..i].contains(side))
    } else {
        operators > 0
    };
    math && balanced
        && ![b"--".as_slice(), b"/*", b"*/"]
            .iter()
            .any(|comment| memchr::memmem::find(value, comment).is_some())
}

/// Whether `value` is the route of a page as the file-system routers of Next.js, Nuxt, SvelteKit, Remix and
/// Astro name it, and as their apps' analytics report the page a visitor is on (Vercel's `route`, Sentry's
/// transaction names): a path of plain names and dynamic segments (`[slug]`, `[...path]`, `[[...path]]`), one of
/// those at least (`/project/[ref]/editor/[id]`). As a shell pattern a whole segment in brackets matches a name
/// of one character, and nothing else in the path is a command's syntax.
fn is_route_template(value: &[u8]) -> bool {
    let Some(path) = value.strip_prefix(b"/") else {
        return false;
    };
    let plain = |name: &[u8]| {
        !name.is_empty()
            && name
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    };
    let dynamic = |segment: &[u8]| {
        let inner = segment
            .strip_prefix(b"[[...")
            .and_then(|rest| rest.strip_suffix(b"]]"))
            .or_else(|| {
                segment
                    .strip_prefix(b"[")
                    .and_then(|rest| rest.strip_suffix(b"]"))
                    .map(|name| name.strip_prefix(b"...").unwrap_or(name))
            });
        inner.is_some_and(|name| !name.is_empty() && name.iter().all(crate::operator::is_name_byte))
    };
    let path = path.strip_suffix(b"/").unwrap_or(path);
    let segments = || path.split(|&b| b == b'/');
    segments().any(dynamic) && segments().all(|segment| plain(segment) || dynamic(segment))
}

/// Fields of a record at least, and the length of a field of base64 in one.
const RECORD_FIELDS: usize = 4;
const RECORD_BASE64: usize = 24;

/// A record of [`RECORD_FIELDS`] or more fields joined by `;` or `|`, each a plain token or a list of them
/// ([`is_plain_token`], with `%XX` escapes: a blank the page encoded) or a run of base64 ([`RECORD_BASE64`]
/// characters or more, letters of both cases and digits among them): the sensor data Akamai Bot Manager's script
/// posts from every page of the sites it protects (`3;0;1;0;2128844;IIuLxZMdS/wSL/lKTb2...;745,83,495`), a device
/// fingerprint, the browser's brands and versions that Google Analytics reports from its client hints
/// (`Chromium;124.0.2478.51|Microsoft%20Edge;124.0.2478.51|Not-A.Brand;99.0.0.0`). No blank, quote, bracket or
/// operator: the parsers judge what a `;` or a `|` between such fields could start (`1;id` is still a command).
fn is_field_record(value: &[u8]) -> bool {
    let base64 = |field: &[u8]| field.len() >= RECORD_BASE64 && is_mixed_base64(field);
    let escaped_token = |field: &[u8]| {
        let mut unescaped = Vec::with_capacity(field.len());
        let mut i = 0;
        while let Some(&b) = field.get(i) {
            let hex = |at: usize| field.get(at).is_some_and(u8::is_ascii_hexdigit);
            if b == b'%' && hex(i + 1) && hex(i + 2) {
                unescaped.push(b'_');
                i += 3;
            } else {
                unescaped.push(b);
                i += 1;
            }
        }
        is_plain_token(&unescaped)
    };
    let fields = || value.split(|&b| b == b';' || b == b'|');
    fields().count() >= RECORD_FIELDS
        && fields().all(|field| escaped_token(field) || base64(field) || is_grease_brand(field))
}

/// Whether `field` is base64 (its alphabet, `=` only as the padding at its end) with letters of both cases and
/// digits among its characters, as random bytes encode.
fn is_mixed_base64(field: &[u8]) -> bool {
    base64_data(field).is_some_and(|data| {
        data.iter().any(u8::is_ascii_lowercase)
            && data.iter().any(u8::is_ascii_uppercase)
            && data.iter().any(u8::is_ascii_digit)
    })
}

/// `field` without its padding, when the rest is of base64's alphabet (hex digits are of it too).
fn base64_data(field: &[u8]) -> Option<&[u8]> {
    let data = field
        .strip_suffix(b"==")
        .or_else(|| field.strip_suffix(b"="))
        .unwrap_or(field);
    data.iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
        .then_some(data)
}

/// The length of a signed message's checksum at least: an AES-GCM nonce in base64 (12 bytes), a digest in hex
/// is longer.
const SIGNATURE_LENGTH: usize = 16;

/// Whether `value` is a message a web framework signed or encrypted for a cookie, its parts joined by `--` as
/// Rails writes its session and signed cookies (GitHub's `_gh_sess`, Discourse's `_forum_session`, Mastodon's,
/// GitLab's): `data--digest` (the digest in hex) or `ciphertext--nonce--tag`, each part base64. The data is
/// [`RECORD_BASE64`] characters or more of [`is_mixed_base64`], each other part [`SIGNATURE_LENGTH`] or more of
/// base64's or hex's alphabet. Two hyphens between runs of base64 start a comment in SQL, but nothing before
/// them can close a quote, open a bracket or make a condition: letters, digits, `+`, `/` and the padding.
fn is_signed_message(value: &[u8]) -> bool {
    let parts = split_on(value, b"--");
    let checksum =
        |part: &[u8]| base64_data(part).is_some_and(|data| data.len() >= SIGNATURE_LENGTH);
    matches!(parts.len(), 2 | 3)
        && parts[0].len() >= RECORD_BASE64
        && is_mixed_base64(parts[0])
        && parts[1..].iter().all(|part| checksum(part))
}

/// `value` split at each `separator`.
fn split_on<'a>(value: &'a [u8], separator: &[u8]) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    let mut rest = value;
    while let Some(at) = memchr::memmem::find(rest, separator) {
        parts.push(&rest[..at]);
        rest = &rest[at + separator.len()..];
    }
    parts.push(rest);
    parts
}

/// Whether `field` is the made-up brand a Chromium browser lists among its real ones in its client hints
/// (`sec-ch-ua`, and the lists analytics scripts report from them), so that servers do not come to expect a
/// fixed list: `Not`, `A` and `Brand` with one of Chromium's "greasy" characters between each two (`Not/A)Brand`,
/// `Not(A:Brand`, `Not_A Brand`, `Not A(Brand`), written out or percent-encoded.
fn is_grease_brand(field: &[u8]) -> bool {
    /// The characters Chromium draws from for the brand (`kGreaseyChars`).
    const GREASY: &[u8] = b" (:-./);=?_";
    let greasy = |rest: &[u8]| -> Option<usize> {
        match rest {
            [b'%', high, low, ..] if high.is_ascii_hexdigit() && low.is_ascii_hexdigit() => Some(3),
            [b, ..] if GREASY.contains(b) => Some(1),
            _ => None,
        }
    };
    let Some(rest) = field.strip_prefix(b"Not") else {
        return false;
    };
    let Some(rest) = greasy(rest).and_then(|len| rest[len..].strip_prefix(b"A")) else {
        return false;
    };
    greasy(rest).is_some_and(|len| &rest[len..] == b"Brand")
}

/// An email address as sign-up and contact forms take it: a local part of letters, digits, `.`, `_`, `-` and the
/// `+` of a sub-address (`john+orders`), `@`, and a domain of two labels or more, the last of letters.
fn is_email_address(value: &[u8]) -> bool {
    let Some(at) = value.iter().position(|&b| b == b'@') else {
        return false;
    };
    let (local, domain) = (&value[..at], &value[at + 1..]);
    let labels: Vec<&[u8]> = domain.split(|&b| b == b'.').collect();
    !local.is_empty()
        && local
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'+'))
        && labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || b == b'-')
        })
        && labels
            .last()
            .is_some_and(|tld| tld.len() >= 2 && tld.iter().all(u8::is_ascii_alphabetic))
}

/// Whether the argument name `name` is the member path of a JSON document whose keys include generated ids of
/// random characters ([`is_secret`]): Blockly's block ids, twenty characters of letters, digits and punctuation
/// (`targets.0.blocks.mc9dG,D;RJk|;v{$yV`;.opcode` of every Scratch project a browser saves), the other keys
/// plain names or indexes. The ids are keys the program looks its blocks up by, and a block names the next and
/// its parent by theirs (a value of such an id under such a path); an injection written there must work as one,
/// as in a generated password.
pub fn is_generated_key_path(name: &[u8]) -> bool {
    let Some(path) = name.strip_prefix(b"json.") else {
        return false;
    };
    // A generated id may hold a dot, which also joins the path's keys: the id is what is left between the
    // plain keys (words of letters, indexes) at the path's start and at its end.
    let keys: Vec<&[u8]> = path.split(|&b| b == b'.').collect();
    let plain = |key: &&[u8]| {
        !key.is_empty()
            && (key.iter().all(|b| b.is_ascii_alphabetic() || *b == b'_')
                || key.iter().all(u8::is_ascii_digit))
    };
    let first = keys
        .iter()
        .position(|key| !plain(key))
        .unwrap_or(keys.len());
    let last = keys
        .iter()
        .rposition(|key| !plain(key))
        .map_or(first, |at| at + 1);
    let id = keys.get(first..last).unwrap_or_default().join(&b'.');
    id.len() <= MAX_GENERATED_ID && is_secret(&id)
}

/// Longest generated id [`is_generated_key_path`] reads as one: Blockly's are twenty characters, Firebase's push
/// ids twenty; a longer run between a path's keys is no id.
const MAX_GENERATED_ID: usize = 40;

/// Characters of a generated secret: password managers generate 12 to 32 and more; the injections that fit in a
/// field without a blank are shorter (`admin'--`, `'or'1'='1`).
const SECRET_LENGTH: usize = 12;

/// Whether `value` has the characters of a generated secret ([`Shape::Secret`]).
pub fn is_secret(value: &[u8]) -> bool {
    let has = |class: fn(&u8) -> bool| value.iter().any(class);
    let letters_and_digits = [
        u8::is_ascii_lowercase,
        u8::is_ascii_uppercase,
        u8::is_ascii_digit,
    ]
    .into_iter()
    .filter(|&class| has(class))
    .count();
    value.len() >= SECRET_LENGTH
        && value.iter().all(u8::is_ascii_graphic)
        && has(u8::is_ascii_punctuation)
        && letters_and_digits >= 2
}

/// Whether `value` is a [`Shape::Formula`]: `=`, a function's name and its call, brackets and double quotes
/// paired, and only the bytes of a formula's references (`A1:C3`, `'Q1 Sales'!B2`, Excel's table references
/// `[@SKU]`, `Table1[[#This Row],[Qty]]`), numbers, strings and operators. The leading `=` is no expression's
/// start in a query; the parsers judge what the quotes hold, and SQL must work as an injection there.
fn is_formula(value: &[u8]) -> bool {
    let Some(rest) = value.strip_prefix(b"=") else {
        return false;
    };
    let name = rest
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_')))
        .unwrap_or(rest.len());
    if name == 0 || !rest[0].is_ascii_alphabetic() || rest.get(name) != Some(&b'(') {
        return false;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    for &b in &rest[name..] {
        match b {
            b'"' => in_string = !in_string,
            _ if in_string => {}
            b'(' => depth += 1,
            b')' => {
                depth = match depth.checked_sub(1) {
                    Some(depth) => depth,
                    None => return false,
                }
            }
            _ if b.is_ascii_alphanumeric() || b >= 0x80 => {}
            b' ' | b',' | b';' | b':' | b'!' | b'$' | b'.' | b'_' | b'+' | b'-' | b'*' | b'/'
            | b'^' | b'&' | b'=' | b'<' | b'>' | b'%' | b'\'' | b'[' | b']' | b'@' | b'#' => {}
            _ => return false,
        }
    }
    depth == 0 && !in_string
}

/// `8-4-4-4-12` hex digits.
fn is_guid(value: &[u8]) -> bool {
    let groups: Vec<&[u8]> = value.split(|&b| b == b'-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(group, len)| group.len() == len && group.iter().all(u8::is_ascii_hexdigit))
}

/// An absolute `http(s)` URL with a host, or a path with a query on the same site (`/results?search_query=...`,
/// the page a single-page app reports it is on), whose every byte may appear in a URL unescaped (RFC 3986's
/// unreserved and reserved characters, and `%`): none of the quotes, blanks, angle or curly brackets,
/// backslashes, pipes or backquotes an injection needs to leave a URL's place, written out or percent-encoded.
/// (A path alone, `/bin/cat`, is no page: it stays a fragment, unless [`is_url_or_path`] is asked.)
fn is_url(value: &[u8]) -> bool {
    is_url_or_path(value, false)
}

/// Whether `value` is a URL ([`is_url`]) or, with `paths`, a path of the same site alone
/// (`/threads/docker-container-networking.48213/`, the page XenForo's scripts say they are on): what a parameter
/// named for a URL holds.
pub fn is_url_or_path(value: &[u8], paths: bool) -> bool {
    let encoded_escape = value.windows(3).any(|w| {
        w[0] == b'%'
            && std::str::from_utf8(&w[1..])
                .ok()
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
                .is_some_and(|b| matches!(b, b'<' | b'>' | b'\'' | b'"' | b'\\' | b'`' | 0..=0x1f))
    });
    let rest = [b"http://".as_slice(), b"https://".as_slice()]
        .iter()
        .find_map(|scheme| {
            (value.len() > scheme.len() && value[..scheme.len()].eq_ignore_ascii_case(scheme))
                .then(|| &value[scheme.len()..])
        })
        .or_else(|| {
            value
                .strip_prefix(b"/")
                .filter(|path| paths || path.contains(&b'?'))
        });
    !encoded_escape
        && rest.is_some_and(|rest| {
            rest.first().is_some_and(|b| b.is_ascii_alphanumeric())
                && rest.iter().all(|&b| {
                    b.is_ascii_alphanumeric()
                        || matches!(
                            b,
                            b'-' | b'.'
                                | b'_'
                                | b'~'
                                | b':'
                                | b'/'
                                | b'?'
                                | b'#'
                                | b'['
                                | b']'
                                | b'@'
                                | b'!'
                                | b'$'
                                | b'&'
                                | b'('
                                | b')'
                                | b'*'
                                | b'+'
                                | b','
                                | b';'
                                | b'='
                                | b'%'
                        )
                })
        })
}

/// Longest name of a pair of a query string in a value: names are words, not text.
const MAX_PAIR_NAME: usize = 64;

/// Two or more `name=value` pairs joined by `&`, each name a parameter's (letters, digits, `_`, `-`, `.`, and
/// the brackets of `a[b]`, which a browser's form serialisation writes escaped: `user%5Bname%5D`); a part
/// without `=` is a name alone (a flag, `?debug&page=2`; Yahoo's `B` cookie starts with its id,
/// `jqfuifkxzff36&b=3&s=df`), and counts as no pair. A query string may open with its `?`, as a page's script
/// reads it (`location.search`) and analytics and error trackers report it.
fn is_pairs(value: &[u8]) -> bool {
    pairs_in(value).is_some_and(|pairs| pairs >= 2)
}

/// How many `name=value` pairs the query string `value` is, as [`is_pairs`] reads them; `None` when a part is no
/// pair and no name.
fn pairs_in(value: &[u8]) -> Option<usize> {
    let mut pairs = 0;
    for pair in without_question_mark(value).split(|&b| b == b'&') {
        let (end, has_value) = pair
            .iter()
            .position(|&b| b == b'=')
            .map_or((pair.len(), false), |end| (end, true));
        let name = crate::transform::url_decode(&pair[..end]);
        // OData's and SoQL's options start with `$` (`$filter`, `$top`, `$where`).
        let bare = name.strip_prefix(b"$").unwrap_or(&name);
        let is_name = (1..=MAX_PAIR_NAME).contains(&bare.len())
            && bare.iter().all(|&b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'[' | b']')
            });
        if !is_name {
            return None;
        }
        pairs += usize::from(has_value);
    }
    Some(pairs)
}

/// Parentheses a boolean search nests: deeper is no query a person types.
const SEARCH_DEPTH: usize = 8;

/// Whether `value` is a search engine's boolean query as people type it into PubMed, Google Scholar, a library
/// catalogue or a database's advanced search (`(tirzepatide OR lithium) AND (review[pt] OR "clinical trial"[pt])`,
/// `asthm*[tiab] NOT adult[mh]`, `author:"Smith J" AND intitle:graphene`): terms joined by `AND`, `OR` and `NOT`
/// (upper case, as those engines require), one at least, and grouped by parentheses, each term a word of letters
/// (any script) and digits with `-`, `.`, `/` and a final `*` (`Neoplasm Metastasis/therapy`, `adolescen*`), a
/// phrase in double quotes, or either after a field's name and a colon, perhaps followed by a field tag in
/// brackets (`[tiab]`, `[Majr]`). A term holds a letter (`1 OR 1` is no search); an apostrophe stands only in a
/// possessive or after a name's prefix (`Crohn's`, `O'Brien`). It has no comparison, no other quote, no
/// semicolon or comment: nothing an injection leaves its place or joins a statement with.
pub fn is_boolean_search(value: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(value) else {
        return false;
    };
    let (mut depth, mut operators, mut terms) = (0usize, 0usize, 0usize);
    // Whether the last token was a term or a closing parenthesis (an operator or an opening one must follow).
    let mut after_term = false;
    let spaced = text.replace('(', " ( ").replace(')', " ) ");
    let mut tokens = spaced.split_whitespace().peekable();
    while let Some(token) = tokens.next() {
        match token {
            "(" if depth < SEARCH_DEPTH => depth += 1,
            ")" if after_term && depth > 0 => depth -= 1,
            "(" | ")" => return false,
            "AND" | "OR" | "NOT" if after_term || token == "NOT" => {
                operators += 1;
                after_term = false;
                continue;
            }
            "AND" | "OR" => return false,
            // Terms side by side are joined by `AND`, as the engines read them (`clinical trial[pt]`).
            _ => {
                // A phrase runs to its closing quote, over blanks.
                let mut term = token.to_owned();
                if term.matches('"').count() % 2 == 1 {
                    loop {
                        let Some(next) = tokens.next() else {
                            return false;
                        };
                        term.push(' ');
                        term.push_str(next);
                        if next.contains('"') {
                            break;
                        }
                    }
                }
                if !is_search_term(&term) {
                    return false;
                }
                terms += 1;
            }
        }
        after_term = token != "(";
    }
    depth == 0 && after_term && operators >= 1 && terms >= 2
}

/// A term of [`is_boolean_search`]: an optional `field:` prefix, a word or a phrase, an optional `[tag]`.
fn is_search_term(term: &str) -> bool {
    let term = term.split_once(':').map_or(term, |(field, rest)| {
        if !field.is_empty() && field.chars().all(|c| c.is_ascii_alphabetic()) {
            rest
        } else {
            term
        }
    });
    let (body, tag) = match term.strip_suffix(']').and_then(|t| t.rsplit_once('[')) {
        Some((body, tag)) => (body, Some(tag)),
        None => (term, None),
    };
    let tag_ok = tag.is_none_or(|tag| {
        !tag.is_empty()
            && tag
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == ':')
    });
    let body_ok = if let Some(phrase) = body.strip_prefix('"').and_then(|b| b.strip_suffix('"')) {
        !phrase.contains('"')
            && phrase.chars().any(char::is_alphabetic)
            && phrase.chars().all(|c| {
                c.is_alphanumeric() || " -.,/*&".contains(c) || c == '\'' && phrase.contains("'s")
            })
    } else {
        let word = body.strip_suffix('*').unwrap_or(body);
        let chars: Vec<char> = word.chars().collect();
        !chars.is_empty()
            && chars.iter().any(|c| c.is_alphabetic())
            && chars.iter().enumerate().all(|(i, &c)| {
                c.is_alphanumeric()
                    || ("-./".contains(c) && i > 0 && i + 1 < chars.len())
                    || (c == '\''
                        && ((chars.get(i + 1) == Some(&'s') && i + 2 == chars.len())
                            || (i == 1
                                && chars[0].is_uppercase()
                                && chars.get(2).is_some_and(|c| c.is_uppercase()))))
            })
    };
    tag_ok && body_ok
}

/// An absolute `http(s)` URL whose query is pairs (one at least: the URL's own syntax tells it a query string)
/// but carries what a URL's place cannot hold (an XML document in a parameter: Amadeus's booking pages pass
/// `SO_GL=<?xml ...?><SO_GL>...` in their links, and browsers send those pages as the `Referer` of the next; a
/// Jira issue list's `?jql=` with its quoted phrases): judged by its query's values, as a query string.
fn is_url_with_pairs(value: &[u8]) -> bool {
    let Some(question) = value.iter().position(|&b| b == b'?') else {
        return false;
    };
    let query = &value[question + 1..];
    let query = &query[..query.iter().position(|&b| b == b'#').unwrap_or(query.len())];
    is_url(&value[..question]) && pairs_in(query).is_some_and(|pairs| pairs >= 1)
}

/// `query` without the `?` that opens it, when it has one.
fn without_question_mark(query: &[u8]) -> &[u8] {
    query.strip_prefix(b"?").unwrap_or(query)
}

/// The names and values of the pairs of `query` (`a=1&b=2`, `?a=1&b=2`, a URL's `https://x/p?a=1&b=2#top`: `a`
/// and `1`, `b` and `2`); a part without `=` is a value without a name.
pub fn pairs(query: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    let query = match query.iter().position(|&b| b == b'?') {
        Some(question) if is_url_with_pairs(query) => {
            let rest = &query[question + 1..];
            &rest[..rest.iter().position(|&b| b == b'#').unwrap_or(rest.len())]
        }
        _ => without_question_mark(query),
    };
    query.split(|&b| b == b'&').map(|pair| {
        pair.iter()
            .position(|&b| b == b'=')
            .map_or((&b""[..], pair), |end| (&pair[..end], &pair[end + 1..]))
    })
}

/// Words of natural language needed for prose: fewer is a phrase, which code fragments also are.
const PROSE_WORDS: usize = 6;

/// Letters of a script beyond Latin-1 that make a phrase text whatever its length.
const SCRIPT_LETTERS: usize = 2;

/// Whether `value` is an error's message as a JavaScript runtime writes it: an error's name (a word ending in
/// `Error` or `Exception`), maybe after `Uncaught` or `Uncaught (in promise)`, a colon and the message
/// (`SyntaxError: Unexpected token '<', "<!DOCTYPE "... is not valid JSON`), which pages' error trackers report
/// by the thousand and which quotes the code that failed.
pub fn is_error_message(value: &[u8]) -> bool {
    let rest = value
        .strip_prefix(b"Uncaught (in promise) ")
        .or_else(|| value.strip_prefix(b"Uncaught "))
        .unwrap_or(value);
    let Some(colon) = memchr::memmem::find(rest, b": ") else {
        return false;
    };
    let name = &rest[..colon];
    name.first().is_some_and(u8::is_ascii_uppercase)
        && name.iter().all(u8::is_ascii_alphanumeric)
        && (name.ends_with(b"Error") || name.ends_with(b"Exception"))
        && !value.contains(&b'\n')
}

/// Words of a phrase with a word of a grammar: two are a command and its argument (`sleep 5`, `cat flag`) as
/// often as words of a language; three words in a row are mostly a title, a status or a question.
const PHRASE_WORDS: usize = 3;

/// Words of a phrase without one (`Docker-based development environment manager`): a command's arguments of
/// words alone name files, and a command line with more than two of them is not one the shell's reading counts
/// (see `shell::command_line`); `ls foo bar` stays a fragment.
const NAME_PHRASE_WORDS: usize = 4;

/// The small words of the grammar of European languages of Latin script (English, French, German, Spanish,
/// Portuguese, Italian, Dutch), blank-separated: articles, prepositions, pronouns, auxiliaries, conjunctions.
/// A phrase has them; a command's arguments are names, options and paths (`ls foo bar`). Other scripts are
/// text by their letters ([`is_prose`]).
const FUNCTION_WORDS: &[&str] = &[
    // English
    "a about an and are as at be but by can could did do does for from he her his how i if in is it its me my",
    "not of on or our please she so than that the their then there they this to was we were what when where",
    "which why will with would you your",
    // French
    "au aux ce cette dans de des du elle est et il je la le les mon nous pas pour que qui sur un une vous",
    // German
    "auf das dem den der die ein eine für ich ist mit nicht sie und von wir zu",
    // Spanish, Portuguese, Italian
    "con da del di e el em en es gli los las mi não para per por una um uma y é è",
    // Dutch
    "een het ik niet op van voor",
];

/// Tokens a phrase sets apart by blanks that are no word: a French question or exclamation mark, an ampersand
/// (`Terms & Conditions`), and what page titles put between their parts.
const TITLE_SEPARATORS: [&[u8]; 9] = [
    b"?",
    b"!",
    b"&",
    b"|",
    b"-",
    "–".as_bytes(),
    "—".as_bytes(),
    "·".as_bytes(),
    "»".as_bytes(),
];

/// A short phrase of natural language (`zsh is the best!`, `JavaScript: The Good Parts`, `union was a great
/// select`): [`PHRASE_WORDS`] or more words, each of letters (of any script) and digits, perhaps with an
/// apostrophe or a hyphen inside (`don't`, `drop-off`) and sentence punctuation after it (or alone after a blank,
/// a French `?` or `!`, an `&`; a title's separator, `|`, `-`, `–`), one blank apart, two of
/// them words of two letters or more and one of [`FUNCTION_WORDS`]; or [`NAME_PHRASE_WORDS`] such words without
/// one; or two or more words each capitalised (`Northwind Outdoor`, a name); or a name and a number, in two or three such words (`LS 300`, `ls 300 lexus`, `cat 6 cable`: a model,
/// an edition, a size) none of them SQL's (`or 88` stays a fragment), where the shell's reading tells
/// `timeout 5` (a command that takes a number) from the rest. No quote, bracket, operator, slash or second blank: what an injection needs to leave its place or to
/// reach a path is absent, so the parsers judge what is left (a statement written out in words, `union select
/// password from users`, still is one).
fn is_phrase(value: &[u8]) -> bool {
    let (mut tokens, mut words, mut function_words, mut numbers) = (0usize, 0usize, 0usize, 0usize);
    let mut capitalised = 0usize;
    let letter_or_digit = |b: &u8| b.is_ascii_alphanumeric() || *b >= 0x80;
    for token in value.split(|&b| b == b' ') {
        // French sets its question and exclamation marks apart by a blank (`c'est juste ?`), and a page's
        // title its parts by a bar or a dash (`Ridgeline 2P Tent | Northwind Outdoor`, `Returns – Help`).
        if TITLE_SEPARATORS.contains(&token) {
            continue;
        }
        let core = word_core(token, b"", b".,!?:");
        let is_word = core.first().is_some_and(letter_or_digit)
            && core.last().is_some_and(letter_or_digit)
            && core
                .iter()
                .all(|b| letter_or_digit(b) || matches!(b, b'\'' | b'-'));
        if !is_word {
            return false;
        }
        tokens += 1;
        let letters = core
            .iter()
            .filter(|b| b.is_ascii_alphabetic() || **b >= 0x80)
            .count();
        words += usize::from(letters >= 2);
        numbers += usize::from(core.iter().all(u8::is_ascii_digit));
        capitalised += usize::from(
            letters >= 2
                && core[0].is_ascii_uppercase()
                && !core[1..].iter().any(u8::is_ascii_uppercase),
        );
        let lower = String::from_utf8_lossy(core).to_lowercase();
        function_words += usize::from(
            FUNCTION_WORDS
                .iter()
                .any(|line| line.split(' ').any(|word| word == lower)),
        );
    }
    // SQL's words with a number are a fragment of a condition (`or 88`, `42 like 42`), not a name.
    let named_number =
        words >= 1 && numbers >= 1 && tokens >= 2 && !super::sql::spells_a_word(value);
    // Words all capitalised are a name (`Northwind Outdoor`, `Sleep Number`), as no Unix command is.
    let proper_name = tokens >= 2 && capitalised == tokens;
    named_number
        || proper_name
        || (words >= 2
            && ((tokens >= PHRASE_WORDS && function_words >= 1) || tokens >= NAME_PHRASE_WORDS))
}

/// Text of natural language: at least [`PROSE_WORDS`] words (runs of two or more letters, of any script), and
/// letters, blanks and sentence punctuation make nine tenths of the bytes or more, [`SENTENCE_WORDS`] of the
/// words set apart by blanks (or letters of a script of its own, below). Or a phrase in a script of
/// its own (Thai, Chinese, Cyrillic: at least [`SCRIPT_LETTERS`] letters beyond Latin-1, which no language of
/// code is written in) whose every other byte is a letter, a digit, a blank or sentence punctuation: Thai and
/// Chinese put no blanks between words, and a short title or search is as much text as a long post.
fn is_prose(value: &[u8]) -> bool {
    // A URI is no sentence, however many words its parts make (`data:text/plain;base64,...`, `php://filter/...`).
    let scheme = value
        .iter()
        .position(|&b| !b.is_ascii_alphabetic())
        .is_some_and(|end| {
            end > 1
                && value[end] == b':'
                && value.get(end + 1).is_some_and(|b| !b.is_ascii_whitespace())
        });
    if scheme {
        return false;
    }
    let (mut words, mut run, mut texty) = (0usize, 0usize, 0usize);
    let is_letter = |b: &u8| b.is_ascii_alphabetic() || *b >= 0x80;
    for (i, &b) in value.iter().enumerate() {
        let letter = is_letter(&b);
        let before = i.checked_sub(1).and_then(|j| value.get(j));
        // A quote between two letters is a word's own (Hebrew writes its gershayim and geresh so: `ת"א`, `צה"ל`,
        // `ז'בוטינסקי`), and a percent sign after a digit is a percentage (`ב-1.2%`).
        let in_word = matches!(b, b'"' | b'\'')
            && before.is_some_and(is_letter)
            && value.get(i + 1).is_some_and(is_letter);
        let percentage = b == b'%' && before.is_some_and(u8::is_ascii_digit);
        if letter {
            run += 1;
        } else {
            if run >= 2 {
                words += 1;
            }
            run = 0;
        }
        if letter
            || in_word
            || percentage
            || b.is_ascii_digit()
            || matches!(
                b,
                b' ' | b'\n'
                    | b'\r'
                    | b'\t'
                    | b'.'
                    | b','
                    | b'!'
                    | b'?'
                    | b'\''
                    | b'-'
                    | b':'
                    | b'/'
            )
        {
            texty += 1;
        }
    }
    if run >= 2 {
        words += 1;
    }
    let script_letters = || {
        std::str::from_utf8(value).map_or(0, |text| {
            text.chars()
                .filter(|&c| u32::from(c) >= 0x100 && c.is_alphabetic())
                .count()
        })
    };
    let script = script_letters() >= SCRIPT_LETTERS;
    (words >= PROSE_WORDS
        && texty * 10 >= value.len() * 9
        && (script || blank_separated_words(value) >= SENTENCE_WORDS))
        || (texty == value.len() && script)
}

/// Words a blank sets apart that prose has at least, unless written in a script of its own (Chinese and
/// Japanese put no blanks between words): code joins its words with dots, brackets and operators
/// (`document.write(atob('...') + btoa(document.cookie))` has seven runs of letters and none of them).
const SENTENCE_WORDS: usize = 3;

/// `token` without the `opening` bytes before it and the `closing` bytes after it: the word a sentence's quotes,
/// brackets and punctuation surround.
fn word_core<'a>(token: &'a [u8], opening: &[u8], closing: &[u8]) -> &'a [u8] {
    let start = token
        .iter()
        .position(|b| !opening.contains(b))
        .unwrap_or(token.len());
    let end = token
        .iter()
        .rposition(|b| !closing.contains(b))
        .map_or(start, |last| last + 1);
    &token[start..end.max(start)]
}

/// Tokens between blanks that are words: letters (of any script), perhaps with an apostrophe or a hyphen
/// inside, opening quotes or brackets before and sentence punctuation, closing quotes or brackets after.
fn blank_separated_words(value: &[u8]) -> usize {
    value
        .split(u8::is_ascii_whitespace)
        .filter(|token| {
            let core = word_core(token, b"\"'([", b".,!?:;\"')]");
            core.first()
                .is_some_and(|b| b.is_ascii_alphabetic() || *b >= 0x80)
                && core
                    .iter()
                    .all(|&b| b.is_ascii_alphabetic() || b >= 0x80 || matches!(b, b'\'' | b'-'))
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_message_of_a_script_is_text() {
        assert!(is_error_message(
            b"Uncaught SyntaxError: Unexpected token '<'"
        ));
        assert!(is_error_message(
            b"Uncaught (in promise) TypeError: Failed to fetch"
        ));
        assert!(is_error_message(
            b"ChunkLoadError: Loading chunk 42 failed."
        ));
        assert!(!is_error_message(b"error: ' or 1=1--"));
        assert!(!is_error_message(b"Error"));
        assert!(!is_error_message(b"x' Error: y"));
    }

    #[test]
    fn arithmetic_is_math_and_a_condition_is_not() {
        for math in [
            "sqrt(2)/2",
            "3x^2 + 2x - 1",
            "(a+b)*(a-b)",
            "2*pi*r",
            "sin(x)^2 + cos(x)^2",
            "g(x)=sin(x)",
            "z = (x - μ)/σ = (85-70)/10 = 1.5",
            "x = (-b ± sqrt(b^2 - 4*a*c)) / 2a",
        ] {
            assert_eq!(data_shape(math.as_bytes()), Some(Shape::Math), "{math}");
        }
        for condition in [
            "1<2",
            "0||1",
            "2--1",
            "1 or 1",
            "sleep(5)",
            "1/*x*/",
            "x<=5",
            "ascii(1)",
            "COS(",
            "1) + (2",
            "1=1",
            "a=a",
            "x = x",
            "0=0",
            "1=",
            "=1",
            "2ab(1)",
            "1 = 1 = 1",
            "(1+1)=2",
            "%27%20or%201%3D1%20or%20%27",
        ] {
            assert!(!is_math(condition.as_bytes()), "{condition}");
        }
    }

    #[test]
    fn json_documents_one_after_another_are_a_sequence() {
        assert!(is_json_sequence(b"{\"index\":{}}\n{\"a\":1}\n"));
        assert!(is_json_sequence(b"{\"a\":1}{\"b\":[2]} [3]"));
        assert!(!is_json_sequence(b"{\"a\":1}"));
        assert!(!is_json_sequence(b"{\"a\":1}\n1\n"));
        assert!(!is_json_sequence(b"{\"a\":1}\nGET / HTTP/1.1\n"));
        assert!(!is_json_sequence(b"{\"a\":1}{\"b\":"));
    }

    #[test]
    fn a_page_route_with_dynamic_segments_is_a_url() {
        for route in [
            "/project/[ref]/editor/[id]",
            "/blog/[slug]",
            "/docs/[...path]",
            "/shop/[[...filters]]/",
            "/[locale]/checkout",
        ] {
            assert_eq!(data_shape(route.as_bytes()), Some(Shape::Url), "{route}");
        }
        for not_a_route in [
            "/bin/[c]at",
            "/blog/slug",
            "/[a]/;id",
            "/x/[$(id)]",
            "[id]",
            "/a/[b c]",
        ] {
            assert!(!is_route_template(not_a_route.as_bytes()), "{not_a_route}");
        }
    }

    #[test]
    fn a_frameworks_signed_cookie_is_a_secret() {
        // Rails' encrypted cookie (ciphertext, nonce, tag) and a signed one (data, hex digest).
        assert!(is_signed_message(
            b"1/Q+A1NNjghwVrVrqFtHjNlns0wGmChQbueouNNM+FFPj8CTAObkAmbjPV--/Ml7PNO88PNCyM4n--qXhuc3BrulP9dh1Q4gYdkg=="
        ));
        assert!(is_signed_message(
            b"eyJzZXNzaW9uX2lkIjoiYWJjMTIzIn0=--3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f"
        ));
        assert_eq!(
            data_shape(b"BAh7B0kiD3Nlc3Npb25faWQGOgZFVEkiJTk4--0123456789abcdef0123"),
            Some(Shape::Secret)
        );
        // A comment after words, a short head, an operator, padding inside a part, four parts.
        assert!(!is_signed_message(b"1 or 1=1--abcdefABCDEF0123456789"));
        assert!(!is_signed_message(b"Abc123--0123456789abcdef0123"));
        assert!(!is_signed_message(
            b"BAh7B0kiD3Nlc3Npb25faWQGOgZFVEkiJTk4=1--0123456789abcdef0123"
        ));
        assert!(!is_signed_message(
            b"BAh7B0kiD3Nlc3Npb25faWQGOgZFVEkiJTk4--0123456789abcdef0123--x"
        ));
        assert!(!is_signed_message(
            b"BAh7B0kiD3Nlc3Npb25faWQGOgZFVEkiJTk4--0123456789abcdef0123--0123456789abcdef--0123456789abcdef"
        ));
    }

    #[test]
    fn a_record_of_tokens_and_base64_is_a_token() {
        assert_eq!(
            data_shape(b"3;0;1;0;2128844;IIuLxZMdS/wSL/lKTb2AL+e11+4OLoyYAN+vveZ2hbb;745,83,495"),
            Some(Shape::Token)
        );
        // Too few fields, a blank, a short field of base64's characters.
        assert!(is_field_record(
            b"Chromium;124.0.2478.51|Microsoft%20Edge;124.0.2478.51|Not-A.Brand;99.0.0.0"
        ));
        assert!(!is_field_record(b"1;id"));
        assert!(!is_field_record(b"a|b|c|%3Cscript%3E x"));
        assert!(!is_field_record(b"1;2;3;cat /etc/passwd"));
        assert!(!is_field_record(b"1;2;3;/bin/sh"));
        // Chromium's made-up brand, with its punctuation.
        for brand in [
            "Not%2FA)Brand",
            "Not(A%3ABrand",
            "Not_A%20Brand",
            "Not_A Brand",
        ] {
            let list =
                format!("{brand};8.0.0.0|Chromium;126.0.6478.127|Microsoft%20Edge;126.0.2592.87");
            assert!(is_field_record(list.as_bytes()), "{list}");
        }
        assert!(!is_grease_brand(b"Not(A)(Brand"));
        assert!(!is_grease_brand(b"Not/A)Brand;id"));
    }

    #[test]
    fn an_image_in_a_data_uri_is_data_and_a_polyglot_is_not() {
        let gif = b"data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAIBRAA7";
        assert_eq!(data_shape(gif), Some(Shape::File));
        // `GIF89a<?php system($_GET[c]); ?>`
        let polyglot = b"data:image/gif;base64,R0lGODlhPD9waHAgc3lzdGVtKCRfR0VUW2NdKTsgPz4=";
        assert_eq!(data_shape(polyglot), None);
        // Not the image its type names: text in an image's clothes.
        assert_eq!(
            data_shape(b"data:image/png;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="),
            None
        );
        assert_eq!(
            data_shape(b"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="),
            None
        );
    }

    #[test]
    fn a_url_whose_query_holds_a_document_is_judged_by_its_pairs() {
        let amadeus = b"https://wftc3.e-travel.com/plnext/X/Override.action?SITE=X&SO_GL=%3C%3Fxml%20version%3D%221.0%22%3F%3E%3CSO_GL%3E%3C%2FSO_GL%3E";
        assert_eq!(data_shape(amadeus), Some(Shape::Pairs));
    }

    #[test]
    fn a_page_of_the_same_site_is_a_url_and_a_path_alone_is_not() {
        let page = b"/results?search_query=python%20tutorial%20for%20beginners";
        assert_eq!(data_shape(page), Some(Shape::Url));
        assert_eq!(data_shape(b"/bin/cat"), None);
        assert_eq!(data_shape(b"//evil.example/x?a=b"), None);
        assert_eq!(data_shape(b"/x?id=1' or '1'='1"), None);
    }

    #[test]
    fn a_browsers_accept_header_is_a_token() {
        let accept = b"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8";
        assert_eq!(data_shape(accept), Some(Shape::Token));
        assert_eq!(data_shape(b"text/html;x=<svg/onload=alert(1)>"), None);
    }

    #[test]
    fn documents_and_prose_are_data() {
        assert_eq!(
            data_shape(br#"{"a":[1,2,{"b":"c > d"}]}"#),
            Some(Shape::Json)
        );
        assert_eq!(
            data_shape(
                "Ich habe das Paket bekommen, aber die Größe passt nicht. Können Sie helfen?"
                    .as_bytes()
            ),
            Some(Shape::Text)
        );
        assert_eq!(
            data_shape(b"[~bob] please check /var/log/app/migrate.log on the host"),
            Some(Shape::Text)
        );
        assert_eq!(data_shape(b"cat /etc/passwd /etc/shadow"), None);
        assert_eq!(data_shape(b"northwind"), Some(Shape::Token));
        assert_eq!(data_shape(b"sh,fc"), Some(Shape::Token));
        assert_eq!(data_shape(b"sh,"), None);
        for selection in [
            "nextPageToken,newStartPageToken,changes(fileId,removed,time,file(id,name,mimeType))",
            "items(id,snippet/title),pageInfo",
            "id,name,picture{url}",
            "id,author(login),visibility($type,permittedGroups(id,name))",
        ] {
            assert!(is_field_selection(selection.as_bytes()), "{selection}");
        }
        for other in [
            "id,name",
            "file(id",
            "file()",
            "system(id)x",
            "a,(b)",
            "f(a,'b')",
            "x(a) or 1",
        ] {
            assert!(!is_field_selection(other.as_bytes()), "{other}");
        }
        assert!(is_quoted_media_type(
            b"multipart/mixed; boundary=\"=====bcrn674bg7kv=====\""
        ));
        assert!(!is_quoted_media_type(b"multipart/mixed; boundary=abc"));
        assert!(!is_quoted_media_type(b"text/plain; a=\"1' or '1'='1\""));
        assert_eq!(
            data_shape(b"urn:dss:source:sdk:javascript:windows:chrome"),
            Some(Shape::Token)
        );
        assert_eq!(data_shape(b"2001:db8::1"), Some(Shape::Token));
        assert_eq!(data_shape(b"javascript:name"), None);
        assert_eq!(data_shape(b"JavaScript:alert"), None);
        assert_eq!(data_shape(b"id, name"), None);
        assert_eq!(
            data_shape(b"\"{D312D9D2-3ABD-4847-A91F-44061A2C8B60}\""),
            Some(Shape::Token)
        );
        assert_eq!(data_shape(b"{\"a\":1} or {1-2-3-4-5}"), None);
        assert_eq!(
            data_shape(b"'{c51bef71-4595-45d2-94a6-01f14d1e0bd7}'"),
            Some(Shape::Token)
        );
        assert_eq!(data_shape(b"data:text/plain;base64,SSBsb3ZlIFBIUAo="), None);
        // A caption file or a PDF a form attaches; not with PHP in it, nor an HTML page or an SVG.
        assert_eq!(
            data_shape(b"data:application/octet-stream;base64,MQowMDowMDowMSwwMDAgLS0+IDAwOjAwOjA0LDAwMApIZWxsbwo="),
            Some(Shape::File)
        );
        assert_eq!(
            data_shape(b"data:application/pdf;base64,JVBERi0xLjcK"),
            Some(Shape::File)
        );
        assert_eq!(data_shape(b"data:application/pdf;base64,SGVsbG8="), None);
        assert_eq!(
            data_shape(
                b"data:application/octet-stream;base64,PD9waHAgc3lzdGVtKCRfR0VUWzBdKTs/Pg=="
            ),
            None
        );
        assert_eq!(
            data_shape(b"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="),
            None
        );
        assert_eq!(
            data_shape(b"data:image/svg+xml;base64,PHN2Zz48L3N2Zz4="),
            None
        );
        assert_eq!(
            data_shape(b"Note: the parcel arrived today, thanks a lot for the quick help"),
            Some(Shape::Text)
        );
        assert_eq!(
            data_shape("กระเป๋าเป้ ราคา 1556".as_bytes()),
            Some(Shape::Text)
        );
        assert_eq!(data_shape("東京 ホテル 2泊".as_bytes()), Some(Shape::Text));
        assert_eq!(
            data_shape(b"https://northwind-traders.example/orders?id=7&utm_source=mail"),
            Some(Shape::Url)
        );
        assert_eq!(
            data_shape(b"https://x.example/?q=1' or '1'='1"),
            Some(Shape::Pairs)
        );
        for scratch in [
            &b"json.targets.0.blocks.mc9dG,D;RJk|;v{$yV`;.opcode"[..],
            b"json.targets.2.blocks.p`%AUM.Eu5ki(s#)%;IU.parent",
            b"json.targets.2.blocks.-WTVKz7c3rx.,?),~-6J.opcode",
        ] {
            assert!(
                is_generated_key_path(scratch),
                "{}",
                String::from_utf8_lossy(scratch)
            );
        }
        for not_generated in [
            &b"json.targets.0.blocks.abc.opcode"[..],
            b"json.user.name",
            b"targets.0.blocks.mc9dG,D;RJk|;v{$yV`;.opcode",
            b"json.q.1' or '1'='1",
            b"json.a.' union select password from users --.b",
        ] {
            assert!(
                !is_generated_key_path(not_generated),
                "{}",
                String::from_utf8_lossy(not_generated)
            );
        }
        for search in [
            "(tirzepatide OR lithium) AND (review[pt] OR clinical trial[pt])",
            "asthm*[tiab] AND (child* OR adolescen*) AND humans[mh]",
            "Neoplasm Metastasis/therapy[mh] AND adalimumab[nm]",
            "author:\"Smith J\" AND intitle:graphene NOT review",
            "Crohn's disease[mh] OR O'Brien J[au]",
        ] {
            assert_eq!(
                data_shape(search.as_bytes()),
                Some(Shape::Expression),
                "{search}"
            );
        }
        for not_search in [
            "1 OR 1",
            "x' OR '1'='1",
            "x'OR'1 AND y",
            "a AND b = 1",
            "(a OR b",
            "a OR b) AND (c",
            "a AND OR b",
            "sleep(5) AND x",
            "a; DROP TABLE x OR b",
            "admin OR 1",
        ] {
            assert_ne!(
                data_shape(not_search.as_bytes()),
                Some(Shape::Expression),
                "{not_search}"
            );
        }
        assert_eq!(data_shape(b"javascript:alert(1)"), None);
        assert_eq!(data_shape(b"https://x.example/?%3Cform"), None);
        // A post whose words name a path and a URL is prose, and the parsers judge its text.
        assert_eq!(
            data_shape(b"Steps:\n```sh\ncurl -s https://example.com/install.sh | sh\n```\nthen it fails with $HOME unset"),
            Some(Shape::Text)
        );
        assert_eq!(
            data_shape(b"<p>Bonjour, <span style=\"color: red\">merci</span> pour tout</p>"),
            Some(Shape::Markup)
        );
        assert_eq!(
            data_shape(
                b"<!-- wp:paragraph --><p>Hi <strong>there</strong></p><!-- /wp:paragraph -->"
            ),
            Some(Shape::Markup)
        );
        assert_eq!(data_shape(b"<script>alert(1)</script>"), None);
        assert_eq!(
            data_shape(b"I accept the <a href=\"/privacy/\">data protection notice</a>."),
            Some(Shape::Markup)
        );
        assert_eq!(data_shape(b"<a x=\"http://a.b/\">aai</a>"), None);
        assert_eq!(data_shape(b"x' mod id--"), None);
        assert_eq!(data_shape(b"database ("), None);
        assert_eq!(data_shape(b"{not json"), None);
        assert_eq!(
            data_shape(b"pos=top&kw=script font|pos=side"),
            Some(Shape::Pairs)
        );
        assert_eq!(data_shape(b"kw=script font"), None);
        assert_eq!(
            data_shape(b"?q=%E9%AB%98&options%5Bprefix%5D=last"),
            Some(Shape::Pairs)
        );
        // A name alone among pairs (Yahoo's `B` cookie), but not pairs of one name and no value.
        assert_eq!(data_shape(b"jqfuifkxzff36&b=3&s=df"), Some(Shape::Pairs));
        assert_eq!(data_shape(b"id&x=1"), None);
        assert_eq!(data_shape(b"a&b&c"), None);
        assert_eq!(data_shape(b"1;id&b=3&s=df"), None);
        assert_eq!(data_shape(b"zsh is the best!"), Some(Shape::Text));
        assert_eq!(data_shape(b"Northwind Outdoor"), Some(Shape::Text));
        assert_eq!(
            data_shape(b"Ridgeline 2P Ultralight Tent | Northwind Outdoor"),
            Some(Shape::Text)
        );
        assert_eq!(
            data_shape(b"Returns & Exchanges | Northwind Outdoor"),
            Some(Shape::Text)
        );
        assert_eq!(data_shape(b"cat flag"), None);
        assert_eq!(data_shape(b"ls | id"), None);
        assert_eq!(data_shape(b"JavaScript: The Good Parts"), Some(Shape::Text));
        assert_eq!(
            data_shape("est-ce que c'est juste ?".as_bytes()),
            Some(Shape::Text)
        );
        assert_eq!(
            data_shape(br"Soit $X_i \sim \mathcal{B}(n, p)$ ind. J'obtiens $P(X_1+X_2 \geq 3) = 1-p^k$, c'est juste ?"),
            Some(Shape::Text)
        );
        assert_eq!(data_shape(b"; ?"), None);
        assert_eq!(data_shape(b"ls foo bar"), None);
        assert_eq!(
            data_shape(b"=IF(C4=\"\", \"\", D4/C4)"),
            Some(Shape::Formula)
        );
        assert_eq!(data_shape(b"=SUM(Sheet1!A1:A9)*2"), Some(Shape::Formula));
        assert_eq!(
            data_shape(b"=IFERROR(VLOOKUP([@SKU],'Q1 Sales'!A:C,3,FALSE),\"-\")"),
            Some(Shape::Formula)
        );
        assert_eq!(data_shape(b"=IF((1,2)"), None);
        assert_eq!(data_shape(b"x=IF(1,2)"), None);
        // Code joins its words with dots, brackets and operators; prose sets them apart with blanks.
        assert_eq!(
            data_shape(b"document.write(atob('PGltZyBzcmM9aHR0cDovL2xvY2FsaG9zdA') + btoa(document.cookie) + '>')"),
            None
        );
        assert_eq!(
            data_shape("[最新版(v63.1)にしてから、決済画面でアプリが落ちます](../docs/setup.md) 先日注文したスニーカーが届きました。".as_bytes()),
            Some(Shape::Text)
        );
        assert_eq!(
            data_shape(b"Docker-based development environment manager"),
            Some(Shape::Text)
        );
        assert_eq!(data_shape(b"cat the  /etc/passwd"), None);
        // A name and a number: the shell's reading judges it (`timeout 5` is confirmed, `ls 300 lexus` is not);
        // SQL's words with one are a condition's fragment.
        assert_eq!(data_shape(b"timeout 5"), Some(Shape::Text));
        assert_eq!(data_shape(b"ls 300 lexus"), Some(Shape::Text));
        assert_eq!(data_shape(b"sleep 5"), None);
        assert_eq!(data_shape(b"or 88"), None);
        assert_eq!(data_shape(b"sleep 5;"), None);
        assert_eq!(data_shape(b"john+orders@example.com"), Some(Shape::Token));
        assert_eq!(data_shape(b"x'@example.com"), None);
        assert_eq!(data_shape(b"a=1&;sleep 5"), None);
    }
}
