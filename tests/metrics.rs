//! Prometheus metrics on their own listener, read by a Prometheus text parser: counters that move
//! with real polls and refusals, the state read at scrape time, and nothing of it on the public
//! listener.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::net::SocketAddr;
use std::time::Duration;

use common::TestServer;
use hearth::http::limits::{RateLimit, RateLimits};
use prometheus_parse::{Scrape, Value};
use reqwest::header::USER_AGENT;
use reqwest::StatusCode;
use upstream::Upstream;

/// A loopback address with a port free a moment ago.
fn free_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr")
}

async fn scrape(addr: SocketAddr) -> Scrape {
    let response = reqwest::get(format!("http://{addr}/metrics"))
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    let text = response.text().await.expect("text");
    Scrape::parse(text.lines().map(|l| Ok(l.to_owned()))).expect("parses")
}

/// The value of `name` with `labels` (a counter's sample carries `_total`).
fn value(scrape: &Scrape, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    scrape
        .samples
        .iter()
        .filter(|s| s.metric == name)
        .find(|s| labels.iter().all(|(k, v)| s.labels.get(k) == Some(v)))
        .map(|s| match &s.value {
            Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v) => *v,
            Value::Histogram(buckets) => buckets.last().map_or(0.0, |b| b.count),
            Value::Summary(_) => 0.0,
        })
}

async fn poll(server: &TestServer, agent: &str) -> StatusCode {
    server
        .client
        .get(server.url("/cal/work.ics"))
        .header(USER_AGENT, agent)
        .send()
        .await
        .expect("sent")
        .status()
}

#[tokio::test]
async fn counters_move_with_real_requests_and_the_state_is_read_at_each_scrape() {
    let upstream = Upstream::start().await;
    let metrics = free_addr();
    let server = TestServer::calendars(|c| c.metrics_listen = Some(metrics)).await;
    server
        .publish_feed("work", &upstream.url("/work.ics"), None)
        .await;
    for _ in 0..2 {
        assert_eq!(
            poll(&server, "Google-Calendar-Importer").await,
            StatusCode::OK
        );
    }

    let before = scrape(metrics).await;
    let google = [("client", "google")];
    assert_eq!(
        value(&before, "hearth_feed_polls_total", &google),
        Some(2.0)
    );
    assert_eq!(
        value(
            &before,
            "hearth_http_requests_total",
            &[("route", "hosted_feed"), ("status", "200")]
        ),
        Some(2.0)
    );
    assert_eq!(
        value(
            &before,
            "hearth_http_requests_total",
            &[("route", "calendars"), ("status", "201")]
        ),
        Some(1.0)
    );
    assert!(
        value(
            &before,
            "hearth_upstream_fetches_total",
            &[("outcome", "changed")]
        ) >= Some(1.0)
    );
    assert!(value(&before, "hearth_database_bytes", &[]) > Some(0.0));
    assert!(value(&before, "hearth_cache_bytes", &[]) > Some(0.0));
    assert!(value(&before, "hearth_engine_seconds_total", &[]) > Some(0.0));
    assert_eq!(value(&before, "hearth_sync_vaults", &[]), Some(0.0));
    assert_eq!(
        value(
            &before,
            "hearth_http_request_duration_seconds_count",
            &[("route", "hosted_feed")]
        ),
        Some(2.0)
    );
    assert_eq!(
        value(
            &before,
            "hearth_build_info",
            &[("version", hearth::version::VERSION)]
        ),
        Some(1.0)
    );

    assert_eq!(
        poll(&server, "iOS/17.4 (21E219) dataaccessd/1.0").await,
        StatusCode::OK
    );
    let vault = server
        .client
        .post(server.url("/api/sync/vaults"))
        .header("content-type", "application/octet-stream")
        .body(vec![7u8; 1000])
        .send()
        .await
        .expect("sent");
    assert_eq!(vault.status(), StatusCode::CREATED);
    let made: serde_json::Value = vault.json().await.expect("json");
    // Written again in parts: a 10-byte manifest and one part of 3,000 bytes.
    let mut framed = 10u32.to_be_bytes().to_vec();
    framed.extend_from_slice(&[1u8; 10]);
    framed.push(1);
    framed.extend_from_slice(b"a");
    framed.extend_from_slice(&3000u32.to_be_bytes());
    framed.extend_from_slice(&[2u8; 3000]);
    let written = server
        .client
        .put(server.url(&format!(
            "/api/sync/vaults/{}",
            made["id"].as_str().expect("id")
        )))
        .header("content-type", "application/octet-stream")
        .header(
            "authorization",
            format!("Bearer {}", made["token"].as_str().expect("token")),
        )
        .header("if-match", "\"v1\"")
        .header("sync-parts", "a")
        .body(framed)
        .send()
        .await
        .expect("sent");
    assert_eq!(written.status(), StatusCode::OK);
    let after = scrape(metrics).await;
    assert_eq!(value(&after, "hearth_feed_polls_total", &google), Some(2.0));
    assert_eq!(
        value(&after, "hearth_feed_polls_total", &[("client", "apple")]),
        Some(1.0)
    );
    assert_eq!(value(&after, "hearth_sync_vaults", &[]), Some(1.0));
    assert_eq!(
        value(&after, "hearth_sync_stored_bytes", &[]),
        Some(3010.0),
        "the manifest and its part"
    );

    // The public listener has no metrics.
    let public = server.get("/metrics").await.text().await.expect("text");
    assert!(!public.contains("hearth_http_requests"), "{public}");
}

