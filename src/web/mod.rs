//! The composition root: the router that puts the features' handlers behind the layers every
//! request passes through, the state they share, and the connection loop that serves it.
//! Nothing imports this module but `lib.rs`.

pub mod conn;
mod health;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, FromRef, OriginalUri, Request};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::{delete, get, post};
use axum::{middleware, Router};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::config::Config;
use crate::http::client::TrustedProxies;
use crate::http::error::{json_error, AppError};
use crate::http::headers::{self, REQUEST_ID};
use crate::http::hosts::{check_host, AllowedHosts};
use crate::http::limits::RateLimiters;
use crate::publish::api::{self as calendar_api, CalendarState};
use crate::publish::fetch::FetchError;
use crate::publish::Publisher;
use crate::site::{self, Site};
use crate::store::Db;

/// Largest request body any route accepts; routes may set lower limits.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Largest publish request (`POST /api/calendars`).
pub const MAX_PUBLISH_BYTES: usize = 64 * 1024;

/// A request taking longer than this is answered 408; upstream fetches have their own, shorter limits.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Shared by every handler.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub db: Db,
    pub site: Arc<Site>,
    pub publisher: Arc<Publisher>,
    pub trusted_proxies: Arc<TrustedProxies>,
    pub limits: Arc<RateLimiters>,
}

impl AppState {
    pub fn new(config: Config, db: Db) -> Result<AppState, FetchError> {
        let site = Arc::new(Site::new(&config));
        let publisher = Arc::new(Publisher::new(db.clone(), &config)?);
        let trusted_proxies = Arc::new(TrustedProxies::new(config.trusted_proxies.clone()));
        let limits = Arc::new(RateLimiters::new(&config.rate_limits));
        Ok(AppState {
            config: Arc::new(config),
            db,
            site,
            publisher,
            trusted_proxies,
            limits,
        })
    }
}

// Each feature's handlers take only their part of the state.
impl FromRef<AppState> for Arc<Site> {
    fn from_ref(state: &AppState) -> Self {
        state.site.clone()
    }
}

impl FromRef<AppState> for Db {
    fn from_ref(state: &AppState) -> Self {
        state.db.clone()
    }
}

impl FromRef<AppState> for Arc<TrustedProxies> {
    fn from_ref(state: &AppState) -> Self {
        state.trusted_proxies.clone()
    }
}

impl FromRef<AppState> for CalendarState {
    fn from_ref(state: &AppState) -> Self {
        CalendarState {
            config: state.config.clone(),
            db: state.db.clone(),
            publisher: state.publisher.clone(),
            limits: state.limits.clone(),
        }
    }
}

/// The whole application as one router.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/site", get(site::routes::profile))
        .route("/feed", get(calendar_api::get_feed))
        .route("/render", post(calendar_api::render))
        .route(
            "/calendars",
            post(calendar_api::publish).layer(DefaultBodyLimit::max(MAX_PUBLISH_BYTES)),
        )
        .route("/calendars/{id}", delete(calendar_api::unpublish))
        .fallback(api_not_found)
        // JSON answers (feed pages, previews) shrink several times; hosted feeds are gzipped once
        // per render instead, and assets are precompressed.
        .layer(CompressionLayer::new().gzip(true));

    // Requests worth a log line: the API and the hosted feeds. Static files and probes are not.
    let logged = Router::new()
        .nest("/api", api)
        .route("/cal/{file}", get(calendar_api::hosted_feed))
        .layer(
        TraceLayer::new_for_http().make_span_with(|request: &Request| {
            let id = request
                .headers()
                .get(REQUEST_ID)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("-");
            tracing::info_span!("request", method = %request.method(), uri = %request.uri().path(), request_id = %id)
        }),
    );

    let quiet = Router::new()
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/avatar", get(site::routes::avatar))
        .route("/assets/{*path}", get(site::routes::asset))
        .fallback(site::routes::spa_fallback);

    let hosts = Arc::new(AllowedHosts::new(state.config.public_url.as_deref()));
    let mut app = logged
        .merge(quiet)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
        .layer(middleware::from_fn_with_state(hosts, check_host));
    for layer in headers::security_layers() {
        app = app.layer(layer);
    }
    app.layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
}

async fn method_not_allowed(method: Method, OriginalUri(uri): OriginalUri) -> AppError {
    AppError::MethodNotAllowed(format!("{} does not take {method}", uri.path()))
}

async fn api_not_found(method: Method, OriginalUri(uri): OriginalUri) -> AppError {
    AppError::NotFound(format!("no API route {method} {}", uri.path()))
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("a request handler panicked");
    json_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal error: the server log has the details",
    )
}
