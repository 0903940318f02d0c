//! The data the service keeps, behind one interface with two implementations.
//!
//! `postgres` works against the legacy PostgreSQL schema exactly as it exists (text ids, the `"user"` table, `jsonb`
//! and `text[]` columns, possibly `timestamp` rather than `timestamptz`), so an existing database serves unchanged.
//! `sqlite` is the embedded default, so the service runs with no server at all. Both return the same row structs:
//! the PostgreSQL queries cast legacy column types into the portable shapes (JSON, `timestamptz`, `bigint`) the structs
//! decode, which keeps every mapping in one place.
//!
//! Schemas are created by idempotent `CREATE ... IF NOT EXISTS` scripts rather than a migration history table: the
//! legacy database must serve unchanged, and it has no history table to agree with.

/// The SQL a dialect speaks. Everything around it (bindings, decoding) is the same for both and lives once, in
/// [`store_impl!`]: SQLite accepts PostgreSQL's `$N` parameters, and the bound types map onto both schemas.
struct Dialect {
    /// The whole schema, idempotent.
    schema: fn() -> String,
    authority_by_domain: &'static str,
    insert_authority: &'static str,
    user_by_email: &'static str,
    user_by_id: &'static str,
    /// `user_by_id`'s columns for `$2`, plus `token_revoked`: whether the `oauth_tokens` row of jti `$1` is revoked.
    token_user: &'static str,
    api_key_by_id: &'static str,
    token_by_jti: &'static str,
    oauth_strategy_by_id: &'static str,
    oauth_strategies_of_authority: &'static str,
    saml_strategy_by_id: &'static str,
}

