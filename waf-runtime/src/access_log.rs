//! The access log: one line per request, written once its answer has been sent (or abandoned).
//!
//! A request's [`Record`] is made when the request arrives and filled in by the pipeline as it goes (client
//! address, host, outcome, matched rules, upstream); it then travels with the response inside [`AccessBody`], which
//! counts the bytes sent, and the line is written when the body is dropped: after its last byte, or when the client
//! went away. A request whose answer was never made (the client left while the upstream thought) is written when
//! its record is dropped, with nginx's status 499.
//!
//! The request thread formats the line and queues it; a writer thread of its own writes it (the log's, for
//! stdout; a second one for a file), so a request never waits for a disk or a pipe. The queue drops nothing: only
//! when it holds 128 000 lines that the writer has not caught up with does a request wait for room (what
//! tracing-appender does with `lossy(false)`, as for the other log lines).
//!
//! With a file, SIGUSR1 asks for it to be opened again by its path (for logrotate's rename-then-signal rotation):
//! the writer thread finishes the line it is on into the renamed file and writes the next one into a new file.
use crate::body::{BodyError, ProxyBody};
use crate::config::{AccessLogConfig, AccessLogFormat};
use crate::request_id::RequestId;
use http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, Version, header};
use hyper::body::{Body, Frame, SizeHint};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};
use tracing_appender::non_blocking::{NonBlocking, NonBlockingBuilder, WorkerGuard};

/// nginx's status for a request whose client closed the connection before the answer was made.
const CLIENT_CLOSED: u16 = 499;

/// The access log file could not be opened at start.
#[derive(Debug, thiserror::Error)]
#[error("cannot open the access log {path}: {source}")]
pub struct OpenError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// Where access lines go: the queue of a writer thread.
pub struct AccessLog {
    writer: NonBlocking,
    /// Set by [`AccessLog::reopen`], acted on by the file's writer thread; none when the lines go to stdout.
    reopen: Option<Arc<AtomicBool>>,
}

impl AccessLog {
    /// The access log for `cfg`: to `stdout` (the log's own writer) when no path is set, else to the file,
    /// opened now (so a path that cannot be written stops the start) and written by a thread of its own, whose
    /// guard the caller keeps until the end.
    pub fn open(
        cfg: &AccessLogConfig,
        stdout: NonBlocking,
    ) -> Result<(AccessLog, Option<WorkerGuard>), OpenError> {
        let Some(path) = &cfg.path else {
            return Ok((
                AccessLog {
                    writer: stdout,
                    reopen: None,
                },
                None,
            ));
        };
        let reopen = Arc::new(AtomicBool::new(false));
        let opened = append(path).map_err(|source| OpenError {
            path: path.clone(),
            source,
        })?;
        let file = ReopeningFile {
            file: BufWriter::new(opened),
            path: path.clone(),
            reopen: reopen.clone(),
        };
        let (writer, guard) = NonBlockingBuilder::default()
            .lossy(false)
            .thread_name("waf-access-log")
            .finish(file);
        Ok((
            AccessLog {
                writer,
                reopen: Some(reopen),
            },
            Some(guard),
        ))
    }

    /// Asks the writer thread to open the file again by its path (SIGUSR1); nothing for stdout.
    pub fn reopen(&self) {
        if let Some(reopen) = &self.reopen {
            reopen.store(true, Ordering::Release);
            // An empty message wakes the writer thread, which reopens when it flushes: a rotated file is let go
            // even when no request comes.
            let _ = self.writer.clone().write(&[]);
        }
    }

    fn write(&self, line: &[u8]) {
        // One write, one message: lines from different threads never interleave.
        let _ = self.writer.clone().write_all(line);
    }
}

fn append(path: &Path) -> std::io::Result<File> {
    File::options().create(true).append(true).open(path)
}

/// The log file, as the writer thread holds it.
struct ReopeningFile {
    file: BufWriter<File>,
    path: PathBuf,
    reopen: Arc<AtomicBool>,
}

impl ReopeningFile {
    fn reopen_if_asked(&mut self) -> std::io::Result<()> {
        if self.reopen.swap(false, Ordering::AcqRel) {
            // What is buffered belongs to the file as it was: written out before it is let go.
            self.file.flush()?;
            match append(&self.path) {
                Ok(file) => self.file = BufWriter::new(file),
                // Lines keep going to the file still open rather than nowhere.
                Err(e) => eprintln!(
                    "waf: cannot reopen access log {}: {e}; still writing to the file open before",
                    self.path.display()
                ),
            }
        }
        Ok(())
    }
}

