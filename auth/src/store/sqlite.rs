//! The embedded store: one SQLite file, created with its directory and migrated at start, so the service runs with
//! no database server. JSON and arrays live as JSON text, booleans as integers, times as RFC 3339 text.

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use sqlx::types::Json;

use super::{ApiKey, Authority, NewUser, OAuthApplication, Store, StoreError, StoreFuture, User};

macro_rules! user_columns {
    () => {
        "id, authority_id, name, email, password_digest, first_name, last_name, nickname, phone, groups, sys_admin, \
         support, deleted, logged_out_at, login_count, last_login"
    };
}

pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
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
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await?;
        Ok(SqliteStore { pool })
    }
}

impl Store for SqliteStore {
    fn migrate(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            sqlx::raw_sql(include_str!("sqlite.sql"))
                .execute(&self.pool)
                .await?;
            Ok(())
        })
    }

    fn authority_by_domain<'a>(&'a self, domain: &'a str) -> StoreFuture<'a, Option<Authority>> {
        Box::pin(async move {
            Ok(sqlx::query_as(
                "SELECT id, name, description, domain, login_url, logout_url, internals, config, email_domains, \
                 updated_at FROM authority WHERE lower(domain) = $1",
            )
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
            .bind(Json(&a.email_domains))
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
                " FROM \"user\" WHERE authority_id = $1 AND lower(email) = lower($2) ORDER BY deleted LIMIT 1"
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
                "SELECT id, name, scopes, secret, user_id, authority_id, expires_at FROM api_key WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(&self.pool)
            .await?)
        })
    }

    portable_writes!();
}
