//! The traffic controls' settings (`rate_limit`, `ip_filter`, `geoip`), globally and per domain.
//!
//! A domain's `rate_limit` and `geoip` sections override the global ones key by key (a domain that sets only
//! `requests` keeps the global window, burst and backend). A domain's `ip_filter` adds its `deny` entries to the
//! global deny list and, when it has an allow list, uses it instead of the global one (see `traffic/mod.rs`).
//! Only the entries written inline are checked here; list files and the GeoIP database are read when the
//! controls are built (`traffic::Traffic::build`), which `--check-config` does too.
use super::ConfigError;
use super::file::{FileGeoip, FileIpFilter, FileRateLimit};
use super::resolve::Resolver;
use crate::cidr::Cidr;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RateLimitConfig {
    pub enabled: bool,
    /// Requests a client may make per window, on average.
    pub requests: u32,
    pub window_sec: u64,
    /// Requests a client may make at once (after being idle); by default `requests`.
    pub burst: u32,
    pub backend: RateLimitBackend,
    pub redis_url: Option<RedisUrl>,
    /// How long a request waits for Redis before the backend counts as down.
    pub redis_timeout_ms: u64,
    /// With Redis down: forward (true) or answer 429 (false).
    pub fail_open: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RateLimitBackend {
    /// Counters in this process (`governor`).
    Memory,
    /// Counters in Redis, shared by every proxy pointing at it.
    Redis,
}

/// A Redis URL, printed (by `--check-config`, in logs) with its password masked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisUrl(String);

impl RedisUrl {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RedisUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `redis://user:secret@host/` -> `redis://user:***@host/`
        match self.0.split_once("://") {
            Some((scheme, rest)) => match rest.split_once('@') {
                Some((userinfo, host)) => {
                    let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
                    write!(f, "{scheme}://{user}:***@{host}")
                }
                None => f.write_str(&self.0),
            },
            None => f.write_str(&self.0),
        }
    }
}

impl Serialize for RedisUrl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IpFilterConfig {
    pub allow: Vec<Cidr>,
    pub deny: Vec<Cidr>,
    pub allow_file: Option<PathBuf>,
    pub deny_file: Option<PathBuf>,
}

impl IpFilterConfig {
    /// Whether an allow list is configured (inline or as a file): then only its entries are admitted.
    pub fn has_allow(&self) -> bool {
        !self.allow.is_empty() || self.allow_file.is_some()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GeoipConfig {
    pub enabled: bool,
    pub database: Option<PathBuf>,
    /// ISO 3166-1 alpha-2 codes, upper case. When not empty, only these countries are admitted.
    pub allow_countries: Vec<String>,
    /// Always refused, whatever the allow list says.
    pub deny_countries: Vec<String>,
    pub unknown: UnknownCountry,
}

/// What happens to an address the database gives no country for (private ranges, gaps in the data).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownCountry {
    Allow,
    Deny,
}

/// A domain's overrides, already merged with the global sections where they override key by key.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DomainTraffic {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimitConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_filter: Option<IpFilterConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geoip: Option<GeoipConfig>,
}

/// Field by field: the domain's value where it has one, else the global one.
fn merge_rate_limit(domain: FileRateLimit, global: &FileRateLimit) -> FileRateLimit {
    let g = global.clone();
    FileRateLimit {
        enabled: domain.enabled.or(g.enabled),
        requests: domain.requests.or(g.requests),
        window_sec: domain.window_sec.or(g.window_sec),
        // A domain that changes `requests` without `burst` gets its own default burst, not the global one.
        burst: domain.burst.or(if domain.requests.is_some() {
            None
        } else {
            g.burst
        }),
        backend: domain.backend.or(g.backend),
        redis_url: domain.redis_url.or(g.redis_url),
        redis_timeout_ms: domain.redis_timeout_ms.or(g.redis_timeout_ms),
        fail_open: domain.fail_open.or(g.fail_open),
    }
}

fn merge_geoip(domain: FileGeoip, global: &FileGeoip) -> FileGeoip {
    let g = global.clone();
    FileGeoip {
        enabled: domain.enabled.or(g.enabled),
        database: domain.database.or(g.database),
        allow_countries: domain.allow_countries.or(g.allow_countries),
        deny_countries: domain.deny_countries.or(g.deny_countries),
        unknown: domain.unknown.or(g.unknown),
    }
}

