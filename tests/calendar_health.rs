//! Each calendar's health as its owner sees it, against a real server and a real upstream on
//! loopback: the status answer (edit token or publish key), subscribers' polls counted by the
//! client families of real calendar apps' user agents, a failing source counted and flagged
//! after a day while subscribers keep the last good copy, and deleted calendars answered 410.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::Duration;

use common::{until, TestServer};
use hearth::clock::Clock;
use reqwest::header::{AUTHORIZATION, USER_AGENT};
use reqwest::StatusCode;
use serde_json::Value;
use upstream::Upstream;

const TTL: Duration = Duration::from_secs(60);

const GOOGLE: &str = "Google-Calendar-Importer";
const APPLE: &str = "iOS/17.4 (21E219) dataaccessd/1.0";
const OUTLOOK: &str = "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)";
const THUNDERBIRD: &str =
    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.3.1";

/// Publishes calendar `id` of `upstream`'s feed; returns its edit token.
async fn publish(server: &TestServer, id: &str, upstream: &Upstream) -> String {
    server
        .publish_feed(id, &upstream.url("/work.ics"), None)
        .await
}

async fn poll(server: &TestServer, id: &str, agent: &str) -> reqwest::Response {
    server
        .client
        .get(server.url(&format!("/cal/{id}.ics")))
        .header(USER_AGENT, agent)
        .send()
        .await
        .expect("sent")
}

async fn status(server: &TestServer, id: &str, token: &str) -> (StatusCode, Value) {
    let response = server
        .client
        .get(server.url(&format!("/api/calendars/{id}/status")))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("sent");
    let code = response.status();
    (code, response.json().await.expect("json"))
}

fn family<'a>(status: &'a Value, name: &str) -> Option<&'a Value> {
    status["subscribers"]
        .as_array()
        .expect("subscribers")
        .iter()
        .find(|s| s["family"] == name)
}

