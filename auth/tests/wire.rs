//! The wire protocol of `docs/auth-wire.md`, driven over a socket against the real binary.
//!
//! Every scenario body runs twice: on the embedded SQLite store and on a fresh database of a real PostgreSQL
//! cluster started here; login events go to a real Redis started here. A custom harness (libtest-mimic) owns those
//! servers, so they start once and stop when the run ends.

mod agents;
mod assets;
mod fleet;
mod python;
mod sso;
mod support;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agents::{
    metadata_documents_lead_agents_to_registration, registered_clients_run_the_code_flow,
    registration_limit_per_address, registration_refusals, webfinger_names_the_issuer,
};
use assets::asset_cookie_follows_sign_in_and_logout;
use base64::Engine;
use hyper::StatusCode;
use libtest_mimic::{Arguments, Trial};
use serde_json::json;
use sso::{
    oauth2_add_command, oauth2_login_creates_then_matches_the_user,
    oauth2_login_links_an_existing_user_by_email, oauth2_login_over_https,
    oauth2_login_through_oidc_provider, oauth2_misbehaving_providers, oauth2_refusals,
    saml_fingerprint_strategy_and_add_command, saml_login_and_its_refusals,
    token_exchange_with_oidc_provider,
};
use support::postgres::Postgres;
use support::redis_server::RedisServer;
use support::server::{AuthServer, Backend, command};

const HOST: &str = "acme.test";
const EMAIL: &str = "ada@acme.test";
const PASSWORD: &str = "correct horse battery";
const LOGIN_URL: &str = "https://acme.test/login?to={{url}}";
const LOGOUT_URL: &str = "https://acme.test/bye";

/// What a scenario gets: its own store, and the shared Redis when there is one.
struct Ctx {
    backend: Backend,
    redis: Option<Arc<RedisServer>>,
}

/// The bootstrapped tenant.
struct Tenant {
    user_id: String,
}

impl Ctx {
    fn cli(&self, args: &[&str]) -> serde_json::Value {
        self.backend
            .cli(&[], args)
            .unwrap_or_else(|e| panic!("auth {args:?}: {e}"))
    }

    /// `acme.test` with login and logout pages, and the user ada.
    fn bootstrap(&self) -> Tenant {
        self.cli(&[
            "authority",
            "add",
            "--domain",
            HOST,
            "--name",
            "Acme",
            "--login-url",
            LOGIN_URL,
            "--logout-url",
            LOGOUT_URL,
        ]);
        let user = self.cli(&[
            "user",
            "add",
            "--domain",
            HOST,
            "--email",
            EMAIL,
            "--password",
            PASSWORD,
            "--name",
            "Ada",
        ]);
        Tenant {
            user_id: user["id"].as_str().unwrap().into(),
        }
    }

    async fn user(&self, id: &str) -> auth::store::User {
        self.backend
            .store()
            .await
            .user_by_id(id)
            .await
            .expect("store")
            .expect("user exists")
    }
}

type Body = Pin<Box<dyn Future<Output = ()>>>;
/// A scenario: its name and its body.
type Scenario = (&'static str, fn(Ctx) -> Body);

macro_rules! scenarios {
    ($($name:ident),* $(,)?) => {
        &[$((stringify!($name), |ctx| Box::pin($name(ctx)) as Body)),*]
    };
}

const SCENARIOS: &[Scenario] = scenarios![
    signin_sets_the_session_cookie,
    signin_failures,
    session_lifetime_and_production_attributes,
    logout_ends_every_older_session,
    login_redirects,
    open_redirects_are_refused,
    admin_commands,
    api_keys,
    api_keys_fall_back_to_svc_uri,
    bearer_tokens_and_jwks,
    client_credentials_tokens,
    discovery_documents,
    userinfo_answers_for_valid_tokens_only,
    authorization_code_flow,
    authorization_code_refusals,
    refresh_revoke_and_introspect,
    refresh_replay_after_the_grace_window,
    login_event_reaches_a_subscriber,
    redis_down_login_still_succeeds,
    throttling_answers_429,
    probes_and_tenancy,
    oauth2_login_creates_then_matches_the_user,
    oauth2_login_links_an_existing_user_by_email,
    oauth2_refusals,
    oauth2_misbehaving_providers,
    oauth2_add_command,
    oauth2_login_through_oidc_provider,
    oauth2_login_over_https,
    saml_login_and_its_refusals,
    saml_fingerprint_strategy_and_add_command,
    webfinger_names_the_issuer,
    metadata_documents_lead_agents_to_registration,
    registered_clients_run_the_code_flow,
    registration_refusals,
    registration_limit_per_address,
    asset_cookie_follows_sign_in_and_logout,
    token_exchange_with_oidc_provider,
];

fn main() {
    let args = Arguments::from_args();
    let pg = Postgres::start().map(Arc::new);
    let redis = RedisServer::start().map(Arc::new);
    let mut trials = Vec::new();
    for &(name, body) in SCENARIOS {
        let redis_for_sqlite = redis.clone();
        trials.push(Trial::test(format!("sqlite::{name}"), move || {
            run(async move {
                body(Ctx {
                    backend: Backend::sqlite(),
                    redis: redis_for_sqlite,
                })
                .await
            });
            Ok(())
        }));
        if let Some(pg) = pg.clone() {
            let redis = redis.clone();
            trials.push(Trial::test(format!("postgres::{name}"), move || {
                run(async move {
                    body(Ctx {
                        backend: Backend::postgres(pg).await,
                        redis,
                    })
                    .await
                });
                Ok(())
            }));
        }
    }
    if let Some(pg) = pg.clone() {
        let fleet_pg = pg.clone();
        trials.push(Trial::test(
            "postgres::legacy_schema_serves_unchanged",
            move || {
                run(legacy_schema_serves_unchanged(pg));
                Ok(())
            },
        ));
        trials.push(Trial::test(
            "fleet::three_replicas_behave_as_one",
            move || {
                run(fleet::three_replicas_behave_as_one(fleet_pg));
                Ok(())
            },
        ));
    }
    trials.push(Trial::test(
        "nginx::serves_assets_to_verified_browsers",
        || {
            run(assets::nginx_serves_assets_to_verified_browsers());
            Ok(())
        },
    ));
    trials.push(Trial::test("cli::health_check_exit_codes", || {
        run(health_check_exit_codes());
        Ok(())
    }));
    trials.push(Trial::test("cli::env_docs_and_production_refusals", || {
        run(env_docs_and_production_refusals());
        Ok(())
    }));
    trials.extend(python::trials());
    let conclusion = libtest_mimic::run(&args, trials);
    // The servers stop before the process exits (exit() skips destructors).
    drop((pg, redis));
    conclusion.exit();
}

fn run<F: Future<Output = ()>>(future: F) {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(future)
}

/// Asserts a legacy error answer: `status` with `{"error": message}`.
fn assert_error(response: &support::http::Response, status: StatusCode, message: &str) {
    assert_eq!(response.status, status, "{}", response.body);
    assert_eq!(response.json(), json!({ "error": message }));
}

/// `name=value` of a `Set-Cookie` line, as a `Cookie` header sends it back.
fn cookie_pair(set_cookie: &str) -> String {
    set_cookie.split(';').next().unwrap().to_string()
}

async fn sign_in(
    server: &AuthServer,
    host: &str,
    email: &str,
    password: &str,
) -> support::http::Response {
    server
        .http
        .post_json(
            "/auth/signin",
            host,
            &[],
            json!({ "email": email, "password": password }),
        )
        .await
}

/// Signs in as ada; the `Cookie` header value of the new session.
async fn session_cookie(server: &AuthServer) -> String {
    let response = sign_in(server, HOST, EMAIL, PASSWORD).await;
    assert_eq!(response.status, StatusCode::ACCEPTED, "{}", response.body);
    cookie_pair(
        &response
            .set_cookie("_coauth_session")
            .expect("session cookie"),
    )
}

/// Signs ada in and out again, which ends every session and token issued before.
async fn log_out(server: &AuthServer) {
    let cookie = session_cookie(server).await;
    let response = server
        .http
        .get("/auth/logout", HOST, &[("cookie", &cookie)])
        .await;
    assert_eq!(response.status, StatusCode::FOUND);
}

async fn signed_in(server: &AuthServer, cookie: &str) -> bool {
    let response = server
        .http
        .get("/auth/authority", HOST, &[("cookie", cookie)])
        .await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.body);
    response.json()["session"].as_bool().expect("session flag")
}

