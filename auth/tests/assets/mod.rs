//! The `verified` asset cookie: issued at sign-in, by `/auth/authority` for a valid token or key and by the API-key
//! login, cleared at logout, checked by `/auth/verified`; and the nginx configuration of docs/auth.md, run as
//! written in front of the real server, serving an asset only to a browser holding a valid cookie.

use base64::Engine;
use hmac::{Hmac, Mac};
use hyper::StatusCode;
use sha2::Sha256;

use super::support::http::Http;
use super::support::nginx::Nginx;
use super::support::server::{AuthServer, Backend};
use super::{Ctx, EMAIL, HOST, PASSWORD, cookie_pair, sign_in};

const SECRET_KEY_BASE: &str = "a secret key base shared by every replica and the web server";

/// The value of a `Set-Cookie: verified=...` line.
fn value(set_cookie: &str) -> &str {
    set_cookie
        .split(';')
        .next()
        .and_then(|pair| pair.strip_prefix("verified="))
        .expect("verified=...")
}

/// Checks the legacy format by recomputing the HMAC independently.
fn assert_signed(value: &str, key: &str) {
    let (nonce, tag) = value.split_once('.').expect("nonce.tag");
    assert_eq!(nonce.len(), 16, "{value}");
    assert!(
        nonce
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    let mut mac = Hmac::<Sha256>::new_from_slice(key.as_bytes()).unwrap();
    mac.update(nonce.as_bytes());
    assert_eq!(
        tag,
        hex::encode(mac.finalize().into_bytes()),
        "HMAC-SHA256 of the nonce"
    );
}

async fn check(http: &Http, cookie: Option<&str>) -> StatusCode {
    let headers: Vec<(&str, &str)> = cookie.map(|c| ("cookie", c)).into_iter().collect();
    http.get("/auth/verified", HOST, &headers).await.status
}

pub async fn asset_cookie_follows_sign_in_and_logout(ctx: Ctx) {
    ctx.bootstrap();
    let key = ctx.cli(&["apikey", "add", "--domain", HOST, "--email", EMAIL])["key"]
        .as_str()
        .unwrap()
        .to_string();
    let server = AuthServer::start(&ctx.backend, &[("SECRET_KEY_BASE", SECRET_KEY_BASE)]);

    let signed_in = sign_in(&server, HOST, EMAIL, PASSWORD).await;
    assert_eq!(signed_in.status, StatusCode::ACCEPTED);
    assert!(
        signed_in.set_cookie("_coauth_session").is_some(),
        "the session cookie too"
    );
    let set_cookie = signed_in
        .set_cookie("verified")
        .expect("asset cookie at sign-in");
    let attributes: Vec<&str> = set_cookie.split("; ").skip(1).collect();
    for expected in ["Path=/", "HttpOnly", "SameSite=None"] {
        assert!(
            attributes.contains(&expected),
            "{expected} missing: {set_cookie}"
        );
    }
    assert!(
        !attributes.contains(&"Secure"),
        "no Secure outside production: {set_cookie}"
    );
    assert_signed(value(&set_cookie), SECRET_KEY_BASE);
    let cookie = cookie_pair(&set_cookie);
    assert_eq!(
        check(&server.http, Some(&cookie)).await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(check(&server.http, None).await, StatusCode::UNAUTHORIZED);
    let mut forged = cookie.clone().into_bytes();
    let last = forged.len() - 1;
    forged[last] = if forged[last] == b'0' { b'1' } else { b'0' };
    let forged = String::from_utf8(forged).unwrap();
    assert_eq!(
        check(&server.http, Some(&forged)).await,
        StatusCode::UNAUTHORIZED
    );
    // Two sign-ins, two cookies.
    let again = sign_in(&server, HOST, EMAIL, PASSWORD)
        .await
        .set_cookie("verified")
        .unwrap();
    assert_ne!(value(&again), value(&set_cookie));
    // A browser form sign-in (303) gets it too; a failed one does not.
    let form = server
        .http
        .post_form(
            "/auth/signin",
            HOST,
            &[],
            &[
                ("email", EMAIL),
                ("password", PASSWORD),
                ("continue", "/a.html"),
            ],
        )
        .await;
    assert_eq!(form.status, StatusCode::SEE_OTHER);
    assert!(form.set_cookie("verified").is_some());
    let failed = sign_in(&server, HOST, EMAIL, "wrong").await;
    assert!(failed.set_cookie("verified").is_none());

    // /auth/authority: only for a valid token or key.
    let anonymous = server.http.get("/auth/authority", HOST, &[]).await;
    assert_eq!(anonymous.status, StatusCode::OK);
    assert!(anonymous.set_cookie("verified").is_none());
    let with_key = server
        .http
        .get("/auth/authority", HOST, &[("x-api-key", &key)])
        .await;
    assert_eq!(with_key.json()["token_valid"], true);
    assert_signed(
        value(
            &with_key
                .set_cookie("verified")
                .expect("cookie for a valid key"),
        ),
        SECRET_KEY_BASE,
    );
    let bad_key = server
        .http
        .get("/auth/authority", HOST, &[("x-api-key", "0123.bad")])
        .await;
    assert_eq!(bad_key.status, StatusCode::UNAUTHORIZED);
    assert!(bad_key.set_cookie("verified").is_none());
    let token = server
        .http
        .get(
            "/auth/authority",
            HOST,
            &[("authorization", "Bearer not-a-token")],
        )
        .await;
    assert_eq!(token.json()["token_valid"], false);
    assert!(token.set_cookie("verified").is_none());

    // The API-key login path.
    let login = server
        .http
        .get(
            &format!("/auth/login?continue=%2Fapp.html&api-key={key}"),
            HOST,
            &[],
        )
        .await;
    assert_eq!(login.status, StatusCode::SEE_OTHER);
    assert_signed(
        value(
            &login
                .set_cookie("verified")
                .expect("cookie at API-key login"),
        ),
        SECRET_KEY_BASE,
    );
    let plain_login = server.http.get("/auth/login", HOST, &[]).await;
    assert!(plain_login.set_cookie("verified").is_none());

    // Logout clears it (with the session cookie).
    let session = cookie_pair(&signed_in.set_cookie("_coauth_session").unwrap());
    let logout = server
        .http
        .get(
            "/auth/logout",
            HOST,
            &[("cookie", &format!("{session}; {cookie}"))],
        )
        .await;
    assert_eq!(logout.status, StatusCode::FOUND);
    let cleared = logout.set_cookie("verified").expect("asset cookie cleared");
    assert!(cleared.starts_with("verified=;"), "{cleared}");
    assert!(
        cleared.contains("Max-Age=0") && cleared.contains("Path=/"),
        "{cleared}"
    );
    assert!(logout.set_cookie("_coauth_session").is_some());

    // Another replica with the same key accepts it; a server with another key does not.
    let replica = AuthServer::start(&ctx.backend, &[("SECRET_KEY_BASE", SECRET_KEY_BASE)]);
    assert_eq!(
        check(&replica.http, Some(&cookie)).await,
        StatusCode::NO_CONTENT
    );
    let stranger = AuthServer::start(&ctx.backend, &[("SECRET_KEY_BASE", "another key base")]);
    assert_eq!(
        check(&stranger.http, Some(&cookie)).await,
        StatusCode::UNAUTHORIZED
    );
    let unset = AuthServer::start(&ctx.backend, &[]);
    assert!(unset.logged("SECRET_KEY_BASE is unset").await);

    // Production: Secure.
    let jwt = base64::engine::general_purpose::STANDARD
        .encode(include_str!("../fixtures/production_jwt_key.pem"));
    let production = AuthServer::start(
        &ctx.backend,
        &[
            ("APP_ENV", "production"),
            ("JWT_SECRET", jwt.as_str()),
            (
                "COOKIE_SESSION_SECRET",
                "0123456789abcdef0123456789abcdef-shared",
            ),
            ("SECRET_KEY_BASE", SECRET_KEY_BASE),
        ],
    );
    let secure = sign_in(&production, HOST, EMAIL, PASSWORD)
        .await
        .set_cookie("verified")
        .unwrap();
    let attributes: Vec<&str> = secure.split("; ").skip(1).collect();
    for expected in ["Path=/", "HttpOnly", "SameSite=None", "Secure"] {
        assert!(
            attributes.contains(&expected),
            "{expected} missing in production: {secure}"
        );
    }
    let log = server.log();
    assert!(
        !log.contains(value(&set_cookie)),
        "an asset cookie reached the log"
    );
}

/// The ```nginx block of docs/auth.md, with its upstream, port and asset root pointed at this test's.
fn documented_config(auth: std::net::SocketAddr, port: u16, root: &std::path::Path) -> String {
    let docs = include_str!("../../../docs/auth.md");
    let start = docs
        .find("```nginx\n")
        .expect("docs/auth.md has an ```nginx block")
        + "```nginx\n".len();
    let end = start + docs[start..].find("```").expect("the block ends");
    let block = &docs[start..end];
    for placeholder in ["127.0.0.1:3000", "listen 8080;", "/srv/www"] {
        assert!(
            block.contains(placeholder),
            "the documented config names {placeholder}"
        );
    }
    block
        .replace("127.0.0.1:3000", &auth.to_string())
        .replace("listen 8080;", &format!("listen 127.0.0.1:{port};"))
        .replace("/srv/www", &root.display().to_string())
}

/// A standalone trial: the documented nginx in front of the server.
pub async fn nginx_serves_assets_to_verified_browsers() {
    let Some(program) = Nginx::program() else {
        return;
    };
    let backend = Backend::sqlite();
    let cli = |args: &[&str]| backend.cli(&[], args).expect("bootstrap");
    cli(&["authority", "add", "--domain", HOST, "--name", "Acme"]);
    cli(&[
        "user",
        "add",
        "--domain",
        HOST,
        "--email",
        EMAIL,
        "--password",
        PASSWORD,
    ]);
    let server = AuthServer::start(
        &backend,
        &[
            ("SECRET_KEY_BASE", SECRET_KEY_BASE),
            ("TRUSTED_PROXIES", "127.0.0.1"),
        ],
    );
    let dir = Nginx::workdir();
    let root = dir.path().join("www");
    std::fs::create_dir_all(root.join("assets")).unwrap();
    std::fs::write(root.join("assets/app.js"), "console.log('asset');\n").unwrap();
    let port = super::support::free_port();
    let config = documented_config(server.addr, port, &root);
    let nginx = Nginx::start(&program, dir, &config, port);
    let front = Http::new(([127, 0, 0, 1], port).into());
    let asset = |cookie: Option<String>| {
        let front = front.clone();
        async move {
            let headers: Vec<(&str, &str)> = cookie
                .as_deref()
                .map(|c| ("cookie", c))
                .into_iter()
                .collect();
            front.get("/assets/app.js", HOST, &headers).await
        }
    };
    assert_eq!(
        asset(None).await.status,
        StatusCode::FORBIDDEN,
        "no cookie: refused by the map alone"
    );
    assert_eq!(
        asset(Some("verified=nonsense".into())).await.status,
        StatusCode::FORBIDDEN
    );
    let forged = format!("verified={}.{}", "0".repeat(16), "0".repeat(64));
    assert_eq!(
        asset(Some(forged)).await.status,
        StatusCode::UNAUTHORIZED,
        "well-formed, wrong HMAC: refused by auth"
    );
    let other_key = {
        let mut mac = Hmac::<Sha256>::new_from_slice(b"another key").unwrap();
        mac.update(b"0123456789abcdef");
        format!(
            "verified=0123456789abcdef.{}",
            hex::encode(mac.finalize().into_bytes())
        )
    };
    assert_eq!(
        asset(Some(other_key)).await.status,
        StatusCode::UNAUTHORIZED
    );

    // Sign in through nginx: the cookie it sets opens the asset.
    let signed_in = front
        .post_json(
            "/auth/signin",
            HOST,
            &[],
            serde_json::json!({"email": EMAIL, "password": PASSWORD}),
        )
        .await;
    assert_eq!(signed_in.status, StatusCode::ACCEPTED, "{}", signed_in.body);
    let cookie = cookie_pair(
        &signed_in
            .set_cookie("verified")
            .expect("asset cookie through nginx"),
    );
    let served = asset(Some(cookie.clone())).await;
    assert_eq!(
        served.status,
        StatusCode::OK,
        "{}\n{}",
        served.body,
        nginx.error_log()
    );
    assert_eq!(served.body, "console.log('asset');\n");
    // Among other cookies, too.
    let among = asset(Some(format!("a=1; {cookie}; b=2"))).await;
    assert_eq!(among.status, StatusCode::OK);
    // Logout through nginx clears it.
    let logout = front
        .get("/auth/logout", HOST, &[("cookie", &cookie)])
        .await;
    assert!(
        logout
            .set_cookie("verified")
            .is_some_and(|c| c.contains("Max-Age=0"))
    );
}
