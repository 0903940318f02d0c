//! HTTP messages inside a value: request smuggling and response splitting. An application that copies a value
//! into a request or a response it writes is made to write two only if the value breaks a line and starts a
//! message there: a request line (`GET /admin HTTP/1.1`), a status line (`HTTP/1.1 200 OK`), header lines, or
//! the HTML of a forged answer. A log line that quotes a request (`"GET /cart HTTP/2" 200`), an NDJSON
//! shipment of such lines, a report naming its protocol (`http/1.1`) hold the same words in the middle of a
//! line, where no parser of HTTP would begin a message.
//!
//! A line break is itself the injection in a value that has no lines by nature (a name, a header, a cookie, a
//! word or a line of text): there a CR or LF confirms. Only a JSON document and a document of several lines
//! have line breaks as data, and need a message where a line starts. A plain word (`1`) cannot hold a message:
//! a rule that hits one judges something else (CRS 921250, a cookie *named* `$Version`), and scores as written.

use super::Confirmation;
use super::shape::{self, Shape};
use regex_automata::meta::Regex;
use std::borrow::Cow;
use std::sync::OnceLock;

/// A message's first line at the start of the value or of one of its lines, or the start of a page after a blank
/// line or in a header line (an HTML answer forged after or into forged headers). A page alone splits nothing: an
/// HTML e-mail in an API's JSON, an editor's whole document, is HTML, which the XSS rules judge. A mail server's command starts a message too, where a value goes
/// into a mail session (CAPEC 134): an IMAP command after its tag (`A003 APPEND`, upper case, as clients write
/// it: a line of prose starts `We select`), an SMTP envelope (`MAIL FROM:`, `RCPT TO:`).
const MESSAGE_LINE: &str = r"(?i)(?:\A|[\r\n])[\t ]*(?:(?:get|post|put|patch|delete|head|options|connect|trace|track|propfind|proppatch|mkcol|copy|move|lock|unlock)[\t ]+\S+[\t ]+http/\d|http/\d(?:\.\d)?[\t ]+\d{3}\b|(?-i:[A-Za-z0-9]{1,10} (?:APPEND|AUTHENTICATE|COPY|EXAMINE|FETCH|LOGIN|SELECT|STORE|UID) )|(?:mail[\t ]+from|rcpt[\t ]+to)[\t ]*:)|(?:(?:\r?\n){2}[\t ]*|[\r\n][\t ]*[\w-]+[\t ]*:[^\r\n]*)<(?:html|meta)\b";

/// A header line after a line break: a message by itself where a value has no lines (`en\r\nSet-Cookie: x`), and
/// ordinary text where it has (`Ref: J123`, `Note: ...` in a ticket).
const HEADER_LINE: &str = r"[\r\n][\t ]*[\w-]+[\t ]*:[\t ]*\S";

/// Where a message can start: in a value of one line, at any header line too; in data of several lines, at a
/// request or status line or a page only.
fn message_start(lines_are_data: bool) -> &'static Regex {
    static LINE_RE: OnceLock<Regex> = OnceLock::new();
    static ANY_RE: OnceLock<Regex> = OnceLock::new();
    // The patterns are constants this crate's tests compile: they cannot fail at run time.
    if lines_are_data {
        LINE_RE.get_or_init(|| Regex::new(MESSAGE_LINE).expect("the HTTP message pattern compiles"))
    } else {
        ANY_RE.get_or_init(|| {
            Regex::new(&format!("{MESSAGE_LINE}|(?i){HEADER_LINE}"))
                .expect("the HTTP message pattern compiles")
        })
    }
}

