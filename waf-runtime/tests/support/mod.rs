//! Real parts for the proxy's tests: an upstream HTTP server on loopback, the real `waf` binary on a free port,
//! and a plain HTTP/1.1 client.
#![allow(dead_code)] // each test file uses its own subset of these helpers

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

pub mod geoip;
pub mod tls;

/// What the upstream received.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub uri: String,
    pub headers: http::HeaderMap,
    pub body: Bytes,
}

/// Size of the `/big` response: larger than any buffer on the way, so it must stream.
pub const BIG_LEN: usize = 8 * 1024 * 1024;

pub fn big_byte(i: usize) -> u8 {
    (i.wrapping_mul(31) % 251) as u8
}

/// An HTTP server on loopback. `/big` streams `BIG_LEN` bytes in chunks, `/slow` answers after 3 s, anything
/// else echoes the request body with status 200 and a few headers (including hop-by-hop ones that must not
/// reach the client).
pub struct Upstream {
    pub addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    connections: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Upstream {
    pub async fn start() -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let connections = Arc::new(AtomicUsize::new(0));
        let accepted = connections.clone();
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                accepted.fetch_add(1, Ordering::SeqCst);
                let record = record.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req: Request<Incoming>| {
                        let record = record.clone();
                        async move { Ok::<_, Infallible>(answer(req, record).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Upstream {
            addr,
            seen,
            connections,
            task,
        }
    }

    /// How many connections the upstream has accepted so far.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    pub fn last(&self) -> Seen {
        self.seen().pop().expect("the upstream received no request")
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type UpstreamBody = http_body_util::Either<Full<Bytes>, ChannelBody>;

/// A response body fed chunk by chunk from a task: a response that exists only as a stream.
pub struct ChannelBody(pub tokio::sync::mpsc::Receiver<Bytes>);

impl hyper::body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|o| o.map(|b| Ok(Frame::data(b))))
    }
}

async fn answer(req: Request<Incoming>, record: Arc<Mutex<Vec<Seen>>>) -> Response<UpstreamBody> {
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    record.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        uri: parts.uri.to_string(),
        headers: parts.headers.clone(),
        body: body.clone(),
    });
    match parts.uri.path() {
        "/big" => {
            let (tx, rx) = tokio::sync::mpsc::channel(4);
            // Made once, by copying its period (`big_byte` repeats every 251 bytes): made a byte at a time per
            // request it took seconds unoptimised, so the answer trickled out instead of streaming.
            static BIG: std::sync::OnceLock<Bytes> = std::sync::OnceLock::new();
            let big = BIG.get_or_init(|| {
                let period: Vec<u8> = (0..251).map(big_byte).collect();
                let mut all = period.repeat(BIG_LEN / period.len() + 1);
                all.truncate(BIG_LEN);
                Bytes::from(all)
            });
            tokio::spawn(async move {
                let chunk = 64 * 1024;
                for start in (0..BIG_LEN).step_by(chunk) {
                    let data = big.slice(start..(start + chunk).min(BIG_LEN));
                    if tx.send(data).await.is_err() {
                        return;
                    }
                }
            });
            Response::new(http_body_util::Either::Right(ChannelBody(rx)))
        }
        path => {
            if path == "/slow" {
                tokio::time::sleep(Duration::from_secs(3)).await;
            }
            Response::builder()
                .status(StatusCode::OK)
                .header("x-upstream", "echo")
                .header("X-Mixed-Case", "Value With Spaces")
                .header("connection", "x-hop")
                .header("x-hop", "must not reach the client")
                .body(http_body_util::Either::Left(Full::new(body)))
                .unwrap()
        }
    }
}

/// The real `waf` binary, run in its own temporary directory with the config given, killed on drop.
pub struct Waf {
    pub addr: SocketAddr,
    pub dir: tempfile::TempDir,
    child: Child,
    log: Arc<Mutex<String>>,
}

/// Request workers of every `waf` started here: more than one, so every test also covers requests, reloads,
/// metrics and shutdown spread over several workers, whatever the machine's core count.
pub const WORKERS: usize = 2;