async fn signin_sets_the_session_cookie(ctx: Ctx) {
    let tenant = ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    // Email matching is case-insensitive.
    let response = sign_in(&server, HOST, "Ada@ACME.test", PASSWORD).await;
    assert_eq!(response.status, StatusCode::ACCEPTED, "{}", response.body);
    assert_eq!(response.body, "");
    let set_cookie = response
        .set_cookie("_coauth_session")
        .expect("session cookie");
    let attributes: Vec<&str> = set_cookie.split("; ").skip(1).collect();
    for expected in ["HttpOnly", "SameSite=Lax", "Path=/auth", "Max-Age=1800"] {
        assert!(
            attributes.contains(&expected),
            "{expected} missing from {set_cookie}"
        );
    }
    assert!(
        attributes.iter().any(|a| a.starts_with("Expires=")),
        "{set_cookie}"
    );
    assert!(
        !attributes.contains(&"Secure"),
        "no Secure outside production: {set_cookie}"
    );
    let cookie = cookie_pair(&set_cookie);
    assert!(signed_in(&server, &cookie).await);
    assert!(!signed_in(&server, "_coauth_session=forged").await);
    let mut tampered = cookie.clone().into_bytes();
    let last = tampered.len() - 2;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    assert!(!signed_in(&server, &String::from_utf8(tampered).unwrap()).await);

    let user = ctx.user(&tenant.user_id).await;
    assert_eq!(user.login_count, 1);
    assert!(
        user.last_login
            .is_some_and(|at| (chrono::Utc::now() - at).num_seconds() < 60)
    );

    // A form with `continue` answers 303 there, and rotates the session: a new cookie, still valid.
    let form = [
        ("email", EMAIL),
        ("password", PASSWORD),
        ("continue", "/app.html"),
    ];
    let response = server
        .http
        .post_form("/auth/signin", HOST, &[("cookie", &cookie)], &form)
        .await;
    assert_eq!(response.status, StatusCode::SEE_OTHER, "{}", response.body);
    assert_eq!(response.header("location"), Some("/app.html"));
    let rotated = cookie_pair(&response.set_cookie("_coauth_session").unwrap());
    assert_ne!(rotated, cookie);
    assert!(signed_in(&server, &rotated).await);
    assert_eq!(ctx.user(&tenant.user_id).await.login_count, 2);

    let log = server.log();
    assert_eq!(
        log.matches("KVSTORE_URL is unset").count(),
        1,
        "one warning without Redis:\n{log}"
    );
    for secret in [
        PASSWORD,
        &cookie["_coauth_session=".len()..],
        &rotated["_coauth_session=".len()..],
    ] {
        assert!(!log.contains(secret), "a secret reached the log:\n{log}");
    }
    assert!(
        log.contains(&tenant.user_id),
        "sign-ins are logged by user id:\n{log}"
    );
}

async fn signin_failures(ctx: Ctx) {
    let tenant = ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    let refused = json!({ "error": "invalid email or password" });
    for (email, password) in [
        (EMAIL, "wrong"),
        ("nobody@acme.test", PASSWORD),
        (EMAIL, &"x".repeat(100)),
    ] {
        let response = sign_in(&server, HOST, email, password).await;
        assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{email}");
        assert_eq!(response.json(), refused);
        assert!(response.set_cookie("_coauth_session").is_none());
    }
    let missing = server
        .http
        .post_json("/auth/signin", HOST, &[], json!({ "email": EMAIL }))
        .await;
    assert_error(
        &missing,
        StatusCode::UNPROCESSABLE_ENTITY,
        "email and password are required",
    );
    let missing = server
        .http
        .post_form("/auth/signin", HOST, &[], &[("password", PASSWORD)])
        .await;
    assert_eq!(missing.status, StatusCode::UNPROCESSABLE_ENTITY);
    let plain = server
        .http
        .send(
            hyper::Method::POST,
            "/auth/signin",
            HOST,
            &[],
            Some(("text/plain", "x".into())),
        )
        .await;
    assert_eq!(plain.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);

    // A browser form (it sends `continue`) goes back to the page it came from, if that page is ours.
    let form = [
        ("email", EMAIL),
        ("password", "wrong"),
        ("continue", "/app.html"),
    ];
    let back = server
        .http
        .post_form(
            "/auth/signin",
            HOST,
            &[("referer", "https://acme.test/signin.html")],
            &form,
        )
        .await;
    assert_eq!(back.status, StatusCode::SEE_OTHER);
    assert_eq!(
        back.header("location"),
        Some("https://acme.test/signin.html")
    );
    let back = server
        .http
        .post_form(
            "/auth/signin",
            HOST,
            &[("referer", "https://evil.test/")],
            &form,
        )
        .await;
    assert_eq!(back.header("location"), Some("/auth/failure"));

    let other_host = sign_in(&server, "evil.test", EMAIL, PASSWORD).await;
    assert_error(
        &other_host,
        StatusCode::NOT_FOUND,
        "authority not found for host evil.test",
    );

    ctx.backend
        .execute(
            "UPDATE \"user\" SET deleted = true WHERE id = $1",
            &[&tenant.user_id],
        )
        .await;
    let deleted = sign_in(&server, HOST, EMAIL, PASSWORD).await;
    assert_eq!(deleted.status, StatusCode::UNAUTHORIZED);
    assert_eq!(deleted.json(), refused);
    assert_eq!(ctx.user(&tenant.user_id).await.login_count, 0);
    assert!(!server.log().contains(PASSWORD));
}

async fn session_lifetime_and_production_attributes(ctx: Ctx) {
    ctx.bootstrap();
    ctx.cli(&[
        "authority",
        "add",
        "--domain",
        "short.test",
        "--name",
        "Short",
        "--session-timeout",
        "5",
    ]);
    ctx.cli(&[
        "user",
        "add",
        "--domain",
        "short.test",
        "--email",
        EMAIL,
        "--password",
        PASSWORD,
    ]);
    let key = base64::engine::general_purpose::STANDARD
        .encode(include_str!("fixtures/production_jwt_key.pem"));
    let secret = "0123456789abcdef0123456789abcdef-shared";
    let production = [
        ("APP_ENV", "production"),
        ("JWT_SECRET", key.as_str()),
        ("COOKIE_SESSION_SECRET", secret),
    ];
    let server = AuthServer::start(&ctx.backend, &production);

    let short = sign_in(&server, "short.test", EMAIL, PASSWORD).await;
    let set_cookie = short.set_cookie("_coauth_session").expect("cookie");
    assert!(
        set_cookie.contains("; Max-Age=300"),
        "internals.session_timeout wins: {set_cookie}"
    );
    let set_cookie = sign_in(&server, HOST, EMAIL, PASSWORD)
        .await
        .set_cookie("_coauth_session")
        .expect("cookie");
    for expected in [
        "Max-Age=1800",
        "Secure",
        "SameSite=None",
        "HttpOnly",
        "Path=/auth",
    ] {
        assert!(
            set_cookie.split("; ").any(|a| a == expected),
            "{expected} missing from {set_cookie}"
        );
    }
    let cookie = cookie_pair(&set_cookie);
    let authority = server
        .http
        .get("/auth/authority", HOST, &[("cookie", &cookie)])
        .await
        .json();
    assert_eq!(
        (
            authority["session"].clone(),
            authority["production"].clone()
        ),
        (json!(true), json!(true))
    );
    assert!(authority.get("internals").is_none());
    // A cookie of acme.test does not open a session on short.test.
    let other = server
        .http
        .get("/auth/authority", "short.test", &[("cookie", &cookie)])
        .await
        .json();
    assert_eq!(other["session"], json!(false));

    // Another replica with the same secret accepts the cookie; one with a random key does not.
    let replica = AuthServer::start(&ctx.backend, &production);
    assert!(signed_in(&replica, &cookie).await);
    let stranger = AuthServer::start(&ctx.backend, &[]);
    assert!(!signed_in(&stranger, &cookie).await);
}

async fn logout_ends_every_older_session(ctx: Ctx) {
    let tenant = ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    let first = session_cookie(&server).await;
    let second = session_cookie(&server).await;
    assert!(signed_in(&server, &first).await && signed_in(&server, &second).await);

    let response = server
        .http
        .get("/auth/logout", HOST, &[("cookie", &second)])
        .await;
    assert_eq!(response.status, StatusCode::FOUND);
    assert_eq!(response.header("location"), Some("/"));
    let cleared = response
        .set_cookie("_coauth_session")
        .expect("cookie cleared");
    assert!(
        cleared.contains("Max-Age=0") && cleared.contains("Path=/auth"),
        "{cleared}"
    );
    let user = ctx.user(&tenant.user_id).await;
    assert!(
        user.logged_out_at
            .is_some_and(|at| (chrono::Utc::now() - at).num_seconds() < 60)
    );
    assert!(!signed_in(&server, &first).await, "older sessions end too");
    assert!(!signed_in(&server, &second).await);
    let third = session_cookie(&server).await;
    assert!(
        signed_in(&server, &third).await,
        "a new sign-in works after logout"
    );

    let cross = server
        .http
        .get("/auth/logout?continue=https://evil.test/", HOST, &[])
        .await;
    assert_eq!(cross.header("location"), Some(LOGOUT_URL));
    let local = server
        .http
        .get("/auth/logout?continue=/see-you.html", HOST, &[])
        .await;
    assert_eq!(local.header("location"), Some("/see-you.html"));
}

async fn login_redirects(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    let cases = [
        (
            "/auth/login?continue=/app.html",
            StatusCode::SEE_OTHER,
            Some("https://acme.test/login?to=%2Fapp.html"),
        ),
        (
            "/auth/login",
            StatusCode::SEE_OTHER,
            Some("https://acme.test/login?to=%2F"),
        ),
        (
            "/auth/login?continue=https://evil.test/x.html",
            StatusCode::SEE_OTHER,
            Some("https://acme.test/login?to=%2F"),
        ),
        (
            "/auth/login?continue=/static/app.js",
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            "/auth/login?provider=ldap&id=x",
            StatusCode::BAD_REQUEST,
            None,
        ),
        (
            "/auth/login?provider=oauth2&id=strat-1&continue=/app.html",
            StatusCode::SEE_OTHER,
            Some("/auth/oauth2?id=strat-1"),
        ),
        (
            "/auth/login?provider=saml&id=adfs1",
            StatusCode::SEE_OTHER,
            Some("/auth/saml?id=adfs1"),
        ),
    ];
    for (path, status, location) in cases {
        let response = server.http.get(path, HOST, &[]).await;
        assert_eq!(response.status, status, "{path}: {}", response.body);
        assert_eq!(response.header("location"), location, "{path}");
    }
    let external = server
        .http
        .get(
            "/auth/login?provider=oauth2&id=s1&continue=/a.html",
            HOST,
            &[],
        )
        .await;
    assert!(
        external.set_cookie("_coauth_session").is_some(),
        "continue is kept in the session"
    );
}

