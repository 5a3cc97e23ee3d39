//! CalDAV sources against a real CalDAV server: Radicale, started by each test on loopback with
//! htpasswd logins and calendars seeded as a calendar app would (MKCALENDAR, PUT; a recurring
//! event, time zones, an event far outside the window, a calendar of tasks only), and the real
//! server on a free port (loopback upstreams allowed, as the other upstream tests do). The
//! editor's discovery lists the account's calendars by name and colour; a calendar published
//! from a CalDAV source serves the window's events and not the one outside it, and a new event
//! after a refresh; a wrong or missing login is said in words at its field; the editor's preview
//! reads a CalDAV source; a hosted CalDAV calendar still refreshes after a restart, its password
//! given once at publish (sealed, opened as a feed's login), and the editor's "set" opens it for
//! the owner only; and, with no Radicale needed, a redirect to another origin never carries
//! the login. Run by tests/caldav/run.sh (`make caldav`), which installs Radicale:
//! without it these tests fail, they are never skipped (they are ignored by a plain `cargo
//! test`, which has no Radicale).

mod common;
#[path = "caldav/radicale.rs"]
mod radicale;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::{Duration, SystemTime};

use common::{field_error, utc_stamp, TestServer};
use hearth::clock::Clock;
use radicale::{Radicale, PASSWORD, USER};
use reqwest::StatusCode;
use serde_json::{json, Value};

const TTL: Duration = Duration::from_secs(60);
const DAY: Duration = Duration::from_secs(86_400);

const BERLIN: &str = "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n";

/// Local time in Europe/Berlin `from_now` away, as `YYYYMMDDTHHMMSS` (the UTC digits, read as
/// Berlin's wall clock: what matters is the day).
fn local(from_now: Duration, earlier: bool) -> String {
    let now = SystemTime::now();
    let at = if earlier {
        now - from_now
    } else {
        now + from_now
    };
    utc_stamp(at).trim_end_matches('Z').to_owned()
}

fn event(uid: &str, summary: &str, start: &str, extra: &str) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//radicale//EN\r\n{BERLIN}BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Berlin:{start}\r\nDURATION:PT1H\r\n{extra}SUMMARY:{summary}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
}

/// Alice's account: Work (a weekly standup that started a week ago, a dentist's appointment in
/// three days, a trip 200 days ahead), Home (a birthday in five days), Tasks (to-dos only).
async fn seeded() -> Radicale {
    let radicale = Radicale::start().await;
    radicale
        .calendar("/alice/work/", "Work", "#FF8800FF", &["VEVENT"])
        .await;
    radicale
        .calendar("/alice/home/", "Home", "#00AA00", &["VEVENT"])
        .await;
    radicale
        .calendar("/alice/tasks/", "Tasks", "#0000FF", &["VTODO"])
        .await;
    let standup = event(
        "standup@test",
        "Standup",
        &local(DAY * 7, true),
        "RRULE:FREQ=WEEKLY;COUNT=12\r\n",
    );
    radicale.put("/alice/work/standup.ics", &standup).await;
    let dentist = event("dentist@test", "Dentist", &local(DAY * 3, false), "");
    radicale.put("/alice/work/dentist.ics", &dentist).await;
    let trip = event("trip@test", "Far away", &local(DAY * 200, false), "");
    radicale.put("/alice/work/trip.ics", &trip).await;
    let birthday = event("birthday@test", "Birthday", &local(DAY * 5, false), "");
    radicale.put("/alice/home/birthday.ics", &birthday).await;
    radicale
}

fn login() -> Value {
    json!({"username": USER, "password": PASSWORD})
}

async fn find(server: &TestServer, url: &str, auth: Option<Value>) -> reqwest::Response {
    let mut body = json!({ "url": url });
    if let Some(auth) = auth {
        body["auth"] = auth;
    }
    server
        .client
        .post(server.url("/api/caldav/calendars"))
        .json(&body)
        .send()
        .await
        .expect("sent")
}

fn window() -> Value {
    json!({"pastDays": 30, "futureDays": 60})
}

fn summaries(ics: &str) -> Vec<String> {
    let mut found: Vec<String> = ics
        .lines()
        .filter_map(|l| l.strip_prefix("SUMMARY:"))
        .map(|s| s.trim_end().to_owned())
        .collect();
    found.sort();
    found
}

#[tokio::test]
#[ignore = "needs Radicale: make caldav"]
async fn discovery_lists_the_accounts_calendars_of_events_with_their_names() {
    let radicale = seeded().await;
    let server = TestServer::calendars(|_| {}).await;
    for address in ["/", "/alice/"] {
        let response = find(&server, &radicale.url(address), Some(login())).await;
        assert_eq!(response.status(), StatusCode::OK, "{address}");
        let text = response.text().await.expect("text");
        assert!(!text.contains(PASSWORD), "{text}");
        let answer: Value = serde_json::from_str(&text).expect("json");
        let mut calendars = answer["calendars"].as_array().expect("a list").clone();
        calendars.sort_by_key(|c| c["name"].as_str().unwrap_or_default().to_owned());
        assert_eq!(
            calendars,
            [
                json!({"url": radicale.url("/alice/home/"), "name": "Home", "color": "#00aa00"}),
                json!({"url": radicale.url("/alice/work/"), "name": "Work", "color": "#ff8800"}),
            ],
            "{address}: {answer}"
        );
    }
}