/// Implements [`Store`] for `$store` (which has a `pool`) with the SQL of `$dialect`.
macro_rules! store_impl {
    ($store:ty, $dialect:expr) => {
        impl Store for $store {
            fn migrate(&self) -> StoreFuture<'_, ()> {
                Box::pin(async move {
                    sqlx::raw_sql(sqlx::AssertSqlSafe(($dialect.schema)())).execute(&self.pool).await?;
                    Ok(())
                })
            }

            fn authority_by_domain<'a>(&'a self, domain: &'a str) -> StoreFuture<'a, Option<Authority>> {
                Box::pin(async move {
                    Ok(sqlx::query_as($dialect.authority_by_domain).bind(domain).fetch_optional(&self.pool).await?)
                })
            }

            fn insert_authority<'a>(&'a self, a: &'a Authority) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    sqlx::query($dialect.insert_authority)
                        .bind(&a.id)
                        .bind(&a.name)
                        .bind(&a.description)
                        .bind(&a.domain)
                        .bind(&a.login_url)
                        .bind(&a.logout_url)
                        .bind(sqlx::types::Json(&a.internals))
                        .bind(sqlx::types::Json(&a.config))
                        .bind(sqlx::types::Json(&a.email_domains))
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                })
            }

            fn user_by_email<'a>(&'a self, authority_id: &'a str, email: &'a str) -> StoreFuture<'a, Option<User>> {
                Box::pin(async move {
                    Ok(sqlx::query_as($dialect.user_by_email)
                        .bind(authority_id)
                        .bind(email)
                        .fetch_optional(&self.pool)
                        .await?)
                })
            }

            fn token_user<'a>(&'a self, jti: &'a str, user_id: &'a str) -> StoreFuture<'a, Option<TokenUser>> {
                Box::pin(async move {
                    Ok(sqlx::query_as($dialect.token_user).bind(jti).bind(user_id).fetch_optional(&self.pool).await?)
                })
            }

            fn user_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<User>> {
                Box::pin(async move { Ok(sqlx::query_as($dialect.user_by_id).bind(id).fetch_optional(&self.pool).await?) })
            }

            fn insert_user<'a>(&'a self, u: &'a NewUser) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    sqlx::query(
                        "INSERT INTO \"user\" (id, authority_id, name, email, password_digest, sys_admin, support) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    )
                    .bind(&u.id)
                    .bind(&u.authority_id)
                    .bind(&u.name)
                    .bind(&u.email)
                    .bind(&u.password_digest)
                    .bind(u.sys_admin)
                    .bind(u.support)
                    .execute(&self.pool)
                    .await?;
                    Ok(())
                })
            }

            fn record_login<'a>(&'a self, user_id: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    sqlx::query(
                        "UPDATE \"user\" SET login_count = COALESCE(login_count, 0) + 1, last_login = $2 WHERE id = $1",
                    )
                    .bind(user_id)
                    .bind(at)
                    .execute(&self.pool)
                    .await?;
                    Ok(())
                })
            }

            fn record_logout<'a>(&'a self, user_id: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    sqlx::query("UPDATE \"user\" SET logged_out_at = $2 WHERE id = $1")
                        .bind(user_id)
                        .bind(at)
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                })
            }

            fn api_key_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ApiKey>> {
                Box::pin(async move {
                    Ok(sqlx::query_as($dialect.api_key_by_id).bind(id).fetch_optional(&self.pool).await?)
                })
            }

            fn insert_api_key<'a>(&'a self, k: &'a ApiKey) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    sqlx::query(
                        "INSERT INTO api_key (id, name, scopes, secret, user_id, authority_id, expires_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    )
                    .bind(&k.id)
                    .bind(&k.name)
                    .bind(sqlx::types::Json(&k.scopes))
                    .bind(&k.secret)
                    .bind(&k.user_id)
                    .bind(&k.authority_id)
                    .bind(k.expires_at)
                    .execute(&self.pool)
                    .await?;
                    Ok(())
                })
            }

            fn insert_tokens<'a>(&'a self, tokens: &'a [TokenRecord]) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    if tokens.is_empty() {
                        return Ok(());
                    }
                    // One multi-row INSERT: atomic by itself, and one round trip to the database (SQLite's
                    // statements cross to its worker thread and back, each a pair of thread switches).
                    let mut insert = sqlx::QueryBuilder::new(
                        "INSERT INTO oauth_tokens (id, jti, token_type, client_id, sub, scope, issued_at, expires_at, \
                         revoked_at, family, redirect_uri, code_challenge, nonce) ",
                    );
                    insert.push_values(tokens, |mut row, t| {
                        row.push_bind(&t.id)
                            .push_bind(&t.jti)
                            .push_bind(&t.token_type)
                            .push_bind(&t.client_id)
                            .push_bind(&t.sub)
                            .push_bind(&t.scope)
                            .push_bind(t.issued_at)
                            .push_bind(t.expires_at)
                            .push_bind(t.revoked_at)
                            .push_bind(&t.family)
                            .push_bind(&t.redirect_uri)
                            .push_bind(&t.code_challenge)
                            .push_bind(&t.nonce);
                    });
                    insert.build().execute(self.token_writes()).await?;
                    Ok(())
                })
            }

            fn oauth_strategy_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<OAuthStrategy>> {
                Box::pin(async move {
                    Ok(sqlx::query_as($dialect.oauth_strategy_by_id).bind(id).fetch_optional(&self.pool).await?)
                })
            }

            fn oauth_strategies_of_authority<'a>(&'a self, authority_id: &'a str) -> StoreFuture<'a, Vec<OAuthStrategy>> {
                Box::pin(async move {
                    Ok(sqlx::query_as($dialect.oauth_strategies_of_authority)
                        .bind(authority_id)
                        .fetch_all(&self.pool)
                        .await?)
                })
            }

            fn insert_oauth_strategy<'a>(&'a self, s: &'a OAuthStrategy) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    sqlx::query(
                        "INSERT INTO oauth_strat (id, name, authority_id, client_id, client_secret, site, authorize_url, \
                         token_url, token_method, auth_scheme, scope, raw_info_url, info_mappings, authorize_params, \
                         ensure_matching) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
                    )
                    .bind(&s.id)
                    .bind(&s.name)
                    .bind(&s.authority_id)
                    .bind(&s.client_id)
                    .bind(&s.client_secret)
                    .bind(&s.site)
                    .bind(&s.authorize_url)
                    .bind(&s.token_url)
                    .bind(&s.token_method)
                    .bind(&s.auth_scheme)
                    .bind(&s.scope)
                    .bind(&s.raw_info_url)
                    .bind(sqlx::types::Json(&s.info_mappings))
                    .bind(sqlx::types::Json(&s.authorize_params))
                    .bind(sqlx::types::Json(&s.ensure_matching))
                    .execute(&self.pool)
                    .await?;
                    Ok(())
                })
            }

            fn saml_strategy_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SamlStrategy>> {
                Box::pin(async move {
                    Ok(sqlx::query_as($dialect.saml_strategy_by_id).bind(id).fetch_optional(&self.pool).await?)
                })
            }

            fn insert_saml_strategy<'a>(&'a self, s: &'a SamlStrategy) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    sqlx::query(
                        "INSERT INTO adfs_strat (id, name, authority_id, issuer, idp_sso_target_url, \
                         idp_sso_target_url_runtime_params, assertion_consumer_service_url, name_identifier_format, \
                         uid_attribute, idp_cert, idp_cert_fingerprint, attribute_statements, idp_slo_target_url, \
                         slo_default_relay_state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
                    )
                    .bind(&s.id)
                    .bind(&s.name)
                    .bind(&s.authority_id)
                    .bind(&s.issuer)
                    .bind(&s.idp_sso_target_url)
                    .bind(sqlx::types::Json(&s.idp_sso_target_url_runtime_params))
                    .bind(&s.assertion_consumer_service_url)
                    .bind(&s.name_identifier_format)
                    .bind(&s.uid_attribute)
                    .bind(&s.idp_cert)
                    .bind(&s.idp_cert_fingerprint)
                    .bind(sqlx::types::Json(&s.attribute_statements))
                    .bind(&s.idp_slo_target_url)
                    .bind(&s.slo_default_relay_state)
                    .execute(&self.pool)
                    .await?;
                    Ok(())
                })
            }

            fn user_auth_lookup<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<UserAuthLookup>> {
                Box::pin(async move {
                    Ok(sqlx::query_as(
                        "SELECT id, uid, provider, user_id, authority_id FROM authentication WHERE id = $1",
                    )
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
                })
            }

            fn insert_user_auth_lookup<'a>(&'a self, l: &'a UserAuthLookup) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    sqlx::query(
                        "INSERT INTO authentication (id, uid, provider, user_id, authority_id) VALUES ($1, $2, $3, $4, $5)",
                    )
                    .bind(&l.id)
                    .bind(&l.uid)
                    .bind(&l.provider)
                    .bind(&l.user_id)
                    .bind(&l.authority_id)
                    .execute(&self.pool)
                    .await?;
                    Ok(())
                })
            }

            fn token_by_jti<'a>(&'a self, jti: &'a str) -> StoreFuture<'a, Option<TokenRecord>> {
                Box::pin(async move {
                    Ok(sqlx::query_as($dialect.token_by_jti).bind(jti).fetch_optional(&self.pool).await?)
                })
            }

            fn revoke_token<'a>(&'a self, jti: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, bool> {
                Box::pin(async move {
                    let done = sqlx::query("UPDATE oauth_tokens SET revoked_at = $2 WHERE jti = $1 AND revoked_at IS NULL")
                        .bind(jti)
                        .bind(at)
                        .execute(&self.pool)
                        .await?;
                    Ok(done.rows_affected() > 0)
                })
            }

            fn use_token<'a>(&'a self, jti: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, bool> {
                Box::pin(async move {
                    let done = sqlx::query(
                        "UPDATE oauth_tokens SET used_at = $2 WHERE jti = $1 AND used_at IS NULL AND revoked_at IS NULL",
                    )
                    .bind(jti)
                    .bind(at)
                    .execute(&self.pool)
                    .await?;
                    Ok(done.rows_affected() > 0)
                })
            }

            fn revoke_family<'a>(&'a self, family: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, u64> {
                Box::pin(async move {
                    let done = sqlx::query(
                        "UPDATE oauth_tokens SET revoked_at = $2 WHERE family = $1 AND revoked_at IS NULL",
                    )
                    .bind(family)
                    .bind(at)
                    .execute(&self.pool)
                    .await?;
                    Ok(done.rows_affected())
                })
            }

            fn application_by_uid<'a>(&'a self, uid: &'a str) -> StoreFuture<'a, Option<OAuthApplication>> {
                Box::pin(async move {
                    // Legacy rows may hold NULL scopes or confidentiality; Doorkeeper's defaults apply.
                    Ok(sqlx::query_as(
                        "SELECT id, name, uid, secret, redirect_uri, COALESCE(scopes, '') AS scopes, \
                         COALESCE(confidential, true) AS confidential, owner_id FROM oauth_applications WHERE uid = $1",
                    )
                    .bind(uid)
                    .fetch_optional(&self.pool)
                    .await?)
                })
            }

            fn insert_application<'a>(&'a self, app: &'a OAuthApplication) -> StoreFuture<'a, ()> {
                Box::pin(async move {
                    sqlx::query(
                        "INSERT INTO oauth_applications (id, name, uid, secret, redirect_uri, scopes, confidential, \
                         owner_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                    )
                    .bind(&app.id)
                    .bind(&app.name)
                    .bind(&app.uid)
                    .bind(&app.secret)
                    .bind(&app.redirect_uri)
                    .bind(&app.scopes)
                    .bind(app.confidential)
                    .bind(&app.owner_id)
                    .execute(&self.pool)
                    .await?;
                    Ok(())
                })
            }
        }
    };
}

