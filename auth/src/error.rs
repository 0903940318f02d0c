//! Every failure a handler can meet, turned into a response in one place.
//!
//! Client mistakes carry their legacy wire message (`{"error":"<message>"}`); server faults are logged with their
//! cause and answered with a generic 500, so a database error never leaks its text (or a query) to the client.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::store::StoreError;

/// An OAuth 2.0 error answer (RFC 6749 section 5.2): `{"error": code, "error_description"?}`, never cached.
/// Clients drop their tokens on a 4xx and retry on a 5xx, so only a fault of ours may answer 5xx.
#[derive(Debug)]
pub struct OAuthError {
    pub status: StatusCode,
    pub code: OAuthErrorCode,
    pub description: Option<String>,
}

/// The error codes this service answers with: RFC 6749 section 5.2 and 4.1.2.1, RFC 6750 section 3.1
/// (`invalid_token`) and RFC 7591 section 3.2.2 (`invalid_redirect_uri`, `invalid_client_metadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthErrorCode {
    InvalidRequest,
    InvalidClient,
    InvalidGrant,
    UnauthorizedClient,
    UnsupportedGrantType,
    UnsupportedResponseType,
    InvalidScope,
    InvalidToken,
    ServerError,
    TemporarilyUnavailable,
    InvalidRedirectUri,
    InvalidClientMetadata,
}

impl OAuthErrorCode {
    /// The code as the wire writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            OAuthErrorCode::InvalidRequest => "invalid_request",
            OAuthErrorCode::InvalidClient => "invalid_client",
            OAuthErrorCode::InvalidGrant => "invalid_grant",
            OAuthErrorCode::UnauthorizedClient => "unauthorized_client",
            OAuthErrorCode::UnsupportedGrantType => "unsupported_grant_type",
            OAuthErrorCode::UnsupportedResponseType => "unsupported_response_type",
            OAuthErrorCode::InvalidScope => "invalid_scope",
            OAuthErrorCode::InvalidToken => "invalid_token",
            OAuthErrorCode::ServerError => "server_error",
            OAuthErrorCode::TemporarilyUnavailable => "temporarily_unavailable",
            OAuthErrorCode::InvalidRedirectUri => "invalid_redirect_uri",
            OAuthErrorCode::InvalidClientMetadata => "invalid_client_metadata",
        }
    }
}

impl OAuthError {
    pub fn new(status: StatusCode, code: OAuthErrorCode, description: impl Into<String>) -> Self {
        OAuthError {
            status,
            code,
            description: Some(description.into()),
        }
    }

    pub fn invalid_request(description: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            OAuthErrorCode::InvalidRequest,
            description,
        )
    }

    /// A fault of ours (logged here with its cause); the client learns nothing more than `server_error`.
    pub fn server_error(cause: &dyn std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "OAuth request failed");
        OAuthError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            code: OAuthErrorCode::ServerError,
            description: None,
        }
    }

    pub fn invalid_client() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            OAuthErrorCode::InvalidClient,
            "client authentication failed",
        )
    }

    /// A missing, invalid, expired or revoked access token at a resource endpoint (RFC 6750 section 3.1).
    pub fn invalid_token(description: impl Into<String>) -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            OAuthErrorCode::InvalidToken,
            description,
        )
    }
}

impl From<AppError> for OAuthError {
    /// A credential check's refusal (an API key's 401) becomes `invalid_token`; anything else is a fault of ours.
    fn from(e: AppError) -> Self {
        match e {
            AppError::Unauthorized(message) => Self::invalid_token(message),
            other => Self::server_error(&other),
        }
    }
}

impl From<StoreError> for OAuthError {
    fn from(e: StoreError) -> Self {
        tracing::error!(error = %e, "OAuth request failed");
        OAuthError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            code: OAuthErrorCode::ServerError,
            description: None,
        }
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let mut body = serde_json::json!({ "error": self.code.as_str() });
        if let Some(description) = self.description {
            body["error_description"] = description.into();
        }
        let mut response = (self.status, Json(body)).into_response();
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if self.status == StatusCode::UNAUTHORIZED {
            // A resource endpoint asks for a Bearer token, the token endpoint for client credentials.
            let challenge = if self.code == OAuthErrorCode::InvalidToken {
                "Bearer realm=\"auth\", error=\"invalid_token\""
            } else {
                "Basic realm=\"auth\""
            };
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
        }
        response
    }
}

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
    #[error("{0}")]
    NotFound(&'static str),
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
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
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
