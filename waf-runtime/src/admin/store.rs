//! The panel's SQLite database under `admin.data_dir`: admins (with their role and second factor), sign-in
//! sessions, recovery codes, the panel's own settings and the audit log.
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
CREATE TABLE IF NOT EXISTS recovery_codes (
    admin_id INTEGER NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
    hash TEXT NOT NULL,
    PRIMARY KEY (admin_id, hash)
);
CREATE TABLE IF NOT EXISTS panel_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
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

/// Columns added to `admins` after its first version, with their definitions: added at open when missing, so a
/// database made by an earlier version keeps working (its admins get the `admin` role, no second factor).
const ADMIN_COLUMNS: [(&str, &str); 4] = [
    ("role", "TEXT NOT NULL DEFAULT 'admin'"),
    ("totp_secret", "TEXT"),
    ("totp_pending", "TEXT"),
    ("totp_last_step", "INTEGER"),
];

pub struct Store {
    pool: SqlitePool,
}

/// An admin as the Admins page lists them.
#[derive(sqlx::FromRow, serde::Serialize, utoipa::ToSchema)]
pub struct AdminInfo {
    pub username: String,
    /// admin or viewer
    pub role: String,
    /// Whether a second factor is set up.
    pub totp: bool,
    /// Unix seconds.
    pub created_at: i64,
}

/// A live session as the sessions list shows it.
#[derive(sqlx::FromRow, serde::Serialize, utoipa::ToSchema)]
pub struct SessionInfo {
    /// The handle to revoke it by (not the session's secret id).
    pub id: i64,
    pub username: String,
    /// Unix seconds.
    pub created_at: i64,
    pub expires_at: i64,
}

#[derive(sqlx::FromRow)]
pub struct Admin {
    pub id: i64,
    pub username: String,
    pub password_hash: String,
    pub role: String,
    /// The confirmed TOTP secret (base32); none without a second factor.
    pub totp_secret: Option<String>,
    /// A secret being enrolled, not yet confirmed.
    pub totp_pending: Option<String>,
    /// The last TOTP step accepted (no code is taken twice).
    pub totp_last_step: Option<i64>,
}

const ADMIN_FIELDS: &str =
    "id, username, password_hash, role, totp_secret, totp_pending, totp_last_step";

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
    pub role: String,
    /// Whether the admin has a second factor.
    pub totp: bool,
}