mod postgres;
mod sqlite;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;

use crate::config::StoreConfig;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("{0}")]
    Setup(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A tenant: every request belongs to the authority whose `domain` is the request's host.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Authority {
    pub id: String,
    pub name: String,
    pub description: Option<String>,
    pub domain: String,
    pub login_url: Option<String>,
    pub logout_url: Option<String>,
    /// Settings never shown to clients (e.g. `session_timeout` in minutes).
    #[sqlx(json)]
    pub internals: Value,
    #[sqlx(json)]
    pub config: Value,
    #[sqlx(json)]
    pub email_domains: Vec<String>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl Authority {
    /// The authority's own session lifetime, when `internals.session_timeout` holds a positive number of minutes
    /// (legacy rows hold it as a number or as a string).
    pub fn session_timeout_minutes(&self) -> Option<u32> {
        match self.internals.get("session_timeout")? {
            Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
        .filter(|&n| n > 0)
    }
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct User {
    pub id: String,
    pub authority_id: String,
    pub name: Option<String>,
    pub email: String,
    pub password_digest: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub nickname: Option<String>,
    pub phone: Option<String>,
    #[sqlx(json)]
    pub groups: Vec<String>,
    pub sys_admin: bool,
    pub support: bool,
    pub deleted: bool,
    pub logged_out_at: Option<DateTime<Utc>>,
    pub login_count: i64,
    pub last_login: Option<DateTime<Utc>>,
}

/// What `auth user add` creates, or an external login creates inline (without a password).
#[derive(Clone, Debug)]
pub struct NewUser {
    pub id: String,
    pub authority_id: String,
    pub name: Option<String>,
    pub email: String,
    pub password_digest: Option<String>,
    pub sys_admin: bool,
    pub support: bool,
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ApiKey {
    /// 32 hex digits.
    pub id: String,
    pub name: Option<String>,
    #[sqlx(json)]
    pub scopes: Value,
    /// Hex HMAC-SHA512 keyed with the key's secret over its id; the secret itself is never stored.
    pub secret: String,
    pub user_id: Option<String>,
    pub authority_id: String,
    pub expires_at: Option<DateTime<Utc>>,
}

/// An OAuth 2.0 client registered with this authorization server (`oauth_applications`).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct OAuthApplication {
    pub id: String,
    pub name: String,
    /// The `client_id`.
    pub uid: String,
    /// The client secret as issued (the legacy table stores it so).
    pub secret: String,
    /// Whitespace-separated; a redirect URI must equal one of them exactly.
    pub redirect_uri: String,
    pub scopes: String,
    pub confidential: bool,
    /// The authority owning the client.
    pub owner_id: Option<String>,
}

/// An OAuth 2.0 provider an authority's users sign in with (`oauth_strat`); see `oauth_client`.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct OAuthStrategy {
    pub id: String,
    pub name: String,
    pub authority_id: String,
    pub client_id: String,
    pub client_secret: String,
    /// Base URL the relative endpoint paths join.
    pub site: Option<String>,
    pub authorize_url: String,
    pub token_url: String,
    /// `post` (default) or `get`.
    pub token_method: Option<String>,
    /// `request_body` or `basic_auth`: where the client credentials go on the token request.
    pub auth_scheme: String,
    pub scope: Option<String>,
    pub raw_info_url: Option<String>,
    /// Our field → `"path[,fallback]"` in the provider's profile.
    #[sqlx(json)]
    pub info_mappings: Value,
    /// Extra parameters of the authorization request.
    #[sqlx(json)]
    pub authorize_params: Value,
    /// Field → regexes; one must match (case-insensitively) or the login fails.
    #[sqlx(json)]
    pub ensure_matching: Value,
}

/// A SAML identity provider an authority's users sign in with (`adfs_strat`, named after the legacy service's first
/// provider, ADFS); see `saml`.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SamlStrategy {
    pub id: String,
    pub name: String,
    pub authority_id: String,
    /// Our entity id as this identity provider knows it: the AuthnRequest's issuer and the audience we accept.
    pub issuer: Option<String>,
    /// Where AuthnRequests go (HTTP-Redirect binding).
    pub idp_sso_target_url: Option<String>,
    /// Our start request's parameter → the identity provider's: copied onto the AuthnRequest URL when present.
    #[sqlx(json)]
    pub idp_sso_target_url_runtime_params: Value,
    /// The assertion consumer service URL; unset: `<scheme>://<host>/auth/saml/callback/<id>`.
    pub assertion_consumer_service_url: Option<String>,
    pub name_identifier_format: Option<String>,
    /// The attribute holding the user's uid; unset: the NameID.
    pub uid_attribute: Option<String>,
    /// The identity provider's signing certificate (PEM, or the base64 of its DER).
    pub idp_cert: Option<String>,
    /// Or its SHA-1 or SHA-256 fingerprint (hex, colons allowed): the certificate then comes with the response.
    pub idp_cert_fingerprint: Option<String>,
    /// Our field → the attribute names that carry it (a list, or one name).
    #[sqlx(json)]
    pub attribute_statements: Value,
    pub idp_slo_target_url: Option<String>,
    pub slo_default_relay_state: Option<String>,
}

/// A link from an external identity to a user (`authentication`, the legacy UserAuthLookup).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct UserAuthLookup {
    /// `auth-<authority_id>-<provider>-<uid>`.
    pub id: String,
    pub uid: String,
    pub provider: String,
    pub user_id: String,
    pub authority_id: String,
}