async fn open_redirects_are_refused(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    let attacks = [
        "//evil.test/",
        "/\\evil.test",
        "\\\\evil.test",
        "https://evil.test/",
        "https://acme.test@evil.test/",
        "https://acme.test.evil.test/",
        "javascript:alert(1)",
        "/\t/evil.test",
        "http:evil.test",
        "https:/evil.test",
    ];
    for attack in attacks {
        let form = [
            ("email", EMAIL),
            ("password", PASSWORD),
            ("continue", attack),
        ];
        let response = server
            .http
            .post_form("/auth/signin", HOST, &[], &form)
            .await;
        assert_eq!(response.status, StatusCode::SEE_OTHER, "{attack:?}");
        assert_eq!(response.header("location"), Some("/"), "{attack:?}");
    }
    let form = [
        ("email", EMAIL),
        ("password", PASSWORD),
        ("continue", "https://acme.test/ok.html?x=1"),
    ];
    let response = server
        .http
        .post_form("/auth/signin", HOST, &[], &form)
        .await;
    assert_eq!(
        response.header("location"),
        Some("https://acme.test/ok.html?x=1")
    );
}

async fn admin_commands(ctx: Ctx) {
    ctx.bootstrap();
    let confidential = ctx.cli(&[
        "client",
        "add",
        "--domain",
        HOST,
        "--name",
        "App",
        "--redirect-uri",
        "https://app.test/cb",
        "--redirect-uri",
        "https://app.test/cb2",
        "--scopes",
        "public openid",
    ]);
    assert_eq!(confidential["client_id"].as_str().map(str::len), Some(32));
    assert_eq!(
        confidential["client_secret"].as_str().map(str::len),
        Some(64)
    );
    assert_eq!(
        confidential["redirect_uris"],
        json!(["https://app.test/cb", "https://app.test/cb2"])
    );
    assert_eq!(
        (
            confidential["scopes"].clone(),
            confidential["confidential"].clone()
        ),
        (json!("public openid"), json!(true))
    );
    let public = ctx.cli(&[
        "client",
        "add",
        "--domain",
        HOST,
        "--name",
        "Spa",
        "--redirect-uri",
        "https://spa.test/",
        "--public",
    ]);
    assert!(
        public.get("client_secret").is_none(),
        "a public client has no secret: {public}"
    );
    let key = ctx.cli(&[
        "apikey",
        "add",
        "--domain",
        HOST,
        "--email",
        EMAIL,
        "--scopes",
        "read write",
    ]);
    assert_eq!(key["scopes"], json!(["read", "write"]));
    assert!(
        key["key"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}.", key["id"].as_str().unwrap()))
    );
    for (args, message) in [
        (
            &[
                "client",
                "add",
                "--domain",
                "nowhere.test",
                "--name",
                "X",
                "--redirect-uri",
                "https://x.test/",
            ][..],
            "no authority",
        ),
        (
            &[
                "client",
                "add",
                "--domain",
                HOST,
                "--name",
                "X",
                "--redirect-uri",
                "https://x.test/#f",
            ],
            "fragment",
        ),
        (
            &[
                "user",
                "add",
                "--domain",
                HOST,
                "--email",
                "long@acme.test",
                "--password",
                &"p".repeat(73),
            ],
            "72 bytes",
        ),
        (
            &[
                "apikey",
                "add",
                "--domain",
                HOST,
                "--email",
                "nobody@acme.test",
            ],
            "no user",
        ),
        (
            &["authority", "add", "--domain", HOST, "--name", "Again"],
            "database",
        ),
    ] {
        let error = ctx.backend.cli(&[], args).expect_err("refused");
        assert!(error.contains(message), "{args:?}: {error}");
    }
}

async fn api_keys(ctx: Ctx) {
    ctx.bootstrap();
    let key = ctx.cli(&["apikey", "add", "--domain", HOST, "--email", EMAIL])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let expired = ctx.cli(&[
        "apikey",
        "add",
        "--domain",
        HOST,
        "--email",
        EMAIL,
        "--expires-at",
        "2020-01-01T00:00:00Z",
    ])["key"]
        .as_str()
        .unwrap()
        .to_string();
    ctx.cli(&[
        "authority",
        "add",
        "--domain",
        "other.test",
        "--name",
        "Other",
    ]);
    ctx.cli(&[
        "user",
        "add",
        "--domain",
        "other.test",
        "--email",
        EMAIL,
        "--password",
        PASSWORD,
    ]);
    let foreign = ctx.cli(&["apikey", "add", "--domain", "other.test", "--email", EMAIL])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let server = AuthServer::start(&ctx.backend, &[]);

    let token_valid = |response: support::http::Response| {
        assert_eq!(response.status, StatusCode::OK, "{}", response.body);
        response.json()["token_valid"].as_bool().unwrap()
    };
    assert!(token_valid(
        server
            .http
            .get("/auth/authority", HOST, &[("x-api-key", &key)])
            .await
    ));
    assert!(token_valid(
        server
            .http
            .get(&format!("/auth/authority?api-key={key}"), HOST, &[])
            .await
    ));
    assert!(token_valid(
        server
            .http
            .get(
                "/auth/authority",
                HOST,
                &[("cookie", &format!("api-key={key}"))]
            )
            .await
    ));
    assert!(!token_valid(
        server.http.get("/auth/authority", HOST, &[]).await
    ));

    let (id, _) = key.split_once('.').unwrap();
    let unknown = json!({ "error": "unknown X-API-Key" });
    for bad in [
        format!("{id}.wrongsecret"),
        "no-dot".into(),
        format!("{id}."),
        "a/b.c".into(),
        foreign,
    ] {
        let response = server
            .http
            .get("/auth/authority", HOST, &[("x-api-key", &bad)])
            .await;
        assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{bad}");
        assert_eq!(response.json(), unknown, "{bad}");
    }
    let response = server
        .http
        .get("/auth/authority", HOST, &[("x-api-key", &expired)])
        .await;
    assert_error(&response, StatusCode::UNAUTHORIZED, "API key has expired");
    let log = server.log();
    assert!(
        !log.contains(key.split_once('.').unwrap().1),
        "an API key secret reached the log"
    );
}

/// The claims of an access token for ada (user `sub`) on `aud`, as the token endpoint issues them.
fn user_claims(sub: &str, aud: &str, iat: i64, exp: i64) -> auth::tokens::AccessClaims {
    auth::tokens::AccessClaims {
        iss: "POS".into(),
        iat,
        exp,
        jti: auth::ids::new_id(),
        aud: Some(aud.into()),
        scope: vec!["public".into()],
        sub: sub.into(),
        u: Some(auth::tokens::UserClaims {
            n: "Ada".into(),
            e: EMAIL.into(),
            p: 0,
            r: vec![],
        }),
    }
}

async fn bearer_tokens_and_jwks(ctx: Ctx) {
    use auth::tokens::TokenKeys;
    let tenant = ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    let keys = TokenKeys::from_pem(auth::config::DEVELOPMENT_JWT_KEY_PEM).unwrap();
    let jwks = server
        .http
        .get("/auth/oauth/discovery/keys", HOST, &[])
        .await;
    assert_eq!(jwks.status, StatusCode::OK);
    assert_eq!(jwks.json(), keys.jwks());
    // The public PEM the HS256 forgeries are keyed with is the development key's public half.
    let public =
        jsonwebtoken::DecodingKey::from_rsa_pem(include_bytes!("fixtures/dev_jwt_public.pem"))
            .unwrap();
    let public = jsonwebtoken::jwk::Jwk::from_decoding_key(&public, None).unwrap();
    let public = serde_json::to_value(public).unwrap();
    assert_eq!(public["n"], jwks.json()["keys"][0]["n"]);

    let now = chrono::Utc::now().timestamp();
    let claims = |aud: &str, iat: i64, exp: i64| user_claims(&tenant.user_id, aud, iat, exp);
    let token_valid = |token: String| {
        let http = server.http.clone();
        async move {
            let bearer = format!("Bearer {token}");
            let response = http
                .get("/auth/authority", HOST, &[("authorization", &bearer)])
                .await;
            assert_eq!(response.status, StatusCode::OK, "{}", response.body);
            response.json()["token_valid"].as_bool().unwrap()
        }
    };
    let valid = keys.sign(&claims(HOST, now - 5, now + 600)).unwrap();
    assert!(token_valid(valid.clone()).await);
    assert!(
        !token_valid(
            keys.sign(&claims("other.test", now - 5, now + 600))
                .unwrap()
        )
        .await,
        "another authority"
    );
    assert!(
        !token_valid(keys.sign(&claims(HOST, now - 7200, now - 600)).unwrap()).await,
        "expired"
    );
    let foreign = TokenKeys::from_pem(include_str!("fixtures/production_jwt_key.pem")).unwrap();
    assert!(
        !token_valid(foreign.sign(&claims(HOST, now - 5, now + 600)).unwrap()).await,
        "another key"
    );
    let (header, rest) = valid.split_once('.').unwrap();
    let payload = rest.split_once('.').unwrap().0;
    let none_header =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#);
    assert!(
        !token_valid(format!("{none_header}.{payload}.")).await,
        "alg none"
    );
    assert!(
        !token_valid(format!("{header}.{payload}.AAAA")).await,
        "bad signature"
    );

    // Logout revokes a presented Bearer token, and only that one.
    let presented = keys.sign(&claims(HOST, now - 5, now + 600)).unwrap();
    let jti = auth::tokens::TokenKeys::from_pem(auth::config::DEVELOPMENT_JWT_KEY_PEM)
        .unwrap()
        .verify(&presented, "POS")
        .unwrap()
        .jti;
    let bearer = format!("Bearer {presented}");
    let logout = server
        .http
        .get("/auth/logout", HOST, &[("authorization", &bearer)])
        .await;
    assert_eq!(logout.status, StatusCode::FOUND);
    assert!(!token_valid(presented.clone()).await, "revoked at logout");
    let row = ctx
        .backend
        .store()
        .await
        .token_by_jti(&jti)
        .await
        .unwrap()
        .expect("revocation recorded");
    assert!(row.revoked_at.is_some());
    server
        .http
        .get("/auth/logout", HOST, &[("authorization", &bearer)])
        .await;
    assert!(
        token_valid(valid.clone()).await,
        "other tokens of the user live on"
    );

    // Logout by the session cookie ends every token issued before it.
    log_out(&server).await;
    assert!(!token_valid(valid).await, "token issued before logout");
}

