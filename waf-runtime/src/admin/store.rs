//! The panel's SQLite database under `admin.data_dir`: admins, sign-in sessions and the audit log.
//!
//! Queries are written out here and nowhere else; every value goes through a bind parameter.
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::path::Path;
use std::time::Duration;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS admins (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    admin_id INTEGER NOT NULL REFERENCES admins(id),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    client TEXT NOT NULL,
    action TEXT NOT NULL,
    before TEXT,
    after TEXT
);
";

pub struct Store {
    pool: SqlitePool,
}

#[derive(sqlx::FromRow)]
pub struct Admin {
    pub id: i64,
    pub username: String,
    pub password_hash: String,
}

/// One audit entry; `before` and `after` are JSON documents (or absent for sign-ins).
#[derive(sqlx::FromRow, serde::Serialize, utoipa::ToSchema)]
pub struct AuditEntry {
    pub id: i64,
    /// Unix seconds.
    pub at: i64,
    pub actor: String,
    pub client: String,
    pub action: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// A session as the token check needs it.
#[derive(sqlx::FromRow)]
pub struct Session {
    pub admin_id: i64,
    pub username: String,
    pub expires_at: i64,
}

pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    pub async fn open(dir: &Path) -> Result<Store, sqlx::Error> {
        let options = SqliteConnectOptions::new()
            .filename(dir.join("admin.sqlite"))
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // A crash of the process loses nothing; a power cut may lose the last commits, never the integrity.
            .synchronous(SqliteSynchronous::Normal)
            // Writers queue instead of failing: two setups at once must both get an answer (one wins).
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        sqlx::raw_sql(SCHEMA).execute(&pool).await?;
        Ok(Store { pool })
    }

    pub async fn admin_count(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("SELECT COUNT(*) FROM admins")
            .fetch_one(&self.pool)
            .await
    }

    /// Creates the first admin, only while there is none: one statement, so of two setups racing, SQLite's
    /// write lock lets exactly one insert. Returns whether this call created it.
    pub async fn create_first_admin(
        &self,
        username: &str,
        hash: &str,
    ) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "INSERT INTO admins (username, password_hash, created_at)
             SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM admins)",
        )
        .bind(username)
        .bind(hash)
        .bind(now())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Adds another admin; `false` when the name is taken.
    pub async fn create_admin(&self, username: &str, hash: &str) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "INSERT INTO admins (username, password_hash, created_at) VALUES (?, ?, ?)
             ON CONFLICT (username) DO NOTHING",
        )
        .bind(username)
        .bind(hash)
        .bind(now())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn admin_by_name(&self, username: &str) -> Result<Option<Admin>, sqlx::Error> {
        sqlx::query_as("SELECT id, username, password_hash FROM admins WHERE username = ?")
            .bind(username)
            .fetch_optional(&self.pool)
            .await
    }

    pub async fn admin_by_id(&self, id: i64) -> Result<Option<Admin>, sqlx::Error> {
        sqlx::query_as("SELECT id, username, password_hash FROM admins WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
    }

    pub async fn admin_names(&self) -> Result<Vec<String>, sqlx::Error> {
        sqlx::query_scalar("SELECT username FROM admins ORDER BY id")
            .fetch_all(&self.pool)
            .await
    }

    /// Sets a new password and ends every session of that admin but `keep` (the one that changed it).
    pub async fn set_password(&self, id: i64, hash: &str, keep: &str) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE admins SET password_hash = ? WHERE id = ?")
            .bind(hash)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE sessions SET revoked = 1 WHERE admin_id = ? AND id <> ?")
            .bind(id)
            .bind(keep)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    pub async fn create_session(
        &self,
        id: &str,
        admin_id: i64,
        expires_at: i64,
    ) -> Result<(), sqlx::Error> {
        // Expired sessions are dropped as new ones arrive, so the table holds only live ones.
        sqlx::query("DELETE FROM sessions WHERE expires_at < ?")
            .bind(now())
            .execute(&self.pool)
            .await?;
        sqlx::query(
            "INSERT INTO sessions (id, admin_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
        )
        .bind(id)
        .bind(admin_id)
        .bind(now())
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The session when it exists, is not revoked and has not expired.
    pub async fn live_session(&self, id: &str) -> Result<Option<Session>, sqlx::Error> {
        sqlx::query_as(
            "SELECT s.admin_id, a.username, s.expires_at FROM sessions s JOIN admins a ON a.id = s.admin_id
             WHERE s.id = ? AND s.revoked = 0 AND s.expires_at >= ?",
        )
        .bind(id)
        .bind(now())
        .fetch_optional(&self.pool)
        .await
    }

    pub async fn revoke_session(&self, id: &str) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE sessions SET revoked = 1 WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn audit(
        &self,
        actor: &str,
        client: &str,
        action: &str,
        before: Option<&str>,
        after: Option<&str>,
    ) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO audit (at, actor, client, action, before, after) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(now())
        .bind(actor)
        .bind(client)
        .bind(action)
        .bind(before)
        .bind(after)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The newest `limit` entries, newest first.
    pub async fn recent_audit(&self, limit: i64) -> Result<Vec<AuditEntry>, sqlx::Error> {
        sqlx::query_as(
            "SELECT id, at, actor, client, action, before, after FROM audit ORDER BY id DESC LIMIT ?",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await
    }
}
