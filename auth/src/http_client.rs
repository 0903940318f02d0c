//! The service's one outbound HTTP client (hyper-util), for the `SVC_URI` API-key fallback, `auth -c`, and the
//! OAuth 2.0 client's calls to identity providers.
//!
//! hyper-util is already the workspace's HTTP stack; a full client such as reqwest would add a second TLS stack and
//! redirect following we do not want. Every call carries a timeout, redirects are never followed (a 3xx comes back
//! as it is), and a response body is read up to a limit only.
//!
//! `https://` URLs are verified against the system's CA bundle plus, when set, `SSO_PROVIDER_CA_FILE` (a company's
//! internal CA that issued its identity provider's certificate). `http://` stays allowed: loopback providers in
//! tests, and the plain-HTTP `SVC_URI` sidecar.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::{Request, Response, StatusCode, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

pub type HttpClient = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// The client, trusting the system's CA certificates and those of the PEM file `extra_ca`.
pub fn new(extra_ca: Option<&Path>) -> Result<HttpClient, HttpError> {
    let mut roots = RootCertStore::empty();
    // A system bundle with a few unreadable entries still yields the others; none at all is only an error when no
    // file adds any (checked below), so a host without ca-certificates still runs with an operator's CA.
    let system = rustls_native_certs::load_native_certs();
    roots.add_parsable_certificates(system.certs);
    if let Some(path) = extra_ca {
        let certs = CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| HttpError::Invalid(format!("{}: {e}", path.display())))?;
        if certs.is_empty() {
            return Err(HttpError::Invalid(format!(
                "{}: no CERTIFICATE block",
                path.display()
            )));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| HttpError::Invalid(format!("{}: {e}", path.display())))?;
        }
    }
    if roots.is_empty() {
        tracing::warn!("no CA certificate found: https:// providers will be refused");
    }
    // The provider is named here rather than installed process-wide: nothing else can change which one is used.
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| HttpError::Invalid(e.to_string()))?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http()
        .enable_http1()
        .build();
    Ok(Client::builder(TokioExecutor::new()).build(connector))
}

/// `e` with its causes: hyper's own text ("client error (Connect)") leaves out why, such as a refused certificate.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("invalid request: {0}")]
    Invalid(String),
    #[error("connection: {0}")]
    Connection(String),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("response body: {0}")]
    Body(String),
}

/// `GET uri` with `headers`; the response status, its body left unread.
pub async fn get_status(
    client: &HttpClient,
    uri: &str,
    headers: &[(&str, &str)],
    timeout: Duration,
) -> Result<StatusCode, HttpError> {
    let uri: Uri = uri
        .parse()
        .map_err(|e| HttpError::Invalid(format!("{e}")))?;
    let mut request = Request::get(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::default())
        .map_err(|e| HttpError::Invalid(e.to_string()))?;
    match tokio::time::timeout(timeout, client.request(request)).await {
        Ok(Ok(response)) => Ok(response.status()),
        Ok(Err(e)) => Err(HttpError::Connection(chain(&e))),
        Err(_) => Err(HttpError::Timeout(timeout)),
    }
}

/// Sends `request` and reads the whole answer, body included, within `timeout`; a body longer than `max_body`
/// bytes is an error rather than memory spent on it.
pub async fn fetch(
    client: &HttpClient,
    request: Request<Full<Bytes>>,
    timeout: Duration,
    max_body: usize,
) -> Result<Response<Bytes>, HttpError> {
    let exchange = async {
        let response = client
            .request(request)
            .await
            .map_err(|e| HttpError::Connection(chain(&e)))?;
        let (parts, body) = response.into_parts();
        let body = Limited::new(body, max_body)
            .collect()
            .await
            .map_err(|e| HttpError::Body(e.to_string()))?
            .to_bytes();
        Ok(Response::from_parts(parts, body))
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .map_err(|_| HttpError::Timeout(timeout))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_without_a_certificate_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no PEM here\n").unwrap();
        let missing = dir.path().join("missing.pem");
        for path in [empty, missing] {
            let Err(error) = new(Some(&path)) else {
                panic!("{} accepted", path.display())
            };
            assert!(
                error.to_string().contains(&*path.to_string_lossy()),
                "{error}"
            );
        }
    }
}
