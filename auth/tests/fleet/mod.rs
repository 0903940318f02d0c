//! Three replicas behind a real nginx, on one PostgreSQL database and one Redis, as deployed: a sign-in attack
//! spread over them meets one limit, registrations are limited fleet-wide, sessions, codes and API keys from one
//! replica hold on the others, a revoked refresh token and a changed client secret stop working on every replica at
//! once, a Redis outage neither fails a request nor goes unnoticed, and ends; and a signing key rotation rolled out
//! one replica at a time never fails a token.

use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use hyper::StatusCode;
use serde_json::json;

use super::support::http::Http;
use super::support::nginx::Nginx;
use super::support::postgres::Postgres;
use super::support::redis_server::RedisServer;
use super::support::server::{AuthServer, Backend};
use super::{
    APP_REDIRECT, Ctx, EMAIL, HOST, PASSWORD, VERIFIER, code_flow_clients, code_flow_tokens,
    confidential_code, refreshed, session_cookie, sign_in, signed_in,
};

const REPLICAS: usize = 3;
const PER_ACCOUNT: usize = 5;
/// The account under attack (ada, of `bootstrap`, keeps signing in for the other checks).
const VICTIM: &str = "victim@acme.test";

/// nginx balancing round-robin over `replicas`, passing the client's address on.
fn balancer(replicas: &[AuthServer], port: u16) -> String {
    let servers: String = replicas
        .iter()
        .map(|r| format!("server {};", r.addr))
        .collect();
    format!(
        "upstream auth {{ {servers} }}\n\
         server {{ listen 127.0.0.1:{port};\n\
           location / {{ proxy_pass http://auth; proxy_set_header Host $http_host;\n\
             proxy_set_header X-Forwarded-For $remote_addr; }} }}"
    )
}

