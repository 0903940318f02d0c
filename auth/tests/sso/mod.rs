//! External logins, end to end over real HTTP: the OAuth 2.0 client against a second instance of our own auth
//! service acting as the OpenID Connect provider (code flow, PKCE, ID token, userinfo), and against stand-in
//! providers that misbehave (a token endpoint that redirects, one that never answers).

mod oidc_provider;
mod saml;
mod tls_provider;
mod token_exchange;

pub use oidc_provider::oauth2_login_through_oidc_provider;
pub use saml::{saml_fingerprint_strategy_and_add_command, saml_login_and_its_refusals};
pub use tls_provider::oauth2_login_over_https;
pub use token_exchange::token_exchange_with_oidc_provider;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hyper::StatusCode;
use serde_json::{Value, json};

use super::support::http::Response;
use super::support::server::{AuthServer, Backend};
use super::{Ctx, EMAIL, HOST, cookie_pair, signed_in};

/// The provider's own tenant is its loopback address (a host it is reached by).
const IDP_HOST: &str = "127.0.0.1";
const IDP_EMAIL: &str = "grace@idp.test";
const IDP_PASSWORD: &str = "another horse battery";

/// A second auth service acting as the provider, with the user grace.
struct Provider {
    backend: Backend,
    server: AuthServer,
    /// Grace's session at the provider.
    cookie: String,
}

impl Provider {
    fn start() -> Self {
        let backend = Backend::sqlite();
        let cli = |args: &[&str]| {
            backend
                .cli(&[], args)
                .unwrap_or_else(|e| panic!("{args:?}: {e}"))
        };
        cli(&["authority", "add", "--domain", IDP_HOST, "--name", "IdP"]);
        cli(&[
            "user",
            "add",
            "--domain",
            IDP_HOST,
            "--email",
            IDP_EMAIL,
            "--password",
            IDP_PASSWORD,
            "--name",
            "Grace Hopper",
        ]);
        let server = AuthServer::start(&backend, &[]);
        Provider {
            backend,
            server,
            cookie: String::new(),
        }
    }

    fn site(&self) -> String {
        format!("http://{}", self.server.addr)
    }

    fn host(&self) -> String {
        self.server.addr.to_string()
    }

    async fn sign_in(&mut self) {
        let response = self
            .server
            .http
            .post_json(
                "/auth/signin",
                &self.host(),
                &[],
                json!({ "email": IDP_EMAIL, "password": IDP_PASSWORD }),
            )
            .await;
        assert_eq!(response.status, StatusCode::ACCEPTED, "{}", response.body);
        self.cookie = cookie_pair(&response.set_cookie("_coauth_session").unwrap());
    }

    /// Registers the consumer's strategy `id` as a confidential client; (client_id, client_secret).
    fn register(&self, strategy_id: &str) -> (String, String) {
        let redirect = format!("http://{HOST}/auth/oauth2/callback?id={strategy_id}");
        let client = self
            .backend
            .cli(
                &[],
                &[
                    "client",
                    "add",
                    "--domain",
                    IDP_HOST,
                    "--name",
                    "acme",
                    "--redirect-uri",
                    &redirect,
                    "--scopes",
                    "openid public",
                ],
            )
            .unwrap();
        (
            client["client_id"].as_str().unwrap().into(),
            client["client_secret"].as_str().unwrap().into(),
        )
    }

    /// The provider's answer to its authorization URL for grace: where it sends the browser back.
    async fn authorize(&self, url: &str) -> String {
        let path = url.strip_prefix(&self.site()).expect("the provider's URL");
        let response = self
            .server
            .http
            .get(path, &self.host(), &[("cookie", &self.cookie)])
            .await;
        assert_eq!(response.status, StatusCode::FOUND, "{}", response.body);
        response.header("location").unwrap().to_string()
    }
}

/// Adds a strategy of `acme.test` with `extra` options; its id.
fn add_strategy(ctx: &Ctx, site: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "oauth2",
        "add",
        "--domain",
        HOST,
        "--name",
        "IdP",
        "--client-id",
        "unregistered",
        "--client-secret",
        "unregistered",
        "--site",
        site,
    ];
    args.extend_from_slice(extra);
    ctx.cli(&args)["id"].as_str().unwrap().to_string()
}

/// A strategy of `acme.test` registered with `provider`: code flow with PKCE, basic auth, OpenID Connect.
async fn registered_strategy(ctx: &Ctx, provider: &Provider, extra: &[&str]) -> String {
    let userinfo = format!("{}/auth/userinfo", provider.site());
    let mut options = vec![
        "--authorize-url",
        "/auth/authorize",
        "--token-url",
        "/auth/token",
        "--raw-info-url",
        &userinfo,
        "--scope",
        "openid public",
        "--auth-scheme",
        "basic_auth",
    ];
    options.extend_from_slice(extra);
    let id = add_strategy(ctx, &provider.site(), &options);
    let (client_id, secret) = provider.register(&id);
    ctx.backend
        .execute(
            "UPDATE oauth_strat SET client_id = $1, client_secret = $2 WHERE id = $3",
            &[&client_id, &secret, &id],
        )
        .await;
    id
}

