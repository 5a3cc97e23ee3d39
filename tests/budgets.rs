//! Every input has a budget: the attacks of issue 11 at small scale against a real server on a
//! free port and a real upstream on loopback. Regex bombs and amplifying mappings are refused,
//! hosted feeds stay within their output bound, subscribers never wait for a slow upstream when
//! a copy exists, and concurrent misses share one render. Time moves by a manual clock.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::io::Read;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{error_of, field_error, TestServer};
use hearth::calendar::MAX_REGEX_TRANSFORMS;
use hearth::clock::Clock;
use hearth::http::client::ClientKey;
use hearth::publish::cache::Kind;
use hearth::publish::calendars::{self, Maker};
use hearth::publish::feeds::{Ask, Want};
use hearth::publish::hosted::Rendered;
use hearth::publish::quotas::Quotas;
use hearth::publish::validate;
use hearth::publish::Publisher;
use hearth::{Config, Db};
use reqwest::header::{ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY};
use reqwest::StatusCode;
use serde_json::{json, Map, Value};
use upstream::Upstream;

const TTL: Duration = Duration::from_secs(60);

async fn server_with_clock(clock: &Clock) -> TestServer {
    TestServer::calendars_on(clock, TTL, |_| {}).await
}

async fn post(server: &TestServer, path: &str, body: &Value) -> reqwest::Response {
    server
        .client
        .post(server.url(path))
        .json(body)
        .send()
        .await
        .expect("sent")
}

fn mapping_json(summary: &str, description: &str) -> Value {
    json!({
        "SUMMARY": summary,
        "DESCRIPTION": description,
        "LOCATION": "${LOCATION}",
        "DTSTART": "${DTSTART}",
        "DTEND": "${DTEND}"
    })
}

/// A feed of `events` events whose descriptions are `description_bytes` long.
fn feed_with_descriptions(events: usize, description_bytes: usize) -> Vec<u8> {
    let mut out = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n");
    let text = "d".repeat(description_bytes);
    for i in 0..events {
        out.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:{i}@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261201T090000Z\r\n\
             SUMMARY:Event {i}\r\nDESCRIPTION:{text}\r\nEND:VEVENT\r\n"
        ));
    }
    out.push_str("END:VCALENDAR\r\n");
    out.into_bytes()
}

/// Waits (bounded) until `done` holds: for work the server does in the background.
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    common::until(what, || std::future::ready(done())).await;
}

/// Whether a hosted feed is still served from a copy past its TTL.
async fn served_stale(server: &TestServer, path: &str) -> bool {
    server
        .get(path)
        .await
        .headers()
        .contains_key("x-hearth-stale")
}