impl Write for ReopeningFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.reopen_if_asked()?;
        self.file.write(buf)
    }

    /// Called by the writer thread whenever its queue is empty: lines reach the file at once when idle, in
    /// batches under load.
    fn flush(&mut self) -> std::io::Result<()> {
        self.reopen_if_asked()?;
        self.file.flush()
    }
}

/// What the proxy did with a request: the access line's `event.action`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Sent to the upstream (rules may have matched below the threshold: see the rule ids).
    Forwarded,
    /// Refused with 403 by the rules.
    Blocked,
    /// Matched in observe mode (rules or a traffic control), forwarded.
    Observed,
    /// The upstream's answer was withheld by the response rules (502).
    ResponseBlocked,
    RateLimited,
    /// Refused by an IP list.
    IpDenied,
    /// Refused by GeoIP.
    GeoDenied,
    /// Refused by the head guard before hyper parsed it (framing, head limits).
    RefusedHead,
    /// Refused on its framing or host after parsing, or an unreadable body.
    Refused,
    BodyTooLarge,
    BodyTimeout,
    /// The upstream refused, reset or did not answer in time (502, 504).
    UpstreamError,
    /// Sent to HTTPS (`force_https`).
    Redirected,
    /// Answered by the proxy itself: `/health`, `/metrics`, ACME challenges.
    Internal,
    /// No answer was made: the client went away first.
    Aborted,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Forwarded => "forwarded",
            Action::Blocked => "blocked",
            Action::Observed => "observed",
            Action::ResponseBlocked => "response_blocked",
            Action::RateLimited => "rate_limited",
            Action::IpDenied => "ip_denied",
            Action::GeoDenied => "geo_denied",
            Action::RefusedHead => "refused_head",
            Action::Refused => "refused",
            Action::BodyTooLarge => "body_too_large",
            Action::BodyTimeout => "body_timeout",
            Action::UpstreamError => "upstream_error",
            Action::Redirected => "redirected",
            Action::Internal => "internal",
            Action::Aborted => "aborted",
        }
    }
}

/// One request as the access log sees it: its id always, the rest only when its line will be written.
pub struct Record {
    id: RequestId,
    line: Option<Box<Line>>,
}

/// The fields of an access line (see docs/proxy.md for their meaning).
struct Line {
    log: Arc<AccessLog>,
    format: AccessLogFormat,
    query: bool,
    at: SystemTime,
    started: Instant,
    client: IpAddr,
    tls: Option<&'static str>,
    method: Method,
    uri: Uri,
    version: Version,
    host: String,
    referer: Option<HeaderValue>,
    user_agent: Option<HeaderValue>,
    action: Action,
    status: Option<StatusCode>,
    bytes_in: u64,
    bytes_out: u64,
    /// Whether the whole answer was handed to the connection; false when the client went away during it.
    complete: bool,
    upstream: Option<(String, Duration)>,
    anomaly_score: u32,
    rule_ids: Vec<u64>,
}

/// What a request looks like when it arrives, for its record.
pub struct Arrival<'a> {
    pub client: IpAddr,
    pub tls: Option<&'static str>,
    pub method: &'a Method,
    pub uri: &'a Uri,
    pub version: Version,
    pub headers: &'a HeaderMap,
}

impl Record {
    /// The record of a request arriving now. `cfg` says whether (and how) its line is written; a request of a
    /// silenced domain is dropped from the log later, with [`Record::silence`].
    pub fn start(
        log: &Arc<AccessLog>,
        cfg: &AccessLogConfig,
        id: RequestId,
        arrival: Arrival,
    ) -> Record {
        let line = cfg.enabled.then(|| {
            Box::new(Line {
                log: log.clone(),
                format: cfg.format,
                query: cfg.query,
                at: SystemTime::now(),
                started: Instant::now(),
                client: arrival.client,
                tls: arrival.tls,
                method: arrival.method.clone(),
                uri: arrival.uri.clone(),
                version: arrival.version,
                host: String::new(),
                referer: arrival.headers.get(header::REFERER).cloned(),
                user_agent: arrival.headers.get(header::USER_AGENT).cloned(),
                action: Action::Aborted,
                status: None,
                bytes_in: 0,
                bytes_out: 0,
                complete: false,
                upstream: None,
                anomaly_score: 0,
                rule_ids: Vec::new(),
            })
        });
        Record { id, line }
    }

    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// No line for this request (`domains.<host>.access_log: false`).
    pub fn silence(&mut self) {
        self.line = None;
    }

