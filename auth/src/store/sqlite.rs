//! The embedded store: one SQLite file, created with its directory and migrated at start, so the service runs with
//! no database server. JSON and arrays live as JSON text, booleans as integers, times as RFC 3339 text; the schema
//! is the PostgreSQL one translated into those types, so the two cannot drift apart.

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use super::{
    ApiKey, Authority, Dialect, NewUser, OAuthApplication, OAuthStrategy, SamlStrategy, Store,
    StoreError, StoreFuture, TokenRecord, TokenUser, User, UserAuthLookup,
};

macro_rules! oauth_strat_select {
    () => {
        "SELECT id, name, authority_id, client_id, client_secret, site, authorize_url, token_url, \
        token_method, auth_scheme, scope, raw_info_url, info_mappings, authorize_params, ensure_matching \
        FROM oauth_strat"
    };
}

macro_rules! user_columns {
    () => {
        "id, authority_id, name, email, password_digest, first_name, last_name, nickname, phone, groups, sys_admin, \
         support, deleted, logged_out_at, login_count, last_login"
    };
}

const SQLITE: Dialect = Dialect {
    schema,
    authority_by_domain: "SELECT id, name, description, domain, login_url, logout_url, internals, config, \
        email_domains, updated_at FROM authority WHERE lower(domain) = $1",
    insert_authority: "INSERT INTO authority (id, name, description, domain, login_url, logout_url, internals, config, \
        email_domains) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    user_by_email: concat!(
        "SELECT ",
        user_columns!(),
        " FROM \"user\" WHERE authority_id = $1 AND lower(email) = lower($2) ORDER BY deleted LIMIT 1"
    ),
    user_by_id: concat!("SELECT ", user_columns!(), " FROM \"user\" WHERE id = $1"),
    token_user: concat!(
        "SELECT ",
        user_columns!(),
        ", EXISTS (SELECT 1 FROM oauth_tokens WHERE jti = $1 AND revoked_at IS NOT NULL) AS token_revoked \
         FROM \"user\" WHERE id = $2"
    ),
    api_key_by_id: "SELECT id, name, scopes, secret, user_id, authority_id, expires_at FROM api_key WHERE id = $1",
    token_by_jti: "SELECT id, jti, token_type, client_id, sub, scope, issued_at, expires_at, revoked_at, family, \
        used_at, redirect_uri, code_challenge, nonce FROM oauth_tokens WHERE jti = $1",
    oauth_strategy_by_id: concat!(oauth_strat_select!(), " WHERE id = $1"),
    oauth_strategies_of_authority: concat!(
        oauth_strat_select!(),
        " WHERE authority_id = $1 ORDER BY id"
    ),
    saml_strategy_by_id: "SELECT id, name, authority_id, issuer, idp_sso_target_url, idp_sso_target_url_runtime_params, \
        assertion_consumer_service_url, name_identifier_format, uid_attribute, idp_cert, idp_cert_fingerprint, \
        attribute_statements, idp_slo_target_url, slo_default_relay_state FROM adfs_strat WHERE id = $1",
};

/// The PostgreSQL schema in SQLite's types.
fn schema() -> String {
    [
        ("text[] NOT NULL DEFAULT '{}'", "text NOT NULL DEFAULT '[]'"),
        (" jsonb", " text"),
        ("timestamptz", "text"),
        (" boolean", " integer"),
        ("DEFAULT false", "DEFAULT 0"),
        ("DEFAULT true", "DEFAULT 1"),
        (
            "DEFAULT now()",
            "DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
        ),
    ]
    .iter()
    .fold(
        include_str!("postgres.sql").to_string(),
        |sql, (from, to)| sql.replace(from, to),
    )
}

pub struct SqliteStore {
    pool: SqlitePool,
    /// One connection of its own for the token rows, the hot write: SQLite runs one writer at a time anyway, and a
    /// connection that wrote last keeps its page cache, where the pool's connections in turn would each re-read
    /// the pages another one changed (measured: 6 % less CPU per issued token).
    token_writes: SqlitePool,
}

impl SqliteStore {
    fn token_writes(&self) -> &SqlitePool {
        &self.token_writes
    }

    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                StoreError::Setup(format!(
                    "cannot create the data directory {}: {e}",
                    dir.display()
                ))
            })?;
        }
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            // WAL lets readers proceed while a sign-in writes its login count; the busy timeout queues writers
            // instead of failing them.
            .journal_mode(SqliteJournalMode::Wal)
            // In WAL mode NORMAL syncs at checkpoints, not at every commit: a crash of the process loses nothing,
            // a power cut may lose the last commits (login counts, token rows), never the database's integrity.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options.clone())
            .await?;
        let token_writes = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await?;
        Ok(SqliteStore { pool, token_writes })
    }
}

store_impl!(SqliteStore, SQLITE);

#[cfg(test)]
mod tests {
    #[test]
    fn schema_has_no_postgres_types_left() {
        let schema = super::schema();
        let schema: Vec<&str> = schema.lines().filter(|l| !l.starts_with("--")).collect();
        let schema = schema.join("\n");
        for postgres_only in ["jsonb", "text[]", "timestamptz", "boolean", "now()"] {
            assert!(
                !schema.contains(postgres_only),
                "{postgres_only} left in the SQLite schema"
            );
        }
    }
}
