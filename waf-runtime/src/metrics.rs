//! Prometheus metrics: the specified counters, plus what an operator needs to see the proxy work.
//!
//! The hot-path counters are registered once and kept as handles, so counting a request is an atomic add, not a
//! registry lookup. Labelled series have bounded label values: rule ids come from the loaded rule set, the other
//! labels from fixed lists here, never from request data.
use crate::connection_limits::Refused;
use crate::timeouts::Stage;
use metrics::{Counter, Gauge, Histogram};
use metrics_exporter_prometheus::{BuildError, Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

/// Latency buckets in seconds: inspection is expected in the tens of microseconds, upstream round trips in
/// milliseconds to seconds.
const BUCKETS: [f64; 14] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0,
    5.0,
];

pub struct Metrics {
    handle: PrometheusHandle,
    pub requests: Counter,
    pub blocked: Counter,
    pub observed: Counter,
    pub rules_loaded: Gauge,
    pub rule_file_errors: Gauge,
    pub request_seconds: Histogram,
    pub inspection_seconds: Histogram,
    pub rate_limited: Counter,
    /// Requests the rate limiter could not ask Redis about (down or slow).
    pub rate_limit_backend_errors: Counter,
    /// Requests not limited per address because the in-process limiter's table was full.
    pub rate_limit_table_full: Counter,
    pub tls_handshakes: Counter,
    /// The response phase: answers withheld by the response rules (502), answers inspected by their head only
    /// and with their body, and the time their evaluation took.
    pub response_blocked: Counter,
    pub responses_head_inspected: Counter,
    pub responses_body_inspected: Counter,
    pub response_inspection_seconds: Histogram,
    /// `waf_connection_timeouts_total` of each stage, in `Stage::ALL`'s order: a crowd of slow clients is cut
    /// off by thousands a second, and a labelled counter found by name costs a hash and a lock each time.
    connection_timeouts: [Counter; Stage::ALL.len()],
    /// `waf_rejected_total` of each reason, in `Rejection::ALL`'s order, for the same reason (each slow client
    /// whose head is cut off is answered 408 and counted here too).
    rejections: [Counter; Rejection::ALL.len()],
}

/// Why a request was refused before reaching the rules.
#[derive(Clone, Copy)]
pub enum Rejection {
    Malformed,
    /// Request line over `server.limits` (414).
    TargetTooLong,
    /// Header line, head or header count over `server.limits` (431).
    HeadTooLarge,
    BodyTooLarge,
    BodyTimeout,
    /// A head not complete within `server.header_read_timeout_sec` of its first byte (408).
    HeadTimeout,
}

impl Rejection {
    /// Every reason, in the order declared (`Metrics` finds a reason's counter at `why as usize`).
    const ALL: [Rejection; 6] = [
        Rejection::Malformed,
        Rejection::TargetTooLong,
        Rejection::HeadTooLarge,
        Rejection::BodyTooLarge,
        Rejection::BodyTimeout,
        Rejection::HeadTimeout,
    ];

    fn name(self) -> &'static str {
        match self {
            Rejection::Malformed => "malformed",
            Rejection::TargetTooLong => "target_too_long",
            Rejection::HeadTooLarge => "head_too_large",
            Rejection::BodyTooLarge => "body_too_large",
            Rejection::BodyTimeout => "body_timeout",
            Rejection::HeadTimeout => "head_timeout",
        }
    }
}

/// What went wrong talking to the upstream.
#[derive(Clone, Copy, Debug)]
pub enum UpstreamFailure {
    Unavailable,
    Timeout,
    /// Not the upstream's doing: the client's body, streamed to it, stopped arriving (`server.body_read_timeout_sec`);
    /// answered 408 and counted as a rejection (`body_timeout`), not an upstream error.
    ClientBody,
}

/// What was reloaded.
#[derive(Clone, Copy)]
pub enum Reloaded {
    Rules,
    Config,
    /// The traffic controls' files (IP lists, GeoIP database).
    Traffic,
}

impl Reloaded {
    pub fn name(self) -> &'static str {
        match self {
            Reloaded::Rules => "rules",
            Reloaded::Config => "config",
            Reloaded::Traffic => "traffic",
        }
    }
}

