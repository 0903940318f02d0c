//! A throwaway PostgreSQL cluster: `initdb` + `pg_ctl` on a temporary directory, a free loopback port, trust
//! authentication, stopped on drop. PostgreSQL refuses to run as root, so as root the commands run as the
//! `postgres` user (`runuser`) on a directory handed to that user.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

pub struct Postgres {
    dir: tempfile::TempDir,
    bin: PathBuf,
    as_postgres: bool,
    pub port: u16,
    next_db: AtomicU32,
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

impl Postgres {
    pub fn start() -> Option<Self> {
        let Some(initdb) = super::external::find_program("initdb", &["/usr/lib/postgresql"]) else {
            super::external::skip("PostgreSQL is not installed (apt-get install postgresql)");
            return None;
        };
        let bin = initdb.parent().expect("bin dir").to_path_buf();
        let dir = tempfile::tempdir().expect("temp dir");
        let as_postgres = is_root();
        if as_postgres {
            run(Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path()));
        }
        let port = super::free_port();
        let pg = Postgres {
            dir,
            bin,
            as_postgres,
            port,
            next_db: AtomicU32::new(0),
        };
        pg.run_pg(
            "initdb",
            &[
                "-D",
                &pg.data(),
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        let options = format!(
            "-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={} -c fsync=off",
            pg.dir.path().display()
        );
        let log = pg.dir.path().join("log").display().to_string();
        pg.run_pg(
            "pg_ctl",
            &["-D", &pg.data(), "-o", &options, "-l", &log, "-w", "start"],
        );
        Some(pg)
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    /// `program` of the PostgreSQL installation, as the `postgres` user when we are root.
    fn pg_command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&program);
            c
        } else {
            Command::new(&program)
        };
        command.current_dir(Path::new("/"));
        command
    }

    fn run_pg(&self, program: &str, args: &[&str]) {
        run(self.pg_command(program).args(args));
    }

    /// A fresh, empty database for one test.
    pub async fn create_database(&self) -> String {
        let name = format!("auth_test_{}", self.next_db.fetch_add(1, Ordering::SeqCst));
        let mut conn = self.connect("postgres").await;
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .expect("create db");
        name
    }

    pub async fn connect(&self, database: &str) -> PgConnection {
        let options = PgConnectOptions::new()
            .host("127.0.0.1")
            .port(self.port)
            .username("postgres")
            .database(database);
        PgConnection::connect_with(&options)
            .await
            .expect("connect to the test PostgreSQL")
    }
}

fn run(command: &mut Command) {
    let output = command.output().expect("run command");
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.data();
        let _ = self
            .pg_command("pg_ctl")
            .args(["-D", &data, "-m", "immediate", "stop"])
            .output();
    }
}