/// `/auth/login?provider=oauth2&id=..&continue=..` then `/auth/oauth2?id=..` at acme.test: the provider URL the
/// browser is sent to, and the session cookie that goes with it.
async fn start_login(server: &AuthServer, strategy: &str, host: &str) -> (Response, String) {
    let login = server
        .http
        .get(
            &format!("/auth/login?provider=oauth2&id={strategy}&continue=/app/home.html"),
            host,
            &[],
        )
        .await;
    assert_eq!(login.status, StatusCode::SEE_OTHER, "{}", login.body);
    let cookie = cookie_pair(&login.set_cookie("_coauth_session").unwrap());
    let start = server
        .http
        .get(
            &format!("/auth/oauth2?id={strategy}"),
            host,
            &[("cookie", &cookie)],
        )
        .await;
    let cookie = start
        .set_cookie("_coauth_session")
        .map(|c| cookie_pair(&c))
        .unwrap_or(cookie);
    (start, cookie)
}

fn query_param(url: &str, name: &str) -> Option<String> {
    let url = url::Url::parse(url).unwrap();
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// Sends the browser's return to acme.test (a URL on `http://acme.test`).
async fn callback(server: &AuthServer, url: &str, cookie: &str) -> Response {
    let path = url
        .strip_prefix(&format!("http://{HOST}"))
        .expect("our callback URL");
    server.http.get(path, HOST, &[("cookie", cookie)]).await
}

fn assert_failure(response: &Response) {
    assert_eq!(response.status, StatusCode::FOUND, "{}", response.body);
    assert_eq!(response.header("location"), Some("/auth/failure"));
}

/// The whole login with `provider`: start, the provider's consent, the callback. The callback's answer.
async fn login(server: &AuthServer, provider: &Provider, strategy: &str) -> Response {
    let (start, cookie) = start_login(server, strategy, HOST).await;
    assert_eq!(start.status, StatusCode::SEE_OTHER, "{}", start.body);
    let back = provider.authorize(start.header("location").unwrap()).await;
    callback(server, &back, &cookie).await
}

async fn user_by_email(ctx: &Ctx, email: &str) -> Option<auth::store::User> {
    let store = ctx.backend.store().await;
    let authority = store.authority_by_domain(HOST).await.unwrap().unwrap();
    store.user_by_email(&authority.id, email).await.unwrap()
}

pub async fn oauth2_login_creates_then_matches_the_user(ctx: Ctx) {
    ctx.bootstrap();
    let mut provider = Provider::start();
    provider.sign_in().await;
    let strategy = registered_strategy(&ctx, &provider, &[]).await;
    let server = AuthServer::start(&ctx.backend, &[]);

    let (start, _) = start_login(&server, &strategy, HOST).await;
    let url = start.header("location").unwrap();
    assert!(
        url.starts_with(&format!("{}/auth/authorize?", provider.site())),
        "{url}"
    );
    assert_eq!(
        query_param(url, "code_challenge_method").as_deref(),
        Some("S256")
    );
    assert_eq!(query_param(url, "response_type").as_deref(), Some("code"));
    for random in ["state", "nonce", "code_challenge"] {
        assert!(
            query_param(url, random).is_some_and(|v| v.len() >= 22),
            "{random} in {url}"
        );
    }

    // First login: grace is new to acme.test, created and linked.
    let response = login(&server, &provider, &strategy).await;
    assert_eq!(
        response.status,
        StatusCode::SEE_OTHER,
        "{}\n{}",
        response.body,
        server.log()
    );
    assert_eq!(response.header("location"), Some("/app/home.html"));
    let cookie = cookie_pair(&response.set_cookie("_coauth_session").unwrap());
    assert!(signed_in(&server, &cookie).await);
    let user = user_by_email(&ctx, IDP_EMAIL).await.expect("grace created");
    assert_eq!(user.name.as_deref(), Some("Grace Hopper"));
    assert_eq!(user.login_count, 1);
    assert_eq!(
        user.password_digest, None,
        "an external user has no password"
    );

    // Second login: the link finds her, even after the provider's email would no longer match anyone.
    ctx.backend
        .execute(
            "UPDATE \"user\" SET email = $1 WHERE id = $2",
            &["renamed@acme.test", &user.id],
        )
        .await;
    let response = login(&server, &provider, &strategy).await;
    assert_eq!(response.status, StatusCode::SEE_OTHER, "{}", server.log());
    let again = user_by_email(&ctx, "renamed@acme.test").await.unwrap();
    assert_eq!(
        (again.id.as_str(), again.login_count),
        (user.id.as_str(), 2)
    );
    assert!(
        user_by_email(&ctx, IDP_EMAIL).await.is_none(),
        "no second user"
    );
    assert!(
        !server
            .log()
            .contains(&provider_secret(&ctx, &strategy).await),
        "the secret is never logged"
    );
}

async fn provider_secret(ctx: &Ctx, strategy: &str) -> String {
    let store = ctx.backend.store().await;
    store
        .oauth_strategy_by_id(strategy)
        .await
        .unwrap()
        .unwrap()
        .client_secret
}

pub async fn oauth2_login_links_an_existing_user_by_email(ctx: Ctx) {
    let tenant = ctx.bootstrap();
    let mut provider = Provider::start();
    provider.sign_in().await;
    // The provider says grace's address is ada's: the user with that email in acme.test is the one signed in.
    let mappings = r#"{"email": "missing, email_for_acme"}"#;
    let strategy = registered_strategy(&ctx, &provider, &["--info-mappings", mappings]).await;
    provider
        .backend
        .execute(
            "UPDATE \"user\" SET email = $1 WHERE email = $2",
            &[EMAIL, IDP_EMAIL],
        )
        .await;
    let server = AuthServer::start(&ctx.backend, &[]);
    let response = login(&server, &provider, &strategy).await;
    // `email_for_acme` does not exist in the provider's profile and `missing` neither: no email, refused.
    assert_failure(&response);
    assert!(server.logged("no email").await, "{}", server.log());

    let strategy = registered_strategy(
        &ctx,
        &provider,
        &["--info-mappings", r#"{"email": "missing,email"}"#],
    )
    .await;
    let response = login(&server, &provider, &strategy).await;
    assert_eq!(response.status, StatusCode::SEE_OTHER, "{}", server.log());
    let ada = ctx.user(&tenant.user_id).await;
    assert_eq!(ada.login_count, 1, "ada herself signed in");
}

pub async fn oauth2_refusals(ctx: Ctx) {
    ctx.bootstrap();
    ctx.cli(&[
        "authority",
        "add",
        "--domain",
        "other.test",
        "--name",
        "Other",
    ]);
    let mut provider = Provider::start();
    provider.sign_in().await;
    let strategy = registered_strategy(&ctx, &provider, &[]).await;
    let server = AuthServer::start(&ctx.backend, &[]);

    // The answer carries another state: 401, and the login is still under way for the real answer.
    let (start, cookie) = start_login(&server, &strategy, HOST).await;
    let back = provider.authorize(start.header("location").unwrap()).await;
    let state = query_param(&back, "state").unwrap();
    let forged = back.replace(&format!("state={state}"), "state=forged");
    let response = callback(&server, &forged, &cookie).await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    assert_eq!(response.json(), json!({ "error": "oauth state mismatch" }));
    // No session at all (another browser): the same.
    let response = callback(&server, &back, "").await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    let response = callback(&server, &back, &cookie).await;
    assert_eq!(response.status, StatusCode::SEE_OTHER, "{}", server.log());
    // The same answer again: the new session holds no login under way; an old copy of the cookie still does, but
    // the provider redeems a code once.
    let signed = cookie_pair(&response.set_cookie("_coauth_session").unwrap());
    assert_eq!(
        callback(&server, &back, &signed).await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_failure(&callback(&server, &back, &cookie).await);

    // The provider answers an error.
    let (start, cookie) = start_login(&server, &strategy, HOST).await;
    let state = query_param(start.header("location").unwrap(), "state").unwrap();
    let denied = format!(
        "http://{HOST}/auth/oauth2/callback?id={strategy}&error=access_denied&state={state}"
    );
    assert_failure(&callback(&server, &denied, &cookie).await);
    assert!(server.logged("access_denied").await);

    // A forged code: the provider refuses it at the token endpoint.
    let (start, cookie) = start_login(&server, &strategy, HOST).await;
    let state = query_param(start.header("location").unwrap(), "state").unwrap();
    let forged =
        format!("http://{HOST}/auth/oauth2/callback?id={strategy}&code=forged&state={state}");
    assert_failure(&callback(&server, &forged, &cookie).await);
    assert!(server.logged("invalid_grant").await, "{}", server.log());

    // ensure_matching: grace's address is not one of acme's.
    let picky = registered_strategy(
        &ctx,
        &provider,
        &["--ensure-matching", r#"{"email": ["@acme\\.test$"]}"#],
    )
    .await;
    assert_failure(&login(&server, &provider, &picky).await);
    assert!(server.logged("ensure_matching: email matches none").await);

    // A strategy of acme.test started or answered on other.test: refused (tenant isolation).
    let (start, cookie) = start_login(&server, &strategy, "other.test").await;
    assert_failure(&start);
    assert!(server.logged("belongs to another authority").await);
    let response = server
        .http
        .get(
            &format!("/auth/oauth2/callback?id={strategy}&code=x&state=y"),
            "other.test",
            &[("cookie", &cookie)],
        )
        .await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    // An unknown strategy.
    let (start, _) = start_login(&server, "0123abcd", HOST).await;
    assert_failure(&start);
}

/// A provider whose token endpoint redirects (to a URL that counts visits), and one that never answers.
pub async fn oauth2_misbehaving_providers(ctx: Ctx) {
    ctx.bootstrap();
    let visits = Arc::new(AtomicUsize::new(0));
    let counter = visits.clone();
    let trap = axum::Router::new().route(
        "/elsewhere",
        axum::routing::any(move || async move {
            counter.fetch_add(1, Ordering::SeqCst);
            "{}"
        }),
    );
    let trap_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let trap_url = format!("http://{}/elsewhere", trap_listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(trap_listener, trap).await });
    let target = trap_url.clone();
    let redirecting = axum::Router::new().route(
        "/token",
        axum::routing::post(move || async move {
            (StatusCode::TEMPORARY_REDIRECT, [("location", target)], "")
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let redirecting_site = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, redirecting).await });
    // Accepts connections and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_site = format!("http://{}", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let server = AuthServer::start(&ctx.backend, &[("SSO_PROVIDER_TIMEOUT_SECONDS", "1")]);

    for (site, expected) in [
        (&redirecting_site, "a redirect, not followed"),
        (&silent_site, "no answer within 1s"),
    ] {
        let strategy = add_strategy(
            &ctx,
            site,
            &["--token-url", "/token", "--raw-info-url", "/me"],
        );
        let (start, cookie) = start_login(&server, &strategy, HOST).await;
        let state = query_param(start.header("location").unwrap(), "state").unwrap();
        let back = format!("http://{HOST}/auth/oauth2/callback/{strategy}?code=c&state={state}");
        assert_failure(&callback(&server, &back, &cookie).await);
        assert!(
            server.logged(expected).await,
            "{expected}: {}",
            server.log()
        );
    }
    assert_eq!(
        visits.load(Ordering::SeqCst),
        0,
        "the redirect was not followed"
    );
}

/// `auth oauth2 add` validates what it stores and prints the row (never the secret).
pub async fn oauth2_add_command(ctx: Ctx) {
    ctx.bootstrap();
    let row: Value = ctx.cli(&[
        "oauth2",
        "add",
        "--domain",
        HOST,
        "--name",
        "GitHub",
        "--client-id",
        "cid",
        "--client-secret",
        "s3cret",
        "--site",
        "https://github.com/",
        "--token-url",
        "/login/oauth/access_token",
        "--raw-info-url",
        "https://api.github.com/user",
        "--scope",
        "user:email",
        "--info-mappings",
        r#"{"email":"email,emails[0]"}"#,
    ]);
    assert_eq!(row["site"], "https://github.com");
    assert_eq!(row["authorize_url"], "/oauth/authorize");
    assert_eq!(row["auth_scheme"], "request_body");
    assert!(row["id"].as_str().is_some_and(|id| id.len() == 32));
    assert!(!row.to_string().contains("s3cret"));
    let stored = ctx
        .backend
        .store()
        .await
        .oauth_strategy_by_id(row["id"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.client_secret, "s3cret");
    assert_eq!(stored.info_mappings, json!({"email": "email,emails[0]"}));
    let base = [
        "oauth2",
        "add",
        "--domain",
        HOST,
        "--name",
        "x",
        "--client-id",
        "c",
        "--client-secret",
        "s",
        "--site",
    ];
    for (extra, message) in [
        (
            &["https://idp.test", "--auth-scheme", "digest"][..],
            "--auth-scheme",
        ),
        (
            &["https://idp.test", "--info-mappings", "[1]"][..],
            "--info-mappings",
        ),
        (
            &["https://idp.test", "--ensure-matching", r#"{"email":"("}"#][..],
            "ensure_matching.email",
        ),
        (&["not a url"][..], "site"),
        (&["ftp://idp.test"][..], "scheme ftp"),
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let error = ctx.backend.cli(&[], &args).expect_err("refused");
        assert!(error.contains(message), "{extra:?}: {error}");
    }
    let error = ctx
        .backend
        .cli(
            &[],
            &[
                "oauth2",
                "add",
                "--domain",
                "nope.test",
                "--name",
                "x",
                "--client-id",
                "c",
                "--client-secret",
                "s",
                "--site",
                "https://idp.test",
            ],
        )
        .expect_err("unknown authority");
    assert!(error.contains("no authority"), "{error}");
}
