//! Sources behind a login against a real server and real upstreams on loopback: a Basic and a
//! Bearer feed published and served; a wrong login and none said in words at the source's
//! login; copies never shared across logins (a visitor without the login gets the 401 words,
//! not the owner's events); the login never sent across a redirect to another origin, nor over
//! plain http to a public host unless allowed; `"set"` keeping the stored login for the holder
//! of the edit token and the same origin only.

mod common;
#[path = "common/guarded.rs"]
mod guarded;

use std::time::Duration;

use common::{field_error, until, TestServer};
use guarded::{basic, Guarded};
use hearth::clock::Clock;
use reqwest::header::AUTHORIZATION;
use reqwest::StatusCode;
use serde_json::{json, Value};

const PASSWORD: &str = "pw-Zq8u3vT-hunter";
const TOKEN: &str = "tok-9fQe2Lx-bearer";

async fn publish(
    server: &TestServer,
    id: &str,
    sources: Value,
    token: Option<&str>,
) -> reqwest::Response {
    let mut request = server
        .client
        .post(server.url("/api/calendars"))
        .json(&json!({ "id": id, "name": "Private", "sources": sources, "mapping": {} }));
    if let Some(token) = token {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    request.send().await.expect("sent")
}

async fn created(response: reqwest::Response) -> String {
    let status = response.status();
    let body: Value = response.json().await.expect("json");
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["editToken"].as_str().expect("token").to_owned()
}

async fn hosted(server: &TestServer, id: &str) -> String {
    let response = server.get(&format!("/cal/{id}.ics")).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.expect("text")
}

fn with_basic(url: &str, password: &str) -> Value {
    json!([{ "url": url, "auth": { "username": "ann", "password": password } }])
}

/// `POST /api/feed` of `sources` (optionally for calendar `calendar` with its edit token).
async fn editor_read(server: &TestServer, sources: Value, calendar: Option<(&str, &str)>) -> Value {
    let mut body = json!({ "sources": sources });
    let mut request = server.client.post(server.url("/api/feed"));
    if let Some((id, token)) = calendar {
        body["calendar"] = json!(id);
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    let response = request.json(&body).send().await.expect("sent");
    response.json().await.expect("json")
}

#[tokio::test]
async fn a_basic_and_a_bearer_feed_are_published_and_served_and_the_api_says_only_set() {
    let basic_feed = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let bearer_feed = Guarded::start(Some(format!("Bearer {TOKEN}"))).await;
    let server = TestServer::calendars(|_| {}).await;

    let response = publish(
        &server,
        "basic",
        with_basic(&basic_feed.url("/c.ics"), PASSWORD),
        None,
    )
    .await;
    let answer = response.text().await.expect("text");
    assert!(answer.contains("editToken"), "{answer}");
    assert!(!answer.contains(PASSWORD));
    assert!(hosted(&server, "basic").await.contains("Private standup"));

    let sources = json!([{ "url": bearer_feed.url("/c.ics"), "auth": { "token": TOKEN } }]);
    created(publish(&server, "bearer", sources, None).await).await;
    assert!(hosted(&server, "bearer").await.contains("Private standup"));
    assert!(bearer_feed
        .seen()
        .iter()
        .all(|a| a.as_deref() == Some(&format!("Bearer {TOKEN}")[..])));
}

#[tokio::test]
async fn a_wrong_login_and_none_are_said_at_the_sources_login() {
    let feed = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let server = TestServer::calendars(|_| {}).await;

    let response = publish(
        &server,
        "wrong",
        with_basic(&feed.url("/c.ics"), "nope"),
        None,
    )
    .await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    let (field, message) = field_error(response).await;
    assert_eq!(field, "sources[0].auth");
    assert!(message.contains("the login was refused"), "{message}");

    let none = json!([{ "url": feed.url("/c.ics") }]);
    let (field, message) = field_error(publish(&server, "none", none.clone(), None).await).await;
    assert_eq!(field, "sources[0].auth");
    assert!(message.contains("this feed needs a login"), "{message}");

    // The editor's read of the one address says it at the login it offers.
    let query = format!("/api/feed?url={}", feed.url("/c.ics"));
    let (field, message) = field_error(server.get(&query).await).await;
    assert_eq!(field, "sources[0].auth");
    assert!(message.contains("this feed needs a login"), "{message}");

    // The editor says the same at the source.
    let read = editor_read(&server, none, None).await;
    let said = read["sources"][0]["error"].as_str().map(str::to_owned);
    let said = said.unwrap_or_else(|| read["error"].as_str().unwrap_or_default().to_owned());
    assert!(said.contains("this feed needs a login"), "{read}");
}

#[tokio::test]
async fn a_copy_fetched_with_a_login_is_never_given_to_a_read_without_it() {
    let feed = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let server = TestServer::calendars(|_| {}).await;
    let url = feed.url("/c.ics");
    let token = created(publish(&server, "mine", with_basic(&url, PASSWORD), None).await).await;

    // The owner's editor reads the stored login with "set" and the edit token.
    let owners = editor_read(
        &server,
        json!([{ "url": url, "auth": "set" }]),
        Some(("mine", &token)),
    )
    .await;
    assert!(owners.to_string().contains("Private standup"), "{owners}");

    // A visitor reading the same address without a login, or with "set" but no token, or
    // with a wrong login, gets words, never the owner's copy.
    let bare = editor_read(&server, json!([{ "url": url }]), None).await;
    assert!(!bare.to_string().contains("Private standup"), "{bare}");
    assert!(
        bare.to_string().contains("this feed needs a login"),
        "{bare}"
    );
    let wrong = editor_read(&server, with_basic(&url, "guess"), None).await;
    assert!(!wrong.to_string().contains("Private standup"), "{wrong}");
    assert!(
        wrong.to_string().contains("the login was refused"),
        "{wrong}"
    );
    let set = editor_read(
        &server,
        json!([{ "url": url, "auth": "set" }]),
        Some(("mine", "not-the-token-of-it-at-all")),
    )
    .await;
    assert!(!set.to_string().contains("Private standup"), "{set}");
    assert_eq!(set["field"], "sources[0].auth", "{set}");

    // The preview of a one-feed config at the address: the 401 words.
    let preview = server
        .client
        .post(server.url("/api/preview"))
        .json(&json!({ "url": url, "config": { "mapping": {} } }))
        .send()
        .await
        .expect("sent");
    let text = preview.text().await.expect("text");
    assert!(
        text.contains("this feed needs a login") && !text.contains("standup"),
        "{text}"
    );

    // A calendar of the bare address is refused, not served the kept copy.
    let bare = json!([{ "url": url }]);
    let (_, message) = field_error(publish(&server, "theirs", bare, None).await).await;
    assert!(message.contains("this feed needs a login"), "{message}");
}

#[tokio::test]
async fn a_redirect_to_another_origin_does_not_receive_the_login() {
    let elsewhere = Guarded::start(None).await;
    let first = Guarded::start(Some(basic("ann", PASSWORD))).await;
    first.redirect_to(&elsewhere.url("/moved.ics"));
    let server = TestServer::calendars(|_| {}).await;

    created(
        publish(
            &server,
            "moved",
            with_basic(&first.url("/c.ics"), PASSWORD),
            None,
        )
        .await,
    )
    .await;
    assert!(first
        .seen()
        .iter()
        .all(|a| a.as_deref() == Some(&basic("ann", PASSWORD)[..])));
    assert!(!elsewhere.seen().is_empty(), "the redirect was followed");
    assert!(
        elsewhere.seen().iter().all(Option::is_none),
        "{:?}",
        elsewhere.seen()
    );
}

#[tokio::test]
async fn a_login_goes_over_plain_http_to_a_public_host_only_when_allowed() {
    let feed = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let server = TestServer::calendars(|c| {
        c.calendars
            .feed_hosts
            .insert("calendar.example".into(), vec![feed.addr.ip()]);
    })
    .await;
    let url = format!("http://calendar.example:{}/c.ics", feed.addr.port());

    let response = publish(&server, "plain", with_basic(&url, PASSWORD), None).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let (field, message) = field_error(response).await;
    assert_eq!(field, "sources[0].auth");
    assert!(message.contains("unencrypted"), "{message}");
    assert!(feed.seen().is_empty(), "nothing was sent");

    let allowed = json!([{ "url": url, "plainHttp": true,
        "auth": { "username": "ann", "password": PASSWORD } }]);
    created(publish(&server, "plain", allowed, None).await).await;
    assert!(hosted(&server, "plain").await.contains("Private standup"));
}

#[tokio::test]
async fn set_keeps_the_stored_login_for_the_edit_token_and_the_same_origin_only() {
    let feed = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let moved = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let server = TestServer::calendars(|_| {}).await;
    let url = feed.url("/c.ics");
    let token = created(publish(&server, "keep", with_basic(&url, PASSWORD), None).await).await;

    let set = json!([{ "url": url, "auth": "set", "label": "Work" }]);
    let response = publish(&server, "keep", set.clone(), Some(&token)).await;
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "{}",
        response.text().await.unwrap_or_default()
    );
    // Another path of the same site keeps it too.
    let other_path = json!([{ "url": feed.url("/other.ics"), "auth": "set" }]);
    let response = publish(&server, "keep", other_path, Some(&token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(hosted(&server, "keep").await.contains("Private standup"));

    // Without the edit token: refused, and nothing opened.
    let response = publish(&server, "keep", set, None).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);

    // Another host (here: port) must be given the login again.
    let elsewhere = json!([{ "url": moved.url("/c.ics"), "auth": "set" }]);
    let response = publish(&server, "keep", elsewhere, Some(&token)).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let (field, message) = field_error(response).await;
    assert_eq!(field, "sources[0].auth");
    assert!(message.contains("give the login again"), "{message}");
    assert!(moved.seen().is_empty());

    // Absent removes it: the source is fetched without one.
    let none = json!([{ "url": url }]);
    let (field, _) = field_error(publish(&server, "keep", none, Some(&token)).await).await;
    assert_eq!(field, "sources[0].auth");
}

#[tokio::test]
async fn a_calendar_of_one_source_serves_what_the_one_feed_calendar_did() {
    let feed = Guarded::start(None).await;
    let server = TestServer::calendars(|_| {}).await;
    server.publish_feed("feed", &feed.url("/c.ics"), None).await;
    let one = json!([{ "url": feed.url("/c.ics") }]);
    let response = server.client.post(server.url("/api/calendars")).json(
        &json!({ "id": "source", "name": "Work", "sources": one, "mapping": { "SUMMARY": "${SUMMARY}" } }),
    ).send().await.expect("sent");
    created(response).await;
    let strip = |ics: String| -> String {
        ics.lines()
            .filter(|l| !l.starts_with("DTSTAMP"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        strip(hosted(&server, "source").await),
        strip(hosted(&server, "feed").await)
    );
}

#[tokio::test]
async fn a_login_refused_after_publish_is_said_in_the_calendars_health_and_the_copy_kept() {
    let feed = Guarded::start(Some(basic("ann", PASSWORD))).await;
    let clock = Clock::manual();
    let ttl = Duration::from_secs(60);
    let server = TestServer::calendars_on(&clock, ttl, |_| {}).await;
    let sources = json!([{ "url": feed.url("/c.ics"), "label": "Work",
        "auth": { "username": "ann", "password": PASSWORD } }]);
    let token = created(publish(&server, "health", sources, None).await).await;

    // The password changed upstream: the stored one is refused from now on.
    feed.expect(Some(basic("ann", "a-new-password")));
    clock.advance(ttl * 2);
    assert!(hosted(&server, "health").await.contains("Private standup"));
    let status = || async {
        server
            .client
            .get(server.url("/api/calendars/health/status"))
            .header(AUTHORIZATION, format!("Bearer {token}"))
            .send()
            .await
            .expect("sent")
            .json::<Value>()
            .await
            .expect("json")
    };
    until("the refused login is noted", || async {
        status().await["sources"][0]["upstream"]["failures"]
            .as_u64()
            .is_some_and(|n| n > 0)
    })
    .await;
    let answer = status().await;
    let error = answer["sources"][0]["upstream"]["lastError"]
        .as_str()
        .expect("error");
    assert!(error.starts_with("the login was refused"), "{error}");
    assert_eq!(answer["sources"][0]["url"], feed.url("/c.ics"));
    assert!(!answer.to_string().contains(PASSWORD));
}
