//! Real third-party OAuth/OIDC clients in Python (Authlib, requests-oauthlib, PyJWT, the MCP SDK) against the real
//! server: one trial per script beside this file, each on a fresh SQLite store with two authorities. The scripts get the
//! base URLs and fixtures in their environment and exit non-zero with a `FAILED:` line on the first surprise.
//!
//! They need `$TEST_PYTHON`, a Python whose environment holds `.ci/requirements.txt` (`bash .ci/install` makes
//! one); without it they skip, unless `REQUIRE_EXTERNAL_TESTS=1`.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use libtest_mimic::Trial;

use super::support::external;
use super::support::server::{AuthServer, Backend};

const SCRIPTS: &[&str] = &[
    "authlib_code_flow",
    "requests_oauthlib_code_flow",
    "pyjwt_verifies_tokens",
    "refusals",
    "mcp_client_registration",
];
const EMAIL: &str = "grace@localhost";
const PASSWORD: &str = "correct horse battery";
const REDIRECT_URI: &str = "https://app.test/cb";
/// The refresh replay grace the server runs with, so `refusals.py` waits it out in seconds.
const GRACE_SECONDS: &str = "1";
/// A script that runs longer than this is stuck (a normal run takes a few seconds).
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(120);

pub fn trials() -> Vec<Trial> {
    SCRIPTS
        .iter()
        .map(|&script| {
            Trial::test(format!("python::{script}"), move || {
                if let Some(python) = python() {
                    super::run(run_script(python, script));
                }
                Ok(())
            })
        })
        .collect()
}

/// `$TEST_PYTHON` if it can import every client library, or `None` after reporting why not.
fn python() -> Option<PathBuf> {
    let Some(python) = std::env::var_os("TEST_PYTHON") else {
        external::skip(
            "TEST_PYTHON is not set (a venv with .ci/requirements.txt, see .ci/install)",
        );
        return None;
    };
    let imports = Command::new(&python)
        .args([
            "-c",
            "import authlib, requests_oauthlib, jwt, requests, cryptography, mcp.client.auth",
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !imports {
        external::skip(&format!(
            "{python:?} lacks the OAuth client libraries (pip install -r .ci/requirements.txt)"
        ));
        return None;
    }
    Some(PathBuf::from(python))
}

/// A client's `(client_id, client_secret)` on `domain`.
fn add_client(backend: &Backend, domain: &str) -> (String, String) {
    let client = backend
        .cli(
            &[],
            &[
                "client",
                "add",
                "--domain",
                domain,
                "--name",
                "App",
                "--redirect-uri",
                REDIRECT_URI,
            ],
        )
        .expect("client add");
    let text = |name: &str| client[name].as_str().expect(name).to_string();
    (text("client_id"), text("client_secret"))
}

async fn run_script(python: PathBuf, script: &str) {
    let backend = Backend::sqlite();
    // Two authorities a Python client reaches without name resolution: the one under test and another one.
    for domain in ["localhost", "127.0.0.1"] {
        for args in [
            &["authority", "add", "--domain", domain, "--name", domain][..],
            &[
                "user",
                "add",
                "--domain",
                domain,
                "--email",
                EMAIL,
                "--password",
                PASSWORD,
            ],
        ] {
            backend.cli(&[], args).expect("bootstrap");
        }
    }
    let (client_id, client_secret) = add_client(&backend, "localhost");
    let (foreign_id, foreign_secret) = add_client(&backend, "127.0.0.1");
    let server = AuthServer::start(&backend, &[("REFRESH_REPLAY_GRACE_SECONDS", GRACE_SECONDS)]);
    let port = server.addr.port();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python");
    let mut child = Command::new(&python)
        .arg(dir.join(format!("{script}.py")))
        .current_dir(&dir)
        // A clean environment: no proxy variables between the clients and the loopback server.
        .env_clear()
        .envs([
            ("AUTH_BASE", format!("http://localhost:{port}")),
            ("AUTH_OTHER_BASE", format!("http://127.0.0.1:{port}")),
            ("CLIENT_ID", client_id),
            ("CLIENT_SECRET", client_secret),
            ("FOREIGN_CLIENT_ID", foreign_id),
            ("FOREIGN_CLIENT_SECRET", foreign_secret),
            ("REDIRECT_URI", REDIRECT_URI.into()),
            ("USER_EMAIL", EMAIL.into()),
            ("USER_PASSWORD", PASSWORD.into()),
            ("ACCESS_ISSUER", "POS".into()),
            ("ACCESS_AUDIENCE", "localhost".into()),
            ("REFRESH_REPLAY_GRACE_SECONDS", GRACE_SECONDS.into()),
            (
                "JWT_KEY_FILE",
                PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("src/dev_jwt_key.pem")
                    .display()
                    .to_string(),
            ),
            // Both libraries refuse plain-HTTP token endpoints unless told; the server listens on loopback only.
            ("AUTHLIB_INSECURE_TRANSPORT", "1".into()),
            ("OAUTHLIB_INSECURE_TRANSPORT", "1".into()),
            ("PYTHONDONTWRITEBYTECODE", "1".into()),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Python client");
    let deadline = Instant::now() + SCRIPT_TIMEOUT;
    while child.try_wait().expect("wait for the script").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let output = child.wait_with_output().expect("script output");
    assert!(
        output.status.success(),
        "{script}.py failed ({}):\n{}{}\n--- server log:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        server.log()
    );
}
