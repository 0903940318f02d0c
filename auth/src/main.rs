//! `auth`: serve, or run one administration command. See `auth --help`.

use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;
use std::time::Duration;

use auth::config::{self, Config};
use auth::{admin, routes, state::AppState, store};
use clap::{Parser, Subcommand};

/// The authentication service.
#[derive(Parser)]
#[command(name = "auth", version)]
struct Cli {
    /// Listen address (default: BIND_ADDRESS).
    #[arg(short = 'b', long = "bind", value_name = "ADDRESS")]
    bind: Option<IpAddr>,
    /// Listen port, 0 for any free port (default: PORT).
    #[arg(short = 'p', long = "port")]
    port: Option<u16>,
    /// Print the route table and exit.
    #[arg(long)]
    routes: bool,
    /// Print the OpenAPI document (YAML) and exit.
    #[arg(long)]
    docs: bool,
    /// Print every environment variable read, with its value or default (secrets masked), and exit.
    #[arg(long)]
    env: bool,
    /// Health check: GET URL; exit 0 for status 200-499, 1 otherwise, 2 when the connection fails.
    #[arg(short = 'c', long = "check", value_name = "URL")]
    check: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Create the legacy schema's missing tables (PostgreSQL; SQLite migrates at every start).
    Migrate,
    /// Manage authorities (tenants).
    Authority {
        #[command(subcommand)]
        action: AuthorityAction,
    },
    /// Manage users.
    User {
        #[command(subcommand)]
        action: UserAction,
    },
    /// Manage OAuth 2.0 clients.
    Client {
        #[command(subcommand)]
        action: ClientAction,
    },
    /// Manage API keys.
    Apikey {
        #[command(subcommand)]
        action: ApikeyAction,
    },
    /// Manage OAuth 2.0 providers users sign in with (oauth_strat).
    Oauth2 {
        #[command(subcommand)]
        action: OAuth2Action,
    },
    /// Manage SAML identity providers users sign in with (adfs_strat).
    Saml {
        #[command(subcommand)]
        action: SamlAction,
    },
}

#[derive(Subcommand)]
enum SamlAction {
    Add {
        #[arg(long)]
        domain: String,
        #[arg(long)]
        name: String,
        /// Our entity id at the identity provider (the AuthnRequest's issuer and the audience required).
        #[arg(long)]
        issuer: String,
        /// The identity provider's single sign-on URL (HTTP-Redirect binding).
        #[arg(long)]
        idp_sso_target_url: String,
        /// File holding the identity provider's signing certificate (PEM; several for a rollover).
        #[arg(
            long,
            conflicts_with = "idp_cert_fingerprint",
            required_unless_present = "idp_cert_fingerprint"
        )]
        idp_cert: Option<std::path::PathBuf>,
        /// SHA-1 or SHA-256 fingerprint of that certificate (hex, colons allowed), instead of the file.
        #[arg(long)]
        idp_cert_fingerprint: Option<String>,
        /// The attribute holding the user's uid (default: the NameID).
        #[arg(long)]
        uid_attribute: Option<String>,
        /// JSON object: our field (email, name, first_name, last_name) -> attribute name or list of names.
        #[arg(long)]
        attribute_statements: Option<String>,
        /// NameIDPolicy format asked for, e.g. urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress.
        #[arg(long)]
        name_identifier_format: Option<String>,
        /// The identity provider's single logout URL; /auth/saml/logout then signs out there too.
        #[arg(long)]
        idp_slo_target_url: Option<String>,
    },
}

#[derive(Subcommand)]
enum OAuth2Action {
    Add {
        #[arg(long)]
        domain: String,
        #[arg(long)]
        name: String,
        #[arg(long)]
        client_id: String,
        #[arg(long)]
        client_secret: String,
        /// The provider's base URL; relative endpoint paths join it.
        #[arg(long)]
        site: String,
        /// Path or URL of the authorization endpoint (default /oauth/authorize).
        #[arg(long)]
        authorize_url: Option<String>,
        /// Path or URL of the token endpoint (default /oauth/token).
        #[arg(long)]
        token_url: Option<String>,
        /// URL (or path) of the profile, fetched with the access token.
        #[arg(long)]
        raw_info_url: Option<String>,
        /// Space-separated scopes; with `openid`, the ID token is verified.
        #[arg(long)]
        scope: Option<String>,
        /// How the client authenticates at the token endpoint: basic_auth or request_body (default).
        #[arg(long)]
        auth_scheme: Option<String>,
        /// JSON object: our field (uid, email, name) -> "path[,fallback]" in the profile.
        #[arg(long)]
        info_mappings: Option<String>,
        /// JSON object: field -> regex or list of regexes; one must match, case-insensitively.
        #[arg(long)]
        ensure_matching: Option<String>,
    },
}

