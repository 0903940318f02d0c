//! Logging: the subscriber, and the one-line records other tools read.
//!
//! Every rule match is one line containing `[id "<rule id>"]` (ModSecurity's shape, which go-ftw and CRS tooling
//! look for) and, when the request carries it, the `X-CRS-Test` header value. A request carrying `X-CRS-Test` is
//! also logged once even without a match: go-ftw brackets each test with such marker requests and waits for the
//! marker to appear in the log. Values from the request are escaped and truncated: a log line must not be
//! forgeable or unbounded. Every line about a request carries its `[request_id "..."]` (`request_id.rs`: a
//! request id is a bounded token of safe characters, written as it is).
use crate::access_log::{self, AccessLog};
use crate::config::{LogFormat, LoggingConfig, Mode, TrafficLogLevel};
use crate::inspect::Finding;
use crate::request_id::RequestId;
use crate::terminal_safe::TerminalSafe;
use crate::traffic::Block;
use std::fmt::Write;
use std::net::IpAddr;
use std::sync::Arc;
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// Longest request-derived value written into a log line.
const MAX_LOGGED_VALUE: usize = 256;

pub const CRS_TEST_HEADER: &str = "x-crs-test";

/// The log writer threads and the access log. Keep them until the process ends: dropping them writes out what
/// is queued, then stops the threads.
#[must_use = "dropping the writers stops them"]
pub struct Writers {
    pub access: Arc<AccessLog>,
    _log: WorkerGuard,
    _access_file: Option<WorkerGuard>,
}

/// Installs the subscriber, writing to stdout from a thread of its own: a request that logs (a rule match on
/// every request whose Host is an address, CRS 920350) formats its line and queues it, where a write to stdout
/// per line held the worker for a system call (measured: docs/performance.md). The queue does not drop lines
/// (`lossy(false)`): when the writer falls behind, logging waits for it. The writer thread buffers what it
/// takes from the queue and writes it when the queue is empty (tracing-appender flushes then): stdout's own
/// buffer wrote each line with a system call of its own, the log thread's `write` and the wake-ups of
/// whatever reads the log about a tenth of the proxy's CPU under `benches/responses.sh` (two lines a request).
/// The access log goes to the same writer, or to its file from a writer of its own (`access_log.rs`).
pub fn init(cfg: &LoggingConfig) -> Result<Writers, access_log::OpenError> {
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("waf-log")
        .finish(std::io::BufWriter::new(std::io::stdout()));
    let (access, access_file) = AccessLog::open(&cfg.access, writer.clone())?;
    let filter = EnvFilter::try_new(&cfg.level).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false);
    if cfg.format == LogFormat::Json {
        builder.with_writer(writer).json().init();
    } else {
        // Terminal controls escaped in the whole line at once (`terminal_safe.rs`), not in the message a
        // character at a time.
        builder
            .with_writer(TerminalSafe(writer))
            .with_ansi(false)
            .with_ansi_sanitization(false)
            .init();
    }
    Ok(Writers {
        access: Arc::new(access),
        _log: guard,
        _access_file: access_file,
    })
}

/// Escapes control characters, quotes and backslashes, and truncates.
pub fn clean(value: &str) -> String {
    let mut out = String::with_capacity(value.len().min(MAX_LOGGED_VALUE));
    for (i, c) in value.chars().enumerate() {
        if i == MAX_LOGGED_VALUE {
            out.push_str("...");
            break;
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// What the proxy did about a request with matches.
#[derive(Clone, Copy)]
pub enum Outcome {
    Blocked,
    Logged,
    Observed,
}

pub struct MatchContext<'a> {
    pub mode: Mode,
    pub outcome: Outcome,
    pub client: IpAddr,
    pub method: &'a str,
    pub uri: &'a str,
    pub test_id: Option<&'a str>,
    pub request_id: &'a RequestId,
    /// The request's anomaly score: the sum of its findings' scores.
    pub anomaly_score: u32,
}

pub fn rule_match(f: &Finding, ctx: &MatchContext) {
    let prefix = if ctx.mode == Mode::Observe {
        "OBSERVE MODE "
    } else {
        ""
    };
    let action = match ctx.outcome {
        Outcome::Blocked => "blocked",
        Outcome::Logged => "logged",
        Outcome::Observed => "observed",
    };
    let test = ctx
        .test_id
        .map(|t| format!(" [test \"{}\"]", clean(t)))
        .unwrap_or_default();
    // `id` as a field too: in JSON logs the line then carries `"id":942100`, the other shape CRS tooling reads.
    tracing::warn!(
        id = f.rule_id,
        "{prefix}rule match [id \"{}\"] [msg \"{}\"] [severity \"{}\"] [variable \"{}\"] [data \"{}\"] \
         [score \"{}\"] [anomaly_score \"{}\"] [action \"{action}\"] [client \"{}\"] [method \"{}\"] \
         [uri \"{}\"]{test} [request_id \"{}\"]",
        f.rule_id,
        clean(&f.msg),
        f.severity,
        clean(&f.variable),
        f.excerpt, // escaped and bounded by the engine
        f.score,
        ctx.anomaly_score,
        ctx.client,
        clean(ctx.method),
        clean(ctx.uri),
        ctx.request_id.as_str(),
    );
}

/// The request a traffic-control line is about.
pub struct TrafficSubject<'a> {
    pub client: IpAddr,
    pub host: &'a str,
    pub method: &'a str,
    pub uri: &'a str,
    pub request_id: &'a RequestId,
}

/// One line per traffic-control refusal, at the configured level (`logging.traffic_level`).
pub fn traffic_decision(
    level: TrafficLogLevel,
    block: &Block,
    observe: bool,
    subject: &TrafficSubject,
) {
    if level == TrafficLogLevel::Off {
        return;
    }
    let (prefix, action) = if observe {
        ("OBSERVE MODE ", "observed")
    } else {
        ("", "blocked")
    };
    let detail = match block {
        Block::Country(Some(c)) => format!(" [country \"{}\"]", c.as_str()),
        Block::Country(None) => " [country \"unknown\"]".to_string(),
        Block::RateLimitUnavailable { .. } => " [backend \"unavailable\"]".to_string(),
        _ => String::new(),
    };
    let line = format!(
        "{prefix}traffic control [reason \"{}\"] [action \"{action}\"] [client \"{}\"] [host \"{}\"] \
         [method \"{}\"] [uri \"{}\"]{detail} [request_id \"{}\"]",
        block.reason(),
        subject.client,
        clean(subject.host),
        clean(subject.method),
        clean(subject.uri),
        subject.request_id.as_str(),
    );
    match level {
        TrafficLogLevel::Off => {}
        TrafficLogLevel::Error => tracing::error!("{line}"),
        TrafficLogLevel::Warn => tracing::warn!("{line}"),
        TrafficLogLevel::Info => tracing::info!("{line}"),
        TrafficLogLevel::Debug => tracing::debug!("{line}"),
    }
}

pub fn test_marker(test_id: &str, method: &str, uri: &str, request_id: &RequestId) {
    tracing::info!(
        "request [test \"{}\"] [method \"{}\"] [uri \"{}\"] [request_id \"{}\"]",
        clean(test_id),
        clean(method),
        clean(uri),
        request_id.as_str(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_escapes_and_truncates() {
        assert_eq!(clean("a\"b\\c\nd"), "a\\\"b\\\\c\\u{a}d");
        assert_eq!(clean(&"x".repeat(300)).len(), MAX_LOGGED_VALUE + 3);
    }
}
