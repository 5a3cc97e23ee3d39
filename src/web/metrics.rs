//! Prometheus metrics (`--metrics-listen`): served on a listener of their own, never on the
//! public one, in the OpenMetrics text format (prometheus-client). Requests are counted by a
//! middleware as they pass (a few atomic additions each); everything else is read from the
//! features' own counters, the database and the backup report when a scrape asks. The listener
//! goes through the site's accept loop with a small connection table of its own (the edge's
//! header and write deadlines, a share per client, the heaviest evicted when full), so idle
//! connections to it cannot use the files the public site needs.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use super::conn::ConnectionSettings;
use super::AppState;
use crate::config::EdgeSettings;
use crate::http::client::TrustedProxies;
use crate::store::{database_bytes, StoreError};

/// Connections the metrics listener keeps open at once: a Prometheus server keeps one, a few
/// curls and a second scraper fit beside it.
pub const MAX_CONNECTIONS: usize = 16;

/// One client's share of them (its /56 and /48 get the multiples every share has); when the
/// table is full the heaviest client loses its oldest connection to a newcomer.
pub const MAX_PER_CLIENT: usize = 4;

/// How the metrics listener's accept loop treats connections: the edge's deadlines, a table of
/// its own, and no proxies (nothing forwards visitors to it, so every peer is its own client).
pub fn connection_settings(edge: &EdgeSettings) -> ConnectionSettings {
    ConnectionSettings {
        max_connections: MAX_CONNECTIONS,
        max_per_client: MAX_PER_CLIENT,
        header_read_timeout: edge.header_read_timeout,
        write: edge.write_rules,
        proxies: TrustedProxies::new(Vec::new(), false),
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: &'static str,
    status: u16,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabel {
    route: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabel {
    reason: &'static str,
}

/// What the middleware counts; the rest is read at scrape time.
pub struct Metrics {
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabel, Histogram>,
    refusals: Family<ReasonLabel, Counter>,
}

/// Latency buckets in seconds: a cached feed answers in a millisecond, a publish in seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// The reasons a refusal is counted under, each shown from the start (at zero).
const REASONS: [&str; 5] = ["rate", "quota", "budget", "size", "deadline"];

impl Default for Metrics {
    fn default() -> Metrics {
        let refusals: Family<ReasonLabel, Counter> = Family::default();
        for reason in REASONS {
            refusals.get_or_create(&ReasonLabel { reason }).inc_by(0);
        }
        Metrics {
            requests: Family::default(),
            latency: Family::new_with_constructor(|| Histogram::new(BUCKETS)),
            refusals,
        }
    }
}

/// The route family of a path, a small fixed set (so labels stay few).
fn route_of(path: &str) -> &'static str {
    const API: [(&str, &str); 7] = [
        ("/api/calendars", "calendars"),
        ("/api/caldav", "editor"),
        ("/api/feed", "editor"),
        ("/api/render", "editor"),
        ("/api/preview", "editor"),
        ("/api/sync", "sync"),
        ("/api/site", "site"),
    ];
    if let Some((_, route)) = API.iter().find(|(prefix, _)| path.starts_with(prefix)) {
        return route;
    }
    match path {
        p if p.starts_with("/cal/") => "hosted_feed",
        p if p.starts_with("/api/") => "api_other",
        "/healthz" | "/readyz" => "health",
        p if p.starts_with("/assets/") || p == "/avatar" => "assets",
        _ => "pages",
    }
}

/// Why a request was refused, by its status: a rate (429), a quota (507), a budget shared by
/// everyone (503), a size (413) or a deadline (408).
fn refusal(status: StatusCode) -> Option<&'static str> {
    let reason = match status.as_u16() {
        429 => REASONS[0],
        507 => REASONS[1],
        503 => REASONS[2],
        413 => REASONS[3],
        408 => REASONS[4],
        _ => return None,
    };
    Some(reason)
}

/// Counts each request by route family and status, and its time to the answer's headers.
pub async fn count(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let route = route_of(request.uri().path());
    let started = Instant::now();
    let response = next.run(request).await;
    let status = response.status();
    metrics
        .requests
        .get_or_create(&RequestLabels {
            route,
            status: status.as_u16(),
        })
        .inc();
    metrics
        .latency
        .get_or_create(&RouteLabel { route })
        .observe(started.elapsed().as_secs_f64());
    if let Some(reason) = refusal(status) {
        metrics
            .refusals
            .get_or_create(&ReasonLabel { reason })
            .inc();
    }
    response
}

/// The router of the metrics listener: `GET /metrics` and nothing else.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(scrape))
        .with_state(state)
}