pub async fn three_replicas_behave_as_one(pg: Arc<Postgres>) {
    let (Some(nginx_program), Some(redis)) = (Nginx::program(), RedisServer::start()) else {
        return;
    };
    let ctx = Ctx {
        backend: Backend::postgres(pg).await,
        redis: None,
    };
    ctx.bootstrap();
    ctx.cli(&[
        "user",
        "add",
        "--domain",
        HOST,
        "--email",
        VICTIM,
        "--password",
        PASSWORD,
    ]);
    let (client_id, secret, _) = code_flow_clients(&ctx);
    let redis_url = redis.url();
    let per_account = PER_ACCOUNT.to_string();
    let env = [
        ("KVSTORE_URL", redis_url.as_str()),
        ("TRUSTED_PROXIES", "127.0.0.1"),
        ("SIGNIN_ATTEMPTS_PER_ACCOUNT", per_account.as_str()),
        ("REGISTRATION_LIMIT_PER_HOUR", "2"),
        (
            "COOKIE_SESSION_SECRET",
            "0123456789abcdef0123456789abcdef-fleet",
        ),
        ("SECRET_KEY_BASE", "fleet key base"),
    ];
    let replicas: Vec<AuthServer> = (0..REPLICAS)
        .map(|_| AuthServer::start(&ctx.backend, &env))
        .collect();
    let port = super::support::free_port();
    let nginx = Nginx::start(
        &nginx_program,
        Nginx::workdir(),
        &balancer(&replicas, port),
        port,
    );
    let front = Http::new(([127, 0, 0, 1], port).into());

    // A password-guessing attack on one account, concurrent, spread over the replicas: one budget in all.
    let attempts = 4 * PER_ACCOUNT;
    let answers = futures_join(
        (0..attempts)
            .map(|_| {
                let front = front.clone();
                async move {
                    front
                        .post_json(
                            "/auth/signin",
                            HOST,
                            &[],
                            json!({"email": VICTIM, "password": "guess"}),
                        )
                        .await
                        .status
                }
            })
            .collect(),
    )
    .await;
    let refused = answers
        .iter()
        .filter(|s| **s == StatusCode::UNAUTHORIZED)
        .count();
    let throttled = answers
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!(
        (refused, throttled),
        (PER_ACCOUNT, attempts - PER_ACCOUNT),
        "{answers:?}\n{}",
        nginx.error_log()
    );
    for (i, replica) in replicas.iter().enumerate() {
        assert!(
            replica.logged("sign-in throttled").await,
            "replica {i} saw no part of the attack"
        );
    }
    // Even the right password waits now, on any replica; another account does not.
    for replica in &replicas {
        let throttled = sign_in(replica, HOST, VICTIM, PASSWORD).await;
        assert_eq!(throttled.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(throttled.header("retry-after").is_some());
    }
    assert_eq!(
        sign_in(&replicas[0], HOST, "nobody@acme.test", "x")
            .await
            .status,
        StatusCode::UNAUTHORIZED
    );

    // Registrations: 2 an hour from one address, whichever replica answers.
    let registrations: Vec<StatusCode> = {
        let mut statuses = Vec::new();
        for _ in 0..REPLICAS {
            statuses.push(
                front
                    .post_json(
                        "/auth/register",
                        HOST,
                        &[],
                        json!({"redirect_uris": ["http://127.0.0.1:9/cb"]}),
                    )
                    .await
                    .status,
            );
        }
        statuses
    };
    assert_eq!(
        registrations,
        [
            StatusCode::CREATED,
            StatusCode::CREATED,
            StatusCode::TOO_MANY_REQUESTS
        ]
    );

    // A session, a code and an API key from one replica hold on the others at once.
    let cookie = session_cookie(&replicas[0]).await;
    for replica in &replicas {
        assert!(signed_in(replica, &cookie).await);
    }
    let code = confidential_code(&replicas[0], &cookie, &client_id, "public").await;
    let redeemed = replicas[2]
        .http
        .post_form(
            "/auth/token",
            HOST,
            &[],
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("client_id", &client_id),
                ("client_secret", &secret),
                ("code_verifier", VERIFIER),
                ("redirect_uri", APP_REDIRECT),
            ],
        )
        .await;
    assert_eq!(redeemed.status, StatusCode::OK, "{}", redeemed.body);
    let key = ctx.cli(&["apikey", "add", "--domain", HOST, "--email", EMAIL])["key"]
        .as_str()
        .unwrap()
        .to_string();
    for replica in &replicas {
        let authority = replica
            .http
            .get("/auth/authority", HOST, &[("x-api-key", &key)])
            .await;
        assert_eq!(authority.json()["token_valid"], true);
    }

    // Revocation through the balancer holds on every replica at once.
    let tokens = code_flow_tokens(&replicas[1], &client_id, &secret).await;
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let access = tokens["access_token"].as_str().unwrap();
    let revoked = front
        .post_form(
            "/auth/revoke",
            HOST,
            &[],
            &[
                ("token", refresh),
                ("client_id", &client_id),
                ("client_secret", &secret),
            ],
        )
        .await;
    assert_eq!(revoked.status, StatusCode::OK, "{}", revoked.body);
    let revoked_at = Instant::now();
    for replica in &replicas {
        let refused = refreshed(replica, (&client_id, &secret), refresh).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.body);
        assert_eq!(refused.json()["error"], "invalid_grant");
        let userinfo = replica
            .http
            .get(
                "/auth/userinfo",
                HOST,
                &[("authorization", &format!("Bearer {access}"))],
            )
            .await;
        assert_eq!(
            userinfo.status,
            StatusCode::UNAUTHORIZED,
            "{}",
            userinfo.body
        );
    }
    assert!(
        revoked_at.elapsed() < Duration::from_secs(1),
        "every replica refused within a second"
    );

    // A client's secret changed in the database: the old one fails on every replica at once.
    let credentials = |secret: &str| {
        [
            ("grant_type", "client_credentials".to_string()),
            ("client_id", client_id.clone()),
            ("client_secret", secret.to_string()),
        ]
    };
    for replica in &replicas {
        let form = credentials(&secret);
        let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let issued = replica
            .http
            .post_form("/auth/token", HOST, &[], &form)
            .await;
        assert_eq!(issued.status, StatusCode::OK, "{}", issued.body);
    }
    ctx.backend
        .execute(
            "UPDATE oauth_applications SET secret = $1 WHERE uid = $2",
            &["a new secret", &client_id],
        )
        .await;
    for replica in &replicas {
        for (secret, status) in [
            (secret.as_str(), StatusCode::UNAUTHORIZED),
            ("a new secret", StatusCode::OK),
        ] {
            let form = credentials(secret);
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let answer = replica
                .http
                .post_form("/auth/token", HOST, &[], &form)
                .await;
            assert_eq!(answer.status, status, "{}", answer.body);
        }
    }

    // Redis goes away: sign-ins still answer (counted per replica), the outage is logged once per replica.
    let redis_port = redis.port;
    drop(redis);
    for _ in 0..3 {
        let answer = sign_in(&replicas[2], HOST, "carol@acme.test", "x").await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    assert!(replicas[2].logged("KVSTORE_URL Redis unreachable").await);
    assert_eq!(
        replicas[2]
            .log()
            .matches("KVSTORE_URL Redis unreachable")
            .count(),
        1
    );
    let metrics = replicas[2].http.get("/auth/metrics", HOST, &[]).await;
    assert!(
        metrics.body.contains("auth_shared_counter_failures_total"),
        "{}",
        metrics.body
    );
    // Back again: counted in Redis once more.
    let redis = RedisServer::start_on(RedisServer::program().unwrap(), redis_port);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let answer = sign_in(&replicas[2], HOST, "carol@acme.test", "x").await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(
        replicas[2]
            .logged("shared limits count in Redis again")
            .await,
        "{}",
        replicas[2].log()
    );
    drop((nginx, redis));
    key_rotation_one_replica_at_a_time(&ctx, (&client_id, "a new secret")).await;
}

