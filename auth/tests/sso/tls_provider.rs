//! The OAuth 2.0 client over HTTPS: a provider behind a certificate of the tests' own CA (rcgen), served with
//! rustls. Trusted through `SSO_PROVIDER_CA_FILE` the login completes; without it the certificate is refused and the
//! login fails before the code or the client secret is sent.

use std::sync::Arc;

use axum::http::HeaderMap;
use axum::routing::{get, post};
use hyper::StatusCode;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::service::TowerToHyperService;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use serde_json::json;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};

use super::super::support::server::AuthServer;
use super::super::{Ctx, HOST};
use super::{add_strategy, assert_failure, callback, query_param, start_login, user_by_email};

const ACCESS_TOKEN: &str = "tls-access-token";

/// Serves a provider on `https://127.0.0.1:<port>` (its certificate issued by a new CA for 127.0.0.1); the site
/// and the CA certificate's PEM.
async fn start() -> (String, String) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_string()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let tls = tokio_rustls::rustls::ServerConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![leaf.der().clone()],
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
    )
    .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(tls));
    let provider = axum::Router::new()
        .route(
            "/token",
            post(|| async {
                axum::Json(json!({ "access_token": ACCESS_TOKEN, "token_type": "Bearer" }))
            }),
        )
        .route(
            "/me",
            get(|headers: HeaderMap| async move {
                let bearer = format!("Bearer {ACCESS_TOKEN}");
                if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(&bearer) {
                    return Err(StatusCode::UNAUTHORIZED);
                }
                Ok(axum::Json(
                    json!({ "id": 4242, "email": "tess@tls.test", "name": "Tess" }),
                ))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let site = format!("https://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let (acceptor, provider) = (acceptor.clone(), provider.clone());
            tokio::spawn(async move {
                // A client that refuses our certificate ends the handshake: nothing to serve.
                let Ok(stream) = acceptor.accept(socket).await else {
                    return;
                };
                let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), TowerToHyperService::new(provider))
                    .await;
            });
        }
    });
    (site, ca.pem())
}

pub async fn oauth2_login_over_https(ctx: Ctx) {
    ctx.bootstrap();
    let (site, ca_pem) = start().await;
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, ca_pem).unwrap();
    let strategy = add_strategy(
        &ctx,
        &site,
        &["--token-url", "/token", "--raw-info-url", "/me"],
    );

    // Not trusted: the handshake fails, so the code never leaves.
    let untrusting = AuthServer::start(&ctx.backend, &[]);
    let (start, cookie) = start_login(&untrusting, &strategy, HOST).await;
    let state = query_param(start.header("location").unwrap(), "state").unwrap();
    let back = format!("http://{HOST}/auth/oauth2/callback?id={strategy}&code=c&state={state}");
    assert_failure(&callback(&untrusting, &back, &cookie).await);
    assert!(
        untrusting.logged("certificate").await,
        "{}",
        untrusting.log()
    );
    assert!(user_by_email(&ctx, "tess@tls.test").await.is_none());

    let server = AuthServer::start(
        &ctx.backend,
        &[("SSO_PROVIDER_CA_FILE", ca_file.to_str().unwrap())],
    );
    let (start, cookie) = start_login(&server, &strategy, HOST).await;
    assert!(
        start.header("location").unwrap().starts_with(&site),
        "{:?}",
        start.header("location")
    );
    let state = query_param(start.header("location").unwrap(), "state").unwrap();
    let back = format!("http://{HOST}/auth/oauth2/callback?id={strategy}&code=c&state={state}");
    let response = callback(&server, &back, &cookie).await;
    assert_eq!(response.status, StatusCode::SEE_OTHER, "{}", server.log());
    let user = user_by_email(&ctx, "tess@tls.test")
        .await
        .expect("tess created");
    assert_eq!(user.name.as_deref(), Some("Tess"));
}