#[tokio::test]
#[ignore = "needs Radicale: make caldav"]
async fn a_wrong_or_missing_login_and_a_server_that_is_not_caldav_are_said_at_their_field() {
    let radicale = seeded().await;
    let server = TestServer::calendars(|_| {}).await;
    let wrong = json!({"username": USER, "password": "not it"});
    let response = find(&server, &radicale.url("/"), Some(wrong.clone())).await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    let (field, message) = field_error(response).await;
    assert_eq!(
        (field.as_str(), message.as_str()),
        ("auth", "the login was refused")
    );
    let response = find(&server, &radicale.url("/alice/"), None).await;
    let (field, message) = field_error(response).await;
    assert_eq!(
        (field.as_str(), message.as_str()),
        ("auth", "this feed needs a login")
    );
    // A server of plain feeds is not a CalDAV account.
    let feeds = upstream::Upstream::start().await;
    let response = find(&server, &feeds.url("/work.ics"), Some(login())).await;
    let (field, message) = field_error(response).await;
    assert_eq!(field, "url", "{message}");
    assert!(message.contains("no CalDAV account"), "{message}");
    // A stored login is not something to look with.
    let response = find(&server, &radicale.url("/"), Some(json!("set"))).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(field_error(response).await.0, "auth");

    // Publishing with the wrong password says so on the source's field.
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .json(&json!({"id": "w", "name": "W", "mapping": {}, "sources": [
            {"url": radicale.url("/alice/work/"), "kind": "caldav", "auth": wrong}
        ]}))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    let (field, message) = field_error(response).await;
    assert_eq!(field, "sources[0].auth");
    assert!(message.contains("the login was refused"), "{message}");
}