impl Metrics {
    /// Installs the process-wide recorder (once) and registers the series.
    pub fn install() -> Result<&'static Metrics, BuildError> {
        static METRICS: OnceLock<Metrics> = OnceLock::new();
        // One install at a time: two callers at once (unit tests on parallel threads) both found it missing and
        // the second failed to set the global recorder.
        static INSTALLING: Mutex<()> = Mutex::new(());
        let _one_at_a_time = INSTALLING.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(m) = METRICS.get() {
            return Ok(m);
        }
        let handle = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &BUCKETS)?
            .install_recorder()?;
        let metrics = Metrics {
            handle,
            requests: metrics::counter!("waf_requests_total"),
            blocked: metrics::counter!("waf_blocked_total"),
            observed: metrics::counter!("waf_observed_total"),
            rules_loaded: metrics::gauge!("waf_rules_loaded"),
            rule_file_errors: metrics::gauge!("waf_rule_file_errors"),
            request_seconds: metrics::histogram!("waf_request_duration_seconds"),
            inspection_seconds: metrics::histogram!("waf_inspection_duration_seconds"),
            rate_limited: metrics::counter!("waf_rate_limited_total"),
            rate_limit_backend_errors: metrics::counter!("waf_rate_limit_backend_errors_total"),
            rate_limit_table_full: metrics::counter!("waf_rate_limit_table_full_total"),
            tls_handshakes: metrics::counter!("waf_tls_handshakes_total"),
            response_blocked: metrics::counter!("waf_response_blocked_total"),
            responses_head_inspected: metrics::counter!("waf_responses_inspected_total", "part" => "head"),
            responses_body_inspected: metrics::counter!("waf_responses_inspected_total", "part" => "body"),
            response_inspection_seconds: metrics::histogram!(
                "waf_response_inspection_duration_seconds"
            ),
            connection_timeouts: Stage::ALL.map(
                |stage| metrics::counter!("waf_connection_timeouts_total", "stage" => stage.name()),
            ),
            rejections: Rejection::ALL
                .map(|why| metrics::counter!("waf_rejected_total", "reason" => why.name())),
        };
        // Series exist from the start, so a scrape shows zeros rather than nothing.
        for limit in Refused::ALL {
            metrics::counter!("waf_connections_refused_total", "limit" => limit.name()).absolute(0);
        }
        for counter in metrics
            .connection_timeouts
            .iter()
            .chain(&metrics.rejections)
        {
            counter.absolute(0);
        }
        for reason in ["ip_denied", "ip_not_allowed"] {
            metrics::counter!("waf_ip_blocked_total", "reason" => reason).absolute(0);
        }
        for kind in ["unavailable", "timeout"] {
            metrics::counter!("waf_upstream_errors_total", "kind" => kind).absolute(0);
        }
        for what in ["rules", "config", "traffic"] {
            metrics::counter!("waf_reloads_total", "what" => what).absolute(0);
            metrics::counter!("waf_reload_failures_total", "what" => what).absolute(0);
        }
        for reason in ["error", "timeout"] {
            metrics::counter!("waf_tls_handshake_failures_total", "reason" => reason).absolute(0);
        }
        metrics::counter!("waf_tls_certificate_load_failures_total").absolute(0);
        metrics::counter!("waf_acme_orders_total").absolute(0);
        metrics::counter!("waf_acme_order_failures_total").absolute(0);
        Ok(METRICS.get_or_init(|| metrics))
    }

    pub fn render(&self) -> String {
        self.handle.render()
    }

    /// Histograms are drained into their buckets by upkeep; run it periodically.
    pub fn spawn_upkeep(&'static self) {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            loop {
                tick.tick().await;
                self.handle.run_upkeep();
            }
        });
    }

    pub fn rule_matched(&self, rule_id: u64) {
        metrics::counter!("waf_rule_matches_total", "rule_id" => rule_id.to_string()).increment(1);
    }

    pub fn rejected(&self, why: Rejection) {
        self.rejections[why as usize].increment(1);
    }

    /// A client connection closed (or answered 408) for waiting too long at `stage` (`timeouts.rs`).
    pub fn connection_timed_out(&self, stage: Stage) {
        self.connection_timeouts[stage as usize].increment(1);
    }

    /// A client connection closed at accept for being over `limit` (`connection_limits.rs`).
    pub fn connection_refused(&self, limit: Refused) {
        metrics::counter!("waf_connections_refused_total", "limit" => limit.name()).increment(1);
    }

    /// `reason`: `ip_denied` or `ip_not_allowed`.
    pub fn ip_blocked(&self, reason: &'static str) {
        metrics::counter!("waf_ip_blocked_total", "reason" => reason).increment(1);
    }

    /// `country`: a two-letter code (see `traffic/geoip.rs`: nothing else becomes a label) or `unknown`.
    pub fn geo_blocked(&self, country: &str) {
        metrics::counter!("waf_geo_blocked_total", "country" => country.to_string()).increment(1);
    }

    pub fn upstream_failed(&self, failure: UpstreamFailure) {
        let kind = match failure {
            UpstreamFailure::Unavailable => "unavailable",
            UpstreamFailure::Timeout => "timeout",
            UpstreamFailure::ClientBody => "client_body",
        };
        metrics::counter!("waf_upstream_errors_total", "kind" => kind).increment(1);
    }

    pub fn reloaded(&self, what: Reloaded, ok: bool) {
        let name = if ok {
            "waf_reloads_total"
        } else {
            "waf_reload_failures_total"
        };
        metrics::counter!(name, "what" => what.name()).increment(1);
    }

    /// `reason` is one of the fixed values registered in `install`.
    pub fn tls_handshake_failed(&self, reason: &'static str) {
        metrics::counter!("waf_tls_handshake_failures_total", "reason" => reason).increment(1);
    }

    /// A certificate now served for `domain` (a configured name, or `(global)`), expiring at `not_after` (Unix
    /// seconds).
    pub fn certificate_loaded(&self, domain: &str, not_after: i64) {
        metrics::gauge!("waf_tls_certificate_not_after_seconds", "domain" => domain.to_string())
            .set(not_after as f64);
    }

    pub fn certificate_load_failed(&self) {
        metrics::counter!("waf_tls_certificate_load_failures_total").increment(1);
    }

    /// An ACME order started (a first certificate or a renewal).
    pub fn acme_order(&self) {
        metrics::counter!("waf_acme_orders_total").increment(1);
    }

    /// An ACME order that brought no certificate; it is retried.
    pub fn acme_order_failed(&self) {
        metrics::counter!("waf_acme_order_failures_total").increment(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_are_listed_in_declaration_order() {
        for (i, why) in Rejection::ALL.into_iter().enumerate() {
            assert_eq!(why as usize, i, "{}", why.name());
        }
    }
}
