//! Traffic controls: IP allow and deny lists (`ip_lists.rs`), GeoIP (`geoip.rs`) and rate limiting
//! (`rate_limit.rs`, `redis_limit.rs`), run in that order on the client address of `client_ip.rs` before the
//! body is read and before any rule runs.
//!
//! All three key on that address only: the TCP peer, or the right-most untrusted `X-Forwarded-For` entry when
//! the peer is a configured trusted proxy. No header a client chooses changes it otherwise.
//!
//! Scopes: the global sections apply to every host; a domain with its own section gets a policy of its own.
//! `rate_limit` and `geoip` override key by key (merged in `config/traffic.rs`); for `ip_filter`, the domain's
//! deny entries are added to the global deny list (a blocked address stays blocked everywhere) and its allow
//! list, when it has one, replaces the global one. Deny wins over allow.
//!
//! The controls are built off the request path from the configuration, the list files and the GeoIP database
//! (`Traffic::build`), and swapped in with the configuration (`state.rs`); a rebuild keeps the rate limiters
//! whose settings did not change, so a reload does not hand every client a fresh budget.
pub mod geoip;
pub mod ip_lists;
pub mod rate_limit;
pub mod redis_limit;

use crate::cidr::Cidr;
use crate::config::{Config, GeoipConfig, IpFilterConfig, RateLimitConfig};
use crate::metrics::Metrics;
use geoip::{Country, Database, GeoPolicy};
use ip_lists::IpSet;
use rate_limit::{Limiter, Verdict};
use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Why a request was refused by a traffic control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    /// On a deny list.
    IpDenied,
    /// An allow list is set and the address is not on it.
    IpNotAllowed,
    /// Its country is refused (`None`: the database knows no country and `unknown: deny`).
    Country(Option<Country>),
    /// Over the rate limit; `limit` is the configured requests per window.
    RateLimited { limit: u32, retry_after: Duration },
    /// The shared rate-limit backend is down and `fail_open` is false.
    RateLimitUnavailable { limit: u32 },
}

impl Block {
    /// The reason as it appears in responses, logs and metric labels.
    pub fn reason(&self) -> &'static str {
        match self {
            Block::IpDenied => "ip_denied",
            Block::IpNotAllowed => "ip_not_allowed",
            Block::Country(_) => "country_denied",
            Block::RateLimited { .. } | Block::RateLimitUnavailable { .. } => "rate_limited",
        }
    }
}

/// The controls of one scope.
struct Policy {
    /// The global deny set, and the domain's own when it has one.
    deny: Vec<Arc<IpSet>>,
    allow: Option<Arc<IpSet>>,
    geo: Option<Arc<GeoPolicy>>,
    rate: Option<Arc<Limiter>>,
}

impl Policy {
    fn is_empty(&self) -> bool {
        self.deny.is_empty() && self.allow.is_none() && self.geo.is_none() && self.rate.is_none()
    }

    async fn check(&self, client: IpAddr) -> Result<(), Block> {
        if self.deny.iter().any(|set| set.contains(client)) {
            return Err(Block::IpDenied);
        }
        if self.allow.as_ref().is_some_and(|set| !set.contains(client)) {
            return Err(Block::IpNotAllowed);
        }
        if let Some(geo) = &self.geo {
            geo.check(client).map_err(Block::Country)?;
        }
        if let Some(limiter) = &self.rate {
            let limit = limiter.config.requests;
            match limiter.check(client).await {
                Verdict::Allowed => {}
                Verdict::Limited(l) => {
                    return Err(Block::RateLimited {
                        limit,
                        retry_after: l.retry_after,
                    });
                }
                Verdict::BackendDown if limiter.config.fail_open => {}
                Verdict::BackendDown => return Err(Block::RateLimitUnavailable { limit }),
            }
        }
        Ok(())
    }
}

/// Every scope's controls, built from one configuration.
pub struct Traffic {
    global: Policy,
    /// Only the domains with a section of their own; any other host gets `global`.
    domains: HashMap<String, Policy>,
    /// Nothing configured anywhere: requests skip even the host lookup.
    inactive: bool,
}

/// What was read from each file during one build.
type Loaded<T> = HashMap<PathBuf, T>;

/// What a build reads and keeps between scopes: each list file and database is read once.
struct Builder<'a> {
    previous: Option<&'a Traffic>,
    metrics: &'static Metrics,
    lists: Loaded<Arc<Vec<Cidr>>>,
    databases: Loaded<Database>,
}

