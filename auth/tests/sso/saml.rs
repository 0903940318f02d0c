//! The SAML service provider end to end: our server, and an identity provider in Python (`saml_idp.py`: signxml
//! and lxml) that reads each AuthnRequest from the redirect our server sends and answers it with a signed
//! response, or with the hostile shapes an attacker would send instead. Every refusal must land on
//! `/auth/failure` and sign nobody in.

use std::io::Read;
use std::path::PathBuf;
use std::process::Command;

use base64::Engine;
use hyper::StatusCode;
use serde_json::{Value, json};

use super::super::support::external;
use super::super::support::http::Response;
use super::super::support::server::AuthServer;
use super::super::{Ctx, HOST, cookie_pair, signed_in};
use super::{assert_failure, query_param, user_by_email};

const IDP_SSO: &str = "https://idp.test/saml/sso";
const IDP_SLO: &str = "https://idp.test/saml/slo";
const SP_ENTITY: &str = "https://acme.test/saml/sp";
const GRACE: &str = "grace@idp.test";
const MALLORY: &str = "mallory@evil.test";

/// The identity provider: its signing key and certificate, an attacker's, and the Python that runs it.
struct Idp {
    dir: tempfile::TempDir,
    python: PathBuf,
    cert_pem: String,
}

fn rsa_identity(dir: &std::path::Path, name: &str) -> String {
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_RSA_SHA256).expect("RSA key");
    let cert = rcgen::CertificateParams::new(vec![format!("{name}.test")])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    std::fs::write(dir.join(format!("{name}.key")), key.serialize_pem()).unwrap();
    std::fs::write(dir.join(format!("{name}.crt")), cert.pem()).unwrap();
    cert.pem()
}