async fn client_credentials_tokens(ctx: Ctx) {
    use auth::tokens::TokenKeys;
    ctx.bootstrap();
    let add_client = |extra: &[&str]| {
        let mut args = vec![
            "client",
            "add",
            "--domain",
            HOST,
            "--name",
            "Svc",
            "--redirect-uri",
            "https://svc.test/cb",
        ];
        args.extend_from_slice(extra);
        ctx.cli(&args)
    };
    let client = add_client(&["--scopes", "public read"]);
    let (id, secret) = (
        client["client_id"].as_str().unwrap(),
        client["client_secret"].as_str().unwrap(),
    );
    let public = add_client(&["--public"]);
    let server = AuthServer::start(&ctx.backend, &[]);
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"))
    );
    let grant = [("grant_type", "client_credentials")];

    let issued = server
        .http
        .post_form("/auth/token", HOST, &[("authorization", &basic)], &grant)
        .await;
    assert_eq!(issued.status, StatusCode::OK, "{}", issued.body);
    assert_eq!(issued.header("cache-control"), Some("no-store"));
    let body = issued.json();
    assert_eq!(
        (body["token_type"].as_str(), body["expires_in"].as_i64()),
        (Some("Bearer"), Some(7200))
    );
    assert_eq!(body["scope"], "public read");
    let keys = TokenKeys::from_pem(auth::config::DEVELOPMENT_JWT_KEY_PEM).unwrap();
    let token = body["access_token"].as_str().unwrap();
    let claims = keys
        .verify(token, "POS")
        .expect("signed with the configured key");
    assert_eq!(
        (claims.sub.as_str(), claims.aud, claims.u),
        (id, None, None)
    );
    assert_eq!(claims.scope, ["public", "read"]);
    let row = ctx
        .backend
        .store()
        .await
        .token_by_jti(&claims.jti)
        .await
        .unwrap()
        .expect("row written");
    assert_eq!(
        (row.token_type.as_str(), row.client_id.as_deref()),
        ("access", Some(id))
    );
    let bearer = format!("Bearer {token}");
    let authority = server
        .http
        .get("/auth/authority", HOST, &[("authorization", &bearer)])
        .await;
    assert_eq!(authority.json()["token_valid"], json!(true));

    // client_secret_post, a narrower scope, and the legacy alias.
    let post = [
        ("grant_type", "client_credentials"),
        ("client_id", id),
        ("client_secret", secret),
        ("scope", "read"),
    ];
    let narrow = server
        .http
        .post_form("/auth/oauth/token", HOST, &[], &post)
        .await;
    assert_eq!(narrow.status, StatusCode::OK, "{}", narrow.body);
    assert_eq!(narrow.json()["scope"], "read");

    let wrong = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{id}:nope"))
    );
    let public_id = public["client_id"].as_str().unwrap();
    type Pairs<'a> = Vec<(&'a str, &'a str)>;
    let cases: Vec<(Pairs, Pairs, StatusCode, &str)> = vec![
        (
            vec![("authorization", &wrong)],
            grant.to_vec(),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            vec![],
            grant.to_vec(),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            vec![],
            vec![
                ("grant_type", "client_credentials"),
                ("client_id", "unknown"),
            ],
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            vec![],
            vec![
                ("grant_type", "client_credentials"),
                ("client_id", public_id),
            ],
            StatusCode::BAD_REQUEST,
            "unauthorized_client",
        ),
        (
            vec![("authorization", &basic)],
            vec![
                ("grant_type", "password"),
                ("username", EMAIL),
                ("password", PASSWORD),
            ],
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
        ),
        (
            vec![("authorization", &basic)],
            vec![],
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            vec![("authorization", &basic)],
            vec![("grant_type", "client_credentials"), ("scope", "admin")],
            StatusCode::BAD_REQUEST,
            "invalid_scope",
        ),
        (
            vec![("authorization", &basic)],
            vec![
                ("grant_type", "client_credentials"),
                ("client_secret", secret),
            ],
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
    ];
    for (headers, form, status, code) in cases {
        let response = server
            .http
            .post_form("/auth/token", HOST, &headers, &form)
            .await;
        assert_eq!(response.status, status, "{form:?}: {}", response.body);
        assert_eq!(response.json()["error"], code, "{form:?}");
        assert_eq!(response.header("cache-control"), Some("no-store"));
    }
    // A client authenticates only within its own authority.
    ctx.cli(&[
        "authority",
        "add",
        "--domain",
        "other.test",
        "--name",
        "Other",
    ]);
    let elsewhere = server
        .http
        .post_form(
            "/auth/token",
            "other.test",
            &[("authorization", &basic)],
            &grant,
        )
        .await;
    assert_eq!(elsewhere.status, StatusCode::UNAUTHORIZED);
}

async fn discovery_documents(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    let plain = server
        .http
        .get("/.well-known/openid-configuration", HOST, &[])
        .await;
    assert_eq!(plain.status, StatusCode::OK, "{}", plain.body);
    let document = plain.json();
    assert_eq!(document["issuer"], "http://acme.test");
    assert_eq!(document["token_endpoint"], "http://acme.test/auth/token");
    assert_eq!(
        document["jwks_uri"],
        "http://acme.test/auth/oauth/discovery/keys"
    );
    assert_eq!(
        document["id_token_signing_alg_values_supported"],
        json!(["RS256"])
    );
    for alias in [
        "/.well-known/oauth-authorization-server",
        "/auth/.well-known/openid-configuration",
        "/auth/.well-known/oauth-authorization-server",
    ] {
        let response = server.http.get(alias, HOST, &[]).await;
        assert_eq!(response.status, StatusCode::OK, "{alias}");
        assert_eq!(response.json(), document, "{alias}");
    }
    // Behind a TLS-terminating proxy, on a non-default port: the issuer is what the client used.
    let proxied = server
        .http
        .get(
            "/.well-known/openid-configuration",
            "Acme.test:8443",
            &[("x-forwarded-proto", "https")],
        )
        .await;
    assert_eq!(proxied.json()["issuer"], "https://acme.test:8443");
    assert_eq!(
        proxied.json()["userinfo_endpoint"],
        "https://acme.test:8443/auth/userinfo"
    );
    let odd = server
        .http
        .get(
            "/.well-known/openid-configuration",
            HOST,
            &[("x-forwarded-proto", "gopher")],
        )
        .await;
    assert_eq!(odd.json()["issuer"], "http://acme.test");
    // Every document the discovery names is served.
    let jwks = server
        .http
        .get("/auth/oauth/discovery/keys", HOST, &[])
        .await;
    assert_eq!(jwks.status, StatusCode::OK);
    let unknown = server
        .http
        .get("/.well-known/openid-configuration", "nowhere.test", &[])
        .await;
    assert_error(
        &unknown,
        StatusCode::NOT_FOUND,
        "authority not found for host nowhere.test",
    );
}

