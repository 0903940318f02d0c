//! The web UI: one page per task (`/overview`, `/domains`, ... the same document, which shows the page its URL
//! names), its script and style, and the charting library (uPlot, `ui/vendor/`, MIT), all built into the binary
//! with `include_str!` (no CDN, no Node at build or run time, nothing fetched). The script talks to the JSON API
//! like any other client.
use super::Panel;
use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use std::sync::Arc;

const INDEX: &str = include_str!("ui/index.html");
const SCRIPT: &str = include_str!("ui/app.js");
const STYLE: &str = include_str!("ui/app.css");
const CHART_SCRIPT: &str = include_str!("ui/vendor/uPlot.iife.min.js");
const CHART_STYLE: &str = include_str!("ui/vendor/uPlot.min.css");
/// The pages: each URL answers the one document, which draws the page (so each is reachable by its URL).
const PAGES: [&str; 9] = [
    "/overview",
    "/domains",
    "/protection",
    "/rules",
    "/events",
    "/traffic",
    "/audit",
    "/admins",
    "/settings",
];
const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

pub fn routes() -> Router<Arc<Panel>> {
    let mut router = Router::new()
        .route("/", get(|| asset(HTML, INDEX)))
        .route("/app.js", get(|| asset(JS, SCRIPT)))
        .route("/app.css", get(|| asset(CSS, STYLE)))
        .route("/vendor/uPlot.iife.min.js", get(|| asset(JS, CHART_SCRIPT)))
        .route("/vendor/uPlot.min.css", get(|| asset(CSS, CHART_STYLE)));
    for page in PAGES {
        router = router.route(page, get(|| asset(HTML, INDEX)));
    }
    router
}

async fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, content_type)], body)
}
