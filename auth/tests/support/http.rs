//! A small HTTP/1.1 client over hyper-util for driving the server: it sets `Host` explicitly (each test authority
//! is a host name resolved to 127.0.0.1 by the socket address), never follows redirects, and returns the status,
//! headers and body as text.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

pub struct Response {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The `Set-Cookie` line of `name`, whole.
    pub fn set_cookie(&self, name: &str) -> Option<String> {
        self.headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| v.starts_with(&format!("{name}=")))
            .map(str::to_string)
    }
}

#[derive(Clone)]
pub struct Http {
    client: Client<HttpConnector, Full<Bytes>>,
    base: String,
}

impl Http {
    pub fn new(addr: std::net::SocketAddr) -> Self {
        Http {
            client: Client::builder(TokioExecutor::new()).build_http(),
            base: format!("http://{addr}"),
        }
    }

    pub async fn send(
        &self,
        method: Method,
        path: &str,
        host: &str,
        headers: &[(&str, &str)],
        body: Option<(&str, String)>,
    ) -> Response {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("host", host);
        for (name, value) in headers {
            request = request.header(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        let body = match body {
            Some((content_type, body)) => {
                request = request.header("content-type", content_type);
                Full::new(Bytes::from(body))
            }
            None => Full::new(Bytes::new()),
        };
        let response = self
            .client
            .request(request.body(body).unwrap())
            .await
            .expect("HTTP request");
        let (parts, body) = response.into_parts();
        let body = body.collect().await.expect("response body").to_bytes();
        Response {
            status: parts.status,
            headers: parts.headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        }
    }

    pub async fn get(&self, path: &str, host: &str, headers: &[(&str, &str)]) -> Response {
        self.send(Method::GET, path, host, headers, None).await
    }

    pub async fn post_json(
        &self,
        path: &str,
        host: &str,
        headers: &[(&str, &str)],
        body: serde_json::Value,
    ) -> Response {
        self.send(
            Method::POST,
            path,
            host,
            headers,
            Some(("application/json", body.to_string())),
        )
        .await
    }

    pub async fn post_form(
        &self,
        path: &str,
        host: &str,
        headers: &[(&str, &str)],
        form: &[(&str, &str)],
    ) -> Response {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        self.send(
            Method::POST,
            path,
            host,
            headers,
            Some(("application/x-www-form-urlencoded", body)),
        )
        .await
    }
}
