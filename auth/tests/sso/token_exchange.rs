//! The token exchange (RFC 8693) with panva's `oidc-provider` as the external issuer: a backend holding an access
//! token the provider issued to this authority's OAuth 2.0 strategy (a JWT for that application, as Entra ID
//! issues them) trades it for one of ours, for the user the provider's subject was linked to at login; and every
//! way of getting it wrong is refused with its RFC error code.

use base64::Engine;
use hyper::StatusCode;
use serde_json::json;

use super::super::support::server::AuthServer;
use super::super::{Ctx, HOST, forged};
use super::oidc_provider::OidcProvider;
use super::{add_strategy, callback, start_login};

const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";

/// `(client_id, client_secret)` of a new confidential client of acme.test.
fn confidential_client(ctx: &Ctx, name: &str) -> (String, String) {
    let client = ctx.cli(&[
        "client",
        "add",
        "--domain",
        HOST,
        "--name",
        name,
        "--redirect-uri",
        "https://backend.test/cb",
    ]);
    let text = |f: &str| client[f].as_str().unwrap().to_string();
    (text("client_id"), text("client_secret"))
}

async fn exchange(
    server: &AuthServer,
    client: &(String, String),
    token: &str,
    token_type: &str,
) -> super::super::support::http::Response {
    server
        .http
        .post_form(
            "/auth/token",
            HOST,
            &[],
            &[
                ("grant_type", TOKEN_EXCHANGE),
                ("client_id", &client.0),
                ("client_secret", &client.1),
                ("subject_token", token),
                ("subject_token_type", token_type),
            ],
        )
        .await
}

fn assert_oauth_error(response: &super::super::support::http::Response, error: &str) {
    assert_eq!(
        response.status,
        StatusCode::BAD_REQUEST,
        "{}",
        response.body
    );
    assert_eq!(response.json()["error"], error, "{}", response.body);
    assert_eq!(response.header("cache-control"), Some("no-store"));
}

