//! File, then environment, then default: how each setting gets its value.
//!
//! The precedence is the specification's: an environment variable applies only when the file does not set the
//! value (an earlier design let the environment silently override the file).
use super::file::{
    CodePageSetting, FileAcme, FileBody, FileClientIp, FileDomain, FileDomainHealthCheck,
    FileGeoip, FileLogging, FileRateLimit, FileResponseBody, FileRoot, FileWaf, Http2Setting,
};
use super::{
    AccessLogConfig, AccessLogFormat, AcmeConfig, AdminConfig, Balance, BodyConfig, ClientIpConfig,
    Config, ConfigError, DomainConfig, DomainHealthCheck, DomainPoolSettings, HealthCheck,
    LogFormat, LoggingConfig, MetricsConfig, Mode, OverLimit, PoolServer, PoolSettings,
    ResponseBodyConfig, ResponseOverLimit, RulesConfig, ServerConfig, TlsConfig, TrafficLogLevel,
    UpstreamConfig, UpstreamHost, UpstreamHttp2, UpstreamTls,
};
use crate::cidr::Cidr;
use crate::limits::{self, Limits};
use crate::upstream_url::UpstreamUrl;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use waf_compiler::DEFAULT_CODE_PAGE;
use waf_compiler::TargetExclusion;
use waf_compiler::UnicodeMap;

/// `rules.responses` when not set: whether answers are inspected by default (docs/proxy.md, "Responses", gives
/// the measurement that decided it).
const DEFAULT_INSPECT_RESPONSES: bool = false;
/// Let's Encrypt's directories: production by default, staging with `acme.staging` (its certificates are not
/// trusted, and its rate limits are far higher, for trying a setup out).
const LETS_ENCRYPT: &str = "https://acme-v02.api.letsencrypt.org/directory";
const LETS_ENCRYPT_STAGING: &str = "https://acme-staging-v02.api.letsencrypt.org/directory";

/// Servers in one pool at most: each request's choice walks the list, and a pool is a handful of servers, not a
/// fleet.
const MAX_SERVERS: usize = 64;

/// Reads one environment variable (a parameter so tests can pass their own environment).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Turns the text of a config file (empty when there is none) into the effective configuration.
pub fn resolve(text: &str, path: &Path, env: Env) -> Result<Config, ConfigError> {
    let root = parse(text, path)?;
    let waf = root.waf.unwrap_or_default();
    Resolver { path, env }.config(waf)
}

