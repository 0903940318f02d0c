//! go-ftw regression tests, run in process against the engine (`rulec test`).
//!
//! The CRS ships its tests in go-ftw's YAML format. To give the same verdicts as go-ftw against a real server,
//! each stage's request is built the way go-ftw builds it on the wire, then parsed back like a server would:
//! - `encoded_request` is a base64 raw request, sent as is;
//! - otherwise the request line is `method uri version` (defaults `GET`, `/`, `HTTP/1.1`) and the headers are
//!   written sorted by name; with `data` and `autocomplete_headers` (default true), a missing `Content-Type`
//!   becomes `application/x-www-form-urlencoded`, and then, if the data does not look already escaped (URL-
//!   unescaping it changes nothing), each key and value is URL-encoded (`var=1234 OR 1=1` is sent as
//!   `var=1234+OR+1%3D1`); a `multipart/form-data;` body gets its LF line ends turned into CRLF; `Connection:
//!   close` and `Content-Length` are added when absent (the latter when there is data or the method is
//!   POST/PUT/PATCH/DELETE-like, with go-ftw's own loose method check).
//!
//! The backend answers as go-ftw's reflecting backend, albedo, does ([`albedo_answer`]): a request to `/reflect`
//! gets the status, headers and body its JSON asks for (the response tests, `RESPONSE-9xx`), any other an empty
//! `200`. Each stage is evaluated as a transaction: the request's rules (settled at CRS's inbound threshold),
//! then the response's on that answer (at the outbound threshold; always, as the CRS test setup inspects every
//! answer whatever the request scored), then the logging phase (980170).
//!
//! A test passes when every stage's `expect_ids` matched and none of its `no_expect_ids` did.

use crate::evaluate::verdict::{
    DEFAULT_ANOMALY_THRESHOLD, DEFAULT_OUTBOUND_ANOMALY_THRESHOLD, RuleMatch,
};
use crate::request::{OwnedRequest, OwnedResponse, ParseError};
use crate::ruleset::CompiledRuleSet;
use base64::Engine;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Deserialize)]
pub struct TestFile {
    #[serde(default)]
    pub rule_id: Option<u32>,
    pub tests: Vec<Test>,
}

#[derive(Debug, Deserialize)]
pub struct Test {
    pub test_id: u32,
    #[serde(default)]
    pub desc: Option<String>,
    pub stages: Vec<Stage>,
}

#[derive(Debug, Deserialize)]
pub struct Stage {
    pub input: Input,
    #[serde(default)]
    pub output: Output,
}

/// A YAML scalar where go-ftw takes a string (a header value may be written as a number).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Scalar::Text(s) => s.clone(),
            Scalar::Int(n) => n.to_string(),
            Scalar::Float(n) => n.to_string(),
            Scalar::Bool(b) => b.to_string(),
        }
    }
}

#[derive(Debug, Default, Deserialize)]
pub struct Input {
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub uri: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, Scalar>,
    #[serde(default)]
    pub data: Option<String>,
    #[serde(default)]
    pub encoded_request: Option<String>,
    #[serde(default)]
    pub autocomplete_headers: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Output {
    #[serde(default)]
    pub log: Log,
}

#[derive(Debug, Default, Deserialize)]
pub struct Log {
    #[serde(default)]
    pub expect_ids: Vec<u32>,
    #[serde(default)]
    pub no_expect_ids: Vec<u32>,
    /// A regex the server's log must match (go-ftw's `log_contains` of old): not checked in process, but it
    /// marks a test that expects a detection (`rulec ftw-requests` reports it).
    #[serde(default)]
    pub match_regex: Option<String>,
    /// A regex the server's log must not match: the counterpart of `match_regex`.
    #[serde(default)]
    pub no_match_regex: Option<String>,
}

/// Why a go-ftw test file cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{}: cannot read: {source}", .path.display())]
    Unreadable {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a go-ftw test file: {source}", .path.display())]
    NotATestFile {
        path: std::path::PathBuf,
        /// Boxed: the parser's error is large, and a `Result` carries its largest variant.
        source: Box<serde_saphyr::Error>,
    },
}

/// Reads a go-ftw test file.
pub fn read_file(path: &Path) -> Result<TestFile, ReadError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReadError::Unreadable {
        path: path.to_owned(),
        source,
    })?;
    serde_saphyr::from_str(&text).map_err(|source| ReadError::NotATestFile {
        path: path.to_owned(),
        source: Box::new(source),
    })
}

