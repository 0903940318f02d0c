//! The web UI: one page and its script and style, built into the binary with `include_str!` (no CDN, no Node,
//! nothing fetched at run time). The script talks to the JSON API like any other client.
use super::Panel;
use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use std::sync::Arc;

const INDEX: &str = include_str!("ui/index.html");
const SCRIPT: &str = include_str!("ui/app.js");
const STYLE: &str = include_str!("ui/app.css");

pub fn routes() -> Router<Arc<Panel>> {
    Router::new()
        .route("/", get(|| asset("text/html; charset=utf-8", INDEX)))
        .route(
            "/app.js",
            get(|| asset("text/javascript; charset=utf-8", SCRIPT)),
        )
        .route("/app.css", get(|| asset("text/css; charset=utf-8", STYLE)))
}

async fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, content_type)], body)
}