async fn userinfo_answers_for_valid_tokens_only(ctx: Ctx) {
    use auth::tokens::TokenKeys;
    let tenant = ctx.bootstrap();
    let key = ctx.cli(&["apikey", "add", "--domain", HOST, "--email", EMAIL])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let client = ctx.cli(&[
        "client",
        "add",
        "--domain",
        HOST,
        "--name",
        "Svc",
        "--redirect-uri",
        "https://svc.test/cb",
    ]);
    ctx.cli(&[
        "authority",
        "add",
        "--domain",
        "other.test",
        "--name",
        "Other",
    ]);
    let other_user = ctx.cli(&[
        "user",
        "add",
        "--domain",
        "other.test",
        "--email",
        EMAIL,
        "--password",
        PASSWORD,
    ])["id"]
        .as_str()
        .unwrap()
        .to_string();
    let server = AuthServer::start(&ctx.backend, &[]);
    let keys = TokenKeys::from_pem(auth::config::DEVELOPMENT_JWT_KEY_PEM).unwrap();
    let now = chrono::Utc::now().timestamp();
    let userinfo = |headers: Vec<(&'static str, String)>, path: &'static str| {
        let http = server.http.clone();
        async move {
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
            http.get(path, HOST, &headers).await
        }
    };
    let bearer = |token: String| vec![("authorization", format!("Bearer {token}"))];
    let expected = json!({
        "sub": tenant.user_id,
        "email": EMAIL,
        "full_name": "Ada",
        "preferred_username": EMAIL,
    });

    let token = keys
        .sign(&user_claims(&tenant.user_id, HOST, now - 5, now + 600))
        .unwrap();
    for path in ["/auth/userinfo", "/auth/oauth/userinfo"] {
        let response = userinfo(bearer(token.clone()), path).await;
        assert_eq!(response.status, StatusCode::OK, "{path}: {}", response.body);
        assert_eq!(response.json(), expected, "{path}");
        assert_eq!(response.header("cache-control"), Some("no-store"));
    }
    let by_key = userinfo(vec![("x-api-key", key.clone())], "/auth/userinfo").await;
    assert_eq!(by_key.status, StatusCode::OK, "{}", by_key.body);
    assert_eq!(by_key.json(), expected);

    let service_token = server
        .http
        .post_form(
            "/auth/token",
            HOST,
            &[],
            &[
                ("grant_type", "client_credentials"),
                ("client_id", client["client_id"].as_str().unwrap()),
                ("client_secret", client["client_secret"].as_str().unwrap()),
            ],
        )
        .await
        .json()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let refused: Vec<(&str, Vec<(&'static str, String)>)> = vec![
        ("no token", vec![]),
        ("a client's token", bearer(service_token)),
        (
            "another authority's audience",
            bearer(
                keys.sign(&user_claims(
                    &tenant.user_id,
                    "other.test",
                    now - 5,
                    now + 600,
                ))
                .unwrap(),
            ),
        ),
        (
            "another authority's user",
            bearer(
                keys.sign(&user_claims(&other_user, HOST, now - 5, now + 600))
                    .unwrap(),
            ),
        ),
        (
            "expired",
            bearer(
                keys.sign(&user_claims(&tenant.user_id, HOST, now - 7200, now - 600))
                    .unwrap(),
            ),
        ),
        ("garbage", bearer("not.a.jwt".into())),
        ("alg none", bearer(forged(&token, "none"))),
        (
            "HS256 keyed with the public key",
            bearer(forged(&token, "HS256")),
        ),
        ("wrong API key", vec![("x-api-key", format!("{key}x"))]),
    ];
    for (why, headers) in refused {
        let response = userinfo(headers, "/auth/userinfo").await;
        assert_eq!(
            response.status,
            StatusCode::UNAUTHORIZED,
            "{why}: {}",
            response.body
        );
        assert_eq!(response.json()["error"], "invalid_token", "{why}");
        assert_eq!(response.header("cache-control"), Some("no-store"), "{why}");
        assert!(
            response
                .header("www-authenticate")
                .is_some_and(|v| v.starts_with("Bearer")),
            "{why}"
        );
    }

    // Logout ends every token issued before it (`logged_out_at >= iat`).
    log_out(&server).await;
    let after_logout = userinfo(bearer(token), "/auth/userinfo").await;
    assert_eq!(after_logout.status, StatusCode::UNAUTHORIZED);
    let later = chrono::Utc::now().timestamp() + 1;
    let fresh = keys
        .sign(&user_claims(&tenant.user_id, HOST, later, later + 600))
        .unwrap();
    assert_eq!(
        userinfo(bearer(fresh), "/auth/userinfo").await.status,
        StatusCode::OK,
        "a token issued after the logout"
    );
}

/// `token`'s claims under a header naming `alg` (and the genuine `kid`): `none` unsigned, `HS256` with the
/// server's public key PEM as the HMAC secret (the classic algorithm-confusion forgery).
fn forged(token: &str, alg: &str) -> String {
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let (header, rest) = token.split_once('.').unwrap();
    let payload = rest.split_once('.').unwrap().0;
    let mut header: serde_json::Value =
        serde_json::from_slice(&b64.decode(header).unwrap()).unwrap();
    header["alg"] = alg.into();
    let signing_input = format!("{}.{payload}", b64.encode(header.to_string()));
    match alg {
        "none" => format!("{signing_input}."),
        "HS256" => {
            use hmac::Mac;
            let public_pem = include_str!("fixtures/dev_jwt_public.pem");
            let mut mac =
                hmac::Hmac::<sha2::Sha256>::new_from_slice(public_pem.as_bytes()).unwrap();
            mac.update(signing_input.as_bytes());
            format!(
                "{signing_input}.{}",
                b64.encode(mac.finalize().into_bytes())
            )
        }
        other => panic!("no forgery for {other}"),
    }
}

const APP_REDIRECT: &str = "https://app.test/cb";
const PUBLIC_REDIRECT: &str = "http://127.0.0.1:9/cb";
/// RFC 7636 appendix B's verifier and its S256 challenge, unpadded.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// Registers a confidential client (redirect `APP_REDIRECT`) and a public one (`PUBLIC_REDIRECT`): their
/// `(client_id, client_secret)` and the public client_id.
fn code_flow_clients(ctx: &Ctx) -> (String, String, String) {
    let add = |uri: &str, public: bool| {
        let mut args = vec![
            "client",
            "add",
            "--domain",
            HOST,
            "--name",
            "App",
            "--redirect-uri",
            uri,
        ];
        if public {
            args.push("--public");
        }
        ctx.cli(&args)
    };
    let confidential = add(&format!("{APP_REDIRECT} https://app.test/other"), false);
    let public = add(PUBLIC_REDIRECT, true);
    let text = |v: &serde_json::Value| v.as_str().unwrap().to_string();
    (
        text(&confidential["client_id"]),
        text(&confidential["client_secret"]),
        text(&public["client_id"]),
    )
}

/// `GET /auth/authorize?<query>` with the session `cookie`.
async fn authorize(
    server: &AuthServer,
    cookie: &str,
    query: &[(&str, &str)],
) -> support::http::Response {
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(query)
        .finish();
    server
        .http
        .get(
            &format!("/auth/authorize?{query}"),
            HOST,
            &[("cookie", cookie)],
        )
        .await
}

/// The query parameters of a 302's `Location`, which must start with `redirect`.
fn redirected_to(response: &support::http::Response, redirect: &str) -> Vec<(String, String)> {
    assert_eq!(response.status, StatusCode::FOUND, "{}", response.body);
    let location = url::Url::parse(response.header("location").unwrap()).unwrap();
    assert!(location.as_str().starts_with(redirect), "{location}");
    location.query_pairs().into_owned().collect()
}

fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// Authorizes the confidential client with PKCE; the code.
async fn confidential_code(
    server: &AuthServer,
    cookie: &str,
    client_id: &str,
    scope: &str,
) -> String {
    let response = authorize(
        server,
        cookie,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", APP_REDIRECT),
            ("scope", scope),
            ("code_challenge", CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    )
    .await;
    param(&redirected_to(&response, APP_REDIRECT), "code")
        .unwrap()
        .to_string()
}

async fn authorization_code_flow(ctx: Ctx) {
    use auth::tokens::TokenKeys;
    let tenant = ctx.bootstrap();
    let (client_id, secret, public_id) = code_flow_clients(&ctx);
    let server = AuthServer::start(&ctx.backend, &[]);
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{client_id}:{secret}"))
    );

    // No session: to the login, coming back here afterwards.
    let query = [
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("redirect_uri", APP_REDIRECT),
        ("scope", "openid public"),
        ("state", "st 1/2"),
        ("nonce", "n-0S6_WzA2Mj"),
        // The padded form of the challenge.
        ("code_challenge", &format!("{CHALLENGE}=")),
        ("code_challenge_method", "S256"),
    ];
    let anonymous = authorize(&server, "", &query).await;
    assert_eq!(anonymous.status, StatusCode::SEE_OTHER);
    let login = anonymous.header("location").unwrap();
    assert!(
        login.starts_with("/auth/login?continue=%2Fauth%2Fauthorize%3F"),
        "{login}"
    );

    let cookie = session_cookie(&server).await;
    let granted = redirected_to(&authorize(&server, &cookie, &query).await, APP_REDIRECT);
    assert_eq!(param(&granted, "state"), Some("st 1/2"), "state echoed");
    let code = param(&granted, "code").unwrap().to_string();
    let redeem = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", APP_REDIRECT),
        ("code_verifier", VERIFIER),
    ];
    let issued = server
        .http
        .post_form("/auth/token", HOST, &[("authorization", &basic)], &redeem)
        .await;
    assert_eq!(issued.status, StatusCode::OK, "{}", issued.body);
    assert_eq!(issued.header("cache-control"), Some("no-store"));
    let body = issued.json();
    assert_eq!(body["scope"], "openid public");
    let keys = TokenKeys::from_pem(auth::config::DEVELOPMENT_JWT_KEY_PEM).unwrap();
    let access = body["access_token"].as_str().unwrap().to_string();
    let claims = keys.verify(&access, "POS").unwrap();
    assert_eq!(
        (
            claims.sub.as_str(),
            claims.aud.as_deref(),
            claims.u.unwrap().e.as_str()
        ),
        (tenant.user_id.as_str(), Some(HOST), EMAIL)
    );
    // The ID token, verified as a client does: with the JWKS key, its issuer and our client_id as audience.
    let jwks = server
        .http
        .get("/auth/oauth/discovery/keys", HOST, &[])
        .await
        .json();
    let jwk: jsonwebtoken::jwk::Jwk = serde_json::from_value(jwks["keys"][0].clone()).unwrap();
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_issuer(&["http://acme.test"]);
    validation.set_audience(&[&client_id]);
    let id_token = jsonwebtoken::decode::<serde_json::Value>(
        body["id_token"].as_str().unwrap(),
        &jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap(),
        &validation,
    )
    .expect("ID token verifies")
    .claims;
    let iat = id_token["iat"].as_i64().unwrap();
    assert_eq!(
        id_token,
        json!({
            "sub": tenant.user_id, "email": EMAIL, "full_name": "Ada", "preferred_username": EMAIL,
            "iss": "http://acme.test", "aud": client_id, "iat": iat, "exp": iat + 120, "nonce": "n-0S6_WzA2Mj",
        })
    );
    let bearer = format!("Bearer {access}");
    let auth_header = [("authorization", bearer.as_str())];
    let userinfo = || server.http.get("/auth/userinfo", HOST, &auth_header);
    assert_eq!(userinfo().await.status, StatusCode::OK);

    // A replayed code is refused and revokes what it issued.
    let replay = server
        .http
        .post_form("/auth/token", HOST, &[("authorization", &basic)], &redeem)
        .await;
    assert_eq!(replay.status, StatusCode::BAD_REQUEST);
    assert_eq!(replay.json()["error"], "invalid_grant");
    assert_eq!(replay.header("cache-control"), Some("no-store"));
    assert_eq!(
        userinfo().await.status,
        StatusCode::UNAUTHORIZED,
        "revoked by the replay"
    );

    // A public client: PKCE with an unpadded challenge, no secret, no openid so no ID token.
    let public_query = [
        ("response_type", "code"),
        ("client_id", public_id.as_str()),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
    ];
    let public = redirected_to(
        &authorize(&server, &cookie, &public_query).await,
        PUBLIC_REDIRECT,
    );
    assert_eq!(param(&public, "state"), None);
    let public_token = server
        .http
        .post_form(
            "/auth/oauth/token",
            HOST,
            &[],
            &[
                ("grant_type", "authorization_code"),
                ("client_id", &public_id),
                ("code", param(&public, "code").unwrap()),
                ("redirect_uri", PUBLIC_REDIRECT),
                ("code_verifier", VERIFIER),
            ],
        )
        .await;
    assert_eq!(public_token.status, StatusCode::OK, "{}", public_token.body);
    assert_eq!(public_token.json()["scope"], "public");
    assert!(public_token.json().get("id_token").is_none());
}

async fn authorization_code_refusals(ctx: Ctx) {
    ctx.bootstrap();
    let (client_id, secret, public_id) = code_flow_clients(&ctx);
    let server = AuthServer::start(&ctx.backend, &[]);
    let cookie = session_cookie(&server).await;
    let base = |redirect: &'static str| {
        vec![
            ("response_type", "code"),
            ("client_id", client_id.as_str()),
            ("redirect_uri", redirect),
            ("state", "s1"),
        ]
    };

    // Not redirected: the redirect URI is not exactly a registered one, or the client is unknown.
    for redirect in [
        "https://APP.test/cb",
        "https://app.test/CB",
        "https://app.test/cb?x=1",
        "https://app.test/cb/",
        "https://evil.test/cb",
        "http://app.test/cb",
    ] {
        let response = authorize(&server, &cookie, &base(redirect)).await;
        assert_eq!(response.status, StatusCode::BAD_REQUEST, "{redirect}");
        assert_eq!(response.header("location"), None, "{redirect}");
        assert_eq!(response.json()["error"], "invalid_request", "{redirect}");
    }
    let mut no_redirect = base(APP_REDIRECT);
    no_redirect.retain(|(n, _)| *n != "redirect_uri");
    let ambiguous = authorize(&server, &cookie, &no_redirect).await;
    assert_eq!(
        ambiguous.status,
        StatusCode::BAD_REQUEST,
        "two registered, none named"
    );
    let unknown = authorize(
        &server,
        &cookie,
        &[
            ("response_type", "code"),
            ("client_id", "nobody"),
            ("redirect_uri", APP_REDIRECT),
        ],
    )
    .await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);

    // Redirected with an error and the state.
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut query = base(APP_REDIRECT);
        query.retain(|(n, _)| !extra.iter().any(|(e, _)| e == n));
        query.extend_from_slice(extra);
        query
    };
    for (query, error) in [
        (
            with(&[("response_type", "token")]),
            "unsupported_response_type",
        ),
        (with(&[("scope", "admin")]), "invalid_scope"),
        (
            with(&[
                ("code_challenge", CHALLENGE),
                ("code_challenge_method", "plain"),
            ]),
            "invalid_request",
        ),
        (
            with(&[
                ("code_challenge", "short"),
                ("code_challenge_method", "S256"),
            ]),
            "invalid_request",
        ),
    ] {
        let pairs = redirected_to(&authorize(&server, &cookie, &query).await, APP_REDIRECT);
        assert_eq!(param(&pairs, "error"), Some(error), "{query:?}");
        assert_eq!(param(&pairs, "state"), Some("s1"), "{query:?}");
    }
    let public_without_pkce = authorize(
        &server,
        &cookie,
        &[("response_type", "code"), ("client_id", public_id.as_str())],
    )
    .await;
    assert_eq!(
        param(
            &redirected_to(&public_without_pkce, PUBLIC_REDIRECT),
            "error"
        ),
        Some("invalid_request")
    );

    // Redeeming: every mistake is a 4xx with its RFC 6749 code, and none spends the code.
    let code = confidential_code(&server, &cookie, &client_id, "public").await;
    let other_client = code_flow_clients(&ctx);
    let redeem = |verifier: Option<&'static str>, redirect: Option<&'static str>| {
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("client_id", client_id.as_str()),
            ("client_secret", secret.as_str()),
        ];
        form.extend(verifier.map(|v| ("code_verifier", v)));
        form.extend(redirect.map(|r| ("redirect_uri", r)));
        form
    };
    let wrong_secret = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("client_id", client_id.as_str()),
        ("client_secret", "nope"),
        ("code_verifier", VERIFIER),
        ("redirect_uri", APP_REDIRECT),
    ];
    let foreign_client = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("client_id", other_client.0.as_str()),
        ("client_secret", other_client.1.as_str()),
        ("code_verifier", VERIFIER),
        ("redirect_uri", APP_REDIRECT),
    ];
    let wrong_verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj";
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, StatusCode, &'a str);
    let cases: Vec<Case> = vec![
        (
            "no verifier",
            redeem(None, Some(APP_REDIRECT)),
            StatusCode::BAD_REQUEST,
            "invalid_grant",
        ),
        (
            "wrong verifier",
            redeem(Some(wrong_verifier), Some(APP_REDIRECT)),
            StatusCode::BAD_REQUEST,
            "invalid_grant",
        ),
        (
            "no redirect",
            redeem(Some(VERIFIER), None),
            StatusCode::BAD_REQUEST,
            "invalid_grant",
        ),
        (
            "other registered redirect",
            redeem(Some(VERIFIER), Some("https://app.test/other")),
            StatusCode::BAD_REQUEST,
            "invalid_grant",
        ),
        (
            "wrong secret",
            wrong_secret.to_vec(),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            "another client",
            foreign_client.to_vec(),
            StatusCode::BAD_REQUEST,
            "invalid_grant",
        ),
        (
            "unknown code",
            vec![
                ("grant_type", "authorization_code"),
                ("code", "0000"),
                ("client_id", client_id.as_str()),
                ("client_secret", secret.as_str()),
            ],
            StatusCode::BAD_REQUEST,
            "invalid_grant",
        ),
        (
            "no code",
            vec![
                ("grant_type", "authorization_code"),
                ("client_id", client_id.as_str()),
                ("client_secret", secret.as_str()),
            ],
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
    ];
    for (why, form, status, error) in cases {
        let response = server.http.post_form("/auth/token", HOST, &[], &form).await;
        assert_eq!(response.status, status, "{why}: {}", response.body);
        assert_eq!(response.json()["error"], error, "{why}");
        assert_eq!(response.header("cache-control"), Some("no-store"), "{why}");
    }
    let good = server
        .http
        .post_form(
            "/auth/token",
            HOST,
            &[],
            &redeem(Some(VERIFIER), Some(APP_REDIRECT)),
        )
        .await;
    assert_eq!(
        good.status,
        StatusCode::OK,
        "the refused attempts did not spend the code: {}",
        good.body
    );

    // A code outlives no logout.
    let code = confidential_code(&server, &cookie, &client_id, "public").await;
    server
        .http
        .get("/auth/logout", HOST, &[("cookie", &cookie)])
        .await;
    let after_logout = server
        .http
        .post_form(
            "/auth/token",
            HOST,
            &[],
            &[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("client_id", client_id.as_str()),
                ("client_secret", secret.as_str()),
                ("code_verifier", VERIFIER),
                ("redirect_uri", APP_REDIRECT),
            ],
        )
        .await;
    assert_eq!(after_logout.status, StatusCode::BAD_REQUEST);
    assert_eq!(after_logout.json()["error"], "invalid_grant");
}