#[tokio::test]
async fn a_regex_bomb_is_refused_by_the_mappings_budget_in_preview_and_publish() {
    let upstream = Upstream::start().await;
    let server = server_with_clock(&Clock::system()).await;
    // 195 tokens of Unicode \w{20} (about 1.1 MB compiled each) in a 4 KiB template.
    let bomb = r"${A|re:s/\w{20\}/x/g}".repeat(195);
    assert!(bomb.len() <= 4096);
    let mapping: Map<String, Value> = ["SUMMARY", "DESCRIPTION", "LOCATION", "DTSTART", "DTEND"]
        .iter()
        .map(|k| ((*k).to_owned(), Value::from(bomb.clone())))
        .collect();

    let started = Instant::now();
    let response = post(
        &server,
        "/api/render",
        &json!({"event": {"A": "x".repeat(100)}, "mapping": mapping}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.expect("json");
    let errors = body["errors"].as_array().expect("errors");
    assert_eq!(
        errors.len(),
        5 * 195 - 3,
        "three patterns fit the 4 MiB budget"
    );
    assert!(errors
        .iter()
        .any(|e| e["message"].as_str().unwrap_or("").contains("together")));
    assert!(errors.iter().any(|e| e["message"]
        .as_str()
        .unwrap_or("")
        .contains(&format!("at most {MAX_REGEX_TRANSFORMS}"))));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the budget stops compiling early"
    );

    let response = post(
        &server,
        "/api/calendars",
        &json!({"id": "bomb", "name": "B", "url": upstream.url("/a.ics"), "mapping": mapping}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let (field, message) = field_error(response).await;
    assert_eq!(field, "mapping.SUMMARY", "{message}");
    assert!(message.contains("together"), "{message}");
    assert_eq!(upstream.hits(), 0, "refused before any fetch");
    server.stop().await;
}

#[tokio::test]
async fn a_mapping_that_multiplies_the_feed_is_refused_at_publish_naming_the_field() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_with_descriptions(50, 2000));
    let server = server_with_clock(&Clock::system()).await;
    let response = post(
        &server,
        "/api/calendars",
        &json!({
            "id": "amp", "name": "Amp", "url": upstream.url("/a.ics"),
            "mapping": mapping_json("${SUMMARY}", &"${DESCRIPTION}".repeat(250)),
        }),
    )
    .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let (field, message) = field_error(response).await;
    assert_eq!(field, "mapping.DESCRIPTION", "{message}");
    assert!(message.contains("larger than"), "{message}");
    assert_eq!(
        server.get("/cal/amp.ics").await.status(),
        StatusCode::NOT_FOUND
    );
    server.stop().await;
}

#[tokio::test]
async fn a_feed_that_outgrows_the_bound_is_served_from_the_last_good_render_or_a_502() {
    let clock = Clock::manual();
    let upstream = Upstream::start().await;
    upstream.set_body(feed_with_descriptions(5, 100));
    let server = server_with_clock(&clock).await;
    let response = post(
        &server,
        "/api/calendars",
        &json!({
            "id": "grow", "name": "Grow", "url": upstream.url("/a.ics"),
            "mapping": mapping_json("${SUMMARY}", &"${DESCRIPTION}".repeat(100)),
        }),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let good = server.get("/cal/grow.ics").await;
    assert_eq!(good.status(), StatusCode::OK);
    let good = good.bytes().await.expect("body");

    // Upstream grows: the same mapping now renders 100 times 600 KB.
    upstream.set_body(feed_with_descriptions(30, 20_000));
    clock.advance(TTL * 2);
    let hits = upstream.hits();
    let stale = server.get("/cal/grow.ics").await;
    assert_eq!(stale.bytes().await.expect("body"), good);
    eventually("the background refresh", || upstream.hits() > hits).await;
    // Once the new copy is in, its render is refused and the last good one stands in.
    common::until("the refresh", || async {
        let response = server.get("/cal/grow.ics").await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.bytes().await.expect("body"), good);
        !served_stale(&server, "/cal/grow.ics").await
    })
    .await;

    // After a restart there is no good render to fall back on: a plain-text 502.
    let data_dir = server.stop().await;
    let server = TestServer::start_in(data_dir, common::on_clock(&clock, TTL)).await;
    let response = server.get("/cal/grow.ics").await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert!(response.headers()[CONTENT_TYPE]
        .to_str()
        .expect("ascii")
        .starts_with("text/plain"));
    let text = response.text().await.expect("text");
    assert!(text.contains("DESCRIPTION"), "{text}");
    server.stop().await;
}

#[tokio::test]
async fn subscribers_get_the_copy_at_once_while_one_background_fetch_refreshes_it() {
    let clock = Clock::manual();
    let upstream = Upstream::start().await;
    let server = server_with_clock(&clock).await;
    let response = post(
        &server,
        "/api/calendars",
        &json!({"id": "slow", "name": "Slow", "url": upstream.url("/a.ics"),
                "mapping": mapping_json("${SUMMARY}!", "${DESCRIPTION}")}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let first = server.get("/cal/slow.ics").await;
    assert!(!first.headers().contains_key("x-hearth-stale"));
    let good = first.bytes().await.expect("body");

    clock.advance(TTL + Duration::from_secs(1));
    // The upstream holds the refresh until the test lets it answer.
    upstream.close_gate();
    let before = upstream.hits();
    let mut tasks = Vec::new();
    for _ in 0..30 {
        let client = server.client.clone();
        let url = server.url("/cal/slow.ics");
        tasks.push(tokio::spawn(async move {
            let response = client.get(url).send().await.expect("sent");
            let stale = response.headers().contains_key("x-hearth-stale");
            (
                response.status(),
                stale,
                response.bytes().await.expect("body"),
            )
        }));
    }
    for task in tasks {
        let (status, stale, body) = task.await.expect("joins");
        assert_eq!(status, StatusCode::OK);
        assert!(stale, "a copy past its TTL is marked");
        assert_eq!(body, good);
    }
    // All thirty were answered while the one background fetch still waits at the gate.
    upstream.until_waiting(1).await;
    assert_eq!(upstream.hits() - before, 1, "one background fetch");
    upstream.open_gate();
    // The refresh finishes; its age counts from then, so the copy is fresh again.
    common::until("the refresh", || async {
        !served_stale(&server, "/cal/slow.ics").await
    })
    .await;
    assert_eq!(upstream.hits() - before, 1, "exactly one background fetch");
    server.stop().await;
}

#[tokio::test]
async fn hosted_feeds_are_gzipped_for_clients_that_accept_it_with_their_own_etag() {
    let upstream = Upstream::start().await;
    let server = server_with_clock(&Clock::system()).await;
    let response = post(
        &server,
        "/api/calendars",
        &json!({"id": "gz", "name": "Gz", "url": upstream.url("/a.ics"),
                "mapping": mapping_json("${SUMMARY}!", "${DESCRIPTION}")}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let plain = server.get("/cal/gz.ics").await;
    assert!(plain.headers().get(CONTENT_ENCODING).is_none());
    assert_eq!(plain.headers()[VARY], "Accept-Encoding");
    let plain_etag = plain.headers()[ETAG].clone();
    let plain = plain.bytes().await.expect("body");

    let zipped = server
        .client
        .get(server.url("/cal/gz.ics"))
        .header(ACCEPT_ENCODING, "gzip, deflate, br")
        .send()
        .await
        .expect("sent");
    assert_eq!(zipped.headers()[CONTENT_ENCODING], "gzip");
    let gz_etag = zipped.headers()[ETAG].clone();
    assert_ne!(gz_etag, plain_etag);
    let bytes = zipped.bytes().await.expect("body");
    let mut decoded = Vec::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_end(&mut decoded)
        .expect("gunzips");
    assert_eq!(decoded, plain);

    for tag in [plain_etag, gz_etag] {
        let response = server
            .client
            .get(server.url("/cal/gz.ics"))
            .header(ACCEPT_ENCODING, "gzip")
            .header(IF_NONE_MATCH, tag)
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::NOT_MODIFIED);
    }

    // JSON answers are compressed too.
    let feed = server
        .client
        .get(server.url(&format!(
            "/api/feed?url={}",
            upstream.url("/a.ics").replace(':', "%3A").replace('/', "%2F")
        )))
        .header(ACCEPT_ENCODING, "gzip")
        .send()
        .await
        .expect("sent");
    assert_eq!(feed.status(), StatusCode::OK);
    assert_eq!(feed.headers()[CONTENT_ENCODING], "gzip");
    server.stop().await;
}

/// A publish's ask: a copy at most `max_age` old, fetched if need be, and kept.
fn fresh(max_age: Duration) -> Ask {
    Ask {
        want: Want::Fresh,
        ..Ask::subscriber(max_age)
    }
}

/// The editor's ask: as fresh, but not kept in the database.
fn editor(max_age: Duration) -> Ask {
    Ask {
        persist: false,
        ..fresh(max_age)
    }
}

/// A config of `mapping` and no options, as a publish request carries it.
fn config_of(mapping: Map<String, Value>) -> Map<String, Value> {
    let mut config = Map::new();
    config.insert("mapping".into(), Value::Object(mapping));
    config
}

/// The site's owner, publishing straight into the store.
fn owner() -> Maker {
    Maker {
        client: ClientKey::of("127.0.0.1".parse().expect("ip")),
        owner: true,
    }
}

/// The publishing side on its own, for what HTTP cannot see: shared renders and the slot map.
async fn publisher(dir: &std::path::Path) -> (Arc<Publisher>, Db) {
    publisher_with(dir, |_| {}).await
}

async fn publisher_with(
    dir: &std::path::Path,
    configure: impl FnOnce(&mut Config),
) -> (Arc<Publisher>, Db) {
    let db = Db::open(dir).expect("opens");
    let mut config = Config::defaults(dir).expect("defaults");
    config.calendars.allow_private_feeds = true;
    configure(&mut config);
    let bytes = hearth::http::budget::ByteBudget::split(64 << 20, 16 << 20);
    let publisher = Arc::new(
        Publisher::new(
            db.clone(),
            &config.calendars,
            dir,
            config.clock.clone(),
            bytes,
        )
        .expect("publisher"),
    );
    (publisher, db)
}

/// Publishes calendar `id` of `url` straight into the store and loads it as subscribers see it.
async fn stored_calendar(
    publisher: &Publisher,
    db: &Db,
    dir: &std::path::Path,
    id: &str,
    url: &str,
) -> Arc<hearth::publish::HostedCalendar> {
    let mapping: Map<String, Value> = mapping_json("${SUMMARY}!", "${DESCRIPTION}")
        .as_object()
        .expect("object")
        .clone();
    let input = validate::validate(id, "One", Some(url), &config_of(mapping)).expect("valid");
    let quotas = Quotas::of(&Config::defaults(dir).expect("defaults").calendars);
    calendars::publish(
        db,
        input,
        None,
        owner(),
        quotas,
        std::time::SystemTime::now(),
        Vec::new(),
    )
    .await
    .expect("stored");
    publisher
        .calendar(db, id)
        .await
        .expect("loads")
        .expect("exists")
}

#[tokio::test]
async fn a_feed_too_large_for_memory_is_rendered_once_and_served_from_disk() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_with_descriptions(200, 400));
    let dir = tempfile::tempdir().expect("tempdir");
    // A quarter of 64 KiB is what one render may hold in memory; this one is about 100 KiB.
    let (publisher, db) = publisher_with(dir.path(), |c| c.calendars.cache_size = 64 * 1024).await;
    let calendar =
        stored_calendar(&publisher, &db, dir.path(), "big", &upstream.url("/a.ics")).await;
    let feed = publisher
        .feeds
        .get(&calendar.url, Ask::subscriber(TTL))
        .await
        .expect("fetched");
    let mut etags = Vec::new();
    for _ in 0..5 {
        let rendered = publisher
            .renders
            .render(&calendar, &feed, TTL)
            .await
            .expect("renders");
        assert!(rendered.spilled(), "on disk");
        etags.push(rendered.etag.clone());
    }
    etags.dedup();
    assert_eq!(etags.len(), 1);
    assert_eq!(
        publisher.renders.runs(),
        1,
        "rendered once, not on every poll"
    );
    let files = std::fs::read_dir(dir.path().join("renders"))
        .expect("renders directory")
        .count();
    assert_eq!(files, 2, "the plain and the gzipped form");
    assert!(
        publisher.cache.used() < 16 * 1024,
        "{}",
        publisher.cache.used()
    );
}

#[tokio::test]
async fn a_spilled_feed_is_served_whole_plain_and_gzipped() {
    let upstream = Upstream::start().await;
    let body = feed_with_descriptions(200, 400);
    upstream.set_body(body.clone());
    let server = TestServer::calendars(|c| {
        c.calendars.cache_size = 64 * 1024;
    })
    .await;
    let published = post(
        &server,
        "/api/calendars",
        &json!({"id": "big", "name": "Big", "url": upstream.url("/a.ics"), "mapping": mapping_json("${SUMMARY}", "${DESCRIPTION}")}),
    )
    .await;
    assert_eq!(published.status(), StatusCode::CREATED);
    let plain = server.get("/cal/big.ics").await;
    assert_eq!(plain.status(), StatusCode::OK);
    let etag = plain.headers()[ETAG].clone();
    let text = plain.bytes().await.expect("body");
    assert!(text.len() > 80_000, "{}", text.len());
    assert!(text.ends_with(b"END:VCALENDAR\r\n"));
    let zipped = server
        .client
        .get(server.url("/cal/big.ics"))
        .header(ACCEPT_ENCODING, "gzip")
        .send()
        .await
        .expect("sent");
    assert_eq!(zipped.headers()[CONTENT_ENCODING], "gzip");
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&zipped.bytes().await.expect("body")[..])
        .read_to_end(&mut unzipped)
        .expect("gzip");
    assert_eq!(unzipped, text.to_vec());
    let again = server
        .client
        .get(server.url("/cal/big.ics"))
        .header(IF_NONE_MATCH, etag)
        .send()
        .await
        .expect("sent");
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    server.stop().await;
}

#[tokio::test]
async fn a_subscriber_gets_the_earlier_render_while_the_engine_is_busy() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_with_descriptions(50, 20));
    let dir = tempfile::tempdir().expect("tempdir");
    let (publisher, db) = publisher(dir.path()).await;
    let calendar =
        stored_calendar(&publisher, &db, dir.path(), "busy", &upstream.url("/a.ics")).await;
    let first = publisher
        .feeds
        .get(&calendar.url, fresh(TTL))
        .await
        .expect("fetched");
    let earlier = publisher
        .renders
        .render(&calendar, &first, TTL)
        .await
        .expect("renders");
    // The source changes, and every engine slot is taken by someone's long preview.
    upstream.set_body(feed_with_descriptions(51, 20));
    let changed = publisher
        .feeds
        .get(&calendar.url, fresh(Duration::ZERO))
        .await
        .expect("fetched again");
    assert_ne!(changed.copy.version, first.copy.version);
    let gate = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let mut holders = Vec::new();
    for _ in 0..publisher.workers.free() {
        let (publisher, gate) = (publisher.clone(), gate.clone());
        holders.push(tokio::spawn(async move {
            publisher
                .run(move || {
                    let (open, wake) = &*gate;
                    let mut open = open.lock().expect("lock");
                    while !*open {
                        open = wake.wait(open).expect("wait");
                    }
                })
                .await
        }));
    }
    eventually("every engine slot is taken", || publisher.workers.busy()).await;
    let served = publisher
        .renders
        .render(&calendar, &changed, TTL)
        .await
        .expect("served at once");
    assert_eq!(
        served.etag, earlier.etag,
        "the earlier render, without waiting"
    );
    // The engine frees up: the new render follows in the background.
    {
        let (open, wake) = &*gate;
        *open.lock().expect("lock") = true;
        wake.notify_all();
    }
    for holder in holders {
        holder.await.expect("joins").expect("ran");
    }
    eventually("the new render", || {
        publisher
            .cache
            .get::<Rendered>(Kind::Render, "busy")
            .is_some_and(|r| r.etag != earlier.etag)
    })
    .await;
    let fresh = publisher
        .renders
        .render(&calendar, &changed, TTL)
        .await
        .expect("renders");
    assert_ne!(fresh.etag, earlier.etag);
    assert_eq!(publisher.renders.runs(), 2);
}

