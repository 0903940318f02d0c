//! How many client connections the proxy holds at once: in all (`server.max_connections`) and per client address
//! (`server.max_connections_per_client`), both read from the configuration in force at each accept, so a
//! reload changes them. A connection over either is closed at accept, before a byte is read or a TLS handshake
//! started, and counted in `waf_connections_refused_total{limit}`.
//!
//! Why both: time bounds (`timeouts.rs`) make a slow connection end, but a client can open many at once; a
//! descriptor per connection (and one more for its upstream) is what runs out first, and when it does the
//! proxy cannot accept anyone, nor open its rule files or upstream connections. The total keeps descriptors for
//! those; the per-address cap keeps one client from taking the whole total.
//!
//! The open-file limit: the proxy raises its soft limit to the hard one at start (`raise_open_file_limit`, the
//! soft default of 1024 on many systems is far below what a proxy needs) and sizes the default total from it.
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The per-address counts are split over this many locks, by address, so accepts on several workers seldom
/// wait for each other.
const SHARDS: usize = 16;

/// Descriptors kept out of the default total: listening sockets, rule, certificate and list files being read,
/// the log, the admin panel's database, Redis and ACME connections, with room to spare.
const RESERVED_FILES: u64 = 256;

/// When the open-file limit cannot be read (or is unlimited): the default total.
const FALLBACK_MAX_CONNECTIONS: usize = 10_000;

/// The soft open-file limit in force after `raise_open_file_limit`.
static OPEN_FILE_LIMIT: OnceLock<Option<u64>> = OnceLock::new();

/// Raises the soft open-file limit to the hard one, logs both, and keeps the result for the default total.
pub fn raise_open_file_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let before = getrlimit(Resource::Nofile);
    let mut now = before.current;
    if before.current < before.maximum || before.maximum.is_none() {
        let raised = rustix::process::Rlimit {
            current: before.maximum,
            maximum: before.maximum,
        };
        match setrlimit(Resource::Nofile, raised) {
            Ok(()) => now = before.maximum,
            Err(e) => tracing::warn!("cannot raise the open-file limit: {e}"),
        }
    }
    let text = |v: Option<u64>| v.map_or("unlimited".to_string(), |v| v.to_string());
    tracing::info!(
        "open-file limit: soft {} (was {}), hard {}; connections at most {} by default",
        text(now),
        text(before.current),
        text(before.maximum),
        default_max_connections_for(now)
    );
    let _ = OPEN_FILE_LIMIT.set(now);
}

/// The default of `server.max_connections`: half of what the open-file limit leaves after the reserve, since a
/// client connection may hold an upstream connection too.
pub fn default_max_connections() -> usize {
    default_max_connections_for(OPEN_FILE_LIMIT.get().copied().flatten())
}

fn default_max_connections_for(open_files: Option<u64>) -> usize {
    match open_files {
        Some(n) => usize::try_from(n.saturating_sub(RESERVED_FILES) / 2)
            .unwrap_or(FALLBACK_MAX_CONNECTIONS)
            .max(1),
        None => FALLBACK_MAX_CONNECTIONS,
    }
}

/// Which limit refused a connection, as `waf_connections_refused_total{limit}` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Total,
    PerClient,
}

impl Refused {
    pub const ALL: [Refused; 2] = [Refused::Total, Refused::PerClient];

    pub fn name(self) -> &'static str {
        match self {
            Refused::Total => "total",
            Refused::PerClient => "per_client",
        }
    }
}

/// The client connections open now, in all and per address.
#[derive(Default)]
pub struct Connections {
    open: AtomicUsize,
    by_client: [Mutex<HashMap<IpAddr, usize>>; SHARDS],
}

/// A connection counted as open until dropped (when its task ends).
pub struct Admitted {
    connections: Arc<Connections>,
    client: IpAddr,
}

impl Connections {
    /// Counts a connection from `client` (in its plain IPv4 form when mapped), unless it would go over `max` in
    /// all or `per_client` for that address.
    pub fn admit(
        self: &Arc<Self>,
        client: IpAddr,
        max: usize,
        per_client: usize,
    ) -> Result<Admitted, Refused> {
        let client = client.to_canonical();
        if self.open.fetch_add(1, Ordering::Relaxed) >= max {
            self.open.fetch_sub(1, Ordering::Relaxed);
            return Err(Refused::Total);
        }
        let mut shard = self.shard(client);
        let count = shard.entry(client).or_insert(0);
        if *count >= per_client {
            drop(shard);
            self.open.fetch_sub(1, Ordering::Relaxed);
            return Err(Refused::PerClient);
        }
        *count += 1;
        Ok(Admitted {
            connections: self.clone(),
            client,
        })
    }

    /// Client connections open now (for tests).
    #[cfg(test)]
    fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    fn shard(&self, client: IpAddr) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        let index = match client {
            IpAddr::V4(v4) => v4.octets()[3] as usize,
            IpAddr::V6(v6) => v6.octets()[15] as usize,
        } % SHARDS;
        // Never held across anything that can panic; a poisoned shard still holds consistent counts.
        self.by_client[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut shard = self.connections.shard(self.client);
        if let Some(count) = shard.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                // An address with no connection costs no memory: a flood of distinct addresses leaves nothing.
                shard.remove(&self.client);
            }
        }
        drop(shard);
        self.connections.open.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_in_all_and_per_address_and_counts_freed_on_drop() {
        let connections = Arc::new(Connections::default());
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:192.0.2.1".parse().unwrap();
        let b: IpAddr = "2001:db8::1".parse().unwrap();
        let first = connections.admit(a, 3, 2).unwrap();
        let second = connections.admit(mapped, 3, 2).unwrap();
        assert_eq!(
            connections.admit(a, 3, 2).err(),
            Some(Refused::PerClient),
            "the mapped address is the same client"
        );
        let third = connections.admit(b, 3, 2).unwrap();
        assert_eq!(connections.admit(b, 3, 2).err(), Some(Refused::Total));
        assert_eq!(connections.open(), 3);
        drop((first, second, third));
        assert_eq!(connections.open(), 0);
        assert!(
            connections
                .by_client
                .iter()
                .all(|s| s.lock().unwrap().is_empty())
        );
        assert_eq!(default_max_connections_for(Some(20_000)), 9872);
        assert_eq!(default_max_connections_for(Some(100)), 1);
    }
}