/// Signs in, runs the code flow for the confidential client and returns the token answer.
async fn code_flow_tokens(server: &AuthServer, client_id: &str, secret: &str) -> serde_json::Value {
    let cookie = session_cookie(server).await;
    let code = confidential_code(server, &cookie, client_id, "public").await;
    let issued = server
        .http
        .post_form(
            "/auth/token",
            HOST,
            &[],
            &[
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("client_id", client_id),
                ("client_secret", secret),
                ("code_verifier", VERIFIER),
                ("redirect_uri", APP_REDIRECT),
            ],
        )
        .await;
    assert_eq!(issued.status, StatusCode::OK, "{}", issued.body);
    issued.json()
}

/// `POST path` with the client's credentials in the body and `form` besides.
async fn client_post(
    server: &AuthServer,
    path: &str,
    client: (&str, &str),
    form: &[(&str, &str)],
) -> support::http::Response {
    let mut form = form.to_vec();
    form.extend([("client_id", client.0), ("client_secret", client.1)]);
    server.http.post_form(path, HOST, &[], &form).await
}

async fn refreshed(
    server: &AuthServer,
    client: (&str, &str),
    token: &str,
) -> support::http::Response {
    client_post(
        server,
        "/auth/token",
        client,
        &[("grant_type", "refresh_token"), ("refresh_token", token)],
    )
    .await
}