#[tokio::test]
async fn the_owner_sees_the_source_and_which_calendar_apps_poll_it() {
    let upstream = Upstream::start().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let token = publish(&server, "work", &upstream).await;

    for agent in [GOOGLE, GOOGLE, APPLE, OUTLOOK, THUNDERBIRD, "curl/8.5.0"] {
        assert_eq!(poll(&server, "work", agent).await.status(), StatusCode::OK);
    }
    clock.advance(Duration::from_secs(5));
    assert_eq!(poll(&server, "work", APPLE).await.status(), StatusCode::OK);

    let (code, answer) = status(&server, "work", &token).await;
    assert_eq!(code, StatusCode::OK, "{answer}");
    assert_eq!(answer["flagged"], false);
    let source = &answer["upstream"];
    assert_eq!(source["failures"], 0);
    assert_eq!(source["lastError"], Value::Null);
    assert_eq!(source["events"], 2);
    assert_eq!(source["size"], upstream::SAMPLE.len());
    assert!(source["lastSuccessAt"]
        .as_str()
        .is_some_and(|t| t.ends_with('Z')));
    assert_eq!(family(&answer, "google").expect("google")["polls7d"], 2);
    assert_eq!(family(&answer, "microsoft").expect("outlook")["polls7d"], 1);
    assert_eq!(
        family(&answer, "thunderbird").expect("thunderbird")["polls7d"],
        1
    );
    assert_eq!(family(&answer, "other").expect("curl")["polls7d"], 1);
    assert!(family(&answer, "fastmail").is_none());
    let apple = family(&answer, "apple").expect("apple");
    assert_eq!(apple["polls7d"], 2);
    assert_eq!(
        answer["subscribers"][0]["family"], "apple",
        "the latest poll first"
    );

    // Only the calendar's edit token, or the owner's key, reads it.
    assert_eq!(
        status(&server, "work", "wrong").await.0,
        StatusCode::FORBIDDEN
    );
    let anonymous = server
        .client
        .get(server.url("/api/calendars/work/status"))
        .send()
        .await
        .expect("sent");
    assert_eq!(anonymous.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        status(&server, "nothing", &token).await.0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_publish_key_reads_any_calendars_status_and_counts_survive_a_restart() {
    let upstream = Upstream::start().await;
    let clock = Clock::manual();
    let with_key = |c: &mut hearth::Config| c.edge.publish_key = Some("owner".into());
    let server = TestServer::calendars_on(&clock, TTL, with_key).await;
    server
        .publish_feed("team", &upstream.url("/work.ics"), Some("owner"))
        .await;
    assert_eq!(poll(&server, "team", GOOGLE).await.status(), StatusCode::OK);

    let dir = server.stop().await;
    let server = TestServer::start_in(dir, |c| {
        common::on_clock(&clock, TTL)(c);
        with_key(c);
    })
    .await;
    let answer = server
        .get_json("/api/calendars/team/status", &[("x-publish-key", "owner")])
        .await;
    assert_eq!(
        family(&answer, "google").expect("google")["polls7d"],
        1,
        "{answer}"
    );
}

#[tokio::test]
async fn a_failing_source_is_counted_and_flagged_after_a_day_while_subscribers_keep_the_copy() {
    let upstream = Upstream::start().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let token = publish(&server, "work", &upstream).await;
    upstream.set_status(404);

    // Each poll past the TTL (and past the minute a failure is remembered) refreshes in the
    // background; the subscriber gets the last good copy meanwhile.
    for round in 1..=3u64 {
        clock.advance(TTL + Duration::from_secs(61));
        let response = poll(&server, "work", GOOGLE).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response
            .text()
            .await
            .expect("body")
            .contains("Team meeting"));
        until("the failure is noted", || async {
            status(&server, "work", &token).await.1["upstream"]["failures"] == round
        })
        .await;
    }
    let (_, answer) = status(&server, "work", &token).await;
    let source = &answer["upstream"];
    assert!(
        source["lastError"].as_str().expect("error").contains("404"),
        "{answer}"
    );
    assert_eq!(source["events"], 2, "the last good copy's");
    assert_eq!(answer["flagged"], false, "not yet a day");
    let since = source["failingSince"].clone();

    clock.advance(Duration::from_secs(24 * 3600));
    poll(&server, "work", GOOGLE).await;
    until("the fourth failure is noted", || async {
        status(&server, "work", &token).await.1["upstream"]["failures"] == 4
    })
    .await;
    let (_, answer) = status(&server, "work", &token).await;
    assert_eq!(answer["flagged"], true);
    assert_eq!(
        answer["upstream"]["failingSince"], since,
        "counted from the first failure"
    );

    // The source comes back: the count and the flag are cleared.
    upstream.set_status(200);
    clock.advance(TTL + Duration::from_secs(61));
    poll(&server, "work", GOOGLE).await;
    until("the success is noted", || async {
        status(&server, "work", &token).await.1["upstream"]["failures"] == 0
    })
    .await;
    let (_, answer) = status(&server, "work", &token).await;
    assert_eq!(answer["flagged"], false);
    assert_eq!(answer["upstream"]["lastError"], Value::Null);
}

#[tokio::test]
async fn a_deleted_calendar_is_gone_for_the_apps_that_keep_polling_it_even_after_a_restart() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|_| {}).await;
    let token = publish(&server, "old", &upstream).await;
    assert_eq!(poll(&server, "old", GOOGLE).await.status(), StatusCode::OK);
    let deleted = server
        .client
        .delete(server.url("/api/calendars/old"))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("sent");
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    let hits = upstream.hits();

    let gone = poll(&server, "old", GOOGLE).await;
    assert_eq!(gone.status(), StatusCode::GONE);
    assert!(
        gone.text().await.expect("body").len() < 100,
        "a short answer"
    );
    assert_eq!(
        poll(&server, "never", GOOGLE).await.status(),
        StatusCode::NOT_FOUND
    );

    let dir = server.stop().await;
    let server = TestServer::start_in(dir, |c| c.calendars.allow_private_feeds = true).await;
    assert_eq!(poll(&server, "old", APPLE).await.status(), StatusCode::GONE);
    assert_eq!(upstream.hits(), hits, "no fetch for a deleted calendar");

    // Published again under the same id, it is served again.
    publish(&server, "old", &upstream).await;
    assert_eq!(poll(&server, "old", APPLE).await.status(), StatusCode::OK);
}