    pub fn set_action(&mut self, action: Action) {
        if let Some(line) = &mut self.line {
            line.action = action;
        }
    }

    /// `Forwarded`, unless the request already has an outcome that says more (`Observed`).
    pub fn forwarded(&mut self) {
        if let Some(line) = &mut self.line
            && line.action == Action::Aborted
        {
            line.action = Action::Forwarded;
        }
    }

    /// The host the request is for.
    pub fn set_host(&mut self, host: &str) {
        if let Some(line) = &mut self.line {
            host.clone_into(&mut line.host);
        }
    }

    /// The client address once trusted proxies are looked through.
    pub fn set_client(&mut self, client: IpAddr) {
        if let Some(line) = &mut self.line {
            line.client = client;
        }
    }

    pub fn set_bytes_in(&mut self, bytes: u64) {
        if let Some(line) = &mut self.line {
            line.bytes_in = bytes;
        }
    }

    pub fn set_matches(&mut self, anomaly_score: u32, rule_ids: impl Iterator<Item = u64>) {
        if let Some(line) = &mut self.line {
            line.anomaly_score = anomaly_score;
            line.rule_ids.extend(rule_ids);
        }
    }

    /// The upstream the request was sent to, and how long its answer's head took.
    pub fn set_upstream(&mut self, upstream: &str, took: Duration) {
        if let Some(line) = &mut self.line {
            line.upstream = Some((upstream.to_owned(), took));
        }
    }

    /// The record travels on with the answer, in its body; the line is written when that body is dropped.
    pub fn attach(mut self, response: http::Response<ProxyBody>) -> http::Response<AccessBody> {
        if let Some(line) = &mut self.line {
            line.status = Some(response.status());
        }
        response.map(|inner| AccessBody {
            inner,
            record: self,
            sent: 0,
            ended: false,
        })
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        let Some(line) = self.line.take() else {
            return;
        };
        let text = match line.format {
            AccessLogFormat::Json => line.json(self.id.as_str()),
            AccessLogFormat::Combined => line.combined(),
        };
        line.log.write(text.as_bytes());
    }
}

/// An answer's body, counting what is sent, with the request's record.
pub struct AccessBody {
    inner: ProxyBody,
    record: Record,
    sent: u64,
    ended: bool,
}

impl Body for AccessBody {
    type Data = bytes::Bytes;
    type Error = BodyError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<bytes::Bytes>, BodyError>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.sent += data.len() as u64;
                }
            }
            Poll::Ready(None) => this.ended = true,
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for AccessBody {
    fn drop(&mut self) {
        // hyper stops polling a body that says it has ended; one dropped before that was cut short.
        let complete = self.ended || self.inner.is_end_stream();
        if let Some(line) = &mut self.record.line {
            line.bytes_out = self.sent;
            line.complete = complete;
        }
        // The record is dropped next, and writes the line.
    }
}

impl Line {
    fn status(&self) -> u16 {
        self.status.map_or(CLIENT_CLOSED, |s| s.as_u16())
    }

    fn query(&self) -> Option<&str> {
        self.uri.query().filter(|_| self.query)
    }

    /// Whether the request's head was read: a head the guard refused is known by its refusal alone (hyper parsed
    /// a stand-in, whose method, target and version are not the client's).
    fn head_read(&self) -> bool {
        self.action != Action::RefusedHead
    }