#[tokio::test]
async fn concurrent_misses_for_one_calendar_share_one_render() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_with_descriptions(2000, 200));
    let dir = tempfile::tempdir().expect("tempdir");
    let (publisher, db) = publisher(dir.path()).await;
    let mapping: Map<String, Value> = mapping_json("${SUMMARY}!", "${DESCRIPTION}")
        .as_object()
        .expect("object")
        .clone();
    let input = validate::validate(
        "one",
        "One",
        Some(&upstream.url("/a.ics")),
        &config_of(mapping),
    )
    .expect("valid");
    let url = input.url.clone();
    let quotas = Quotas::of(&Config::defaults(dir.path()).expect("defaults").calendars);
    calendars::publish(
        &db,
        input,
        None,
        owner(),
        quotas,
        std::time::SystemTime::now(),
        Vec::new(),
    )
    .await
    .expect("stored");
    let calendar = publisher
        .calendar(&db, "one")
        .await
        .expect("loads")
        .expect("exists");
    let feed = publisher
        .feeds
        .get(&url, Ask::subscriber(TTL))
        .await
        .expect("fetched");
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let (publisher, calendar, feed) = (publisher.clone(), calendar.clone(), feed.clone());
        tasks.push(tokio::spawn(async move {
            publisher
                .renders
                .render(&calendar, &feed, TTL)
                .await
                .map(|r| r.etag.clone())
        }));
    }
    let mut etags = Vec::new();
    for task in tasks {
        etags.push(task.await.expect("joins").expect("renders"));
    }
    etags.dedup();
    assert_eq!(etags.len(), 1);
    assert_eq!(publisher.renders.runs(), 1, "one render for twenty misses");
}

