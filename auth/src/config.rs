//! Every environment variable the service reads, in one table.
//!
//! The table is the single source for reading (`Config::from_vars`), for `auth --env` (which prints each variable
//! with its value or default, secrets masked) and for the variable table of docs/auth.md, so the three cannot drift.
//! Invalid values stop the start with a message naming the variable; a production start refuses the development
//! secrets that are convenient on a laptop and dangerous anywhere else.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;

/// The RSA key that signs tokens when `JWT_SECRET` is unset. It is public (it is in the source), so a production
/// start refuses it.
pub const DEVELOPMENT_JWT_KEY_PEM: &str = include_str!("dev_jwt_key.pem");

/// A secret encrypting session cookies must carry at least 256 bits; shorter ones are refused everywhere.
pub const MIN_COOKIE_SECRET_BYTES: usize = 32;

/// The longest refresh-token replay grace accepted (see `REFRESH_REPLAY_GRACE_SECONDS`).
pub const MAX_REFRESH_REPLAY_GRACE_SECONDS: u32 = 300;

/// The longest provider timeout accepted: a browser waiting on the callback gives up long before two minutes.
pub const MAX_SSO_PROVIDER_TIMEOUT_SECONDS: u64 = 120;

/// One environment variable: its name, its default (`None`: unset by default), whether its value is a secret that
/// `--env` masks, and what it does.
pub struct Var {
    pub name: &'static str,
    pub default: Option<&'static str>,
    pub secret: bool,
    pub help: &'static str,
}

const fn var(
    name: &'static str,
    default: Option<&'static str>,
    secret: bool,
    help: &'static str,
) -> Var {
    Var {
        name,
        default,
        secret,
        help,
    }
}

/// Every variable read, in the order `--env` prints them.
pub const VARS: &[Var] = &[
    var(
        "APP_ENV",
        Some("development"),
        false,
        "`production` makes cookies Secure and refuses development secrets",
    ),
    var(
        "BIND_ADDRESS",
        Some("0.0.0.0"),
        false,
        "listen address (`-b` overrides)",
    ),
    var("PORT", Some("3000"), false, "listen port (`-p` overrides)"),
    var(
        "DATA_DIR",
        Some("data"),
        false,
        "directory of the embedded SQLite database, used when no `SQL_*` is set",
    ),
    var(
        "SQL_HOST",
        None,
        false,
        "PostgreSQL host; any `SQL_*` set selects PostgreSQL",
    ),
    var("SQL_PORT", Some("5432"), false, "PostgreSQL port"),
    var("SQL_USER", Some("postgres"), false, "PostgreSQL user"),
    var("SQL_PASSWORD", None, true, "PostgreSQL password"),
    var("SQL_DATABASE", Some("auth"), false, "PostgreSQL database"),
    var(
        "COOKIE_SESSION_SECRET",
        None,
        true,
        "key of the session cookie, at least 32 bytes; random per start if unset",
    ),
    var(
        "SESSION_TIMEOUT_MINUTES",
        Some("1440"),
        false,
        "session lifetime unless the authority's internals.session_timeout says otherwise",
    ),
    var(
        "JWT_SECRET",
        None,
        true,
        "base64 of the PEM RSA private key signing tokens; a built-in development key if unset",
    ),
    var("JWT_ISSUER", Some("POS"), false, "`iss` of issued tokens"),
    var(
        "SECRET_KEY_BASE",
        None,
        true,
        "HMAC key of the `verified` asset cookie (the same on every replica and in the web server's check); random per start if unset",
    ),
    var(
        "TOKEN_EXCHANGE_CLIENTS",
        None,
        false,
        "comma-separated client ids of the confidential clients allowed the token exchange (RFC 8693)",
    ),
    var(
        "REGISTRATION_LIMIT_PER_HOUR",
        Some("10"),
        false,
        "dynamic client registrations per client address per hour before 429",
    ),
    var(
        "REGISTRATION_REDIRECT_HOSTS",
        None,
        false,
        "comma-separated hosts an https redirect URI of a dynamically registered client may name; unset: any host (http only on loopback)",
    ),
    var(
        "REFRESH_REPLAY_GRACE_SECONDS",
        Some("30"),
        false,
        "how long a rotated refresh token still works (double submits); reused later, its family is revoked (0..=300)",
    ),
    var(
        "KVSTORE_URL",
        None,
        true,
        "Redis URL receiving login events; unset: events are not published",
    ),
    var(
        "LOGIN_EVENTS_CHANNEL",
        Some("svc/auth/login"),
        false,
        "Redis channel of login events",
    ),
    var(
        "SVC_URI",
        None,
        false,
        "base URL (http) asked about API keys the local table cannot validate",
    ),
    var(
        "TRUSTED_PROXIES",
        None,
        false,
        "comma-separated proxy addresses whose X-Forwarded-For is believed",
    ),
    var(
        "SIGNIN_ATTEMPTS_PER_ACCOUNT",
        Some("10"),
        false,
        "sign-in attempts per minute per account before 429",
    ),
    var(
        "SIGNIN_ATTEMPTS_PER_ADDRESS",
        Some("60"),
        false,
        "sign-in attempts per minute per client address before 429",
    ),
    var(
        "BCRYPT_COST",
        Some("12"),
        false,
        "bcrypt cost of new password digests (4..=31)",
    ),
    var(
        "SSO_PROVIDER_TIMEOUT_SECONDS",
        Some("10"),
        false,
        "longest wait for an OAuth 2.0 provider's answer (token, profile, discovery, JWKS) before the login fails (1..=120)",
    ),
    var(
        "SSO_PROVIDER_CA_FILE",
        None,
        false,
        "PEM file of CA certificates trusted for https:// providers besides the system's (a company's internal CA)",
    ),
    var("LOG_FORMAT", Some("text"), false, "`text` or `json`"),
    var("RUST_LOG", Some("info"), false, "log filter"),
];