    /// One JSON object, fields named as in Elastic Common Schema where it has a name for them, the proxy's own
    /// under `waf`. Written by hand rather than through serde_json: that took 16,000 instructions a line (most of
    /// them escaping strings that need none), a tenth of a proxied request (benches/instructions.sh).
    fn json(&self, id: &str) -> String {
        let mut out = String::with_capacity(512);
        out.push_str("{\"@timestamp\":\"");
        UtcTime::of(self.at).push_rfc3339(&mut out);
        out.push_str("\",\"event\":{\"dataset\":\"waf.access\",\"action\":\"");
        out.push_str(self.action.as_str());
        out.push_str("\",\"duration\":");
        push_number(&mut out, self.started.elapsed().as_nanos() as u64);
        let _ = write!(out, "}},\"client\":{{\"ip\":\"{}\"}}", self.client);
        out.push_str(",\"url\":{\"domain\":");
        push_json_string(&mut out, self.host.as_bytes());
        if self.head_read() {
            out.push_str(",\"path\":");
            push_json_string(&mut out, self.uri.path().as_bytes());
        }
        if let Some(query) = self.query() {
            out.push_str(",\"query\":");
            push_json_string(&mut out, query.as_bytes());
        }
        out.push_str("},\"http\":{");
        if self.head_read() {
            out.push_str(match self.version {
                Version::HTTP_09 => "\"version\":\"0.9\",",
                Version::HTTP_10 => "\"version\":\"1.0\",",
                Version::HTTP_2 => "\"version\":\"2\",",
                Version::HTTP_3 => "\"version\":\"3\",",
                _ => "\"version\":\"1.1\",",
            });
        }
        out.push_str("\"request\":{\"id\":");
        push_json_string(&mut out, id.as_bytes());
        if self.head_read() {
            out.push_str(",\"method\":");
            push_json_string(&mut out, self.method.as_str().as_bytes());
        }
        if let Some(referer) = &self.referer {
            out.push_str(",\"referrer\":");
            push_json_string(&mut out, referer.as_bytes());
        }
        out.push_str(",\"body\":{\"bytes\":");
        push_number(&mut out, self.bytes_in);
        out.push_str("}},\"response\":{\"status_code\":");
        push_number(&mut out, u64::from(self.status()));
        out.push_str(",\"body\":{\"bytes\":");
        push_number(&mut out, self.bytes_out);
        out.push_str("}}}");
        if let Some(agent) = &self.user_agent {
            out.push_str(",\"user_agent\":{\"original\":");
            push_json_string(&mut out, agent.as_bytes());
            out.push('}');
        }
        if let Some(version) = self.tls {
            out.push_str(",\"tls\":{\"version\":\"");
            out.push_str(version);
            out.push_str("\",\"version_protocol\":\"tls\"}");
        }
        out.push_str(",\"waf\":{");
        if let Some((address, took)) = &self.upstream {
            out.push_str("\"upstream\":{\"address\":");
            push_json_string(&mut out, address.as_bytes());
            out.push_str(",\"duration\":");
            push_number(&mut out, took.as_nanos() as u64);
            out.push_str("},");
        }
        out.push_str("\"anomaly_score\":");
        push_number(&mut out, u64::from(self.anomaly_score));
        out.push_str(",\"rule_ids\":[");
        for (i, id) in self.rule_ids.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_number(&mut out, *id);
        }
        out.push(']');
        if !self.complete {
            out.push_str(",\"aborted\":true");
        }
        out.push_str("}}\n");
        out
    }

    /// nginx's `combined`: `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent
    /// "$http_referer" "$http_user_agent"`, escaped as nginx escapes (`"`, `\`, control and non-ASCII bytes as
    /// `\xHH`), times in UTC; the request `-` when its head was refused unread, as nginx writes a request line it
    /// could not read.
    fn combined(&self) -> String {
        let mut out = String::with_capacity(256);
        let _ = write!(
            out,
            "{} - - [{}] \"",
            self.client,
            UtcTime::of(self.at).common_log()
        );
        if self.head_read() {
            escape_into(&mut out, self.method.as_str().as_bytes());
            out.push(' ');
            escape_into(&mut out, self.uri.path().as_bytes());
            if let Some(query) = self.query() {
                out.push('?');
                escape_into(&mut out, query.as_bytes());
            }
            out.push_str(match self.version {
                Version::HTTP_09 => " HTTP/0.9",
                Version::HTTP_10 => " HTTP/1.0",
                Version::HTTP_2 => " HTTP/2.0",
                Version::HTTP_3 => " HTTP/3.0",
                _ => " HTTP/1.1",
            });
        } else {
            out.push('-');
        }
        let _ = write!(out, "\" {} {} \"", self.status(), self.bytes_out);
        for (i, value) in [&self.referer, &self.user_agent].into_iter().enumerate() {
            if i == 1 {
                out.push_str(" \"");
            }
            match value {
                Some(v) if !v.is_empty() => escape_into(&mut out, v.as_bytes()),
                _ => out.push('-'),
            }
            out.push('"');
        }
        out.push('\n');
        out
    }
}

/// `value` as a JSON string: quoted, escaped, bytes that are not UTF-8 replaced by U+FFFD.
fn push_json_string(out: &mut String, value: &[u8]) {
    out.push('"');
    // Most values (paths, hosts, user agents) are printable ASCII without quotes or backslashes: copied whole. The
    // check does not stop at the first other byte, so the compiler checks many bytes at a time.
    let plain = value.iter().fold(true, |plain, &b| {
        plain & (0x20..0x7f).contains(&b) & (b != b'"') & (b != b'\\')
    });
    if plain {
        out.push_str(std::str::from_utf8(value).unwrap_or_default());
    } else {
        for c in String::from_utf8_lossy(value).chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if u32::from(c) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", u32::from(c));
                }
                c => out.push(c),
            }
        }
    }
    out.push('"');
}

