//! The admin panel against the real `waf` binary: the setup token (required, single-use, race-free), Argon2id
//! hashes in the SQLite store, session cookies and their attributes, CSRF and cross-origin refusals, sign-in
//! throttling, revocation on sign-out, and live changes that route traffic at once, land in `waf.yml`, refuse an
//! invalid value without applying anything, and are audited; a domain's certificate served by SNI at once (real
//! handshakes), listener changes answered as awaiting a restart, and applied by it; ACME domains started and
//! stopped live; the panel served over HTTPS (`admin.tls`) with the proxy's certificate and `Secure` cookies.
mod support;

use bytes::Bytes;
use http::{Method, Request};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};
use support::tls::*;
use support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PASSWORD: &str = "a long enough password";

/// Starts `waf` with the panel on a free port; returns it with the panel's address.
fn start_with_panel(config: &str) -> (Waf, SocketAddr) {
    start_with_panel_and_server("", config)
}

/// As `start_with_panel`, with `server` (flow-mapping entries such as `https_enabled: true`) added to the
/// `server:` settings.
fn start_with_panel_and_server(server: &str, config: &str) -> (Waf, SocketAddr) {
    start_with_admin("", server, config)
}

/// As `start_with_panel_and_server`, with `admin` (flow-mapping entries such as `tls: true`) added to the
/// `admin:` settings.
fn start_with_admin(admin: &str, server: &str, config: &str) -> (Waf, SocketAddr) {
    let waf = Waf::start_with_server(
        server,
        &format!("  admin: {{enabled: true, port: 0, data_dir: admin-data, {admin}}}\n{config}"),
        &[("deny.yaml", DENY_RULE)],
    );
    panel_of(waf)
}

/// `waf` with the address of its panel, once it listens.
fn panel_of(waf: Waf) -> (Waf, SocketAddr) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let addr = loop {
        if let Some(rest) = waf.logs().split("admin panel listening on ").nth(1) {
            break rest.split_whitespace().next().unwrap().parse().unwrap();
        }
        assert!(Instant::now() < deadline, "no admin panel:\n{}", waf.logs());
        std::thread::sleep(Duration::from_millis(20));
    };
    (waf, addr)
}

fn logged_token(waf: &Waf) -> String {
    let logs = waf.logs();
    let rest = logs
        .split("admin setup token: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no setup token logged:\n{logs}"));
    rest.split_whitespace().next().unwrap().to_string()
}

/// A browser-like client of the panel: keeps the cookies it is given and sends the CSRF header from them.
struct Client {
    addr: SocketAddr,
    cookies: Vec<(String, String)>,
    /// Replaces the CSRF header value (`Some("")`: none sent).
    csrf_override: Option<String>,
    origin: Option<String>,
    /// Sent as `If-Match` with each request while set.
    if_match: Option<String>,
    /// Over TLS with this client configuration, to the name `localhost`; else plain HTTP.
    tls: Option<rustls::ClientConfig>,
}

struct Answer {
    status: u16,
    headers: http::HeaderMap,
    body: Value,
}

impl Client {
    fn new(addr: SocketAddr) -> Client {
        Client {
            addr,
            cookies: Vec::new(),
            csrf_override: None,
            origin: None,
            if_match: None,
            tls: None,
        }
    }

    fn cookie(&self, name: &str) -> Option<&str> {
        self.cookies
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    async fn call(&mut self, method: Method, path: &str, body: Option<Value>) -> Answer {
        let mut req = Request::builder()
            .method(method.clone())
            .uri(path)
            .header("host", self.addr.to_string());
        if !self.cookies.is_empty() {
            let jar: Vec<String> = self
                .cookies
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            req = req.header("cookie", jar.join("; "));
        }
        let csrf = match &self.csrf_override {
            Some(v) => v.clone(),
            None => self.cookie("waf_admin_csrf").unwrap_or("").to_string(),
        };
        if method != Method::GET && !csrf.is_empty() {
            req = req.header("x-csrf-token", csrf);
        }
        if let Some(origin) = &self.origin {
            req = req.header("origin", origin);
        }
        if let Some(version) = &self.if_match {
            req = req.header("if-match", format!("\"{version}\""));
        }
        let body = match body {
            Some(v) => {
                req = req.header("content-type", "application/json");
                Bytes::from(v.to_string())
            }
            None => Bytes::new(),
        };
        let req = req.body(Full::new(body)).unwrap();
        let response = match &self.tls {
            None => exchange(TcpStream::connect(self.addr).await.unwrap(), req).await,
            Some(config) => {
                let tls = connect(self.addr, Some("localhost"), config.clone())
                    .await
                    .unwrap();
                exchange(tls, req).await
            }
        };
        let (parts, body) = response.into_parts();
        let body = body.collect().await.unwrap().to_bytes();
        for set in parts.headers.get_all("set-cookie") {
            let text = set.to_str().unwrap();
            let (name, rest) = text.split_once('=').unwrap();
            let value = rest.split(';').next().unwrap().to_string();
            self.cookies.retain(|(n, _)| n != name);
            if !value.is_empty() {
                self.cookies.push((name.to_string(), value));
            }
        }
        Answer {
            status: parts.status.as_u16(),
            headers: parts.headers,
            body: if body.is_empty() {
                Value::Null
            } else {
                serde_json::from_slice(&body)
                    .unwrap_or(Value::String(String::from_utf8_lossy(&body).into_owned()))
            },
        }
    }

    async fn sign_in(&mut self, username: &str, password: &str) -> Answer {
        self.call(
            Method::POST,
            "/api/session",
            Some(json!({"username": username, "password": password})),
        )
        .await
    }
}

/// One request on a new connection.
async fn exchange<I>(io: I, req: Request<Full<Bytes>>) -> http::Response<hyper::body::Incoming>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .unwrap();
    tokio::spawn(conn);
    sender.send_request(req).await.unwrap()
}

/// Creates the first admin `admin` and returns a signed-in client.
async fn set_up(waf: &Waf, addr: SocketAddr) -> Client {
    set_up_with(waf, Client::new(addr)).await
}

/// `set_up` with the client given.
async fn set_up_with(waf: &Waf, mut client: Client) -> Client {
    let token = logged_token(waf);
    let a = client
        .call(
            Method::POST,
            "/api/setup",
            Some(json!({"token": token, "username": "admin", "password": PASSWORD})),
        )
        .await;
    assert_eq!(a.status, 201, "{}", a.body);
    assert_eq!(client.sign_in("admin", PASSWORD).await.status, 200);
    client
}

async fn database(waf: &Waf) -> sqlx::SqlitePool {
    let path = waf.dir.path().join("admin-data/admin.sqlite");
    sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap()
}

async fn audit_actions(waf: &Waf) -> Vec<(String, String, Option<String>)> {
    sqlx::query_as("SELECT actor, action, after FROM audit ORDER BY id")
        .fetch_all(&database(waf).await)
        .await
        .unwrap()
}

#[tokio::test]
async fn setup_needs_the_token_once_and_one_of_two_racing_setups_wins() {
    let (waf, addr) = start_with_panel("");
    let token = logged_token(&waf);
    let file = waf.dir.path().join("admin-data/setup-token");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), token);
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    let mut client = Client::new(addr);
    let status = client.call(Method::GET, "/api/status", None).await;
    assert_eq!(status.body["setup_required"], true);
    let setup =
        |token: &str, name: &str| json!({"token": token, "username": name, "password": PASSWORD});
    let wrong = client
        .call(
            Method::POST,
            "/api/setup",
            Some(setup("0123abcd", "mallory")),
        )
        .await;
    assert_eq!(wrong.status, 403, "{}", wrong.body);
    // A short password is refused and does not spend the token.
    let weak = client
        .call(
            Method::POST,
            "/api/setup",
            Some(json!({"token": token, "username": "admin", "password": "short"})),
        )
        .await;
    assert_eq!(weak.status, 400);

    // Two setups with the right token at once: exactly one creates an admin.
    let (mut a, mut b) = (Client::new(addr), Client::new(addr));
    let (ra, rb) = tokio::join!(
        a.call(Method::POST, "/api/setup", Some(setup(&token, "alice"))),
        b.call(Method::POST, "/api/setup", Some(setup(&token, "bob"))),
    );
    let mut statuses = [ra.status, rb.status];
    statuses.sort();
    assert_eq!(statuses[0], 201, "{} {}", ra.body, rb.body);
    assert!(matches!(statuses[1], 403 | 409), "{statuses:?}");
    let winner = if ra.status == 201 { "alice" } else { "bob" };

    // The token is spent: its file is gone and it creates nothing more.
    assert!(!file.exists());
    let again = client
        .call(Method::POST, "/api/setup", Some(setup(&token, "carol")))
        .await;
    assert_eq!(again.status, 409);
    let db = database(&waf).await;
    let admins: Vec<(String, String)> =
        sqlx::query_as("SELECT username, password_hash FROM admins")
            .fetch_all(&db)
            .await
            .unwrap();
    assert_eq!(admins.len(), 1);
    assert_eq!(admins[0].0, winner);
    assert!(
        admins[0].1.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{}",
        admins[0].1
    );
    assert!(!admins[0].1.contains(PASSWORD));
    let audit = audit_actions(&waf).await;
    assert!(audit.contains(&(
        winner.to_string(),
        "setup: first admin created".into(),
        None
    )));
    assert_eq!(client.sign_in(winner, PASSWORD).await.status, 200);
}

#[tokio::test]
async fn sessions_are_cookies_with_csrf_checks_revocation_and_throttling() {
    let (waf, addr) = start_with_panel("");
    let mut client = set_up(&waf, addr).await;

    // Cookie attributes, as the sign-in set them.
    let mut fresh = Client::new(addr);
    assert_eq!(fresh.sign_in("admin", "not the password").await.status, 401);
    let signed = fresh.sign_in("admin", PASSWORD).await;
    let cookies: Vec<String> = signed
        .headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    let token_cookie = cookies
        .iter()
        .find(|c| c.starts_with("waf_admin="))
        .unwrap();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(token_cookie.contains(attribute), "{token_cookie}");
    }
    assert!(
        !token_cookie.contains("Secure"),
        "not over HTTPS: {token_cookie}"
    );
    let csrf_cookie = cookies
        .iter()
        .find(|c| c.starts_with("waf_admin_csrf="))
        .unwrap();
    assert!(!csrf_cookie.contains("HttpOnly") && csrf_cookie.contains("SameSite=Strict"));
    assert_eq!(signed.body["csrf"], fresh.cookie("waf_admin_csrf").unwrap());

    // No cookie: nothing but the status.
    let anonymous = Client::new(addr)
        .call(Method::GET, "/api/config", None)
        .await;
    assert_eq!(anonymous.status, 401);
    assert_eq!(
        client.call(Method::GET, "/api/config", None).await.status,
        200
    );

    // CSRF: a change without the header, with a wrong one, or from another origin is refused and not applied.
    let observe = || Some(json!({"mode": "observe"}));
    client.csrf_override = Some(String::new());
    assert_eq!(
        client
            .call(Method::PUT, "/api/config/mode", observe())
            .await
            .status,
        403
    );
    client.csrf_override = Some("0".repeat(32));
    assert_eq!(
        client
            .call(Method::PUT, "/api/config/mode", observe())
            .await
            .status,
        403
    );
    client.csrf_override = None;
    client.origin = Some("http://evil.test".into());
    let cross = client
        .call(Method::PUT, "/api/config/mode", observe())
        .await;
    assert_eq!(cross.status, 403);
    assert!(cross.headers.get("access-control-allow-origin").is_none());
    client.origin = None;
    let config = client.call(Method::GET, "/api/config", None).await;
    assert_eq!(config.body["mode"], "enforce");
    assert!(config.headers.get("access-control-allow-origin").is_none());
    // No CORS: a preflight from another origin gets no permission.
    let mut other = Client::new(addr);
    other.origin = Some("http://evil.test".into());
    let preflight = other.call(Method::OPTIONS, "/api/config/mode", None).await;
    assert!(
        preflight
            .headers
            .get("access-control-allow-origin")
            .is_none()
    );
    assert!(preflight.status >= 400);
    // A sign-in posted from another site's page is refused too.
    assert_eq!(other.sign_in("admin", PASSWORD).await.status, 403);

    // Several admins; a password change keeps this session and ends the old password.
    let added = client
        .call(
            Method::POST,
            "/api/admins",
            Some(json!({"username": "second", "password": PASSWORD})),
        )
        .await;
    assert_eq!(added.status, 201);
    let changed = client
        .call(
            Method::PUT,
            "/api/me/password",
            Some(json!({"current": PASSWORD, "new": "another long password"})),
        )
        .await;
    assert_eq!(changed.status, 204, "{}", changed.body);
    assert_eq!(
        fresh.call(Method::GET, "/api/config", None).await.status,
        401
    );
    assert_eq!(
        client.call(Method::GET, "/api/config", None).await.status,
        200
    );
    assert_eq!(
        Client::new(addr).sign_in("second", PASSWORD).await.status,
        200
    );

    // Refresh gives a new token; sign-out revokes the session even for a copy of its cookie.
    let before = client.cookie("waf_admin").unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let refreshed = client
        .call(Method::POST, "/api/session/refresh", None)
        .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.body);
    assert_ne!(client.cookie("waf_admin").unwrap(), before);
    let mut copy = Client::new(addr);
    copy.cookies = client.cookies.clone();
    assert_eq!(
        client
            .call(Method::DELETE, "/api/session", None)
            .await
            .status,
        204
    );
    assert!(client.cookie("waf_admin").is_none());
    assert_eq!(
        copy.call(Method::GET, "/api/config", None).await.status,
        401
    );

    let audit = audit_actions(&waf).await;
    let actions: Vec<&str> = audit.iter().map(|(_, a, _)| a.as_str()).collect();
    for expected in [
        "sign-in failed",
        "sign-in",
        "admin added",
        "password changed",
        "sign-out",
    ] {
        assert!(actions.contains(&expected), "{expected} not in {actions:?}");
    }

    // Throttling: guessing one account's password is cut off, with a Retry-After.
    let mut guesser = Client::new(addr);
    let mut last = None;
    for _ in 0..12 {
        last = Some(guesser.sign_in("second", "guess guess guess").await);
        if last.as_ref().unwrap().status == 429 {
            break;
        }
    }
    let last = last.unwrap();
    assert_eq!(last.status, 429);
    assert!(last.headers.get("retry-after").is_some());
}