#[tokio::test]
#[ignore = "needs Radicale: make caldav"]
async fn a_calendar_of_a_caldav_source_serves_the_windows_events_and_follows_new_ones() {
    let radicale = seeded().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let source = json!({"url": radicale.url("/alice/work/"), "kind": "caldav", "auth": login()});

    // The editor's preview reads the source: only what the REPORT's time range holds (the trip
    // 200 days ahead is not fetched at all).
    let response = server
        .client
        .post(server.url("/api/preview"))
        .json(&json!({"config": {"mapping": {}, "window": window(), "sources": [source]}}))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    let preview: Value = response.json().await.expect("json");
    assert_eq!(preview["eventCount"], 2, "{preview}");
    assert_eq!(preview["keptCount"], 2, "{preview}");

    let response = server
        .client
        .post(server.url("/api/calendars"))
        .json(
            &json!({"id": "team", "name": "Team", "mapping": {"SUMMARY": "Team: ${SUMMARY}"},
                      "window": window(), "sources": [source]}),
        )
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer = response.text().await.expect("text");
    assert!(!answer.contains(PASSWORD), "{answer}");

    let feed = server
        .get("/cal/team.ics")
        .await
        .text()
        .await
        .expect("text");
    assert_eq!(
        summaries(&feed),
        ["Team: Dentist", "Team: Standup"],
        "{feed}"
    );
    assert!(feed.contains("RRULE:FREQ=WEEKLY;COUNT=12"), "{feed}");
    assert_eq!(feed.matches("BEGIN:VTIMEZONE").count(), 1, "{feed}");
    assert!(!feed.contains(PASSWORD));

    // An event added in Radicale is served once the copy is refreshed.
    let added = event("added@test", "Added later", &local(DAY * 10, false), "");
    radicale.put("/alice/work/added.ics", &added).await;
    clock.advance(TTL * 2);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let feed = server
            .get("/cal/team.ics")
            .await
            .text()
            .await
            .expect("text");
        if summaries(&feed).contains(&"Team: Added later".to_owned()) {
            assert!(!feed.contains("Far away"), "{feed}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the added event never came: {feed}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Polls `/cal/{id}.ics` until it holds `summary` (the copy past its TTL is refreshed in the
/// background), within 20 seconds.
async fn until_served(server: &TestServer, id: &str, summary: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let feed = server
            .get(&format!("/cal/{id}.ics"))
            .await
            .text()
            .await
            .expect("text");
        if summaries(&feed).iter().any(|s| s == summary) {
            return feed;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{summary} never came: {feed}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
#[ignore = "needs Radicale: make caldav"]
async fn a_hosted_caldav_calendar_still_refreshes_after_a_restart_its_password_given_once() {
    let radicale = seeded().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let url = radicale.url("/alice/work/");
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .json(
            &json!({"id": "dav", "name": "Dav", "mapping": {}, "window": window(),
                      "sources": [{"url": url, "kind": "caldav", "auth": login()}]}),
        )
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().await.expect("json");
    let token = created["editToken"].as_str().expect("token").to_owned();
    until_served(&server, "dav", "Dentist").await;

    // Restarted on the same data: the config holds only "set"; the login is opened from its
    // sealed store for the refresh, which brings an event added meanwhile.
    let dir = server.stop().await;
    let server = TestServer::start_in(dir, common::on_clock(&clock, TTL)).await;
    let added = event(
        "restart@test",
        "After the restart",
        &local(DAY * 4, false),
        "",
    );
    radicale.put("/alice/work/restart.ics", &added).await;
    clock.advance(TTL * 2);
    let feed = until_served(&server, "dav", "After the restart").await;
    assert!(summaries(&feed).contains(&"Dentist".to_owned()), "{feed}");
    let response = server
        .client
        .get(server.url("/api/calendars/dav/status"))
        .header("authorization", format!("Bearer {token}"))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    let status = response.text().await.expect("text");
    assert!(!status.contains("needs a login"), "{status}");
    assert!(!status.contains("refused"), "{status}");
    assert!(!status.contains(PASSWORD), "{status}");

    // The editor's read with "set" opens the stored login for the owner (the calendar and its
    // edit token), and for nobody else: told at the login to give it.
    let set = json!([{"url": url, "kind": "caldav", "auth": "set"}]);
    let read = |owner: bool| {
        let mut body = json!({ "sources": set.clone() });
        let mut request = server.client.post(server.url("/api/feed"));
        if owner {
            body["calendar"] = json!("dav");
            request = request.header("authorization", format!("Bearer {token}"));
        }
        request.json(&body).send()
    };
    let response = read(true).await.expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    let answer: Value = response.json().await.expect("json");
    assert!(answer["sources"][0]["error"].is_null(), "{answer}");
    assert!(answer["eventCount"].as_u64().unwrap_or(0) >= 2, "{answer}");
    let response = read(false).await.expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let (field, message) = field_error(response).await;
    assert_eq!(field, "sources[0].auth", "{message}");

    // The copy fetched with the login is kept under its login's tag: a read of the same calendar
    // without a login is fetched for, and told so, never given the owner's events.
    let response = server
        .client
        .post(server.url("/api/feed"))
        .json(&json!({"sources": [{"url": url, "kind": "caldav"}]}))
        .send()
        .await
        .expect("sent");
    let text = response.text().await.expect("text");
    assert!(text.contains("this feed needs a login"), "{text}");
    assert!(!text.contains("Dentist"), "{text}");

    // A republish with "set" and the edit token keeps it; the hosted calendar still refreshes.
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .header("authorization", format!("Bearer {token}"))
        .json(
            &json!({"id": "dav", "name": "Dav", "mapping": {}, "window": window(),
                      "sources": [{"url": url, "kind": "caldav", "auth": "set"}]}),
        )
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
}

#[tokio::test]
#[ignore = "needs Radicale: make caldav"]
async fn the_editor_reads_a_caldav_source_beside_a_feed() {
    let radicale = seeded().await;
    let feeds = upstream::Upstream::start().await;
    let server = TestServer::calendars(|_| {}).await;
    let response = server
        .client
        .post(server.url("/api/feed"))
        .json(&json!({"sources": [
            {"url": radicale.url("/alice/home/"), "kind": "caldav", "auth": login()},
            {"url": feeds.url("/work.ics")}
        ]}))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    let answer: Value = response.json().await.expect("json");
    let sources = answer["sources"].as_array().expect("sources");
    assert_eq!(sources[0]["eventCount"], 1, "{answer}");
    assert!(sources[0]["error"].is_null(), "{answer}");
    let summaries: Vec<&str> = answer["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["SUMMARY"].as_str())
        .collect();
    assert!(summaries.contains(&"Birthday"), "{answer}");
}

/// Needs no Radicale: a CalDAV source whose server redirects to another origin is refused in
/// words that name it, and the login never reaches that origin (it gets no request at all).
#[tokio::test]
async fn a_redirect_to_another_origin_never_carries_the_login() {
    let server = TestServer::calendars(|_| {}).await;
    let elsewhere = upstream::Upstream::start().await;
    let first = upstream::Upstream::start().await;
    first.redirect_to(&elsewhere.url("/alice/work/"));
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .json(&json!({"id": "r", "name": "R", "mapping": {}, "sources": [
            {"url": first.url("/alice/work/"), "kind": "caldav", "auth": login()}
        ]}))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    let (field, message) = field_error(response).await;
    assert_eq!(field, "sources[0].url");
    assert!(
        message.contains("another address than the one given")
            && message.contains("the login is not sent there"),
        "{message}"
    );
    assert!(first.hits() >= 1);
    assert_eq!(elsewhere.hits(), 0, "the other origin was asked");
}