/// Where the data lives.
#[derive(Clone, Debug)]
pub enum StoreConfig {
    Postgres {
        host: String,
        port: u16,
        user: String,
        password: Option<String>,
        database: String,
    },
    Sqlite {
        path: PathBuf,
    },
}

/// The validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub production: bool,
    pub bind: IpAddr,
    pub port: u16,
    pub store: StoreConfig,
    /// `None`: generate a random key at start (sessions do not survive a restart nor cross replicas).
    pub cookie_secret: Option<Vec<u8>>,
    pub session_timeout_minutes: u32,
    /// PEM of the RSA private key signing tokens.
    pub jwt_key_pem: String,
    pub jwt_issuer: String,
    /// Key of the `verified` asset cookie; `None`: random per start.
    pub secret_key_base: Option<Vec<u8>>,
    /// Client ids allowed the token exchange.
    pub token_exchange_clients: Vec<String>,
    /// Dynamic client registrations per client address per hour.
    pub registration_per_hour: NonZeroU32,
    /// Hosts https redirect URIs of registered clients may name (lower-case); empty: any.
    pub registration_redirect_hosts: Vec<String>,
    /// Seconds a rotated refresh token is still honoured.
    pub refresh_replay_grace_seconds: u32,
    pub kvstore_url: Option<String>,
    pub login_events_channel: String,
    pub svc_uri: Option<String>,
    pub trusted_proxies: Vec<IpAddr>,
    pub signin_per_account: NonZeroU32,
    pub signin_per_address: NonZeroU32,
    pub bcrypt_cost: u32,
    /// Bounds every call to an external identity provider: a provider that hangs fails its login, never a worker.
    pub sso_provider_timeout: Duration,
    pub sso_provider_ca_file: Option<PathBuf>,
    pub log_json: bool,
}

/// Why the environment does not configure the service, naming the variable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{0} is required")]
    Missing(String),
    #[error("{name}: invalid value {raw:?}")]
    Invalid { name: String, raw: String },
    /// A variable that takes one of a few words.
    #[error("{name}: expected {expected}, got {got:?}")]
    NotAChoice {
        name: &'static str,
        expected: &'static str,
        got: String,
    },
    #[error("{name} must be within {min}..={max}, got {value}")]
    OutOfRange {
        name: &'static str,
        min: u64,
        max: u64,
        value: u64,
    },
    #[error("{0} must be positive")]
    NotPositive(String),
    #[error("KVSTORE_URL: {0}")]
    KvStoreUrl(redis::RedisError),
    #[error("SVC_URI must be an http:// URL, got {0:?}")]
    SvcUri(String),
    #[error("TRUSTED_PROXIES: invalid address {0:?}")]
    TrustedProxy(String),
    #[error("COOKIE_SESSION_SECRET must hold at least {MIN_COOKIE_SECRET_BYTES} bytes")]
    ShortCookieSecret,
    #[error(
        "APP_ENV=production refuses the built-in development JWT key: set JWT_SECRET to the base64 of your RSA private key PEM"
    )]
    DevelopmentJwtKey,
    #[error(
        "APP_ENV=production requires COOKIE_SESSION_SECRET (at least 32 random bytes, the same on every replica)"
    )]
    NoCookieSecret,
    /// `JWT_SECRET` is not the base64 of a PEM private key; the reason says which part fails.
    #[error("JWT_SECRET must be the base64 of a PEM RSA private key ({0})")]
    JwtSecret(&'static str),
}