#[derive(Subcommand)]
enum AuthorityAction {
    Add {
        #[arg(long)]
        domain: String,
        #[arg(long)]
        name: String,
        /// Login page; `{{url}}` is replaced by the `continue` URL.
        #[arg(long)]
        login_url: Option<String>,
        #[arg(long)]
        logout_url: Option<String>,
        /// Session lifetime in minutes for this authority (internals.session_timeout).
        #[arg(long)]
        session_timeout: Option<u32>,
    },
}

#[derive(Subcommand)]
enum UserAction {
    Add {
        #[arg(long)]
        domain: String,
        #[arg(long)]
        email: String,
        /// At most 72 bytes (bcrypt's limit).
        #[arg(long)]
        password: String,
        #[arg(long)]
        name: Option<String>,
        /// sys_admin
        #[arg(long)]
        admin: bool,
        #[arg(long)]
        support: bool,
    },
}

#[derive(Subcommand)]
enum ClientAction {
    Add {
        #[arg(long)]
        domain: String,
        #[arg(long)]
        name: String,
        /// Repeat for several URIs; a redirect must equal one of them exactly.
        #[arg(long = "redirect-uri", required = true)]
        redirect_uri: Vec<String>,
        /// A public client (no secret; PKCE only).
        #[arg(long)]
        public: bool,
        /// Space-separated scopes (default: public).
        #[arg(long)]
        scopes: Option<String>,
    },
}

#[derive(Subcommand)]
enum ApikeyAction {
    Add {
        #[arg(long)]
        domain: String,
        #[arg(long)]
        email: String,
        /// Space-separated scopes (default: public).
        #[arg(long)]
        scopes: Option<String>,
        /// Expiry, RFC 3339 (e.g. 2030-01-01T00:00:00Z); none by default.
        #[arg(long)]
        expires_at: Option<chrono::DateTime<chrono::Utc>>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.routes {
        return emit(&routes::route_table().join("\n"));
    }
    if cli.docs {
        return match routes::openapi_yaml() {
            Ok(yaml) => emit(yaml.trim_end()),
            Err(e) => fail(&format!("cannot render the OpenAPI document: {e}")),
        };
    }
    let vars = config::process_vars();
    if cli.env {
        return emit(&config::describe(&vars).join("\n"));
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&format!("cannot start the runtime: {e}")),
    };
    if let Some(url) = cli.check {
        return runtime.block_on(health_check(&url));
    }
    let mut config = match Config::from_vars(&vars) {
        Ok(config) => config,
        Err(e) => return fail(&e.to_string()),
    };
    init_logging(&config);
    config.bind = cli.bind.unwrap_or(config.bind);
    config.port = cli.port.unwrap_or(config.port);
    match runtime.block_on(run(cli.command, config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&format!("{e:#}")),
    }
}

/// Writes `text` and a newline to stdout; a closed pipe (`auth --docs | head`) is not an error worth a panic.
fn emit(text: &str) -> ExitCode {
    use std::io::Write;
    match writeln!(std::io::stdout().lock(), "{text}") {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&format!("cannot write to stdout: {e}")),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("auth: {message}");
    ExitCode::FAILURE
}

fn init_logging(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if config.log_json {
        builder.json().init()
    } else {
        builder.init()
    }
}

/// Exit 0 for a 200-499 answer, 1 for any other status, 2 when no answer arrives.
async fn health_check(url: &str) -> ExitCode {
    let client = match auth::http_client::new(None) {
        Ok(client) => client,
        Err(e) => {
            eprintln!("auth: {e}");
            return ExitCode::from(2);
        }
    };
    match auth::http_client::get_status(&client, url, &[], Duration::from_secs(5)).await {
        Ok(status) if (200..500).contains(&status.as_u16()) => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("auth: {url} answered {status}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("auth: {url}: {e}");
            ExitCode::from(2)
        }
    }
}

async fn run(command: Option<Command>, config: Config) -> anyhow::Result<()> {
    let store = store::open(&config.store).await?;
    let Some(command) = command else {
        return serve(config, store).await;
    };
    let out = execute(command, store.as_ref(), &config).await?;
    match emit(&out.to_string()) {
        ExitCode::SUCCESS => Ok(()),
        _ => anyhow::bail!("output lost"),
    }
}

/// Runs one administrative command on `store`: its JSON answer.
async fn execute(
    command: Command,
    store: &dyn store::Store,
    config: &Config,
) -> anyhow::Result<serde_json::Value> {
    Ok(match command {
        Command::Migrate => {
            store.migrate().await?;
            serde_json::json!({ "migrated": true })
        }
        Command::Authority { action } => add_authority(store, action).await?,
        Command::User { action } => add_user(store, action, config.bcrypt_cost).await?,
        Command::Client { action } => add_client(store, action).await?,
        Command::Apikey { action } => add_api_key(store, action).await?,
        Command::Oauth2 { action } => add_oauth_strategy(store, action).await?,
        Command::Saml { action } => add_saml_strategy(store, action).await?,
    })
}

