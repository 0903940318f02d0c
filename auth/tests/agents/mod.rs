//! What agents and federated clients look up and do before they hold a token: WebFinger (RFC 7033), protected
//! resource metadata (RFC 9728), the discovery's `registration_endpoint`, and dynamic client registration
//! (RFC 7591) with its refusals and its per-address limit, then the code flow of a registered client.
//! The Python MCP SDK's own OAuth client runs the same path in `python/mcp_client_registration.py`.

use hyper::StatusCode;
use serde_json::{Value, json};

use super::support::http::Response;
use super::support::server::AuthServer;
use super::{
    CHALLENGE, Ctx, HOST, VERIFIER, assert_error, authorize, param, redirected_to, session_cookie,
};

/// A loopback redirect URI (RFC 8252), as a local agent registers.
const LOOPBACK: &str = "http://127.0.0.1:43123/callback";

pub async fn webfinger_names_the_issuer(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    for path in ["/.well-known/webfinger", "/auth/.well-known/webfinger"] {
        let response = server
            .http
            .get(
                &format!("{path}?resource=acct%3Aada%40acme.test"),
                HOST,
                &[],
            )
            .await;
        assert_eq!(response.status, StatusCode::OK, "{path}: {}", response.body);
        assert_eq!(
            response.header("content-type"),
            Some("application/jrd+json")
        );
        assert_eq!(response.header("access-control-allow-origin"), Some("*"));
        assert_eq!(
            response.json(),
            json!({"subject": "acct:ada@acme.test", "links": [
                {"rel": "http://openid.net/specs/connect/1.0/issuer", "href": "http://acme.test"}]})
        );
        // The issuer named is the one the discovery document states, TLS proxy included.
        let proxied = server
            .http
            .get(
                &format!("{path}?resource=https%3A%2F%2Facme.test%2F&rel=http%3A%2F%2Fopenid.net%2Fspecs%2Fconnect%2F1.0%2Fissuer"),
                HOST,
                &[("x-forwarded-proto", "https")],
            )
            .await;
        let discovery = server
            .http
            .get(
                "/.well-known/openid-configuration",
                HOST,
                &[("x-forwarded-proto", "https")],
            )
            .await
            .json();
        assert_eq!(proxied.json()["links"][0]["href"], discovery["issuer"]);
        assert_eq!(proxied.json()["subject"], "https://acme.test/");
        // Other relations only: no link.
        let other = server
            .http
            .get(
                &format!("{path}?resource=acct%3Aa%40acme.test&rel=profile"),
                HOST,
                &[],
            )
            .await;
        assert_eq!(other.json()["links"], json!([]));
        for query in ["", "?resource=", "?rel=profile"] {
            let missing = server.http.get(&format!("{path}{query}"), HOST, &[]).await;
            assert_error(&missing, StatusCode::BAD_REQUEST, "resource is required");
        }
    }
    let unknown = server
        .http
        .get(
            "/.well-known/webfinger?resource=acct%3Aa%40nowhere.test",
            "nowhere.test",
            &[],
        )
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

async fn register(
    server: &AuthServer,
    path: &str,
    body: Value,
    headers: &[(&str, &str)],
) -> Response {
    server.http.post_json(path, HOST, headers, body).await
}

/// Asserts an RFC 7591 refusal: 400 with `error`, never cached.
fn assert_refused(response: &Response, error: &str) {
    assert_eq!(
        response.status,
        StatusCode::BAD_REQUEST,
        "{}",
        response.body
    );
    assert_eq!(response.json()["error"], error, "{}", response.body);
    assert_eq!(response.header("cache-control"), Some("no-store"));
}

pub async fn metadata_documents_lead_agents_to_registration(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    let discovery = server
        .http
        .get("/.well-known/oauth-authorization-server", HOST, &[])
        .await
        .json();
    assert_eq!(
        discovery["registration_endpoint"],
        "http://acme.test/auth/register"
    );
    for (path, resource) in [
        ("/.well-known/oauth-protected-resource", "http://acme.test"),
        (
            "/auth/.well-known/oauth-protected-resource",
            "http://acme.test",
        ),
        (
            "/.well-known/oauth-protected-resource/mcp",
            "http://acme.test/mcp",
        ),
        (
            "/.well-known/oauth-protected-resource/auth/userinfo",
            "http://acme.test/auth/userinfo",
        ),
    ] {
        let response = server.http.get(path, HOST, &[]).await;
        assert_eq!(response.status, StatusCode::OK, "{path}: {}", response.body);
        let document = response.json();
        assert_eq!(document["resource"], resource, "{path}");
        assert_eq!(
            document["authorization_servers"],
            json!([discovery["issuer"]]),
            "{path}"
        );
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
    }
}

pub async fn registered_clients_run_the_code_flow(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(&ctx.backend, &[]);
    let request = json!({
        "client_name": "Agent",
        "redirect_uris": [LOOPBACK, "https://agent.example/cb"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "scope": "public",
    });
    let mut ids = Vec::new();
    for path in ["/auth/register", "/auth/oauth/register"] {
        let response = register(&server, path, request.clone(), &[]).await;
        assert_eq!(
            response.status,
            StatusCode::CREATED,
            "{path}: {}",
            response.body
        );
        assert_eq!(response.header("cache-control"), Some("no-store"));
        let client = response.json();
        for (field, expected) in [
            ("client_name", json!("Agent")),
            (
                "redirect_uris",
                json!([LOOPBACK, "https://agent.example/cb"]),
            ),
            (
                "grant_types",
                json!(["authorization_code", "refresh_token"]),
            ),
            ("response_types", json!(["code"])),
            ("token_endpoint_auth_method", json!("none")),
            ("scope", json!("public")),
        ] {
            assert_eq!(client[field], expected, "{field}");
        }
        assert!(
            client.get("client_secret").is_none(),
            "a public client gets no secret"
        );
        let issued_at = client["client_id_issued_at"].as_i64().unwrap();
        assert!((chrono::Utc::now().timestamp() - issued_at).abs() < 60);
        ids.push(client["client_id"].as_str().unwrap().to_string());
    }
    assert_ne!(ids[0], ids[1]);
    let client_id = &ids[0];

    // The signed-in user's browser: PKCE is required of the registered client.
    let cookie = session_cookie(&server).await;
    let without_pkce = authorize(
        &server,
        &cookie,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", LOOPBACK),
            ("state", "s1"),
        ],
    )
    .await;
    let pairs = redirected_to(&without_pkce, LOOPBACK);
    assert_eq!(param(&pairs, "error"), Some("invalid_request"), "{pairs:?}");
    let unregistered = server
        .http
        .get(
            &format!(
                "/auth/authorize?response_type=code&client_id={client_id}&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fother&code_challenge={CHALLENGE}&code_challenge_method=S256"
            ),
            HOST,
            &[("cookie", &cookie)],
        )
        .await;
    assert_eq!(
        unregistered.status,
        StatusCode::BAD_REQUEST,
        "an unregistered redirect URI is not followed"
    );
    let granted = authorize(
        &server,
        &cookie,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", LOOPBACK),
            ("state", "s2"),
            ("code_challenge", CHALLENGE),
            ("code_challenge_method", "S256"),
        ],
    )
    .await;
    let pairs = redirected_to(&granted, LOOPBACK);
    let code = param(&pairs, "code").expect("code").to_string();
    let form = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("redirect_uri", LOOPBACK),
        ("client_id", client_id.as_str()),
        ("code_verifier", VERIFIER),
    ];
    let tokens = server.http.post_form("/auth/token", HOST, &[], &form).await;
    assert_eq!(tokens.status, StatusCode::OK, "{}", tokens.body);
    let tokens = tokens.json();
    assert_eq!(tokens["scope"], "public");
    let refresh = tokens["refresh_token"].as_str().expect("refresh token");
    let refreshed = server
        .http
        .post_form(
            "/auth/token",
            HOST,
            &[],
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh),
                ("client_id", client_id),
            ],
        )
        .await;
    assert_eq!(refreshed.status, StatusCode::OK, "{}", refreshed.body);
    // A public client cannot use client_credentials.
    let cc = server
        .http
        .post_form(
            "/auth/token",
            HOST,
            &[],
            &[
                ("grant_type", "client_credentials"),
                ("client_id", client_id),
            ],
        )
        .await;
    assert_eq!(cc.json()["error"], "unauthorized_client", "{}", cc.body);
    // The client belongs to the authority it registered on.
    let elsewhere = server
        .http
        .post_form("/auth/token", "127.0.0.1", &[], &form)
        .await;
    assert_eq!(
        elsewhere.status,
        StatusCode::NOT_FOUND,
        "no authority 127.0.0.1 here"
    );
}

