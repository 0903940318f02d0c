//! The configuration file as written: every key optional, unknown keys refused.
//!
//! Every field is an `Option` so that "the file does not set this" is visible: that is the only case in which an
//! environment variable or a default applies (see `resolve.rs`). `deny_unknown_fields` everywhere, so a typo is an
//! error naming its path instead of a setting that silently never applies.
use super::traffic::UnknownCountry;
use super::{AccessLogFormat, LogFormat, Mode, OverLimit, ResponseOverLimit, TrafficLogLevel};
use serde::Deserialize;
use std::collections::BTreeMap;

/// The whole file: everything lives under the top key `waf`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRoot {
    pub waf: Option<FileWaf>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileWaf {
    pub mode: Option<Mode>,
    pub server: Option<FileServer>,
    pub upstream: Option<FileUpstream>,
    pub domains: Option<BTreeMap<String, FileDomain>>,
    pub rules: Option<FileRules>,
    pub body: Option<FileBody>,
    pub response_body: Option<FileResponseBody>,
    pub client_ip: Option<FileClientIp>,
    pub logging: Option<FileLogging>,
    pub metrics: Option<FileMetrics>,
    pub rate_limit: Option<FileRateLimit>,
    pub ip_filter: Option<FileIpFilter>,
    pub geoip: Option<FileGeoip>,
    pub acme: Option<FileAcme>,
    pub admin: Option<FileAdmin>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileServer {
    pub listen_address: Option<String>,
    pub http_enabled: Option<bool>,
    pub http_port: Option<u16>,
    pub https_enabled: Option<bool>,
    pub https_port: Option<u16>,
    pub http2_enabled: Option<bool>,
    pub ipv6_only: Option<bool>,
    pub first_byte_timeout_sec: Option<u64>,
    pub tls_handshake_timeout_sec: Option<u64>,
    pub header_read_timeout_sec: Option<u64>,
    pub body_read_timeout_sec: Option<u64>,
    pub keepalive_timeout_sec: Option<u64>,
    pub send_timeout_sec: Option<u64>,
    pub max_connections: Option<u64>,
    pub max_connections_per_client: Option<u64>,
    pub shutdown_grace_sec: Option<u64>,
    pub workers: Option<u64>,
    pub limits: Option<FileLimits>,
    pub tls: Option<FileTls>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileLimits {
    pub max_request_line_bytes: Option<u64>,
    pub max_header_line_bytes: Option<u64>,
    pub max_head_bytes: Option<u64>,
    pub max_headers: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileTls {
    pub cert_file: Option<String>,
    pub key_file: Option<String>,
    pub auto_generate: Option<bool>,
    pub auto_cert_dir: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileUpstream {
    pub default: Option<String>,
    pub connect_timeout_ms: Option<u64>,
    pub response_timeout_ms: Option<u64>,
    pub pool_idle_timeout_sec: Option<u64>,
    pub pool_max_idle_per_host: Option<usize>,
    pub tls: Option<FileUpstreamTls>,
    pub http2: Option<Http2Setting>,
    pub servers: Option<Vec<FilePoolServer>>,
    pub balance: Option<String>,
    pub max_fails: Option<u32>,
    pub fail_timeout_sec: Option<u64>,
    pub retries: Option<u32>,
    pub health_check: Option<FileHealthCheck>,
}

/// A server of a pool: its URL alone, or with its `weight` and `backup`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum FilePoolServer {
    Url(String),
    Server(FilePoolServerSpec),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilePoolServerSpec {
    pub url: String,
    pub weight: Option<u32>,
    pub backup: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileHealthCheck {
    pub path: Option<String>,
    pub interval_sec: Option<u64>,
    pub timeout_ms: Option<u64>,
    pub expect_status: Option<u16>,
}

/// A domain's `health_check`: a check, or `off` (YAML's boolean false) where the global one should not apply.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum FileDomainHealthCheck {
    Off(bool),
    Check(FileHealthCheck),
}

/// `waf.upstream.http2`: `auto` or `off`; YAML reads an unquoted `off` as the boolean false, which means the same.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Http2Setting {
    Bool(bool),
    Word(String),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileUpstreamTls {
    pub verify: Option<bool>,
    pub ca_file: Option<String>,
    pub server_name: Option<String>,
    pub cert_file: Option<String>,
    pub key_file: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileDomain {
    pub default_upstream: Option<String>,
    pub upstream_tls: Option<FileUpstreamTls>,
    pub upstream_host: Option<String>,
    pub upstreams: Option<Vec<FilePoolServer>>,
    /// The domain's own pool settings: the keys of `upstream` of the same names.
    pub balance: Option<String>,
    pub max_fails: Option<u32>,
    pub fail_timeout_sec: Option<u64>,
    pub retries: Option<u32>,
    pub health_check: Option<FileDomainHealthCheck>,
    pub cert_file: Option<String>,
    pub key_file: Option<String>,
    pub acme_enabled: Option<bool>,
    pub acme_email: Option<String>,
    pub self_signed: Option<bool>,
    pub rate_limit: Option<FileRateLimit>,
    pub ip_filter: Option<FileIpFilter>,
    pub geoip: Option<FileGeoip>,
    pub force_https: Option<bool>,
    pub anomaly_threshold: Option<u32>,
    pub disabled_rules: Option<Vec<u32>>,
    pub excluded_variables: Option<Vec<FileExcludedVariable>>,
    pub profile: Option<waf_compiler::Profile>,
    /// Rules in the rule format (docs/rule-format.md), checked by the rule loader.
    pub custom_rules: Option<Vec<serde_json::Value>>,
    pub access_log: Option<bool>,
    pub responses: Option<bool>,
}

/// `domains.<host>.excluded_variables[]`: rule `rule` is not run on `variable` (`ARGS:q`) of the domain's requests.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileExcludedVariable {
    pub rule: u32,
    pub variable: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRules {
    pub directories: Option<Vec<String>>,
    pub artifact: Option<String>,
    pub paranoia_level: Option<u8>,
    pub anomaly_threshold: Option<u32>,
    pub unicode_code_page: Option<CodePageSetting>,
    pub reload_interval_sec: Option<u64>,
    pub remember_values: Option<bool>,
    pub confirm: Option<bool>,
    pub profile: Option<waf_compiler::Profile>,
    pub disabled_rules: Option<Vec<u32>>,
    pub crs_settings: Option<std::collections::BTreeMap<String, String>>,
    pub responses: Option<bool>,
}

/// `waf.rules.unicode_code_page`: a code page number, or the word `none`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum CodePageSetting {
    Number(u32),
    Word(String),
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileBody {
    pub limit_bytes: Option<usize>,
    pub over_limit: Option<OverLimit>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileResponseBody {
    pub limit_bytes: Option<usize>,
    pub over_limit: Option<ResponseOverLimit>,
    pub content_types: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileClientIp {
    pub trusted_proxies: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileLogging {
    pub level: Option<String>,
    pub format: Option<LogFormat>,
    pub traffic_level: Option<TrafficLogLevel>,
    pub access: Option<FileAccessLog>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileAccessLog {
    pub enabled: Option<bool>,
    pub format: Option<AccessLogFormat>,
    pub path: Option<String>,
    pub query: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileMetrics {
    pub enabled: Option<bool>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileRateLimit {
    pub enabled: Option<bool>,
    pub requests: Option<u32>,
    pub window_sec: Option<u64>,
    pub burst: Option<u32>,
    pub backend: Option<String>,
    pub redis_url: Option<String>,
    pub redis_timeout_ms: Option<u64>,
    pub fail_open: Option<bool>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileIpFilter {
    pub allow: Option<Vec<String>>,
    pub deny: Option<Vec<String>>,
    pub allow_file: Option<String>,
    pub deny_file: Option<String>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileGeoip {
    pub enabled: Option<bool>,
    pub database: Option<String>,
    pub allow_countries: Option<Vec<String>>,
    pub deny_countries: Option<Vec<String>>,
    pub unknown: Option<UnknownCountry>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileAcme {
    pub staging: Option<bool>,
    pub directory_url: Option<String>,
    pub ca_file: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileAdmin {
    pub enabled: Option<bool>,
    pub listen_address: Option<String>,
    pub port: Option<u16>,
    pub data_dir: Option<String>,
    pub tls: Option<bool>,
    pub secure_cookies: Option<bool>,
    pub events: Option<FileAdminEvents>,
}

/// `waf.admin.events`: the event store's bounds.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileAdminEvents {
    pub max_age_days: Option<u32>,
    pub max_size_mb: Option<u32>,
}