impl Idp {
    /// `None` (after reporting why) without a Python that has signxml.
    fn start() -> Option<Self> {
        let Some(python) = std::env::var_os("TEST_PYTHON").map(PathBuf::from) else {
            external::skip(
                "TEST_PYTHON is not set (a venv with .ci/requirements.txt, see .ci/install)",
            );
            return None;
        };
        let imports = Command::new(&python)
            .args(["-c", "import signxml, lxml"])
            .status()
            .is_ok_and(|s| s.success());
        if !imports {
            external::skip(&format!(
                "{python:?} lacks signxml (pip install -r .ci/requirements.txt)"
            ));
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let cert_pem = rsa_identity(dir.path(), "idp");
        rsa_identity(dir.path(), "attacker");
        Some(Idp {
            dir,
            python,
            cert_pem,
        })
    }

    fn path(&self, file: &str) -> String {
        self.dir.path().join(file).display().to_string()
    }

    /// The base64 `SAMLResponse` the identity provider (or the attacker) answers `request_url` with.
    fn answer(&self, request_url: &str, variant: &str, extra: Value) -> String {
        let mut spec = json!({
            "request_url": request_url,
            "variant": variant,
            "key": self.path("idp.key"),
            "cert": self.path("idp.crt"),
            "other_key": self.path("attacker.key"),
            "other_cert": self.path("attacker.crt"),
        });
        spec.as_object_mut()
            .unwrap()
            .extend(extra.as_object().cloned().unwrap_or_default());
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sso/saml_idp.py");
        let out = Command::new(&self.python)
            .arg(script)
            .arg(spec.to_string())
            .output()
            .expect("run saml_idp.py");
        assert!(
            out.status.success(),
            "saml_idp.py {variant}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    /// SHA-256 of the certificate, as operators copy it (upper-case hex with colons).
    fn fingerprint(&self) -> String {
        let b64 = base64::engine::general_purpose::STANDARD;
        let body: String = self
            .cert_pem
            .lines()
            .filter(|l| !l.starts_with("-----"))
            .collect();
        let der = b64.decode(body).unwrap();
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, &der);
        digest
            .as_ref()
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(":")
    }
}

/// `auth saml add` for `domain` with `extra` options; its id.
fn add_strategy(ctx: &Ctx, domain: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "saml",
        "add",
        "--domain",
        domain,
        "--name",
        "Corporate IdP",
        "--issuer",
        SP_ENTITY,
        "--idp-sso-target-url",
        IDP_SSO,
    ];
    args.extend_from_slice(extra);
    let row = ctx.cli(&args);
    assert_eq!(row["issuer"], SP_ENTITY, "{row}");
    row["id"].as_str().unwrap().to_string()
}

/// A login started at acme.test (`/auth/login` with a `continue`, then `/auth/saml`): the identity provider URL
/// and the session cookie that goes with it.
async fn start(server: &AuthServer, strategy: &str) -> (String, String) {
    let login = server
        .http
        .get(
            &format!("/auth/login?provider=saml&id={strategy}&continue=/app/home.html"),
            HOST,
            &[],
        )
        .await;
    assert_eq!(login.status, StatusCode::SEE_OTHER, "{}", login.body);
    assert_eq!(
        login.header("location"),
        Some(&*format!("/auth/saml?id={strategy}"))
    );
    let cookie = cookie_pair(&login.set_cookie("_coauth_session").unwrap());
    let started = server
        .http
        .get(
            &format!("/auth/saml?id={strategy}"),
            HOST,
            &[("cookie", &cookie)],
        )
        .await;
    assert_eq!(
        started.status,
        StatusCode::SEE_OTHER,
        "{}\n{}",
        started.body,
        server.log()
    );
    let cookie = cookie_pair(&started.set_cookie("_coauth_session").unwrap());
    (started.header("location").unwrap().to_string(), cookie)
}

/// The browser's POST of the response to our ACS URL.
async fn post(server: &AuthServer, strategy: &str, cookie: &str, saml_response: &str) -> Response {
    server
        .http
        .post_form(
            &format!("/auth/saml/callback/{strategy}"),
            HOST,
            &[("cookie", cookie)],
            &[("SAMLResponse", saml_response), ("RelayState", strategy)],
        )
        .await
}

/// The XML of a `SAMLRequest` sent by the HTTP-Redirect binding.
fn redirect_request(url: &str) -> String {
    let deflated = base64::engine::general_purpose::STANDARD
        .decode(query_param(url, "SAMLRequest").expect("SAMLRequest"))
        .unwrap();
    let mut xml = String::new();
    flate2::read::DeflateDecoder::new(&deflated[..])
        .read_to_string(&mut xml)
        .unwrap();
    xml
}

pub async fn saml_login_and_its_refusals(ctx: Ctx) {
    ctx.bootstrap();
    let Some(idp) = Idp::start() else {
        return;
    };
    let cert = idp.path("idp.crt");
    let strategy = add_strategy(
        &ctx,
        HOST,
        &["--idp-cert", &cert, "--idp-slo-target-url", IDP_SLO],
    );
    let server = AuthServer::start(&ctx.backend, &[]);

    // The AuthnRequest: to the identity provider by redirect, with our issuer, ACS URL and RelayState.
    let (url, cookie) = start(&server, &strategy).await;
    assert!(url.starts_with(&format!("{IDP_SSO}?SAMLRequest=")), "{url}");
    assert_eq!(query_param(&url, "RelayState").as_deref(), Some(&*strategy));
    let request = redirect_request(&url);
    let acs = format!("http://{HOST}/auth/saml/callback/{strategy}");
    assert!(
        request.contains(&format!("AssertionConsumerServiceURL=\"{acs}\"")),
        "{request}"
    );
    assert!(request.contains(SP_ENTITY), "{request}");

    // Accepted: grace is created with the attributes' email and name, signed in, and sent to `continue`.
    let answer = idp.answer(&url, "ok", json!({}));
    let response = post(&server, &strategy, &cookie, &answer).await;
    assert_eq!(
        response.status,
        StatusCode::SEE_OTHER,
        "{}\n{}",
        response.body,
        server.log()
    );
    assert_eq!(response.header("location"), Some("/app/home.html"));
    let session = cookie_pair(&response.set_cookie("_coauth_session").unwrap());
    assert!(signed_in(&server, &session).await);
    let grace = user_by_email(&ctx, GRACE).await.expect("grace created");
    assert_eq!(grace.name.as_deref(), Some("Grace Hopper"));
    assert_eq!(grace.login_count, 1);

    // Replayed with the old cookie (which still names the request): the assertion was used.
    assert_failure(&post(&server, &strategy, &cookie, &answer).await);
    assert!(server.logged("replay").await, "{}", server.log());

    // Every hostile or wrong response is refused and signs nobody in.
    // Each with the reason it must be refused for (in the log), so none passes by failing for another reason.
    let wrapped = "where one of each belongs (signature wrapping)";
    for (variant, reason) in [
        ("unsigned", "must be signed"),
        ("other_key", "must be signed"),
        ("xsw1", wrapped),
        ("xsw2", wrapped),
        ("xsw3", wrapped),
        ("xsw4", wrapped),
        ("xsw5", wrapped),
        ("xsw6", wrapped),
        ("xsw7", wrapped),
        ("xsw8", wrapped),
        ("comment_nameid", "XML comments are refused"),
        ("doctype", "DOCTYPE and entity declarations are refused"),
        ("wrong_audience", "AudienceRequirement"),
        ("wrong_destination", "Destination is not our ACS URL"),
        ("wrong_recipient", "Recipient does not match"),
        ("expired", "expired"),
    ] {
        let refusals_before = server.log().matches(reason).count();
        let (url, cookie) = start(&server, &strategy).await;
        let answer = idp.answer(&url, variant, json!({ "suffix": variant }));
        let response = post(&server, &strategy, &cookie, &answer).await;
        assert_eq!(
            (response.status, response.header("location")),
            (StatusCode::FOUND, Some("/auth/failure")),
            "{variant} was not refused:\n{}",
            server.log()
        );
        if let Some(set) = response.set_cookie("_coauth_session") {
            assert!(
                !signed_in(&server, &cookie_pair(&set)).await,
                "{variant} signed someone in"
            );
        }
        assert!(
            server.logged_times(reason, refusals_before + 1).await,
            "{variant} not refused for {reason:?}:\n{}",
            server.log()
        );
    }
    assert!(
        user_by_email(&ctx, MALLORY).await.is_none(),
        "no wrapped identity got in"
    );
    assert!(user_by_email(&ctx, "grace@idp.test.evil").await.is_none());

    // The answer to another session's request.
    let (url_a, _cookie_a) = start(&server, &strategy).await;
    let (url_b, cookie_b) = start(&server, &strategy).await;
    let answer = idp.answer(
        &url_b,
        "other_request",
        json!({ "in_response_to_of": url_a, "suffix": "x" }),
    );
    assert_failure(&post(&server, &strategy, &cookie_b, &answer).await);
    // Without the session cookie (a browser leaves the SameSite=Lax cookie out of the identity provider's
    // cross-site POST) the response is posted again from our own page, escaped, once.
    let answer = idp.answer(&url_b, "ok", json!({ "suffix": "y" }));
    let page = post(&server, &strategy, "", &answer).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(
        page.body
            .contains(&format!("name=\"SAMLResponse\" value=\"{answer}\"")),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("name=\"reposted\" value=\"1\""),
        "{}",
        page.body
    );
    let hostile = server
        .http
        .post_form(
            &format!("/auth/saml/callback/{strategy}"),
            HOST,
            &[],
            &[
                ("SAMLResponse", &answer),
                ("RelayState", "\"><script>alert(1)</script>"),
            ],
        )
        .await;
    assert!(
        !hostile.body.contains("<script>alert(1)"),
        "{}",
        hostile.body
    );
    assert!(
        hostile.body.contains("&quot;&gt;&lt;script&gt;"),
        "{}",
        hostile.body
    );
    // Posted again and still without a session: unsolicited (IdP-initiated) responses are refused.
    let again = server
        .http
        .post_form(
            &format!("/auth/saml/callback/{strategy}"),
            HOST,
            &[],
            &[("SAMLResponse", &answer), ("reposted", "1")],
        )
        .await;
    assert_failure(&again);

    // Tenant isolation: another authority's strategy neither starts here nor answers a login started here.
    ctx.cli(&[
        "authority",
        "add",
        "--domain",
        "other.test",
        "--name",
        "Other",
    ]);
    let foreign = add_strategy(&ctx, "other.test", &["--idp-cert", &cert]);
    let refused = server
        .http
        .get(&format!("/auth/saml?id={foreign}"), HOST, &[])
        .await;
    assert_failure(&refused);
    let (url, cookie) = start(&server, &strategy).await;
    let answer = idp.answer(&url, "ok", json!({ "suffix": "z" }));
    assert_failure(&post(&server, &foreign, &cookie, &answer).await);

    // Our SP metadata, to register at the identity provider.
    let metadata = server
        .http
        .get(&format!("/auth/saml/metadata/{strategy}"), HOST, &[])
        .await;
    assert_eq!(metadata.status, StatusCode::OK, "{}", metadata.body);
    assert!(
        metadata.body.contains(&format!("entityID=\"{SP_ENTITY}\"")),
        "{}",
        metadata.body
    );
    assert!(metadata.body.contains(&acs), "{}", metadata.body);
    let missing = server.http.get("/auth/saml/metadata/nope", HOST, &[]).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);

