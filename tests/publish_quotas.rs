//! Publishing's quotas are reservations, against the real server and a real upstream: room for
//! a feed is reserved before it is fetched and charged when it is stored, so concurrent
//! publishes cannot store more than `--max-feed-storage` together; a feed that grows later is
//! stored only while it fits; a refused publish leaves no copy behind; each visitor has its
//! share of the calendars, and the site's owner none to keep to.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use common::{error_of, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use upstream::Upstream;

/// A calendar feed of about `bytes` bytes.
fn feed_of(bytes: usize) -> Vec<u8> {
    let mut out = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n");
    let mut n = 0;
    while out.len() < bytes {
        out.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:{n}@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261201T090000Z\r\n\
             SUMMARY:Event {n}\r\nDESCRIPTION:{}\r\nEND:VEVENT\r\n",
            "d".repeat(200)
        ));
        n += 1;
    }
    out.push_str("END:VCALENDAR\r\n");
    out.into_bytes()
}

fn calendar(id: &str, url: &str) -> Value {
    json!({"id": id, "name": id, "url": url, "mapping": {"SUMMARY": "${SUMMARY}"}})
}

async fn publish_as(server: &TestServer, from: &str, body: &Value) -> reqwest::Response {
    server
        .client
        .post(server.url("/api/calendars"))
        .header("X-Forwarded-For", from)
        .json(body)
        .send()
        .await
        .expect("sent")
}

/// Bytes of the feed copies the database holds.
async fn stored_bytes(server: &TestServer) -> u64 {
    let db = hearth::Db::open(server.data_dir.path()).expect("opens");
    db.read(|conn| {
        let n: i64 = conn.query_row(
            "SELECT coalesce(sum(length(body)), 0) FROM feed_copies",
            [],
            |r| r.get(0),
        )?;
        Ok(u64::try_from(n).unwrap_or(0))
    })
    .await
    .expect("read")
}

