//! The HTTP surface: the router, the layers every request passes through, and the small handlers
//! that belong to no feature (health, the SPA fallback).

pub mod assets;
pub mod client;
pub mod conn;
pub mod error;
pub mod extract;
pub mod headers;
pub mod limits;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::extract::{OriginalUri, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{middleware, Json, Router};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::config::Config;
use crate::publish::fetch::FetchError;
use crate::publish::{api as calendar_api, Publisher};
use crate::site::Site;
use crate::store::Db;
use client::TrustedProxies;
use error::{json_error, AppError};
use headers::REQUEST_ID;
use limits::RateLimiters;

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

/// The whole application as one router.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/site", get(site_profile))
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
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/avatar", get(avatar))
        .route("/assets/{*path}", get(asset))
        .fallback(spa_fallback);

    let hosts = Arc::new(AllowedHosts::new(&state.config));
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

async fn healthz() -> impl IntoResponse {
    (
        [(axum::http::header::CACHE_CONTROL, "no-store")],
        format!("ok hearth {}\n", crate::config::VERSION),
    )
}

async fn readyz(State(state): State<AppState>) -> Response {
    match state.db.ready().await {
        Ok(()) => ([(axum::http::header::CACHE_CONTROL, "no-store")], "ready\n").into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            let text = if e.is_disk_full() {
                "disk full: free space in the data directory\n"
            } else {
                "database unavailable\n"
            };
            (
                StatusCode::SERVICE_UNAVAILABLE,
                [(axum::http::header::CACHE_CONTROL, "no-store")],
                text,
            )
                .into_response()
        }
    }
}

async fn site_profile(State(state): State<AppState>) -> Json<crate::site::Profile> {
    Json(state.site.profile.clone())
}

async fn avatar(State(state): State<AppState>, headers: HeaderMap) -> Response {
    state.site.avatar_response(&headers)
}

async fn asset(uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path().trim_start_matches('/');
    assets::serve(path, &headers).unwrap_or_else(not_found_text)
}

async fn method_not_allowed(method: Method, OriginalUri(uri): OriginalUri) -> AppError {
    AppError::MethodNotAllowed(format!("{} does not take {method}", uri.path()))
}

/// With `--public-url`, the host names a request may carry: the public one, `localhost` (health
/// checks, the installer), any IP address and mDNS `.local` names (the LAN). Anything else is
/// refused, so a hostile page cannot reach the Pi through a DNS name it rebinds to the Pi's
/// address: rebinding needs a name in the attacker's DNS, never an address or a `.local` name.
#[derive(Debug)]
pub struct AllowedHosts {
    /// `None`: no public address set, every host is accepted.
    hosts: Option<Vec<String>>,
}

impl AllowedHosts {
    pub fn new(config: &Config) -> AllowedHosts {
        let Some(public) = config
            .public_url
            .as_deref()
            .and_then(|u| url::Url::parse(u).ok())
        else {
            return AllowedHosts { hosts: None };
        };
        let mut hosts = vec!["localhost".to_owned()];
        if let Some(host) = public.host_str() {
            hosts.push(host.to_ascii_lowercase());
        }
        AllowedHosts { hosts: Some(hosts) }
    }

    /// `host` is a Host header: a name or address, maybe with a port (ignored).
    pub fn allows(&self, host: Option<&str>) -> bool {
        let Some(allowed) = &self.hosts else {
            return true;
        };
        let Some(host) = host else {
            return false;
        };
        let name = if host.starts_with('[') {
            host.split_inclusive(']').next().unwrap_or(host)
        } else {
            host.split(':').next().unwrap_or(host)
        };
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        let is_ip = name.parse::<std::net::Ipv4Addr>().is_ok()
            || name
                .strip_prefix('[')
                .and_then(|n| n.strip_suffix(']'))
                .is_some_and(|n| n.parse::<std::net::Ipv6Addr>().is_ok());
        let is_mdns = name.ends_with(".local") && name.len() > ".local".len();
        is_ip || is_mdns || allowed.contains(&name)
    }
}

async fn check_host(
    State(hosts): State<Arc<AllowedHosts>>,
    request: Request,
    next: middleware::Next,
) -> Response {
    let host = request
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()));
    if hosts.allows(host) {
        return next.run(request).await;
    }
    AppError::Misdirected(
        "this site is not served under that host name; use its public address".into(),
    )
    .into_response()
}

async fn api_not_found(method: Method, OriginalUri(uri): OriginalUri) -> AppError {
    AppError::NotFound(format!("no API route {method} {}", uri.path()))
}

/// Client routes get the app; files that do not exist get a 404, never the app.
async fn spa_fallback(
    State(state): State<AppState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return json_error(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
    }
    let path = uri.path();
    let last_segment = path.rsplit('/').next().unwrap_or_default();
    if last_segment.contains('.') {
        return assets::serve(path.trim_start_matches('/'), &headers)
            .unwrap_or_else(not_found_text);
    }
    if path.starts_with("/cal/") || path == "/cal" {
        return not_found_text();
    }
    let Some(index) = &state.site.index else {
        return not_found_text();
    };
    let status = if is_client_route(path) {
        StatusCode::OK
    } else {
        // The app renders its own "page not found" for these.
        StatusCode::NOT_FOUND
    };
    index.response(&headers, status)
}

/// The routes the React app knows (SPEC.md section 2).
fn is_client_route(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    path.is_empty()
        || path == "/flashcards"
        || path.starts_with("/flashcards/")
        || path == "/calendars"
        || path.starts_with("/calendars/")
}

fn not_found_text() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; charset=utf-8",
        )],
        "Not found\n",
    )
        .into_response()
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("a request handler panicked");
    json_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal error: the server log has the details",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_a_public_url_only_its_host_localhost_addresses_and_local_names_pass() {
        let mut config = Config::for_data_dir("/tmp/unused");
        assert!(AllowedHosts::new(&config).allows(Some("anything.example")));
        config.public_url = Some("https://Cal.Example.org".into());
        let hosts = AllowedHosts::new(&config);
        for ok in [
            "cal.example.org",
            "CAL.example.org:443",
            "cal.example.org.",
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "192.168.1.5:8080",
            "[2001:db8::5]",
            "raspberrypi.local:8080",
        ] {
            assert!(hosts.allows(Some(ok)), "{ok}");
        }
        for bad in [
            "evil.example",
            "cal.example.org.evil.example",
            "localhost.evil.example",
            "192.168.1.6.nip.io",
            "local",
            "[not-an-ip]",
            "",
        ] {
            assert!(!hosts.allows(Some(bad)), "{bad}");
        }
        assert!(!hosts.allows(None));
    }

    #[test]
    fn client_routes_are_those_of_the_spec() {
        for path in [
            "/",
            "/flashcards",
            "/flashcards/new",
            "/flashcards/abc/edit",
            "/flashcards/abc/practice",
            "/calendars",
            "/calendars/new",
        ] {
            assert!(is_client_route(path), "{path}");
        }
        for path in ["/about", "/flashcardsx", "/api/x", "/cal/x"] {
            assert!(!is_client_route(path), "{path}");
        }
    }
}