/// The variables as read: name → value (set and non-empty only).
pub type Vars = BTreeMap<String, String>;

/// Reads the variables of [`VARS`] from the process environment; empty values count as unset.
pub fn process_vars() -> Vars {
    VARS.iter()
        .filter_map(|v| {
            std::env::var(v.name)
                .ok()
                .filter(|s| !s.is_empty())
                .map(|s| (v.name.to_string(), s))
        })
        .collect()
}

fn get<'a>(vars: &'a Vars, name: &str) -> Option<&'a str> {
    vars.get(name)
        .map(String::as_str)
        .or_else(|| VARS.iter().find(|v| v.name == name).and_then(|v| v.default))
}

fn parse<T: std::str::FromStr>(vars: &Vars, name: &str) -> Result<T, ConfigError> {
    let raw = get(vars, name).ok_or_else(|| ConfigError::Missing(name.to_string()))?;
    raw.parse().map_err(|_| ConfigError::Invalid {
        name: name.to_string(),
        raw: raw.to_string(),
    })
}

/// A number within `min..=max`.
fn within<T>(vars: &Vars, name: &'static str, min: T, max: T) -> Result<T, ConfigError>
where
    T: std::str::FromStr + PartialOrd + Into<u64> + Copy,
{
    let value: T = parse(vars, name)?;
    if value < min || value > max {
        return Err(ConfigError::OutOfRange {
            name,
            min: min.into(),
            max: max.into(),
            value: value.into(),
        });
    }
    Ok(value)
}

/// One of the words `choices` (`(word, value)`) names, or `unset` when the variable is.
fn choice<T: Copy>(
    vars: &Vars,
    name: &'static str,
    expected: &'static str,
    choices: &[(&str, T)],
    unset: T,
) -> Result<T, ConfigError> {
    let Some(word) = get(vars, name) else {
        return Ok(unset);
    };
    choices
        .iter()
        .find(|(w, _)| *w == word)
        .map(|&(_, value)| value)
        .ok_or_else(|| ConfigError::NotAChoice {
            name,
            expected,
            got: word.to_string(),
        })
}

impl Config {
    pub fn from_vars(vars: &Vars) -> Result<Self, ConfigError> {
        let production = choice(
            vars,
            "APP_ENV",
            "production, development or test",
            &[
                ("production", true),
                ("development", false),
                ("test", false),
            ],
            false,
        )?;
        let (cookie_secret, jwt_key_pem) = secrets(vars, production)?;
        let store = store(vars)?;
        let kvstore_url = vars.get("KVSTORE_URL").cloned();
        if let Some(url) = &kvstore_url {
            redis::Client::open(url.as_str()).map_err(ConfigError::KvStoreUrl)?;
        }
        let svc_uri = vars
            .get("SVC_URI")
            .map(|s| s.trim_end_matches('/').to_string());
        if let Some(uri) = &svc_uri
            && !uri.starts_with("http://")
        {
            // The fallback client speaks plain HTTP to a service inside the cluster; refusing other schemes here
            // beats failing every fallback at request time.
            return Err(ConfigError::SvcUri(uri.clone()));
        }
        let trusted_proxies = trusted_proxies(vars)?;
        let bcrypt_cost: u32 = within(vars, "BCRYPT_COST", 4, 31)?;
        // Every second of grace is a second in which a leaked refresh token works beside its rightful owner
        // without revoking the family; five minutes covers any client's retry, more only hides theft.
        let refresh_replay_grace_seconds: u32 = within(
            vars,
            "REFRESH_REPLAY_GRACE_SECONDS",
            0,
            MAX_REFRESH_REPLAY_GRACE_SECONDS,
        )?;
        let sso_timeout: u64 = within(
            vars,
            "SSO_PROVIDER_TIMEOUT_SECONDS",
            1,
            MAX_SSO_PROVIDER_TIMEOUT_SECONDS,
        )?;
        let positive = |name: &str| -> Result<NonZeroU32, ConfigError> {
            NonZeroU32::new(parse(vars, name)?)
                .ok_or_else(|| ConfigError::NotPositive(name.to_string()))
        };
        Ok(Config {
            production,
            bind: parse(vars, "BIND_ADDRESS")?,
            port: parse(vars, "PORT")?,
            store,
            cookie_secret,
            session_timeout_minutes: positive("SESSION_TIMEOUT_MINUTES")?.get(),
            jwt_key_pem,
            jwt_issuer: parse(vars, "JWT_ISSUER")?,
            secret_key_base: vars.get("SECRET_KEY_BASE").map(|s| s.as_bytes().to_vec()),
            token_exchange_clients: list(vars, "TOKEN_EXCHANGE_CLIENTS", false),
            registration_per_hour: positive("REGISTRATION_LIMIT_PER_HOUR")?,
            registration_redirect_hosts: list(vars, "REGISTRATION_REDIRECT_HOSTS", true),
            refresh_replay_grace_seconds,
            kvstore_url,
            login_events_channel: parse(vars, "LOGIN_EVENTS_CHANNEL")?,
            svc_uri,
            trusted_proxies,
            signin_per_account: positive("SIGNIN_ATTEMPTS_PER_ACCOUNT")?,
            signin_per_address: positive("SIGNIN_ATTEMPTS_PER_ADDRESS")?,
            bcrypt_cost,
            sso_provider_timeout: Duration::from_secs(sso_timeout),
            sso_provider_ca_file: get(vars, "SSO_PROVIDER_CA_FILE")
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
            log_json: choice(
                vars,
                "LOG_FORMAT",
                "text or json",
                &[("json", true), ("text", false)],
                false,
            )?,
        })
    }
}

/// The session cookie's secret and the JWT signing key: in production, neither may be the development default.
fn secrets(vars: &Vars, production: bool) -> Result<(Option<Vec<u8>>, String), ConfigError> {
    let cookie_secret = vars
        .get("COOKIE_SESSION_SECRET")
        .map(|s| s.as_bytes().to_vec());
    if let Some(secret) = &cookie_secret
        && secret.len() < MIN_COOKIE_SECRET_BYTES
    {
        return Err(ConfigError::ShortCookieSecret);
    }
    let jwt_key_pem = match vars.get("JWT_SECRET") {
        Some(b64) => decode_jwt_secret(b64)?,
        None => DEVELOPMENT_JWT_KEY_PEM.to_string(),
    };
    if production {
        if jwt_key_pem.trim() == DEVELOPMENT_JWT_KEY_PEM.trim() {
            return Err(ConfigError::DevelopmentJwtKey);
        }
        if cookie_secret.is_none() {
            return Err(ConfigError::NoCookieSecret);
        }
    }
    Ok((cookie_secret, jwt_key_pem))
}

/// PostgreSQL when any `SQL_*` variable is set, else SQLite in `DATA_DIR`.
fn store(vars: &Vars) -> Result<StoreConfig, ConfigError> {
    Ok(
        if VARS
            .iter()
            .any(|v| v.name.starts_with("SQL_") && vars.contains_key(v.name))
        {
            StoreConfig::Postgres {
                host: get(vars, "SQL_HOST").unwrap_or("localhost").to_string(),
                port: parse(vars, "SQL_PORT")?,
                user: parse(vars, "SQL_USER")?,
                password: vars.get("SQL_PASSWORD").cloned(),
                database: parse(vars, "SQL_DATABASE")?,
            }
        } else {
            StoreConfig::Sqlite {
                path: PathBuf::from(parse::<String>(vars, "DATA_DIR")?).join("auth.sqlite3"),
            }
        },
    )
}

/// `TRUSTED_PROXIES`: the comma-separated addresses whose `X-Forwarded-For` is believed.
fn trusted_proxies(vars: &Vars) -> Result<Vec<IpAddr>, ConfigError> {
    Ok(match vars.get("TRUSTED_PROXIES") {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse()
                    .map_err(|_| ConfigError::TrustedProxy(s.to_string()))
            })
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    })
}

