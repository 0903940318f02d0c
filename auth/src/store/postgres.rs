//! The store on the legacy PostgreSQL schema.
//!
//! Reads cast legacy column types into the shapes the shared row structs decode: arrays and `jsonb` through
//! `to_jsonb` (which also accepts a column that is already `jsonb`), times through `::timestamptz` (legacy
//! `timestamp` columns hold UTC, and the session time zone is pinned to UTC below), counters to `bigint`, and
//! nullable legacy flags through `COALESCE`.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

use super::{
    ApiKey, Authority, Dialect, NewUser, OAuthApplication, OAuthStrategy, SamlStrategy, Store,
    StoreFuture, StoreResult, TokenRecord, TokenUser, User, UserAuthLookup,
};

macro_rules! oauth_strat_select {
    () => {
        "SELECT id, name, authority_id, client_id, client_secret, site, \
        COALESCE(authorize_url, '/oauth/authorize') AS authorize_url, COALESCE(token_url, '/oauth/token') AS token_url, \
        token_method, COALESCE(auth_scheme, 'request_body') AS auth_scheme, scope, raw_info_url, \
        COALESCE(info_mappings::jsonb, '{}'::jsonb) AS info_mappings, \
        COALESCE(authorize_params::jsonb, '{}'::jsonb) AS authorize_params, \
        COALESCE(ensure_matching::jsonb, '{}'::jsonb) AS ensure_matching FROM oauth_strat"
    };
}

macro_rules! user_columns {
    () => {
        "id, authority_id, name, email, password_digest, first_name, last_name, nickname, phone, \
         COALESCE(to_jsonb(groups), '[]'::jsonb) AS groups, COALESCE(sys_admin, false) AS sys_admin, \
         COALESCE(support, false) AS support, COALESCE(deleted, false) AS deleted, \
         logged_out_at::timestamptz AS logged_out_at, COALESCE(login_count, 0)::bigint AS login_count, \
         last_login::timestamptz AS last_login"
    };
}

const POSTGRES: Dialect = Dialect {
    schema: || include_str!("postgres.sql").to_string(),
    authority_by_domain: "SELECT id, name, description, domain, login_url, logout_url, \
        COALESCE(to_jsonb(internals), '{}'::jsonb) AS internals, COALESCE(to_jsonb(config), '{}'::jsonb) AS config, \
        COALESCE(to_jsonb(email_domains), '[]'::jsonb) AS email_domains, updated_at::timestamptz AS updated_at \
        FROM authority WHERE lower(domain) = $1",
    // email_domains arrive as a JSON array, like SQLite's; text[] is built here.
    insert_authority: "INSERT INTO authority (id, name, description, domain, login_url, logout_url, internals, config, \
        email_domains) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ARRAY(SELECT jsonb_array_elements_text($9)))",
    user_by_email: concat!(
        "SELECT ",
        user_columns!(),
        " FROM \"user\" WHERE authority_id = $1 AND lower(email) = lower($2) ORDER BY COALESCE(deleted, false) LIMIT 1"
    ),
    user_by_id: concat!("SELECT ", user_columns!(), " FROM \"user\" WHERE id = $1"),
    token_user: concat!(
        "SELECT ",
        user_columns!(),
        ", EXISTS (SELECT 1 FROM oauth_tokens WHERE jti = $1 AND revoked_at IS NOT NULL) AS token_revoked \
         FROM \"user\" WHERE id = $2"
    ),
    api_key_by_id: "SELECT id, name, COALESCE(to_jsonb(scopes), '[]'::jsonb) AS scopes, secret, user_id, authority_id, \
        expires_at::timestamptz AS expires_at FROM api_key WHERE id = $1",
    token_by_jti: "SELECT id, jti, token_type, client_id, sub, scope, issued_at::timestamptz AS issued_at, \
        expires_at::timestamptz AS expires_at, revoked_at::timestamptz AS revoked_at, family, \
        used_at::timestamptz AS used_at, redirect_uri, code_challenge, nonce FROM oauth_tokens WHERE jti = $1",
    // Legacy rows may hold these as json or text columns: cast to jsonb, NULL as empty.
    oauth_strategy_by_id: concat!(oauth_strat_select!(), " WHERE id = $1"),
    oauth_strategies_of_authority: concat!(
        oauth_strat_select!(),
        " WHERE authority_id = $1 ORDER BY id"
    ),
    saml_strategy_by_id: "SELECT id, name, authority_id, issuer, idp_sso_target_url, \
        COALESCE(idp_sso_target_url_runtime_params::jsonb, '{}'::jsonb) AS idp_sso_target_url_runtime_params, \
        assertion_consumer_service_url, name_identifier_format, uid_attribute, idp_cert, idp_cert_fingerprint, \
        COALESCE(attribute_statements::jsonb, '{}'::jsonb) AS attribute_statements, idp_slo_target_url, \
        slo_default_relay_state FROM adfs_strat WHERE id = $1",
};

pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    pub async fn connect(
        host: &str,
        port: u16,
        user: &str,
        password: Option<&str>,
        database: &str,
    ) -> StoreResult<Self> {
        let mut options = PgConnectOptions::new()
            .host(host)
            .port(port)
            .username(user)
            .database(database)
            .options([("TimeZone", "UTC")]);
        if let Some(password) = password {
            options = options.password(password);
        }
        // A bounded pool and acquire timeout: a stalled database turns into quick 500s, not a pile of waiting requests.
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(5))
            .connect_with(options)
            .await?;
        Ok(PgStore { pool })
    }
}

impl PgStore {
    fn token_writes(&self) -> &PgPool {
        &self.pool
    }
}

store_impl!(PgStore, POSTGRES);
