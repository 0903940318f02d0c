//! Configuration: the file (`file.rs`), how file, environment and defaults combine (`resolve.rs`), and the
//! effective configuration the proxy runs on (this module).
//!
//! The effective configuration is a plain value: a reload builds a new one off the request path and swaps it in
//! whole (see `state.rs`), so the request path never sees a half-applied change.
mod file;
mod resolve;
mod traffic;

use crate::cidr::Cidr;
use crate::limits::Limits;
use crate::timeouts::Timeouts;
use crate::upstream_url::UpstreamUrl;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use waf_compiler::Profile;
use waf_compiler::{Exclusions, TargetExclusion};

pub use resolve::resolve;
pub use traffic::{
    DomainTraffic, GeoipConfig, IpFilterConfig, RateLimitBackend, RateLimitConfig, RedisUrl,
    UnknownCountry,
};

/// Where the proxy looks for its configuration when `--config` is not given.
pub const DEFAULT_CONFIG_PATH: &str = "config/waf.yml";

/// What the proxy does with a request that matches a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A matching `deny` rule blocks with 403.
    Enforce,
    /// Matches are logged with `OBSERVE MODE`; every request is forwarded.
    Observe,
    /// No inspection at all: a plain reverse proxy.
    Disabled,
}

/// What happens to a request whose body is larger than the body limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverLimit {
    /// Refuse with 413 (in observe mode: log that it would have been refused, inspect the first part, forward).
    Reject,
    /// Inspect the first `limit_bytes`, then forward the whole body. A tail past the limit is never inspected, so
    /// this is an explicit operator choice, logged on every such request.
    InspectPrefix,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    pub mode: Mode,
    pub server: ServerConfig,
    pub upstream: UpstreamConfig,
    pub domains: BTreeMap<String, DomainConfig>,
    pub rules: RulesConfig,
    pub body: BodyConfig,
    pub response_body: ResponseBodyConfig,
    pub client_ip: ClientIpConfig,
    pub logging: LoggingConfig,
    pub metrics: MetricsConfig,
    pub rate_limit: RateLimitConfig,
    pub ip_filter: IpFilterConfig,
    pub geoip: GeoipConfig,
    pub acme: AcmeConfig,
    pub admin: AdminConfig,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerConfig {
    /// `::` (the default) takes both address families: IPv4 clients arrive as IPv4-mapped IPv6 addresses,
    /// which the proxy turns back into IPv4 wherever it reads an address (`client_ip.rs`).
    pub listen_address: String,
    /// With an IPv6 `listen_address`: IPv6 clients only (IPV6_V6ONLY on).
    pub ipv6_only: bool,
    pub http_enabled: bool,
    pub http_port: u16,
    pub https_enabled: bool,
    pub https_port: u16,
    pub http2_enabled: bool,
    /// The bounds of each wait on a client (`timeouts.rs`).
    pub first_byte_timeout_sec: u64,
    pub tls_handshake_timeout_sec: u64,
    pub header_read_timeout_sec: u64,
    pub body_read_timeout_sec: u64,
    pub keepalive_timeout_sec: u64,
    pub send_timeout_sec: u64,
    /// Client connections at once, in all (`None`: from the open-file limit) and per client address; read at
    /// each accept, so a reload applies them (`connection_limits.rs`).
    pub max_connections: Option<u64>,
    pub max_connections_per_client: u64,
    pub shutdown_grace_sec: u64,
    /// Threads serving requests, each with its own single-threaded runtime (see `workers.rs`).
    pub workers: usize,
    /// Request head limits (`limits.rs`), for HTTP/1 and HTTP/2 alike.
    pub limits: Limits,
    pub tls: TlsConfig,
}