async fn refresh_revoke_and_introspect(ctx: Ctx) {
    ctx.bootstrap();
    let (client_id, secret, _) = code_flow_clients(&ctx);
    let other = code_flow_clients(&ctx);
    let server = AuthServer::start(&ctx.backend, &[]);
    let client = (client_id.as_str(), secret.as_str());
    let first = code_flow_tokens(&server, &client_id, &secret).await;
    let r1 = first["refresh_token"].as_str().unwrap().to_string();

    let second = refreshed(&server, client, &r1).await;
    assert_eq!(second.status, StatusCode::OK, "{}", second.body);
    assert_eq!(second.header("cache-control"), Some("no-store"));
    let second = second.json();
    assert_eq!(second["scope"], "public", "scope kept");
    let r2 = second["refresh_token"].as_str().unwrap().to_string();
    assert_ne!(r1, r2, "rotated");
    let a2 = second["access_token"].as_str().unwrap().to_string();
    let bearer = format!("Bearer {a2}");
    let auth_header = [("authorization", bearer.as_str())];
    let userinfo = || server.http.get("/auth/userinfo", HOST, &auth_header);
    assert_eq!(userinfo().await.status, StatusCode::OK);
    // A double submit right after rotation is tolerated.
    let again = refreshed(&server, client, &r1).await;
    assert_eq!(
        again.status,
        StatusCode::OK,
        "within the grace window: {}",
        again.body
    );
    let r3 = again.json()["refresh_token"].as_str().unwrap().to_string();

    let wider = client_post(
        &server,
        "/auth/token",
        client,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", &r2),
            ("scope", "public admin"),
        ],
    )
    .await;
    assert_eq!(wider.status, StatusCode::BAD_REQUEST);
    assert_eq!(wider.json()["error"], "invalid_scope");
    let foreign = refreshed(&server, (&other.0, &other.1), &r2).await;
    assert_eq!(foreign.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        foreign.json()["error"],
        "invalid_grant",
        "another client's token"
    );
    let missing = client_post(
        &server,
        "/auth/token",
        client,
        &[("grant_type", "refresh_token")],
    )
    .await;
    assert_eq!(missing.json()["error"], "invalid_request");

    // Introspection: active tokens described, anything else inactive, clients only.
    let introspect = |token: String| {
        let server = &server;
        async move {
            let response = client_post(
                server,
                "/auth/oauth/introspect",
                client,
                &[("token", &token)],
            )
            .await;
            assert_eq!(response.status, StatusCode::OK, "{}", response.body);
            assert_eq!(response.header("cache-control"), Some("no-store"));
            response.json()
        }
    };
    let access = introspect(a2.clone()).await;
    assert_eq!(
        (access["active"].as_bool(), access["aud"].as_str()),
        (Some(true), Some(HOST))
    );
    assert_eq!(access["scope"], "public");
    let refresh = introspect(r2.clone()).await;
    assert_eq!(refresh["active"], true);
    assert_eq!(refresh["client_id"], client_id.as_str());
    assert_eq!(
        introspect(r1.clone()).await,
        json!({ "active": false }),
        "rotated"
    );
    assert_eq!(
        introspect("garbage".into()).await,
        json!({ "active": false })
    );
    let anonymous = server
        .http
        .post_form("/auth/introspect", HOST, &[], &[("token", &a2)])
        .await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    assert_eq!(anonymous.json()["error"], "invalid_client");

    // Revocation: 200 for anything, a refresh token takes its family along.
    for token in ["unknown-token", r2.as_str()] {
        let revoked = client_post(&server, "/auth/revoke", client, &[("token", token)]).await;
        assert_eq!(revoked.status, StatusCode::OK, "{token}: {}", revoked.body);
    }
    let no_token = client_post(&server, "/auth/oauth/revoke", client, &[]).await;
    assert_eq!(no_token.status, StatusCode::BAD_REQUEST);
    assert_eq!(no_token.json()["error"], "invalid_request");
    for token in [&r2, &r3] {
        let refused = refreshed(&server, client, token).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "revoked family");
        assert_eq!(refused.json()["error"], "invalid_grant");
    }
    assert_eq!(
        userinfo().await.status,
        StatusCode::UNAUTHORIZED,
        "access token of the family"
    );
    assert_eq!(introspect(a2).await, json!({ "active": false }));

    // Revoking an access token alone; another client cannot revoke it.
    let fresh = code_flow_tokens(&server, &client_id, &secret).await;
    let access = fresh["access_token"].as_str().unwrap();
    let bearer = format!("Bearer {access}");
    let status = || async {
        server
            .http
            .get("/auth/userinfo", HOST, &[("authorization", &bearer)])
            .await
            .status
    };
    client_post(
        &server,
        "/auth/revoke",
        (&other.0, &other.1),
        &[("token", access)],
    )
    .await;
    assert_eq!(
        status().await,
        StatusCode::OK,
        "not the other client's to revoke"
    );
    let revoked = client_post(
        &server,
        "/auth/revoke",
        client,
        &[("token", access), ("token_type_hint", "access_token")],
    )
    .await;
    assert_eq!(revoked.status, StatusCode::OK);
    assert_eq!(status().await, StatusCode::UNAUTHORIZED);
    let refresh = fresh["refresh_token"].as_str().unwrap();
    assert_eq!(
        refreshed(&server, client, refresh).await.status,
        StatusCode::OK,
        "refresh token lives on"
    );

    // Logout ends refresh tokens issued before it.
    let later = code_flow_tokens(&server, &client_id, &secret).await;
    log_out(&server).await;
    let after_logout = refreshed(&server, client, later["refresh_token"].as_str().unwrap()).await;
    assert_eq!(after_logout.status, StatusCode::BAD_REQUEST);
    assert_eq!(after_logout.json()["error"], "invalid_grant");
}

async fn refresh_replay_after_the_grace_window(ctx: Ctx) {
    ctx.bootstrap();
    let (client_id, secret, _) = code_flow_clients(&ctx);
    // The grace window is wall-clock time and the server has no clock to move: a 1 s window instead of 30 s.
    let server = AuthServer::start(&ctx.backend, &[("REFRESH_REPLAY_GRACE_SECONDS", "1")]);
    let client = (client_id.as_str(), secret.as_str());
    let first = code_flow_tokens(&server, &client_id, &secret).await;
    let r1 = first["refresh_token"].as_str().unwrap();
    let second = refreshed(&server, client, r1).await.json();
    let r2 = second["refresh_token"].as_str().unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let replay = refreshed(&server, client, r1).await;
    assert_eq!(replay.status, StatusCode::BAD_REQUEST);
    assert_eq!(replay.json()["error"], "invalid_grant");
    let successor = refreshed(&server, client, r2).await;
    assert_eq!(
        successor.status,
        StatusCode::BAD_REQUEST,
        "the leaked family is revoked"
    );
}

/// A stand-in for the legacy service at `SVC_URI`: knows one key, counts the questions it gets; `/boom` answers 500.
async fn legacy_service() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use axum::http::HeaderMap;
    let asked = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = asked.clone();
    let app = axum::Router::new()
        .route(
            "/api/engine/v2/api_keys/inspect",
            axum::routing::get(move |headers: HeaderMap| async move {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
                let host = headers.get("host").and_then(|v| v.to_str().ok());
                if key == Some("remote1.secret") && host == Some(HOST) {
                    StatusCode::OK
                } else {
                    StatusCode::UNAUTHORIZED
                }
            }),
        )
        .route(
            "/boom",
            axum::routing::get(|| async { StatusCode::INTERNAL_SERVER_ERROR }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, asked)
}

async fn api_keys_fall_back_to_svc_uri(ctx: Ctx) {
    ctx.bootstrap();
    let key = ctx.cli(&["apikey", "add", "--domain", HOST, "--email", EMAIL])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let (svc, asked) = legacy_service().await;
    let server = AuthServer::start(&ctx.backend, &[("SVC_URI", svc.as_str())]);
    let status = |key: String| {
        let http = server.http.clone();
        async move {
            http.get("/auth/authority", HOST, &[("x-api-key", &key)])
                .await
                .status
        }
    };
    assert_eq!(status("remote1.secret".into()).await, StatusCode::OK);
    assert_eq!(
        status("remote1.other".into()).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 2);
    // A key of the local table is decided locally: a wrong secret is refused without asking.
    let (id, _) = key.split_once('.').unwrap();
    assert_eq!(
        status(format!("{id}.wrong")).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(status(key).await, StatusCode::OK);
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 2);
}

async fn login_event_reaches_a_subscriber(ctx: Ctx) {
    let Some(redis) = ctx.redis.clone() else {
        return support::external::skip("no redis-server for login events");
    };
    let tenant = ctx.bootstrap();
    let url = redis.url();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let user_id = tenant.user_id.clone();
    let subscriber_url = url.clone();
    // The subscriber is a plain blocking redis client on its own thread, subscribed before the sign-in happens.
    let subscriber = std::thread::spawn(move || {
        let client = redis::Client::open(subscriber_url).unwrap();
        let mut connection = client.get_connection().unwrap();
        let mut pubsub = connection.as_pubsub();
        pubsub.subscribe("svc/auth/login").unwrap();
        pubsub
            .set_read_timeout(Some(Duration::from_secs(15)))
            .unwrap();
        ready_tx.send(()).unwrap();
        loop {
            let message = pubsub.get_message().expect("a login event within 15 s");
            let payload: String = message.get_payload().unwrap();
            // Other scenarios publish on the same channel; ours carries our user's id.
            if payload.contains(&user_id) {
                return (message.get_channel_name().to_string(), payload);
            }
        }
    });
    ready_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("subscribed");
    let server = AuthServer::start(&ctx.backend, &[("KVSTORE_URL", url.as_str())]);
    session_cookie(&server).await;
    let (channel, payload) = tokio::task::spawn_blocking(move || subscriber.join().unwrap())
        .await
        .unwrap();
    assert_eq!(channel, "svc/auth/login");
    assert_eq!(
        payload,
        format!(
            r#"{{"user_id":"{}","provider":"internal"}}"#,
            tenant.user_id
        )
    );
    assert!(!server.log().contains("KVSTORE_URL is unset"));
}

