//! `waf`: a reverse proxy that inspects every request with compiled rules, then blocks, logs or forwards it.
//!
//! Reading order follows a request: `workers.rs` runs the request threads, `server.rs` accepts on each, `head_guard.rs`
//! frames each HTTP/1 byte stream (with `limits.rs`, `request_target.rs`) before hyper parses it and holds each wait on a client to its bound (`timeouts.rs`), `pipeline.rs` runs the stages (`framing.rs`, `client_ip.rs`, `body.rs`, `inspect.rs`), `forward.rs` and
//! `upstream.rs` talk to the upstream (`upgrade.rs` relays switched protocols), `response_inspection.rs` judges its
//! answer and `correlation.rs` reports the transaction's scores, `responses.rs` holds the proxy's own answers. Around them: `config/` (file, environment, defaults), `state.rs` (what a reload swaps),
//! `reload.rs` (when it does), `metrics.rs` and `logging.rs`. `traffic/` holds the controls that run once the
//! client address is known (IP lists, GeoIP, rate limits). HTTPS lives in `tls/`: certificates per SNI name,
//! their files watched, the handshake run on the same workers before `server.rs` serves the connection.
//!
//! Every request has an id (`request_id.rs`) and, once answered, a line in the access log (`access_log.rs`).
//!
//! `admin/` is the admin panel, on its own listener; `recent_blocks.rs` is what the request path tells it.
//!
//! [`run`] fails with a [`StartError`] (`start_error.rs`) naming the step that failed: binding, certificates,
//! rules, traffic controls, the admin panel.
mod access_log;
mod admin;
mod body;
mod body_timeout;
mod cidr;
mod client_ip;
pub mod config;
mod connection_limits;
mod correlation;
mod forward;
mod framing;
mod head_guard;
mod headers;
mod inspect;
mod limits;
mod logging;
mod metrics;
mod pipeline;
mod recent_blocks;
mod reload;
mod request_id;
mod request_target;
mod response_inspection;
mod responses;
mod send_timeout;
mod server;
mod settings_ack;
mod start_error;
mod state;
mod terminal_safe;
mod timeouts;
mod tls;
mod traffic;
mod upgrade;
mod upstream;
mod upstream_pool;
mod upstream_tls;
mod upstream_url;
mod workers;

pub use cidr::Cidr;
pub use framing::BodyFraming;
pub use head_guard::{HeadGuard, HeadNotes};
pub use inspect::{LoadedRules, RulesError, load as load_rules};
pub use limits::Limits;
pub use logging::{Writers as LogWriters, init as init_logging};
pub use metrics::Metrics;
pub use traffic::ip_lists::IpSet;
pub use traffic::{Traffic, TrafficError};

pub use access_log::AccessLog;
use config::Config;
pub use start_error::StartError;
use state::State;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::signal::unix::{SignalKind, signal};

/// Runs the proxy until SIGTERM or SIGINT, then drains. `config_path` is the file to watch for reloads;
/// `access_log` is where access lines go (`logging::init`).
pub fn run(
    config: Config,
    config_path: Option<PathBuf>,
    access_log: Arc<AccessLog>,
) -> Result<(), StartError> {
    let control = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(StartError::at("starting the control runtime"))?;
    control.block_on(control_plane(config, config_path, access_log))
}

/// SIGUSR1 opens the access log file again by its path: logrotate renames the file, then signals (nginx's
/// convention; no `copytruncate`, which loses the lines written between its copy and its truncation).
fn reopen_access_log_on_sigusr1(access_log: Arc<AccessLog>) -> Result<(), StartError> {
    let mut usr1 =
        signal(SignalKind::user_defined1()).map_err(StartError::at("SIGUSR1 handler"))?;
    tokio::spawn(async move {
        while usr1.recv().await.is_some() {
            tracing::info!("SIGUSR1 received: reopening the access log");
            access_log.reopen();
        }
    });
    Ok(())
}

/// Every so often, the rate limiters forget clients whose state is back to fresh: under a flood of distinct
/// addresses the tables shrink back once it ends.
fn spawn_traffic_upkeep(state: Arc<State>) {
    const EVERY: std::time::Duration = std::time::Duration::from_secs(10);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(EVERY);
        loop {
            tick.tick().await;
            let traffic = state.live.load().traffic.clone();
            // Pruning walks the tables: off the control runtime's event loop.
            let _ = tokio::task::spawn_blocking(move || traffic.prune()).await;
        }
    });
}

