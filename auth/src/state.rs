//! What every handler shares, built once at start.

use std::sync::Arc;

use metrics_exporter_prometheus::PrometheusHandle;

use crate::cache::RowCache;
use crate::config::Config;
use crate::events::LoginEvents;
use crate::http_client::HttpClient;
use crate::session::SessionCookies;
use crate::store::{Authority, OAuthApplication, Store};
use crate::throttle::Throttle;
use crate::token_writer::TokenWriter;
use crate::tokens::TokenKeys;

pub struct AppState {
    pub config: Config,
    pub store: Arc<dyn Store>,
    pub cookies: SessionCookies,
    pub throttle: Arc<Throttle>,
    pub events: LoginEvents,
    pub metrics: PrometheusHandle,
    pub http: HttpClient,
    /// Keys that sign and verify access tokens.
    pub tokens: TokenKeys,
    /// Authorities by host.
    pub authorities: RowCache<Authority>,
    /// OAuth clients by client id: every token request authenticates one.
    pub clients: RowCache<OAuthApplication>,
    /// Writes the rows of issued access and refresh tokens, batched.
    pub token_rows: TokenWriter,
    /// Verified against for unknown users, so their sign-in costs what a known user's does.
    pub dummy_digest: Arc<str>,
    /// SAML assertion ids already consumed.
    pub saml_replays: crate::saml::replay::ReplayCache,
}

impl AppState {
    /// How long a session opened on `authority` lasts: its own `internals.session_timeout`, else the service's.
    pub fn session_minutes(&self, authority: &crate::store::Authority) -> u32 {
        authority
            .session_timeout_minutes()
            .unwrap_or(self.config.session_timeout_minutes)
    }

    /// Starts the background parts (event publisher, throttle cleanup); call inside the runtime.
    pub async fn new(
        config: Config,
        store: Arc<dyn Store>,
        metrics: PrometheusHandle,
    ) -> anyhow::Result<Arc<Self>> {
        if config.cookie_secret.is_none() {
            tracing::warn!(
                "COOKIE_SESSION_SECRET is unset: using a random key, so sessions end at restart and do not cross replicas"
            );
        }
        let cost = config.bcrypt_cost;
        let dummy_digest =
            tokio::task::spawn_blocking(move || crate::password::dummy_digest(cost)).await??;
        let throttle = Arc::new(Throttle::new(
            config.signin_per_address,
            config.signin_per_account,
        ));
        throttle.spawn_cleanup();
        let tokens = TokenKeys::from_pem(&config.jwt_key_pem)?;
        tracing::info!(kid = tokens.kid(), "token signing key loaded");
        let events = LoginEvents::start(
            config.kvstore_url.as_deref(),
            config.login_events_channel.clone(),
        )?;
        let token_rows = TokenWriter::start(store.clone());
        let http = crate::http_client::new(config.sso_provider_ca_file.as_deref())?;
        Ok(Arc::new(AppState {
            cookies: SessionCookies::new(config.cookie_secret.as_deref(), config.production),
            config,
            store,
            throttle,
            events,
            metrics,
            http,
            tokens,
            authorities: RowCache::default(),
            clients: RowCache::default(),
            token_rows,
            dummy_digest: dummy_digest.into(),
            saml_replays: Default::default(),
        }))
    }
}
