//! The OAuth 2.0 client's calls to a provider, over the service's one HTTP client (see `http_client`): the token
//! request the `oauth2` crate builds, and the JSON documents we fetch ourselves (profile, discovery, JWKS).
//! Each call is bounded by `SSO_PROVIDER_TIMEOUT_SECONDS` and a body limit, and a redirect is an error: following
//! one would send the code, the client secret or the access token wherever the provider's answer points.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use hyper::{Method, Request, Uri};
use serde_json::Value;
use url::Url;

use crate::http_client::{self, HttpClient, HttpError};

/// Token answers, profiles, discovery documents and key sets are a few KiB; a larger body is not one of them.
const MAX_BODY_BYTES: usize = 256 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error(transparent)]
    Http(#[from] HttpError),
    #[error("{0} answered {1}: a redirect, not followed")]
    Redirected(&'static str, u16),
    #[error("{0} answered {1}")]
    Status(&'static str, u16),
    #[error("{0}: {1}")]
    Invalid(&'static str, String),
}

/// One provider's connection settings. The client is a handle (cloning it shares its connection pool), owned so the
/// token request's future borrows nothing from the route.
#[derive(Clone)]
pub struct Transport {
    pub http: HttpClient,
    pub timeout: Duration,
}

impl Transport {
    /// The `oauth2` crate's token request, sent as built, or with `get` as a GET whose query is the form body
    /// (`token_method: get` of legacy strategies).
    pub async fn token_request(
        &self,
        request: oauth2::HttpRequest,
        get: bool,
    ) -> Result<oauth2::HttpResponse, TransportError> {
        let (mut parts, body) = request.into_parts();
        let body = if get {
            let mut url = Url::parse(&parts.uri.to_string())
                .map_err(|e| TransportError::Invalid("token URL", e.to_string()))?;
            url.set_query(Some(&String::from_utf8_lossy(&body)));
            parts.uri = url
                .as_str()
                .parse()
                .map_err(|e: hyper::http::uri::InvalidUri| {
                    TransportError::Invalid("token URL", e.to_string())
                })?;
            parts.method = Method::GET;
            parts.headers.remove(CONTENT_TYPE);
            Bytes::new()
        } else {
            Bytes::from(body)
        };
        let response = http_client::fetch(
            &self.http,
            Request::from_parts(parts, Full::new(body)),
            self.timeout,
            MAX_BODY_BYTES,
        )
        .await?;
        if response.status().is_redirection() {
            return Err(TransportError::Redirected(
                "the token endpoint",
                response.status().as_u16(),
            ));
        }
        // Error statuses go back to the crate, which reads the RFC 6749 error body they carry.
        Ok(response.map(|body| body.to_vec()))
    }

    /// `GET url` answered 2xx with a JSON body; `bearer` sends an access token.
    pub async fn get_json(
        &self,
        what: &'static str,
        url: &Url,
        bearer: Option<&str>,
    ) -> Result<Value, TransportError> {
        let uri: Uri = url
            .as_str()
            .parse()
            .map_err(|e: hyper::http::uri::InvalidUri| {
                TransportError::Invalid(what, e.to_string())
            })?;
        let mut request = Request::get(uri).header(ACCEPT, "application/json");
        if let Some(token) = bearer {
            request = request.header(AUTHORIZATION, format!("Bearer {token}"));
        }
        let request = request
            .body(Full::default())
            .map_err(|e| TransportError::Invalid(what, e.to_string()))?;
        let response =
            http_client::fetch(&self.http, request, self.timeout, MAX_BODY_BYTES).await?;
        let status = response.status();
        if status.is_redirection() {
            return Err(TransportError::Redirected(what, status.as_u16()));
        }
        if !status.is_success() {
            return Err(TransportError::Status(what, status.as_u16()));
        }
        serde_json::from_slice(response.body())
            .map_err(|e| TransportError::Invalid(what, format!("not JSON: {e}")))
    }
}
