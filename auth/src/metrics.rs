//! Prometheus metrics, rendered at `/auth/metrics`.
//!
//! - `auth_logins_total{provider,outcome}`: sign-in attempts by outcome (`success`, `failure`, `throttled`).
//! - `auth_login_duration_seconds{provider}`: sign-in latency, bcrypt included.
//! - `auth_login_events_total{result}`: login events `published`, `failed` or `dropped`.
//! - `auth_http_requests_total{status}`: responses by status code.

use std::time::Duration;

use metrics_exporter_prometheus::{BuildError, PrometheusBuilder, PrometheusHandle};

/// Why the metrics recorder could not be installed.
#[derive(Debug, thiserror::Error)]
#[error("metrics: {0}")]
pub struct MetricsError(#[from] BuildError);

/// Installs the process-wide recorder; histograms are drained every few seconds for as long as the service runs.
pub fn install() -> Result<PrometheusHandle, MetricsError> {
    let handle = PrometheusBuilder::new()
        .set_buckets(&[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0])
        .and_then(|b| b.install_recorder())?;
    let upkeep = handle.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(5));
        loop {
            tick.tick().await;
            upkeep.run_upkeep();
        }
    });
    Ok(handle)
}

pub fn login(provider: &'static str, outcome: &'static str, elapsed: Duration) {
    metrics::counter!("auth_logins_total", "provider" => provider, "outcome" => outcome)
        .increment(1);
    metrics::histogram!("auth_login_duration_seconds", "provider" => provider)
        .record(elapsed.as_secs_f64());
}

pub fn login_event(result: &'static str) {
    metrics::counter!("auth_login_events_total", "result" => result).increment(1);
}

pub fn response(status: u16) {
    metrics::counter!("auth_http_requests_total", "status" => status.to_string()).increment(1);
}
