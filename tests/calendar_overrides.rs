//! Events changed by hand against a real server and a real upstream on loopback: a new title,
//! a shift and a hidden event in the hosted feed, kept through an upstream change and a
//! republish; the preview names an override whose event is gone upstream.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::Duration;

use common::{until, TestServer};
use hearth::clock::Clock;
use reqwest::header::AUTHORIZATION;
use reqwest::StatusCode;
use serde_json::{json, Value};
use upstream::{Upstream, SAMPLE};

const TTL: Duration = Duration::from_secs(60);

fn overrides() -> Value {
    json!([
        {"uid": "one@hearth.test", "summary": "Budget meeting", "shiftMinutes": 30},
        {"uid": "two@hearth.test", "hide": true}
    ])
}

async fn publish(server: &TestServer, url: &str, token: Option<&str>, mapping: Value) -> Value {
    let mut request = server
        .client
        .post(server.url("/api/calendars"))
        .json(&json!({
            "id": "work", "name": "Work", "url": url, "mapping": mapping, "overrides": overrides()
        }));
    if let Some(token) = token {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    let response = request.send().await.expect("sent");
    assert!(response.status().is_success(), "{}", response.status());
    response.json().await.expect("json")
}

async fn hosted(server: &TestServer) -> String {
    let response = server.get("/cal/work.ics").await;
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.expect("text")
}

#[tokio::test]
async fn changes_by_hand_survive_an_upstream_change_and_a_republish() {
    let upstream = Upstream::start().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let url = upstream.url("/work.ics");
    let answer = publish(&server, &url, None, json!({"LOCATION": "at ${LOCATION}"})).await;
    let token = answer["editToken"].as_str().expect("token").to_owned();

    let feed = hosted(&server).await;
    assert!(feed.contains("SUMMARY:Budget meeting\r\n"), "{feed}");
    assert!(
        feed.contains("DTSTART;TZID=Europe/Amsterdam:20261201T093000\r\n"),
        "{feed}"
    );
    assert!(
        feed.contains("DTEND;TZID=Europe/Amsterdam:20261201T103000\r\n"),
        "{feed}"
    );
    assert!(
        feed.contains("LOCATION:at Room 4\\, Building B\r\n"),
        "{feed}"
    );
    assert!(!feed.contains("Holiday"), "{feed}");

    // Upstream changes the meeting's room: the hand-made changes stay.
    upstream.set_body(SAMPLE.replace("Room 4", "Room 9"));
    clock.advance(TTL * 2);
    let _ = hosted(&server).await;
    until("the new copy is rendered", || async {
        hosted(&server).await.contains("Room 9")
    })
    .await;
    let feed = hosted(&server).await;
    assert!(feed.contains("SUMMARY:Budget meeting\r\n"), "{feed}");
    assert!(!feed.contains("Holiday"), "{feed}");

    // A republish with another mapping keeps them too.
    publish(
        &server,
        &url,
        Some(&token),
        json!({"LOCATION": "in ${LOCATION}"}),
    )
    .await;
    let feed = hosted(&server).await;
    assert!(
        feed.contains("LOCATION:in Room 9\\, Building B\r\n"),
        "{feed}"
    );
    assert!(feed.contains("SUMMARY:Budget meeting\r\n"), "{feed}");
    assert!(
        feed.contains("DTSTART;TZID=Europe/Amsterdam:20261201T093000\r\n"),
        "{feed}"
    );
}

#[tokio::test]
async fn the_preview_names_overrides_whose_event_is_gone() {
    let upstream = Upstream::start().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let preview = || async {
        server
            .client
            .post(server.url("/api/preview"))
            .json(&json!({
                "url": upstream.url("/work.ics"),
                "config": {"mapping": {}, "overrides": overrides()}
            }))
            .send()
            .await
            .expect("sent")
            .json::<Value>()
            .await
            .expect("json")
    };
    let answer = preview().await;
    assert_eq!(answer["unmatchedOverrides"], json!([]), "{answer}");
    assert_eq!(answer["keptCount"], 1);
    assert_eq!(answer["decisions"][1]["reason"], "hidden by hand");

    // A bad override is named by its path.
    let response = server
        .client
        .post(server.url("/api/preview"))
        .json(&json!({
            "url": upstream.url("/work.ics"),
            "config": {"mapping": {}, "overrides": [{"uid": "one@hearth.test"}]}
        }))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(common::field_error(response).await.0, "overrides[0]");

    // The holiday disappears upstream: its override is named, not dropped.
    upstream.set_body(SAMPLE.replace("UID:two@hearth.test", "UID:three@hearth.test"));
    // The editor's copy is a minute old at most.
    clock.advance(Duration::from_secs(61));
    let answer = preview().await;
    assert_eq!(answer["unmatchedOverrides"], json!([1]), "{answer}");
}
