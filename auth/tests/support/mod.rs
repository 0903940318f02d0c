//! The integration harness: real PostgreSQL and Redis servers, the real `auth` binary on a socket, and a plain
//! hyper client. Everything binds 127.0.0.1, lives in a temporary directory and is killed on drop.

pub mod external;
pub mod http;
pub mod nginx;
pub mod postgres;
pub mod redis_server;
pub mod server;

/// A port nobody listens on right now (the kernel's choice, released at once).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}