pub async fn registration_refusals(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(
        &ctx.backend,
        &[
            (
                "REGISTRATION_REDIRECT_HOSTS",
                "agent.example, Other.Example",
            ),
            // Refused attempts count against the limit too; this test makes more than the default 10.
            ("REGISTRATION_LIMIT_PER_HOUR", "100"),
        ],
    );
    let uris = |uris: Value| json!({ "redirect_uris": uris });
    for bad in [
        json!([]),
        json!(["http://agent.example/cb"]),
        json!(["https://evil.example/cb"]),
        json!(["https://agent.example/cb#fragment"]),
        json!(["javascript:alert(1)"]),
        json!(["http://127.0.0.1.evil.example/cb"]),
    ] {
        assert_refused(
            &register(&server, "/auth/register", uris(bad.clone()), &[]).await,
            "invalid_redirect_uri",
        );
    }
    assert_refused(
        &register(&server, "/auth/register", json!({}), &[]).await,
        "invalid_redirect_uri",
    );
    for ok in [
        json!(["https://agent.example/cb"]),
        json!(["https://other.example/cb", "http://[::1]:8080/cb"]),
    ] {
        let response = register(&server, "/auth/register", uris(ok), &[]).await;
        assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
    }
    let good = json!(["https://agent.example/cb"]);
    for (field, value) in [
        ("token_endpoint_auth_method", json!("client_secret_basic")),
        ("grant_types", json!(["client_credentials"])),
        ("response_types", json!(["token"])),
        ("scope", json!("public admin")),
        ("client_name", json!(42)),
    ] {
        let mut body = uris(good.clone());
        body[field] = value;
        assert_refused(
            &register(&server, "/auth/register", body, &[]).await,
            "invalid_client_metadata",
        );
    }
    let form = server
        .http
        .post_form(
            "/auth/register",
            HOST,
            &[],
            &[("redirect_uris", "https://agent.example/cb")],
        )
        .await;
    assert_refused(&form, "invalid_client_metadata");
    let garbage = server
        .http
        .send(
            hyper::Method::POST,
            "/auth/register",
            HOST,
            &[],
            Some(("application/json", "{\"redirect_uris\":".into())),
        )
        .await;
    assert_refused(&garbage, "invalid_client_metadata");
    let get = server.http.get("/auth/register", HOST, &[]).await;
    assert_eq!(get.status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(!server.log().contains("panicked"), "{}", server.log());
}

pub async fn registration_limit_per_address(ctx: Ctx) {
    ctx.bootstrap();
    let server = AuthServer::start(
        &ctx.backend,
        &[
            ("REGISTRATION_LIMIT_PER_HOUR", "3"),
            ("TRUSTED_PROXIES", "127.0.0.1"),
        ],
    );
    let body = json!({ "redirect_uris": [LOOPBACK] });
    let from = |address: &'static str| [("x-forwarded-for", address)];
    for _ in 0..3 {
        let response = register(&server, "/auth/register", body.clone(), &from("192.0.2.7")).await;
        assert_eq!(response.status, StatusCode::CREATED, "{}", response.body);
    }
    let limited = register(&server, "/auth/register", body.clone(), &from("192.0.2.7")).await;
    assert_eq!(
        limited.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        limited.body
    );
    let retry: u64 = limited
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    // One registration more every 60/3 minutes.
    assert!((1..=1201).contains(&retry), "{retry}");
    assert_eq!(limited.json()["error"], "temporarily_unavailable");
    // Refused attempts count too, and the alias shares the budget.
    let alias = register(
        &server,
        "/auth/oauth/register",
        body.clone(),
        &from("192.0.2.7"),
    )
    .await;
    assert_eq!(alias.status, StatusCode::TOO_MANY_REQUESTS);
    // Another address has its own budget.
    let other = register(
        &server,
        "/auth/register",
        body.clone(),
        &from("198.51.100.1"),
    )
    .await;
    assert_eq!(other.status, StatusCode::CREATED, "{}", other.body);
    assert!(server.logged("client registration throttled").await);
}
