//! Every failure a handler can meet, turned into a response in one place.
//!
//! Client mistakes carry their legacy wire message (`{"error":"<message>"}`); server faults are logged with their
//! cause and answered with a generic 500, so a database error never leaks its text (or a query) to the client.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("authority not found for host {0}")]
    UnknownAuthority(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(&'static str),
    #[error("{0}")]
    Unprocessable(&'static str),
    #[error("unsupported content type: send application/json or application/x-www-form-urlencoded")]
    UnsupportedMediaType,
    #[error("too many sign-in attempts, retry later")]
    TooManyRequests { retry_after_secs: u64 },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Internal(String),
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = match &self {
            AppError::UnknownAuthority(_) => StatusCode::NOT_FOUND,
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            AppError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Store(_) | AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let message = if status.is_server_error() {
            tracing::error!(error = %self, "request failed");
            "internal error".to_string()
        } else {
            self.to_string()
        };
        let mut response = (status, Json(serde_json::json!({ "error": message }))).into_response();
        if let AppError::TooManyRequests { retry_after_secs } = self {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(retry_after_secs.max(1)),
            );
        }
        response
    }
}