#[tokio::test]
async fn with_admin_tls_the_panel_speaks_https_only_with_the_proxys_certificate_and_secure_cookies()
{
    let (waf, addr) = start_with_admin(
        "tls: true",
        "https_enabled: true, https_port: 0, tls: {auto_generate: true}",
        "",
    );
    assert!(
        waf.logs()
            .contains(&format!("admin panel listening on {addr} (HTTPS)"))
    );
    // The proxy's global certificate (auto_generate: signed by its local CA, for localhost), checked as a browser
    // would; the setup, the sign-in and a signed-in call all over TLS.
    let local_ca = std::fs::read_to_string(waf.dir.path().join("certs/ca.pem")).unwrap();
    let mut client = Client::new(addr);
    client.tls = Some(verifying_client(&local_ca, &[b"http/1.1"]));
    let mut client = set_up_with(&waf, client).await;
    let signed = client.sign_in("admin", PASSWORD).await;
    assert_eq!(signed.status, 200, "{}", signed.body);
    let cookies: Vec<&str> = signed
        .headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap())
        .collect();
    assert_eq!(cookies.len(), 2, "{cookies:?}");
    for cookie in &cookies {
        assert!(
            cookie.contains("; Secure") && cookie.contains("SameSite=Strict"),
            "{cookie}"
        );
    }
    let a = client.call(Method::GET, "/api/config", None).await;
    assert_eq!(a.status, 200, "{}", a.body);
    let served_leaf = served(addr, Some("localhost")).await.unwrap();
    let https = waf.https_addr();
    assert_eq!(served_leaf, served(https, Some("localhost")).await.unwrap());

    // Plain HTTP to the panel's port gets no HTTP answer: the bytes are not a TLS hello, the connection is closed.
    let mut plain = TcpStream::connect(addr).await.unwrap();
    plain
        .write_all(b"GET /api/status HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), plain.read_to_end(&mut answer))
        .await
        .unwrap()
        .ok();
    assert!(
        !answer.starts_with(b"HTTP/"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

#[tokio::test]
async fn live_changes_apply_at_once_land_in_the_file_and_invalid_ones_change_nothing() {
    let default_up = Upstream::start().await;
    let shop_up = Upstream::start().await;
    let (waf, addr) = start_with_panel(&format!(
        "  upstream: {{default: '{}'}}\n  body: {{over_limit: reject}}\n",
        default_up.url()
    ));
    let mut client = set_up(&waf, addr).await;
    let file = waf.dir.path().join("waf.yml");

    // A domain added through the API routes its traffic at once (no reload interval waited for).
    let host_get = |host: &'static str| async move {
        let req = Request::get("/page")
            .header("host", host)
            .body(Full::new(Bytes::new()))
            .unwrap();
        send(waf.addr, req).await
    };
    host_get("shop.test").await;
    assert_eq!(shop_up.seen().len(), 0);
    let put = client
        .call(
            Method::PUT,
            "/api/domains/Shop.Test",
            Some(json!({"upstream": shop_up.url()})),
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.body);
    assert_eq!(put.body["domains"]["shop.test"]["upstream"], shop_up.url());
    let (parts, _) = host_get("shop.test").await;
    assert_eq!(parts.status, 200);
    assert_eq!(shop_up.seen().len(), 1);
    let text = std::fs::read_to_string(&file).unwrap();
    let saved: Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(
        saved["waf"]["domains"]["shop.test"]["default_upstream"],
        shop_up.url()
    );
    // An https:// upstream is accepted as well (docs/proxy.md#https-upstreams).
    let put = client
        .call(
            Method::PUT,
            "/api/domains/secure.test",
            Some(json!({"upstream": "https://127.0.0.1:1"})),
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.body);
    assert_eq!(
        put.body["domains"]["secure.test"]["upstream"],
        "https://127.0.0.1:1"
    );
    let deleted = client
        .call(Method::DELETE, "/api/domains/secure.test", None)
        .await;
    assert_eq!(deleted.status, 200, "{}", deleted.body);
    // The domain's own rule exclusions and threshold: its traffic passes a rule the others are blocked by.
    let attack = |host: &'static str| async move {
        let req = Request::get("/?q=attack-me")
            .header("host", host)
            .body(Full::new(Bytes::new()))
            .unwrap();
        send(waf.addr, req).await.0.status
    };
    assert_eq!(attack("shop.test").await, 403);
    let rules = client
        .call(
            Method::PUT,
            "/api/domains/shop.test/rules",
            Some(json!({"anomaly_threshold": 20, "disabled_rules": [100001]})),
        )
        .await;
    assert_eq!(rules.status, 200, "{}", rules.body);
    assert_eq!(
        rules.body["domains"]["shop.test"]["disabled_rules"],
        json!([100001])
    );
    assert_eq!(rules.body["domains"]["shop.test"]["anomaly_threshold"], 20);
    assert_eq!(attack("shop.test").await, 200);
    assert_eq!(attack("other.test").await, 403);
    let saved: Value = serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        saved["waf"]["domains"]["shop.test"]["disabled_rules"],
        json!([100001])
    );
    assert_eq!(
        saved["waf"]["domains"]["shop.test"]["default_upstream"],
        shop_up.url(),
        "the domain's other keys are kept"
    );
    let unknown_rule = client
        .call(
            Method::PUT,
            "/api/domains/shop.test/rules",
            Some(json!({"disabled_rules": [4242]})),
        )
        .await;
    assert_eq!(unknown_rule.status, 400, "{}", unknown_rule.body);
    assert!(
        unknown_rule.body["error"]
            .as_str()
            .unwrap()
            .contains("waf.domains.shop.test.disabled_rules: no loaded rule has id 4242"),
        "{}",
        unknown_rule.body
    );
    let no_domain = client
        .call(
            Method::PUT,
            "/api/domains/nowhere.test/rules",
            Some(json!({})),
        )
        .await;
    assert_eq!(no_domain.status, 404);
    let cleared = client
        .call(Method::PUT, "/api/domains/shop.test/rules", Some(json!({})))
        .await;
    assert_eq!(cleared.status, 200, "{}", cleared.body);
    assert_eq!(attack("shop.test").await, 403);

    // The domain's own rules apply to its requests only, at once, and are kept in the file as data.
    let probe = |host: &'static str| async move {
        let req = Request::get("/?q=shop-only-probe")
            .header("host", host)
            .body(Full::new(Bytes::new()))
            .unwrap();
        send(waf.addr, req).await.0.status
    };
    assert_eq!(probe("shop.test").await, 200);
    let custom = "rules:\n  - id: 500001\n    msg: shop's own rule\n    pattern: shop-only-probe\n    \
                  variables: [ARGS]\n    action: deny\n";
    let set = client
        .call(
            Method::PUT,
            "/api/domains/shop.test/rules",
            Some(json!({"custom_rules": custom})),
        )
        .await;
    assert_eq!(set.status, 200, "{}", set.body);
    assert!(
        set.body["domains"]["shop.test"]["custom_rules"]
            .as_str()
            .unwrap()
            .contains("shop-only-probe"),
        "{}",
        set.body
    );
    assert_eq!(probe("shop.test").await, 403);
    assert_eq!(probe("other.test").await, 200, "another domain's rule");
    let saved: Value = serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        saved["waf"]["domains"]["shop.test"]["custom_rules"][0]["pattern"],
        "shop-only-probe"
    );
    let listed = client
        .call(Method::GET, "/api/rules?search=custom_rules", None)
        .await
        .body;
    assert_eq!(
        listed,
        json!([{"id": 500001, "msg": "shop's own rule", "file": "waf.domains.shop.test.custom_rules",
            "paranoia_level": 1, "runs": true, "hosts": ["shop.test"], "hits": 1}])
    );
    // A custom rule that does not load, or that names other hosts, changes nothing.
    let text_before = std::fs::read_to_string(&file).unwrap();
    for (rules, reason) in [
        (
            "- {id: 500002, msg: m, pattern: '(?<=a)b', variables: [ARGS], action: deny}",
            "rule 500002",
        ),
        (
            "- {id: 500003, msg: m, pattern: x, variables: [ARGS], action: deny, hosts: [other.test]}",
            "leave `hosts` out",
        ),
        (
            "- {id: 100001, msg: m, pattern: x, variables: [ARGS], action: deny}",
            "duplicate id",
        ),
        ("rules: [", "invalid YAML"),
    ] {
        let refused = client
            .call(
                Method::PUT,
                "/api/domains/shop.test/rules",
                Some(json!({"custom_rules": rules})),
            )
            .await;
        assert_eq!(refused.status, 400, "{rules}: {}", refused.body);
        let error = refused.body["error"].as_str().unwrap();
        assert!(error.contains(reason), "{rules}: {error}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), text_before);
        assert_eq!(probe("shop.test").await, 403, "the rule in force stays");
    }
    let removed = client
        .call(Method::PUT, "/api/domains/shop.test/rules", Some(json!({})))
        .await;
    assert_eq!(removed.status, 200, "{}", removed.body);
    assert_eq!(probe("shop.test").await, 200);

    // The rule set: directories loaded at once; one that does not load changes nothing.
    std::fs::create_dir_all(waf.dir.path().join("more-rules")).unwrap();
    std::fs::write(
        waf.dir.path().join("more-rules/extra.yaml"),
        "{id: 100002, msg: second set, pattern: second-set-probe, variables: [ARGS], action: deny}",
    )
    .unwrap();
    let second_set = || async {
        send(
            waf.addr,
            Request::get("/?q=second-set-probe")
                .header("host", "shop.test")
                .body(Full::new(Bytes::new()))
                .unwrap(),
        )
        .await
        .0
        .status
    };
    assert_eq!(second_set().await, 200);
    let loaded = client
        .call(
            Method::PUT,
            "/api/config/rules",
            Some(json!({"directories": ["rules", "more-rules"]})),
        )
        .await;
    assert_eq!(loaded.status, 200, "{}", loaded.body);
    assert_eq!(
        loaded.body["rule_set"]["directories"],
        json!(["rules", "more-rules"])
    );
    assert_eq!(second_set().await, 403);
    for (body, reason) in [
        (
            json!({"directories": ["no-such-dir"]}),
            "rule directory no-such-dir does not exist",
        ),
        (
            json!({"directories": ["rules"], "artifact": "r.wafc"}),
            "either rule directories or an artifact",
        ),
        (json!({"artifact": "missing.wafc"}), "missing.wafc"),
    ] {
        let refused = client
            .call(Method::PUT, "/api/config/rules", Some(body.clone()))
            .await;
        assert_eq!(refused.status, 400, "{body}: {}", refused.body);
        assert!(
            refused.body["error"].as_str().unwrap().contains(reason),
            "{body}: {}",
            refused.body
        );
    }
    assert_eq!(second_set().await, 403, "the rule set in force stays");
    let restored = client
        .call(
            Method::PUT,
            "/api/config/rules",
            Some(json!({"directories": ["rules"]})),
        )
        .await;
    assert_eq!(restored.status, 200, "{}", restored.body);
    assert_eq!(second_set().await, 200);

    // Keys the panel does not manage are kept; the previous file is the backup.
    assert_eq!(saved["waf"]["body"]["over_limit"], "reject");
    assert_eq!(saved["waf"]["server"]["workers"], 2);
    assert!(waf.dir.path().join("waf.yml.bak").exists());

    // Invalid changes: refused with the reason, nothing written, nothing applied.
    let text_before = std::fs::read_to_string(&file).unwrap();
    for (path, body, reason) in [
        (
            "/api/domains/bad.test",
            json!({"upstream": "ftp://x"}),
            "waf.domains.bad.test.default_upstream",
        ),
        (
            "/api/config/paranoia",
            json!({"level": 7}),
            "paranoia_level",
        ),
        ("/api/config/mode", json!({"mode": "off"}), "waf.mode"),
        (
            "/api/ip-filter",
            json!({"allow": [], "deny": ["10.0.0.300"]}),
            "waf.ip_filter.deny",
        ),
        // YAML injection attempts: each is one string value, which validation then refuses.
        (
            "/api/domains/x.test",
            json!({"upstream": "http://127.0.0.1:1\n  mode: disabled"}),
            "default_upstream",
        ),
        (
            "/api/config/mode",
            json!({"mode": "enforce\nrules: {paranoia_level: 4}"}),
            "waf.mode",
        ),
    ] {
        let a = client.call(Method::PUT, path, Some(body)).await;
        assert_eq!(a.status, 400, "{path}: {}", a.body);
        let error = a.body["error"].as_str().unwrap();
        assert!(error.contains(reason), "{path}: {error}");
    }
    let injected = client
        .call(
            Method::PUT,
            "/api/domains/evil.test%0Amode:%20disabled",
            Some(json!({"upstream": shop_up.url()})),
        )
        .await;
    assert_eq!(injected.status, 400, "{}", injected.body);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text_before);
    let config = client.call(Method::GET, "/api/config", None).await.body;
    assert_eq!(config["mode"], "enforce");
    assert_eq!(config["paranoia_level"], 1);
    assert_eq!(config["domains"].as_object().unwrap().len(), 1);

    // Mode switches apply at once; attacks show in the recent list, the live stream and the dashboard.
    let mut events = EventStream::open(addr, &client).await;
    let (parts, _) = get(waf.addr, "/?q=attack-me").await;
    assert_eq!(parts.status, 403);
    let event = events.next_event().await;
    assert_eq!(event["outcome"], "blocked");
    assert_eq!(event["rule_ids"], json!([100001]));
    // A `deny` rule blocks alone: it adds nothing to the anomaly score.
    assert_eq!(event["score"], 0);
    assert_eq!(event["domain"], "app.test");
    // The event carries the id the client got with its 403, and the list finds it by that id.
    let blocked_id = parts.headers["x-request-id"].to_str().unwrap().to_string();
    assert_eq!(event["request_id"], blocked_id.as_str());
    let a = client
        .call(
            Method::PUT,
            "/api/config/mode",
            Some(json!({"mode": "observe"})),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let (parts, _) = get(waf.addr, "/?q=attack-me&again").await;
    assert_eq!(parts.status, 200);
    assert_eq!(events.next_event().await["outcome"], "observed");
    let recent = client.call(Method::GET, "/api/blocked", None).await.body;
    assert_eq!(recent[0]["path"], "/?q=attack-me&again");
    assert_eq!(recent[1]["outcome"], "blocked");
    let found = client
        .call(
            Method::GET,
            &format!("/api/blocked?request_id={blocked_id}"),
            None,
        )
        .await
        .body;
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[0]["path"], "/?q=attack-me");
    assert_eq!(found[0]["request_id"], blocked_id.as_str());
    let dashboard = client.call(Method::GET, "/api/dashboard", None).await.body;
    // Blocked: the three requests of the domain-rules checks above (shop.test before and after its exclusion,
    // other.test), the five of the custom-rule checks (the rule applied, then kept through four refused
    // changes), the two of the rule-set checks and this one; the excluded request matched nothing.
    assert_eq!(dashboard["blocked"], 11);
    assert_eq!(dashboard["observed"], 1);
    assert_eq!(
        dashboard["top_rules"][0],
        json!({"rule_id": 100001, "hits": 5})
    );
    assert!(dashboard["requests"].as_u64().unwrap() >= 4);

    // The rules in force, searchable, with their hits.
    let rules = client
        .call(Method::GET, "/api/rules?search=ATTACK%20marker", None)
        .await
        .body;
    assert_eq!(
        rules,
        json!([{"id": 100001, "msg": "test attack marker", "file": "deny.yaml", "paranoia_level": 1, "runs": true,
            "hosts": [], "hits": 5}])
    );
    let none = client
        .call(Method::GET, "/api/rules?search=nothing-like-this", None)
        .await
        .body;
    assert_eq!(none, json!([]));

    // Domain removal, paranoia, IP lists and the rate limit go the same way.
    for (method, path, body) in [
        (
            Method::PUT,
            "/api/config/paranoia",
            Some(json!({"level": 2})),
        ),
        (
            Method::PUT,
            "/api/ip-filter",
            Some(json!({"allow": [], "deny": ["203.0.113.0/24"]})),
        ),
        (
            Method::PUT,
            "/api/rate-limit",
            Some(json!({"enabled": true, "requests": 1000})),
        ),
        (Method::DELETE, "/api/domains/shop.test", None),
    ] {
        let a = client.call(method, path, body).await;
        assert_eq!(a.status, 200, "{path}: {}", a.body);
    }
    let config = client.call(Method::GET, "/api/config", None).await.body;
    assert_eq!(config["paranoia_level"], 2);
    assert_eq!(config["ip_filter"]["deny"], json!(["203.0.113.0/24"]));
    assert_eq!(config["rate_limit"]["enabled"], true);
    assert_eq!(config["rate_limit"]["requests"], 1000);
    assert!(config["domains"].as_object().unwrap().is_empty());
    // Applied to the proxy, not only saved: its health page says so without waiting for a reload.
    let (_, health) = get(waf.addr, "/health").await;
    let health = json(&health);
    assert_eq!(
        (health["paranoia_level"].as_u64(), health["mode"].as_str()),
        (Some(2), Some("observe"))
    );

    // Every change is audited with who, and the settings before and after.
    let audit = audit_actions(&waf).await;
    let domain_set = audit.iter().find(|(_, a, _)| a == "domain set").unwrap();
    assert_eq!(domain_set.0, "admin");
    let after: Value = serde_json::from_str(domain_set.2.as_deref().unwrap()).unwrap();
    assert_eq!(after["domains"]["shop.test"]["upstream"], shop_up.url());
    let actions: Vec<&str> = audit.iter().map(|(_, a, _)| a.as_str()).collect();
    for expected in [
        "mode changed",
        "paranoia level changed",
        "IP lists changed",
        "rate limit changed",
        "domain removed",
    ] {
        assert!(actions.contains(&expected), "{expected} not in {actions:?}");
    }
    let listed = client
        .call(Method::GET, "/api/audit?limit=2", None)
        .await
        .body;
    assert_eq!(listed[0]["action"], "domain removed");
    assert_eq!(listed.as_array().unwrap().len(), 2);
}

