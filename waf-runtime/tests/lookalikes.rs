//! Payloads written with look-alike characters (typographic quotes, the modifier apostrophe U+02BC, IIS `%u`
//! escapes) through the real `waf` binary with the shipped rules and CRS 942 at paranoia 1: caught in the query,
//! form, multipart and JSON bodies, cookies and headers, as ModSecurity with its Unicode map catches them;
//! French, English and Italian prose with typographic apostrophes and quotes still passes. With
//! `unicode_code_page: none` (ModSecurity without a map) the same payloads pass: the map is what catches them.
mod support;

use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use std::path::PathBuf;
use support::*;

/// The proxy with the repository's shipped rules and CRS 942 at paranoia 1, and `rules_extra` in its `rules:`.
async fn start(rules_extra: &str) -> (Upstream, Waf) {
    let up = Upstream::start().await;
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let dirs = [repo.join("rules"), repo.join("crs-942")];
    let config = format!(
        "  mode: enforce\n  upstream: {{default: '{}'}}\n  rules: {{directories: ['{}', '{}'], paranoia_level: 1{rules_extra}}}\n",
        up.url(),
        dirs[0].display(),
        dirs[1].display()
    );
    let waf = Waf::start_in(tempfile::tempdir().unwrap(), &config);
    (up, waf)
}

/// Percent-encodes every byte outside unreserved ASCII (the `%` of a `%u` escape stays, so `%u2019` goes as is).
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'.'
            | b'_'
            | b'~'
            | b'%'
            | b'='
            | b'&' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// How a value reaches the proxy.
#[derive(Debug, Clone, Copy)]
enum Place {
    Query,
    Form,
    Multipart,
    Json,
    /// JSON with the non-ASCII characters written as `\uXXXX` escapes.
    JsonEscaped,
    Cookie,
    UserAgent,
}

const PLACES: [Place; 7] = [
    Place::Query,
    Place::Form,
    Place::Multipart,
    Place::Json,
    Place::JsonEscaped,
    Place::Cookie,
    Place::UserAgent,
];

/// The request carrying `value` as the value of `name` at `place`.
fn request(place: Place, name: &str, value: &str) -> Request<Full<Bytes>> {
    let boundary = "XyZ0boundary";
    let (method, uri, header, body) = match place {
        Place::Query => (
            "GET",
            format!("/search?{name}={}", encode(value)),
            None,
            String::new(),
        ),
        Place::Form => (
            "POST",
            "/login".into(),
            Some((
                "content-type",
                "application/x-www-form-urlencoded".to_owned(),
            )),
            format!("{name}={}&pass=x", encode(value)),
        ),
        Place::Multipart => (
            "POST",
            "/upload".into(),
            Some((
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )),
            format!(
                "--{boundary}\r\ncontent-disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n--{boundary}--\r\n"
            ),
        ),
        Place::Json => (
            "POST",
            "/api".into(),
            Some(("content-type", "application/json".to_owned())),
            serde_json::json!({ name: value }).to_string(),
        ),
        Place::JsonEscaped => (
            "POST",
            "/api".into(),
            Some(("content-type", "application/json".to_owned())),
            format!(
                "{{\"{name}\": \"{}\"}}",
                value
                    .chars()
                    .map(|c| match c {
                        ' '..='~' if c != '"' && c != '\\' => c.to_string(),
                        c => format!("\\u{:04x}", u32::from(c)),
                    })
                    .collect::<String>()
            ),
        ),
        Place::Cookie => (
            "GET",
            "/".into(),
            Some(("cookie", format!("{name}={value}"))),
            String::new(),
        ),
        Place::UserAgent => (
            "GET",
            "/".into(),
            Some(("user-agent", value.to_owned())),
            String::new(),
        ),
    };
    let mut builder = Request::builder()
        .method(method)
        .uri(uri)
        .header("host", "app.test");
    if let Some((header, text)) = header {
        // Raw UTF-8 in a header value: obs-text, which HTTP allows and clients send.
        builder = builder.header(
            header,
            http::HeaderValue::from_bytes(text.as_bytes()).unwrap(),
        );
    }
    builder.body(Full::new(Bytes::from(body))).unwrap()
}

/// The payloads, with look-alike quotes (U+2019, U+2018, U+02BC, U+FF07).
const ATTACKS: &[(&str, &str)] = &[
    ("user", "admin’--"),
    ("user", "x’ OR ’a’=’a"),
    ("id", "xʼ OR ʼaʼ=ʼa"),
    ("id", "’ OR ’1’=’x’--##"),
    ("id", "x‘ OR ‘1‘=‘1"),
    ("id", "1＇ OR ＇1＇=＇1"),
    ("id", "1ʹ OR ʹ1ʹ=ʹ1"),
    ("id", "1′ OR ′1′=′1"),
    ("user", "adminˈ--"),
    ("id", "x” OR “a”=”a"),
];

/// Prose with typographic apostrophes and quotes.
const PROSE: &[&str] = &[
    "L’école d’été ouvre à l’aube ; c’est « génial » et l’on s’y plaît.",
    "It’s the “best” day – don’t you think? We’re ‘almost’ there.",
    "Un’altra volta, l’anno prossimo: è l’ora dell’aperitivo, “davvero”.",
    "Qu’en dit-on ? “Rien” – l’équipe n’a pas répondu.",
];

async fn status(waf: &Waf, req: Request<Full<Bytes>>) -> u16 {
    send(waf.addr, req).await.0.status.as_u16()
}

#[tokio::test(flavor = "multi_thread")]
async fn lookalike_payloads_are_blocked_everywhere_and_prose_passes() {
    let (_up, waf) = start("").await;
    let mut missed = Vec::new();
    for place in PLACES {
        for (name, attack) in ATTACKS {
            if status(&waf, request(place, name, attack)).await != 403 {
                missed.push(format!("{place:?} {name}={attack}"));
            }
        }
        for prose in PROSE {
            let got = status(&waf, request(place, "comment", prose)).await;
            assert_eq!(got, 200, "{place:?}: benign prose blocked: {prose}");
        }
    }
    // The IIS escape form, which only the query and form bodies carry as such.
    for value in ["x%u2019%20OR%20%u2019a%u2019=%u2019a", "admin%u2019--"] {
        let uri = format!("/search?id={value}");
        let req = Request::get(uri)
            .header("host", "app.test")
            .body(Full::new(Bytes::new()))
            .unwrap();
        if status(&waf, req).await != 403 {
            missed.push(format!("query id={value}"));
        }
    }
    assert!(missed.is_empty(), "look-alike payloads passed: {missed:#?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_map_the_lookalikes_pass_as_in_modsecurity_without_one() {
    let (_up, waf) = start(", unicode_code_page: none").await;
    for (name, attack) in [("user", "admin’--"), ("id", "x’ OR ’a’=’a")] {
        assert_eq!(
            status(&waf, request(Place::Form, name, attack)).await,
            200,
            "{attack}"
        );
        // Its ASCII form is still caught: the rules run.
        let ascii = attack.replace('’', "'");
        assert_eq!(
            status(&waf, request(Place::Form, name, &ascii)).await,
            403,
            "{ascii}"
        );
    }
}
