//! The composition root: the router that puts the features' handlers behind the layers every
//! request passes through (the edge that names the client and counts its requests in flight,
//! security headers, timeout, panic catcher, request id, Host check, gzip for `/api`), the state
//! they share, and the connection loop that serves it. Nothing imports this module but `lib.rs`.

pub mod conn;
pub mod deadline;
mod edge;
mod health;
pub mod metrics;
pub mod observed;
mod owner;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, OriginalUri, Request};
use axum::http::{Method, StatusCode};
use axum::response::Response;
use axum::routing::{any, delete, get, post, put};
use axum::{middleware, Router};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::backups::replication::Replication;
use crate::backups::Backups;
use crate::clock::Clock;
use crate::config::Config;
use crate::fair::Allowance;
use crate::http::admission::{Admission, Keys};
use crate::http::budget::ByteBudget;
use crate::http::client::TrustedProxies;
use crate::http::error::{json_error, AppError};
use crate::http::headers::{self, REQUEST_ID};
use crate::http::hosts::{check_host, AllowedHosts};
use crate::http::inflight::InFlight;
use crate::http::limits::{rate, RateLimiters};
use crate::publish::api::{self as calendar_api, CalendarState};
use crate::publish::caldav::route as caldav_route;
use crate::publish::editor as editor_api;
use crate::publish::fetch::FetchError;
use crate::publish::Publisher;
use crate::site::{self, Site};
use crate::store::Db;
use crate::sync::api as sync_api;
use crate::sync::media_api as sync_media;
use crate::sync::SyncState;
use metrics::Metrics;

/// A request taking longer than this is answered 408; upstream fetches have their own, shorter limits.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Shared by every handler; each feature's part is made once, from its own settings.
#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    /// `--public-url`: the Host check, and the links of hosted feeds.
    pub public_url: Option<String>,
    pub calendars: CalendarState,
    pub site: Arc<Site>,
    pub publisher: Arc<Publisher>,
    pub trusted_proxies: Arc<TrustedProxies>,
    pub admission: Arc<Admission>,
    pub sync: SyncState,
    /// Scheduled backups and their report (`lib.rs` starts the schedule).
    pub backups: Arc<Backups>,
    /// Replication by Litestream: its measurements and drills (`lib.rs` starts them).
    pub replication: Arc<Replication>,
    /// What the metrics middleware counts.
    pub metrics: Arc<Metrics>,
    pub data_dir: PathBuf,
    pub clock: Clock,
    /// What the owner page's self-check reads of the configuration.
    pub doctor: Arc<crate::doctor::Setup>,
    /// `--notify-url`: the checks run for alerts, and the owner page's test (`lib.rs` starts them).
    pub alerts: Arc<crate::alerts::Alerts>,
}