/// A `PUT /api/domains/{host}` body with a certificate.
/// The contract of an edit: a `PATCH` changes only the fields it carries, a change sent with the version it was
/// made from is refused (412) once another change came first, one request changes mode and paranoia together or
/// neither, and every error is JSON naming the key at fault.
#[tokio::test]
async fn edits_change_only_their_fields_refuse_stale_versions_and_apply_whole_or_not_at_all() {
    let up = Upstream::start().await;
    let (waf, addr) = start_with_panel(&format!("  upstream: {{default: '{}'}}\n", up.url()));
    let mut client = set_up(&waf, addr).await;
    let file = waf.dir.path().join("waf.yml");
    let saved =
        || -> Value { serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap() };
    let put = client
        .call(
            Method::PUT,
            "/api/domains/shop.test",
            Some(json!({"upstream": up.url()})),
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.body);
    let own_rule = "- {id: 500001, msg: own, pattern: own-probe, variables: [ARGS], action: deny, paranoia_level: 2}";
    let full = client
        .call(
            Method::PUT,
            "/api/domains/shop.test/rules",
            Some(json!({"anomaly_threshold": 20, "disabled_rules": [100001], "custom_rules": own_rule})),
        )
        .await;
    assert_eq!(full.status, 200, "{}", full.body);
    let listed = client
        .call(Method::GET, "/api/rules?search=own", None)
        .await
        .body;
    assert_eq!(
        (listed[0]["id"].as_u64(), listed[0]["runs"].as_bool()),
        (Some(500001), Some(false)),
        "{listed}"
    );

    // The version: in the body and as the ETag, and it moves with every change.
    let config = client.call(Method::GET, "/api/config", None).await;
    let v1 = config.body["version"].as_str().unwrap().to_string();
    assert_eq!(
        config.headers["etag"].to_str().unwrap(),
        format!("\"{v1}\"")
    );
    assert_eq!(v1, full.body["version"]);

    // A threshold alone: the exclusion and the own rule stay (the form of old sent all three and wiped them).
    client.if_match = Some(v1.clone());
    let patched = client
        .call(
            Method::PATCH,
            "/api/domains/shop.test/rules",
            Some(json!({"anomaly_threshold": 10})),
        )
        .await;
    assert_eq!(patched.status, 200, "{}", patched.body);
    let domain = &saved()["waf"]["domains"]["shop.test"];
    assert_eq!(domain["anomaly_threshold"], 10);
    assert_eq!(domain["disabled_rules"], json!([100001]));
    assert_eq!(domain["custom_rules"][0]["id"], 500001);
    assert_eq!(domain["default_upstream"], up.url());
    let v2 = patched.body["version"].as_str().unwrap().to_string();
    assert_ne!(v1, v2);

    // A second admin still holding v1: refused, nothing written, and told so in JSON naming If-Match.
    let text_before = std::fs::read_to_string(&file).unwrap();
    let stale = client
        .call(
            Method::PATCH,
            "/api/domains/shop.test/rules",
            Some(json!({"disabled_rules": []})),
        )
        .await;
    assert_eq!(stale.status, 412, "{}", stale.body);
    assert_eq!(stale.body["key"], "If-Match");
    assert!(
        stale.body["error"]
            .as_str()
            .unwrap()
            .contains("changed since you read it")
    );
    for (method, path, body) in [
        (Method::PUT, "/api/config/mode", json!({"mode": "observe"})),
        (
            Method::PUT,
            "/api/ip-filter",
            json!({"allow": [], "deny": ["10.9.9.9"]}),
        ),
        (
            Method::PATCH,
            "/api/config/protection",
            json!({"mode": "observe"}),
        ),
        (Method::DELETE, "/api/domains/shop.test", Value::Null),
    ] {
        let body = (!body.is_null()).then_some(body);
        let a = client.call(method.clone(), path, body).await;
        assert_eq!(a.status, 412, "{method} {path}: {}", a.body);
    }
    // So does an edit of the file by hand.
    client.if_match = Some(v2.clone());
    // Replaced whole, as editors do, so the reloader never reads half a file.
    let by_hand = waf.dir.path().join("waf.yml.edit");
    std::fs::write(&by_hand, format!("{text_before}# edited by hand\n")).unwrap();
    std::fs::rename(&by_hand, &file).unwrap();
    let by_hand = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"mode": "observe"})),
        )
        .await;
    assert_eq!(by_hand.status, 412, "{}", by_hand.body);
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .ends_with("# edited by hand\n")
    );
    let v3 = client.call(Method::GET, "/api/config", None).await.body["version"]
        .as_str()
        .unwrap()
        .to_string();
    client.if_match = Some(v3.clone());

    // A check before saving: the rules' YAML loaded as PATCH would, nothing written either way.
    let text_before = std::fs::read_to_string(&file).unwrap();
    let broken = client
        .call(
            Method::POST,
            "/api/domains/shop.test/rules/check",
            Some(json!({"custom_rules": "- {id: 500002, msg: broken"})),
        )
        .await;
    assert_eq!(
        (broken.status, broken.body["key"].as_str()),
        (400, Some("custom_rules"))
    );
    let fine = client
        .call(
            Method::POST,
            "/api/domains/shop.test/rules/check",
            Some(json!({"custom_rules": "- {id: 500002, msg: fine, pattern: x, variables: [ARGS], action: deny}"})),
        )
        .await;
    assert_eq!(
        (fine.status, fine.body["ok"].as_bool()),
        (200, Some(true)),
        "{}",
        fine.body
    );
    let clash = client
        .call(
            Method::POST,
            "/api/domains/shop.test/rules/check",
            Some(json!({"custom_rules": "- {id: 100001, msg: clash, pattern: x, variables: [ARGS], action: deny}"})),
        )
        .await;
    assert_eq!(clash.status, 400, "{}", clash.body);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text_before);

    // `null` clears the threshold alone; an unknown field is refused rather than ignored.
    let cleared = client
        .call(
            Method::PATCH,
            "/api/domains/shop.test/rules",
            Some(json!({"anomaly_threshold": null})),
        )
        .await;
    assert_eq!(cleared.status, 200, "{}", cleared.body);
    assert!(
        saved()["waf"]["domains"]["shop.test"]
            .get("anomaly_threshold")
            .is_none()
    );
    assert_eq!(
        saved()["waf"]["domains"]["shop.test"]["disabled_rules"],
        json!([100001])
    );
    client.if_match = Some(cleared.body["version"].as_str().unwrap().to_string());
    let typo = client
        .call(
            Method::PATCH,
            "/api/domains/shop.test/rules",
            Some(json!({"anomaly_treshold": 3})),
        )
        .await;
    assert_eq!(typo.status, 422, "{}", typo.body);
    assert!(
        typo.body["error"]
            .as_str()
            .unwrap()
            .contains("anomaly_treshold"),
        "{}",
        typo.body
    );

    // Mode and paranoia in one change: a paranoia level refused leaves the mode as it was.
    let text_before = std::fs::read_to_string(&file).unwrap();
    let half = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"mode": "observe", "paranoia_level": 7})),
        )
        .await;
    assert_eq!(half.status, 400, "{}", half.body);
    assert_eq!(half.body["key"], "waf.rules.paranoia_level");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text_before);
    client.if_match = None;
    let config = client.call(Method::GET, "/api/config", None).await.body;
    assert_eq!(
        (config["mode"].as_str(), config["paranoia_level"].as_u64()),
        (Some("enforce"), Some(1))
    );
    let whole = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"mode": "observe", "paranoia_level": 2, "anomaly_threshold": 7})),
        )
        .await;
    assert_eq!(whole.status, 200, "{}", whole.body);
    assert_eq!(
        (
            whole.body["mode"].as_str(),
            whole.body["paranoia_level"].as_u64(),
            whole.body["anomaly_threshold"].as_u64()
        ),
        (Some("observe"), Some(2), Some(7))
    );
    assert_eq!(saved()["waf"]["rules"]["paranoia_level"], 2);
    // The rule list says which rules run at the level now in force: the domain's level-2 rule now does.
    let listed = client
        .call(Method::GET, "/api/rules?search=own", None)
        .await
        .body;
    assert_eq!(
        (listed[0]["id"].as_u64(), listed[0]["runs"].as_bool()),
        (Some(500001), Some(true)),
        "{listed}"
    );

    // A rule disabled for every domain: gone from the rules in force, its attack passes; enabled again.
    let attack = || request_for(waf.addr, "other.test", "/?q=attack-me", &[]);
    let enforce = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"mode": "enforce"})),
        )
        .await;
    assert_eq!(enforce.status, 200, "{}", enforce.body);
    assert_eq!(attack().await, 403);
    // Not while a domain excludes it too (that exclusion would name a rule no longer loaded): refused, with the
    // key of the domain's list.
    let conflict = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"disabled_rules": [100001]})),
        )
        .await;
    assert_eq!(
        (conflict.status, conflict.body["key"].as_str()),
        (400, Some("waf.domains.shop.test.disabled_rules"))
    );
    let cleared = client
        .call(
            Method::PATCH,
            "/api/domains/shop.test/rules",
            Some(json!({"disabled_rules": []})),
        )
        .await;
    assert_eq!(cleared.status, 200, "{}", cleared.body);
    let disabled = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"disabled_rules": [100001]})),
        )
        .await;
    assert_eq!(disabled.status, 200, "{}", disabled.body);
    assert_eq!(disabled.body["disabled_rules"], json!([100001]));
    assert_eq!(attack().await, 200);
    let listed = client
        .call(Method::GET, "/api/rules?search=100001", None)
        .await
        .body;
    assert_eq!(listed, json!([]));
    let unknown = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"disabled_rules": [4242]})),
        )
        .await;
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    let enabled = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"disabled_rules": []})),
        )
        .await;
    assert_eq!(enabled.status, 200, "{}", enabled.body);
    assert_eq!(attack().await, 403);

    // Every error is JSON with the key it concerns: a body of the wrong type, a bad host, a route or method
    // that does not exist.
    let wrong_type = client
        .call(
            Method::PUT,
            "/api/config/paranoia",
            Some(json!({"level": "high"})),
        )
        .await;
    assert_eq!(wrong_type.status, 422, "{}", wrong_type.body);
    assert_eq!(wrong_type.body["key"], "level");
    let bad_tls = client
        .call(
            Method::PUT,
            "/api/domains/shop.test",
            Some(json!({"upstream": up.url(), "tls": {"certificate": "files", "cert_file": "rel.pem", "key_file": "/k"}})),
        )
        .await;
    assert_eq!(
        (bad_tls.status, bad_tls.body["key"].as_str()),
        (400, Some("tls.cert_file"))
    );
    let bad_host = client
        .call(
            Method::PUT,
            "/api/domains/a_b",
            Some(json!({"upstream": up.url()})),
        )
        .await;
    assert_eq!(
        (bad_host.status, bad_host.body["key"].as_str()),
        (400, Some("host"))
    );
    let unknown_rule = client
        .call(
            Method::PATCH,
            "/api/domains/shop.test/rules",
            Some(json!({"disabled_rules": [4242]})),
        )
        .await;
    assert_eq!(unknown_rule.status, 400, "{}", unknown_rule.body);
    assert_eq!(
        unknown_rule.body["key"],
        "waf.domains.shop.test.disabled_rules"
    );
    let no_route = client.call(Method::GET, "/api/no-such-thing", None).await;
    assert_eq!(no_route.status, 404);
    assert!(no_route.body["error"].is_string(), "{}", no_route.body);
    let no_method = client.call(Method::DELETE, "/api/config", None).await;
    assert_eq!(no_method.status, 405);
    assert!(no_method.body["error"].is_string(), "{}", no_method.body);
    let not_json = client
        .call(Method::GET, "/api/audit?limit=many", None)
        .await;
    assert_eq!(not_json.status, 400);
    assert!(
        not_json.body["error"].as_str().unwrap().contains("limit"),
        "{}",
        not_json.body
    );
}