/// Loads the rules, binds, starts the request workers (`workers.rs`), then runs reloads and metrics upkeep and
/// waits for the signal to stop.
async fn control_plane(
    config: Config,
    config_path: Option<PathBuf>,
    access_log: Arc<AccessLog>,
) -> Result<(), StartError> {
    // First: SIGUSR1 would otherwise end the process, as it does by default.
    reopen_access_log_on_sigusr1(access_log.clone())?;
    let metrics = metrics::Metrics::install()?;
    metrics.spawn_upkeep();
    // Before any socket is opened: every client connection is a descriptor (`connection_limits.rs`).
    connection_limits::raise_open_file_limit();

    let rules = load_rules_at_start(&config).await?;
    let ip: IpAddr = config
        .server
        .listen_address
        .parse()
        .map_err(StartError::ListenAddress)?;
    // Certificates first: a broken certificate file stops the start before any port is taken.
    let certs = tls::Certs::default();
    let cert_watcher = if config.server.https_enabled {
        Some(tls::CertWatcher::start(
            &config,
            tls::provider(),
            certs.clone(),
            metrics,
        )?)
    } else {
        None
    };
    let (bound, https_port) = open_listeners(&config, ip, &certs)?;

    let config_text = match &config_path {
        Some(p) => tokio::fs::read_to_string(p).await.ok(),
        None => None,
    };
    let traffic = traffic::Traffic::build(&config, None, metrics)?;
    // The panel's listener is read at start, like the proxy's.
    let admin = config.admin.clone();
    let challenges = Arc::new(tls::Challenges::default());
    let https_state = tls::Https {
        port: https_port,
        certs: certs.clone(),
        challenges: challenges.clone(),
        watcher: cert_watcher.map(std::sync::Mutex::new),
        acme: tls::AcmeTasks::new(challenges, certs, tls::provider(), metrics),
    };
    let state = Arc::new(State::new(
        config,
        traffic,
        rules,
        metrics,
        config_path,
        https_state,
        access_log,
    ));
    spawn_traffic_upkeep(state.clone());
    tokio::spawn(upstream_pool::keep_checking(state.clone()));
    tokio::spawn(upstream::keep_rereading_tls_files(state.clone()));
    tokio::spawn(reload::Reloader::new(state.clone(), config_text).run());
    if state.https.watcher.is_some() {
        tokio::spawn(tls::keep_refreshing(state.clone()));
    }

    if admin.enabled {
        admin::start(state.clone(), &admin).await?;
    }

    serve(&state, bound).await
}

/// Loads the rules the configuration names, and logs what was loaded and what was skipped.
async fn load_rules_at_start(config: &Config) -> Result<inspect::LoadedRules, StartError> {
    let for_load = config.clone();
    let rules = tokio::task::spawn_blocking(move || inspect::load(&for_load))
        .await
        .map_err(|source| StartError::Task {
            step: "rule loading task",
            source,
        })??;
    for error in &rules.errors {
        tracing::error!("rule file skipped: {error}");
    }
    tracing::info!(
        "{} rules loaded from {} (paranoia level {}, {} files skipped, hash {}), mode {:?}",
        rules.count(),
        rules.source,
        config.rules.paranoia_level,
        rules.errors.len(),
        rules.hash(),
        config.mode
    );
    Ok(rules)
}