impl ServerConfig {
    pub fn timeouts(&self) -> Timeouts {
        Timeouts {
            first_byte: Duration::from_secs(self.first_byte_timeout_sec),
            tls_handshake: Duration::from_secs(self.tls_handshake_timeout_sec),
            head: Duration::from_secs(self.header_read_timeout_sec),
            body: Duration::from_secs(self.body_read_timeout_sec),
            keepalive: Duration::from_secs(self.keepalive_timeout_sec),
            send: Duration::from_secs(self.send_timeout_sec),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TlsConfig {
    /// The global certificate (full chain, PEM) and its key: served to a name no domain has its own for.
    /// Both or neither (checked in `resolve.rs`).
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    /// Without a global certificate file: a local CA and a leaf it signs, for testing only (`tls/self_signed.rs`).
    pub auto_generate: bool,
    /// Where generated certificates are kept, reused across restarts.
    pub auto_cert_dir: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UpstreamConfig {
    pub default: UpstreamUrl,
    pub connect_timeout_ms: u64,
    pub response_timeout_ms: u64,
    pub pool_idle_timeout_sec: u64,
    pub pool_max_idle_per_host: usize,
    /// How `https://` upstreams are reached (`upstream_tls.rs`), unless a domain has its own `upstream_tls`.
    pub tls: UpstreamTls,
    pub http2: UpstreamHttp2,
    /// `upstream.servers`: the global pool, instead of `default` alone (`upstream_pool.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<PoolServer>>,
    /// How every pool chooses a server, when a server is out, how often a request is tried again, and the
    /// active health check (none by default), unless a domain sets its own.
    #[serde(flatten)]
    pub pool: PoolSettings,
}

impl UpstreamConfig {
    /// Whether `other` differs only in what chooses servers, not in how connections are made.
    pub fn same_connections(&self, other: &UpstreamConfig) -> bool {
        UpstreamConfig {
            default: other.default.clone(),
            servers: other.servers.clone(),
            pool: other.pool.clone(),
            ..self.clone()
        } == *other
    }
}

/// What a pool does with its servers: `upstream.{balance,max_fails,fail_timeout_sec,retries,health_check}`, and
/// for a domain's own servers the same keys under `domains.<host>` where it sets them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PoolSettings {
    pub balance: Balance,
    /// Failures within `fail_timeout_sec` that take a server out for `fail_timeout_sec` (passive health).
    pub max_fails: u32,
    pub fail_timeout_sec: u64,
    /// Other servers a request may be tried on after the first.
    pub retries: u32,
    pub health_check: Option<HealthCheck>,
}

/// A domain's own pool settings, each replacing the global one it names (`None`: the global one).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DomainPoolSettings {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balance: Option<Balance>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_fails: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_timeout_sec: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
    /// Replaces `upstream.health_check` whole, or turns it off for the domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health_check: Option<DomainHealthCheck>,
}

/// A domain's `health_check`: its own, or `off` (written `false`), where the global one would apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DomainHealthCheck {
    Off,
    Check(HealthCheck),
}

impl Serialize for DomainHealthCheck {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DomainHealthCheck::Off => s.serialize_bool(false),
            DomainHealthCheck::Check(check) => check.serialize(s),
        }
    }
}

impl DomainPoolSettings {
    /// The settings in force with these over `global`.
    pub fn over(&self, global: &PoolSettings) -> PoolSettings {
        PoolSettings {
            balance: self.balance.unwrap_or(global.balance),
            max_fails: self.max_fails.unwrap_or(global.max_fails),
            fail_timeout_sec: self.fail_timeout_sec.unwrap_or(global.fail_timeout_sec),
            retries: self.retries.unwrap_or(global.retries),
            health_check: match &self.health_check {
                None => global.health_check.clone(),
                Some(DomainHealthCheck::Off) => None,
                Some(DomainHealthCheck::Check(check)) => Some(check.clone()),
            },
        }
    }

    /// The key of the first setting given, if any (`balance`, ...).
    pub fn first_set(&self) -> Option<&'static str> {
        [
            ("balance", self.balance.is_some()),
            ("max_fails", self.max_fails.is_some()),
            ("fail_timeout_sec", self.fail_timeout_sec.is_some()),
            ("retries", self.retries.is_some()),
            ("health_check", self.health_check.is_some()),
        ]
        .into_iter()
        .find_map(|(key, set)| set.then_some(key))
    }
}