/// A test's `encoded_request` that is not base64.
#[derive(Debug, thiserror::Error)]
#[error("encoded_request is not base64: {0}")]
pub struct EncodedRequestError(#[from] base64::DecodeError);

/// The raw request go-ftw would send for `input`.
pub fn raw_request(input: &Input) -> Result<Vec<u8>, EncodedRequestError> {
    if let Some(encoded) = &input.encoded_request {
        let compact: String = encoded.split_whitespace().collect();
        return Ok(base64::engine::general_purpose::STANDARD.decode(compact)?);
    }
    let method = input.method.as_deref().unwrap_or("GET");
    let mut headers: BTreeMap<String, String> = input
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.text()))
        .collect();
    let mut data = input.data.clone().unwrap_or_default().into_bytes();
    let autocomplete = input.autocomplete_headers.unwrap_or(true);
    const CONTENT_TYPE: &str = "Content-Type";
    if !data.is_empty() && autocomplete {
        headers
            .entry(CONTENT_TYPE.to_owned())
            .or_insert_with(|| "application/x-www-form-urlencoded".to_owned());
        if headers.get(CONTENT_TYPE).map(String::as_str)
            == Some("application/x-www-form-urlencoded")
        {
            data = encode_data(&data);
        }
    }
    if headers
        .get(CONTENT_TYPE)
        .is_some_and(|ct| ct.starts_with("multipart/form-data;"))
    {
        // go-ftw replaces every LF, so an existing CRLF becomes CR CR LF; we send what it sends.
        let mut crlf = Vec::with_capacity(data.len() + 16);
        for &b in &data {
            if b == b'\n' {
                crlf.push(b'\r');
            }
            crlf.push(b);
        }
        data = crlf;
    }
    if autocomplete {
        headers
            .entry("Connection".to_owned())
            .or_insert_with(|| "close".to_owned());
        // go-ftw's check is the regex `^POST|PUT|PATCH|DELETE$`, alternation and all.
        let body_method = method.starts_with("POST")
            || method.contains("PUT")
            || method.contains("PATCH")
            || method.ends_with("DELETE");
        if !data.is_empty() || body_method {
            headers
                .entry("Content-Length".to_owned())
                .or_insert_with(|| data.len().to_string());
        }
    }
    let mut raw = format!(
        "{} {} {}\r\n",
        method,
        input.uri.as_deref().unwrap_or("/"),
        input.version.as_deref().unwrap_or("HTTP/1.1")
    )
    .into_bytes();
    for (name, value) in &headers {
        raw.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    raw.extend_from_slice(b"\r\n");
    raw.extend_from_slice(&data);
    Ok(raw)
}

/// go-ftw's `encodeDataParameters` for urlencoded data: already-escaped data (unescaping changes it, or fails)
/// is sent as is; otherwise each `&`-separated key and value is query-escaped.
fn encode_data(data: &[u8]) -> Vec<u8> {
    if go_query_unescape(data).as_deref() != Some(data) {
        return data.to_vec();
    }
    let mut out = Vec::with_capacity(data.len() * 3 / 2);
    for (i, token) in data.split(|b| *b == b'&').enumerate() {
        if i > 0 {
            out.push(b'&');
        }
        match memchr::memchr(b'=', token) {
            Some(eq) => {
                go_query_escape(&token[..eq], &mut out);
                out.push(b'=');
                go_query_escape(&token[eq + 1..], &mut out);
            }
            None => go_query_escape(token, &mut out),
        }
    }
    out
}

/// Go's `url.QueryUnescape`: like `urlDecode`, except that an invalid `%` escape is an error.
fn go_query_unescape(input: &[u8]) -> Option<Vec<u8>> {
    let escapes_valid = input.iter().enumerate().all(|(i, &b)| {
        b != b'%'
            || input
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    escapes_valid.then(|| crate::transform::url_decode(input))
}

/// Go's `url.QueryEscape`: unreserved bytes as is, space as `+`, everything else `%XX` (upper-case hex).
fn go_query_escape(input: &[u8], out: &mut Vec<u8>) {
    for &b in input {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b),
            b' ' => out.push(b'+'),
            _ => out.extend_from_slice(format!("%{b:02X}").as_bytes()),
        }
    }
}

/// The result of one test.
#[derive(Debug)]
pub struct Outcome {
    /// `<rule_id>-<test_id>` as the CRS names tests (the file name stands in when `rule_id` is absent).
    pub name: String,
    /// Why it failed, if it did.
    pub failure: Option<TestFailure>,
}