/// `JWT_SECRET` rotated from the development key to another in two passes over three replicas, one replica
/// restarted at a time (first: old private key + new public key; then: new private key + old public key): after
/// every restart, a token issued by any replica is accepted by every replica.
async fn key_rotation_one_replica_at_a_time(ctx: &Ctx, client: (&str, &str)) {
    let b64 = |pem: String| base64::engine::general_purpose::STANDARD.encode(pem);
    let old = include_str!("../../src/dev_jwt_key.pem");
    let old_public = include_str!("../fixtures/dev_jwt_public.pem");
    let new = include_str!("../fixtures/production_jwt_key.pem");
    let new_public = include_str!("../fixtures/production_jwt_key.pub.pem");
    let phases = [
        b64(old.to_string()),
        b64(format!("{old}{new_public}")),
        b64(format!("{new}{old_public}")),
    ];
    let start = |phase: usize| AuthServer::start(&ctx.backend, &[("JWT_SECRET", &phases[phase])]);
    let mut replicas: Vec<AuthServer> = (0..REPLICAS).map(|_| start(0)).collect();
    for phase in 1..phases.len() {
        for i in 0..REPLICAS {
            replicas[i] = start(phase);
            for (n, issuer) in replicas.iter().enumerate() {
                let token = issuer
                    .http
                    .post_form(
                        "/auth/token",
                        HOST,
                        &[],
                        &[
                            ("grant_type", "client_credentials"),
                            ("client_id", client.0),
                            ("client_secret", client.1),
                        ],
                    )
                    .await;
                assert_eq!(token.status, StatusCode::OK, "{}", token.body);
                let token = token.json()["access_token"].as_str().unwrap().to_string();
                for (m, verifier) in replicas.iter().enumerate() {
                    let authority = verifier
                        .http
                        .get(
                            "/auth/authority",
                            HOST,
                            &[("authorization", &format!("Bearer {token}"))],
                        )
                        .await;
                    assert_eq!(
                        authority.json()["token_valid"],
                        true,
                        "phase {phase}, replica {i} restarted: replica {m} refuses replica {n}'s token"
                    );
                }
            }
        }
    }
}

/// Runs `futures` concurrently on this thread's runtime and collects their outputs in order.
async fn futures_join<F>(futures: Vec<F>) -> Vec<F::Output>
where
    F: std::future::Future + 'static,
    F::Output: 'static,
{
    let set = tokio::task::LocalSet::new();
    set.run_until(async move {
        let handles: Vec<_> = futures.into_iter().map(tokio::task::spawn_local).collect();
        let mut out = Vec::new();
        for h in handles {
            out.push(h.await.expect("task"));
        }
        out
    })
    .await
}