#[tokio::test]
async fn the_slot_map_forgets_addresses_that_hold_nothing() {
    let upstream = Upstream::start().await;
    upstream.set_status(404);
    let dir = tempfile::tempdir().expect("tempdir");
    let (publisher, _db) = publisher(dir.path()).await;
    for n in 0..300 {
        let url = reqwest::Url::parse(&upstream.url(&format!("/x/{n}.ics"))).expect("url");
        assert!(publisher.feeds.get(&url, editor(TTL)).await.is_err());
    }
    assert_eq!(publisher.feeds.tracked(), 0);
    assert_eq!(upstream.hits(), 300);
    assert_eq!(publisher.cache.used(), 0);
}

#[tokio::test]
async fn a_preview_stops_at_its_engine_time_and_the_time_is_charged_to_its_visitor() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_with_descriptions(4000, 400));
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |c| {
        c.calendars.engine.preview = Duration::from_millis(200);
        c.calendars.engine.burst = Duration::from_millis(300);
        c.calendars.engine.refill_every = Duration::from_secs(3600);
    })
    .await;
    // Thirty-two tokens that each walk every description: seconds of engine time.
    let heavy = format!(
        "${{SUMMARY}}{}",
        "${DESCRIPTION|re:s/[\\s\\S]//g}".repeat(MAX_REGEX_TRANSFORMS)
    );
    let preview = |from: &'static str| {
        server
            .client
            .post(server.url("/api/preview"))
            .header("X-Forwarded-For", from)
            .json(
                &json!({"url": upstream.url("/a.ics"), "config": {"mapping": {"SUMMARY": heavy}}}),
            )
            .send()
    };
    let stopped = preview("198.51.100.1").await.expect("sent");
    assert_eq!(stopped.status(), StatusCode::BAD_REQUEST);
    let message = error_of(stopped).await;
    assert!(
        message.contains("time for this request ran out"),
        "{message}"
    );
    // Each stopped preview cost its visitor about its budget; the allowance runs dry.
    let mut refused = None;
    for _ in 0..3 {
        let response = preview("198.51.100.1").await.expect("sent");
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(response);
            break;
        }
    }
    let refused = refused.expect("the visitor's engine time is spent");
    assert!(refused.headers().contains_key("retry-after"));
    assert!(error_of(refused).await.contains("calendar engine"));
    // Another visitor is not held back by it.
    let other = preview("198.51.100.2").await.expect("sent");
    assert_eq!(
        other.status(),
        StatusCode::BAD_REQUEST,
        "stopped, not refused"
    );
    server.stop().await;
}