/// A comma-separated variable's items, trimmed (lower-cased with `lower`), empty ones dropped.
fn list(vars: &Vars, name: &str, lower: bool) -> Vec<String> {
    get(vars, name)
        .unwrap_or_default()
        .split(',')
        .map(|item| {
            let item = item.trim();
            if lower {
                item.to_ascii_lowercase()
            } else {
                item.to_string()
            }
        })
        .filter(|item| !item.is_empty())
        .collect()
}

fn decode_jwt_secret(b64: &str) -> Result<String, ConfigError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|_| ConfigError::JwtSecret("not valid base64"))?;
    let pem = String::from_utf8(bytes).map_err(|_| ConfigError::JwtSecret("not text"))?;
    if !pem.contains("PRIVATE KEY-----") {
        return Err(ConfigError::JwtSecret("no PRIVATE KEY block"));
    }
    Ok(pem)
}

/// The lines `auth --env` prints: `NAME=value`, `NAME=default (default)` or `NAME= (unset)`; secrets show `********`.
pub fn describe(vars: &Vars) -> Vec<String> {
    VARS.iter()
        .map(|v| match (vars.get(v.name), v.default) {
            (Some(_), _) if v.secret => format!("{}=******** (set)", v.name),
            (Some(value), _) => format!("{}={value}", v.name),
            (None, Some(default)) => format!("{}={default} (default)", v.name),
            (None, None) => format!("{}= (unset)", v.name),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vars {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_select_sqlite_under_the_data_dir() {
        let config = Config::from_vars(&Vars::new()).unwrap();
        assert!(
            matches!(config.store, StoreConfig::Sqlite { ref path } if path == &PathBuf::from("data/auth.sqlite3"))
        );
        assert_eq!(config.session_timeout_minutes, 1440);
        assert_eq!(config.login_events_channel, "svc/auth/login");
        assert_eq!(config.jwt_issuer, "POS");
        assert_eq!(config.refresh_replay_grace_seconds, 30);
    }

    #[test]
    fn any_sql_variable_selects_postgres() {
        let config = Config::from_vars(&vars(&[("SQL_DATABASE", "legacy")])).unwrap();
        assert!(
            matches!(config.store, StoreConfig::Postgres { ref database, port: 5432, .. } if database == "legacy")
        );
    }

    #[test]
    fn production_refuses_development_secrets() {
        let secret = "x".repeat(32);
        let err = Config::from_vars(&vars(&[
            ("APP_ENV", "production"),
            ("COOKIE_SESSION_SECRET", &secret),
        ]))
        .unwrap_err();
        assert!(err.to_string().contains("development JWT key"), "{err}");
        let key = base64::engine::general_purpose::STANDARD
            .encode(include_str!("../tests/fixtures/production_jwt_key.pem"));
        let err = Config::from_vars(&vars(&[("APP_ENV", "production"), ("JWT_SECRET", &key)]))
            .unwrap_err();
        assert!(err.to_string().contains("COOKIE_SESSION_SECRET"), "{err}");
        let config = Config::from_vars(&vars(&[
            ("APP_ENV", "production"),
            ("JWT_SECRET", &key),
            ("COOKIE_SESSION_SECRET", &secret),
        ]))
        .unwrap();
        assert!(config.production);
    }

    #[test]
    fn bad_values_name_their_variable() {
        for (name, value) in [
            ("COOKIE_SESSION_SECRET", "short"),
            ("SESSION_TIMEOUT_MINUTES", "0"),
            ("PORT", "http"),
            ("JWT_SECRET", "not base64!"),
            ("SVC_URI", "https://svc"),
            ("KVSTORE_URL", "nonsense"),
            ("REFRESH_REPLAY_GRACE_SECONDS", "301"),
            ("REGISTRATION_LIMIT_PER_HOUR", "0"),
            ("REFRESH_REPLAY_GRACE_SECONDS", "-1"),
        ] {
            let err = Config::from_vars(&vars(&[(name, value)])).unwrap_err();
            assert!(err.to_string().contains(name), "{name}: {err}");
        }
    }

    #[test]
    fn docs_document_every_variable() {
        let docs = include_str!("../../docs/auth.md");
        for var in VARS {
            assert!(
                docs.contains(&format!("| `{}` |", var.name)),
                "docs/auth.md lacks {}",
                var.name
            );
        }
    }

    #[test]
    fn env_listing_masks_secrets() {
        let lines = describe(&vars(&[("SQL_PASSWORD", "hunter2"), ("SQL_HOST", "db")]));
        assert_eq!(lines.len(), VARS.len());
        assert!(lines.contains(&"SQL_PASSWORD=******** (set)".to_string()));
        assert!(lines.contains(&"SQL_HOST=db".to_string()));
        assert!(lines.contains(&"PORT=3000 (default)".to_string()));
        assert!(!lines.iter().any(|l| l.contains("hunter2")));
    }
}