/// `n` in decimal, without going through `fmt`'s machinery.
fn push_number(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// Two digits of `n` (0 to 99).
fn push_two(out: &mut String, n: u32) {
    out.push(char::from(b'0' + (n / 10 % 10) as u8));
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// nginx's escaping of logged values: `"`, `\`, control characters and bytes past ASCII as `\xHH`.
fn escape_into(out: &mut String, bytes: &[u8]) {
    for &b in bytes {
        match b {
            b'"' | b'\\' | 0..0x20 | 0x7f.. => {
                let _ = write!(out, "\\x{b:02X}");
            }
            _ => out.push(char::from(b)),
        }
    }
}

/// A UTC date and time to the millisecond.
#[derive(Debug, PartialEq, Eq)]
struct UtcTime {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    milli: u32,
}

impl UtcTime {
    fn of(at: SystemTime) -> UtcTime {
        let since = at
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        let secs = since.as_secs() as i64;
        let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
        let in_day = secs.rem_euclid(86_400) as u32;
        UtcTime {
            year,
            month,
            day,
            hour: in_day / 3600,
            minute: in_day / 60 % 60,
            second: in_day % 60,
            milli: since.subsec_millis(),
        }
    }

    /// `2026-11-28T06:01:02.123Z`
    fn push_rfc3339(&self, out: &mut String) {
        push_number(out, self.year.clamp(0, 9999) as u64);
        out.push('-');
        push_two(out, self.month);
        out.push('-');
        push_two(out, self.day);
        out.push('T');
        push_two(out, self.hour);
        out.push(':');
        push_two(out, self.minute);
        out.push(':');
        push_two(out, self.second);
        out.push('.');
        push_two(out, self.milli / 10);
        out.push(char::from(b'0' + (self.milli % 10) as u8));
        out.push('Z');
    }

    /// `28/Nov/2026:06:01:02 +0000`
    fn common_log(&self) -> String {
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let month = MONTHS[(self.month as usize).clamp(1, 12) - 1];
        format!(
            "{:02}/{month}/{:04}:{:02}:{:02}:{:02} +0000",
            self.day, self.year, self.hour, self.minute, self.second
        )
    }
}

/// The date (year, month 1 to 12, day 1 to 31) `days` days after 1970-01-01, in the proleptic Gregorian
/// calendar (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64, millis: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(secs * 1000 + millis)
    }

    impl UtcTime {
        fn rfc3339(&self) -> String {
            let mut out = String::new();
            self.push_rfc3339(&mut out);
            out
        }
    }

    #[test]
    fn json_strings_and_numbers_are_written_as_json_reads_them() {
        let values: [&[u8]; 5] = [
            b"/plain/path?a=1",
            b"quote \" backslash \\ tab \t nul \0 del \x7f",
            "caf\u{e9} \u{1F600}".as_bytes(),
            b"not utf-8 \xff\xfe",
            b"",
        ];
        for value in values {
            let mut out = String::new();
            push_json_string(&mut out, value);
            let back: String = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
            assert_eq!(back, String::from_utf8_lossy(value), "{out}");
        }
        for n in [0, 7, 10, 499, u64::from(u32::MAX), u64::MAX] {
            let mut out = String::new();
            push_number(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn times_are_written_in_utc() {
        let t = UtcTime::of(at(0, 0));
        assert_eq!(t.rfc3339(), "1970-01-01T00:00:00.000Z");
        let t = UtcTime::of(at(1_000_000_000, 7));
        assert_eq!(t.rfc3339(), "2001-09-09T01:46:40.007Z");
        assert_eq!(t.common_log(), "09/Sep/2001:01:46:40 +0000");
        // A leap day, and the last second of a year.
        assert_eq!(
            UtcTime::of(at(951_782_400, 0)).rfc3339(),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(
            UtcTime::of(at(1_798_761_599, 999)).common_log(),
            "31/Dec/2026:23:59:59 +0000"
        );
    }

    #[test]
    fn combined_values_are_escaped_as_nginx_does() {
        let mut out = String::new();
        escape_into(&mut out, "a\"b\\c\r\nd\u{e9}".as_bytes());
        assert_eq!(out, "a\\x22b\\x5Cc\\x0D\\x0Ad\\xC3\\xA9");
    }
}