impl AppState {
    pub fn new(config: Config, db: Db) -> Result<AppState, FetchError> {
        let replication = Replication::new(
            config.replication.clone(),
            &config.data_dir,
            db.clone(),
            config.clock.clone(),
        );
        let measured = replication.clone();
        let doctor = Arc::new(crate::doctor::Setup {
            // The integrity check ran at the start; the page does not repeat it.
            thorough: false,
            // Nor does it ask the replica: the server measures it every minute.
            measured: Some(crate::doctor::LiveMeasure(Arc::new(move || {
                measured.measured()
            }))),
            ..crate::doctor::Setup::of(&config)
        });
        let edge = &config.edge;
        let trusted_proxies = Arc::new(TrustedProxies::new(
            edge.trusted_proxies.clone(),
            edge.trust_loopback,
        ));
        let admission = Arc::new(Admission {
            proxies: trusted_proxies.clone(),
            keys: Keys {
                publish: edge.publish_key.clone(),
                sync: edge.sync_key.clone(),
            },
            limits: RateLimiters::new(&edge.rate_limits, &config.clock),
            wrong_keys: Arc::new(Allowance::new(
                rate(edge.rate_limits.wrong_key),
                config.clock.clone(),
            )),
            inflight: InFlight::new(edge.in_flight),
            // A client may hold what its largest request needs: a vault, or a feed it fetches.
            bytes: ByteBudget::split(
                edge.max_bytes_in_flight,
                config
                    .sync
                    .max_vault_size
                    .max(config.calendars.feed_max_size),
            ),
            body: edge.body_rules,
        });
        let sync = SyncState::new(
            config.sync,
            db.clone(),
            config.clock.clone(),
            admission.clone(),
        );
        // `site` does not import `sync`: what the index page says of sync is handed over here.
        let sync_info = crate::sync::api::public_info(&sync.settings, sync.key_required);
        // `site` knows no keys: whether the owner page exists is handed over too.
        let site = Arc::new(Site::new(
            &config.site,
            sync_info,
            config.edge.publish_key.is_some(),
        ));
        let publisher = Arc::new(Publisher::new(
            db.clone(),
            &config.calendars,
            &config.data_dir,
            config.clock.clone(),
            admission.bytes.clone(),
        )?);
        let backups = Backups::new(
            config.backups.clone(),
            &config.data_dir,
            db.clone(),
            config.clock.clone(),
        );
        let alerts = crate::alerts::Alerts::new(
            config.alerts.clone(),
            db.clone(),
            config.clock.clone(),
            doctor.clone(),
            crate::alerts::site_name(config.public_url.as_deref(), config.listen),
        );
        let calendars = CalendarState {
            settings: Arc::new(config.calendars),
            public_url: config.public_url.clone(),
            clock: config.clock.clone(),
            db: db.clone(),
            publisher: publisher.clone(),
            admission: admission.clone(),
        };
        Ok(AppState {
            db,
            public_url: config.public_url,
            calendars,
            site,
            publisher,
            trusted_proxies,
            admission,
            sync,
            backups,
            replication,
            metrics: Arc::new(Metrics::default()),
            data_dir: config.data_dir,
            clock: config.clock,
            doctor,
            alerts,
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

impl FromRef<AppState> for Arc<Admission> {
    fn from_ref(state: &AppState) -> Self {
        state.admission.clone()
    }
}

impl FromRef<AppState> for SyncState {
    fn from_ref(state: &AppState) -> Self {
        state.sync.clone()
    }
}

impl FromRef<AppState> for CalendarState {
    fn from_ref(state: &AppState) -> Self {
        state.calendars.clone()
    }
}

/// The whole application as one router.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/site", get(site::routes::profile))
        .route(
            "/feed",
            get(editor_api::get_feed).post(editor_api::post_feed),
        )
        .route("/render", post(calendar_api::render))
        .route("/preview", post(editor_api::preview))
        // A CalDAV account's calendars, for the editor (src/publish/caldav/route.rs).
        .route("/caldav/calendars", post(caldav_route::find_calendars))
        .route("/calendars", post(calendar_api::publish))
        .route("/calendars/{id}", delete(calendar_api::unpublish))
        .route("/calendars/{id}/status", get(calendar_api::status))
        .route(
            "/calendars/{id}/aliases",
            post(crate::publish::alias_api::create),
        )
        .route("/owner", get(owner::page))
        // The owner edits the site (src/site/edit.rs).
        .route(
            "/owner/site",
            get(site::edit::read)
                .put(site::edit::save)
                .delete(site::edit::reset),
        )
        .route(
            "/owner/avatar",
            put(site::edit::upload).delete(site::edit::remove_picture),
        )
        .route("/owner/notifications/test", post(owner::test_notification))
        .fallback(api_not_found)
        // JSON answers (feed pages, previews) shrink several times; hosted feeds are gzipped once
        // per render instead, and assets are precompressed.
        .layer(CompressionLayer::new().gzip(true))
        // Added after the compression layer: ciphertext does not shrink.
        .merge(sync_routes(state.sync.settings.enabled));

    // Requests worth a log line: the API and the hosted feeds. Static files and probes are not.
    // These are the routes that do work, so each client has a share of them in flight.
    let logged = Router::new()
        .nest("/api", api)
        .route("/cal/{file}", get(calendar_api::hosted_feed))
        .layer(middleware::from_fn_with_state(
            state.admission.clone(),
            edge::in_flight,
        ))
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

    let hosts = Arc::new(AllowedHosts::new(state.public_url.as_deref()));
    let admission = state.admission.clone();
    let counted = state.metrics.clone();
    let mut app = logged
        .merge(quiet)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
        .layer(middleware::from_fn_with_state(hosts, check_host));
    for layer in headers::security_layers() {
        app = app.layer(layer);
    }
    app = app.layer(headers::frame_options_layer());
    app.layer(middleware::from_fn_with_state(admission, edge::identify))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(CatchPanicLayer::custom(panic_response))
        // Outside the timeout and the panic catcher, so 408s and 500s are counted too.
        .layer(middleware::from_fn_with_state(counted, metrics::count))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
}

/// The sync API (`src/sync/`), or with `--no-sync` a JSON 404 for every one of its addresses.
fn sync_routes(enabled: bool) -> Router<AppState> {
    if !enabled {
        return Router::new()
            .route("/sync", any(sync_api::turned_off))
            .route("/sync/{*rest}", any(sync_api::turned_off));
    }
    Router::new()
        .route("/sync", get(sync_api::status))
        .route("/sync/{kind}", post(sync_api::create))
        .route(
            "/sync/{kind}/{id}",
            get(sync_api::read)
                .put(sync_api::update)
                .delete(sync_api::remove),
        )
        .route("/sync/{kind}/{id}/parts/{name}", get(sync_api::read_part))
        .route("/sync/{kind}/{id}/media", get(sync_media::list))
        .route(
            "/sync/{kind}/{id}/media/{name}",
            get(sync_media::read)
                .put(sync_media::put)
                .delete(sync_media::remove),
        )
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

/// The router on its own, driven with `oneshot`: routing, fallbacks and error shapes.
#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::{header, Request};
    use tower::ServiceExt;

    fn app(dir: &std::path::Path) -> Router {
        let db = Db::open(dir).expect("db");
        let state = AppState::new(Config::defaults(dir).expect("defaults"), db).expect("state");
        router(state)
    }

    async fn call(app: Router, method: &str, uri: &str) -> (StatusCode, String, String) {
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::HOST, "localhost")
            .body(Body::empty())
            .expect("request");
        let response = app.oneshot(request).await.expect("infallible");
        let status = response.status();
        let kind = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .expect("body");
        (status, kind, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[tokio::test]
    async fn health_answers_with_the_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (status, _, body) = call(app(dir.path()), "GET", "/healthz").await;
        assert_eq!(status, StatusCode::OK);
        assert!(body.starts_with("ok hearth "), "{body}");
    }

    #[tokio::test]
    async fn unknown_api_routes_and_wrong_methods_answer_json() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (status, kind, body) = call(app(dir.path()), "GET", "/api/nothing").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(kind.starts_with("application/json"), "{kind}");
        assert!(body.contains("no API route GET /api/nothing"), "{body}");
        let (status, kind, _) = call(app(dir.path()), "DELETE", "/healthz").await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert!(kind.starts_with("application/json"), "{kind}");
    }

    #[tokio::test]
    async fn a_bad_query_string_is_a_json_400() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (status, kind, body) = call(app(dir.path()), "GET", "/api/feed?url=x&offset=abc").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(kind.starts_with("application/json"), "{kind}");
        assert!(body.contains("offset"), "{body}");
    }

    #[tokio::test]
    async fn unknown_hosted_calendars_and_files_are_plain_404s_never_the_app() {
        let dir = tempfile::tempdir().expect("tempdir");
        for uri in ["/cal/none.ics", "/missing.js"] {
            let (status, kind, body) = call(app(dir.path()), "GET", uri).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{uri}");
            assert!(kind.starts_with("text/plain"), "{uri}: {kind}");
            assert!(!body.contains("<html"), "{uri}");
        }
    }

    #[tokio::test]
    async fn every_answer_carries_the_security_headers_and_a_request_id() {
        let dir = tempfile::tempdir().expect("tempdir");
        let request = Request::builder()
            .uri("/healthz")
            .header(header::HOST, "localhost")
            .body(Body::empty())
            .expect("request");
        let response = app(dir.path()).oneshot(request).await.expect("infallible");
        let h = response.headers();
        assert!(h.contains_key(header::CONTENT_SECURITY_POLICY));
        assert_eq!(h[header::X_FRAME_OPTIONS], "DENY");
        assert!(h.contains_key(REQUEST_ID));
    }
}