impl UserAuthLookup {
    pub fn id_for(authority_id: &str, provider: &str, uid: &str) -> String {
        format!("auth-{authority_id}-{provider}-{uid}")
    }
}

/// What a [`Store`] method returns: a boxed future, so the trait stays usable as `dyn Store`.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = StoreResult<T>> + Send + 'a>>;

/// A row of `oauth_tokens`: an issued token (by `jti`), its use and its revocation.
#[derive(Clone, Debug, Default, sqlx::FromRow)]
pub struct TokenRecord {
    pub id: String,
    pub jti: String,
    /// `access`, `refresh` or `code`.
    pub token_type: String,
    pub client_id: Option<String>,
    pub sub: Option<String>,
    pub scope: Option<String>,
    pub issued_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// The jti of the authorization code the token descends from.
    pub family: Option<String>,
    /// When a code was redeemed or a refresh token rotated.
    pub used_at: Option<DateTime<Utc>>,
    /// A code's redirect URI.
    pub redirect_uri: Option<String>,
    /// A code's PKCE S256 challenge, unpadded base64url.
    pub code_challenge: Option<String>,
    /// A code's OpenID Connect nonce.
    pub nonce: Option<String>,
}

/// The user a Bearer token names, and whether the token's row is revoked.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TokenUser {
    #[sqlx(flatten)]
    pub user: User,
    pub token_revoked: bool,
}