impl Resolver<'_> {
    pub(super) fn rate_limit(
        &self,
        key: &str,
        r: FileRateLimit,
    ) -> Result<RateLimitConfig, ConfigError> {
        let at = |field: &str| format!("{key}.{field}");
        let requests = r.requests.unwrap_or(100);
        let window_sec = r.window_sec.unwrap_or(60);
        if requests == 0 {
            return Err(self.key_error(&at("requests"), "must be at least 1"));
        }
        if window_sec == 0 {
            return Err(self.key_error(&at("window_sec"), "must be at least 1"));
        }
        // The limiters refill one request every window / requests: below a microsecond that is no limit at all.
        if window_sec.saturating_mul(1_000_000) < u64::from(requests) {
            return Err(self.key_error(
                &at("requests"),
                "more than one request per microsecond is not a limit",
            ));
        }
        let burst = r.burst.unwrap_or(requests);
        if burst == 0 {
            return Err(self.key_error(&at("burst"), "must be at least 1"));
        }
        let backend = match r.backend.as_deref() {
            None | Some("memory") => RateLimitBackend::Memory,
            Some("redis") => RateLimitBackend::Redis,
            Some(other) => {
                return Err(self.key_error(
                    &at("backend"),
                    format!("unknown backend {other:?}, expected memory or redis"),
                ));
            }
        };
        let redis_url = match r.redis_url {
            Some(url) => {
                if let Err(e) = redis::Client::open(url.as_str()) {
                    let shown = RedisUrl(url.clone());
                    return Err(
                        self.key_error(&at("redis_url"), format!("invalid URL {shown}: {e}"))
                    );
                }
                Some(RedisUrl(url))
            }
            None => None,
        };
        if backend == RateLimitBackend::Redis && redis_url.is_none() {
            return Err(self.key_error(&at("redis_url"), "backend redis needs a redis_url"));
        }
        let redis_timeout_ms = r.redis_timeout_ms.unwrap_or(50);
        if redis_timeout_ms == 0 {
            return Err(self.key_error(&at("redis_timeout_ms"), "must be at least 1"));
        }
        Ok(RateLimitConfig {
            enabled: r.enabled.unwrap_or(false),
            requests,
            window_sec,
            burst,
            backend,
            redis_url,
            redis_timeout_ms,
            fail_open: r.fail_open.unwrap_or(true),
        })
    }

    pub(super) fn ip_filter(
        &self,
        key: &str,
        f: FileIpFilter,
    ) -> Result<IpFilterConfig, ConfigError> {
        let cidrs = |list: Option<Vec<String>>, name: &str| -> Result<Vec<Cidr>, ConfigError> {
            list.unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, raw)| {
                    raw.parse::<Cidr>()
                        .map_err(|e| self.key_error(&format!("{key}.{name}[{i}]"), e))
                })
                .collect()
        };
        Ok(IpFilterConfig {
            allow: cidrs(f.allow, "allow")?,
            deny: cidrs(f.deny, "deny")?,
            allow_file: f.allow_file.map(PathBuf::from),
            deny_file: f.deny_file.map(PathBuf::from),
        })
    }

    pub(super) fn geoip(&self, key: &str, g: FileGeoip) -> Result<GeoipConfig, ConfigError> {
        let countries = |list: Option<Vec<String>>, name: &str| {
            list.unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, code)| {
                    let code = code.trim();
                    if code.len() == 2 && code.bytes().all(|b| b.is_ascii_alphabetic()) {
                        Ok(code.to_ascii_uppercase())
                    } else {
                        Err(self.key_error(
                            &format!("{key}.{name}[{i}]"),
                            format!("{code:?} is not a two-letter ISO country code"),
                        ))
                    }
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let enabled = g.enabled.unwrap_or(false);
        let database = g.database.map(PathBuf::from);
        if enabled && database.is_none() {
            return Err(self.key_error(
                &format!("{key}.database"),
                "GeoIP needs a MaxMind database file",
            ));
        }
        let unknown = g.unknown.unwrap_or(UnknownCountry::Allow);
        Ok(GeoipConfig {
            enabled,
            database,
            allow_countries: countries(g.allow_countries, "allow_countries")?,
            deny_countries: countries(g.deny_countries, "deny_countries")?,
            unknown,
        })
    }

    /// A domain's sections, merged with the global ones.
    pub(super) fn domain_traffic(
        &self,
        key: &str,
        rate_limit: Option<FileRateLimit>,
        ip_filter: Option<FileIpFilter>,
        geoip: Option<FileGeoip>,
        global: (&FileRateLimit, &FileGeoip),
    ) -> Result<DomainTraffic, ConfigError> {
        Ok(DomainTraffic {
            rate_limit: rate_limit
                .map(|r| {
                    self.rate_limit(&format!("{key}.rate_limit"), merge_rate_limit(r, global.0))
                })
                .transpose()?,
            ip_filter: ip_filter
                .map(|f| self.ip_filter(&format!("{key}.ip_filter"), f))
                .transpose()?,
            geoip: geoip
                .map(|g| self.geoip(&format!("{key}.geoip"), merge_geoip(g, global.1)))
                .transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, resolve};
    use std::path::Path;

    fn run(text: &str) -> Result<Config, ConfigError> {
        resolve(text, Path::new("t.yml"), &|_| None)
    }

    #[test]
    fn bad_values_name_their_key() {
        for (text, key) in [
            (
                "waf: {rate_limit: {requests: 0}}",
                "waf.rate_limit.requests",
            ),
            (
                "waf: {rate_limit: {window_sec: 0}}",
                "waf.rate_limit.window_sec",
            ),
            (
                "waf: {rate_limit: {requests: 5000000, window_sec: 1}}",
                "waf.rate_limit.requests",
            ),
            ("waf: {rate_limit: {burst: 0}}", "waf.rate_limit.burst"),
            (
                "waf: {rate_limit: {backend: disk}}",
                "waf.rate_limit.backend",
            ),
            (
                "waf: {rate_limit: {backend: redis}}",
                "waf.rate_limit.redis_url",
            ),
            (
                "waf: {rate_limit: {redis_url: 'http://x'}}",
                "waf.rate_limit.redis_url",
            ),
            (
                "waf: {ip_filter: {deny: [10.0.0.0/8, 1.2.3]}}",
                "waf.ip_filter.deny[1]",
            ),
            ("waf: {geoip: {enabled: true}}", "waf.geoip.database"),
            (
                "waf: {geoip: {allow_countries: [FRA]}}",
                "waf.geoip.allow_countries[0]",
            ),
            ("waf: {geoip: {unknown: maybe}}", "waf.geoip.unknown"),
            (
                "waf: {logging: {traffic_level: loud}}",
                "waf.logging.traffic_level",
            ),
            (
                "waf: {domains: {a.test: {rate_limit: {burst: 0}}}}",
                "waf.domains.a.test.rate_limit.burst",
            ),
        ] {
            let e = run(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
    }

    #[test]
    fn a_domain_overrides_key_by_key() {
        let c = run(
            "waf:\n  rate_limit: {enabled: true, requests: 10, burst: 20, window_sec: 5}\n  geoip: {enabled: true, database: g.mmdb, deny_countries: [fr]}\n  domains:\n    A.test:\n      rate_limit: {requests: 3}\n      geoip: {unknown: deny}\n    b.test: {default_upstream: 'http://127.0.0.1:9'}\n",
        )
        .unwrap();
        assert_eq!(c.rate_limit.burst, 20);
        assert_eq!(c.geoip.deny_countries, ["FR"]);
        let a = &c.domains["a.test"];
        let r = a.rate_limit.as_ref().unwrap();
        assert!(r.enabled);
        assert_eq!((r.requests, r.window_sec, r.burst), (3, 5, 3));
        let g = a.geoip.as_ref().unwrap();
        assert_eq!(g.deny_countries, ["FR"]);
        assert_eq!(g.unknown, UnknownCountry::Deny);
        assert!(c.domains["b.test"].rate_limit.is_none());
    }

    #[test]
    fn redis_password_is_masked() {
        let url = RedisUrl("redis://app:s3cret@10.0.0.1:6379/0".into());
        assert_eq!(url.to_string(), "redis://app:***@10.0.0.1:6379/0");
        let url = RedisUrl("redis://10.0.0.1/".into());
        assert_eq!(url.to_string(), "redis://10.0.0.1/");
    }
}