/// A rule that blocks any argument or body containing `attack-me`.
pub const DENY_RULE: &str = r#"
id: 100001
msg: "test attack marker"
severity: CRITICAL
operator: contains
pattern: "attack-me"
variables: [ARGS, BODY]
action: deny
"#;

impl Waf {
    /// Starts `waf` with `config` (the `waf:` document; `http_port: 0` and `listen_address` are added) and the
    /// rule files given (name, content) in `rules/`.
    pub fn start(config: &str, rules: &[(&str, &str)]) -> Waf {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("rules")).unwrap();
        for (name, text) in rules {
            std::fs::write(dir.path().join("rules").join(name), text).unwrap();
        }
        Self::write_config(dir.path(), config);
        Self::launch(dir)
    }

    /// Starts `waf` in `dir` (prepared by the test) with `config` as its `waf:` document apart from the server
    /// settings: for tests that write the `rules:` section themselves.
    pub fn start_in(dir: tempfile::TempDir, config: &str) -> Waf {
        let text = format!(
            "waf:\n  server: {{listen_address: 127.0.0.1, http_port: 0, shutdown_grace_sec: 10}}\n{config}"
        );
        std::fs::write(dir.path().join("waf.yml"), text).unwrap();
        Self::launch(dir)
    }

    pub fn write_config(dir: &Path, config: &str) {
        Self::write_config_with_server(dir, "", config);
    }

    /// Starts `waf` as `start` does, with `server` (flow-mapping entries such as `https_enabled: true`) added to
    /// the `server:` settings.
    pub fn start_with_server(server: &str, config: &str, rules: &[(&str, &str)]) -> Waf {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("rules")).unwrap();
        for (name, text) in rules {
            std::fs::write(dir.path().join("rules").join(name), text).unwrap();
        }
        Self::write_config_with_server(dir.path(), server, config);
        Self::launch(dir)
    }

    /// Starts `waf` again in the directory of one that was stopped, with the config it left there.
    pub fn restart_in(dir: tempfile::TempDir) -> Waf {
        Self::launch(dir)
    }

    pub fn write_config_with_server(dir: &Path, server: &str, config: &str) {
        let server = if server.is_empty() {
            String::new()
        } else {
            format!(", {server}")
        };
        // A test that needs a fixed HTTP port (ACME validates on it) sets it in `server`, and one that needs
        // both address families its listen address.
        let http_port = if server.contains("http_port:") {
            ""
        } else {
            "http_port: 0, "
        };
        let listen = if server.contains("listen_address:") {
            ""
        } else {
            "listen_address: 127.0.0.1, "
        };
        let text = format!(
            "waf:\n  server: {{{listen}{http_port}shutdown_grace_sec: 10, workers: {WORKERS}{server}}}\n  rules: {{directories: [rules], reload_interval_sec: 1}}\n{config}"
        );
        // Write then rename, as an operator's deploy tool would: the watcher never sees a half-written file.
        let tmp = dir.join("waf.yml.tmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(tmp, dir.join("waf.yml")).unwrap();
    }

    /// Starts `waf` on the `waf.yml` the test wrote into `dir` (with `write_config`).
    pub fn launch(dir: tempfile::TempDir) -> Waf {
        Self::launch_with(dir, Command::new(env!("CARGO_BIN_EXE_waf")))
    }

    /// Starts `waf` as `launch` does, by `command` (the binary, or a shell that runs it with its arguments
    /// after `$0`).
    pub fn launch_with(dir: tempfile::TempDir, mut command: Command) -> Waf {
        let mut child = command
            .arg("--config")
            .arg(dir.path().join("waf.yml"))
            .current_dir(dir.path())
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start waf");
        let log = Arc::new(Mutex::new(String::new()));
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let mut l = log.lock().unwrap();
                    l.push_str(&line);
                    l.push('\n');
                }
            });
        }
        // Compiling the whole CRS in a debug build takes seconds, and many more on a machine busy with the
        // other tests: the wait is for readiness, not a bound on start-up time.
        let deadline = Instant::now() + Duration::from_secs(90);
        let addr = loop {
            let text = log.lock().unwrap().clone();
            if let Some(rest) = text.split("listening on ").nth(1) {
                let addr = rest.split([',', ' ', '\n']).next().unwrap();
                break addr.parse().unwrap();
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("waf exited with {status}:\n{text}");
            }
            assert!(Instant::now() < deadline, "waf did not start:\n{text}");
            std::thread::sleep(Duration::from_millis(20));
        };
        Waf {
            addr,
            dir,
            child,
            log,
        }
    }

    /// The HTTPS listener's address (from its "HTTPS listening on" log line).
    pub fn https_addr(&self) -> SocketAddr {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let text = self.logs();
            if let Some(rest) = text.split("HTTPS listening on ").nth(1) {
                return rest
                    .split([',', ' ', '\n'])
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
            }
            assert!(Instant::now() < deadline, "no HTTPS listener:\n{text}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the process (SIGKILL) and hands back its directory, for a restart in the same place.
    pub fn stop(mut self) -> tempfile::TempDir {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let placeholder = tempfile::tempdir().unwrap();
        std::mem::replace(&mut self.dir, placeholder)
    }

    pub fn logs(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the log contains `needle` (or fails after `secs`).
    pub async fn wait_log(&self, needle: &str, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while !self.logs().contains(needle) {
            assert!(
                Instant::now() < deadline,
                "log never showed {needle:?}:\n{}",
                self.logs()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub fn rules_dir(&self) -> PathBuf {
        self.dir.path().join("rules")
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the process to exit and returns whether it exited successfully.
    pub fn wait_exit(&mut self, secs: u64) -> bool {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            assert!(
                Instant::now() < deadline,
                "waf did not exit:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Polls `GET /health` until `check` holds on its JSON (or fails after `secs`).
    pub async fn wait_health(&self, secs: u64, check: impl Fn(&serde_json::Value) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let (_, body) = get(self.addr, "/health").await;
            let health: serde_json::Value = serde_json::from_slice(&body).unwrap();
            if check(&health) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "health never satisfied the check: {health}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until `series` reaches `value` (or fails after 10 s).
    pub async fn wait_metric(&self, series: &str, value: f64) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let now = self.metric(series).await;
            if now == value {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{series} stayed at {now}, not {value}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The value of an unlabelled or labelled series in `/metrics` (0 when absent).
    pub async fn metric(&self, series: &str) -> f64 {
        let (_, body) = get(self.addr, "/metrics").await;
        let text = String::from_utf8(body.to_vec()).unwrap();
        text.lines()
            .find_map(|l| {
                l.strip_prefix(series)
                    .and_then(|rest| rest.strip_prefix(' '))
            })
            .map_or(0.0, |v| v.trim().parse().unwrap())
    }
}

impl Drop for Waf {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends one request on a fresh HTTP/1.1 connection and returns the response head and the whole body.
pub async fn send(addr: SocketAddr, req: Request<Full<Bytes>>) -> (http::response::Parts, Bytes) {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    let response = sender.send_request(req).await.unwrap();
    let (parts, body) = response.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    (parts, body)
}

pub async fn get(addr: SocketAddr, path: &str) -> (http::response::Parts, Bytes) {
    let req = Request::get(path)
        .header("host", "app.test")
        .body(Full::new(Bytes::new()))
        .unwrap();
    send(addr, req).await
}

pub async fn post(
    addr: SocketAddr,
    path: &str,
    body: impl Into<Bytes>,
) -> (http::response::Parts, Bytes) {
    let req = Request::post(path)
        .header("host", "app.test")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Full::new(body.into()))
        .unwrap();
    send(addr, req).await
}

/// Writes raw bytes and reads the answer until the proxy closes the connection (or 5 s pass).
pub async fn raw(addr: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

/// Runs `waf --config waf.yml --check-config` in `dir`.
pub fn check_config(dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_waf"))
        .args(["--config", "waf.yml", "--check-config"])
        .current_dir(dir)
        .output()
        .unwrap()
}

pub fn json(body: &[u8]) -> serde_json::Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(body)))
}

/// A loopback port with nothing listening on it.
pub fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}