    // Single logout: signed out here, and sent to the identity provider with a LogoutRequest naming grace.
    let logout = server
        .http
        .get(
            &format!("/auth/saml/logout/{strategy}"),
            HOST,
            &[("cookie", &session)],
        )
        .await;
    assert_eq!(logout.status, StatusCode::SEE_OTHER, "{}", logout.body);
    let to = logout.header("location").unwrap();
    assert!(to.starts_with(&format!("{IDP_SLO}?SAMLRequest=")), "{to}");
    let request = redirect_request(to);
    assert!(
        request.contains("LogoutRequest") && request.contains(GRACE),
        "{request}"
    );
    assert!(!signed_in(&server, &session).await);
    assert!(
        !server.log().contains(&answer[..40]),
        "responses are never logged"
    );
}

pub async fn saml_fingerprint_strategy_and_add_command(ctx: Ctx) {
    ctx.bootstrap();
    let Some(idp) = Idp::start() else {
        return;
    };
    // Pinned by fingerprint: the certificate comes with the response, and only that certificate is trusted.
    let fingerprint = idp.fingerprint();
    let strategy = add_strategy(
        &ctx,
        HOST,
        &[
            "--idp-cert-fingerprint",
            &fingerprint,
            "--uid-attribute",
            "email",
            "--attribute-statements",
            r#"{"name": ["displayName"]}"#,
        ],
    );
    let server = AuthServer::start(&ctx.backend, &[]);
    let (url, cookie) = start(&server, &strategy).await;
    let response = post(
        &server,
        &strategy,
        &cookie,
        &idp.answer(&url, "signed_response", json!({})),
    )
    .await;
    assert_eq!(response.status, StatusCode::SEE_OTHER, "{}", server.log());
    assert!(user_by_email(&ctx, GRACE).await.is_some());
    let (url, cookie) = start(&server, &strategy).await;
    let forged = idp.answer(
        &url,
        "other_key",
        json!({ "suffix": "f", "name_id": MALLORY, "email": MALLORY }),
    );
    assert_failure(&post(&server, &strategy, &cookie, &forged).await);
    assert!(user_by_email(&ctx, MALLORY).await.is_none());

    // The command refuses what could never work, and says why.
    let cert = idp.path("idp.crt");
    let refusals: [(&[&str], &str); 4] = [
        (&[], "--idp-cert <IDP_CERT>"),
        (&["--idp-cert-fingerprint", "abc"], "hex digits"),
        (&["--idp-cert", "/nonexistent.pem"], "/nonexistent.pem"),
        (
            &[
                "--idp-cert",
                &cert,
                "--attribute-statements",
                r#"{"email": 5}"#,
            ],
            "attribute name",
        ),
    ];
    for (extra, why) in refusals {
        let mut args = vec![
            "saml",
            "add",
            "--domain",
            HOST,
            "--name",
            "x",
            "--issuer",
            SP_ENTITY,
            "--idp-sso-target-url",
            IDP_SSO,
        ];
        args.extend_from_slice(extra);
        let err = ctx.backend.cli(&[], &args).unwrap_err();
        assert!(err.contains(why), "{extra:?}: {err}");
    }
    let mut args = vec![
        "saml", "add", "--domain", HOST, "--name", "x", "--issuer", SP_ENTITY,
    ];
    args.extend_from_slice(&[
        "--idp-sso-target-url",
        "ftp://idp.test",
        "--idp-cert",
        &cert,
    ]);
    assert!(
        ctx.backend
            .cli(&[], &args)
            .unwrap_err()
            .contains("scheme ftp refused")
    );
}
