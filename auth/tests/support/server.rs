//! The store under test (a SQLite file or a fresh PostgreSQL database) and the real `auth` binary serving it.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use auth::config::StoreConfig;
use auth::store::Store;
use sqlx::Connection;

use super::http::Http;
use super::postgres::Postgres;

/// Which store a test body runs against.
pub enum Backend {
    Sqlite(tempfile::TempDir),
    Postgres { pg: Arc<Postgres>, database: String },
}

impl Backend {
    pub fn sqlite() -> Self {
        Backend::Sqlite(tempfile::tempdir().expect("temp dir"))
    }

    /// A fresh database on `pg`, migrated by `auth migrate` (the operator's path).
    pub async fn postgres(pg: Arc<Postgres>) -> Self {
        let database = pg.create_database().await;
        let backend = Backend::Postgres { pg, database };
        backend.cli(&[], &["migrate"]).expect("auth migrate");
        backend
    }

    /// A fresh database on `pg` holding `schema` as given (e.g. a legacy variant), not migrated.
    pub async fn postgres_with_schema(pg: Arc<Postgres>, schema: String) -> Self {
        let database = pg.create_database().await;
        let mut conn = pg.connect(&database).await;
        sqlx::raw_sql(sqlx::AssertSqlSafe(schema))
            .execute(&mut conn)
            .await
            .expect("legacy schema");
        Backend::Postgres { pg, database }
    }

    pub fn vars(&self) -> Vec<(String, String)> {
        match self {
            Backend::Sqlite(dir) => vec![("DATA_DIR".into(), dir.path().display().to_string())],
            Backend::Postgres { pg, database } => vec![
                ("SQL_HOST".into(), "127.0.0.1".into()),
                ("SQL_PORT".into(), pg.port.to_string()),
                ("SQL_USER".into(), "postgres".into()),
                ("SQL_DATABASE".into(), database.clone()),
            ],
        }
    }

    /// The store, opened the way the service opens it.
    pub async fn store(&self) -> Arc<dyn Store> {
        let config = match self {
            Backend::Sqlite(dir) => StoreConfig::Sqlite {
                path: dir.path().join("auth.sqlite3"),
            },
            Backend::Postgres { pg, database } => StoreConfig::Postgres {
                host: "127.0.0.1".into(),
                port: pg.port,
                user: "postgres".into(),
                password: None,
                database: database.clone(),
            },
        };
        auth::store::open(&config).await.expect("open store")
    }

    /// Runs one statement with text parameters `$1`... (a change no command offers, e.g. marking a user deleted).
    pub async fn execute(&self, sql: &'static str, params: &[&str]) {
        match self {
            Backend::Sqlite(dir) => {
                let url = format!("sqlite://{}", dir.path().join("auth.sqlite3").display());
                let mut conn = sqlx::SqliteConnection::connect(&url).await.expect("sqlite");
                let query = params
                    .iter()
                    .fold(sqlx::query(sql), |q, p| q.bind(p.to_string()));
                query.execute(&mut conn).await.expect("statement");
            }
            Backend::Postgres { pg, database } => {
                let mut conn = pg.connect(database).await;
                let query = params
                    .iter()
                    .fold(sqlx::query(sql), |q, p| q.bind(p.to_string()));
                query.execute(&mut conn).await.expect("statement");
            }
        }
    }

    /// Runs `auth <args>` against this store; its stdout as JSON, or its stderr as the error.
    pub fn cli(&self, env: &[(&str, &str)], args: &[&str]) -> Result<serde_json::Value, String> {
        let output = command(&self.vars(), env)
            .args(args)
            .output()
            .expect("run auth");
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).into_owned());
        }
        serde_json::from_slice(&output.stdout).map_err(|e| format!("stdout is not JSON: {e}"))
    }
}

/// The `auth` binary with a clean environment: the store's variables, test-friendly defaults, then `env`.
pub fn command(store_vars: &[(String, String)], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_auth"));
    command.env_clear().envs([
        ("RUST_LOG", "info"),
        ("LOG_FORMAT", "json"),
        // The cheapest cost bcrypt allows: the tests exercise the logic, not the work factor.
        ("BCRYPT_COST", "4"),
        ("SESSION_TIMEOUT_MINUTES", "30"),
        ("SIGNIN_ATTEMPTS_PER_ACCOUNT", "1000"),
        ("SIGNIN_ATTEMPTS_PER_ADDRESS", "1000"),
    ]);
    command.envs(store_vars.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    command.envs(env.iter().copied());
    command
}

/// A running `auth` server, killed on drop.
pub struct AuthServer {
    child: Child,
    pub addr: SocketAddr,
    pub http: Http,
    log: Arc<Mutex<String>>,
}

impl AuthServer {
    pub fn start(backend: &Backend, env: &[(&str, &str)]) -> Self {
        let mut child = command(&backend.vars(), env)
            .args(["-b", "127.0.0.1", "-p", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start auth");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let sink = log.clone();
        // Drains stderr for the server's whole life (a full pipe would block it), reporting the address once.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(entry) = serde_json::from_str::<serde_json::Value>(&line)
                    && entry["fields"]["message"] == "listening"
                    && let Some(address) = entry["fields"]["address"].as_str()
                {
                    let _ = tx.send(address.to_string());
                }
                sink.lock().unwrap().push_str(&line);
                sink.lock().unwrap().push('\n');
            }
        });
        let addr: SocketAddr = match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(address) => address.parse().expect("address"),
            Err(_) => {
                let _ = child.kill();
                panic!("auth did not start:\n{}", log.lock().unwrap());
            }
        };
        AuthServer {
            child,
            addr,
            http: Http::new(addr),
            log,
        }
    }

    /// Everything the server logged so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Whether the server logs `needle` within a few seconds: a line written just before a response reaches the
    /// log through the stderr reader thread a moment after the response reaches the test.
    pub async fn logged(&self, needle: &str) -> bool {
        self.logged_times(needle, 1).await
    }

    /// Whether the server's log holds `needle` at least `times` times within a few seconds (see [`Self::logged`]).
    pub async fn logged_times(&self, needle: &str, times: usize) -> bool {
        for _ in 0..100 {
            if self.log().matches(needle).count() >= times {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        false
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