/// A server of a pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PoolServer {
    pub url: UpstreamUrl,
    /// Its share of the requests, relative to the others' (at least 1).
    pub weight: u32,
    /// Used only while every other server is out.
    pub backup: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Balance {
    /// In turn, by weight.
    RoundRobin,
    /// The server with the fewest requests in flight, relative to its weight.
    LeastConn,
    /// By the client's address: a client keeps its server while the set of servers up stays the same.
    IpHash,
}

/// `upstream.health_check` (or a domain's `health_check`): each server of the pool is asked `GET path` every `interval_sec`; a server that
/// does not answer `expect_status` within `timeout_ms` is out until it does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HealthCheck {
    pub path: String,
    pub interval_sec: u64,
    pub timeout_ms: u64,
    pub expect_status: u16,
}

/// `upstream.tls` and `domains.<host>.upstream_tls`: the TLS client towards an `https://` upstream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpstreamTls {
    /// Whether the upstream's certificate is verified (chain and name). Off only with a warning at start.
    pub verify: bool,
    /// The CA certificates (PEM) trusted instead of the system's roots: a private CA.
    pub ca_file: Option<PathBuf>,
    /// The name sent as SNI and verified in the certificate, instead of the upstream URL's host.
    pub server_name: Option<String>,
    /// A client certificate (full chain, PEM) and its key, for an upstream that asks for one (mutual TLS).
    /// Both or neither.
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
}

impl Default for UpstreamTls {
    fn default() -> Self {
        UpstreamTls {
            verify: true,
            ca_file: None,
            server_name: None,
            cert_file: None,
            key_file: None,
        }
    }
}

/// `upstream.http2`: whether HTTP/2 is offered to `https://` upstreams (by ALPN; cleartext upstreams get HTTP/1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UpstreamHttp2 {
    /// HTTP/2 when the upstream chooses it in the TLS handshake, else HTTP/1.1.
    Auto,
    /// HTTP/1.1 only.
    Off,
}

/// `domains.<host>.upstream_host`: the `Host` the upstream receives instead of the client's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamHost {
    /// A fixed value, such as the backend's own name.
    Fixed(String),
    /// `$upstream`: the upstream URL's host (and port, when the URL has one).
    Upstream,
}

