//! The admin panel: an axum router in the proxy's process, on its own listener (`admin:` in `waf.yml`,
//! 127.0.0.1:8888 by default), serving a small web UI built into the binary and the JSON API behind it
//! (OpenAPI at `/api/openapi.json`). Reference: docs/admin-panel.md.
//!
//! - `setup.rs`: the one-time token that creates the first admin.
//! - `password.rs`, `session.rs`, `throttle.rs`, `accounts.rs`: Argon2id accounts, JWT sessions in cookies,
//!   CSRF checks, sign-in throttling, and the account endpoints; `admins.rs`, `totp.rs`: roles (admin, viewer),
//!   removal, sessions and their revocation, the TOTP second factor and its recovery codes.
//! - `settings.rs`, `live_config.rs`: changes to the running proxy, applied like a reload and saved to `waf.yml`
//!   (what only a restart applies, such as the listeners, is saved and answered as such).
//! - `monitoring.rs`, `dashboard.rs`: live figures, recent blocked requests (`recent_blocks.rs`), audit log.
//! - `event_store.rs`, `events.rs`: the persistent events (blocks, observed matches, refusals), their API, the
//!   live stream and the charts' figures.
//! - `store.rs`: the SQLite database (admins, sessions, audit log); `ui.rs`: the embedded pages; `qr.rs`: the QR
//!   code of the TOTP set-up.
//!
//! The panel runs on the control runtime, apart from the request workers: a slow panel never slows traffic.
//! With `admin.tls` it is served over HTTPS with the proxy's own certificates ([`serve_tls`]), and its cookies are
//! `Secure`.
mod accounts;
mod admins;
mod dashboard;
mod error;
mod event_store;
mod events;
mod live_config;
mod monitoring;
mod password;
mod qr;
mod session;
mod settings;
mod setup;
mod store;
mod throttle;
mod totp;
mod ui;
mod upstreams;

use crate::body_timeout::BodyTimeout;
use crate::config::AdminConfig;
use crate::metrics::Metrics;
use crate::send_timeout::SendTimeout;
use crate::state::State;
use crate::timeouts::Timeouts;
use crate::tls;
use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Request, header};
use axum::response::Response;
use axum::routing::{delete, get, patch, post, put};
use hyper::body::Incoming;
use hyper::service::{Service, service_fn};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use std::net::{IpAddr, SocketAddr};
use std::os::unix::fs::DirBuilderExt;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use utoipa::OpenApi;

/// What every handler shares.
pub struct Panel {
    state: Arc<State>,
    store: store::Store,
    setup: setup::SetupToken,
    keys: session::Keys,
    secure_cookies: bool,
    throttle: Arc<throttle::Throttle>,
    /// One configuration change at a time (`live_config.rs`).
    edits: tokio::sync::Mutex<()>,
    events: Arc<event_store::EventStore>,
    /// Every account must have a second factor (`PUT /api/config/admin-totp`), kept in the database.
    totp_required: std::sync::atomic::AtomicBool,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "waf admin panel",
        description = "Manage the running proxy. Every state-changing request needs the \
        session cookie and the X-CSRF-Token header (see docs/admin-panel.md)."
    ),
    paths(
        accounts::status,
        accounts::setup,
        accounts::sign_in,
        accounts::refresh,
        accounts::sign_out,
        admins::list_admins,
        admins::add_admin,
        admins::remove_admin,
        admins::change_admin,
        admins::sessions,
        admins::revoke_session,
        admins::start_totp,
        admins::confirm_totp,
        admins::require_totp,
        accounts::change_password,
        settings::show,
        settings::set_mode,
        settings::set_paranoia,
        settings::set_rule_set,
        settings::put_domain,
        settings::delete_domain,
        settings::set_domain_rules,
        settings::patch_domain_rules,
        settings::check_domain_rules,
        upstreams::put_upstream,
        upstreams::health,
        settings::patch_protection,
        settings::set_tls,
        settings::set_ip_lists,
        settings::set_rate_limit,
        settings::set_geoip,
        monitoring::show,
        monitoring::blocked,
        events::list,
        events::detail,
        events::export,
        events::stream,
        events::stats,
        monitoring::audit,
    )
)]
struct ApiDoc;

