//! WebFinger (RFC 7033) as OpenID Connect Discovery 1.0 section 2 uses it: given a `resource` (an `acct:` URI, an
//! email or a URL), name the issuer that serves it. One issuer serves every resource of a host, so the answer is the
//! same for every resource: it does not reveal whether an account exists.

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderMap, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use super::oidc::issuer;
use crate::error::AppError;
use crate::state::AppState;
use crate::tenancy::Tenant;

/// The link relation of an OpenID Connect issuer.
pub const ISSUER_REL: &str = "http://openid.net/specs/connect/1.0/issuer";

pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/.well-known/webfinger", get(webfinger))
        .route("/auth/.well-known/webfinger", get(webfinger))
}

/// The issuer link of `resource` (RFC 7033, OpenID Connect Discovery 1.0 section 2).
#[utoipa::path(
    get,
    path = "/.well-known/webfinger",
    tag = "oauth",
    params(
        ("resource" = String, Query, description = "the account or URL asked about, e.g. `acct:ada@example.com`"),
        ("rel" = Option<String>, Query, description = "link relations wanted (repeatable); others are left out"),
    ),
    responses(
        (status = 200, description = "`{subject, links:[{rel, href}]}`", content_type = "application/jrd+json"),
        (status = 400, description = "`resource` is missing"),
        (status = 404, description = "no authority for the request's host"),
    )
)]
pub async fn webfinger(tenant: Tenant, headers: HeaderMap, uri: Uri) -> Result<Response, AppError> {
    let (mut resource, mut rels) = (None, Vec::new());
    for (name, value) in url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes()) {
        match &*name {
            "resource" if !value.is_empty() => resource = Some(value.into_owned()),
            "rel" => rels.push(value.into_owned()),
            _ => {}
        }
    }
    let resource = resource.ok_or_else(|| AppError::BadRequest("resource is required".into()))?;
    // RFC 7033 section 4.3: with `rel`, only the links of those relations.
    let links = if rels.is_empty() || rels.iter().any(|r| r == ISSUER_REL) {
        json!([{ "rel": ISSUER_REL, "href": issuer(&headers, &tenant) }])
    } else {
        json!([])
    };
    Ok((
        [
            (header::CONTENT_TYPE, "application/jrd+json"),
            // RFC 7033 section 5: WebFinger is meant to be read from any origin.
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        json!({ "subject": resource, "links": links }).to_string(),
    )
        .into_response())
}