/// `auth authority add`: adds an authority (tenant).
async fn add_authority(
    store: &dyn store::Store,
    action: AuthorityAction,
) -> anyhow::Result<serde_json::Value> {
    let AuthorityAction::Add {
        domain,
        name,
        login_url,
        logout_url,
        session_timeout,
    } = action;
    let new = admin::NewAuthority {
        domain: &domain,
        name: &name,
        login_url,
        logout_url,
        session_timeout_minutes: session_timeout,
    };
    Ok(admin::add_authority(store, new).await?)
}

/// `auth user add`: adds a user.
async fn add_user(
    store: &dyn store::Store,
    action: UserAction,
    bcrypt_cost: u32,
) -> anyhow::Result<serde_json::Value> {
    let UserAction::Add {
        domain,
        email,
        password,
        name,
        admin,
        support,
    } = action;
    let args = admin::NewUserArgs {
        domain: &domain,
        email: &email,
        password: &password,
        name,
        admin,
        support,
        bcrypt_cost,
    };
    Ok(admin::add_user(store, args).await?)
}

/// `auth client add`: adds an OAuth client.
async fn add_client(
    store: &dyn store::Store,
    action: ClientAction,
) -> anyhow::Result<serde_json::Value> {
    let ClientAction::Add {
        domain,
        name,
        redirect_uri,
        public,
        scopes,
    } = action;
    let new = admin::NewClient {
        domain: &domain,
        name: &name,
        redirect_uris: redirect_uri,
        public,
        scopes,
    };
    Ok(admin::add_client(store, new).await?)
}

/// `auth apikey add`: adds an API key.
async fn add_api_key(
    store: &dyn store::Store,
    action: ApikeyAction,
) -> anyhow::Result<serde_json::Value> {
    let ApikeyAction::Add {
        domain,
        email,
        scopes,
        expires_at,
    } = action;
    let new = admin::NewApiKey {
        domain: &domain,
        email: &email,
        scopes,
        expires_at,
    };
    Ok(admin::add_api_key(store, new).await?)
}

/// `auth oauth2 add`: adds an OAuth 2.0 login strategy.
async fn add_oauth_strategy(
    store: &dyn store::Store,
    action: OAuth2Action,
) -> anyhow::Result<serde_json::Value> {
    let OAuth2Action::Add {
        domain,
        name,
        client_id,
        client_secret,
        site,
        authorize_url,
        token_url,
        raw_info_url,
        scope,
        auth_scheme,
        info_mappings,
        ensure_matching,
    } = action;
    let new = admin::NewOAuthStrategy {
        domain: &domain,
        name: &name,
        client_id: &client_id,
        client_secret: &client_secret,
        site: &site,
        authorize_url,
        token_url,
        raw_info_url,
        scope,
        auth_scheme,
        info_mappings,
        ensure_matching,
    };
    Ok(admin::add_oauth_strategy(store, new).await?)
}

/// `auth saml add`: adds a SAML login strategy.
async fn add_saml_strategy(
    store: &dyn store::Store,
    action: SamlAction,
) -> anyhow::Result<serde_json::Value> {
    let SamlAction::Add {
        domain,
        name,
        issuer,
        idp_sso_target_url,
        idp_cert,
        idp_cert_fingerprint,
        uid_attribute,
        attribute_statements,
        name_identifier_format,
        idp_slo_target_url,
    } = action;
    let idp_cert = idp_cert
        .map(|path| {
            std::fs::read_to_string(&path)
                .map_err(|e| anyhow::anyhow!("--idp-cert {}: {e}", path.display()))
        })
        .transpose()?;
    let new = admin::NewSamlStrategy {
        domain: &domain,
        name: &name,
        issuer: &issuer,
        idp_sso_target_url: &idp_sso_target_url,
        idp_cert,
        idp_cert_fingerprint,
        uid_attribute,
        attribute_statements,
        name_identifier_format,
        idp_slo_target_url,
    };
    Ok(admin::add_saml_strategy(store, new).await?)
}

async fn serve(config: Config, store: std::sync::Arc<dyn store::Store>) -> anyhow::Result<()> {
    let metrics = auth::metrics::install()?;
    let listener = tokio::net::TcpListener::bind((config.bind, config.port)).await?;
    let state = AppState::new(config, store, metrics).await?;
    tracing::info!(address = %listener.local_addr()?, "listening");
    let app = routes::router(state).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown())
        .await?;
    Ok(())
}

/// Resolves on SIGINT or SIGTERM; in-flight requests then finish before the process exits.
async fn shutdown() {
    let interrupt = tokio::signal::ctrl_c();
    let mut terminate =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => return interrupt.await.unwrap_or_default(),
        };
    tokio::select! {
        _ = interrupt => {},
        _ = terminate.recv() => {},
    }
}