/// Why the traffic controls cannot be built: a list file or a GeoIP database, named with the reason.
#[derive(Debug, thiserror::Error)]
pub enum TrafficError {
    #[error(transparent)]
    List(#[from] ip_lists::ListError),
    #[error("GeoIP database {}: {source}", path.display())]
    GeoIp {
        path: PathBuf,
        source: maxminddb::MaxMindDbError,
    },
}

impl Traffic {
    /// Builds the controls of `config`, reading list files and GeoIP databases. `previous` (the controls in
    /// force) lends its rate limiters to scopes whose settings are unchanged. The error names the file (and
    /// line) or the key at fault.
    pub fn build(
        config: &Config,
        previous: Option<&Traffic>,
        metrics: &'static Metrics,
    ) -> Result<Traffic, TrafficError> {
        let mut b = Builder {
            previous,
            metrics,
            lists: HashMap::new(),
            databases: HashMap::new(),
        };
        let global_deny = b.ip_set(
            &config.ip_filter.deny,
            config.ip_filter.deny_file.as_deref(),
        )?;
        let global_allow = b.allow(&config.ip_filter)?;
        let deny: Vec<Arc<IpSet>> = global_deny.into_iter().collect();
        let global = Policy {
            deny: deny.clone(),
            allow: global_allow.clone(),
            geo: b.geo(&config.geoip)?,
            rate: b.limiter(&config.rate_limit, "", None)?,
        };
        let mut domains = HashMap::new();
        for (name, d) in &config.domains {
            if d.rate_limit.is_none() && d.ip_filter.is_none() && d.geoip.is_none() {
                continue;
            }
            let (deny, allow) = match &d.ip_filter {
                Some(f) => {
                    let mut deny = deny.clone();
                    deny.extend(b.ip_set(&f.deny, f.deny_file.as_deref())?);
                    let allow = if f.has_allow() {
                        b.allow(f)?
                    } else {
                        global_allow.clone()
                    };
                    (deny, allow)
                }
                None => (deny.clone(), global_allow.clone()),
            };
            let geo = match &d.geoip {
                Some(g) => b.geo(g)?,
                None => global.geo.clone(),
            };
            let rate = match &d.rate_limit {
                Some(r) => b.limiter(r, name, Some(name))?,
                None => global.rate.clone(),
            };
            domains.insert(
                name.clone(),
                Policy {
                    deny,
                    allow,
                    geo,
                    rate,
                },
            );
        }
        let inactive = global.is_empty() && domains.values().all(Policy::is_empty);
        Ok(Traffic {
            global,
            domains,
            inactive,
        })
    }

    /// Runs the controls for a request to `host` (lower-cased, without port) from `client`.
    pub async fn check(&self, host: &str, client: IpAddr) -> Result<(), Block> {
        if self.inactive {
            return Ok(());
        }
        let policy = if self.domains.is_empty() {
            &self.global
        } else {
            self.domains.get(host).unwrap_or(&self.global)
        };
        policy.check(client).await
    }

    /// Periodic upkeep: forget clients whose rate-limit state is back to fresh.
    pub fn prune(&self) {
        let limiters = std::iter::once(&self.global)
            .chain(self.domains.values())
            .filter_map(|p| p.rate.as_ref());
        for limiter in limiters {
            limiter.prune();
        }
    }

    fn limiter_of(&self, domain: Option<&str>) -> Option<&Arc<Limiter>> {
        match domain {
            None => self.global.rate.as_ref(),
            Some(d) => self.domains.get(d)?.rate.as_ref(),
        }
    }
}

/// The files the controls of `config` read: a change to one of them means a rebuild (`reload.rs`).
pub fn files(config: &Config) -> Vec<PathBuf> {
    let filters = std::iter::once(&config.ip_filter)
        .chain(config.domains.values().filter_map(|d| d.ip_filter.as_ref()));
    let mut files: Vec<PathBuf> = filters
        .flat_map(|f| [f.allow_file.clone(), f.deny_file.clone()])
        .flatten()
        .collect();
    let geo = std::iter::once(&config.geoip)
        .chain(config.domains.values().filter_map(|d| d.geoip.as_ref()));
    files.extend(geo.filter(|g| g.enabled).filter_map(|g| g.database.clone()));
    files.sort();
    files.dedup();
    files
}

impl Builder<'_> {
    /// The inline entries and the file's, as one set (none when there are neither).
    fn ip_set(
        &mut self,
        inline: &[Cidr],
        file: Option<&Path>,
    ) -> Result<Option<Arc<IpSet>>, TrafficError> {
        if inline.is_empty() && file.is_none() {
            return Ok(None);
        }
        let mut all = inline.to_vec();
        if let Some(path) = file {
            all.extend(self.list_file(path)?.iter().copied());
        }
        Ok(Some(Arc::new(IpSet::new(&all))))
    }

    fn allow(&mut self, f: &IpFilterConfig) -> Result<Option<Arc<IpSet>>, TrafficError> {
        if !f.has_allow() {
            return Ok(None);
        }
        // An allow list that is set but empty (an empty file) admits nobody: that is what it says.
        Ok(Some(
            self.ip_set(&f.allow, f.allow_file.as_deref())?
                .unwrap_or_default(),
        ))
    }

    fn list_file(&mut self, path: &Path) -> Result<Arc<Vec<Cidr>>, TrafficError> {
        if let Some(cidrs) = self.lists.get(path) {
            return Ok(cidrs.clone());
        }
        let cidrs = Arc::new(ip_lists::read_file(path)?);
        self.lists.insert(path.to_path_buf(), cidrs.clone());
        Ok(cidrs)
    }

    fn geo(&mut self, g: &GeoipConfig) -> Result<Option<Arc<GeoPolicy>>, TrafficError> {
        let (true, Some(path)) = (g.enabled, &g.database) else {
            return Ok(None);
        };
        let db = match self.databases.get(path) {
            Some(db) => db.clone(),
            None => {
                let db = geoip::open(path).map_err(|source| TrafficError::GeoIp {
                    path: path.clone(),
                    source,
                })?;
                self.databases.insert(path.clone(), db.clone());
                db
            }
        };
        Ok(Some(Arc::new(GeoPolicy::new(g, db))))
    }

    fn limiter(
        &mut self,
        r: &RateLimitConfig,
        scope: &str,
        domain: Option<&str>,
    ) -> Result<Option<Arc<Limiter>>, TrafficError> {
        if !r.enabled {
            return Ok(None);
        }
        let kept = self
            .previous
            .and_then(|p| p.limiter_of(domain))
            .filter(|l| l.config == *r);
        Ok(Some(match kept {
            Some(l) => l.clone(),
            None => Arc::new(Limiter::new(r, scope, self.metrics)),
        }))
    }
}