/// Why a test failed, at which stage (counted from 0).
#[derive(Debug, thiserror::Error)]
pub enum TestFailure {
    #[error("stage {stage}: {source}")]
    Encoded {
        stage: usize,
        source: EncodedRequestError,
    },
    #[error("stage {stage}: request does not parse: {source}")]
    Unparsable { stage: usize, source: ParseError },
    /// The verdict is not the one expected; `matched` describes every match.
    #[error(
        "stage {stage}: expected {missing:?} not matched, unexpected {unwanted:?} matched; matched: [{matched}]"
    )]
    Verdict {
        stage: usize,
        missing: Vec<u32>,
        unwanted: Vec<u32>,
        matched: String,
    },
}

impl TestFile {
    /// `<rule_id>-<test_id>` as the CRS names a test (`file_label`, the file name, stands in when `rule_id` is
    /// absent).
    pub fn test_name(&self, file_label: &str, test: &Test) -> String {
        let prefix = self
            .rule_id
            .map_or_else(|| file_label.to_owned(), |id| id.to_string());
        format!("{prefix}-{}", test.test_id)
    }
}

/// Runs every test of a file.
pub fn run_file(rules: &CompiledRuleSet, file_label: &str, file: &TestFile) -> Vec<Outcome> {
    file.tests
        .iter()
        .map(|test| Outcome {
            name: file.test_name(file_label, test),
            failure: run_test(rules, test).err(),
        })
        .collect()
}

fn run_test(rules: &CompiledRuleSet, test: &Test) -> Result<(), TestFailure> {
    for (n, stage) in test.stages.iter().enumerate() {
        let raw = raw_request(&stage.input)
            .map_err(|source| TestFailure::Encoded { stage: n, source })?;
        let request = OwnedRequest::parse(&raw)
            .map_err(|source| TestFailure::Unparsable { stage: n, source })?;
        let headers = request.headers();
        let borrowed = request.as_request(&headers);
        let mut verdict = rules.evaluate(&borrowed);
        // The CRS tests run at CRS's default thresholds, which are the engine's defaults.
        verdict.settle(DEFAULT_ANOMALY_THRESHOLD);
        let answer = albedo_answer(&request);
        let answer_headers = answer.headers();
        let mut outbound = rules.evaluate_response(&borrowed, &answer.as_response(&answer_headers));
        outbound.settle(DEFAULT_OUTBOUND_ANOMALY_THRESHOLD);
        let logged = rules.correlate(&verdict, Some(&outbound));
        verdict.matches.extend(outbound.matches);
        verdict.matches.extend(logged);
        let matched = |id: u32| verdict.matches.iter().any(|m| m.rule_id == id);
        let missing: Vec<u32> = stage
            .output
            .log
            .expect_ids
            .iter()
            .copied()
            .filter(|id| !matched(*id))
            .collect();
        let unwanted: Vec<u32> = stage
            .output
            .log
            .no_expect_ids
            .iter()
            .copied()
            .filter(|id| matched(*id))
            .collect();
        if !missing.is_empty() || !unwanted.is_empty() {
            return Err(TestFailure::Verdict {
                stage: n,
                missing,
                unwanted,
                matched: describe(&verdict.matches),
            });
        }
    }
    Ok(())
}

/// What albedo (go-ftw's backend) answers to `request`: for `/reflect`, the JSON body's `status` (default 200),
/// `headers` and `body` (or `encodedBody`, base64); a body that is no such JSON gets a `400`. Any other path gets
/// an empty `200`.
pub fn albedo_answer(request: &OwnedRequest) -> OwnedResponse {
    let mut answer = OwnedResponse {
        status: 200,
        version: "HTTP/1.1".to_owned(),
        headers: Vec::new(),
        body: Some(Vec::new()),
    };
    let path = request.uri.split('?').next().unwrap_or_default();
    if path != "/reflect" {
        return answer;
    }
    let Ok(serde_json::Value::Object(spec)) = serde_json::from_slice(&request.body) else {
        answer.status = 400;
        return answer;
    };
    if let Some(status) = spec.get("status").and_then(serde_json::Value::as_u64) {
        answer.status = u16::try_from(status).unwrap_or(500);
    }
    if let Some(serde_json::Value::Object(headers)) = spec.get("headers") {
        answer.headers = headers
            .iter()
            .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.as_bytes().to_vec())))
            .collect();
    }
    let encoded = spec
        .get("encodedBody")
        .and_then(serde_json::Value::as_str)
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok());
    let body = spec
        .get("body")
        .and_then(serde_json::Value::as_str)
        .map(|b| b.as_bytes().to_vec());
    answer.body = Some(encoded.or(body).unwrap_or_default());
    answer
}

