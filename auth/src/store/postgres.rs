//! The store on the legacy PostgreSQL schema.
//!
//! Reads cast legacy column types into the shapes the shared row structs decode: arrays and `jsonb` through
//! `to_jsonb` (which also accepts a column that is already `jsonb`), times through `::timestamptz` (legacy
//! `timestamp` columns hold UTC, and the session time zone is pinned to UTC below), counters to `bigint`, and
//! nullable legacy flags through `COALESCE`.

use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::types::Json;

use super::{ApiKey, Authority, NewUser, OAuthApplication, Store, StoreFuture, StoreResult, User};

macro_rules! authority_columns {
    () => {
        "id, name, description, domain, login_url, logout_url, \
         COALESCE(to_jsonb(internals), '{}'::jsonb) AS internals, COALESCE(to_jsonb(config), '{}'::jsonb) AS config, \
         COALESCE(to_jsonb(email_domains), '[]'::jsonb) AS email_domains, updated_at::timestamptz AS updated_at"
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

impl Store for PgStore {
    fn migrate(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            sqlx::raw_sql(include_str!("postgres.sql"))
                .execute(&self.pool)
                .await?;
            Ok(())
        })
    }

    fn authority_by_domain<'a>(&'a self, domain: &'a str) -> StoreFuture<'a, Option<Authority>> {
        Box::pin(async move {
            Ok(sqlx::query_as(concat!(
                "SELECT ",
                authority_columns!(),
                " FROM authority WHERE lower(domain) = $1"
            ))
            .bind(domain)
            .fetch_optional(&self.pool)
            .await?)
        })
    }

    fn insert_authority<'a>(&'a self, a: &'a Authority) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            sqlx::query(
                "INSERT INTO authority (id, name, description, domain, login_url, logout_url, internals, config, \
                 email_domains) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(&a.id)
            .bind(&a.name)
            .bind(&a.description)
            .bind(&a.domain)
            .bind(&a.login_url)
            .bind(&a.logout_url)
            .bind(Json(&a.internals))
            .bind(Json(&a.config))
            // text[] here, JSON text in SQLite: the one binding that differs between the dialects.
            .bind(&a.email_domains)
            .execute(&self.pool)
            .await?;
            Ok(())
        })
    }

    fn user_by_email<'a>(
        &'a self,
        authority_id: &'a str,
        email: &'a str,
    ) -> StoreFuture<'a, Option<User>> {
        Box::pin(async move {
            Ok(sqlx::query_as(concat!(
                "SELECT ",
                user_columns!(),
                " FROM \"user\" WHERE authority_id = $1 AND lower(email) = lower($2) \
                  ORDER BY COALESCE(deleted, false) LIMIT 1"
            ))
            .bind(authority_id)
            .bind(email)
            .fetch_optional(&self.pool)
            .await?)
        })
    }

    fn user_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<User>> {
        Box::pin(async move {
            Ok(sqlx::query_as(concat!(
                "SELECT ",
                user_columns!(),
                " FROM \"user\" WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
        })
    }

    fn api_key_by_id<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ApiKey>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
                "SELECT id, name, COALESCE(to_jsonb(scopes), '[]'::jsonb) AS scopes, secret, user_id, authority_id, \
                 expires_at::timestamptz AS expires_at FROM api_key WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
        })
    }

    portable_writes!();
}