#[tokio::test]
async fn concurrent_publishes_never_store_more_than_the_feed_storage() {
    let upstream = Upstream::start().await;
    // Each visitor's eighth of the storage holds one such feed; ten of them do not fit.
    upstream.set_body(feed_of(10_000));
    // The upstream holds every fetch until all ten publishes are under way at once.
    upstream.close_gate();
    const MAX: u64 = 100_000;
    let server = TestServer::calendars(|c| {
        c.calendars.max_feed_storage = MAX;
    })
    .await;
    let mut publishes = tokio::task::JoinSet::new();
    for n in 0..10 {
        let url = upstream.url(&format!("/{n}.ics"));
        let client = server.client.clone();
        let endpoint = server.url("/api/calendars");
        publishes.spawn(async move {
            client
                .post(endpoint)
                .header("X-Forwarded-For", format!("198.51.100.{n}"))
                .json(&calendar(&format!("c{n}"), &url))
                .send()
                .await
                .expect("sent")
        });
    }
    // Those with room reserved are at the gate; the others were refused before fetching.
    let mut created = 0;
    let mut full = 0;
    let mut answered = Vec::new();
    let reserved = loop {
        let arrived = upstream.state.arrived.notified();
        let waiting = upstream
            .state
            .waiting
            .load(std::sync::atomic::Ordering::SeqCst);
        if waiting + answered.len() == 10 {
            break waiting;
        }
        tokio::select! {
            () = arrived => {}
            Some(done) = publishes.join_next() => answered.push(done.expect("joins")),
        }
    };
    assert!((1..10).contains(&reserved), "{reserved} fetches under way");
    upstream.open_gate();
    for response in answered {
        assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
        full += 1;
    }
    while let Some(done) = publishes.join_next().await {
        let response = done.expect("joins");
        match response.status() {
            StatusCode::CREATED => created += 1,
            StatusCode::INSUFFICIENT_STORAGE => {
                full += 1;
                let message = error_of(response).await;
                assert!(message.contains("--max-feed-storage"), "{message}");
                assert!(!message.chars().any(|c| c.is_ascii_digit()), "{message}");
            }
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(created + full, 10);
    assert!(
        created >= 1 && full >= 1,
        "{created} created, {full} refused"
    );
    let stored = stored_bytes(&server).await;
    assert!(stored <= MAX, "{stored} bytes stored against {MAX}");
    server.stop().await;
}

#[tokio::test]
async fn a_feed_that_grows_past_the_storage_is_not_stored() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_of(20_000));
    let clock = hearth::clock::Clock::manual();
    // 25,000 bytes are the visitor's eighth.
    let server = TestServer::calendars_on(&clock, std::time::Duration::from_secs(60), |c| {
        c.calendars.max_feed_storage = 200_000;
    })
    .await;
    let response = publish_as(
        &server,
        "198.51.100.1",
        &calendar("grows", &upstream.url("/g.ics")),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let token: Value = response.json().await.expect("json");
    let token = token["editToken"].as_str().expect("token").to_owned();
    let before = stored_bytes(&server).await;
    assert!((20_000..30_000).contains(&before), "{before}");
    // The source grows past what the server may store: republishing fetches it again, and the
    // grown copy is refused where it would be stored, not only before the fetch.
    upstream.set_body(feed_of(80_000));
    clock.advance(std::time::Duration::from_secs(61));
    let mut again = calendar("grows", &upstream.url("/g.ics"));
    again["editToken"] = json!(token);
    let refused = publish_as(&server, "198.51.100.1", &again).await;
    assert_eq!(refused.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert_eq!(stored_bytes(&server).await, before);
    // Subscribers still get the feed.
    assert_eq!(server.get("/cal/grows.ics").await.status(), StatusCode::OK);
    server.stop().await;
}

#[tokio::test]
async fn a_refused_publish_leaves_no_copy_behind() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_of(20_000));
    let server = TestServer::calendars(|_| {}).await;
    // A mapping that multiplies every description past the output bound is refused after the
    // feed was fetched: its copy must not stay and take storage.
    let amplify = json!({
        "id": "amp", "name": "amp", "url": upstream.url("/a.ics"),
        "mapping": {"DESCRIPTION": "${DESCRIPTION}".repeat(250)}
    });
    let response = publish_as(&server, "198.51.100.1", &amplify).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(upstream.hits(), 1, "the feed was fetched");
    assert_eq!(stored_bytes(&server).await, 0);
    server.stop().await;
}

#[tokio::test]
async fn each_visitor_has_its_share_of_the_calendars_and_the_owner_none_to_keep_to() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_of(2_000));
    let server = TestServer::calendars(|c| {
        c.calendars.max_calendars = 16;
        c.edge.publish_key = Some("owner".into());
    })
    .await;
    let as_visitor = |n: u8, id: &str| {
        let body = calendar(id, &upstream.url(&format!("/{id}.ics")));
        let request = server
            .client
            .post(server.url("/api/calendars"))
            .header("X-Forwarded-For", format!("203.0.113.{n}"))
            .header("X-Publish-Key", "owner")
            .json(&body);
        request.send()
    };
    // The owner (with the key) publishes more than a visitor's share of two.
    for id in ["o1", "o2", "o3"] {
        assert_eq!(
            as_visitor(1, id).await.expect("sent").status(),
            StatusCode::CREATED
        );
    }
    server.stop().await;

    let open = TestServer::calendars(|c| {
        c.calendars.max_calendars = 16;
    })
    .await;
    for id in ["a", "b"] {
        let response =
            publish_as(&open, "203.0.113.7", &calendar(id, &upstream.url("/x.ics"))).await;
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    let third = publish_as(
        &open,
        "203.0.113.7",
        &calendar("c", &upstream.url("/x.ics")),
    )
    .await;
    assert_eq!(third.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert!(error_of(third).await.contains("share"));
    let other = publish_as(
        &open,
        "203.0.113.8",
        &calendar("d", &upstream.url("/x.ics")),
    )
    .await;
    assert_eq!(other.status(), StatusCode::CREATED);
    open.stop().await;
}
