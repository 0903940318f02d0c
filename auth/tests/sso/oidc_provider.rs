//! The OAuth 2.0 client against panva's `oidc-provider` (the OpenID-certified Node server), run by Node from
//! `auth/tests/oidc_provider/` (installed there by `.ci/install` with `npm ci`). Two strategies, one per client
//! authentication scheme (`client_secret_basic`, `client_secret_post`), each a full code flow with PKCE, a nonce,
//! an RS256 ID token and the userinfo endpoint.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use base64::Engine;
use hyper::StatusCode;
use serde_json::json;

use super::super::support::external;
use super::super::support::http::Http;
use super::super::support::server::AuthServer;
use super::super::{CHALLENGE, Ctx, HOST, VERIFIER, cookie_pair};
use super::{add_strategy, callback, start_login, user_by_email};

/// Node under load takes seconds to load the provider; a minute means it is stuck.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The Node process, killed on drop.
pub(super) struct OidcProvider {
    child: Child,
    port: u16,
}

impl Drop for OidcProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl OidcProvider {
    /// Started on `port` with `clients`, or `None` (reported) when Node or the package is missing.
    pub(super) fn start_on(port: u16, clients: &serde_json::Value) -> Option<Self> {
        let Some(node) = external::find_program("node", &[]) else {
            external::skip("node is not installed (see .ci/install)");
            return None;
        };
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oidc_provider");
        if !dir.join("node_modules/oidc-provider").is_dir() {
            external::skip(
                "oidc-provider is not installed: npm ci --prefix auth/tests/oidc_provider",
            );
            return None;
        }
        let mut child = Command::new(node)
            .arg(dir.join("provider.mjs"))
            .env("PORT", port.to_string())
            .env("CLIENTS", clients.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start node");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if line == "listening" {
                    let _ = tx.send(());
                }
            }
        });
        let provider = OidcProvider { child, port };
        rx.recv_timeout(START_TIMEOUT)
            .expect("oidc-provider did not start");
        Some(provider)
    }

    pub(super) fn site(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Follows the provider's redirects from `url` (its interactions complete at once), carrying its cookies, until
    /// it sends the browser back to acme.test.
    pub(super) async fn authorize(&self, url: &str) -> String {
        let http = Http::new(([127, 0, 0, 1], self.port).into());
        let host = format!("127.0.0.1:{}", self.port);
        let mut jar: Vec<String> = Vec::new();
        let mut url = url.to_string();
        for _ in 0..5 {
            let path = url.strip_prefix(&self.site()).unwrap_or(&url).to_string();
            let cookie = jar.join("; ");
            let response = http.get(&path, &host, &[("cookie", &cookie)]).await;
            assert!(
                response.status.is_redirection(),
                "{}: {}",
                response.status,
                response.body
            );
            for set in response.headers.get_all("set-cookie") {
                let pair = cookie_pair(set.to_str().unwrap());
                let name = pair.split('=').next().unwrap().to_string();
                jar.retain(|c| !c.starts_with(&format!("{name}=")));
                jar.push(pair);
            }
            url = response.header("location").unwrap().to_string();
            if url.starts_with(&format!("http://{HOST}/")) {
                return url;
            }
        }
        panic!("the provider never sent the browser back: {url}");
    }

    /// An access token (a JWT whose audience is `client_id`) issued to the client `client_id` for the user linus,
    /// through the provider's code flow with PKCE and a `resource` indicator.
    pub(super) async fn access_token(
        &self,
        client_id: &str,
        secret: &str,
        redirect_uri: &str,
    ) -> String {
        let resource = "https://api.acme.test/";
        let query = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs([
                ("response_type", "code"),
                ("client_id", client_id),
                ("redirect_uri", redirect_uri),
                ("scope", "openid api"),
                ("resource", resource),
                ("state", "xyz"),
                ("code_challenge", CHALLENGE),
                ("code_challenge_method", "S256"),
            ])
            .finish();
        let back = self
            .authorize(&format!("{}/auth?{query}", self.site()))
            .await;
        let back = url::Url::parse(&back).unwrap();
        let code = back
            .query_pairs()
            .find(|(k, _)| k == "code")
            .unwrap_or_else(|| panic!("no code in {back}"))
            .1
            .into_owned();
        let basic =
            base64::engine::general_purpose::STANDARD.encode(format!("{client_id}:{secret}"));
        let http = Http::new(([127, 0, 0, 1], self.port).into());
        let response = http
            .post_form(
                "/token",
                &format!("127.0.0.1:{}", self.port),
                &[("authorization", &format!("Basic {basic}"))],
                &[
                    ("grant_type", "authorization_code"),
                    ("code", &code),
                    ("redirect_uri", redirect_uri),
                    ("code_verifier", VERIFIER),
                    ("resource", resource),
                ],
            )
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        response.json()["access_token"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

pub async fn oauth2_login_through_oidc_provider(ctx: Ctx) {
    ctx.bootstrap();
    let port = super::super::support::free_port();
    let site = format!("http://127.0.0.1:{port}");
    let common = [
        "--authorize-url",
        "/auth",
        "--token-url",
        "/token",
        "--raw-info-url",
        "/me",
        "--scope",
        "openid email profile",
    ];
    let mut clients = Vec::new();
    let mut strategies = Vec::new();
    for (scheme, method) in [
        ("basic_auth", "client_secret_basic"),
        ("request_body", "client_secret_post"),
    ] {
        let mut options = common.to_vec();
        options.extend(["--auth-scheme", scheme]);
        let id = add_strategy(&ctx, &site, &options);
        let secret = format!("secret-of-{id}");
        ctx.backend
            .execute(
                "UPDATE oauth_strat SET client_id = $1, client_secret = $2 WHERE id = $1",
                &[&id, &secret],
            )
            .await;
        clients.push(json!({
            "client_id": id, "client_secret": secret, "token_endpoint_auth_method": method,
            "redirect_uris": [format!("http://{HOST}/auth/oauth2/callback?id={id}")],
        }));
        strategies.push(id);
    }
    let Some(provider) = OidcProvider::start_on(port, &json!(clients)) else {
        return;
    };
    let server = AuthServer::start(&ctx.backend, &[]);
    for (n, strategy) in strategies.iter().enumerate() {
        let (start, cookie) = start_login(&server, strategy, HOST).await;
        assert_eq!(start.status, StatusCode::SEE_OTHER, "{}", server.log());
        let back = provider.authorize(start.header("location").unwrap()).await;
        let response = callback(&server, &back, &cookie).await;
        assert_eq!(response.status, StatusCode::SEE_OTHER, "{}", server.log());
        assert_eq!(response.header("location"), Some("/app/home.html"));
        let user = user_by_email(&ctx, "linus@oidc.test")
            .await
            .expect("linus created");
        assert_eq!(user.name.as_deref(), Some("Linus Torvalds"));
        assert_eq!(user.login_count, n as i64 + 1, "the same user both times");
    }
}