/// Polls `/auth/metrics` until it shows `line`.
async fn wait_for_metric(server: &AuthServer, line: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let metrics = server.http.get("/auth/metrics", HOST, &[]).await.body;
        if metrics.lines().any(|l| l == line) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{line} never appeared:\n{metrics}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn redis_down_login_still_succeeds(ctx: Ctx) {
    ctx.bootstrap();
    let nowhere = format!("redis://127.0.0.1:{}/", support::free_port());
    let server = AuthServer::start(&ctx.backend, &[("KVSTORE_URL", nowhere.as_str())]);
    session_cookie(&server).await;
    session_cookie(&server).await;
    wait_for_metric(&server, r#"auth_login_events_total{result="failed"} 2"#).await;
    wait_for_metric(
        &server,
        r#"auth_logins_total{provider="internal",outcome="success"} 2"#,
    )
    .await;
    assert!(server.log().contains("login event not published"));
}

async fn throttling_answers_429(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[("SIGNIN_ATTEMPTS_PER_ACCOUNT", "3")]);
    for _ in 0..3 {
        assert_eq!(
            sign_in(&server, HOST, EMAIL, "wrong").await.status,
            StatusCode::UNAUTHORIZED
        );
    }
    // Even the right password waits now.
    let throttled = sign_in(&server, HOST, EMAIL, PASSWORD).await;
    assert_eq!(throttled.status, StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = throttled
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("seconds");
    assert!((1..=61).contains(&retry), "{retry}");
    assert_eq!(
        sign_in(&server, HOST, "bob@acme.test", "x").await.status,
        StatusCode::UNAUTHORIZED
    );
    wait_for_metric(
        &server,
        r#"auth_logins_total{provider="internal",outcome="throttled"} 1"#,
    )
    .await;

    let server = AuthServer::start(&ctx.backend, &[("SIGNIN_ATTEMPTS_PER_ADDRESS", "2")]);
    assert_eq!(
        sign_in(&server, HOST, "a@acme.test", "x").await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        sign_in(&server, HOST, "b@acme.test", "x").await.status,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        sign_in(&server, HOST, "c@acme.test", "x").await.status,
        StatusCode::TOO_MANY_REQUESTS
    );
}

async fn probes_and_tenancy(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    let health = server.http.get("/auth/healthz", "unknown.test", &[]).await;
    assert_eq!(health.status, StatusCode::OK);
    assert_eq!(
        health.json(),
        json!({ "status": "ok", "app": "auth", "version": env!("CARGO_PKG_VERSION") })
    );
    let probe = server
        .http
        .get("/auth/authority?health", "unknown.test", &[])
        .await;
    assert_eq!((probe.status, probe.body.as_str()), (StatusCode::OK, ""));
    let unknown = server
        .http
        .get("/auth/authority", "Unknown.Test:8080", &[])
        .await;
    assert_error(
        &unknown,
        StatusCode::NOT_FOUND,
        "authority not found for host unknown.test",
    );
    let known = server
        .http
        .get("/auth/authority", "ACME.test:3000", &[])
        .await;
    assert_eq!(known.json()["domain"], json!(HOST));
    let failure = server.http.get("/auth/failure", HOST, &[]).await;
    assert_eq!(failure.status, StatusCode::OK);
    assert!(
        failure
            .header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert!(failure.body.contains("Authentication failed"));
    wait_for_metric(&server, r#"auth_http_requests_total{status="404"} 1"#).await;
}

/// An existing legacy database: `timestamp` columns, nullable flags and counters, a `$2a$` digest, a session
/// timeout stored as text. `auth` must serve it without `auth migrate`.
async fn legacy_schema_serves_unchanged(pg: Arc<Postgres>) {
    let schema = include_str!("../src/store/postgres.sql")
        .replace("timestamptz", "timestamp")
        .replace("integer NOT NULL DEFAULT 0", "integer")
        .replace("boolean NOT NULL DEFAULT false", "boolean");
    let backend = Backend::postgres_with_schema(pg, schema).await;
    let digest = bcrypt::hash_with_result(PASSWORD, 4)
        .unwrap()
        .format_for_version(bcrypt::Version::TwoA);
    backend
        .execute(
            "INSERT INTO authority (id, name, domain, internals, email_domains) \
             VALUES ('a1', 'Legacy', 'acme.test', '{\"session_timeout\": \"15\"}', '{acme.test}')",
            &[],
        )
        .await;
    backend
        .execute(
            "INSERT INTO \"user\" (id, authority_id, email, password_digest, groups, sys_admin, support, deleted, \
             login_count) VALUES ('u1', 'a1', 'Ada@Acme.test', $1, '{staff}', NULL, NULL, NULL, NULL)",
            &[&digest],
        )
        .await;
    let server = AuthServer::start(&backend, &[]);
    let response = sign_in(&server, HOST, EMAIL, PASSWORD).await;
    assert_eq!(response.status, StatusCode::ACCEPTED, "{}", response.body);
    let set_cookie = response.set_cookie("_coauth_session").unwrap();
    assert!(set_cookie.contains("; Max-Age=900"), "{set_cookie}");
    let cookie = cookie_pair(&set_cookie);
    let authority = server
        .http
        .get("/auth/authority", HOST, &[("cookie", &cookie)])
        .await
        .json();
    assert_eq!(authority["email_domains"], json!(["acme.test"]));
    assert_eq!(authority["session"], json!(true));
    let user = backend
        .store()
        .await
        .user_by_id("u1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (user.login_count, user.groups.clone()),
        (1, vec!["staff".to_string()])
    );
    server
        .http
        .get("/auth/logout", HOST, &[("cookie", &cookie)])
        .await;
    assert!(!signed_in(&server, &cookie).await);
    assert!(
        backend
            .store()
            .await
            .user_by_id("u1")
            .await
            .unwrap()
            .unwrap()
            .logged_out_at
            .is_some()
    );
}

async fn health_check_exit_codes() {
    let backend = Backend::sqlite();
    let server = AuthServer::start(&backend, &[]);
    let (svc, _) = legacy_service().await;
    let check = |url: String| async move {
        let status = tokio::task::spawn_blocking(move || {
            command(&[], &[]).args(["-c", &url]).status().unwrap()
        });
        status.await.unwrap().code()
    };
    assert_eq!(
        check(format!("http://{}/auth/healthz", server.addr)).await,
        Some(0)
    );
    assert_eq!(
        check(format!("http://{}/auth/authority", server.addr)).await,
        Some(0),
        "404 counts as alive"
    );
    assert_eq!(check(format!("{svc}/boom")).await, Some(1));
    assert_eq!(
        check(format!("http://127.0.0.1:{}/", support::free_port())).await,
        Some(2)
    );
}

async fn env_docs_and_production_refusals() {
    let run = |env: &[(&str, &str)], args: &[&str]| command(&[], env).args(args).output().unwrap();
    let env = run(
        &[
            ("SQL_PASSWORD", "hunter2"),
            (
                "COOKIE_SESSION_SECRET",
                "s3cret-s3cret-s3cret-s3cret-s3cret",
            ),
        ],
        &["--env"],
    );
    let env = String::from_utf8(env.stdout).unwrap();
    assert!(!env.contains("hunter2") && !env.contains("s3cret"), "{env}");
    for line in [
        "SQL_PASSWORD=******** (set)",
        "LOGIN_EVENTS_CHANNEL=svc/auth/login (default)",
        "JWT_ISSUER=POS (default)",
    ] {
        assert!(env.lines().any(|l| l == line), "{line} missing:\n{env}");
    }
    let docs = String::from_utf8(run(&[], &["--docs"]).stdout).unwrap();
    let routes = String::from_utf8(run(&[], &["--routes"]).stdout).unwrap();
    for path in [
        "/auth/healthz",
        "/auth/authority",
        "/auth/signin",
        "/auth/logout",
        "/auth/login",
        "/auth/failure",
        "/auth/oauth2",
        "/auth/saml",
        "/auth/saml/callback",
        "/auth/saml/metadata",
        "/auth/saml/logout",
    ] {
        assert!(
            docs.contains(&format!("{path}:")),
            "{path} missing from --docs"
        );
        assert!(routes.contains(path), "{path} missing from --routes");
    }
    assert!(
        docs.starts_with("openapi:") || docs.contains("\nopenapi:"),
        "{docs}"
    );

    let refused = run(
        &[
            ("APP_ENV", "production"),
            ("COOKIE_SESSION_SECRET", &"x".repeat(32)),
        ],
        &[],
    );
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("refuses the built-in development JWT key")
    );
    let key = base64::engine::general_purpose::STANDARD
        .encode(include_str!("fixtures/production_jwt_key.pem"));
    let refused = run(&[("APP_ENV", "production"), ("JWT_SECRET", &key)], &[]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("requires COOKIE_SESSION_SECRET"));
}