async fn scrape(State(state): State<AppState>) -> Response {
    match render(&state).await {
        Ok(text) => (
            [(
                header::CONTENT_TYPE,
                "application/openmetrics-text; version=1.0.0; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "could not read the metrics");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the metrics could not be read\n",
            )
                .into_response()
        }
    }
}

/// Sync's stored blobs: (vaults, shares, bytes of both with the vaults' parts).
pub(super) async fn sync_holdings(state: &AppState) -> Result<(u64, u64, u64), StoreError> {
    state
        .db
        .read(|conn| {
            let mut statement = conn.prepare(
                "SELECT kind, count(*), coalesce(sum(length(body)), 0) FROM sync_blobs GROUP BY kind",
            )?;
            let rows = statement.query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
            })?;
            let (mut vaults, mut shares, mut bytes) = (0, 0, 0);
            for row in rows {
                let (kind, count, size) = row?;
                let count = u64::try_from(count).unwrap_or(0);
                match kind.as_str() {
                    "vault" => vaults = count,
                    _ => shares += count,
                }
                bytes += u64::try_from(size).unwrap_or(0);
            }
            let parts: i64 = conn.query_row(
                "SELECT (SELECT coalesce(sum(length(body)), 0) FROM sync_parts)
                      + (SELECT coalesce(sum(length(body)), 0) FROM sync_media)",
                [],
                |r| r.get(0),
            )?;
            bytes += u64::try_from(parts).unwrap_or(0);
            Ok((vaults, shares, bytes))
        })
        .await
}

fn counter(value: u64) -> ConstCounter {
    ConstCounter::new(value)
}

fn gauge(value: f64) -> ConstGauge<f64> {
    ConstGauge::new(value)
}

/// Every metric as OpenMetrics text.
async fn render(state: &AppState) -> Result<String, StoreError> {
    let (vaults, shares, sync_bytes) = sync_holdings(state).await?;
    let mut registry = Registry::with_prefix("hearth");
    let m = &state.metrics;
    registry.register(
        "http_requests",
        "Requests answered, by route family and status",
        m.requests.clone(),
    );
    registry.register_with_unit(
        "http_request_duration",
        "Time to the answer's headers, by route family",
        Unit::Seconds,
        m.latency.clone(),
    );
    registry.register(
        "refusals",
        "Requests refused for a rate (429), a quota (507), a shared budget (503), a size (413) or a deadline (408)",
        m.refusals.clone(),
    );

    let publisher = &state.publisher;
    let polls: Family<Vec<(String, String)>, Counter> = Family::default();
    for (family, n) in publisher.polls.totals() {
        let labels = vec![("client".to_owned(), family.name().to_owned())];
        polls.get_or_create(&labels).inc_by(n);
    }
    registry.register(
        "feed_polls",
        "Polls of hosted feeds, by calendar app family",
        polls,
    );
    registry.register(
        "deleted_feed_polls",
        "Polls of deleted calendars, answered 410",
        counter(publisher.gone.answered()),
    );
    registry.register(
        "feed_renders",
        "Hosted feeds rendered (a poll answered from an earlier render makes none)",
        counter(publisher.renders.runs()),
    );
    registry.register(
        "agendas_made",
        "Agendas made from renders (a view answered from an earlier one makes none)",
        counter(publisher.agendas.runs()),
    );
    let fetches: Family<Vec<(String, String)>, Counter> = Family::default();
    for (outcome, n) in publisher.feeds.fetches().read() {
        fetches
            .get_or_create(&vec![("outcome".to_owned(), outcome.to_owned())])
            .inc_by(n);
    }
    registry.register(
        "upstream_fetches",
        "Fetches of upstream feeds, by outcome",
        fetches,
    );
    let (hits, misses) = publisher.cache.lookups();
    registry.register_with_unit(
        "cache",
        "Memory held by feed copies, renders and calendars",
        Unit::Bytes,
        gauge(publisher.cache.used() as f64),
    );
    registry.register_with_unit(
        "cache_capacity",
        "The memory budget of the cache (--cache-size)",
        Unit::Bytes,
        gauge(publisher.cache.capacity() as f64),
    );
    registry.register(
        "cache_hits",
        "Cache lookups that found their entry",
        counter(hits),
    );
    registry.register(
        "cache_misses",
        "Cache lookups that did not",
        counter(misses),
    );
    let engine: Counter<f64, AtomicU64> = Counter::default();
    engine.inc_by(publisher.workers.spent().as_secs_f64());
    registry.register_with_unit(
        "engine",
        "Time the calendar engine spent, all jobs together",
        Unit::Seconds,
        engine,
    );

    let db_bytes = database_bytes(&state.data_dir);
    registry.register_with_unit(
        "database",
        "Size of the database file and its log",
        Unit::Bytes,
        gauge(db_bytes as f64),
    );
    registry.register("sync_vaults", "Sync vaults stored", gauge(vaults as f64));
    registry.register("sync_shares", "Shared decks stored", gauge(shares as f64));
    registry.register_with_unit(
        "sync_stored",
        "Bytes of vaults and shared decks together",
        Unit::Bytes,
        gauge(sync_bytes as f64),
    );
    if let Some(at) = state.backups.report().last_ok() {
        let stamp = at
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64();
        let age = state
            .clock
            .wall()
            .duration_since(at)
            .unwrap_or_default()
            .as_secs_f64();
        registry.register_with_unit(
            "backup_last_success_timestamp",
            "When the last good backup was made (unix time)",
            Unit::Seconds,
            gauge(stamp),
        );
        registry.register_with_unit(
            "backup_age",
            "Time since the last good backup",
            Unit::Seconds,
            gauge(age),
        );
    }
    replication(&mut registry, state);
    let info: Family<Vec<(String, String)>, Gauge> = Family::default();
    info.get_or_create(&vec![(
        "version".to_owned(),
        crate::version::VERSION.to_owned(),
    )])
    .set(1);
    registry.register("build_info", "The running version", info);

    let mut text = String::new();
    // Writing into a String cannot fail.
    let _ = encode(&mut text, &registry);
    Ok(text)
}