#[tokio::test]
async fn refusals_are_counted_by_reason() {
    let upstream = Upstream::start().await;
    let metrics = free_addr();
    let server = TestServer::calendars(|c| {
        c.metrics_listen = Some(metrics);
        c.edge.rate_limits = RateLimits {
            poll: RateLimit {
                burst: 2,
                every: Duration::from_secs(3600),
            },
            ..RateLimits::all(RateLimit {
                burst: 100_000,
                every: Duration::from_millis(1),
            })
        };
    })
    .await;
    server
        .publish_feed("work", &upstream.url("/work.ics"), None)
        .await;
    let mut refused = 0;
    for _ in 0..5 {
        if poll(&server, "Thunderbird/128.0").await == StatusCode::TOO_MANY_REQUESTS {
            refused += 1;
        }
    }
    assert_eq!(refused, 3);
    let scraped = scrape(metrics).await;
    assert_eq!(
        value(&scraped, "hearth_refusals_total", &[("reason", "rate")]),
        Some(3.0)
    );
}

#[tokio::test]
async fn the_grafana_dashboard_shows_only_metrics_the_server_has() {
    let clock = hearth::clock::Clock::manual();
    let metrics = free_addr();
    let server = TestServer::calendars(|c| {
        c.metrics_listen = Some(metrics);
        c.clock = clock.clone();
        c.backups.interval = Some(Duration::from_secs(3600));
    })
    .await;
    // A backup, so its metrics are there too.
    assert_eq!(server.get("/healthz").await.status(), StatusCode::OK);
    clock.advance(hearth::backups::FIRST_AFTER);
    let data_dir = server.data_dir.path().join("backups");
    common::until("a backup", || async {
        hearth::backups::files::list(&data_dir).is_ok_and(|all| !all.is_empty())
    })
    .await;
    common::until("its report", || async {
        scrape(metrics)
            .await
            .samples
            .iter()
            .any(|s| s.metric == "hearth_backup_age_seconds")
    })
    .await;
    let scraped = scrape(metrics).await;
    let dashboard = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/deploy/grafana-dashboard.json"
    ))
    .expect("dashboard");
    let mut names: Vec<&str> = dashboard
        .match_indices("hearth_")
        .map(|(at, _)| {
            let rest = &dashboard[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|name| *name != "hearth_")
        .collect();
    names.sort_unstable();
    names.dedup();
    assert!(names.len() >= 10, "{names:?}");
    for name in names {
        // The parser keeps a histogram's buckets under the histogram's own name.
        let base = name.strip_suffix("_bucket").unwrap_or(name);
        assert!(
            scraped
                .samples
                .iter()
                .any(|s| s.metric == name || s.metric == base),
            "the dashboard asks for {name}, which the server does not have"
        );
    }
}

/// Opens an idle connection to `to` from the loopback address `from` (127.0.0.0/8 is all this
/// machine's, so each is a client of its own).
async fn idle_from(from: [u8; 4], to: SocketAddr) -> tokio::net::TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::from((from, 0)))
        .expect("binds to a loopback address");
    socket.connect(to).await.expect("connects")
}

/// Whether the server has closed `stream` (a peek sees the end, or an error), asked of the
/// socket itself rather than of the runtime's idea of its readiness.
fn closed(stream: &tokio::net::TcpStream) -> bool {
    let mut byte = [std::mem::MaybeUninit::<u8>::uninit(); 1];
    !matches!(
        socket2::SockRef::from(stream).peek(&mut byte),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
    )
}

#[tokio::test]
async fn idle_connections_to_the_metrics_listener_are_held_to_its_table_and_its_deadline() {
    let metrics = free_addr();
    let deadline = Duration::from_millis(400);
    let server = TestServer::start(|c| {
        c.metrics_listen = Some(metrics);
        c.edge.header_read_timeout = deadline;
    })
    .await;
    // The metrics listener is bound before the site answers.
    assert_eq!(server.get("/healthz").await.status(), StatusCode::OK);
    // Four clients each open far more idle connections than the listener keeps for everyone.
    let mut idle = Vec::new();
    for attacker in 1..=4u8 {
        for _ in 0..40 {
            idle.push(idle_from([127, 0, 0, attacker], metrics).await);
        }
    }
    // A scraper from elsewhere is still answered (the heaviest client's oldest connection makes
    // room for it), and so is the public site.
    let scraper = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, 9]))
        .build()
        .expect("client");
    let response = scraper
        .get(format!("http://{metrics}/metrics"))
        .send()
        .await
        .expect("scraped");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(server.get("/healthz").await.status(), StatusCode::OK);
    // Those past the table were closed at once: at most the table's size is left open.
    common::until("connections past the table closed", || {
        let open = idle.iter().filter(|s| !closed(s)).count();
        async move { open <= hearth::web::metrics::MAX_CONNECTIONS }
    })
    .await;
    // And the rest go at the header deadline, having sent nothing.
    let started = std::time::Instant::now();
    common::until("idle connections cut at the deadline", || {
        let open = idle.iter().filter(|s| !closed(s)).count();
        async move { open == 0 }
    })
    .await;
    assert!(started.elapsed() < deadline * 10, "{:?}", started.elapsed());
    assert_eq!(server.get("/healthz").await.status(), StatusCode::OK);
}
