//! Properties beyond the five templates and UIDs that hold still, against a real server and a
//! real upstream on loopback: the properties in the hosted feed and refused by their path when
//! wrong; `"uids": "content"` keeping an override by UID and a kept past event (one, not two)
//! across fetches whose UIDs all change, with the editor's event list naming the same UIDs.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::Duration;

use common::{until, TestServer};
use hearth::clock::Clock;
use reqwest::StatusCode;
use serde_json::{json, Value};
use upstream::{Upstream, SAMPLE};

const TTL: Duration = Duration::from_secs(60);
const DAY: Duration = Duration::from_secs(86_400);

async fn publish(server: &TestServer, body: Value) -> reqwest::Response {
    server
        .client
        .post(server.url("/api/calendars"))
        .json(&body)
        .send()
        .await
        .expect("sent")
}

async fn hosted(server: &TestServer, id: &str) -> String {
    let response = server.get(&format!("/cal/{id}.ics")).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.expect("text")
}

#[tokio::test]
async fn properties_are_set_in_the_hosted_feed_and_refused_by_their_path() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|_| {}).await;
    let url = upstream.url("/work.ics");
    let response = publish(
        &server,
        json!({"id": "props", "name": "Props", "url": url, "mapping": {},
            "properties": {"TRANSP": "TRANSPARENT", "COLOR": "teal",
                "CATEGORIES": "Work,${SUMMARY}", "URL": "https://example.org/${UID}"}}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let feed = hosted(&server, "props").await;
    assert_eq!(feed.matches("TRANSP:TRANSPARENT\r\n").count(), 2, "{feed}");
    assert_eq!(feed.matches("COLOR:teal\r\n").count(), 2, "{feed}");
    assert!(feed.contains("CATEGORIES:Work,Team meeting\r\n"), "{feed}");
    assert!(
        feed.contains("URL:https://example.org/two@hearth.test\r\n"),
        "{feed}"
    );

    for (properties, field) in [
        (json!({"X-COLOR": "red"}), "properties.X-COLOR"),
        (json!({"COLOR": "not a colour"}), "properties.COLOR"),
        (json!({"TRANSP": "FREE"}), "properties.TRANSP"),
    ] {
        let response = publish(
            &server,
            json!({"id": "bad", "name": "Bad", "url": url, "mapping": {}, "properties": properties}),
        )
        .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{properties}");
        assert_eq!(common::field_error(response).await.0, field);
    }
}

/// The upstream's feed at fetch `n`: every UID new, a meeting ahead (its description says which
/// fetch this is), and, while `past` is set, an event that ended ten days before the clock's
/// start. That event's start is taken once for the whole run: a start read anew at each fetch
/// would be another second under load, another event by its content.
fn fetch(n: u32, past: bool) -> String {
    static ENDED: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let ended = ENDED.get_or_init(|| common::utc_stamp(std::time::SystemTime::now() - DAY * 10));
    let mut body = SAMPLE
        .replace("one@hearth.test", &format!("one-{n}@hearth.test"))
        .replace("two@hearth.test", &format!("two-{n}@hearth.test"))
        .replace(
            "DESCRIPTION:Agenda:\\n1. Budget",
            &format!("DESCRIPTION:Fetch {n}"),
        );
    if past {
        body = body.replace(
            "END:VCALENDAR\r\n",
            &format!(
                "BEGIN:VEVENT\r\nUID:past-{n}@hearth.test\r\nDTSTAMP:20260101T000000Z\r\n\
                 DTSTART:{ended}\r\nDURATION:PT1H\r\nSUMMARY:Last month's review\r\nEND:VEVENT\r\n\
                 END:VCALENDAR\r\n"
            ),
        );
    }
    body
}

fn uids(feed: &str) -> Vec<&str> {
    feed.lines()
        .filter_map(|l| l.strip_prefix("UID:"))
        .collect()
}

#[tokio::test]
async fn content_uids_hold_an_override_and_kept_events_when_the_sources_change() {
    let upstream = Upstream::start().await;
    upstream.set_body(fetch(1, true));
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let url = upstream.url("/work.ics");

    // The editor's event list names the events by the UIDs the hosted feed will have.
    let read = server
        .get_json(
            &format!("/api/feed?url={}&uids=content", urlencoding(&url)),
            &[],
        )
        .await;
    let events = read["events"].as_array().expect("events");
    let meeting = events
        .iter()
        .find(|e| e["SUMMARY"] == "Team meeting")
        .expect("the meeting");
    let uid = meeting["UID"].as_str().expect("uid").to_owned();
    assert!(uid.starts_with("hearth-"), "{uid}");

    let response = publish(
        &server,
        json!({"id": "stable", "name": "Stable", "url": url, "mapping": {},
            "uids": "content", "history": {"keepDays": 30},
            "overrides": [{"uid": uid, "summary": "Budget meeting"}]}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let first = hosted(&server, "stable").await;
    assert!(first.contains("SUMMARY:Budget meeting\r\n"), "{first}");
    assert!(first.contains(&format!("UID:{uid}\r\n")), "{first}");
    assert_eq!(first.matches("Last month's review").count(), 1, "{first}");

    // Every UID changes at the next fetch: the override holds, the past event is there once.
    upstream.set_body(fetch(2, true));
    clock.advance(TTL * 2);
    let _ = hosted(&server, "stable").await;
    until("the second fetch is rendered", || async {
        hosted(&server, "stable").await.contains("Fetch 2")
    })
    .await;
    let second = hosted(&server, "stable").await;
    assert!(second.contains("SUMMARY:Budget meeting\r\n"), "{second}");
    assert_eq!(second.matches("Last month's review").count(), 1, "{second}");
    assert_eq!(uids(&first), uids(&second));

    // Then the source drops the past event (under new UIDs again): kept, still once.
    upstream.set_body(fetch(3, false));
    clock.advance(TTL * 2);
    let _ = hosted(&server, "stable").await;
    until("the third fetch is rendered", || async {
        hosted(&server, "stable").await.contains("Fetch 3")
    })
    .await;
    let third = hosted(&server, "stable").await;
    assert!(third.contains("SUMMARY:Budget meeting\r\n"), "{third}");
    assert_eq!(third.matches("Last month's review").count(), 1, "{third}");
    assert_eq!(uids(&first), uids(&third));
}

fn urlencoding(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[tokio::test]
async fn a_source_whose_uids_changed_is_noticed_in_the_status_and_the_editor() {
    let upstream = Upstream::start().await;
    upstream.set_body(fetch(1, true));
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let url = upstream.url("/work.ics");
    let response = publish(
        &server,
        json!({"id": "loose", "name": "Loose", "url": url, "mapping": {}}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let token = response.json::<Value>().await.expect("json")["editToken"]
        .as_str()
        .expect("token")
        .to_owned();
    let status = |server: &TestServer| {
        let request = server
            .client
            .get(server.url("/api/calendars/loose/status"))
            .bearer_auth(&token);
        async move {
            let response = request.send().await.expect("sent");
            assert_eq!(response.status(), StatusCode::OK);
            response.json::<Value>().await.expect("json")
        }
    };
    assert!(status(&server).await["upstream"]
        .get("uidsChanged")
        .is_none());

    // The same events, the description changed (a new copy) but every UID kept: no notice.
    upstream.set_body(fetch(1, true).replace("Fetch 1", "Fetch 1b"));
    clock.advance(TTL * 2);
    until("the changed copy is rendered", || async {
        hosted(&server, "loose").await.contains("Fetch 1b")
    })
    .await;
    assert!(status(&server).await["upstream"]
        .get("uidsChanged")
        .is_none());

    // An hour on, every UID changes: noticed, with how many of how many.
    upstream.set_body(fetch(2, true));
    clock.advance(Duration::from_secs(3600));
    until("the new copy is rendered", || async {
        hosted(&server, "loose").await.contains("Fetch 2")
    })
    .await;
    until("the change is noted", || async {
        status(&server).await["upstream"]
            .get("uidsChanged")
            .is_some()
    })
    .await;
    let changed = status(&server).await["upstream"]["uidsChanged"].clone();
    assert_eq!(changed["events"], 3, "{changed}");
    assert_eq!(changed["renamed"], 3, "{changed}");
    let read = server
        .get_json(&format!("/api/feed?url={}", urlencoding(&url)), &[])
        .await;
    assert_eq!(read["uidsChanged"]["renamed"], 3, "{read}");
}

/// `hearth remap` with `config`, the feed on stdin.
fn remap_cli(config: &std::path::Path, input: &str) -> String {
    use std::io::Write;
    let mut child = common::hearth_bin()
        .args(["remap", "--config", config.to_str().expect("utf8 path")])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("hearth runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("input written");
    let out = child.wait_with_output().expect("exits");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

#[test]
fn the_command_line_sets_properties_and_content_uids_as_the_server_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("calendar.json");
    std::fs::write(
        &config,
        json!({"mapping": {}, "uids": "content", "properties": {"COLOR": "teal"}}).to_string(),
    )
    .expect("config written");
    let first = remap_cli(&config, &fetch(1, false));
    let second = remap_cli(&config, &fetch(2, false));
    assert_eq!(uids(&first), uids(&second));
    assert!(
        uids(&first).iter().all(|u| u.starts_with("hearth-")),
        "{first}"
    );
    assert_eq!(first.matches("COLOR:teal\r\n").count(), 2, "{first}");
}
