//! The service's one outbound HTTP client (hyper-util), for the `SVC_URI` API-key fallback and `auth -c`.
//!
//! hyper-util is already the workspace's HTTP stack; a full client such as reqwest would add a second TLS stack and
//! redirect following we do not want. Every call carries a timeout, and redirects are never followed.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::Empty;
use hyper::{Request, StatusCode, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

pub type HttpClient = Client<HttpConnector, Empty<Bytes>>;

pub fn new() -> HttpClient {
    Client::builder(TokioExecutor::new()).build_http()
}

#[derive(Debug, thiserror::Error)]
pub enum GetError {
    #[error("invalid request: {0}")]
    Invalid(String),
    #[error("connection: {0}")]
    Connection(String),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

/// `GET uri` with `headers`; the response status, its body left unread.
pub async fn get_status(
    client: &HttpClient,
    uri: &str,
    headers: &[(&str, &str)],
    timeout: Duration,
) -> Result<StatusCode, GetError> {
    let uri: Uri = uri.parse().map_err(|e| GetError::Invalid(format!("{e}")))?;
    let mut request = Request::get(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Empty::new())
        .map_err(|e| GetError::Invalid(e.to_string()))?;
    match tokio::time::timeout(timeout, client.request(request)).await {
        Ok(Ok(response)) => Ok(response.status()),
        Ok(Err(e)) => Err(GetError::Connection(e.to_string())),
        Err(_) => Err(GetError::Timeout(timeout)),
    }
}