pub async fn token_exchange_with_oidc_provider(ctx: Ctx) {
    ctx.bootstrap();
    let port = super::super::support::free_port();
    let site = format!("http://127.0.0.1:{port}");
    let strategy = add_strategy(
        &ctx,
        &site,
        &[
            "--authorize-url",
            "/auth",
            "--token-url",
            "/token",
            "--raw-info-url",
            "/me",
            "--scope",
            "openid email profile",
            "--auth-scheme",
            "basic_auth",
        ],
    );
    let secret = format!("secret-of-{strategy}");
    ctx.backend
        .execute(
            "UPDATE oauth_strat SET client_id = $1, client_secret = $2 WHERE id = $1",
            &[&strategy, &secret],
        )
        .await;
    let callback_uri = format!("http://{HOST}/auth/oauth2/callback?id={strategy}");
    let elsewhere = format!("http://{HOST}/elsewhere");
    let clients = json!([
        {"client_id": strategy, "client_secret": secret, "token_endpoint_auth_method": "client_secret_basic",
         "redirect_uris": [callback_uri]},
        // Another application at the same provider: its tokens are not meant for us.
        {"client_id": "other-app", "client_secret": "other-secret", "token_endpoint_auth_method": "client_secret_basic",
         "redirect_uris": [elsewhere]},
    ]);
    let Some(provider) = OidcProvider::start_on(port, &clients) else {
        return;
    };
    let backend = confidential_client(&ctx, "Backend");
    let outsider = confidential_client(&ctx, "Outsider");
    let server = AuthServer::start(&ctx.backend, &[("TOKEN_EXCHANGE_CLIENTS", &backend.0)]);

    // Linus signs in once through the strategy, which links his provider subject to his user.
    let (start, cookie) = start_login(&server, &strategy, HOST).await;
    let back = provider.authorize(start.header("location").unwrap()).await;
    assert_eq!(
        callback(&server, &back, &cookie).await.status,
        StatusCode::SEE_OTHER
    );

    let subject = provider
        .access_token(&strategy, &secret, &callback_uri)
        .await;
    assert_eq!(subject.split('.').count(), 3, "a JWT: {subject}");
    let exchanged = exchange(&server, &backend, &subject, ACCESS_TOKEN_TYPE).await;
    assert_eq!(
        exchanged.status,
        StatusCode::OK,
        "{}\n{}",
        exchanged.body,
        server.log()
    );
    assert_eq!(exchanged.header("cache-control"), Some("no-store"));
    let answer = exchanged.json();
    assert_eq!(answer["issued_token_type"], ACCESS_TOKEN_TYPE);
    assert_eq!(answer["token_type"], "Bearer");
    assert!(answer.get("refresh_token").is_none(), "{answer}");
    let ours = answer["access_token"].as_str().unwrap().to_string();
    let userinfo = server
        .http
        .get(
            "/auth/userinfo",
            HOST,
            &[("authorization", &format!("Bearer {ours}"))],
        )
        .await;
    assert_eq!(userinfo.status, StatusCode::OK, "{}", userinfo.body);
    assert_eq!(userinfo.json()["email"], "linus@oidc.test");
    // The JWT type names the same token.
    let as_jwt = exchange(
        &server,
        &backend,
        &subject,
        "urn:ietf:params:oauth:token-type:jwt",
    )
    .await;
    assert_eq!(as_jwt.status, StatusCode::OK, "{}", as_jwt.body);
    // A token of ours is exchanged too (the same checks as at any resource).
    let again = exchange(&server, &backend, &ours, ACCESS_TOKEN_TYPE).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);

    // Refusals.
    assert_oauth_error(
        &exchange(&server, &outsider, &subject, ACCESS_TOKEN_TYPE).await,
        "unauthorized_client",
    );
    let wrong_secret = (backend.0.clone(), "wrong".to_string());
    let refused = exchange(&server, &wrong_secret, &subject, ACCESS_TOKEN_TYPE).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    assert_eq!(refused.json()["error"], "invalid_client");
    assert_oauth_error(
        &exchange(
            &server,
            &backend,
            &subject,
            "urn:ietf:params:oauth:token-type:refresh_token",
        )
        .await,
        "invalid_request",
    );
    assert_oauth_error(
        &exchange(&server, &backend, "", ACCESS_TOKEN_TYPE).await,
        "invalid_request",
    );
    let other_app = provider
        .access_token("other-app", "other-secret", &elsewhere)
        .await;
    assert_oauth_error(
        &exchange(&server, &backend, &other_app, ACCESS_TOKEN_TYPE).await,
        "invalid_grant",
    );
    let mut tampered = subject.clone().into_bytes();
    let middle = subject.find('.').unwrap() + 5;
    tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
    assert_oauth_error(
        &exchange(
            &server,
            &backend,
            &String::from_utf8(tampered).unwrap(),
            ACCESS_TOKEN_TYPE,
        )
        .await,
        "invalid_grant",
    );
    for alg in ["none", "HS256"] {
        assert_oauth_error(
            &exchange(&server, &backend, &forged(&subject, alg), ACCESS_TOKEN_TYPE).await,
            "invalid_grant",
        );
    }
    // Claims of an issuer we do not trust, and no JWT at all.
    let untrusted = {
        let claims = json!({"iss": "https://idp.evil.test", "sub": "linus", "aud": strategy, "exp": 4102444800i64});
        let b64 = |v: &serde_json::Value| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
        };
        format!("{}.{}.AAAA", b64(&json!({"alg": "RS256"})), b64(&claims))
    };
    for token in [untrusted.as_str(), "not a token", "a.b.c"] {
        assert_oauth_error(
            &exchange(&server, &backend, token, ACCESS_TOKEN_TYPE).await,
            "invalid_grant",
        );
    }
    // The provider's keys are cached: the exchange works with the provider gone.
    drop(provider);
    let cached = exchange(&server, &backend, &subject, ACCESS_TOKEN_TYPE).await;
    assert_eq!(cached.status, StatusCode::OK, "{}", cached.body);
    assert!(
        !server.log().contains(&subject),
        "a subject token reached the log"
    );
}