/// Opens the HTTP and HTTPS listeners the configuration enables, and logs where they listen; the HTTPS port
/// is the one bound (the configured one, or the system's choice for port 0).
fn open_listeners(
    config: &Config,
    ip: IpAddr,
    certs: &tls::Certs,
) -> Result<(workers::Bound, u16), StartError> {
    let v6_only = config.server.ipv6_only;
    let http = match config.server.http_enabled {
        true => Some(bind(SocketAddr::new(ip, config.server.http_port), v6_only)?),
        false => None,
    };
    let https = match config.server.https_enabled {
        true => {
            let listener = bind(SocketAddr::new(ip, config.server.https_port), v6_only)?;
            let acceptor =
                tls::acceptor(certs.clone(), config.server.http2_enabled, tls::provider())?;
            Some((listener, acceptor))
        }
        false => None,
    };
    // HTTP first: tests and scripts read the first "listening on" line for the plain HTTP address.
    if let Some(l) = &http {
        tracing::info!(
            "listening on {}, default upstream {}, {} workers",
            l.local_addr().map_err(StartError::at("local address"))?,
            config.upstream.default,
            config.server.workers
        );
    }
    let mut https_port = config.server.https_port;
    if let Some((l, _)) = &https {
        let addr = l.local_addr().map_err(StartError::at("local address"))?;
        https_port = addr.port();
        tracing::info!(
            "HTTPS listening on {addr}, default upstream {}, {} workers, HTTP/2 {}",
            config.upstream.default,
            config.server.workers,
            if config.server.http2_enabled {
                "on"
            } else {
                "off"
            }
        );
    }
    Ok((workers::Bound { http, https }, https_port))
}

/// Starts the request workers on the listeners and serves until SIGTERM or SIGINT, then waits for the workers
/// to finish their requests.
async fn serve(state: &Arc<State>, bound: workers::Bound) -> Result<(), StartError> {
    let mut terminate =
        signal(SignalKind::terminate()).map_err(StartError::at("SIGTERM handler"))?;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let workers = workers::Workers::start(state, &bound, &stopped)?;
    // ACME answers challenges on the HTTP listener and serves over HTTPS: without both open, no ACME domain can be
    // in force until a restart (`config/resolve.rs` refuses it), and nothing is started.
    let acme = bound.http.is_some() && bound.https.is_some();
    // The workers hold their own handles; a socket closes when the last of them stops accepting.
    drop(bound);
    if acme {
        // Now that the HTTP listener answers challenges; from here on, ACME follows every configuration swap.
        state.start_acme();
    }
    tokio::select! {
        _ = terminate.recv() => tracing::info!("SIGTERM received"),
        _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT received"),
    }
    stop.send_replace(true);
    tokio::task::spawn_blocking(move || workers.join())
        .await
        .map_err(|source| StartError::Task {
            step: "waiting for the workers",
            source,
        })?;
    Ok(())
}

/// A listening socket on `addr`, non-blocking. On an IPv6 address, IPV6_V6ONLY is set to `v6_only` explicitly
/// (the system default, `net.ipv6.bindv6only`, varies): off, the socket takes IPv4 clients too, as IPv4-mapped
/// addresses. On a host without IPv6, the default `::` falls back to `0.0.0.0`, logged, rather than not starting.
fn bind(addr: SocketAddr, v6_only: bool) -> Result<std::net::TcpListener, StartError> {
    match listen(addr, v6_only) {
        Err(e) if addr.ip() == IpAddr::from(std::net::Ipv6Addr::UNSPECIFIED) && no_ipv6(&e) => {
            let v4 = SocketAddr::new(std::net::Ipv4Addr::UNSPECIFIED.into(), addr.port());
            tracing::warn!(
                "cannot listen on {addr} ({e}): IPv6 unavailable, listening on {v4} instead"
            );
            listen(v4, false)
        }
        result => result,
    }
    .map_err(|source| StartError::Bind { addr, source })
}

fn listen(addr: SocketAddr, v6_only: bool) -> std::io::Result<std::net::TcpListener> {
    use socket2::{Domain, Socket, Type};
    // What tokio's `TcpListener::bind` does, plus the address family choice.
    const BACKLOG: i32 = 1024;
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
    if addr.is_ipv6() {
        socket.set_only_v6(v6_only)?;
    }
    // A restarted proxy binds again while connections of the previous one are in TIME_WAIT.
    socket.set_reuse_address(true)?;
    // Linux gives every accepted connection the listening socket's TCP_NODELAY (`server::accept`): one system
    // call at start instead of one per connection.
    socket.set_tcp_nodelay(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// Whether an error binding an IPv6 socket means the host has no IPv6 (module not loaded, disabled).
fn no_ipv6(e: &std::io::Error) -> bool {
    // Linux's EAFNOSUPPORT: the kernel has no IPv6 at all (std has no `ErrorKind` for it).
    const EAFNOSUPPORT: i32 = 97;
    e.kind() == std::io::ErrorKind::AddrNotAvailable || e.raw_os_error() == Some(EAFNOSUPPORT)
}
