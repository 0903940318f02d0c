//! What every handler shares, built once at start.

use std::sync::Arc;

use metrics_exporter_prometheus::PrometheusHandle;

use crate::asset_cookie::AssetCookies;
use crate::cache::RowCache;
use crate::config::Config;
use crate::events::LoginEvents;
use crate::http_client::HttpClient;
use crate::session::SessionCookies;
use crate::shared_counter::SharedCounter;
use crate::store::{Authority, Store};
use crate::throttle::{Limits, Throttle};
use crate::token_writer::TokenWriter;
use crate::tokens::TokenKeys;

/// Why the shared state could not be built at start.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// Hashing the dummy password (compared against when an account does not exist).
    #[error(transparent)]
    DummyDigest(#[from] crate::password::PasswordError),
    #[error(transparent)]
    DummyDigestTask(#[from] tokio::task::JoinError),
    /// `KVSTORE_URL` (the shared throttle counters and the login events).
    #[error(transparent)]
    KvStore(#[from] redis::RedisError),
    /// The token signing key (`JWT_SECRET`).
    #[error(transparent)]
    TokenKey(#[from] crate::tokens::TokenError),
    /// The HTTP client of the SSO providers (`SSO_PROVIDER_CA_FILE`).
    #[error(transparent)]
    HttpClient(#[from] crate::http_client::HttpError),
    /// The asset cookie key (`SECRET_KEY_BASE`).
    #[error(transparent)]
    AssetKey(#[from] hmac::digest::InvalidLength),
}

pub struct AppState {
    pub config: Config,
    pub store: Arc<dyn Store>,
    pub cookies: SessionCookies,
    /// The `verified` cookie the web server checks before serving assets.
    pub assets: AssetCookies,
    pub throttle: Arc<Throttle>,
    pub events: LoginEvents,
    pub metrics: PrometheusHandle,
    pub http: HttpClient,
    /// Keys that sign and verify access tokens.
    pub tokens: TokenKeys,
    /// Authorities by host.
    pub authorities: RowCache<Authority>,
    /// Writes the rows of issued access and refresh tokens, batched.
    pub token_rows: TokenWriter,
    /// Verified against for unknown users, so their sign-in costs what a known user's does.
    pub dummy_digest: Arc<str>,
    /// Issuers and keys of the external providers whose tokens the token exchange accepts.
    pub provider_keys: crate::provider_keys::ProviderKeys,
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
    ) -> Result<Arc<Self>, StateError> {
        if config.cookie_secret.is_none() {
            tracing::warn!(
                "COOKIE_SESSION_SECRET is unset: using a random key, so sessions end at restart and do not cross replicas"
            );
        }
        if config.secret_key_base.is_none() {
            tracing::warn!(
                "SECRET_KEY_BASE is unset: using a random key, so verified asset cookies end at restart and do not cross replicas"
            );
        }
        if config.production && config.registration_redirect_hosts.is_empty() {
            // The authorization endpoint asks no consent: a client registered with an https redirect URI of its
            // own could collect codes of signed-in users who follow a link to it.
            tracing::warn!(
                "REGISTRATION_REDIRECT_HOSTS is unset: dynamically registered clients may name any https redirect host"
            );
        }
        let cost = config.bcrypt_cost;
        let dummy_digest =
            tokio::task::spawn_blocking(move || crate::password::dummy_digest(cost)).await??;
        let shared = match config.kvstore_url.as_deref() {
            Some(url) => Some(SharedCounter::new(url)?),
            None => None,
        };
        let limits = Limits {
            signin_per_address: config.signin_per_address,
            signin_per_account: config.signin_per_account,
            registrations_per_hour: config.registration_per_hour,
        };
        let throttle = Arc::new(Throttle::new(limits, shared));
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
            assets: AssetCookies::new(config.secret_key_base.as_deref(), config.production)?,
            config,
            store,
            throttle,
            events,
            metrics,
            http,
            tokens,
            authorities: RowCache::default(),
            token_rows,
            dummy_digest: dummy_digest.into(),
            saml_replays: Default::default(),
            provider_keys: Default::default(),
        }))
    }
}