fn parse(text: &str, path: &Path) -> Result<FileRoot, ConfigError> {
    // Two steps so an error names the key path: YAML to a generic tree, then the tree to our types through
    // serde_path_to_error, which tracks where it is (`waf.server.htp_port: unknown field ...`).
    let tree: serde_json::Value = if text.trim().is_empty() {
        serde_json::Value::Null
    } else {
        serde_saphyr::from_str(text).map_err(|e| ConfigError::Yaml {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?
    };
    if tree.is_null() {
        return Ok(FileRoot::default());
    }
    serde_path_to_error::deserialize(tree).map_err(|e| ConfigError::Key {
        path: path.to_path_buf(),
        key: e.path().to_string(),
        message: e.into_inner().to_string(),
    })
}

pub(super) struct Resolver<'a> {
    path: &'a Path,
    env: Env<'a>,
}

impl Resolver<'_> {
    pub(super) fn key_error(&self, key: &str, message: impl std::fmt::Display) -> ConfigError {
        ConfigError::Key {
            path: self.path.to_path_buf(),
            key: key.to_string(),
            message: message.to_string(),
        }
    }

    /// The file's value, else the environment variable's (parsed), else the default.
    fn pick<T: FromStr>(
        &self,
        file: Option<T>,
        env_name: &'static str,
        default: T,
    ) -> Result<T, ConfigError>
    where
        T::Err: std::fmt::Display,
    {
        if let Some(v) = file {
            return Ok(v);
        }
        match (self.env)(env_name) {
            Some(raw) => raw.trim().parse().map_err(|e: T::Err| ConfigError::Env {
                name: env_name,
                value: raw.clone(),
                message: e.to_string(),
            }),
            None => Ok(default),
        }
    }

    /// Like `pick` for booleans, accepting the usual spellings in the environment (`true/false/1/0/yes/no`).
    fn pick_bool(
        &self,
        file: Option<bool>,
        env_name: &'static str,
        default: bool,
    ) -> Result<bool, ConfigError> {
        if let Some(v) = file {
            return Ok(v);
        }
        match (self.env)(env_name) {
            Some(raw) => match raw.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "on" => Ok(true),
                "false" | "0" | "no" | "off" | "" => Ok(false),
                _ => Err(ConfigError::Env {
                    name: env_name,
                    value: raw,
                    message: "expected true or false".into(),
                }),
            },
            None => Ok(default),
        }
    }

    fn upstream(&self, key: &str, raw: &str) -> Result<UpstreamUrl, ConfigError> {
        raw.parse().map_err(|e| self.key_error(key, e))
    }

    /// The whole configuration, one section after the other (in this order, so the first error reported is the
    /// same whatever the section's step).
    fn config(&self, waf: FileWaf) -> Result<Config, ConfigError> {
        let mode = self.mode(waf.mode)?;
        let server = self.server(waf.server.unwrap_or_default())?;
        let upstream = self.upstream_config(waf.upstream.unwrap_or_default())?;
        let global_rate_limit = waf.rate_limit.unwrap_or_default();
        let global_geoip = waf.geoip.unwrap_or_default();
        let domains = self.domains(
            waf.domains.unwrap_or_default(),
            &server,
            (&global_rate_limit, &global_geoip),
        )?;
        self.https_has_a_certificate(&server, &domains)?;
        let rules = self.rules(waf.rules.unwrap_or_default())?;
        let body = self.body(waf.body.unwrap_or_default())?;
        let response_body = self.response_body(waf.response_body.unwrap_or_default())?;
        let client_ip = self.client_ip(waf.client_ip.unwrap_or_default())?;
        let logging = self.logging(waf.logging.unwrap_or_default())?;
        let rate_limit = self.rate_limit("waf.rate_limit", global_rate_limit)?;
        let ip_filter = self.ip_filter("waf.ip_filter", waf.ip_filter.unwrap_or_default())?;
        let geoip = self.geoip("waf.geoip", global_geoip)?;
        let metrics = MetricsConfig {
            enabled: waf.metrics.as_ref().and_then(|m| m.enabled).unwrap_or(true),
        };
        let acme = self.acme(waf.acme.unwrap_or_default())?;
        let admin = self.admin(waf.admin.unwrap_or_default(), server.https_enabled)?;
        self.artifact_has_no_custom_rules(&rules, &domains)?;
        Ok(Config {
            mode,
            server,
            upstream,
            domains,
            rules,
            body,
            response_body,
            client_ip,
            logging,
            metrics,
            rate_limit,
            ip_filter,
            geoip,
            acme,
            admin,
        })
    }

    /// `waf.mode`, else `OBSERVE`, else enforce.
    fn mode(&self, file: Option<Mode>) -> Result<Mode, ConfigError> {
        let observe = self.pick_bool(None, "OBSERVE", false)?;
        Ok(match file {
            Some(mode) => mode,
            None if observe => Mode::Observe,
            None => Mode::Enforce,
        })
    }

    /// `waf.domains`, keyed by the name as requests are looked up.
    fn domains(
        &self,
        file: BTreeMap<String, FileDomain>,
        server: &ServerConfig,
        global: (&FileRateLimit, &FileGeoip),
    ) -> Result<BTreeMap<String, DomainConfig>, ConfigError> {
        let mut domains = BTreeMap::new();
        for (name, d) in file {
            let domain = self.domain(&name, d, server, global)?;
            // Host matching is case-insensitive and ignores the port: store the name the way it is looked up.
            domains.insert(name.to_ascii_lowercase(), domain);
        }
        Ok(domains)
    }

    /// One domain's section, `waf.domains.<name>`.
    fn domain(
        &self,
        name: &str,
        mut d: FileDomain,
        server: &ServerConfig,
        global: (&FileRateLimit, &FileGeoip),
    ) -> Result<DomainConfig, ConfigError> {
        let key = format!("waf.domains.{name}");
        let (acme_enabled, self_signed) = self.domain_certificate_source(&key, name, &d, server)?;
        let servers = self.domain_servers(&key, &mut d)?;
        let upstream_host = match d.upstream_host {
            Some(h) => Some(self.upstream_host(&format!("{key}.upstream_host"), h)?),
            None => None,
        };
        let traffic = self.domain_traffic(&key, d.rate_limit, d.ip_filter, d.geoip, global)?;
        let (cert_file, key_file) = self.pair(&key, d.cert_file, d.key_file)?;
        let force_https = d.force_https.unwrap_or(false);
        if force_https && !server.https_enabled {
            return Err(self.key_error(
                &format!("{key}.force_https"),
                "redirects to HTTPS, but server.https_enabled is false",
            ));
        }
        if d.anomaly_threshold == Some(0) {
            return Err(self.key_error(&format!("{key}.anomaly_threshold"), "must be at least 1"));
        }
        let mut disabled_rules = d.disabled_rules.unwrap_or_default();
        disabled_rules.sort_unstable();
        disabled_rules.dedup();
        let excluded_variables =
            self.excluded_variables(&key, d.excluded_variables.unwrap_or_default())?;
        let custom_rules = self.custom_rules(&key, d.custom_rules.unwrap_or_default())?;
        Ok(DomainConfig {
            default_upstream: servers.default_upstream,
            upstream_tls: servers.upstream_tls,
            upstream_host,
            upstreams: servers.upstreams,
            pool: servers.pool,
            rate_limit: traffic.rate_limit,
            ip_filter: traffic.ip_filter,
            geoip: traffic.geoip,
            cert_file,
            key_file,
            force_https,
            acme_enabled,
            acme_email: d.acme_email,
            self_signed,
            anomaly_threshold: d.anomaly_threshold,
            disabled_rules,
            excluded_variables,
            profile: d.profile,
            custom_rules,
            responses: d.responses,
            access_log: d.access_log.unwrap_or(true),
        })
    }

    /// A domain's own servers under `key` (`waf.domains.<name>`): `default_upstream` or `upstreams`, their TLS
    /// and their pool settings, taken out of `d`.
    fn domain_servers(&self, key: &str, d: &mut FileDomain) -> Result<DomainServers, ConfigError> {
        let default_upstream = match d.default_upstream.take() {
            Some(u) => Some(self.upstream(&format!("{key}.default_upstream"), &u)?),
            None => None,
        };
        let upstream_tls = match d.upstream_tls.take() {
            Some(t) => Some(self.upstream_tls(&format!("{key}.upstream_tls"), t)?),
            None => None,
        };
        let upstreams = match d.upstreams.take() {
            Some(list) => Some(self.pool(&format!("{key}.upstreams"), list)?),
            None => None,
        };
        if upstreams.is_some() && default_upstream.is_some() {
            return Err(self.key_error(
                &format!("{key}.upstreams"),
                "set default_upstream or upstreams, not both",
            ));
        }
        let pool = DomainPoolSettings {
            balance: self.balance(key, d.balance.take())?,
            max_fails: self.max_fails(key, d.max_fails)?,
            fail_timeout_sec: self.fail_timeout(key, d.fail_timeout_sec)?,
            retries: self.retries(key, d.retries)?,
            health_check: self.domain_health_check(key, d.health_check.take())?,
        };
        if let Some(setting) = pool.first_set()
            && upstreams.is_none()
            && default_upstream.is_none()
        {
            // Without servers of its own the domain is served by the global pool, which follows upstream.*.
            return Err(self.key_error(
                &format!("{key}.{setting}"),
                "applies to the domain's own servers: set its upstreams (or default_upstream)",
            ));
        }
        Ok(DomainServers {
            default_upstream,
            upstream_tls,
            upstreams,
            pool,
        })
    }

    /// Where a domain's certificate comes from, checked: `(acme_enabled, self_signed)`; the files themselves are
    /// `cert_file` and `key_file`, read as a pair.
    fn domain_certificate_source(
        &self,
        key: &str,
        name: &str,
        d: &FileDomain,
        server: &ServerConfig,
    ) -> Result<(bool, bool), ConfigError> {
        let acme_enabled = d.acme_enabled.unwrap_or(false);
        // The name becomes the ACME identifier and the name of its files in auto_cert_dir/acme.
        let dns_name = !name.is_empty()
            && !name.starts_with('.')
            && !name.contains("..")
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
        if acme_enabled && !dns_name {
            return Err(self.key_error(
                &format!("{key}.acme_enabled"),
                "ACME needs a DNS name (letters, digits, '-' and '.'; no wildcard)",
            ));
        }
        let self_signed = d.self_signed.unwrap_or(false);
        // The name is in the generated certificate and names its files in auto_cert_dir/domains.
        if self_signed && !dns_name {
            return Err(self.key_error(
                &format!("{key}.self_signed"),
                "a self-signed certificate needs a DNS name (letters, digits, '-' and '.'; no wildcard)",
            ));
        }
        if self_signed && (acme_enabled || d.cert_file.is_some() || d.key_file.is_some()) {
            // One certificate per domain, so nobody wonders which one is served.
            return Err(self.key_error(
                &format!("{key}.self_signed"),
                "set one of cert_file/key_file, acme_enabled or self_signed",
            ));
        }
        if let Some(email) = &d.acme_email
            && !is_email(email)
        {
            return Err(self.key_error(
                &format!("{key}.acme_email"),
                format!("{email:?} is not an e-mail address"),
            ));
        }
        if acme_enabled && !(server.https_enabled && server.http_enabled) {
            // HTTP-01 is answered on the HTTP listener, and the certificate is only of use over HTTPS.
            return Err(self.key_error(
                &format!("{key}.acme_enabled"),
                "ACME needs both listeners: http_enabled (the HTTP-01 challenge is answered on the HTTP \
                 port) and https_enabled",
            ));
        }
        Ok((acme_enabled, self_signed))
    }

    /// The HTTPS listener has a certificate to serve: the global one, or a domain's.
    fn https_has_a_certificate(
        &self,
        server: &ServerConfig,
        domains: &BTreeMap<String, DomainConfig>,
    ) -> Result<(), ConfigError> {
        if server.https_enabled
            && server.tls.cert_file.is_none()
            && !server.tls.auto_generate
            && domains
                .values()
                .all(|d| d.cert_file.is_none() && !d.acme_enabled && !d.self_signed)
        {
            return Err(self.key_error(
                "waf.server.https_enabled",
                "HTTPS needs a certificate: set server.tls.cert_file and key_file, server.tls.auto_generate, \
                 or a domain's cert_file and key_file, acme_enabled or self_signed",
            ));
        }
        Ok(())
    }

    /// `waf.body`.
    fn body(&self, body: FileBody) -> Result<BodyConfig, ConfigError> {
        let limit_bytes = self.pick(
            body.limit_bytes,
            "BODY_LIMIT_BYTES",
            waf_compiler::DEFAULT_BODY_LIMIT,
        )?;
        if limit_bytes == 0 {
            return Err(self.key_error("waf.body.limit_bytes", "must be at least 1"));
        }
        Ok(BodyConfig {
            limit_bytes,
            over_limit: body.over_limit.unwrap_or(OverLimit::Reject),
        })
    }

    /// `waf.client_ip`.
    fn client_ip(&self, client_ip: FileClientIp) -> Result<ClientIpConfig, ConfigError> {
        let mut trusted_proxies = Vec::new();
        for (i, raw) in client_ip
            .trusted_proxies
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let cidr = raw
                .parse::<Cidr>()
                .map_err(|e| self.key_error(&format!("waf.client_ip.trusted_proxies[{i}]"), e))?;
            trusted_proxies.push(cidr);
        }
        Ok(ClientIpConfig { trusted_proxies })
    }

    /// `waf.logging`.
    fn logging(&self, logging: FileLogging) -> Result<LoggingConfig, ConfigError> {
        let level = logging.level.unwrap_or_else(|| "info".into());
        if tracing_subscriber::EnvFilter::try_new(&level).is_err() {
            return Err(self.key_error(
                "waf.logging.level",
                format!("invalid level {level:?}, expected e.g. info, debug, warn"),
            ));
        }
        Ok(LoggingConfig {
            level,
            format: logging.format.unwrap_or(LogFormat::Text),
            traffic_level: logging.traffic_level.unwrap_or(TrafficLogLevel::Warn),
            access: self.access_log(logging.access.unwrap_or_default())?,
        })
    }

    /// `waf.acme`: the directory (Let's Encrypt's unless told), over HTTPS only.
    fn acme(&self, file_acme: FileAcme) -> Result<AcmeConfig, ConfigError> {
        let staging = self.pick_bool(file_acme.staging, "ACME_STAGING", false)?;
        let env_value = |name: &str| (self.env)(name).filter(|v| !v.is_empty());
        let directory_url = file_acme
            .directory_url
            .or_else(|| env_value("ACME_DIRECTORY_URL"))
            .unwrap_or_else(|| match staging {
                true => LETS_ENCRYPT_STAGING.into(),
                false => LETS_ENCRYPT.into(),
            });
        if !directory_url.starts_with("https://") {
            // The account key signs every request, but the directory and the certificates come back over this
            // connection: plain HTTP would let anyone on the path hand out certificates.
            return Err(self.key_error(
                "waf.acme.directory_url",
                format!("{directory_url:?} is not an https:// URL"),
            ));
        }
        Ok(AcmeConfig {
            directory_url,
            ca_file: file_acme
                .ca_file
                .or_else(|| env_value("ACME_CA_FILE"))
                .map(PathBuf::from),
        })
    }

    /// A domain's custom rules are compiled with the rule directories, which an artifact replaces.
    fn artifact_has_no_custom_rules(
        &self,
        rules: &RulesConfig,
        domains: &BTreeMap<String, DomainConfig>,
    ) -> Result<(), ConfigError> {
        if rules.artifact.is_some()
            && let Some(host) = domains
                .iter()
                .find(|(_, d)| !d.custom_rules.is_empty())
                .map(|(h, _)| h)
        {
            return Err(self.key_error(
                &format!("waf.domains.{host}.custom_rules"),
                "is compiled with the rule directories, and waf.rules.artifact replaces them: put the rules, \
                 with `hosts: [...]`, among those compiled into the artifact",
            ));
        }
        Ok(())
    }

    fn access_log(&self, a: super::file::FileAccessLog) -> Result<AccessLogConfig, ConfigError> {
        let format = a.format.unwrap_or(AccessLogFormat::Json);
        if a.path.as_deref() == Some("") {
            return Err(self.key_error(
                "waf.logging.access.path",
                "is empty: leave it out to log to stdout",
            ));
        }
        Ok(AccessLogConfig {
            // On by default, as nginx's: an operator expects to find each request in the log.
            enabled: a.enabled.unwrap_or(true),
            format,
            path: a.path.map(PathBuf::from),
            query: a.query.unwrap_or(false),
        })
    }

    fn server(&self, s: super::file::FileServer) -> Result<ServerConfig, ConfigError> {
        let https_enabled = self.pick_bool(s.https_enabled, "HTTPS_ENABLED", false)?;
        let http_enabled = self.pick_bool(s.http_enabled, "HTTP_ENABLED", true)?;
        if !http_enabled && !https_enabled {
            return Err(self.key_error(
                "waf.server.http_enabled",
                "no listener enabled: enable http_enabled, https_enabled or both",
            ));
        }
        let (listen_address, ipv6_only) = self.listen_address(s.listen_address, s.ipv6_only)?;
        let tls = self.server_tls(s.tls.unwrap_or_default())?;
        Ok(ServerConfig {
            listen_address,
            ipv6_only,
            http_enabled,
            http_port: self.pick(s.http_port, "HTTP_PORT", 3030)?,
            https_enabled,
            https_port: self.pick(s.https_port, "HTTPS_PORT", 3443)?,
            http2_enabled: s.http2_enabled.unwrap_or(false),
            // The defaults and their nginx counterparts: `timeouts.rs`.
            first_byte_timeout_sec: positive(
                self,
                "waf.server.first_byte_timeout_sec",
                s.first_byte_timeout_sec,
                30,
            )?,
            tls_handshake_timeout_sec: positive(
                self,
                "waf.server.tls_handshake_timeout_sec",
                s.tls_handshake_timeout_sec,
                60,
            )?,
            keepalive_timeout_sec: positive(
                self,
                "waf.server.keepalive_timeout_sec",
                s.keepalive_timeout_sec,
                75,
            )?,
            send_timeout_sec: positive(
                self,
                "waf.server.send_timeout_sec",
                s.send_timeout_sec,
                60,
            )?,
            max_connections: match s.max_connections {
                Some(0) => {
                    return Err(self.key_error("waf.server.max_connections", "must be at least 1"));
                }
                n => n,
            },
            // Generous: browsers open 6 per host, and many clients share an address behind a NAT or a proxy.
            max_connections_per_client: positive(
                self,
                "waf.server.max_connections_per_client",
                s.max_connections_per_client,
                256,
            )?,
            header_read_timeout_sec: positive(
                self,
                "waf.server.header_read_timeout_sec",
                s.header_read_timeout_sec,
                30,
            )?,
            body_read_timeout_sec: positive(
                self,
                "waf.server.body_read_timeout_sec",
                s.body_read_timeout_sec,
                30,
            )?,
            shutdown_grace_sec: s.shutdown_grace_sec.unwrap_or(30),
            workers: self.workers(s.workers)?,
            limits: self.limits(s.limits.unwrap_or_default())?,
            tls,
        })
    }

    /// `waf.server.listen_address` (an IP address) and `ipv6_only` (only with an IPv6 address).
    fn listen_address(
        &self,
        address: Option<String>,
        ipv6_only: Option<bool>,
    ) -> Result<(String, bool), ConfigError> {
        // Both address families by default: a name with an AAAA record is reached over IPv6 (an ACME server
        // validating HTTP-01 among the clients), and IPv4 clients arrive on the same socket, mapped.
        let listen_address = address.unwrap_or_else(|| "::".into());
        let Ok(ip) = listen_address.parse::<std::net::IpAddr>() else {
            return Err(self.key_error(
                "waf.server.listen_address",
                format!("{listen_address:?} is not an IP address"),
            ));
        };
        let ipv6_only = ipv6_only.unwrap_or(false);
        if ipv6_only && ip.is_ipv4() {
            return Err(self.key_error(
                "waf.server.ipv6_only",
                format!("needs an IPv6 listen_address, not {listen_address}"),
            ));
        }
        Ok((listen_address, ipv6_only))
    }

    /// `waf.server.tls`: certificate files (or `TLS_CERT_FILE`/`TLS_KEY_FILE`), or `auto_generate`.
    fn server_tls(&self, tls: super::file::FileTls) -> Result<TlsConfig, ConfigError> {
        let env_path = |name: &str| (self.env)(name).filter(|p| !p.is_empty());
        let (cert_file, key_file) = self.pair(
            "waf.server.tls",
            tls.cert_file.or_else(|| env_path("TLS_CERT_FILE")),
            tls.key_file.or_else(|| env_path("TLS_KEY_FILE")),
        )?;
        let auto_generate = self.pick_bool(tls.auto_generate, "TLS_AUTO_GENERATE", false)?;
        if auto_generate && cert_file.is_some() {
            // One global certificate, so nobody wonders which one is served.
            return Err(self.key_error(
                "waf.server.tls",
                "set either cert_file/key_file or auto_generate, not both",
            ));
        }
        Ok(TlsConfig {
            cert_file,
            key_file,
            auto_generate,
            auto_cert_dir: PathBuf::from(tls.auto_cert_dir.unwrap_or_else(|| "certs".into())),
        })
    }

    /// A certificate file and its key file: both or neither.
    fn pair(
        &self,
        key: &str,
        cert: Option<String>,
        private_key: Option<String>,
    ) -> Result<(Option<PathBuf>, Option<PathBuf>), ConfigError> {
        match (cert, private_key) {
            (Some(c), Some(k)) => Ok((Some(PathBuf::from(c)), Some(PathBuf::from(k)))),
            (None, None) => Ok((None, None)),
            _ => Err(self.key_error(
                key,
                "cert_file and key_file go together: set both or neither",
            )),
        }
    }

    /// `server.workers`, by default one per core the process may run on.
    fn workers(&self, file: Option<u64>) -> Result<usize, ConfigError> {
        // More threads than this only cost memory and scheduling; a typo such as 10000 must not start them.
        const MAX_WORKERS: u64 = 1024;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        let n = positive(self, "waf.server.workers", file, cores)?;
        if n > MAX_WORKERS {
            return Err(self.key_error(
                "waf.server.workers",
                format!("{n} is more than {MAX_WORKERS}"),
            ));
        }
        Ok(n as usize)
    }

    /// `server.limits`: each at least 1 and at most its ceiling (see `limits.rs` for why each ceiling).
    fn limits(&self, l: super::file::FileLimits) -> Result<Limits, ConfigError> {
        let default = Limits::default();
        let bounded = |key: &str, file: Option<u64>, default: usize, ceiling: usize| {
            let n = positive(self, key, file, default as u64)?;
            match usize::try_from(n) {
                Ok(n) if n <= ceiling => Ok(n),
                _ => Err(self.key_error(key, format!("{n} is more than {ceiling}"))),
            }
        };
        let limits = Limits {
            max_request_line_bytes: bounded(
                "waf.server.limits.max_request_line_bytes",
                l.max_request_line_bytes,
                default.max_request_line_bytes,
                limits::MAX_REQUEST_LINE_CEILING,
            )?,
            max_header_line_bytes: bounded(
                "waf.server.limits.max_header_line_bytes",
                l.max_header_line_bytes,
                default.max_header_line_bytes,
                limits::MAX_HEAD_BYTES_CEILING,
            )?,
            max_head_bytes: bounded(
                "waf.server.limits.max_head_bytes",
                l.max_head_bytes,
                default.max_head_bytes,
                limits::MAX_HEAD_BYTES_CEILING,
            )?,
            max_headers: bounded(
                "waf.server.limits.max_headers",
                l.max_headers,
                default.max_headers,
                limits::MAX_HEADERS_CEILING,
            )?,
        };
        Ok(limits)
    }

    fn upstream_config(&self, u: super::file::FileUpstream) -> Result<UpstreamConfig, ConfigError> {
        let servers = match u.servers {
            Some(list) => Some(self.pool("waf.upstream.servers", list)?),
            None => None,
        };
        let raw = match (&servers, u.default) {
            (Some(pool), Some(default)) if default != pool[0].url.to_string() => {
                // `--check-config` prints both, the first server as the default; anything else is ambiguous.
                return Err(self.key_error(
                    "waf.upstream.servers",
                    "set upstream.default or upstream.servers, not both",
                ));
            }
            (Some(pool), _) => pool[0].url.to_string(),
            (None, default) => {
                self.pick(default, "UPSTREAM", "http://127.0.0.1:8080".to_string())?
            }
        };
        Ok(UpstreamConfig {
            default: self.upstream("waf.upstream.default", &raw)?,
            connect_timeout_ms: positive(
                self,
                "waf.upstream.connect_timeout_ms",
                u.connect_timeout_ms,
                3_000,
            )?,
            response_timeout_ms: positive(
                self,
                "waf.upstream.response_timeout_ms",
                u.response_timeout_ms,
                60_000,
            )?,
            pool_idle_timeout_sec: u.pool_idle_timeout_sec.unwrap_or(90),
            pool_max_idle_per_host: u.pool_max_idle_per_host.unwrap_or(256),
            tls: self.upstream_tls("waf.upstream.tls", u.tls.unwrap_or_default())?,
            http2: match u.http2 {
                None => UpstreamHttp2::Auto,
                Some(Http2Setting::Word(w)) if w == "auto" => UpstreamHttp2::Auto,
                Some(Http2Setting::Bool(false)) => UpstreamHttp2::Off,
                Some(Http2Setting::Word(w)) if w == "off" => UpstreamHttp2::Off,
                Some(other) => {
                    let shown = match other {
                        Http2Setting::Bool(b) => b.to_string(),
                        Http2Setting::Word(w) => format!("{w:?}"),
                    };
                    return Err(self.key_error(
                        "waf.upstream.http2",
                        format!("unknown value {shown}, expected auto or off"),
                    ));
                }
            },
            servers,
            pool: PoolSettings {
                balance: self
                    .balance("waf.upstream", u.balance)?
                    .unwrap_or(Balance::RoundRobin),
                // nginx's defaults: one failure takes a server out for ten seconds.
                max_fails: self.max_fails("waf.upstream", u.max_fails)?.unwrap_or(1),
                fail_timeout_sec: self
                    .fail_timeout("waf.upstream", u.fail_timeout_sec)?
                    .unwrap_or(10),
                retries: self.retries("waf.upstream", u.retries)?.unwrap_or(2),
                health_check: self.health_check("waf.upstream", u.health_check)?,
            },
        })
    }

    /// `balance` under `parent` (`waf.upstream` or a domain).
    fn balance(&self, parent: &str, raw: Option<String>) -> Result<Option<Balance>, ConfigError> {
        Ok(match raw.as_deref() {
            None => None,
            Some("round_robin") => Some(Balance::RoundRobin),
            Some("least_conn") => Some(Balance::LeastConn),
            Some("ip_hash") => Some(Balance::IpHash),
            Some(other) => {
                return Err(self.key_error(
                    &format!("{parent}.balance"),
                    format!("unknown value {other:?}, expected round_robin, least_conn or ip_hash"),
                ));
            }
        })
    }

    fn max_fails(&self, parent: &str, raw: Option<u32>) -> Result<Option<u32>, ConfigError> {
        match raw {
            Some(0) => Err(self.key_error(&format!("{parent}.max_fails"), "must be at least 1")),
            n => Ok(n),
        }
    }

    fn fail_timeout(&self, parent: &str, raw: Option<u64>) -> Result<Option<u64>, ConfigError> {
        match raw {
            Some(0) => {
                Err(self.key_error(&format!("{parent}.fail_timeout_sec"), "must be at least 1"))
            }
            n => Ok(n),
        }
    }

    fn retries(&self, parent: &str, raw: Option<u32>) -> Result<Option<u32>, ConfigError> {
        // Each retry is another server of the pool, and a pool has at most MAX_SERVERS: more is a typo.
        match raw {
            Some(n) if n as usize >= MAX_SERVERS => Err(self.key_error(
                &format!("{parent}.retries"),
                format!("{n} is more than a pool's {MAX_SERVERS} servers allow"),
            )),
            n => Ok(n),
        }
    }

    /// A domain's `health_check`: its own, or `off`.
    fn domain_health_check(
        &self,
        parent: &str,
        raw: Option<FileDomainHealthCheck>,
    ) -> Result<Option<DomainHealthCheck>, ConfigError> {
        match raw {
            None => Ok(None),
            Some(FileDomainHealthCheck::Off(false)) => Ok(Some(DomainHealthCheck::Off)),
            Some(FileDomainHealthCheck::Off(true)) => Err(self.key_error(
                &format!("{parent}.health_check"),
                "true is not a check: give {path, interval_sec, timeout_ms, expect_status}, or off",
            )),
            Some(FileDomainHealthCheck::Check(check)) => Ok(self
                .health_check(parent, Some(check))?
                .map(DomainHealthCheck::Check)),
        }
    }

    /// `health_check` under `parent`, with its defaults.
    fn health_check(
        &self,
        parent: &str,
        raw: Option<super::file::FileHealthCheck>,
    ) -> Result<Option<HealthCheck>, ConfigError> {
        let Some(h) = raw else {
            return Ok(None);
        };
        let key = format!("{parent}.health_check");
        let path = h.path.unwrap_or_else(|| "/".into());
        if !path.starts_with('/') || path.parse::<http::uri::PathAndQuery>().is_err() {
            return Err(self.key_error(
                &format!("{key}.path"),
                format!("{path:?} is not a path (starting with /)"),
            ));
        }
        let expect_status = h.expect_status.unwrap_or(200);
        if !(100..=599).contains(&expect_status) {
            return Err(self.key_error(
                &format!("{key}.expect_status"),
                format!("{expect_status} is not an HTTP status"),
            ));
        }
        Ok(Some(HealthCheck {
            path,
            interval_sec: positive(self, &format!("{key}.interval_sec"), h.interval_sec, 5)?,
            timeout_ms: positive(self, &format!("{key}.timeout_ms"), h.timeout_ms, 1_000)?,
            expect_status,
        }))
    }

    /// A pool (`key`): at least one server, each with a weight of at least 1, and at least one that is not a
    /// backup.
    fn pool(
        &self,
        key: &str,
        list: Vec<super::file::FilePoolServer>,
    ) -> Result<Vec<PoolServer>, ConfigError> {
        use super::file::FilePoolServer;
        if list.is_empty() {
            return Err(self.key_error(key, "a pool needs at least one server"));
        }
        if list.len() > MAX_SERVERS {
            return Err(self.key_error(key, format!("more than {MAX_SERVERS} servers")));
        }
        let mut pool = Vec::with_capacity(list.len());
        for (i, entry) in list.into_iter().enumerate() {
            let (url, weight, backup) = match entry {
                FilePoolServer::Url(url) => (url, None, None),
                FilePoolServer::Server(s) => (s.url, s.weight, s.backup),
            };
            let url = self.upstream(&format!("{key}[{i}].url"), &url)?;
            if weight == Some(0) {
                return Err(self.key_error(
                    &format!("{key}[{i}].weight"),
                    "must be at least 1 (leave a server out of the list to send it nothing)",
                ));
            }
            pool.push(PoolServer {
                url,
                weight: weight.unwrap_or(1),
                backup: backup.unwrap_or(false),
            });
        }
        if pool.iter().all(|s| s.backup) {
            return Err(self.key_error(key, "every server is a backup: none would be used"));
        }
        Ok(pool)
    }

    /// `upstream.tls` or a domain's `upstream_tls` (`key`). Its files are read and parsed here, as the proxy
    /// will read them, so a missing CA file or a key that is not the certificate's is refused by name.
    fn upstream_tls(
        &self,
        key: &str,
        t: super::file::FileUpstreamTls,
    ) -> Result<UpstreamTls, ConfigError> {
        let (cert_file, key_file) = self.pair(key, t.cert_file, t.key_file)?;
        if let Some(name) = &t.server_name
            && rustls::pki_types::ServerName::try_from(name.as_str()).is_err()
        {
            return Err(self.key_error(
                &format!("{key}.server_name"),
                format!("{name:?} is not a DNS name or an IP address"),
            ));
        }
        let tls = UpstreamTls {
            verify: t.verify.unwrap_or(true),
            ca_file: t.ca_file.map(PathBuf::from),
            server_name: t.server_name,
            cert_file,
            key_file,
        };
        crate::upstream_tls::check(&tls)
            .map_err(|e| self.key_error(&format!("{key}.{}", e.key()), e.to_string()))?;
        Ok(tls)
    }

    /// A domain's `upstream_host`: `$upstream`, or a host (with an optional port) to send as `Host`.
    fn upstream_host(&self, key: &str, raw: String) -> Result<UpstreamHost, ConfigError> {
        if raw == "$upstream" {
            return Ok(UpstreamHost::Upstream);
        }
        match raw.parse::<http::uri::Authority>() {
            Ok(a) if !a.host().is_empty() && !raw.contains('@') => Ok(UpstreamHost::Fixed(raw)),
            _ => Err(self.key_error(
                key,
                format!("{raw:?} is neither $upstream nor a host name (with an optional port)"),
            )),
        }
    }

    /// A domain's `custom_rules`: rule mappings without `hosts` (the loader scopes each to the domain; a rule of
    /// one domain that named other hosts would be another domain's rule in disguise). The loader checks the rest.
    fn custom_rules(
        &self,
        key: &str,
        rules: Vec<serde_json::Value>,
    ) -> Result<Vec<serde_json::Value>, ConfigError> {
        for (i, rule) in rules.iter().enumerate() {
            let Some(map) = rule.as_object() else {
                return Err(self.key_error(
                    &format!("{key}.custom_rules[{i}]"),
                    "must be a rule mapping",
                ));
            };
            if map.contains_key("hosts") {
                return Err(self.key_error(
                    &format!("{key}.custom_rules[{i}].hosts"),
                    "a domain's rules apply to that domain only: leave `hosts` out",
                ));
            }
        }
        Ok(rules)
    }

    /// A domain's `excluded_variables`, each a variable as a match names it (`ARGS:q`), sorted by rule id (the
    /// ids are checked against the rules in force, as `disabled_rules` are: `inspect::domain_rule_errors`).
    fn excluded_variables(
        &self,
        key: &str,
        entries: Vec<super::file::FileExcludedVariable>,
    ) -> Result<Vec<TargetExclusion>, ConfigError> {
        let mut targets = entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                TargetExclusion::parse(e.rule, &e.variable).map_err(|err| {
                    self.key_error(
                        &format!("{key}.excluded_variables[{i}].variable"),
                        err.to_string(),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        targets.sort();
        targets.dedup();
        Ok(targets)
    }

    /// `waf.rules`.
    fn rules(&self, r: super::file::FileRules) -> Result<RulesConfig, ConfigError> {
        let artifact = r.artifact.map(PathBuf::from);
        let directories = self.rule_directories(r.directories, artifact.is_some())?;
        let paranoia_level = r.paranoia_level.unwrap_or(1);
        if !(1..=4).contains(&paranoia_level) {
            return Err(self.key_error("waf.rules.paranoia_level", "must be 1, 2, 3 or 4"));
        }
        // 0 would block every request, matching or not.
        let anomaly_threshold = r
            .anomaly_threshold
            .unwrap_or(waf_compiler::DEFAULT_ANOMALY_THRESHOLD);
        if anomaly_threshold == 0 {
            return Err(self.key_error("waf.rules.anomaly_threshold", "must be at least 1"));
        }
        let unicode_code_page = self.code_page(r.unicode_code_page.as_ref())?;
        let reload_interval_sec = self.pick(r.reload_interval_sec, "RELOAD_INTERVAL_SEC", 5)?;
        if reload_interval_sec == 0 {
            return Err(self.key_error("waf.rules.reload_interval_sec", "must be at least 1"));
        }
        let crs_settings = r.crs_settings.unwrap_or_default();
        if artifact.is_some() && !crs_settings.is_empty() {
            return Err(self.key_error(
                "waf.rules.crs_settings",
                "applies to rule directories; an artifact has its settings baked in \
                 (rulec compile --crs-setting NAME=VALUE)",
            ));
        }
        Ok(RulesConfig {
            directories,
            artifact,
            paranoia_level,
            anomaly_threshold,
            unicode_code_page,
            reload_interval_sec,
            remember_values: r.remember_values.unwrap_or(true),
            confirm: r.confirm.unwrap_or(true),
            profile: r.profile.unwrap_or_default(),
            disabled_rules: {
                let mut ids = r.disabled_rules.unwrap_or_default();
                ids.sort_unstable();
                ids.dedup();
                ids
            },
            crs_settings,
            responses: r.responses.unwrap_or(DEFAULT_INSPECT_RESPONSES),
        })
    }

    /// `waf.rules.directories`, else `RULE_DIR`, else `rules`; none with an artifact (`has_artifact`).
    fn rule_directories(
        &self,
        directories: Option<Vec<String>>,
        has_artifact: bool,
    ) -> Result<Vec<PathBuf>, ConfigError> {
        let directories: Vec<PathBuf> = match (directories, has_artifact) {
            // One source of rules, so nobody wonders which one is in force.
            (Some(_), true) => {
                return Err(self.key_error(
                    "waf.rules",
                    "set either `directories` or `artifact`, not both",
                ));
            }
            // The artifact replaces the directories (RULE_DIR included): it was compiled from them.
            (None, true) => return Ok(Vec::new()),
            (Some(dirs), false) => dirs.into_iter().map(PathBuf::from).collect(),
            // RULE_DIR may name several directories separated by commas.
            (None, false) => (self.env)("RULE_DIR")
                .unwrap_or_else(|| "rules".into())
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .collect(),
        };
        if directories.is_empty() {
            return Err(self.key_error(
                "waf.rules.directories",
                "at least one rule directory is needed",
            ));
        }
        Ok(directories)
    }

    /// `waf.rules.unicode_code_page`: a code page the engine has a map for, `none`, or 20127 by default.
    fn code_page(&self, setting: Option<&CodePageSetting>) -> Result<Option<u32>, ConfigError> {
        let code_page = match setting {
            None => Some(DEFAULT_CODE_PAGE),
            Some(CodePageSetting::Number(n)) => Some(*n),
            Some(CodePageSetting::Word(w)) if w == "none" => None,
            Some(CodePageSetting::Word(w)) => {
                return Err(self.key_error(
                    "waf.rules.unicode_code_page",
                    format!("`{w}` is neither a code page number nor `none`"),
                ));
            }
        };
        UnicodeMap::for_code_page(code_page)
            .map_err(|e| self.key_error("waf.rules.unicode_code_page", e.to_string()))?;
        Ok(code_page)
    }

    /// `waf.response_body`: ModSecurity's recommended `SecResponseBodyLimit` (512 KiB) and
    /// `SecResponseBodyMimeType` (`text/plain text/html text/xml`) by default.
    fn response_body(&self, b: FileResponseBody) -> Result<ResponseBodyConfig, ConfigError> {
        let limit_bytes = b.limit_bytes.unwrap_or(512 * 1024);
        if limit_bytes == 0 {
            return Err(self.key_error("waf.response_body.limit_bytes", "must be at least 1"));
        }
        let over_limit = b.over_limit.unwrap_or(ResponseOverLimit::InspectPrefix);
        let content_types = match b.content_types {
            None => ["text/plain", "text/html", "text/xml"]
                .map(String::from)
                .to_vec(),
            Some(list) => {
                let mut types = Vec::new();
                for (i, raw) in list.iter().enumerate() {
                    let media = raw.trim().to_ascii_lowercase();
                    let valid = media.split_once('/').is_some_and(|(t, s)| {
                        !t.is_empty() && !s.is_empty() && !media.contains([';', ' ', ','])
                    });
                    if !valid {
                        return Err(self.key_error(
                            &format!("waf.response_body.content_types[{i}]"),
                            format!(
                                "{raw:?} is not a media type (`type/subtype`, without parameters)"
                            ),
                        ));
                    }
                    types.push(media);
                }
                types
            }
        };
        Ok(ResponseBodyConfig {
            limit_bytes,
            over_limit,
            content_types,
        })
    }

    fn admin(
        &self,
        a: super::file::FileAdmin,
        https_enabled: bool,
    ) -> Result<AdminConfig, ConfigError> {
        // Loopback by default: the panel changes what the proxy lets through, so reaching it from elsewhere is
        // an explicit choice.
        // The environment variables let a container image turn the panel on without editing the file.
        let listen_address = self.pick(
            a.listen_address,
            "ADMIN_LISTEN_ADDRESS",
            "127.0.0.1".to_owned(),
        )?;
        if listen_address.parse::<std::net::IpAddr>().is_err() {
            return Err(self.key_error(
                "waf.admin.listen_address",
                format!("{listen_address:?} is not an IP address"),
            ));
        }
        let data_dir = self.pick(a.data_dir, "ADMIN_DATA_DIR", "admin-data".to_owned())?;
        if data_dir.is_empty() {
            return Err(self.key_error("waf.admin.data_dir", "must not be empty"));
        }
        let tls = a.tls.unwrap_or(false);
        if tls && !https_enabled {
            // The certificates are the HTTPS listener's: without it there are none to serve.
            return Err(self.key_error(
                "waf.admin.tls",
                "serves the panel with the proxy's certificates, but server.https_enabled is false",
            ));
        }
        if tls && a.secure_cookies == Some(false) {
            // A session cookie without Secure would also be sent over plain HTTP to the same host, where anyone on
            // the path reads it: over HTTPS there is no reason to allow that.
            return Err(self.key_error(
                "waf.admin.secure_cookies",
                "false contradicts waf.admin.tls: true (the panel's cookies over HTTPS are always Secure)",
            ));
        }
        let events = a.events.unwrap_or_default();
        let defaults = super::EventBounds::default();
        let bound = |value: Option<u32>, name: &str, default: u32| match value {
            Some(0) => Err(self.key_error(
                &format!("waf.admin.events.{name}"),
                "must be at least 1 (an event store that keeps nothing would show no events)",
            )),
            value => Ok(value.unwrap_or(default)),
        };
        let events = super::EventBounds {
            max_age_days: bound(events.max_age_days, "max_age_days", defaults.max_age_days)?,
            max_size_mb: bound(events.max_size_mb, "max_size_mb", defaults.max_size_mb)?,
        };
        Ok(AdminConfig {
            events,
            enabled: self.pick_bool(a.enabled, "ADMIN_ENABLED", false)?,
            listen_address,
            port: self.pick(a.port, "ADMIN_PORT", 8888)?,
            data_dir: PathBuf::from(data_dir),
            tls,
            secure_cookies: a.secure_cookies.unwrap_or(tls),
        })
    }
}

/// A timeout or interval: zero would mean "fail at once" or "spin", so it is refused.
fn positive(r: &Resolver, key: &str, file: Option<u64>, default: u64) -> Result<u64, ConfigError> {
    match file {
        Some(0) => Err(r.key_error(key, "must be at least 1")),
        Some(v) => Ok(v),
        None => Ok(default),
    }
}

/// An ACME account's contact, as ACME servers accept it (a `mailto:` URI is made of it): one `@` between a
/// non-empty local part and a domain with a dot, no spaces or control characters, 254 characters at most (RFC 5321).
fn is_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    email.len() <= 254
        && !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && email.chars().all(|c| {
            !c.is_whitespace() && !c.is_control() && !matches!(c, '<' | '>' | ',' | ';' | '?')
        })
}

/// A domain's own servers, as [`DomainConfig`] holds them.
struct DomainServers {
    default_upstream: Option<UpstreamUrl>,
    upstream_tls: Option<UpstreamTls>,
    upstreams: Option<Vec<PoolServer>>,
    pool: DomainPoolSettings,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn run(text: &str, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        resolve(text, Path::new("t.yml"), &|n| env.get(n).cloned())
    }

    #[test]
    fn the_access_log_is_on_in_json_to_stdout_without_queries_unless_told() {
        let c = run("", &[]).unwrap();
        let expected = AccessLogConfig {
            enabled: true,
            format: AccessLogFormat::Json,
            path: None,
            query: false,
        };
        assert_eq!(c.logging.access, expected);
        let text = "waf:\n  logging: {access: {enabled: false, format: combined, path: a.log, query: true}}\n  \
                    domains: {Quiet.Test: {access_log: false}, loud.test: {}}\n";
        let c = run(text, &[]).unwrap();
        let expected = AccessLogConfig {
            enabled: false,
            format: AccessLogFormat::Combined,
            path: Some(PathBuf::from("a.log")),
            query: true,
        };
        assert_eq!(c.logging.access, expected);
        assert!(!c.domains["quiet.test"].access_log);
        assert!(c.domains["loud.test"].access_log);
        for (text, key) in [
            (
                "waf: {logging: {access: {format: clf}}}",
                "waf.logging.access.format",
            ),
            (
                "waf: {logging: {access: {path: ''}}}",
                "waf.logging.access.path",
            ),
            (
                "waf: {logging: {access: {rotate: true}}}",
                "waf.logging.access",
            ),
        ] {
            let e = run(text, &[]).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
        // The settings with a few values are serde enums: the error lists them.
        let e = run("waf: {mode: block}", &[]).unwrap_err().to_string();
        assert!(
            e.contains("unknown variant `block`, expected one of `enforce`, `observe`, `disabled`"),
            "{e}"
        );
    }

    #[test]
    fn defaults_without_file_or_env() {
        let c = run("", &[]).unwrap();
        assert_eq!(c.mode, Mode::Enforce);
        assert_eq!(c.server.http_port, 3030);
        assert_eq!(c.upstream.default.to_string(), "http://127.0.0.1:8080");
        assert_eq!(c.rules.directories, vec![PathBuf::from("rules")]);
        assert_eq!(c.body.limit_bytes, 1_048_576);
        // ModSecurity's recommended response settings; answers not inspected unless asked (docs/proxy.md).
        assert!(!c.rules.responses);
        assert_eq!(c.response_body.limit_bytes, 512 * 1024);
        assert_eq!(c.response_body.over_limit, ResponseOverLimit::InspectPrefix);
        assert_eq!(
            c.response_body.content_types,
            ["text/plain", "text/html", "text/xml"]
        );
        assert_eq!(c.rules.reload_interval_sec, 5);
        assert!(c.rules.remember_values);
        let cores = std::thread::available_parallelism().unwrap().get();
        assert_eq!(c.server.workers, cores);
        let c = run("waf: {rules: {remember_values: false}}", &[]).unwrap();
        assert!(!c.rules.remember_values);
        assert!(c.rules.disabled_rules.is_empty());
        let c = run(
            "waf: {rules: {disabled_rules: [920420, 911100, 920420]}}",
            &[],
        )
        .unwrap();
        assert_eq!(c.rules.disabled_rules, [911100, 920420]);
        let c = run(
            "waf: {rules: {crs_settings: {allowed_methods: GET PUT}}}",
            &[],
        )
        .unwrap();
        assert_eq!(c.rules.crs_settings["allowed_methods"], "GET PUT");
        let e = run(
            "waf: {rules: {artifact: r.wafc, crs_settings: {allowed_methods: GET}}}",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("waf.rules.crs_settings"), "{e}");
        let c = run("waf: {server: {workers: 3}}", &[]).unwrap();
        assert_eq!(c.server.workers, 3);
    }

    #[test]
    fn env_applies_only_when_the_file_is_silent() {
        let env = [
            ("UPSTREAM", "http://10.0.0.1:9000"),
            ("HTTP_PORT", "4000"),
            ("OBSERVE", "true"),
            ("RULE_DIR", "a, b"),
            ("BODY_LIMIT_BYTES", "10"),
        ];
        let c = run("", &env).unwrap();
        assert_eq!(c.upstream.default.to_string(), "http://10.0.0.1:9000");
        assert_eq!(c.server.http_port, 4000);
        assert_eq!(c.mode, Mode::Observe);
        assert_eq!(
            c.rules.directories,
            vec![PathBuf::from("a"), PathBuf::from("b")]
        );
        let file = "waf:\n  mode: enforce\n  server: {http_port: 5000}\n  upstream: {default: 'http://u:1'}\n";
        let c = run(file, &env).unwrap();
        assert_eq!(c.mode, Mode::Enforce);
        assert_eq!(c.server.http_port, 5000);
        assert_eq!(c.upstream.default.to_string(), "http://u:1");
        assert_eq!(c.body.limit_bytes, 10);
    }

    #[test]
    fn unknown_key_is_an_error_with_its_path() {
        let e = run("waf:\n  server:\n    htp_port: 1\n", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("waf.server.htp_port"), "{e}");
        assert!(e.contains("unknown field"), "{e}");
    }

    #[test]
    fn bad_values_are_errors() {
        for (text, key) in [
            ("waf: {mode: block}", "waf.mode"),
            ("waf: {server: {http_port: 70000}}", "waf.server.http_port"),
            (
                "waf: {upstream: {default: 'ftp://x'}}",
                "waf.upstream.default",
            ),
            (
                "waf: {client_ip: {trusted_proxies: ['10.0.0.0/33']}}",
                "trusted_proxies[0]",
            ),
            (
                "waf: {rules: {paranoia_level: 5}}",
                "waf.rules.paranoia_level",
            ),
            ("waf: {body: {over_limit: pass}}", "waf.body.over_limit"),
            ("waf: {logging: {format: xml}}", "waf.logging.format"),
            (
                "waf: {logging: {traffic_level: loud}}",
                "waf.logging.traffic_level",
            ),
            (
                "waf: {logging: {access: {format: common}}}",
                "waf.logging.access.format",
            ),
            ("waf: {geoip: {unknown: block}}", "waf.geoip.unknown"),
            (
                "waf: {response_body: {over_limit: pass}}",
                "waf.response_body.over_limit",
            ),
            (
                "waf: {response_body: {limit_bytes: 0}}",
                "waf.response_body.limit_bytes",
            ),
            (
                "waf: {response_body: {content_types: [text/html, 'text/plain; charset=utf-8']}}",
                "waf.response_body.content_types[1]",
            ),
            (
                "waf: {rules: {unicode_code_page: 65001}}",
                "waf.rules.unicode_code_page",
            ),
            (
                "waf: {rules: {unicode_code_page: ascii}}",
                "waf.rules.unicode_code_page",
            ),
            ("waf: {server: {workers: 0}}", "waf.server.workers"),
            ("waf: {server: {workers: 5000}}", "waf.server.workers"),
            (
                "waf: {server: {limits: {max_head_bytes: 0}}}",
                "waf.server.limits.max_head_bytes",
            ),
            (
                "waf: {server: {limits: {max_request_line_bytes: 20000}}}",
                "waf.server.limits.max_request_line_bytes",
            ),
        ] {
            let e = run(text, &[]).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
        let e = run("", &[("HTTP_PORT", "x")]).unwrap_err().to_string();
        assert!(e.contains("HTTP_PORT"), "{e}");
    }

    #[test]
    fn unicode_code_page_is_20127_unless_set() {
        let page = |text| run(text, &[]).unwrap().rules.unicode_code_page;
        assert_eq!(page(""), Some(20127));
        assert_eq!(page("waf: {rules: {unicode_code_page: 1252}}"), Some(1252));
        assert_eq!(page("waf: {rules: {unicode_code_page: none}}"), None);
    }

    #[test]
    fn https_settings() {
        let c = run(
            "waf:\n  server: {https_enabled: true, http_enabled: false, tls: {auto_generate: true}}\n",
            &[],
        )
        .unwrap();
        assert!(c.server.https_enabled && !c.server.http_enabled);
        assert_eq!(c.server.tls.auto_cert_dir, PathBuf::from("certs"));
        let c = run(
            "waf:\n  server: {https_enabled: true}\n  domains: {A.com: {cert_file: a.pem, key_file: a.key, force_https: true}}\n",
            &[],
        )
        .unwrap();
        assert_eq!(c.domains["a.com"].cert_file, Some(PathBuf::from("a.pem")));
        assert!(c.domains["a.com"].force_https);
        let env = [
            ("HTTPS_ENABLED", "true"),
            ("TLS_CERT_FILE", "c.pem"),
            ("TLS_KEY_FILE", "k.pem"),
        ];
        let c = run("", &env).unwrap();
        assert_eq!(c.server.tls.cert_file, Some(PathBuf::from("c.pem")));
        assert_eq!(c.acme.directory_url, LETS_ENCRYPT);
        let c = run(
            "waf:\n  server: {https_enabled: true}\n  domains: {a.com: {acme_enabled: true, acme_email: o@a.com}}\n",
            &[("ACME_STAGING", "true"), ("ACME_CA_FILE", "ca.pem")],
        )
        .unwrap();
        assert!(c.domains["a.com"].acme_enabled);
        assert_eq!(c.acme.directory_url, LETS_ENCRYPT_STAGING);
        assert_eq!(c.acme.ca_file, Some(PathBuf::from("ca.pem")));
        // A self-signed domain is a certificate HTTPS can start with.
        let c = run(
            "waf: {server: {https_enabled: true}, domains: {a.com: {self_signed: true}}}",
            &[],
        )
        .unwrap();
        assert!(c.domains["a.com"].self_signed);
        let env = [("ACME_DIRECTORY_URL", "https://127.0.0.1:14000/dir")];
        let c = run("waf: {acme: {staging: true}}", &env).unwrap();
        assert_eq!(c.acme.directory_url, "https://127.0.0.1:14000/dir");
        for (text, env, says) in [
            (
                "waf: {server: {https_enabled: true}}",
                &[][..],
                "needs a certificate",
            ),
            ("", &[("HTTPS_ENABLED", "true")][..], "needs a certificate"),
            (
                "waf: {server: {http_enabled: false}}",
                &[][..],
                "no listener",
            ),
            (
                "waf: {server: {https_enabled: true, tls: {cert_file: c.pem}}}",
                &[][..],
                "set both or neither",
            ),
            (
                "waf: {server: {https_enabled: true, tls: {cert_file: c, key_file: k, auto_generate: true}}}",
                &[][..],
                "not both",
            ),
            (
                "waf: {domains: {a.com: {force_https: true}}}",
                &[][..],
                "https_enabled is false",
            ),
            (
                "waf: {server: {https_enabled: true, http_enabled: false}, domains: {a.com: {acme_enabled: true}}}",
                &[][..],
                "ACME needs both listeners",
            ),
            (
                "waf: {domains: {a.com: {acme_enabled: true}}}",
                &[][..],
                "ACME needs both listeners",
            ),
            (
                "waf: {server: {https_enabled: true}, domains: {'../x': {acme_enabled: true}}}",
                &[][..],
                "ACME needs a DNS name",
            ),
            (
                "waf: {acme: {directory_url: 'http://ca.test/dir'}}",
                &[][..],
                "not an https:// URL",
            ),
            (
                "waf: {domains: {a.com: {self_signed: true, cert_file: c, key_file: k}}}",
                &[][..],
                "set one of cert_file/key_file, acme_enabled or self_signed",
            ),
            (
                "waf: {domains: {'a/../b': {self_signed: true}}}",
                &[][..],
                "waf.domains.a/../b.self_signed: a self-signed certificate needs a DNS name",
            ),
            (
                "waf: {domains: {a.com: {acme_email: 'ops at a.com'}}}",
                &[][..],
                "waf.domains.a.com.acme_email: \"ops at a.com\" is not an e-mail address",
            ),
        ] {
            let e = run(text, env).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn an_artifact_replaces_the_directories_and_both_are_refused() {
        let c = run("waf: {rules: {artifact: rules.wafc}}", &[("RULE_DIR", "a")]).unwrap();
        assert_eq!(c.rules.artifact, Some(PathBuf::from("rules.wafc")));
        assert!(c.rules.directories.is_empty());
        let e = run(
            "waf: {rules: {artifact: rules.wafc, directories: [rules]}}",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("waf.rules") && e.contains("not both"), "{e}");
    }

    #[test]
    fn a_domains_custom_rules_are_mappings_without_hosts_and_need_rule_directories() {
        let rule = "{id: 1, msg: m, pattern: x, variables: [ARGS], action: deny";
        let c = run(
            &format!("waf: {{domains: {{a.test: {{custom_rules: [{rule}}}]}}}}}}"),
            &[],
        )
        .unwrap();
        let sources = c.rule_sources();
        assert_eq!(sources.domain_custom_rules.len(), 1);
        assert_eq!(sources.domain_custom_rules[0].0, "a.test");
        for (text, key, message) in [
            (
                format!("[{rule}, hosts: [b.test]}}]"),
                "custom_rules[0].hosts",
                "leave `hosts` out",
            ),
            (
                "[just text]".to_owned(),
                "custom_rules[0]",
                "must be a rule mapping",
            ),
        ] {
            let e = run(
                &format!("waf: {{domains: {{a.test: {{custom_rules: {text}}}}}}}"),
                &[],
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains(&format!("waf.domains.a.test.{key}")) && e.contains(message),
                "{e}"
            );
        }
        let e = run(
            &format!("waf: {{rules: {{artifact: r.wafc}}, domains: {{a.test: {{custom_rules: [{rule}}}]}}}}}}"),
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("waf.domains.a.test.custom_rules") && e.contains("artifact"),
            "{e}"
        );
    }

    #[test]
    fn domain_upstream_wins_and_lookup_ignores_case() {
        let c = run(
            "waf:\n  domains:\n    App.Example.com: {default_upstream: 'http://127.0.0.1:9'}\n",
            &[],
        )
        .unwrap();
        let pools = crate::upstream_pool::Pools::build(&c, &Default::default());
        let upstream = |host| pools.for_host(host).servers[0].config.url.to_string();
        assert_eq!(upstream("app.example.com"), "http://127.0.0.1:9");
        assert_eq!(upstream("other"), "http://127.0.0.1:8080");
    }

    #[test]
    fn upstream_tls_http2_and_host_settings() {
        let c = run("", &[("UPSTREAM", "https://app.internal")]).unwrap();
        assert_eq!(c.upstream.default.to_string(), "https://app.internal");
        assert_eq!(c.upstream.tls, UpstreamTls::default());
        assert!(c.upstream.tls.verify);
        assert_eq!(c.upstream.http2, UpstreamHttp2::Auto);
        let u = &c.upstream;
        assert_eq!(
            (u.pool.balance, u.pool.max_fails, u.pool.fail_timeout_sec),
            (Balance::RoundRobin, 1, 10)
        );
        assert_eq!(
            (
                u.pool.retries,
                u.servers.is_none(),
                u.pool.health_check.is_none()
            ),
            (2, true, true)
        );
        let c = run(
            "waf: {upstream: {servers: ['http://a:1', {url: 'https://b', weight: 3, backup: true}], \
             balance: ip_hash, health_check: {path: /ping}}}",
            &[],
        )
        .unwrap();
        let u = &c.upstream;
        assert_eq!(
            u.default.to_string(),
            "http://a:1",
            "the first server is the default shown"
        );
        assert_eq!(u.servers.as_ref().unwrap()[1].weight, 3);
        assert_eq!(u.pool.balance, Balance::IpHash);
        let check = u.pool.health_check.as_ref().unwrap();
        assert_eq!(
            (check.path.as_str(), check.interval_sec, check.expect_status),
            ("/ping", 5, 200)
        );
        // What --check-config prints for it reads back.
        run(
            "waf: {upstream: {default: 'http://a:1', servers: ['http://a:1']}}",
            &[],
        )
        .unwrap();
        let c = run(
            "waf:\n  upstream: {http2: off, tls: {verify: false, server_name: backend.test}}\n  domains:\n    \
             a.test: {default_upstream: 'https://10.0.0.1', upstream_tls: {server_name: a.internal}, upstream_host: $upstream}\n    \
             b.test: {upstream_host: 'b.example:8443'}\n",
            &[],
        )
        .unwrap();
        assert_eq!(c.upstream.http2, UpstreamHttp2::Off);
        assert!(!c.upstream.tls.verify);
        assert_eq!(
            c.upstream_tls_for("b.test").server_name.as_deref(),
            Some("backend.test")
        );
        let a = c.upstream_tls_for("a.test");
        assert!(
            a.verify,
            "a domain's upstream_tls replaces the global one whole"
        );
        assert_eq!(a.server_name.as_deref(), Some("a.internal"));
        assert_eq!(c.upstream_tls_settings().len(), 2);
        assert_eq!(
            c.domains["a.test"].upstream_host,
            Some(UpstreamHost::Upstream)
        );
        assert_eq!(
            c.domains["b.test"].upstream_host,
            Some(UpstreamHost::Fixed("b.example:8443".into()))
        );
        for (text, says) in [
            ("waf: {upstream: {http2: on}}", "waf.upstream.http2"),
            ("waf: {upstream: {http2: h2c}}", "waf.upstream.http2"),
            (
                "waf: {upstream: {default: 'http://x', servers: ['http://a:1']}}",
                "waf.upstream.servers: set upstream.default or upstream.servers, not both",
            ),
            ("waf: {upstream: {balance: random}}", "waf.upstream.balance"),
            (
                "waf: {upstream: {health_check: {path: ping}}}",
                "waf.upstream.health_check.path",
            ),
            ("waf: {upstream: {max_fails: 0}}", "waf.upstream.max_fails"),
            (
                "waf: {upstream: {tls: {ca_file: /nonexistent/ca.pem}}}",
                "waf.upstream.tls.ca_file: /nonexistent/ca.pem",
            ),
            (
                "waf: {upstream: {tls: {server_name: 'a b'}}}",
                "waf.upstream.tls.server_name",
            ),
            (
                "waf: {domains: {a.test: {upstream_tls: {key_file: k.pem}}}}",
                "waf.domains.a.test.upstream_tls: cert_file and key_file go together",
            ),
            (
                "waf: {domains: {a.test: {upstream_tls: {cert_file: /nonexistent/c.pem, key_file: k.pem}}}}",
                "waf.domains.a.test.upstream_tls.cert_file",
            ),
            (
                "waf: {domains: {a.test: {upstream_host: 'u@h'}}}",
                "waf.domains.a.test.upstream_host",
            ),
            (
                "waf: {domains: {a.test: {upstream_host: ''}}}",
                "waf.domains.a.test.upstream_host",
            ),
        ] {
            let e = run(text, &[]).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn a_domains_own_servers_have_their_own_pool_settings() {
        let c = run(
            "waf:\n  upstream: {balance: least_conn, retries: 1, health_check: {path: /g}}\n  domains:\n    \
             a.test: {upstreams: ['http://a:1', 'http://a:2'], balance: ip_hash, max_fails: 3, \
             fail_timeout_sec: 30, retries: 0, health_check: {path: /a, interval_sec: 2}}\n    \
             b.test: {default_upstream: 'http://b:1', retries: 4}\n    \
             c.test: {force_https: false}\n",
            &[],
        )
        .unwrap();
        let a = c.pool_settings_for("a.test");
        assert_eq!(
            (a.balance, a.max_fails, a.fail_timeout_sec, a.retries),
            (Balance::IpHash, 3, 30, 0)
        );
        let check = a.health_check.unwrap();
        assert_eq!((check.path.as_str(), check.interval_sec), ("/a", 2));
        // Only what the domain sets replaces the global settings.
        let b = c.pool_settings_for("b.test");
        assert_eq!((b.balance, b.retries), (Balance::LeastConn, 4));
        assert_eq!(b.health_check.unwrap().path, "/g");
        assert_eq!(c.pool_settings_for("c.test"), c.upstream.pool);
        // `off`: no check for this domain's servers, though the global one has one.
        let off = run(
            "waf: {upstream: {health_check: {path: /g}}, domains: {a.test: {upstreams: ['http://a:1'], \
             health_check: off}}}",
            &[],
        )
        .unwrap();
        assert_eq!(off.pool_settings_for("a.test").health_check, None);
        let printed = serde_saphyr::to_string(&serde_json::json!({ "waf": {
            "domains": {"a.test": serde_json::to_value(&off.domains["a.test"]).unwrap()},
        }}))
        .unwrap();
        assert_eq!(
            run(&printed, &[]).unwrap().domains["a.test"].pool,
            off.domains["a.test"].pool
        );
        assert_eq!(c.pool_settings_for("elsewhere"), c.upstream.pool);
        // What --check-config prints reads back the same.
        let printed = serde_saphyr::to_string(&serde_json::json!({ "waf": {
            "upstream": {"balance": "least_conn", "retries": 1},
            "domains": {"a.test": serde_json::to_value(&c.domains["a.test"]).unwrap()},
        }}))
        .unwrap();
        let again = run(&printed, &[]).unwrap();
        assert_eq!(again.domains["a.test"].pool, c.domains["a.test"].pool);
        for (text, says) in [
            (
                "waf: {domains: {a.test: {balance: ip_hash}}}",
                "waf.domains.a.test.balance: applies to the domain's own servers",
            ),
            (
                "waf: {domains: {a.test: {upstreams: ['http://a:1'], balance: fastest}}}",
                "waf.domains.a.test.balance: unknown value",
            ),
            (
                "waf: {domains: {a.test: {upstreams: ['http://a:1'], max_fails: 0}}}",
                "waf.domains.a.test.max_fails: must be at least 1",
            ),
            (
                "waf: {domains: {a.test: {upstreams: ['http://a:1'], fail_timeout_sec: 0}}}",
                "waf.domains.a.test.fail_timeout_sec: must be at least 1",
            ),
            (
                "waf: {domains: {a.test: {upstreams: ['http://a:1'], retries: 1000}}}",
                "waf.domains.a.test.retries",
            ),
            (
                "waf: {domains: {a.test: {upstreams: ['http://a:1'], health_check: {path: x}}}}",
                "waf.domains.a.test.health_check.path",
            ),
            (
                "waf: {domains: {a.test: {upstreams: ['http://a:1'], health_check: true}}}",
                "waf.domains.a.test.health_check: true is not a check",
            ),
            (
                "waf: {domains: {a.test: {upstreams: ['http://a:1'], health_check: {timeout_ms: 0}}}}",
                "waf.domains.a.test.health_check.timeout_ms: must be at least 1",
            ),
        ] {
            let e = run(text, &[]).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn the_pool_example_of_the_docs_reads() {
        let doc = include_str!("../../../docs/proxy.md");
        let section = doc.split("### Pools").nth(1).unwrap();
        let example = section
            .split("```yaml\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .unwrap();
        let c = run(example, &[]).unwrap();
        let shop = c.pool_settings_for("shop.example.com");
        assert_eq!(
            (shop.balance, shop.max_fails, shop.retries),
            (Balance::LeastConn, 3, 1)
        );
        assert_eq!(shop.health_check.unwrap().expect_status, 204);
    }

    #[test]
    fn excluded_variables_are_parsed_sorted_and_refused_by_key() {
        let c = run(
            "waf: {domains: {a.test: {excluded_variables: [{rule: 9, variable: 'ARGS:q'}, \
             {rule: 3, variable: REQUEST_URI}, {rule: 9, variable: 'ARGS:q'}]}}}",
            &[],
        )
        .unwrap();
        let targets: Vec<(u32, String)> = c.domains["a.test"]
            .excluded_variables
            .iter()
            .map(|t| (t.rule_id, t.to_string()))
            .collect();
        assert_eq!(
            targets,
            [(3, "REQUEST_URI".to_string()), (9, "ARGS:q".to_string())]
        );
        let e = run(
            "waf: {domains: {a.test: {excluded_variables: [{rule: 9, variable: 'ARG:q'}]}}}",
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(
                "waf.domains.a.test.excluded_variables[0].variable: \"ARG\" is not a variable"
            ),
            "{e}"
        );
    }

    #[test]
    fn admin_panel_defaults_to_loopback_8888_and_is_off() {
        let env = [
            ("ADMIN_ENABLED", "yes"),
            ("ADMIN_LISTEN_ADDRESS", "0.0.0.0"),
            ("ADMIN_PORT", "9999"),
            ("ADMIN_DATA_DIR", "/var/lib/waf/admin"),
        ];
        let a = run("", &env).unwrap().admin;
        assert!(a.enabled);
        assert_eq!((a.listen_address.as_str(), a.port), ("0.0.0.0", 9999));
        assert_eq!(a.data_dir, PathBuf::from("/var/lib/waf/admin"));
        let a = run("waf: {admin: {enabled: false, port: 1}}", &env)
            .unwrap()
            .admin;
        assert!(!a.enabled, "the file wins over the environment");
        assert_eq!(a.port, 1);
        let e = run("", &[("ADMIN_PORT", "x")]).unwrap_err().to_string();
        assert!(e.contains("ADMIN_PORT"), "{e}");
        let a = run("", &[]).unwrap().admin;
        assert!(!a.enabled);
        assert_eq!((a.listen_address.as_str(), a.port), ("127.0.0.1", 8888));
        assert_eq!(a.data_dir, PathBuf::from("admin-data"));
        assert!(!a.secure_cookies);
        assert_eq!((a.events.max_age_days, a.events.max_size_mb), (30, 256));
        let a = run(
            "waf: {admin: {events: {max_age_days: 7, max_size_mb: 64}}}",
            &[],
        )
        .unwrap()
        .admin;
        assert_eq!((a.events.max_age_days, a.events.max_size_mb), (7, 64));
        let e = run("waf: {admin: {events: {max_size_mb: 0}}}", &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("waf.admin.events.max_size_mb: must be at least 1"),
            "{e}"
        );
        let a = run(
            "waf: {admin: {enabled: true, port: 0, data_dir: d, secure_cookies: true}}",
            &[],
        )
        .unwrap()
        .admin;
        assert!(a.enabled && a.secure_cookies);
        assert_eq!((a.port, a.data_dir), (0, PathBuf::from("d")));
        assert!(!a.tls);
        // Over HTTPS the cookies are Secure without being told, and cannot be told otherwise.
        let a = run(
            "waf: {server: {https_enabled: true, tls: {auto_generate: true}}, admin: {tls: true}}",
            &[],
        )
        .unwrap()
        .admin;
        assert!(a.tls && a.secure_cookies);
        for (text, key) in [
            (
                "waf: {server: {https_enabled: true, tls: {auto_generate: true}}, admin: {tls: true, secure_cookies: false}}",
                "waf.admin.secure_cookies",
            ),
            ("waf: {admin: {tls: true}}", "waf.admin.tls"),
        ] {
            let e = run(text, &[]).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
        let e = run("waf: {admin: {listen_address: nowhere}}", &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("waf.admin.listen_address"), "{e}");
    }
}