impl Serialize for UpstreamHost {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            UpstreamHost::Fixed(host) => s.serialize_str(host),
            UpstreamHost::Upstream => s.serialize_str("$upstream"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DomainConfig {
    pub default_upstream: Option<UpstreamUrl>,
    /// The domain's own TLS client settings towards its upstream, instead of `upstream.tls` (all of them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream_tls: Option<UpstreamTls>,
    /// The `Host` its upstream receives; unset: the client's (with `X-Forwarded-Host` either way).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream_host: Option<UpstreamHost>,
    /// The domain's pool, instead of `default_upstream` (one or the other).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstreams: Option<Vec<PoolServer>>,
    /// How its pool chooses and watches its servers, where it differs from `upstream.*`.
    #[serde(flatten)]
    pub pool: DomainPoolSettings,
    /// The domain's traffic controls, where it overrides the global ones (`traffic.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimitConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ip_filter: Option<IpFilterConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geoip: Option<GeoipConfig>,
    /// The domain's own certificate, chosen by SNI before any other (both or neither).
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    /// Plain HTTP requests for this domain are redirected to HTTPS.
    pub force_https: bool,
    /// A certificate from the ACME server for this name (HTTP-01 on the HTTP listener); `acme_email` is the
    /// account's contact.
    pub acme_enabled: bool,
    pub acme_email: Option<String>,
    /// A certificate for this name alone, signed by the local testing CA of `tls.auto_generate` and kept in
    /// `auto_cert_dir/domains/` (`tls/self_signed.rs`); for testing only.
    pub self_signed: bool,
    /// The domain's own anomaly threshold, instead of `rules.anomaly_threshold`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anomaly_threshold: Option<u32>,
    /// Rules whose matches do not count for this domain (a rule exclusion, e.g. for an application that
    /// legitimately sends what the rule looks for); sorted, without repeats.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disabled_rules: Vec<u32>,
    /// Rules not run on one variable of the domain's requests (`excluded_variables`: `{rule, variable}`), sorted
    /// by rule id.
    pub excluded_variables: Vec<TargetExclusion>,
    /// What the domain serves, instead of `rules.profile`: `api` for an API of programs (docs/crs.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
    /// The domain's own rules, as written (mappings without `hosts`): the loader scopes each to the domain, so they
    /// run for its requests only, and checks them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub custom_rules: Vec<serde_json::Value>,
    /// Whether this domain's responses are inspected, instead of `rules.responses`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub responses: Option<bool>,
    /// Whether this domain's requests are written to the access log (when `logging.access.enabled`).
    pub access_log: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RulesConfig {
    pub directories: Vec<PathBuf>,
    pub artifact: Option<PathBuf>,
    pub paranoia_level: u8,
    /// A request is blocked once the anomaly scores of its matching `block` rules add up to this.
    pub anomaly_threshold: u32,
    /// The code page of ModSecurity's Unicode map that `url_decode_uni` uses (`None`: no map); checked against
    /// the map when the configuration is read. Default 20127, as a standard ModSecurity deployment.
    pub unicode_code_page: Option<u32>,
    pub reload_interval_sec: u64,
    /// Whether the engine remembers, per worker thread, what it found in values it has seen (see
    /// `waf-compiler/src/evaluate/memo.rs`): about 1.5 MB per worker at most, holding recent header, cookie and argument
    /// values of up to 256 bytes.
    pub remember_values: bool,
    /// Whether hits of the injection families are confirmed by a parser of their language before they score
    /// (`waf-compiler/src/evaluate/confirm/`); off, every hit scores in full, as in ModSecurity.
    pub confirm: bool,
    /// What the sites behind the proxy serve, for domains without a `profile` of their own: `web` (pages and
    /// forms, the default) or `api` (an API for programs: bodies judged by content, not label; URLs in JSON
    /// documents are data).
    pub profile: Profile,
    /// Ids of rules taken out of the loaded set (ModSecurity's `SecRuleRemoveById`), sorted and distinct.
    pub disabled_rules: Vec<u32>,
    /// Values of the settings rules read instead of their default pattern (CRS's `allowed_methods`,
    /// `allowed_request_content_type`, ...), by name. Rule directories only: an artifact has them baked in.
    pub crs_settings: BTreeMap<String, String>,
    /// Whether the upstream's answers are inspected by the response rules (`phase: response`, CRS RESPONSE-95x),
    /// for domains without a `responses` of their own.
    pub responses: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BodyConfig {
    pub limit_bytes: usize,
    pub over_limit: OverLimit,
}

/// Which response bodies the response rules read, and how much of them (`response_inspection.rs`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResponseBodyConfig {
    /// The part of a body inspected (decompressed); the rest streams on uninspected, or, with `over_limit:
    /// reject`, the response is refused.
    pub limit_bytes: usize,
    pub over_limit: ResponseOverLimit,
    /// The media types (lower case, without parameters) whose bodies are inspected; any other body is not read.
    pub content_types: Vec<String>,
}

/// What happens to an inspected response whose body is larger than `response_body.limit_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseOverLimit {
    /// Inspect the first `limit_bytes`, stream the rest uninspected (ModSecurity's `SecResponseBodyLimitAction
    /// ProcessPartial`, its recommended setting).
    InspectPrefix,
    /// Refuse the response with 502 (ModSecurity's `Reject`).
    Reject,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClientIpConfig {
    pub trusted_proxies: Vec<Cidr>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoggingConfig {
    pub level: String,
    pub format: LogFormat,
    /// The level of the line each traffic-control decision (IP list, GeoIP, rate limit) writes.
    pub traffic_level: TrafficLogLevel,
    /// One line per request (`access_log.rs`).
    pub access: AccessLogConfig,
}

/// `logging.access`: the access log. `enabled`, `format` and `query` follow reloads; `path` is opened at start.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccessLogConfig {
    pub enabled: bool,
    pub format: AccessLogFormat,
    /// The file the lines go to (reopened on SIGUSR1); stdout, with the other log lines, when unset.
    pub path: Option<PathBuf>,
    /// Whether the query string is logged: off by default, because queries carry tokens and other secrets.
    pub query: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessLogFormat {
    /// One JSON object per line, fields named as in Elastic Common Schema (docs/proxy.md).
    Json,
    /// nginx's `combined` format, for the tools that read it.
    Combined,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrafficLogLevel {
    Off,
    Error,
    Warn,
    Info,
    Debug,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricsConfig {
    pub enabled: bool,
}

/// The admin panel (`admin/`): its own listener, read at start like the other listeners.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdminConfig {
    pub enabled: bool,
    pub listen_address: String,
    /// 0 picks a free port (logged at start).
    pub port: u16,
    /// Where the panel keeps its SQLite database (admins, sessions, audit log), its signing key and the
    /// one-time setup token.
    pub data_dir: PathBuf,
    /// Serves the panel over HTTPS, with the certificates the proxy's HTTPS listener serves (the same SNI table:
    /// a domain's certificate by its name, else the global one). Needs `server.https_enabled`.
    pub tls: bool,
    /// Marks the session cookies `Secure`: always with `tls`; without it, for a panel reached over HTTPS through
    /// something in front that terminates TLS.
    pub secure_cookies: bool,
    /// How much of the past the event store keeps (`admin.events`).
    pub events: EventBounds,
}

/// The event store's bounds (`admin.events.max_age_days`, `max_size_mb`), enforced each minute.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EventBounds {
    /// Events older than this are dropped.
    pub max_age_days: u32,
    /// Past this size the oldest tenth is dropped, until under.
    pub max_size_mb: u32,
}

impl Default for EventBounds {
    /// A month of history answers "what happened since the last release" and "is this client new"; 256 MiB (a
    /// few hundred thousand events with their heads) keeps a flood of refusals from filling the disk.
    fn default() -> EventBounds {
        EventBounds {
            max_age_days: 30,
            max_size_mb: 256,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcmeConfig {
    /// The ACME server's directory: `directory_url`, else Let's Encrypt's staging or production one.
    pub directory_url: String,
    /// A PEM bundle trusted for the ACME server's own HTTPS (a test CA); unset: the system's roots.
    pub ca_file: Option<PathBuf>,
}

impl Config {
    /// The domains that get their certificate from ACME.
    pub fn acme_domains(&self) -> impl Iterator<Item = (&String, &DomainConfig)> {
        self.domains.iter().filter(|(_, d)| d.acme_enabled)
    }

    /// The TLS client settings towards the upstream of `host`: the domain's own, else the global ones.
    pub fn upstream_tls_for(&self, host: &str) -> &UpstreamTls {
        self.domains
            .get(host)
            .and_then(|d| d.upstream_tls.as_ref())
            .unwrap_or(&self.upstream.tls)
    }

    /// How the pool serving `host` chooses and watches its servers: the domain's own settings over the global
    /// ones (a domain without servers of its own is served by the global pool, with the global settings).
    pub fn pool_settings_for(&self, host: &str) -> PoolSettings {
        match self.domains.get(host) {
            Some(d) if d.upstreams.is_some() || d.default_upstream.is_some() => {
                d.pool.over(&self.upstream.pool)
            }
            _ => self.upstream.pool.clone(),
        }
    }

    /// Every distinct TLS client setting in use (the global one first): one TLS client is built for each.
    pub fn upstream_tls_settings(&self) -> Vec<&UpstreamTls> {
        let mut all = vec![&self.upstream.tls];
        for tls in self
            .domains
            .values()
            .filter_map(|d| d.upstream_tls.as_ref())
        {
            if !all.contains(&tls) {
                all.push(tls);
            }
        }
        all
    }

    /// Which rule sources to load and how; a change here means the rules must be loaded again.
    pub fn rule_sources(&self) -> RuleSources<'_> {
        RuleSources {
            directories: &self.rules.directories,
            artifact: self.rules.artifact.as_deref(),
            paranoia_level: self.rules.paranoia_level,
            unicode_code_page: self.rules.unicode_code_page,
            remember_values: self.rules.remember_values,
            confirm: self.rules.confirm,
            disabled_rules: &self.rules.disabled_rules,
            crs_settings: &self.rules.crs_settings,
            domain_custom_rules: self
                .domains
                .iter()
                .filter(|(_, d)| !d.custom_rules.is_empty())
                .map(|(name, d)| (name.as_str(), d.custom_rules.as_slice()))
                .collect(),
        }
    }

    /// Whether the answers for `host` are inspected: the domain's `responses`, else `rules.responses`.
    pub fn inspects_responses(&self, host: &str) -> bool {
        self.domains
            .get(host)
            .and_then(|d| d.responses)
            .unwrap_or(self.rules.responses)
    }

    /// How requests for `host` are judged.
    pub fn inspection_policy(&self, host: &str) -> InspectionPolicy<'_> {
        let domain = self.domains.get(host);
        InspectionPolicy {
            anomaly_threshold: domain
                .and_then(|d| d.anomaly_threshold)
                .unwrap_or(self.rules.anomaly_threshold),
            excluded: domain.map_or(&[][..], |d| d.disabled_rules.as_slice()),
            excluded_variables: Exclusions::new(
                domain.map_or(&[][..], |d| d.excluded_variables.as_slice()),
            ),
            profile: domain.and_then(|d| d.profile).unwrap_or(self.rules.profile),
            body_limit: self.body.limit_bytes,
        }
    }
}

/// How one domain's requests are judged.
#[derive(Debug, Clone, Copy)]
pub struct InspectionPolicy<'a> {
    /// The anomaly score at which `block` rules block.
    pub anomaly_threshold: u32,
    /// Rules whose matches do not count (the domain's `disabled_rules`), sorted.
    pub excluded: &'a [u32],
    /// Values some rules are not run on (the domain's `excluded_variables`).
    pub excluded_variables: Exclusions<'a>,
    /// What the domain serves, which weighs some matches ([`Profile::weigh`]).
    pub profile: Profile,
    /// How much of a compressed body is decoded for the rules (`body.limit_bytes`, as much as is read of it).
    pub body_limit: usize,
}

/// The settings that decide which rule set is loaded.
#[derive(Debug, PartialEq, Eq)]
pub struct RuleSources<'a> {
    pub directories: &'a [PathBuf],
    pub artifact: Option<&'a Path>,
    pub paranoia_level: u8,
    pub unicode_code_page: Option<u32>,
    pub remember_values: bool,
    pub confirm: bool,
    pub disabled_rules: &'a [u32],
    pub crs_settings: &'a BTreeMap<String, String>,
    /// Each domain's `custom_rules`, compiled with the rule directories.
    pub domain_custom_rules: Vec<(&'a str, &'a [serde_json::Value])>,
}

/// A configuration error, always saying where (file and key path, or environment variable) and what.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: invalid YAML: {message}")]
    Yaml { path: PathBuf, message: String },
    #[error("{path}: {key}: {message}")]
    Key {
        path: PathBuf,
        key: String,
        message: String,
    },
    #[error("environment variable {name}={value:?}: {message}")]
    Env {
        name: &'static str,
        value: String,
        message: String,
    },
}

/// Loads the configuration: from `path` when given (it must exist), else from [`DEFAULT_CONFIG_PATH`] when that
/// file exists, else from environment and defaults alone. Returns the config and the file actually read.
pub fn load(explicit: Option<&Path>) -> Result<(Config, Option<PathBuf>), ConfigError> {
    let path = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => {
            let default = PathBuf::from(DEFAULT_CONFIG_PATH);
            default.is_file().then_some(default)
        }
    };
    let text = match &path {
        Some(p) => std::fs::read_to_string(p).map_err(|source| ConfigError::Read {
            path: p.clone(),
            source,
        })?,
        None => String::new(),
    };
    let shown = path
        .clone()
        .unwrap_or_else(|| PathBuf::from("(no config file)"));
    let config = resolve(&text, &shown, &|name| std::env::var(name).ok())?;
    Ok((config, path))
}