/// Whether a hit of smuggling or splitting in `raw` (whose decoded `forms` are given too; `hit` what the pattern
/// matched) can inject a message.
pub fn judge(raw: &[u8], forms: &[Cow<'_, [u8]>], hit: &[u8]) -> Confirmation {
    let shape = shape::data_shape(raw);
    let lines_are_data = match shape {
        Some(Shape::Json | Shape::Document) => true,
        Some(Shape::Text | Shape::Markup) => shape::lines(raw) > 1,
        Some(
            Shape::Token
            | Shape::Formula
            | Shape::Math
            | Shape::Url
            | Shape::Pairs
            | Shape::Expression
            | Shape::Sample
            | Shape::File
            | Shape::Secret,
        )
        | None => lines_of_data(raw) || shape::is_json_sequence(raw),
    };
    let (confirmed, reason) = if let Some(found) = forms
        .iter()
        .find_map(|form| injection(form, lines_are_data))
    {
        (true, found)
    } else if lines_are_data && hit.iter().any(|&b| b == b'\r' || b == b'\n') {
        // A header line of its own in data of several lines (`LOCATION:Room 4` of an iCalendar event, a MIME
        // part's `Content-Type:` in a mail a phone sends) is a line of that data.
        (
            false,
            format!(
                "{}, and no HTTP message where a line starts",
                shape.map_or("data", Shape::describe)
            ),
        )
    } else if !forms.iter().any(|form| names_a_message(form)) {
        // The CAPEC tags cover rules about other things too (Apache's `unix:` socket syntax, old cookies).
        (
            true,
            "no HTTP version or page named: scored as the pattern says".to_owned(),
        )
    } else {
        match shape {
            Some(Shape::Token) => (true, "a plain word: scored as the pattern says".to_owned()),
            Some(shape @ (Shape::Json | Shape::Document)) => (
                false,
                format!(
                    "{}, and no HTTP message where a line starts",
                    shape.describe()
                ),
            ),
            // Text that goes on for lines (a chat message quoting a log line) has them as data too, as have
            // lines of words of no other shape (a pasted log excerpt).
            Some(Shape::Text | Shape::Markup) | None if lines_are_data => (
                false,
                "lines of text or data, and no HTTP message where a line starts".to_owned(),
            ),
            // A final line break is what the rule found when its hit holds it (a name or a header ending in
            // CR LF ends the header it is copied into); a hit elsewhere in the line (a request line a log line
            // quotes) is followed by no line a message could start.
            _ if forms.iter().any(|form| {
                breaks_a_line(form) || (ends_a_line(form) && hit.iter().any(|&b| b == b'\r' || b == b'\n'))
            }) =>
            {
                (true, "a line break in a value of one line".to_owned())
            }
            _ if forms.iter().any(|form| ends_a_line(form)) => (
                false,
                "one line and its line break at the end, after which no line starts, and no HTTP message where \
                 the value starts"
                    .to_owned(),
            ),
            _ => (
                false,
                "no line break, and no HTTP message where the value starts".to_owned(),
            ),
        }
    };
    Confirmation { confirmed, reason }
}

/// `text` without the line break (LF, CR LF or CR) that ends it, if one does.
fn without_final_line_break(text: &[u8]) -> &[u8] {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    text.strip_suffix(b"\r").unwrap_or(text)
}

/// Whether `form` ends with a line break: a line as a container runtime logs it (`"log":"...\n"`) or a
/// terminal's input.
fn ends_a_line(form: &[u8]) -> bool {
    without_final_line_break(form).len() < form.len()
}

/// Whether `form` breaks a line before its end: a CR or an LF with something after it (a final line break,
/// [`ends_a_line`], starts no line, so no message can start there).
fn breaks_a_line(form: &[u8]) -> bool {
    without_final_line_break(form)
        .iter()
        .any(|&b| b == b'\r' || b == b'\n')
}

/// Whether `raw`, of no shape of its own, is lines of data all the same: two lines or more, none empty (an empty
/// line ends a message's head, and what follows is its body), each of several words, as a log excerpt or a
/// pasted table is (`205.135.216.131 - - [25/Nov/2024:01:12:06 +0000] "GET /products/152 HTTP/1.1" 200 ...`).
fn lines_of_data(raw: &[u8]) -> bool {
    let text = without_final_line_break(raw);
    // An empty line has no words: it fails the test of each line's words.
    shape::lines(text) >= 2
        && text.split(|&b| b == b'\n').all(|line| {
            line.split(|b| b.is_ascii_whitespace())
                .filter(|word| !word.is_empty())
                .count()
                >= LINE_WORDS
        })
}

/// Blank-separated words each line of [`lines_of_data`] has at least.
const LINE_WORDS: usize = 3;

/// Why `value`, sent with `headers`, is a batch of requests by its format rather than messages smuggled into a
/// value: the request's `Content-Type` is `multipart/mixed` and the value has `application/http` parts (OData's
/// `$batch`, the batch endpoints of Google's APIs and Azure Storage). Each part is a request the application
/// parses and runs itself, as JSON batching does with its members; no server or proxy reads it as a message of
/// the connection, which the proxy frames itself.
pub fn batch(target: &str, headers: &[(&str, &[u8])], value: &[u8]) -> Option<String> {
    let is_mixed = |content_type: &[u8]| {
        content_type
            .trim_ascii_start()
            .get(..15)
            .is_some_and(|media| media.eq_ignore_ascii_case(b"multipart/mixed"))
    };
    let labelled = headers.iter().any(|(name, content_type)| {
        name.eq_ignore_ascii_case("content-type") && is_mixed(content_type)
    });
    // Google's web clients post a batch as a simple request, without a preflight: the body labelled as text,
    // its content type in the `$ct` parameter, which Google's front end takes as the body's.
    let overridden = target
        .split_once('?')
        .map_or("", |(_, query)| query)
        .split('&')
        .filter_map(|pair| {
            pair.strip_prefix("$ct=")
                .or_else(|| pair.strip_prefix("%24ct="))
        })
        .any(|value| is_mixed(&crate::transform::url_decode(value.as_bytes())));
    let mixed = labelled || overridden;
    let http_parts = value
        .windows(16)
        .any(|w| w.eq_ignore_ascii_case(b"application/http"));
    (mixed && http_parts).then(|| {
        "a batch request (multipart/mixed of application/http parts): its requests are the application's to run"
            .to_owned()
    })
}

/// HTTP's methods, which a batch's parts start their request lines with.
const METHODS: [&[u8]; 7] = [
    b"GET", b"HEAD", b"POST", b"PUT", b"PATCH", b"DELETE", b"OPTIONS",
];

/// Why the word the pattern's `hit` found in `value` (the shell's `patch`, read whatever its case) is the method of
/// a batch's request line: `value` is a batch ([`batch`]) and the word, an HTTP method in capitals, starts a line
/// with a path after it (`PATCH /drive/v3/files/1 HTTP/1.1`).
pub fn batch_request_line(
    target: &str,
    headers: &[(&str, &[u8])],
    value: &[u8],
    hit: std::ops::Range<usize>,
) -> Option<String> {
    let matched = value.get(hit.clone())?;
    let start = hit.start + matched.iter().position(u8::is_ascii_alphabetic)?;
    let word = &value[start..];
    let word = &word[..word
        .iter()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(word.len())];
    let line_start = start == 0 || value[start - 1] == b'\n';
    let path_follows = value[start + word.len()..].starts_with(b" /");
    (line_start && path_follows && METHODS.contains(&word))
        .then(|| batch(target, headers, value))
        .flatten()
        .map(|_| {
            format!(
                "`{}` is the method of a request line in a batch (multipart/mixed of application/http parts)",
                String::from_utf8_lossy(word)
            )
        })
}

/// Whether `value` names an HTTP version or starts a page anywhere: what a message needs.
fn names_a_message(value: &[u8]) -> bool {
    value.windows(5).any(|w| {
        w.eq_ignore_ascii_case(b"http/")
            || w.eq_ignore_ascii_case(b"<html")
            || w.eq_ignore_ascii_case(b"<meta")
    })
}

/// The start of an HTTP message in `value`, when there is one.
fn injection(value: &[u8], lines_are_data: bool) -> Option<String> {
    message_start(lines_are_data).find(value).map(|m| {
        format!(
            "a message starts a line: `{}`",
            String::from_utf8_lossy(value[m.range()].trim_ascii())
                .chars()
                .take(60)
                .collect::<String>()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn confirmed(value: &str) -> bool {
        judge(value.as_bytes(), &[Cow::Borrowed(value.as_bytes())], b"").confirmed
    }

    #[test]
    fn a_method_starting_a_batch_line_is_the_batch_s() {
        let headers = [("Content-Type", b"multipart/mixed; boundary=b".as_slice())];
        let body =
            b"--b\r\nContent-Type: application/http\r\n\r\nPATCH /drive/v3/files/1 HTTP/1.1\r\n";
        let at = memchr::memmem::find(body, b"PATCH").unwrap();
        assert!(batch_request_line("/batch", &headers, body, at - 4..at + 6).is_some());
        assert!(batch_request_line("/batch", &[], body, at - 4..at + 6).is_none());
        let command = b"--b\r\nContent-Type: application/http\r\n\r\npatch -p1 < x.diff\r\n";
        assert!(batch_request_line("/batch", &headers, command, at - 4..at + 6).is_none());
    }

    #[test]
    fn line_breaks_are_data_only_in_documents() {
        // A header or a name with a line break is an injection; a plain word hit by a rule on a name scores.
        assert!(confirmed("en\r\nX-Forwarded-For: 127.0.0.1"));
        assert!(
            judge(
                b"cd /;cd etc\r\n",
                &[Cow::Borrowed(b"cd /;cd etc\r\n")],
                b"\r\n"
            )
            .confirmed
        );
        // A log line as a container runtime writes it, ending with its line break, quoting a request.
        let log = b"10.0.3.4 - - [19/Feb/2024:07:06:41 +0000] \"GET /v1/shipments/8 HTTP/1.1\" 200 512 \"-\"\n";
        assert!(!judge(log, &[Cow::Borrowed(log)], b"get /v1/shipments/8 http/1").confirmed);
        assert!(judge(log, &[Cow::Borrowed(log)], b"\n").confirmed);
        assert!(confirmed("1"));
        assert!(confirmed("unix:AAAA|http://example.com/"));
        // A protocol named in a report, a log shipment of several lines.
        assert!(!confirmed("http/1.1"));
        // A ticket quoting a log line, with a `Ref:` line of its own.
        assert!(!confirmed(
            "Hello,\nthe config breaks:\n\nrequest: \"GET /api/v1/orders HTTP/1.1\", upstream: x\n\nRef: J123 | env: prod"
        ));
        // An access log excerpt pasted in a ticket: lines of words, none starting a message.
        assert!(!confirmed(
            "205.135.216.131 - - [25/Nov/2024:01:12:06 +0000] \"GET /products/152 HTTP/1.1\" 200 21217\n\
             205.135.216.131 - - [25/Nov/2024:23:03:07 +0000] \"GET /tenants/376 HTTP/1.1\" 502 40593"
        ));
        // A bulk request of JSON lines, a log line of one of its documents quoting a request.
        assert!(!confirmed(
            "{\"index\":{\"_index\":\"logs\"}}\n{\"log\":\"10.0.0.7 - - \\\"POST /v1/orders/8 HTTP/1.1\\\" 201\\n\"}\n"
        ));
        assert!(confirmed("{\"a\":1}\nPOST /admin HTTP/1.1\nHost: x\n"));
        // Splunk's events one after another, a log line's escaped line break decoded.
        assert!(!confirmed(
            "{\"event\":{\"log\":\"\\\"GET /v1/x HTTP/1.1\\\" 204\\nnext\"}}{\"event\":{\"log\":\"done\"}}"
        ));
        // Lines with an empty one between end a head: what follows is a body.
        assert!(confirmed("a b c\r\n\r\nHTTP/1.1 sent a b c"));
        assert!(!confirmed(
            "{\"message\":\"10.0.0.7 - - \\\"GET /cart HTTP/2\\\" 200 512 checkout page\"}\n\
             {\"message\":\"job finished in 1678 ms for tenant acme\"}\n\
             {\"message\":\"10.0.0.9 - - \\\"POST /api/orders HTTP/2\\\" 201 88 order placed\"}"
        ));
    }

    #[test]
    fn header_lines_of_a_document_are_its_own() {
        let event = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nSUMMARY:Team sync about the release\r\n\
                     LOCATION:Room 4\r\nDTSTART:20261201T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let judged = |value: &str, hit: &[u8]| {
            judge(value.as_bytes(), &[Cow::Borrowed(value.as_bytes())], hit).confirmed
        };
        assert!(!judged(event, b"\r\nLOCATION:R"));
        assert!(judged(
            "en\r\nLocation: https://evil.example/",
            b"\r\nLocation: h"
        ));
    }

    #[test]
    fn a_message_must_start_a_line() {
        for attack in [
            "GET http://www.foo.bar HTTP/1.2",
            "x\r\n\r\nPOST /admin HTTP/1.1\r\nHost: internal",
            "en\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html",
            "munchmuch\r\n\r\n<HTML><title></title></HTML>",
            "foo\nSet-Cookie: session=attacker",
            "\r\nA003 APPEND saved-messages (\\Seen) {310}\r\n Content-Type: TEXT/PLAIN",
            "hi\r\nRCPT TO:<victim@example.com>\r\nDATA",
            "foobar\r\nContent-Length: 0<html>ftw</html>",
        ] {
            assert!(injection(attack.as_bytes(), false).is_some(), "{attack:?}");
        }
        for data in [
            "{\"message\":\"10.0.0.7 - - [22/Dec/2024] \\\"GET /cart HTTP/2\\\" 200 512\"}\n{\"level\":\"info\"}",
            "the client speaks http/1.1 and the server answers with http/2 when it can",
            "{\"type\":\"network-error\",\"body\":{\"protocol\":\"http/1.1\",\"status_code\":0}}",
            // An HTML e-mail an API sends is a page, with no forged headers before it.
            "<html><body style=\"font-family: Arial\"><h2>Receipt</h2><p>Thanks!</p></body></html>",
        ] {
            assert_eq!(injection(data.as_bytes(), false), None, "{data:?}");
        }
        // A batch request's parts are requests by the format the request declares.
        let odata = "--batch_1\r\nContent-Type: application/http\r\n\r\nPOST https://x.example/t HTTP/1.1\r\n";
        let mixed = [("Content-Type", &b"multipart/mixed; boundary=batch_1"[..])];
        assert!(batch("/$batch", &mixed, odata.as_bytes()).is_some());
        assert!(batch("/$batch", &[], odata.as_bytes()).is_none());
        assert!(batch("/$batch", &mixed, b"x\r\n\r\nPOST /admin HTTP/1.1").is_none());
        // Google's clients name the type in `$ct`, the body labelled as text.
        let text = [("Content-Type", b"text/plain;charset=UTF-8".as_slice())];
        let google = "/batch/drive/v2internal?$ct=multipart%2Fmixed%3B%20boundary%3D%22x%22&key=k";
        assert!(batch(google, &text, odata.as_bytes()).is_some());
        assert!(batch("/batch?$ct=text%2Fplain", &text, odata.as_bytes()).is_none());
        // In text of several lines, a line of prose is no IMAP command.
        let mail = b"Hello,\r\nWe select the shipping option\r\nContent-Type: text/plain";
        assert_eq!(injection(mail, true), None);
    }
}