/// Replication by Litestream: whether it is on, and (from the server's last measurement and
/// drill) how far behind the replica is and how the last restore drill went.
fn replication(registry: &mut Registry, state: &AppState) {
    let replication = &state.replication;
    let on = replication.settings().replicated();
    registry.register(
        "replication_enabled",
        "1 when Litestream replicates the database (--replica-url)",
        gauge(if on { 1.0 } else { 0.0 }),
    );
    if !on {
        return;
    }
    let unix = |at: SystemTime| {
        at.duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64()
    };
    if let Some(measured) = replication.measured() {
        registry.register(
            "replication_measured",
            "1 when the replica's position could be read at the last measurement",
            gauge(if measured.result.is_ok() { 1.0 } else { 0.0 }),
        );
        if let Ok(position) = &measured.result {
            registry.register_with_unit(
                "replication_lag",
                "How long the oldest write the replica lacks has waited (0: it holds every write)",
                Unit::Seconds,
                gauge(position.behind().as_secs_f64()),
            );
        }
        registry.register_with_unit(
            "replication_measured_timestamp",
            "When the replica's position was last measured (unix time)",
            Unit::Seconds,
            gauge(unix(measured.at)),
        );
    }
    if let Some(drill) = replication.last_drill() {
        registry.register(
            "restore_drill_ok",
            "1 when the last restore drill restored a sound database",
            gauge(if drill.ok { 1.0 } else { 0.0 }),
        );
        registry.register_with_unit(
            "restore_drill_timestamp",
            "When the last restore drill ran (unix time)",
            Unit::Seconds,
            gauge(unix(crate::clock::from_millis(drill.at))),
        );
        registry.register_with_unit(
            "restore_drill_duration",
            "How long the last restore drill took",
            Unit::Seconds,
            gauge(drill.took_ms as f64 / 1000.0),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_fall_into_a_few_route_families() {
        for (path, route) in [
            ("/cal/work.ics", "hosted_feed"),
            ("/api/calendars/x/status", "calendars"),
            ("/api/sync/vaults/x", "sync"),
            ("/api/preview", "editor"),
            ("/api/nothing", "api_other"),
            ("/healthz", "health"),
            ("/assets/app.js", "assets"),
            ("/flashcards/deck/1", "pages"),
        ] {
            assert_eq!(route_of(path), route, "{path}");
        }
    }
}
