//! Past events that stay, against a real server and a real upstream on loopback, on the
//! server's manual clock: an event the source drops after it ended is still served for
//! `history.keepDays` after its end, one dropped before it ended (cancelled) is not, and a
//! calendar without history serves only what the source has.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::Duration;

use common::{until, TestServer};
use hearth::clock::Clock;
use reqwest::StatusCode;
use serde_json::json;
use upstream::{Upstream, SAMPLE};

const TTL: Duration = Duration::from_secs(60);
const DAY: Duration = Duration::from_secs(86_400);

/// An event that ended ten days before the manual clock's start (today), and one far ahead.
fn with_extra_events() -> String {
    let ended = common::utc_stamp(std::time::SystemTime::now() - DAY * 10);
    let extra = format!(
        "BEGIN:VEVENT\r\nUID:past@hearth.test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{ended}\r\nDURATION:PT1H\r\nSUMMARY:Last month's review\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:cancelled@hearth.test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20301210T090000Z\r\nSUMMARY:Cancelled party\r\nEND:VEVENT\r\n"
    );
    SAMPLE.replace("END:VCALENDAR\r\n", &format!("{extra}END:VCALENDAR\r\n"))
}

async fn publish(server: &TestServer, id: &str, url: &str, history: bool) {
    let mut body = json!({ "id": id, "name": id, "url": url, "mapping": {} });
    if history {
        body["history"] = json!({"keepDays": 30});
    }
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .json(&body)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
}

async fn hosted(server: &TestServer, id: &str) -> String {
    let response = server.get(&format!("/cal/{id}.ics")).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.expect("text")
}

#[tokio::test]
async fn an_event_the_source_drops_after_it_ended_stays_for_the_days_kept() {
    let upstream = Upstream::start().await;
    upstream.set_body(with_extra_events());
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let url = upstream.url("/work.ics");
    publish(&server, "kept", &url, true).await;
    publish(&server, "plain", &url, false).await;
    assert!(hosted(&server, "kept")
        .await
        .contains("Last month's review"));

    // The source drops both extra events (as Outlook drops old ones).
    upstream.set_body(SAMPLE);
    clock.advance(TTL * 2);
    let _ = hosted(&server, "kept").await;
    until("the new copy is served", || async {
        !hosted(&server, "plain").await.contains("Cancelled party")
    })
    .await;
    // A subscriber may get the earlier render while the engine is busy: wait for the new one.
    until("the kept calendar's new render", || async {
        !hosted(&server, "kept").await.contains("Cancelled party")
    })
    .await;
    let kept = hosted(&server, "kept").await;
    assert!(kept.contains("SUMMARY:Last month's review\r\n"), "{kept}");
    assert!(kept.contains("SUMMARY:Team meeting\r\n"), "{kept}");
    // Dropped before it ended: cancelled, not kept.
    assert!(!kept.contains("Cancelled party"), "{kept}");
    assert_eq!(kept.matches("BEGIN:VCALENDAR").count(), 1);
    let plain = hosted(&server, "plain").await;
    assert!(!plain.contains("Last month's review"), "{plain}");

    // Thirty days after its end it goes. Kept events are judged by whole UTC days (the render's
    // day), so 22 days on is past the thirty at any time of day (21 is not, just before
    // midnight).
    clock.advance(DAY * 22);
    until("the past event goes", || async {
        !hosted(&server, "kept")
            .await
            .contains("Last month's review")
    })
    .await;
    let kept = hosted(&server, "kept").await;
    assert!(kept.contains("SUMMARY:Team meeting\r\n"), "{kept}");
}

#[tokio::test]
async fn history_is_checked_like_every_option() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|_| {}).await;
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .json(
            &json!({ "id": "x", "name": "x", "url": upstream.url("/a.ics"), "mapping": {},
            "history": {"keepDays": 400} }),
        )
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(common::field_error(response).await.0, "history.keepDays");
}

/// Engine time the server has spent so far, as its metrics say.
async fn engine_seconds(metrics: std::net::SocketAddr) -> f64 {
    let text = reqwest::get(format!("http://{metrics}/metrics"))
        .await
        .expect("scraped")
        .text()
        .await
        .expect("text");
    text.lines()
        .find_map(|l| l.strip_prefix("hearth_engine_seconds_total "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the engine's time")
}

/// About 120 KB of events that ended ten days before the manual clock's start.
fn ended_events() -> String {
    let ended = common::utc_stamp(std::time::SystemTime::now() - DAY * 10);
    let mut extra = String::new();
    for i in 0..400 {
        extra.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:past-{i}@hearth.test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{ended}\r\n\
             DURATION:PT1H\r\nSUMMARY:Review {i}\r\nDESCRIPTION:{}\r\nEND:VEVENT\r\n",
            "notes ".repeat(40)
        ));
    }
    SAMPLE.replace("END:VCALENDAR\r\n", &format!("{extra}END:VCALENDAR\r\n"))
}

#[tokio::test]
async fn a_calendar_keeping_history_merges_its_past_events_only_when_it_renders() {
    let upstream = Upstream::start().await;
    upstream.set_body(ended_events());
    let clock = Clock::manual();
    let metrics = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr")
    };
    // A cache far smaller than the calendar with its past events: neither its merge nor its
    // render stays in memory (the render is on disk).
    let server = TestServer::calendars_on(&clock, TTL, |c| {
        c.calendars.cache_size = 64 * 1024;
        c.metrics_listen = Some(metrics);
    })
    .await;
    let url = upstream.url("/work.ics");
    publish(&server, "kept", &url, true).await;
    upstream.set_body(SAMPLE);
    clock.advance(TTL * 2);
    let _ = hosted(&server, "kept").await;
    until("the past events are served", || async {
        let feed = hosted(&server, "kept").await;
        feed.contains("SUMMARY:Review 399\r\n") && !feed.contains("UID:cancelled")
    })
    .await;
    let served = hosted(&server, "kept").await;
    assert!(served.len() > 100_000, "{}", served.len());
    assert!(served.contains("SUMMARY:Team meeting\r\n"));
    // Polls answered from that render make nothing on the engine: no merge, no render.
    let before = engine_seconds(metrics).await;
    for _ in 0..5 {
        assert_eq!(hosted(&server, "kept").await, served);
    }
    assert_eq!(engine_seconds(metrics).await, before);
    server.stop().await;
}
