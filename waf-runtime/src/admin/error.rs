//! The API's errors, turned into responses in one place: a status, a reason and the key it concerns, as
//! `{"error": "...", "key": "..."}` (`key` null when the error concerns no one field: a missing session, a wrong
//! password). The key is the request field (`paranoia_level`, `tls.cert_file`) or the configuration key
//! (`waf.domains.shop.test.anomaly_threshold`) the reason is about, so a client can show it beside that field.
//! Internal failures are logged in full and answered with a generic message.
//!
//! [`JsonBody`] reads request bodies with the same answers (axum's own extractor answers in plain text), and
//! [`json_errors`] turns whatever else answers an error in plain text (an unknown route, a wrong method, a bad
//! query string) into this shape, so no client ever has to parse anything but JSON.
use crate::body_timeout::BodyTimedOut;
use crate::config::ConfigError;
use axum::Json;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;
use serde::de::DeserializeOwned;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    pub key: Option<String>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            key: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// A refused value of the request field (or configuration key) `key`.
    pub fn field(key: impl Into<String>, message: impl Into<String>) -> ApiError {
        ApiError {
            key: Some(key.into()),
            ..ApiError::bad_request(message)
        }
    }

    /// `self` about `key`.
    pub fn about(self, key: impl Into<String>) -> ApiError {
        ApiError {
            key: Some(key.into()),
            ..self
        }
    }

    pub fn unauthorized() -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "sign in first")
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    pub fn internal(what: &str, e: impl std::fmt::Display) -> ApiError {
        tracing::error!("admin panel: {what}: {e}");
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> ApiError {
        ApiError::internal("database", e)
    }
}

/// A configuration the resolver refuses: its key when it names one.
impl From<ConfigError> for ApiError {
    fn from(e: ConfigError) -> ApiError {
        let key = match &e {
            ConfigError::Key { key, .. } => Some(key.clone()),
            _ => None,
        };
        let message = match &e {
            ConfigError::Key { key, message, .. } => format!("{key}: {message}"),
            other => other.to_string(),
        };
        ApiError {
            key,
            ..ApiError::bad_request(message)
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(serde_json::json!({ "error": self.message, "key": self.key })),
        )
            .into_response()
    }
}

/// Longest request body the API reads: its largest value is a domain's own rules (64 KiB, `settings.rs`).
const MAX_BODY: usize = 256 * 1024;

/// A JSON request body, refused as an [`ApiError`] naming the field at fault (`level: invalid type: string
/// "x", expected u8`, key `level`).
pub struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, ApiError> {
        let json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if !json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "send the body as JSON (Content-Type: application/json)",
            ));
        }
        let limited = http_body_util::Limited::new(req.into_body(), MAX_BODY);
        let bytes = limited
            .collect()
            .await
            .map_err(|e| {
                let cause = |e: &(dyn std::error::Error + 'static)| e.is::<BodyTimedOut>();
                if std::iter::successors(Some(&*e as &(dyn std::error::Error + 'static)), |e| {
                    e.source()
                })
                .any(cause)
                {
                    return ApiError::new(
                        StatusCode::REQUEST_TIMEOUT,
                        "the body was not received in time",
                    );
                }
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the body is over {MAX_BODY} bytes or was cut short"),
                )
            })?
            .to_bytes();
        let mut de = serde_json::Deserializer::from_slice(&bytes);
        serde_path_to_error::deserialize(&mut de)
            .map(JsonBody)
            .map_err(|e| {
                let key = e.path().to_string();
                let message = format!("{key}: {}", e.inner());
                // `.` is the path of the body itself (not an object, not JSON at all).
                let key = (key != ".").then_some(key);
                ApiError {
                    key,
                    ..ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
                }
            })
    }
}

/// Longest plain-text error body wrapped into JSON (axum's own rejections are one line).
const MAX_TEXT_ERROR: usize = 4096;

/// An error answered in anything but JSON (axum's rejections of a query string or a path, an unknown route under
/// `/api`, a wrong method) becomes `{"error": <its text or reason>, "key": null}`, status kept.
pub async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = match http_body_util::Limited::new(body, MAX_TEXT_ERROR)
        .collect()
        .await
    {
        Ok(collected) => String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
        Err(_) => String::new(),
    };
    let message = if text.trim().is_empty() {
        parts
            .status
            .canonical_reason()
            .unwrap_or("error")
            .to_lowercase()
    } else {
        text.trim().to_string()
    };
    let mut answer = ApiError::new(status, message).into_response();
    for (name, value) in parts.headers.iter() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            answer.headers_mut().append(name.clone(), value.clone());
        }
    }
    answer
}