/// A request to the proxy for `host` with the headers given; its status.
async fn request_for(proxy: SocketAddr, host: &str, path: &str, headers: &[(&str, &str)]) -> u16 {
    let mut req = Request::get(path).header("host", host);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    send(proxy, req.body(Full::new(Bytes::new())).unwrap())
        .await
        .0
        .status
        .as_u16()
}

/// The events page of `query`, polled until it holds `count` events.
async fn events_until(client: &mut Client, query: &str, count: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let page = client
            .call(Method::GET, &format!("/api/events{query}"), None)
            .await;
        assert_eq!(page.status, 200, "{}", page.body);
        if page.body["events"].as_array().unwrap().len() >= count {
            return page.body;
        }
        assert!(Instant::now() < deadline, "{query}: {}", page.body);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Blocks (their messages' macros expanded), rate-limit and IP refusals are stored with their details and secrets
/// masked, found by each filter, paged, exported, counted for the charts, and still there after a restart.
#[tokio::test]
async fn events_are_stored_with_their_reasons_filtered_paged_exported_and_kept() {
    const SCORED: &str = r#"
rules:
  - {id: 300011, msg: "marker %{MATCHED_VAR} in %{MATCHED_VAR_NAME}", severity: CRITICAL, operator: contains, pattern: "m-mark", variables: [ARGS_GET], action: block}
  - id: 949110
    msg: 'Inbound Anomaly Score Exceeded (Total Score: %{TX.BLOCKING_INBOUND_ANOMALY_SCORE})'
    operator: anomaly_threshold
    pattern: null
    variables: []
    action: deny
"#;
    let up = Upstream::start().await;
    let waf = Waf::start_with_server(
        "",
        &format!(
            "  admin: {{enabled: true, port: 0, data_dir: admin-data}}\n  upstream: {{default: '{}'}}\n  domains:\n    \
             denied.test: {{ip_filter: {{deny: ['127.0.0.1']}}}}\n    \
             limited.test: {{rate_limit: {{enabled: true, requests: 1, window_sec: 60, burst: 1}}}}\n",
            up.url()
        ),
        &[("deny.yaml", DENY_RULE), ("scored.yaml", SCORED)],
    );
    let (waf, addr) = panel_of(waf);
    let mut client = set_up(&waf, addr).await;
    let secrets = [
        ("cookie", "sid=s3cret-cookie"),
        ("authorization", "Bearer s3cret-token"),
    ];
    assert_eq!(
        request_for(waf.addr, "app.test", "/?q=attack-me", &secrets).await,
        403
    );
    assert_eq!(
        request_for(waf.addr, "app.test", "/?a=x-m-mark", &[]).await,
        403
    );
    assert_eq!(request_for(waf.addr, "denied.test", "/", &[]).await, 403);
    assert_eq!(request_for(waf.addr, "limited.test", "/", &[]).await, 200);
    let mut limited = 200;
    for _ in 0..5 {
        limited = request_for(waf.addr, "limited.test", "/", &[]).await;
        if limited == 429 {
            break;
        }
    }
    assert_eq!(limited, 429);

    // Newest first, each with an id and its date and time.
    let all = events_until(&mut client, "", 4).await;
    let events = all["events"].as_array().unwrap();
    assert_eq!(events.len(), 4, "{all}");
    let outcomes: Vec<&str> = events
        .iter()
        .map(|e| e["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(
        outcomes,
        ["rate_limited", "ip_denied", "blocked", "blocked"]
    );
    assert!(
        events
            .windows(2)
            .all(|w| w[0]["id"].as_i64() > w[1]["id"].as_i64())
    );
    assert!(
        events[0]["at"].as_str().unwrap().contains('T'),
        "{}",
        events[0]
    );
    assert_eq!(events[0]["status"], 429);
    assert_eq!(events[1]["domain"], "denied.test");

    // Each filter.
    let count = |body: Value| body["events"].as_array().unwrap().len();
    for (query, expected) in [
        ("?outcome=blocked", 2),
        ("?outcome=ip_denied", 1),
        ("?domain=Denied.Test", 1),
        ("?rule=100001", 1),
        ("?rule=949110", 1),
        ("?client=127.0.0.1", 4),
        ("?client=10.0.0.1", 0),
        ("?q=attack-me", 1),
        ("?q=Total%20Score", 1),
        ("?since=2999-01-01T00:00:00Z", 0),
        ("?until=2000-01-01T00:00:00%2B02:00", 0),
        ("?since=2000-01-01T00:00:00Z&outcome=rate_limited", 1),
    ] {
        let page = client
            .call(Method::GET, &format!("/api/events{query}"), None)
            .await;
        assert_eq!(page.status, 200, "{query}: {}", page.body);
        assert_eq!(count(page.body.clone()), expected, "{query}: {}", page.body);
    }
    for (query, key) in [
        ("?outcome=nope", "outcome"),
        ("?since=yesterday", "since"),
        ("?rule=x", "rule"),
        ("?cursor=x", "cursor"),
    ] {
        let refused = client
            .call(Method::GET, &format!("/api/events{query}"), None)
            .await;
        assert_eq!(
            (refused.status, refused.body["key"].as_str()),
            (400, Some(key)),
            "{query}"
        );
    }

    // Paging with the cursor.
    let first = client
        .call(Method::GET, "/api/events?limit=3", None)
        .await
        .body;
    assert_eq!(count(first.clone()), 3);
    let cursor = first["next_cursor"].as_str().unwrap().to_string();
    let second = client
        .call(
            Method::GET,
            &format!("/api/events?limit=3&cursor={cursor}"),
            None,
        )
        .await
        .body;
    assert_eq!(count(second.clone()), 1);
    assert_eq!(second["events"][0]["id"], events[3]["id"]);
    assert!(second["next_cursor"].is_null());

    // The detail: each match with its message (macros expanded), variable, data and score; secrets masked.
    let scored_id = events[2]["id"].as_i64().unwrap();
    let detail = client
        .call(Method::GET, &format!("/api/events/{scored_id}"), None)
        .await
        .body;
    let matches = detail["matches"].as_array().unwrap();
    assert_eq!(matches[0]["rule_id"], 300011);
    assert_eq!(matches[0]["message"], "marker x-m-mark in ARGS_GET:a");
    assert_eq!(matches[0]["variable"], "ARGS_GET:a");
    assert!(
        matches[0]["data"].as_str().unwrap().contains("m-mark"),
        "{detail}"
    );
    assert_eq!(matches[0]["score"], 5);
    assert_eq!(matches[1]["rule_id"], 949110);
    assert_eq!(
        matches[1]["message"],
        "Inbound Anomaly Score Exceeded (Total Score: 5)"
    );
    let attack_id = events[3]["id"].as_i64().unwrap();
    let detail = client
        .call(Method::GET, &format!("/api/events/{attack_id}"), None)
        .await
        .body;
    assert_eq!(detail["matches"][0]["message"], "test attack marker");
    let head = detail["head"].as_array().unwrap();
    assert!(head.contains(&json!(["cookie", "***"])), "{detail}");
    assert!(head.contains(&json!(["authorization", "***"])), "{detail}");
    assert!(!detail.to_string().contains("s3cret"), "{detail}");
    assert_eq!(
        client
            .call(Method::GET, "/api/events/999999", None)
            .await
            .status,
        404
    );

    // Export: CSV with a header line, JSON lines with the details; the same filters.
    let csv = client
        .call(Method::GET, "/api/events/export?format=csv", None)
        .await;
    assert_eq!(csv.status, 200);
    assert!(
        csv.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let csv = csv.body.as_str().unwrap().to_string();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    assert!(
        csv.starts_with("id,at,domain,client,method,path,status,score,outcome"),
        "{csv}"
    );
    assert!(csv.contains(",ip_denied,"), "{csv}");
    let jsonl = client
        .call(
            Method::GET,
            "/api/events/export?format=jsonl&outcome=blocked",
            None,
        )
        .await;
    let lines: Vec<Value> = match &jsonl.body {
        Value::String(text) => text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
        one => vec![one.clone()],
    };
    assert_eq!(lines.len(), 2, "{}", jsonl.body);
    assert!(
        lines
            .iter()
            .all(|l| l["matches"].as_array().is_some_and(|m| !m.is_empty()))
    );
    let bad = client
        .call(Method::GET, "/api/events/export?format=xml", None)
        .await;
    assert_eq!(
        (bad.status, bad.body["key"].as_str()),
        (400, Some("format"))
    );

    // The charts' figures: per minute over the last hour.
    let stats = client
        .call(Method::GET, "/api/stats?range=1h", None)
        .await
        .body;
    let series = stats["series"].as_array().unwrap();
    assert_eq!(series.len(), 60);
    let sum = |key: &str| series.iter().map(|p| p[key].as_i64().unwrap()).sum::<i64>();
    assert_eq!(
        (sum("blocked"), sum("rate_limited"), sum("denied")),
        (2, 1, 1),
        "{stats}"
    );
    assert!(sum("requests") >= 5, "{stats}");
    assert!(
        stats["top_rules"]
            .as_array()
            .unwrap()
            .contains(&json!({"key": "100001", "count": 1})),
        "{stats}"
    );
    assert_eq!(
        stats["top_clients"][0],
        json!({"key": "127.0.0.1", "count": 4})
    );
    assert!(
        stats["statuses"]
            .as_array()
            .unwrap()
            .contains(&json!({"key": "429", "count": 1})),
        "{stats}"
    );
    // Hits per rule over a period, beside those since start.
    let rules = client
        .call(Method::GET, "/api/rules?search=300011&range=1h", None)
        .await
        .body;
    assert_eq!(
        (rules[0]["hits"].as_u64(), rules[0]["period_hits"].as_u64()),
        (Some(1), Some(1)),
        "{rules}"
    );
    let bad = client.call(Method::GET, "/api/rules?range=1y", None).await;
    assert_eq!((bad.status, bad.body["key"].as_str()), (400, Some("range")));
    let day = client
        .call(Method::GET, "/api/stats?range=24h", None)
        .await
        .body;
    assert_eq!(day["series"].as_array().unwrap().len(), 24);
    let bad = client.call(Method::GET, "/api/stats?range=2h", None).await;
    assert_eq!((bad.status, bad.body["key"].as_str()), (400, Some("range")));

    // In the data directory, so a restart keeps them.
    assert!(waf.dir.path().join("admin-data/events.sqlite").is_file());
    let (waf, addr) = panel_of(Waf::restart_in(waf.stop()));
    let mut client = Client::new(addr);
    assert_eq!(client.sign_in("admin", PASSWORD).await.status, 200);
    let kept = events_until(&mut client, "", 4).await;
    assert_eq!(kept["events"][0]["id"], events[0]["id"]);
    drop(waf);
}

/// The RFC 6238 code of `secret` (base32) for time step `step`: written out here, apart from the panel's own.
fn totp_code(secret: &str, step: u64) -> String {
    use totp_hmac::{KeyInit, Mac};
    let key = data_encoding::BASE32_NOPAD
        .decode(secret.as_bytes())
        .unwrap();
    let mut mac = totp_hmac::Hmac::<sha1::Sha1>::new_from_slice(&key).unwrap();
    mac.update(&step.to_be_bytes());
    let h = mac.finalize().into_bytes();
    let o = usize::from(h[19] & 0xf);
    let n = u32::from_be_bytes([h[o] & 0x7f, h[o + 1], h[o + 2], h[o + 3]]) % 1_000_000;
    format!("{n:06}")
}

fn now_step() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / 30
}

/// Accounts: a viewer reads but changes nothing, sessions are listed and revoked, an admin is removed (never the
/// last one), and the TOTP second factor is set up, asked at sign-in (recovery codes once each, codes never
/// twice) and required of every account.
#[tokio::test]
async fn accounts_have_roles_revocable_sessions_and_a_second_factor() {
    let (waf, addr) = start_with_panel("");
    let mut admin = set_up(&waf, addr).await;
    let add = |username: &'static str, role: &'static str| json!({"username": username, "password": PASSWORD, "role": role});
    assert_eq!(
        admin
            .call(Method::POST, "/api/admins", Some(add("watcher", "viewer")))
            .await
            .status,
        201
    );
    let bad_role = admin
        .call(Method::POST, "/api/admins", Some(add("x", "root")))
        .await;
    assert_eq!(
        (bad_role.status, bad_role.body["key"].as_str()),
        (400, Some("role"))
    );
    let list = admin.call(Method::GET, "/api/admins", None).await.body;
    assert_eq!(list[1]["username"], "watcher");
    assert_eq!(list[1]["role"], "viewer");
    assert_eq!(list[0]["totp"], false);

    // A viewer reads everything, changes nothing but their own password.
    let mut viewer = Client::new(addr);
    let signed = viewer.sign_in("watcher", PASSWORD).await;
    assert_eq!(
        (signed.status, signed.body["role"].as_str()),
        (200, Some("viewer"))
    );
    assert_eq!(
        viewer.call(Method::GET, "/api/config", None).await.status,
        200
    );
    let refused = viewer
        .call(
            Method::PUT,
            "/api/config/mode",
            Some(json!({"mode": "observe"})),
        )
        .await;
    assert_eq!(
        (refused.status, refused.body["key"].as_str()),
        (403, Some("role"))
    );
    let refused = viewer
        .call(Method::POST, "/api/admins", Some(add("sneaky", "admin")))
        .await;
    assert_eq!(refused.status, 403);
    let own = viewer
        .call(
            Method::PUT,
            "/api/me/password",
            Some(json!({"current": PASSWORD, "new": "another long password"})),
        )
        .await;
    assert_eq!(own.status, 204, "{}", own.body);

    // A role changed applies to the account's next request; the last admin keeps the role.
    let role = |role: &str| json!({ "role": role });
    let promoted = admin
        .call(Method::PATCH, "/api/admins/watcher", Some(role("admin")))
        .await;
    assert_eq!(promoted.status, 200, "{}", promoted.body);
    let mode = json!({"mode": "observe"});
    let changed = viewer
        .call(Method::PUT, "/api/config/mode", Some(mode.clone()))
        .await;
    assert_eq!(changed.status, 200, "{}", changed.body);
    let demoted = admin
        .call(Method::PATCH, "/api/admins/watcher", Some(role("viewer")))
        .await;
    assert_eq!(demoted.status, 200, "{}", demoted.body);
    let refused = viewer
        .call(Method::PUT, "/api/config/mode", Some(mode))
        .await;
    assert_eq!(refused.status, 403);
    for (body, status) in [(role("viewer"), 409), (role("root"), 400)] {
        let refused = admin
            .call(Method::PATCH, "/api/admins/admin", Some(body))
            .await;
        assert_eq!(
            (refused.status, refused.body["key"].as_str()),
            (status, Some("role"))
        );
    }
    let audit = admin.call(Method::GET, "/api/audit?limit=20", None).await;
    assert!(audit.body.to_string().contains("admin role changed"));

    // Sessions: listed, and one revoked ends it at once.
    let sessions = admin.call(Method::GET, "/api/sessions", None).await.body;
    let watcher_session = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["username"] == "watcher")
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let own_only = viewer.call(Method::GET, "/api/sessions", None).await.body;
    assert!(
        own_only
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["username"] == "watcher")
    );
    let revoked = admin
        .call(
            Method::DELETE,
            &format!("/api/sessions/{watcher_session}"),
            None,
        )
        .await;
    assert_eq!(revoked.status, 204, "{}", revoked.body);
    assert_eq!(
        viewer.call(Method::GET, "/api/config", None).await.status,
        401
    );

    // Removal: not yourself, not the last admin; the viewer goes.
    let myself = admin.call(Method::DELETE, "/api/admins/admin", None).await;
    assert_eq!(
        (myself.status, myself.body["key"].as_str()),
        (409, Some("username"))
    );
    assert_eq!(
        admin
            .call(Method::DELETE, "/api/admins/watcher", None)
            .await
            .status,
        204
    );
    assert_eq!(
        admin
            .call(Method::DELETE, "/api/admins/watcher", None)
            .await
            .status,
        404
    );
    assert_eq!(
        admin
            .call(Method::GET, "/api/admins", None)
            .await
            .body
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // A second factor: enrolment, then a code confirms it and answers the recovery codes.
    let required_too_soon = admin
        .call(
            Method::PUT,
            "/api/config/admin-totp",
            Some(json!({"required": true})),
        )
        .await;
    assert_eq!(
        (
            required_too_soon.status,
            required_too_soon.body["key"].as_str()
        ),
        (400, Some("required"))
    );
    let enrolment = admin.call(Method::POST, "/api/me/totp", None).await.body;
    let secret = enrolment["secret"].as_str().unwrap().to_string();
    assert!(
        enrolment["otpauth_uri"]
            .as_str()
            .unwrap()
            .starts_with("otpauth://totp/waf:admin?secret=")
    );
    let right = totp_code(&secret, now_step());
    let wrong = if right == "000000" {
        "111111"
    } else {
        "000000"
    };
    let refused = admin
        .call(Method::PUT, "/api/me/totp", Some(json!({"code": wrong})))
        .await;
    assert_eq!(
        (refused.status, refused.body["key"].as_str()),
        (400, Some("code"))
    );
    let confirmed = admin
        .call(Method::PUT, "/api/me/totp", Some(json!({"code": right})))
        .await;
    assert_eq!(confirmed.status, 200, "{}", confirmed.body);
    let recovery: Vec<String> = confirmed.body["recovery_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    assert_eq!(recovery.len(), 10);

    // Required of every account: one without a second factor can only set one up.
    assert_eq!(
        admin
            .call(Method::POST, "/api/admins", Some(add("second", "admin")))
            .await
            .status,
        201
    );
    let required = admin
        .call(
            Method::PUT,
            "/api/config/admin-totp",
            Some(json!({"required": true})),
        )
        .await;
    assert_eq!(required.status, 200, "{}", required.body);
    let mut second = Client::new(addr);
    assert_eq!(second.sign_in("second", PASSWORD).await.status, 200);
    let gated = second.call(Method::GET, "/api/config", None).await;
    assert_eq!(
        (gated.status, gated.body["key"].as_str()),
        (403, Some("totp"))
    );
    assert_eq!(
        second.call(Method::POST, "/api/me/totp", None).await.status,
        200
    );
    assert_eq!(
        second.call(Method::GET, "/api/status", None).await.body["totp_required"],
        true
    );

    // Sign-in asks for the code; a code is never taken twice (the enrolment's own, replayed, is refused); a
    // recovery code works once. Five attempts: the throttle's allowance per account name in a minute.
    let mut again = Client::new(addr);
    let no_code = again.sign_in("admin", PASSWORD).await;
    assert_eq!(
        (no_code.status, no_code.body["key"].as_str()),
        (401, Some("code"))
    );
    let sign_in = |code: String| json!({"username": "admin", "password": PASSWORD, "code": code});
    let replayed = again
        .call(Method::POST, "/api/session", Some(sign_in(right.clone())))
        .await;
    assert_eq!(
        (replayed.status, replayed.body["key"].as_str()),
        (401, Some("code"))
    );
    let with_recovery = again
        .call(
            Method::POST,
            "/api/session",
            Some(sign_in(recovery[0].to_uppercase())),
        )
        .await;
    assert_eq!(with_recovery.status, 200, "{}", with_recovery.body);
    assert_eq!(
        again.call(Method::GET, "/api/config", None).await.status,
        200
    );
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM recovery_codes r JOIN admins a ON a.id = r.admin_id WHERE a.username = 'admin'")
        .fetch_one(&database(&waf).await)
        .await
        .unwrap();
    assert_eq!(left, 9, "the code used is spent");
    // The next step's code (within the allowed drift) signs in.
    let next = totp_code(&secret, now_step() + 1);
    let with_code = Client::new(addr)
        .call(Method::POST, "/api/session", Some(sign_in(next)))
        .await;
    assert_eq!(with_code.status, 200, "{}", with_code.body);
    let actions: Vec<String> = audit_actions(&waf)
        .await
        .into_iter()
        .map(|(_, a, _)| a)
        .collect();
    for action in [
        "admin removed",
        "session revoked",
        "second factor set up",
        "second factor requirement changed",
    ] {
        assert!(actions.iter().any(|a| a == action), "{action}: {actions:?}");
    }
}

fn domain_with(upstream: &str, tls: Value) -> Option<Value> {
    Some(json!({"upstream": upstream, "tls": tls}))
}

#[tokio::test]
async fn a_domains_certificate_is_served_at_once_and_listener_changes_await_a_restart() {
    let up = Upstream::start().await;
    let certs = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let (gc, gk, global) = ca.leaf(certs.path(), "global", &["default.test"]);
    let (fc, fk, files_leaf) = ca.leaf(certs.path(), "files", &["files.test"]);
    let (_, other_key, _) = ca.leaf(certs.path(), "other", &["other.test"]);
    let server = format!(
        "https_enabled: true, https_port: 0, tls: {{cert_file: '{}', key_file: '{}'}}",
        path_text(&gc),
        path_text(&gk)
    );
    // The ACME server: a closed port, so that no order leaves the machine.
    let (waf, addr) = start_with_panel_and_server(
        &server,
        &format!(
            "  upstream: {{default: '{}'}}\n  acme: {{directory_url: 'https://127.0.0.1:{}/dir'}}\n",
            up.url(),
            closed_port()
        ),
    );
    let tls = waf.https_addr();
    let mut client = set_up(&waf, addr).await;
    let file = waf.dir.path().join("waf.yml");
    assert_eq!(served(tls, Some("files.test")).await.unwrap(), global);

    // Certificate files: served by SNI on the next handshake, no reload waited for.
    let files =
        json!({"certificate": "files", "cert_file": path_text(&fc), "key_file": path_text(&fk)});
    let a = client
        .call(
            Method::PUT,
            "/api/domains/files.test",
            domain_with(&up.url(), files.clone()),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["domains"]["files.test"]["tls"], files);
    assert_eq!(a.body["restart_required"], false);
    assert_eq!(served(tls, Some("files.test")).await.unwrap(), files_leaf);
    let (head, _) = https_get(tls, "files.test", &ca.pem, "/over-tls").await;
    assert_eq!(head.status, 200);
    assert_eq!(up.last().uri, "/over-tls");

    // Invalid certificates: refused naming the field, nothing written, nothing served.
    let text_before = std::fs::read_to_string(&file).unwrap();
    for (tls_body, reason) in [
        (
            json!({"certificate": "files", "cert_file": path_text(&fc), "key_file": path_text(&other_key)}),
            format!(
                "waf.domains.bad.test: {} with key {}",
                path_text(&fc),
                path_text(&other_key)
            ),
        ),
        (
            json!({"certificate": "files", "cert_file": "/nonexistent/bad.pem", "key_file": path_text(&fk)}),
            "waf.domains.bad.test: cannot read /nonexistent/bad.pem".to_string(),
        ),
        (
            json!({"certificate": "files", "cert_file": "/dev/zero", "key_file": path_text(&fk)}),
            "/dev/zero: not a regular file".to_string(),
        ),
        (
            json!({"certificate": "files", "cert_file": "files.pem", "key_file": path_text(&fk)}),
            "tls.cert_file: \"files.pem\" is not an absolute path".to_string(),
        ),
        (
            json!({"certificate": "acme"}),
            "tls.email: ACME needs".to_string(),
        ),
        (
            json!({"certificate": "acme", "email": "ops at example.com"}),
            "waf.domains.bad.test.acme_email".to_string(),
        ),
    ] {
        let a = client
            .call(
                Method::PUT,
                "/api/domains/bad.test",
                domain_with(&up.url(), tls_body.clone()),
            )
            .await;
        assert_eq!(a.status, 400, "{tls_body}: {}", a.body);
        let error = a.body["error"].as_str().unwrap();
        assert!(error.contains(&reason), "{tls_body}: {error}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text_before);
    let config = client.call(Method::GET, "/api/config", None).await.body;
    assert!(config["domains"].get("bad.test").is_none());
    assert_eq!(served(tls, Some("bad.test")).await.unwrap(), global);

    // Self-signed: made at once, signed by the proxy's local CA, for this name alone; force_https redirects to it.
    let a = client
        .call(
            Method::PUT,
            "/api/domains/self.test",
            Some(json!({"upstream": up.url(), "tls": {"certificate": "self_signed"}, "force_https": true})),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(
        a.body["domains"]["self.test"]["tls"],
        json!({"certificate": "self_signed"})
    );
    assert!(!a.body.to_string().contains("PRIVATE KEY"));
    let local_ca = std::fs::read_to_string(waf.dir.path().join("certs/ca.pem")).unwrap();
    let (head, _) = https_get(tls, "self.test", &local_ca, "/self").await;
    assert_eq!(head.status, 200);
    assert_ne!(served(tls, Some("self.test")).await.unwrap(), global);
    let key = waf.dir.path().join("certs/domains/self.test.key");
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let redirect = Request::get("/p?x=1")
        .header("host", "self.test")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let (head, _) = send(waf.addr, redirect).await;
    assert_eq!(head.status, 301);
    assert_eq!(
        head.headers["location"],
        format!("https://self.test:{}/p?x=1", tls.port())
    );
    let saved: Value = serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let domains = &saved["waf"]["domains"];
    assert_eq!(domains["self.test"]["self_signed"], true);
    assert_eq!(domains["self.test"]["force_https"], true);
    assert_eq!(domains["files.test"]["key_file"], path_text(&fk));
    let audit = audit_actions(&waf).await;
    let last = audit
        .iter()
        .rev()
        .find(|(_, a, _)| a == "domain set")
        .unwrap();
    let after: Value = serde_json::from_str(last.2.as_deref().unwrap()).unwrap();
    assert_eq!(after["domains"]["self.test"]["force_https"], true);

    // Switching a domain to no certificate of its own: the global one again, at once.
    let a = client
        .call(
            Method::PUT,
            "/api/domains/files.test",
            domain_with(&up.url(), json!({"certificate": "none"})),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(served(tls, Some("files.test")).await.unwrap(), global);

    // Listener settings: saved, answered as awaiting a restart, and not applied to the running listeners.
    let https_port = closed_port();
    let a = client
        .call(
            Method::PUT,
            "/api/tls",
            Some(json!({"https_enabled": true, "http_port": 0, "https_port": https_port, "auto_generate": false})),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["restart_required"], true);
    let reasons = a.body["restart_reasons"].to_string();
    assert!(
        reasons.contains(&format!(
            "waf.server.https_port is {https_port} in waf.yml but 0 in the running proxy"
        )),
        "{reasons}"
    );
    assert_eq!(a.body["tls"]["https_port"], https_port);
    let saved: Value = serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["waf"]["server"]["https_port"], https_port);
    // HTTPS still answers on the port it was opened on.
    assert!(served(tls, Some("self.test")).await.is_ok());
    let config = client.call(Method::GET, "/api/config", None).await.body;
    assert_eq!(config["restart_required"], true);
    // The global certificate files and auto_generate exclude each other: refused, nothing applied.
    let both = client
        .call(
            Method::PUT,
            "/api/tls",
            Some(json!({"https_enabled": true, "http_port": 0, "https_port": 0, "auto_generate": true})),
        )
        .await;
    assert_eq!(both.status, 400, "{}", both.body);
    assert!(
        both.body["error"]
            .as_str()
            .unwrap()
            .contains("waf.server.tls")
    );

    // ACME: saved and started at once, no restart awaited for it (the order itself is tests/acme.rs's: here the
    // ACME server is a closed port).
    let a = client
        .call(
            Method::PUT,
            "/api/domains/acme.test",
            domain_with(
                &up.url(),
                json!({"certificate": "acme", "email": "ops@example.com"}),
            ),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert!(
        !a.body["restart_reasons"].to_string().contains("ACME"),
        "{}",
        a.body
    );
    waf.wait_log("ACME: acme.test started", 10).await;
    let actions: Vec<String> = audit_actions(&waf)
        .await
        .into_iter()
        .map(|(_, a, _)| a)
        .collect();
    assert!(
        actions.contains(&"TLS settings changed".to_string()),
        "{actions:?}"
    );
    // Taken away through the panel: stopped at once.
    let a = client
        .call(
            Method::PUT,
            "/api/domains/acme.test",
            domain_with(&up.url(), json!({"certificate": "none"})),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    waf.wait_log("ACME: acme.test stopped", 10).await;

    // An ACME domain added in the file is started by the reload.
    let mut saved: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    saved["waf"]["domains"]["self.test"] = json!({"acme_enabled": true});
    std::fs::write(&file, serde_saphyr::to_string(&saved).unwrap()).unwrap();
    waf.signal("HUP");
    waf.wait_log("ACME: self.test started", 10).await;
    assert!(!waf.logs().contains("ACME domains"), "{}", waf.logs());
}

#[tokio::test]
async fn with_https_off_a_domains_certificate_is_saved_and_served_after_the_restart() {
    let up = Upstream::start().await;
    let (waf, addr) = start_with_panel(&format!("  upstream: {{default: '{}'}}\n", up.url()));
    let mut client = set_up(&waf, addr).await;
    let a = client
        .call(
            Method::PUT,
            "/api/domains/late.test",
            domain_with(&up.url(), json!({"certificate": "self_signed"})),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["restart_required"], false);
    assert!(
        a.body["notices"][0]
            .as_str()
            .unwrap()
            .starts_with("HTTPS is off (waf.server.https_enabled: false)"),
        "{}",
        a.body
    );
    // Redirecting to a listener that is off is refused.
    let a = client
        .call(
            Method::PUT,
            "/api/domains/late.test",
            Some(json!({"upstream": up.url(), "force_https": true})),
        )
        .await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert!(a.body["error"].as_str().unwrap().contains("force_https"));

    let a = client
        .call(
            Method::PUT,
            "/api/tls",
            Some(json!({"https_enabled": true, "http_port": 0, "https_port": 0, "auto_generate": false})),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["restart_required"], true);
    assert!(
        a.body["restart_reasons"]
            .to_string()
            .contains("waf.server.https_enabled is true in waf.yml but false in the running proxy"),
        "{}",
        a.body
    );

    // What was saved is what the next start runs: HTTPS, with the domain's certificate.
    let (waf, addr) = panel_of(Waf::restart_in(waf.stop()));
    let tls = waf.https_addr();
    let local_ca = std::fs::read_to_string(waf.dir.path().join("certs/ca.pem")).unwrap();
    let (head, _) = https_get(tls, "late.test", &local_ca, "/late").await;
    assert_eq!(head.status, 200);
    assert_eq!(up.last().uri, "/late");

    // Now HTTPS runs, the global self-signed certificate applies at once, and covers a domain added later.
    let mut client = Client::new(addr);
    assert_eq!(client.sign_in("admin", PASSWORD).await.status, 200);
    assert!(
        served(tls, Some("plain.test")).await.is_err(),
        "no global certificate yet"
    );
    let a = client
        .call(
            Method::PUT,
            "/api/tls",
            Some(json!({"https_enabled": true, "http_port": 0, "https_port": 0, "auto_generate": true})),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["restart_required"], false, "{}", a.body);
    let a = client
        .call(
            Method::PUT,
            "/api/domains/plain.test",
            Some(json!({"upstream": up.url()})),
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let (head, _) = https_get(tls, "plain.test", &local_ca, "/plain").await;
    assert_eq!(head.status, 200);
    assert_eq!(up.last().uri, "/plain");
}

#[tokio::test]
async fn the_ui_and_the_openapi_document_are_served_from_the_binary() {
    let (waf, addr) = start_with_panel("");
    let mut client = Client::new(addr);
    let page = client.call(Method::GET, "/", None).await;
    assert_eq!(page.status, 200);
    assert!(page.body.as_str().unwrap().contains("First-time setup"));
    let csp = page.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'self'"), "{csp}");
    assert_eq!(page.headers["x-frame-options"], "DENY");
    let script = client.call(Method::GET, "/app.js", None).await;
    assert!(script.body.as_str().unwrap().contains("textContent"));
    let doc = client
        .call(Method::GET, "/api/openapi.json", None)
        .await
        .body;
    assert!(doc["openapi"].as_str().unwrap().starts_with('3'));
    for path in [
        "/api/setup",
        "/api/session",
        "/api/domains/{host}",
        "/api/tls",
        "/api/dashboard",
        "/api/events",
        "/api/events/{id}",
        "/api/events/export",
        "/api/events/stream",
        "/api/stats",
        "/api/domains/{host}/rules",
        "/api/config/protection",
        "/api/geoip",
        "/api/admins/{username}",
    ] {
        assert!(doc["paths"].get(path).is_some(), "{path} not documented");
    }
    assert!(
        doc["paths"]["/api/admins/{username}"]
            .get("patch")
            .is_some(),
        "the role change is documented"
    );
    let schemas = &doc["components"]["schemas"];
    assert!(
        schemas["DomainRulesPatch"]["properties"]
            .get("excluded_variables")
            .is_some()
    );
    assert!(
        schemas["TotpEnrolment"]["properties"]
            .get("qr_svg")
            .is_some()
    );

    // The panel's listener is read at start: a reload that changes it says so instead of pretending.
    let file = waf.dir.path().join("waf.yml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("port: 0,", "port: 9,")).unwrap();
    waf.signal("HUP");
    waf.wait_log("changes under waf.admin apply at the next restart", 10)
        .await;
    assert_eq!(
        client.call(Method::GET, "/api/status", None).await.status,
        200
    );
}

/// The panel's server-sent event stream, read as raw text.
struct EventStream {
    stream: TcpStream,
    buffer: String,
}

impl EventStream {
    async fn open(addr: SocketAddr, client: &Client) -> EventStream {
        use tokio::io::AsyncWriteExt;
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let cookie = format!("waf_admin={}", client.cookie("waf_admin").unwrap());
        let request = format!(
            "GET /api/events/stream HTTP/1.1\r\nhost: {addr}\r\ncookie: {cookie}\r\naccept: text/event-stream\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut events = EventStream {
            stream,
            buffer: String::new(),
        };
        events.read_until(|b| b.contains("\r\n\r\n")).await;
        assert!(
            events.buffer.starts_with("HTTP/1.1 200"),
            "{}",
            events.buffer
        );
        events.buffer.clear();
        events
    }

    async fn read_until(&mut self, done: impl Fn(&str) -> bool) {
        use tokio::io::AsyncReadExt;
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done(&self.buffer) {
            let mut chunk = [0u8; 4096];
            let n = tokio::time::timeout_at(deadline.into(), self.stream.read(&mut chunk))
                .await
                .expect("no event within 10 s")
                .unwrap();
            assert!(n > 0, "event stream closed");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    }

    /// The data of the next `event` (an event as stored, with its id).
    async fn next_event(&mut self) -> Value {
        self.read_until(|b| {
            b.contains("event: event\ndata: ")
                && b.split("event: event\ndata: ")
                    .nth(1)
                    .is_some_and(|r| r.contains('\n'))
        })
        .await;
        let rest = self
            .buffer
            .split("event: event\ndata: ")
            .nth(1)
            .unwrap()
            .to_string();
        let (data, after) = rest.split_once('\n').unwrap();
        let value = serde_json::from_str(data).unwrap();
        self.buffer = after.to_string();
        value
    }
}

/// The panel in a real browser: Debian's headless Chromium, driven through Debian's chromedriver by a Selenium
/// script (tests/browser/admin_panel.py, in the test virtualenv) that walks every page at 1400 and 390 px and
/// makes each change through the UI (see the script); then the file and the running proxy are checked here.
/// Screenshots of each step and page go to `target/tmp/admin-browser/`.
#[tokio::test]
async fn a_browser_walks_every_page_and_each_change_lands_whole_in_the_proxy() {
    let Some(python) = python_with_selenium() else {
        return;
    };
    let up = Upstream::start().await;
    let (waf, addr) = start_with_panel_and_server(
        "https_enabled: true, https_port: 0, tls: {auto_generate: true}",
        &format!("  upstream: {{default: '{}'}}\n", up.url()),
    );
    let shots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("admin-browser");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/admin_panel.py");
    let axe = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../third_party/axe-core/axe.min.js"
    );
    let file = waf.dir.path().join("waf.yml");
    let output = tokio::process::Command::new(python)
        .arg(script)
        .arg(format!("http://{addr}/"))
        .arg(format!("http://{}", waf.addr))
        .arg(logged_token(&waf))
        .arg(&shots)
        .arg(up.url())
        .arg(waf.https_addr().to_string())
        .arg(waf.dir.path().join("certs/ca.pem"))
        .arg(&file)
        .arg(axe)
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "browser steps failed:\n{}\n{}\nwaf log:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        waf.logs()
    );
    for shot in [
        "03-refused-beside-the-field",
        "08-event-detail",
        "09-totp-qr",
        "page-1400-overview",
        "page-390-events",
        "page-390-traffic",
    ] {
        assert!(shots.join(format!("{shot}.png")).is_file(), "{shot}");
    }
    // What the browser did is what the proxy now runs.
    let (_, health) = get(waf.addr, "/health").await;
    assert_eq!(json(&health)["mode"], "observe");
    let saved: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let shop = &saved["waf"]["domains"]["shop.test"];
    assert_eq!(shop["anomaly_threshold"], 12);
    // Set from the event's detail, then kept by the form that changed the threshold alone.
    assert_eq!(shop["disabled_rules"], json!([100001]));
    assert_eq!(shop["custom_rules"][0]["id"], 500001);
    assert_eq!(
        shop["excluded_variables"],
        json!([{"rule": 100001, "variable": "ARGS:q"}])
    );
    assert_eq!(shop["profile"], "api");
    assert_eq!(shop["responses"], false);
    assert_eq!(saved["waf"]["rules"]["profile"], "api");
    assert_eq!(saved["waf"]["rules"]["responses"], true);
    assert_eq!(saved["waf"]["rules"]["paranoia_level"], 2);
    assert_eq!(saved["waf"]["rules"]["anomaly_threshold"], 7);
    assert_eq!(saved["waf"]["domains"]["secure.test"]["self_signed"], true);
    assert!(saved["waf"]["domains"].get("tmp.test").is_none());
    assert_eq!(
        saved["waf"]["ip_filter"]["deny"],
        json!(["10.255.255.1", "10.254.0.0/16"])
    );
    assert_eq!(saved["waf"]["server"]["https_port"], 8443);
    // The pool made in the Domains page: in waf.yml as typed, and in force.
    let pool = &saved["waf"]["domains"]["pool.test"];
    let https_server = format!("https://{}", waf.https_addr());
    assert_eq!(
        pool["upstreams"],
        json!([https_server, "http://127.0.0.1:1"]),
        "{pool}"
    );
    assert_eq!(pool["upstream_tls"]["server_name"], "localhost");
    assert_eq!(pool["upstream_host"], "relay.test");
    assert_eq!(
        pool["health_check"],
        json!({"path": "/", "interval_sec": 1})
    );
    assert!(pool.get("default_upstream").is_none());
    // Each request the browser sent to pool.test went through the proxy's own HTTPS listener (verified with
    // the CA file typed in the form), which received the Host the form set and passed it on.
    let relayed: Vec<String> = up
        .seen()
        .iter()
        .filter(|s| s.uri.starts_with("/through-pool/"))
        .map(|s| s.headers["host"].to_str().unwrap().to_string())
        .collect();
    assert_eq!(relayed, vec!["relay.test"; 6]);
    let (_, health) = get(waf.addr, "/health").await;
    assert_eq!(
        json(&health)["upstreams_down"],
        json!(["http://127.0.0.1:1"])
    );
}

/// `$TEST_PYTHON` with Selenium, and Debian's chromium and chromedriver; `None` (after saying why) when missing
/// and the external tests are not required.
fn python_with_selenium() -> Option<std::path::PathBuf> {
    let python = std::env::var_os("TEST_PYTHON").map(std::path::PathBuf::from);
    let usable = python.as_ref().is_some_and(|p| {
        std::process::Command::new(p)
            .args(["-c", "import selenium"])
            .status()
            .is_ok_and(|s| s.success())
    }) && ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        .iter()
        .all(|p| std::path::Path::new(p).is_file());
    if usable {
        return python;
    }
    let why = "no TEST_PYTHON with selenium, or no /usr/bin/chromium and /usr/bin/chromedriver \
               (see .ci/install and .ci/requirements.txt)";
    assert!(
        !std::env::var("REQUIRE_EXTERNAL_TESTS").is_ok_and(|v| v == "1"),
        "REQUIRE_EXTERNAL_TESTS=1 but {why}"
    );
    eprintln!("SKIPPED: {why}");
    None
}

/// A domain's upstream side through the API: what cannot work is refused naming the key, as `--check-config`
/// refuses it, with nothing written; a pool with its own settings is shown back, in force at once, audited; the
/// servers' health is listed; the domain form's change of its single upstream replaces the pool.
#[tokio::test]
async fn a_domains_upstream_pool_is_set_refused_by_key_and_its_health_listed() {
    let up = Upstream::start().await;
    let (waf, addr) =
        start_with_panel_and_server("", &format!("  upstream: {{default: '{}'}}\n", up.url()));
    let mut client = set_up(&waf, addr).await;
    let file = waf.dir.path().join("waf.yml");
    let put = client
        .call(
            Method::PUT,
            "/api/domains/pool.test",
            Some(json!({"upstream": up.url()})),
        )
        .await;
    assert_eq!(put.status, 200, "{}", put.body);
    let before = std::fs::read_to_string(&file).unwrap();
    let dead = "http://127.0.0.1:1";
    let server = |url: &str| json!({"url": url});
    for (body, status, key) in [
        (
            json!({"servers": []}),
            400,
            "waf.domains.pool.test.upstreams",
        ),
        (
            json!({"servers": [server(&up.url()), {"url": dead, "weight": 0}]}),
            400,
            "waf.domains.pool.test.upstreams[1].weight",
        ),
        (
            json!({"servers": [server("ftp://x")]}),
            400,
            "waf.domains.pool.test.default_upstream",
        ),
        (
            json!({"servers": [server(&up.url())], "upstream_tls": {"ca_file": "/nonexistent/ca.pem"}}),
            400,
            "waf.domains.pool.test.upstream_tls.ca_file",
        ),
        (
            json!({"servers": [server(&up.url())], "upstream_tls": {"ca_file": "ca.pem"}}),
            400,
            "upstream_tls.ca_file",
        ),
        (
            json!({"servers": [server(&up.url())], "upstream_tls": {"cert_file": "/c.pem"}}),
            400,
            "waf.domains.pool.test.upstream_tls",
        ),
        (
            json!({"servers": [server(&up.url())], "balance": "fastest"}),
            400,
            "waf.domains.pool.test.balance",
        ),
        (
            json!({"servers": [server(&up.url())], "health_check": {"path": "ping"}}),
            400,
            "waf.domains.pool.test.health_check.path",
        ),
        (
            json!({"servers": [server(&up.url())], "health_check": true}),
            400,
            "waf.domains.pool.test.health_check",
        ),
        (
            json!({"servers": [server(&up.url())], "upstream_host": "a b"}),
            400,
            "waf.domains.pool.test.upstream_host",
        ),
        (json!({"servers": [], "weight": 1}), 422, "weight"),
    ] {
        let a = client
            .call(
                Method::PUT,
                "/api/domains/pool.test/upstream",
                Some(body.clone()),
            )
            .await;
        assert_eq!(a.status, status, "{body}: {}", a.body);
        assert_eq!(a.body["key"], key, "{body}: {}", a.body);
    }
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "nothing written"
    );
    let missing = client
        .call(
            Method::PUT,
            "/api/domains/none.test/upstream",
            Some(json!({"servers": [server(&up.url())]})),
        )
        .await;
    assert_eq!(missing.status, 404);

    let set = client
        .call(
            Method::PUT,
            "/api/domains/pool.test/upstream",
            Some(json!({
                "servers": [server(&up.url()), {"url": dead, "weight": 2}],
                "upstream_host": "backend.example",
                "balance": "round_robin", "max_fails": 1, "fail_timeout_sec": 60, "retries": 1,
            })),
        )
        .await;
    assert_eq!(set.status, 200, "{}", set.body);
    let shown = &set.body["domains"]["pool.test"];
    assert_eq!(
        shown["servers"][1],
        json!({"url": dead, "weight": 2, "backup": false})
    );
    assert_eq!(shown["pool"]["fail_timeout_sec"], 60);
    assert_eq!(shown["upstream_host"], "backend.example");
    // In force at once: every request answered (the dead server's failures go to the other), with the Host set.
    for _ in 0..6 {
        let req = Request::get("/via-pool")
            .header("host", "pool.test")
            .body(Full::new(Bytes::new()))
            .unwrap();
        let (parts, _) = send(waf.addr, req).await;
        assert_eq!(parts.status, 200);
    }
    assert_eq!(up.last().headers["host"], "backend.example");
    // The dead server is out for its failures (no health check here: the requests above met it), and the panel
    // says so.
    let deadline = Instant::now() + Duration::from_secs(5);
    let listed = loop {
        let a = client.call(Method::GET, "/api/upstreams", None).await;
        assert_eq!(a.status, 200);
        let servers = a.body.as_array().unwrap().clone();
        if servers.iter().any(|s| s["url"] == dead && s["up"] == false) {
            break servers;
        }
        assert!(Instant::now() < deadline, "{servers:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let of = |url: &str| listed.iter().find(|s| s["url"] == url).unwrap().clone();
    assert_eq!(of(dead)["pools"], json!(["pool.test"]));
    let why = of(dead)["out"].as_str().unwrap().to_string();
    assert!(why.starts_with("out after failing, for "), "{why}");
    assert_eq!(of(&up.url())["pools"], json!(["(default)", "pool.test"]));
    assert_eq!(of(&up.url())["up"], true);
    // Its counts, from the metrics: the six requests answered, the dead server's failures.
    assert!(
        of(&up.url())["requests"].as_u64().unwrap() >= 6,
        "{listed:?}"
    );
    assert_eq!(of(&up.url())["failures"], 0);
    assert!(of(dead)["failures"].as_u64().unwrap() >= 1, "{listed:?}");
    let audit = client.call(Method::GET, "/api/audit?limit=5", None).await;
    assert!(
        audit.body.to_string().contains("domain upstream set"),
        "{}",
        audit.body
    );

    // The domain form's single upstream replaces the pool; its pool settings stay in the file, refused by name
    // were they left without servers of their own (they are not: the single upstream is its own).
    let single = client
        .call(
            Method::PUT,
            "/api/domains/pool.test",
            Some(json!({"upstream": up.url()})),
        )
        .await;
    assert_eq!(single.status, 200, "{}", single.body);
    let saved: Value = serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let domain = &saved["waf"]["domains"]["pool.test"];
    assert!(domain.get("upstreams").is_none(), "{domain}");
    assert_eq!(domain["default_upstream"], up.url());
    assert_eq!(domain["retries"], 1);
}

/// Every outcome an event can have reaches the store, in enforce mode and in observe mode: the rules' (blocked,
/// observed) and each traffic control's (ip_denied, geo_denied, rate_limited), the latter in observe mode with
/// no status (forwarded).
#[tokio::test]
async fn every_outcome_reaches_the_event_store_in_enforce_and_in_observe_mode() {
    let Some(python) = support::geoip::python_with_mmdb_writer() else {
        return;
    };
    let db_dir = tempfile::tempdir().unwrap();
    let db = db_dir.path().join("country.mmdb");
    support::geoip::write_mmdb(&python, &db, &[("127.0.0.0/8", "ZZ")]);
    let up = Upstream::start().await;
    let waf = Waf::start_with_server(
        "",
        &format!(
            "  admin: {{enabled: true, port: 0, data_dir: admin-data}}\n  upstream: {{default: '{}'}}\n  \
             geoip: {{enabled: true, database: '{}', unknown: allow}}\n  domains:\n    \
             denied.test: {{ip_filter: {{deny: ['127.0.0.1']}}}}\n    \
             geo.test: {{geoip: {{deny_countries: [ZZ]}}}}\n    \
             limited.test: {{rate_limit: {{enabled: true, requests: 1, window_sec: 600, burst: 1}}}}\n",
            up.url(),
            db.display()
        ),
        &[("deny.yaml", DENY_RULE)],
    );
    let (waf, addr) = panel_of(waf);
    let mut client = set_up(&waf, addr).await;
    // Each kind of refusal once; the rate limit's first request passes.
    let sends = |expect: [u16; 4]| {
        let proxy = waf.addr;
        async move {
            let got = [
                request_for(proxy, "app.test", "/?q=attack-me", &[]).await,
                request_for(proxy, "denied.test", "/", &[]).await,
                request_for(proxy, "geo.test", "/", &[]).await,
                {
                    request_for(proxy, "limited.test", "/", &[]).await;
                    request_for(proxy, "limited.test", "/", &[]).await
                },
            ];
            assert_eq!(got, expect);
        }
    };
    sends([403, 403, 403, 429]).await;
    for (outcome, status) in [
        ("blocked", 403),
        ("ip_denied", 403),
        ("geo_denied", 403),
        ("rate_limited", 429),
    ] {
        let page = events_until(&mut client, &format!("?outcome={outcome}"), 1).await;
        let event = &page["events"][0];
        assert_eq!(event["status"], status, "{page}");
        if outcome == "geo_denied" {
            assert_eq!(event["country"], "ZZ", "{page}");
        }
    }
    let observe = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"mode": "observe"})),
        )
        .await;
    assert_eq!(observe.status, 200, "{}", observe.body);
    sends([200, 200, 200, 200]).await;
    let page = events_until(&mut client, "?outcome=observed", 1).await;
    assert_eq!(page["events"][0]["rule_ids"], json!([100001]), "{page}");
    assert!(page["events"][0]["status"].is_null(), "{page}");
    for outcome in ["ip_denied", "geo_denied", "rate_limited"] {
        let page = events_until(&mut client, &format!("?outcome={outcome}"), 2).await;
        let event = &page["events"][0];
        assert!(
            event["status"].is_null(),
            "forwarded in observe mode: {page}"
        );
    }
}

/// A response rule that withholds every answer of the test upstream (it names itself in `x-upstream: echo`).
const LEAK_RULE: &str = r#"
id: 100002
msg: "the upstream names itself"
severity: CRITICAL
phase: response
operator: contains
pattern: "echo"
variables: [{type: RESPONSE_HEADERS, names: [x-upstream]}]
action: deny
"#;

/// An answer the response rules withheld (502) is an event of phase `response` with its rule ids, beside the
/// request phase's blocks; the export carries the phase.
#[tokio::test]
async fn a_withheld_answer_is_an_event_of_the_response_phase() {
    let up = Upstream::start().await;
    let waf = Waf::start_with_server(
        "",
        &format!(
            "  admin: {{enabled: true, port: 0, data_dir: admin-data}}\n  upstream: {{default: '{}'}}\n  \
             domains: {{leaky.test: {{responses: true}}}}\n",
            up.url()
        ),
        &[("deny.yaml", DENY_RULE), ("leak.yaml", LEAK_RULE)],
    );
    let (waf, addr) = panel_of(waf);
    let mut client = set_up(&waf, addr).await;
    // Answers are inspected for leaky.test only.
    assert_eq!(request_for(waf.addr, "app.test", "/", &[]).await, 200);
    assert_eq!(request_for(waf.addr, "leaky.test", "/", &[]).await, 502);
    assert_eq!(
        request_for(waf.addr, "app.test", "/?q=attack-me", &[]).await,
        403
    );
    let page = events_until(&mut client, "?outcome=blocked", 2).await;
    let events = page["events"].as_array().unwrap();
    let response = events
        .iter()
        .find(|e| e["phase"] == "response")
        .unwrap_or_else(|| panic!("no event of the response phase: {page}"));
    assert_eq!(response["status"], 502, "{page}");
    assert_eq!(response["domain"], "leaky.test", "{page}");
    assert_eq!(response["rule_ids"], json!([100002]), "{page}");
    let request = events
        .iter()
        .find(|e| e["phase"] == "request")
        .unwrap_or_else(|| panic!("no event of the request phase: {page}"));
    assert_eq!(request["status"], 403, "{page}");
    assert_eq!(request["rule_ids"], json!([100001]), "{page}");
    let detail = client
        .call(
            Method::GET,
            &format!("/api/events/{}", response["id"]),
            None,
        )
        .await;
    assert_eq!(detail.status, 200, "{}", detail.body);
    assert_eq!(detail.body["phase"], "response", "{}", detail.body);
    let variable = detail.body["matches"][0]["variable"]
        .as_str()
        .unwrap_or_default();
    assert!(
        variable.to_ascii_lowercase().contains("x-upstream"),
        "{}",
        detail.body
    );
    let csv = client
        .call(Method::GET, "/api/events/export?format=csv", None)
        .await;
    assert_eq!(csv.status, 200);
    let text = csv.body.as_str().unwrap();
    assert!(text.lines().next().unwrap().ends_with(",phase"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("leaky.test") && l.ends_with(",response")),
        "{text}"
    );

    // The panel turns the inspection on for every domain, off for one, and back to the global setting.
    let on = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"responses": true})),
        )
        .await;
    assert_eq!(on.status, 200, "{}", on.body);
    assert_eq!(request_for(waf.addr, "app.test", "/", &[]).await, 502);
    let off = client
        .call(
            Method::PATCH,
            "/api/domains/leaky.test/rules",
            Some(json!({"responses": false})),
        )
        .await;
    assert_eq!(off.status, 200, "{}", off.body);
    assert_eq!(request_for(waf.addr, "leaky.test", "/", &[]).await, 200);
    let config = client.call(Method::GET, "/api/config", None).await;
    assert_eq!(config.body["responses"], true, "{}", config.body);
    assert_eq!(
        config.body["domains"]["leaky.test"]["responses"], false,
        "{}",
        config.body
    );
    let file = std::fs::read_to_string(waf.dir.path().join("waf.yml")).unwrap();
    assert!(file.contains("responses: false"), "{file}");
    let global = client
        .call(
            Method::PATCH,
            "/api/domains/leaky.test/rules",
            Some(json!({"responses": null})),
        )
        .await;
    assert_eq!(global.status, 200, "{}", global.body);
    assert_eq!(request_for(waf.addr, "leaky.test", "/", &[]).await, 502);
    let actions: Vec<String> = audit_actions(&waf)
        .await
        .into_iter()
        .map(|(_, action, _)| action)
        .collect();
    assert!(
        actions.iter().any(|a| a == "protection changed"),
        "{actions:?}"
    );
}

/// From an event's detail, a rule excluded for one parameter of one domain: the rule no longer sees that
/// parameter there, still sees the others (and other domains); a variable that is not one, or a rule not
/// loaded, is refused naming the key. The domain's profile and the global one are set the same way.
#[tokio::test]
async fn a_rule_excluded_for_one_parameter_and_the_profiles_apply_at_once() {
    let up = Upstream::start().await;
    let waf = Waf::start_with_server(
        "",
        &format!(
            "  admin: {{enabled: true, port: 0, data_dir: admin-data}}\n  upstream: {{default: '{}'}}\n  \
             domains:\n    app.test: {{default_upstream: '{}'}}\n",
            up.url(),
            up.url()
        ),
        &[("deny.yaml", DENY_RULE)],
    );
    let (waf, addr) = panel_of(waf);
    let mut client = set_up(&waf, addr).await;
    assert_eq!(
        request_for(waf.addr, "app.test", "/?q=attack-me", &[]).await,
        403
    );
    let event = events_until(&mut client, "?domain=app.test", 1).await;
    let id = event["events"][0]["id"].as_i64().unwrap();
    let detail = client
        .call(Method::GET, &format!("/api/events/{id}"), None)
        .await;
    let variable = detail.body["matches"][0]["variable"].as_str().unwrap();
    assert_eq!(variable, "ARGS:q");
    let excluded = client
        .call(
            Method::PATCH,
            "/api/domains/app.test/rules",
            Some(json!({"excluded_variables": [{"rule": 100001, "variable": variable}]})),
        )
        .await;
    assert_eq!(excluded.status, 200, "{}", excluded.body);
    assert_eq!(
        request_for(waf.addr, "app.test", "/?q=attack-me", &[]).await,
        200
    );
    assert_eq!(
        request_for(waf.addr, "app.test", "/?q=attack-me&other=attack-me", &[]).await,
        403,
        "the rule still reads the other parameters"
    );
    assert_eq!(
        request_for(waf.addr, "other.test", "/?q=attack-me", &[]).await,
        403
    );
    let file = std::fs::read_to_string(waf.dir.path().join("waf.yml")).unwrap();
    let saved: Value = serde_saphyr::from_str(&file).unwrap();
    assert_eq!(
        saved["waf"]["domains"]["app.test"]["excluded_variables"],
        json!([{"rule": 100001, "variable": "ARGS:q"}])
    );
    for (body, key) in [
        (
            json!({"excluded_variables": [{"rule": 100001, "variable": "ARG:q"}]}),
            "waf.domains.app.test.excluded_variables[0].variable",
        ),
        (
            json!({"excluded_variables": [{"rule": 4242, "variable": "ARGS:q"}]}),
            "waf.domains.app.test.excluded_variables",
        ),
        (json!({"profile": "mobile"}), "profile"),
    ] {
        let refused = client
            .call(Method::PATCH, "/api/domains/app.test/rules", Some(body))
            .await;
        assert!(
            refused.status == 400 || refused.status == 422,
            "{}",
            refused.body
        );
        assert_eq!(refused.body["key"], key, "{}", refused.body);
    }
    assert_eq!(
        request_for(waf.addr, "app.test", "/?q=attack-me", &[]).await,
        200,
        "the refusals changed nothing"
    );
    let profile = client
        .call(
            Method::PATCH,
            "/api/domains/app.test/rules",
            Some(json!({"profile": "api"})),
        )
        .await;
    assert_eq!(profile.status, 200, "{}", profile.body);
    let global = client
        .call(
            Method::PATCH,
            "/api/config/protection",
            Some(json!({"profile": "api"})),
        )
        .await;
    assert_eq!(global.status, 200, "{}", global.body);
    let config = client.call(Method::GET, "/api/config", None).await;
    assert_eq!(config.body["profile"], "api");
    assert_eq!(config.body["domains"]["app.test"]["profile"], "api");
    assert_eq!(
        config.body["domains"]["app.test"]["excluded_variables"],
        json!([{"rule": 100001, "variable": "ARGS:q"}])
    );
    let back = client
        .call(
            Method::PATCH,
            "/api/domains/app.test/rules",
            Some(json!({"profile": null})),
        )
        .await;
    assert_eq!(back.status, 200, "{}", back.body);
    let config = client.call(Method::GET, "/api/config", None).await;
    assert!(config.body["domains"]["app.test"]["profile"].is_null());
}
