//! Login events: `PUBLISH LOGIN_EVENTS_CHANNEL {"user_id":..,"provider":..}` on the Redis at `KVSTORE_URL`.
//!
//! A login must never wait for, nor fail because of, Redis. The handler only `try_send`s the event into a bounded
//! queue; one background task publishes, with a timeout on connecting and on every command, and reconnects after a
//! failure. When Redis is down the queue fills and further events are dropped (counted), never buffered without
//! bound. Failures are logged and counted in `auth_login_events_total{result}`.

use std::time::Duration;

use serde::Serialize;
use tokio::sync::mpsc;

use crate::metrics;

/// Events waiting for the publisher; beyond this, new events are dropped rather than held in memory.
const QUEUE_CAPACITY: usize = 1024;
/// Connecting and each PUBLISH give up after this, so a black-holed Redis costs a second per event, not a hang.
const REDIS_TIMEOUT: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Internal,
    #[serde(rename = "oauth2")]
    OAuth2,
    Saml,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Internal => "internal",
            Provider::OAuth2 => "oauth2",
            Provider::Saml => "saml",
        }
    }
}

#[derive(Debug, Serialize)]
struct LoginEvent {
    user_id: String,
    provider: Provider,
}

/// The handle handlers publish through.
#[derive(Clone)]
pub struct LoginEvents {
    queue: Option<mpsc::Sender<LoginEvent>>,
}

impl LoginEvents {
    /// Starts the publisher for `url` (already validated); without a URL, warns once and publishes nothing.
    pub fn start(url: Option<&str>, channel: String) -> Result<Self, redis::RedisError> {
        let Some(url) = url else {
            tracing::warn!("KVSTORE_URL is unset: login events will not be published");
            return Ok(LoginEvents { queue: None });
        };
        let client = redis::Client::open(url)?;
        let (tx, rx) = mpsc::channel(QUEUE_CAPACITY);
        tokio::spawn(publish_loop(client, channel, rx));
        Ok(LoginEvents { queue: Some(tx) })
    }

    /// Queues the event; never waits.
    pub fn publish(&self, user_id: &str, provider: Provider) {
        let Some(queue) = &self.queue else { return };
        if queue
            .try_send(LoginEvent {
                user_id: user_id.to_string(),
                provider,
            })
            .is_err()
        {
            metrics::login_event("dropped");
            tracing::warn!("login event queue full: event dropped");
        }
    }
}

async fn publish_loop(client: redis::Client, channel: String, mut rx: mpsc::Receiver<LoginEvent>) {
    let config = redis::AsyncConnectionConfig::new()
        .set_connection_timeout(Some(REDIS_TIMEOUT))
        .set_response_timeout(Some(REDIS_TIMEOUT));
    let mut connection = None;
    while let Some(event) = rx.recv().await {
        let payload = match serde_json::to_string(&event) {
            Ok(payload) => payload,
            Err(e) => {
                tracing::error!(error = %e, "login event not serialisable");
                continue;
            }
        };
        if connection.is_none() {
            match client
                .get_multiplexed_async_connection_with_config(&config)
                .await
            {
                Ok(c) => connection = Some(c),
                Err(e) => {
                    metrics::login_event("failed");
                    tracing::warn!(error = %e, "login event not published: cannot reach the KVSTORE_URL Redis");
                    continue;
                }
            }
        }
        let Some(conn) = connection.as_mut() else {
            continue;
        };
        let published: redis::RedisResult<i64> = redis::cmd("PUBLISH")
            .arg(&channel)
            .arg(&payload)
            .query_async(conn)
            .await;
        match published {
            Ok(_) => metrics::login_event("published"),
            Err(e) => {
                metrics::login_event("failed");
                tracing::warn!(error = %e, "login event not published");
                connection = None;
            }
        }
    }
}