/// Why the admin panel did not start.
#[derive(Debug, thiserror::Error)]
pub enum AdminStartError {
    #[error("creating the admin data directory {}: {source}", dir.display())]
    DataDir {
        dir: std::path::PathBuf,
        source: std::io::Error,
    },
    /// Opening the admin database or the event store (`what`) in `dir`.
    #[error("opening the {what} in {}: {source}", dir.display())]
    Open {
        what: &'static str,
        dir: std::path::PathBuf,
        source: sqlx::Error,
    },
    #[error("reading the admin database: {0}")]
    Database(#[from] sqlx::Error),
    /// The session key, the setup token or the listener's address (`what`).
    #[error("{what}: {source}")]
    Io {
        what: &'static str,
        source: std::io::Error,
    },
    #[error("waf.admin.listen_address: {0}")]
    ListenAddress(std::net::AddrParseError),
    #[error("binding the admin panel to {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("the admin panel's TLS settings: {0}")]
    Tls(#[from] rustls::Error),
}

/// A closure turning an I/O error on `what` into an [`AdminStartError::Io`].
fn io_error(what: &'static str) -> impl FnOnce(std::io::Error) -> AdminStartError {
    move |source| AdminStartError::Io { what, source }
}

/// Opens the data directory and the database, issues the setup token when no admin exists, binds the panel's
/// listener and serves it on the current (control) runtime. Returns the bound address.
pub async fn start(state: Arc<State>, config: &AdminConfig) -> Result<SocketAddr, AdminStartError> {
    let dir = &config.data_dir;
    // 0700: the directory holds the signing key, the setup token and the password hashes.
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| AdminStartError::DataDir {
            dir: dir.clone(),
            source,
        })?;
    let open = |what: &'static str| {
        move |source| AdminStartError::Open {
            what,
            dir: dir.clone(),
            source,
        }
    };
    let store = store::Store::open(dir)
        .await
        .map_err(open("admin database"))?;
    let keys = session::Keys::load_or_create(dir).map_err(io_error("the admin session key"))?;
    let events = event_store::EventStore::open(dir, config.events)
        .await
        .map_err(open("event store"))?;
    tokio::spawn(
        events
            .clone()
            .run(state.recent_blocks.subscribe(), state.metrics),
    );
    let totp_required = store.setting(admins::TOTP_REQUIRED).await?.as_deref() == Some("true");
    let setup = if store.admin_count().await? == 0 {
        setup::SetupToken::issue(dir).map_err(io_error("writing the admin setup token"))?
    } else {
        setup::SetupToken::none(dir)
    };
    // Handshakes are bounded like the proxy's: a client that connects and sends nothing must not hold a task.
    let timeouts = state.live.load().config.server.timeouts();
    let (certs, metrics) = (state.https.certs.clone(), state.metrics);
    let panel = Arc::new(Panel {
        state,
        store,
        setup,
        keys,
        secure_cookies: config.secure_cookies,
        throttle: throttle::Throttle::new(),
        edits: tokio::sync::Mutex::new(()),
        events,
        totp_required: std::sync::atomic::AtomicBool::new(totp_required),
    });
    let ip: IpAddr = config
        .listen_address
        .parse()
        .map_err(AdminStartError::ListenAddress)?;
    let wanted = SocketAddr::new(ip, config.port);
    let listener = TcpListener::bind(wanted)
        .await
        .map_err(|source| AdminStartError::Bind {
            addr: wanted,
            source,
        })?;
    // Inherited by the connections it accepts (`server::accept`).
    socket2::SockRef::from(&listener)
        .set_tcp_nodelay(true)
        .map_err(|source| AdminStartError::Bind {
            addr: wanted,
            source,
        })?;
    let addr = listener
        .local_addr()
        .map_err(io_error("admin panel address"))?;
    let app = router(panel);
    let acceptor = if config.tls {
        // The HTTPS listener's table: present, since the configuration refuses admin.tls without HTTPS.
        // HTTP/1.1 only: hyper's HTTP/2 server has no bound on an idle connection, nor on a client that never
        // acknowledges SETTINGS, and the panel (a few requests a page) gains nothing from HTTP/2.
        let acceptor = tls::acceptor(certs, false, tls::provider())?;
        tracing::info!("admin panel listening on {addr} (HTTPS)");
        Some(acceptor)
    } else {
        tracing::info!("admin panel listening on {addr}");
        None
    };
    tokio::spawn(serve(listener, acceptor, app, timeouts, metrics));
    Ok(addr)
}

