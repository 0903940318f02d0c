//! A throwaway Redis: `redis-server` on a free loopback port, no persistence, killed on drop.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct RedisServer {
    child: Child,
    pub port: u16,
}

impl RedisServer {
    pub fn start() -> Option<Self> {
        let Some(program) = Self::program() else {
            super::external::skip("redis-server is not installed (apt-get install redis-server)");
            return None;
        };
        Some(Self::start_on(program, super::free_port()))
    }

    /// A Redis on `port` (e.g. the port of one stopped earlier, to test a recovery).
    pub fn start_on(program: std::path::PathBuf, port: u16) -> Self {
        let child = Command::new(program)
            .args([
                "--bind",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        let server = RedisServer { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "redis-server did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    /// The program [`Self::start`] runs.
    pub fn program() -> Option<std::path::PathBuf> {
        super::external::find_program("redis-server", &[])
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