/// Adds to `table` the `columns` (name, definition) a store written by an older version lacks: SQLite's
/// `CREATE TABLE IF NOT EXISTS` leaves an existing table as it was.
pub(super) async fn add_missing_columns(
    pool: &sqlx::SqlitePool,
    table: &'static str,
    columns: &[(&'static str, &'static str)],
) -> Result<(), sqlx::Error> {
    let present: Vec<String> = sqlx::query_scalar("SELECT name FROM pragma_table_info(?)")
        .bind(table)
        .fetch_all(pool)
        .await?;
    for (name, definition) in columns {
        if !present.iter().any(|c| c == name) {
            // The table and the columns are constants of this crate, never input.
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                "ALTER TABLE {table} ADD COLUMN {name} {definition}"
            )))
            .execute(pool)
            .await?;
        }
    }
    Ok(())
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
        add_missing_columns(&pool, "admins", &ADMIN_COLUMNS).await?;
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

    /// Adds another admin with `role`; `false` when the name is taken.
    pub async fn create_admin(
        &self,
        username: &str,
        hash: &str,
        role: &str,
    ) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "INSERT INTO admins (username, password_hash, created_at, role) VALUES (?, ?, ?, ?)
             ON CONFLICT (username) DO NOTHING",
        )
        .bind(username)
        .bind(hash)
        .bind(now())
        .bind(role)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn admin_by_name(&self, username: &str) -> Result<Option<Admin>, sqlx::Error> {
        // ADMIN_FIELDS is a constant of this file.
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {ADMIN_FIELDS} FROM admins WHERE username = ?"
        )))
        .bind(username)
        .fetch_optional(&self.pool)
        .await
    }

    pub async fn admin_by_id(&self, id: i64) -> Result<Option<Admin>, sqlx::Error> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {ADMIN_FIELDS} FROM admins WHERE id = ?"
        )))
        .bind(id)
        .fetch_optional(&self.pool)
        .await
    }

    pub async fn admins(&self) -> Result<Vec<AdminInfo>, sqlx::Error> {
        sqlx::query_as(
            "SELECT username, role, totp_secret IS NOT NULL AS totp, created_at FROM admins ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await
    }

    /// Removes an admin (their sessions and recovery codes with them), unless it is the last one with the
    /// `admin` role: one statement, so two removals racing cannot leave none. Returns whether it was removed.
    pub async fn remove_admin(&self, username: &str) -> Result<bool, sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "DELETE FROM sessions WHERE admin_id = (SELECT id FROM admins WHERE username = ?)",
        )
        .bind(username)
        .execute(&mut *tx)
        .await?;
        let done = sqlx::query(
            "DELETE FROM admins WHERE username = ?
             AND (role <> 'admin' OR (SELECT COUNT(*) FROM admins WHERE role = 'admin') > 1)",
        )
        .bind(username)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 {
            tx.commit().await?;
            Ok(true)
        } else {
            tx.rollback().await?;
            Ok(false)
        }
    }

    /// Gives an account another role, at once (each request reads the role of its session's account). Never
    /// takes the role away from the last `admin`: false then, as for an unknown name.
    pub async fn set_role(&self, username: &str, role: &str) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "UPDATE admins SET role = ? WHERE username = ?
             AND (? = 'admin' OR role <> 'admin' OR (SELECT COUNT(*) FROM admins WHERE role = 'admin') > 1)",
        )
        .bind(role)
        .bind(username)
        .bind(role)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The live sessions, newest first (of every admin, or of `admin_id` alone).
    pub async fn sessions(&self, admin_id: Option<i64>) -> Result<Vec<SessionInfo>, sqlx::Error> {
        sqlx::query_as(
            "SELECT s.rowid AS id, a.username, s.created_at, s.expires_at FROM sessions s
             JOIN admins a ON a.id = s.admin_id
             WHERE s.revoked = 0 AND s.expires_at >= ? AND (? IS NULL OR s.admin_id = ?)
             ORDER BY s.created_at DESC",
        )
        .bind(now())
        .bind(admin_id)
        .bind(admin_id)
        .fetch_all(&self.pool)
        .await
    }

    /// Revokes the session with handle `id` (of `admin_id` alone when given); whether there was one.
    pub async fn revoke_session_by_handle(
        &self,
        id: i64,
        admin_id: Option<i64>,
    ) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "UPDATE sessions SET revoked = 1 WHERE rowid = ? AND revoked = 0 AND (? IS NULL OR admin_id = ?)",
        )
        .bind(id)
        .bind(admin_id)
        .bind(admin_id)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Starts an enrolment: `secret` waits for a code that proves the app has it.
    pub async fn set_totp_pending(&self, id: i64, secret: &str) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE admins SET totp_pending = ? WHERE id = ?")
            .bind(secret)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Confirms the pending secret (used at `step`) and replaces the recovery codes by `hashes`.
    pub async fn confirm_totp(
        &self,
        id: i64,
        step: i64,
        hashes: &[String],
    ) -> Result<(), sqlx::Error> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "UPDATE admins SET totp_secret = totp_pending, totp_pending = NULL, totp_last_step = ? WHERE id = ?",
        )
        .bind(step)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM recovery_codes WHERE admin_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        for hash in hashes {
            sqlx::query("INSERT INTO recovery_codes (admin_id, hash) VALUES (?, ?)")
                .bind(id)
                .bind(hash)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await
    }

    /// Records `step` as used, only if it is later than the last one: of two sign-ins racing with one code,
    /// one wins. Returns whether this call recorded it.
    pub async fn use_totp_step(&self, id: i64, step: i64) -> Result<bool, sqlx::Error> {
        let done = sqlx::query(
            "UPDATE admins SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)",
        )
        .bind(step)
        .bind(id)
        .bind(step)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Spends a recovery code (by its hash); whether it was there.
    pub async fn use_recovery_code(&self, id: i64, hash: &str) -> Result<bool, sqlx::Error> {
        let done = sqlx::query("DELETE FROM recovery_codes WHERE admin_id = ? AND hash = ?")
            .bind(id)
            .bind(hash)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn setting(&self, key: &str) -> Result<Option<String>, sqlx::Error> {
        sqlx::query_scalar("SELECT value FROM panel_settings WHERE key = ?")
            .bind(key)
            .fetch_optional(&self.pool)
            .await
    }

    pub async fn set_setting(&self, key: &str, value: &str) -> Result<(), sqlx::Error> {
        sqlx::query(
            "INSERT INTO panel_settings (key, value) VALUES (?, ?)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value)
        .execute(&self.pool)
        .await?;
        Ok(())
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
            "SELECT s.admin_id, a.username, s.expires_at, a.role, a.totp_secret IS NOT NULL AS totp
             FROM sessions s JOIN admins a ON a.id = s.admin_id
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