fn describe(matches: &[RuleMatch]) -> String {
    matches
        .iter()
        .map(|m| format!("{} at {} \"{}\"", m.rule_id, m.variable, m.value_excerpt))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(method: &str, headers: &[(&str, &str)], data: Option<&str>) -> Input {
        Input {
            method: Some(method.into()),
            uri: Some("/post".into()),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), Scalar::Text(v.to_string())))
                .collect(),
            data: data.map(str::to_owned),
            ..Input::default()
        }
    }

    fn text(input: &Input) -> String {
        String::from_utf8(raw_request(input).unwrap()).unwrap()
    }

    #[test]
    fn data_is_encoded_like_go_ftw() {
        let raw = text(&input(
            "POST",
            &[("Host", "localhost")],
            Some("var=1234 OR 1=1&b"),
        ));
        assert_eq!(
            raw,
            "POST /post HTTP/1.1\r\nConnection: close\r\nContent-Length: 19\r\n\
             Content-Type: application/x-www-form-urlencoded\r\nHost: localhost\r\n\r\nvar=1234+OR+1%3D1&b"
        );
        // Already escaped (unescaping changes it): sent as is.
        assert!(text(&input("POST", &[], Some("a=1+2"))).ends_with("\r\n\r\na=1+2"));
        assert!(text(&input("POST", &[], Some("a=%27"))).ends_with("\r\n\r\na=%27"));
        // A bad escape makes unescaping fail: sent as is.
        assert!(text(&input("POST", &[], Some("a=100%"))).ends_with("\r\n\r\na=100%"));
        // Another content type: not encoded, not replaced.
        let json = text(&input(
            "POST",
            &[("Content-Type", "application/json")],
            Some("{\"a\": 1}"),
        ));
        assert!(
            json.contains("Content-Type: application/json\r\n") && json.ends_with("{\"a\": 1}")
        );
    }

    #[test]
    fn standard_headers_and_multipart() {
        let get = text(&input("GET", &[], None));
        assert_eq!(get, "GET /post HTTP/1.1\r\nConnection: close\r\n\r\n");
        let put = text(&input("PUT", &[], None));
        assert!(put.contains("Content-Length: 0\r\n"));
        let mp = text(&input(
            "POST",
            &[("Content-Type", "multipart/form-data; boundary=x")],
            Some("--x\na"),
        ));
        assert!(mp.ends_with("\r\n\r\n--x\r\na"));
        let mut raw_off = input("POST", &[], Some("a b"));
        raw_off.autocomplete_headers = Some(false);
        assert_eq!(text(&raw_off), "POST /post HTTP/1.1\r\n\r\na b");
    }

    #[test]
    fn names_tests_and_reads_log_expectations() {
        let yaml = r#"rule_id: 922130
tests:
  - test_id: 2
    stages:
      - input: {uri: /}
        output:
          log:
            match_regex: 'id "922130"'
            no_expect_ids: [1]
"#;
        let file: TestFile = serde_saphyr::from_str(yaml).unwrap();
        let test = &file.tests[0];
        assert_eq!(file.test_name("ignored", test), "922130-2");
        let log = &test.stages[0].output.log;
        assert_eq!(log.match_regex.as_deref(), Some("id \"922130\""));
        assert_eq!(
            (log.no_match_regex.as_deref(), &log.no_expect_ids[..]),
            (None, &[1][..])
        );
    }

    #[test]
    fn albedo_reflects_what_the_json_asks() {
        let post = |uri: &str, body: &str| OwnedRequest {
            method: "POST".into(),
            uri: uri.into(),
            version: "HTTP/1.1".into(),
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
        };
        let answer = albedo_answer(&post(
            "/reflect",
            r#"{"status": 503, "headers": {"X-A": "1"}, "body": "oops"}"#,
        ));
        assert_eq!(answer.status, 503);
        assert_eq!(answer.headers, [("X-A".to_owned(), b"1".to_vec())]);
        assert_eq!(answer.body.as_deref(), Some(&b"oops"[..]));
        let encoded = albedo_answer(&post("/reflect", r#"{"encodedBody": "aGk="}"#));
        assert_eq!(
            (encoded.status, encoded.body.as_deref()),
            (200, Some(&b"hi"[..]))
        );
        assert_eq!(albedo_answer(&post("/reflect", "not json")).status, 400);
        let other = albedo_answer(&post("/get", r#"{"status": 500}"#));
        assert_eq!((other.status, other.body.as_deref()), (200, Some(&b""[..])));
    }

    #[test]
    fn encoded_request_is_sent_as_is() {
        let mut i = Input {
            encoded_request: Some(
                base64::engine::general_purpose::STANDARD.encode("GET /x HTTP/1.0\r\n\r\n"),
            ),
            ..Input::default()
        };
        assert_eq!(text(&i), "GET /x HTTP/1.0\r\n\r\n");
        i.encoded_request = Some("***".into());
        assert!(raw_request(&i).is_err());
    }
}