/// Serves the panel, over TLS when there is an acceptor, with the proxy's bounds on a client (`server.
/// timeouts`): the first byte, the TLS handshake, each request head, the wait for the next one included (hyper's
/// header timer), each wait for a body's next bytes (`body_timeout.rs`) and each write the client does not make
/// room for (`send_timeout.rs`), so a client that connects and sends nothing, sends a head or a body a byte at a
/// time, or stops reading, does not hold a task for long. HTTP/1.1 only (see `start`). Each connection is served
/// with hyper, giving the handlers the client's address as `axum::serve` does.
async fn serve(
    listener: TcpListener,
    acceptor: Option<TlsAcceptor>,
    app: Router,
    timeouts: Timeouts,
    metrics: &'static Metrics,
) {
    let app = TowerToHyperService::new(app);
    let mut builder = auto::Builder::new(TokioExecutor::new()).http1_only();
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(timeouts.head);
    loop {
        let Some((stream, peer)) = crate::server::accept(Some(&listener)).await else {
            continue;
        };
        let (acceptor, app, builder) = (acceptor.clone(), app.clone(), builder.clone());
        tokio::spawn(async move {
            let service = service_fn(move |mut req: Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                app.call(req.map(|body| {
                    BodyTimeout::new(
                        body,
                        timeouts.body,
                        peer.ip(),
                        metrics,
                        "answered 408, connection closed",
                    )
                }))
            });
            let served = match acceptor {
                Some(acceptor) => {
                    let Some(stream) =
                        tls::handshake(&acceptor, stream, peer, timeouts, metrics).await
                    else {
                        return;
                    };
                    let stream = SendTimeout::new(stream, timeouts.send, peer.ip(), metrics);
                    builder
                        .serve_connection_with_upgrades(TokioIo::new(stream), service)
                        .await
                }
                None => {
                    let mut first = [0u8; 1];
                    match tokio::time::timeout(timeouts.first_byte, stream.peek(&mut first)).await {
                        Ok(Ok(n)) if n > 0 => {}
                        _ => return,
                    }
                    let stream = SendTimeout::new(stream, timeouts.send, peer.ip(), metrics);
                    builder
                        .serve_connection_with_upgrades(TokioIo::new(stream), service)
                        .await
                }
            };
            if let Err(e) = served {
                tracing::debug!("admin panel connection from {peer} ended: {e}");
            }
        });
    }
}

fn router(panel: Arc<Panel>) -> Router {
    let api = Router::new()
        .route("/status", get(accounts::status))
        .route("/setup", post(accounts::setup))
        .route(
            "/session",
            post(accounts::sign_in).delete(accounts::sign_out),
        )
        .route("/session/refresh", post(accounts::refresh))
        .route("/admins", get(admins::list_admins).post(admins::add_admin))
        .route(
            "/admins/{username}",
            delete(admins::remove_admin).patch(admins::change_admin),
        )
        .route("/sessions", get(admins::sessions))
        .route("/sessions/{id}", delete(admins::revoke_session))
        .route("/me/password", put(accounts::change_password))
        .route(
            "/me/totp",
            post(admins::start_totp).put(admins::confirm_totp),
        )
        .route("/config/admin-totp", put(admins::require_totp))
        .route("/config", get(settings::show))
        .route("/config/mode", put(settings::set_mode))
        .route("/config/paranoia", put(settings::set_paranoia))
        .route("/config/rules", put(settings::set_rule_set))
        .route("/config/protection", patch(settings::patch_protection))
        .route(
            "/domains/{host}",
            put(settings::put_domain).delete(settings::delete_domain),
        )
        .route(
            "/domains/{host}/rules",
            put(settings::set_domain_rules).patch(settings::patch_domain_rules),
        )
        .route(
            "/domains/{host}/rules/check",
            post(settings::check_domain_rules),
        )
        .route("/domains/{host}/upstream", put(upstreams::put_upstream))
        .route("/upstreams", get(upstreams::health))
        .route("/tls", put(settings::set_tls))
        .route("/ip-filter", put(settings::set_ip_lists))
        .route("/rate-limit", put(settings::set_rate_limit))
        .route("/geoip", put(settings::set_geoip))
        .route("/dashboard", get(monitoring::show))
        .route("/blocked", get(monitoring::blocked))
        .route("/events", get(events::list))
        .route("/events/export", get(events::export))
        .route("/events/stream", get(events::stream))
        .route("/events/{id}", get(events::detail))
        .route("/stats", get(events::stats))
        .route("/audit", get(monitoring::audit))
        .route("/rules", get(monitoring::rules))
        .route("/openapi.json", get(openapi));
    Router::new()
        .nest("/api", api)
        .merge(ui::routes())
        .with_state(panel)
        .layer(axum::middleware::map_response(error::json_errors))
        .layer(axum::middleware::map_response(security_headers))
}

async fn openapi() -> axum::Json<utoipa::openapi::OpenApi> {
    axum::Json(ApiDoc::openapi())
}

/// On every answer: no framing by other sites (clickjacking), no MIME sniffing, scripts and styles only from the
/// panel itself, nothing cached (answers hold settings and logs). No `Access-Control-*` header is ever set, so
/// browsers keep other origins from reading any answer.
async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in [
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        ),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}