pub trait Store: Send + Sync {
    /// Creates every table of the legacy schema that does not exist yet.
    fn migrate(&self) -> StoreFuture<'_, ()>;
    fn authority_by_domain<'a>(&'a self, domain: &'a str) -> StoreFuture<'a, Option<Authority>>;
    fn insert_authority<'a>(&'a self, authority: &'a Authority) -> StoreFuture<'a, ()>;
    /// The user of `authority_id` with this email, compared case-insensitively; deleted users included.
    fn user_by_email<'a>(
        &'a self,
        authority_id: &'a str,
        email: &'a str,
    ) -> StoreFuture<'a, Option<User>>;
    fn user_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<User>>;
    /// A user token's checks in one query: the user `user_id` and whether the token `jti` is revoked.
    fn token_user<'a>(
        &'a self,
        jti: &'a str,
        user_id: &'a str,
    ) -> StoreFuture<'a, Option<TokenUser>>;
    fn insert_user<'a>(&'a self, user: &'a NewUser) -> StoreFuture<'a, ()>;
    /// `login_count += 1`, `last_login = at`.
    fn record_login<'a>(&'a self, user_id: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, ()>;
    /// Stamps `logged_out_at`, which invalidates every session and token issued before it.
    fn record_logout<'a>(&'a self, user_id: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, ()>;
    fn api_key_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ApiKey>>;
    fn insert_api_key<'a>(&'a self, key: &'a ApiKey) -> StoreFuture<'a, ()>;
    fn insert_application<'a>(&'a self, app: &'a OAuthApplication) -> StoreFuture<'a, ()>;
    /// The client whose `client_id` is `uid`.
    fn application_by_uid<'a>(&'a self, uid: &'a str) -> StoreFuture<'a, Option<OAuthApplication>>;
    /// Inserts `tokens` in one statement: all or none.
    fn insert_tokens<'a>(&'a self, tokens: &'a [TokenRecord]) -> StoreFuture<'a, ()>;
    fn insert_token<'a>(&'a self, token: &'a TokenRecord) -> StoreFuture<'a, ()> {
        self.insert_tokens(std::slice::from_ref(token))
    }
    fn token_by_jti<'a>(&'a self, jti: &'a str) -> StoreFuture<'a, Option<TokenRecord>>;
    fn oauth_strategy_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<OAuthStrategy>>;
    /// Every OAuth 2.0 strategy of an authority (the external issuers its token exchange trusts).
    fn oauth_strategies_of_authority<'a>(
        &'a self,
        authority_id: &'a str,
    ) -> StoreFuture<'a, Vec<OAuthStrategy>>;
    fn insert_oauth_strategy<'a>(&'a self, strategy: &'a OAuthStrategy) -> StoreFuture<'a, ()>;
    fn saml_strategy_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SamlStrategy>>;
    fn insert_saml_strategy<'a>(&'a self, strategy: &'a SamlStrategy) -> StoreFuture<'a, ()>;
    fn user_auth_lookup<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<UserAuthLookup>>;
    fn insert_user_auth_lookup<'a>(&'a self, lookup: &'a UserAuthLookup) -> StoreFuture<'a, ()>;
    /// Stamps `revoked_at` unless already revoked; whether this call revoked it.
    fn revoke_token<'a>(&'a self, jti: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, bool>;
    /// Stamps `used_at` unless already used or revoked; whether this call did (a code's single use is this).
    fn use_token<'a>(&'a self, jti: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, bool>;
    /// Revokes every unrevoked token of `family`; how many.
    fn revoke_family<'a>(&'a self, family: &'a str, at: DateTime<Utc>) -> StoreFuture<'a, u64>;
}

/// Opens the configured store. SQLite files (and their directory) are created and migrated here; PostgreSQL is
/// migrated only by `auth migrate`, so a legacy database is never altered by a start.
pub async fn open(config: &StoreConfig) -> StoreResult<Arc<dyn Store>> {
    Ok(match config {
        StoreConfig::Postgres {
            host,
            port,
            user,
            password,
            database,
        } => Arc::new(
            postgres::PgStore::connect(host, *port, user, password.as_deref(), database).await?,
        ),
        StoreConfig::Sqlite { path } => {
            let store = sqlite::SqliteStore::open(path).await?;
            store.migrate().await?;
            Arc::new(store)
        }
    })
}