#[tokio::test]
async fn an_upstream_body_counts_against_its_visitors_bytes_in_flight() {
    use tokio::io::AsyncWriteExt;
    let upstream = Upstream::start().await;
    upstream.set_body(feed_with_descriptions(100, 400));
    let server = TestServer::calendars(|c| {
        // A visitor's share of bytes in flight is the largest body: 100 KiB.
        c.edge.max_bytes_in_flight = 400 * 1024;
        c.calendars.feed_max_size = 100 * 1024;
        c.sync.max_vault_size = 100 * 1024;
    })
    .await;
    // The visitor's upload has sent 90 KiB of a vault and holds its share with the window.
    let mut upload = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let head = "POST /api/sync/vaults HTTP/1.1\r\nHost: localhost\r\n\
                Content-Type: application/octet-stream\r\nX-Forwarded-For: 198.51.100.7\r\n\
                Content-Length: 102400\r\n\r\n";
    upload.write_all(head.as_bytes()).await.expect("head");
    upload.write_all(&[1u8; 90 * 1024]).await.expect("body");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let read = |from: &'static str| {
        server
            .client
            .get(server.url(&format!("/api/feed?url={}", upstream.url("/a.ics"))))
            .header("X-Forwarded-For", from)
            .send()
    };
    // Its feed (about 45 KiB) does not fit what is left of its share: refused as it arrives.
    let refused = read("198.51.100.7").await.expect("sent");
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(refused.headers().contains_key("retry-after"));
    error_of(refused).await;
    // Another visitor reads the same feed.
    let other = read("198.51.100.8").await.expect("sent");
    assert_eq!(other.status(), StatusCode::OK);
    drop(upload);
    server.stop().await;
}
