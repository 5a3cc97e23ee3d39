//! Merged calendars against a real server and real upstreams on loopback: several feeds
//! published as one (each prefix on its events' SUMMARY, a shared event once, one VTIMEZONE),
//! the editor's reading of the merge (the source of each event, a failing source named while
//! the others still show), the preview of a merge, a source failing after publish (its last
//! good copy stays, its health says it fails), and a source that never answered refused on its
//! own field.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::Duration;

use common::{field_error, until, TestServer};
use hearth::clock::Clock;
use reqwest::header::AUTHORIZATION;
use reqwest::StatusCode;
use serde_json::{json, Value};
use upstream::Upstream;

const TTL: Duration = Duration::from_secs(60);

/// A second feed: its own event, and `one@hearth.test` again with a later SEQUENCE.
const HOME: &str = "BEGIN:VCALENDAR\r\n\
VERSION:2.0\r\n\
PRODID:-//Home//EN\r\n\
BEGIN:VTIMEZONE\r\n\
TZID:Europe/Amsterdam\r\n\
BEGIN:STANDARD\r\n\
DTSTART:19701025T030000\r\n\
TZOFFSETFROM:+0200\r\n\
TZOFFSETTO:+0100\r\n\
END:STANDARD\r\n\
END:VTIMEZONE\r\n\
BEGIN:VEVENT\r\n\
UID:dentist@home.test\r\n\
DTSTAMP:20260101T000000Z\r\n\
DTSTART;TZID=Europe/Amsterdam:20261203T140000\r\n\
SUMMARY:Dentist\r\n\
END:VEVENT\r\n\
BEGIN:VEVENT\r\n\
UID:one@hearth.test\r\n\
DTSTAMP:20260101T000000Z\r\n\
SEQUENCE:4\r\n\
DTSTART;TZID=Europe/Amsterdam:20261201T110000\r\n\
SUMMARY:Team meeting (moved)\r\n\
END:VEVENT\r\n\
END:VCALENDAR\r\n";

async fn upstreams() -> (Upstream, Upstream) {
    let work = Upstream::start().await;
    let home = Upstream::start().await;
    home.set_body(HOME);
    (work, home)
}

fn sources(work: &Upstream, home: &Upstream) -> Value {
    json!([
        {"url": work.url("/work.ics"), "prefix": "[Work] ", "label": "Work"},
        {"url": home.url("/home.ics"), "prefix": "[Home] "}
    ])
}

async fn publish(server: &TestServer, id: &str, sources: Value) -> reqwest::Response {
    server
        .client
        .post(server.url("/api/calendars"))
        .json(&json!({ "id": id, "name": "Everything", "sources": sources, "mapping": {} }))
        .send()
        .await
        .expect("sent")
}

fn summaries(ics: &str) -> Vec<String> {
    ics.lines()
        .filter_map(|l| l.strip_prefix("SUMMARY:"))
        .map(|s| s.trim_end().to_owned())
        .collect()
}

#[tokio::test]
async fn two_feeds_publish_as_one_calendar_with_their_prefixes() {
    let (work, home) = upstreams().await;
    let server = TestServer::calendars(|_| {}).await;
    let response = publish(&server, "all", sources(&work, &home)).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let feed = server.get("/cal/all.ics").await;
    assert_eq!(feed.status(), StatusCode::OK);
    let ics = feed.text().await.expect("text");
    assert_eq!(ics.matches("BEGIN:VCALENDAR").count(), 1);
    assert_eq!(ics.matches("BEGIN:VTIMEZONE").count(), 1, "{ics}");
    // The meeting is in both feeds: the later SEQUENCE (the home feed's) is kept, once.
    assert_eq!(
        summaries(&ics),
        [
            "[Work] Holiday",
            "[Home] Dentist",
            "[Home] Team meeting (moved)"
        ]
    );
    // The first feed's calendar lines, the calendar's own name.
    assert!(ics.contains("PRODID:-//Hearth tests//EN"), "{ics}");
    assert!(ics.contains("X-WR-CALNAME:Everything"), "{ics}");

    // A calendar of one feed published before is served as it always was.
    server
        .publish_feed("one", &work.url("/work.ics"), None)
        .await;
    let one = server.get("/cal/one.ics").await.text().await.expect("text");
    assert_eq!(summaries(&one), ["Team meeting", "Holiday"]);
}

#[tokio::test]
async fn the_editor_reads_the_merge_with_the_source_of_each_event() {
    let (work, home) = upstreams().await;
    let server = TestServer::calendars(|_| {}).await;
    let answer: Value = server
        .client
        .post(server.url("/api/feed"))
        .json(&json!({ "sources": sources(&work, &home) }))
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(answer["eventCount"], 3, "{answer}");
    assert_eq!(answer["eventSources"], json!([0, 1, 1]));
    let titles: Vec<&str> = answer["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["SUMMARY"].as_str().expect("summary"))
        .collect();
    assert_eq!(
        titles,
        [
            "[Work] Holiday",
            "[Home] Dentist",
            "[Home] Team meeting (moved)"
        ]
    );
    assert_eq!(answer["sources"][0]["eventCount"], 2);
    assert_eq!(answer["sources"][1]["eventCount"], 2);
    assert!(answer["sources"][1].get("error").is_none());

    // The preview of the same config decides the merged events, in the same order.
    let preview: Value = server
        .client
        .post(server.url("/api/preview"))
        .json(&json!({ "config": {
            "mapping": {},
            "sources": sources(&work, &home),
            "filters": [{"action": "exclude", "field": "SUMMARY", "pattern": "^\\[Home\\] Dentist"}]
        }}))
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(preview["eventCount"], 3, "{preview}");
    assert_eq!(preview["keptCount"], 2);
    assert_eq!(preview["decisions"][1]["kept"], false);

    // A source that fails is named; the others' events still show.
    home.set_status(404);
    let gone = Upstream::start().await;
    gone.set_status(404);
    let answer: Value = server
        .client
        .post(server.url("/api/feed"))
        .json(&json!({ "sources": [
            {"url": work.url("/work.ics")}, {"url": gone.url("/missing.ics"), "prefix": "x"}
        ]}))
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    assert_eq!(answer["eventCount"], 2, "{answer}");
    assert_eq!(answer["eventSources"], json!([0, 0]));
    let error = answer["sources"][1]["error"].as_str().expect("named");
    assert!(error.contains("404"), "{error}");

    // Bad requests are named by their field.
    let response = server
        .client
        .post(server.url("/api/feed"))
        .json(&json!({ "sources": [{"url": work.url("/a.ics")}, {"url": "gopher://x"}] }))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(field_error(response).await.0, "sources[1].url");
}

#[tokio::test]
async fn a_source_that_fails_after_publish_keeps_its_copy_and_is_named_in_the_health() {
    let (work, home) = upstreams().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |_| {}).await;
    let response = publish(&server, "all", sources(&work, &home)).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer: Value = response.json().await.expect("json");
    let token = answer["editToken"].as_str().expect("token").to_owned();

    home.set_status(500);
    clock.advance(TTL * 2);
    let status = || async {
        server
            .client
            .get(server.url("/api/calendars/all/status"))
            .header(AUTHORIZATION, format!("Bearer {token}"))
            .send()
            .await
            .expect("sent")
            .json::<Value>()
            .await
            .expect("json")
    };
    // Subscribers keep getting both feeds' events (the home feed's last good copy) while it
    // is refreshed and fails in the background.
    let feed = server.get("/cal/all.ics").await.text().await.expect("text");
    assert_eq!(summaries(&feed).len(), 3, "{feed}");
    until("the failing source is counted", || async {
        status().await["sources"][1]["upstream"]["failures"]
            .as_u64()
            .is_some_and(|n| n > 0)
    })
    .await;
    let answer = status().await;
    assert_eq!(answer["sources"][0]["upstream"]["failures"], 0, "{answer}");
    assert_eq!(answer["sources"][0]["url"], work.url("/work.ics"));
    let error = answer["sources"][1]["upstream"]["lastError"]
        .as_str()
        .expect("error");
    assert!(error.contains("500"), "{error}");
    // Flagged after a day of failures, like a calendar of one feed.
    clock.advance(Duration::from_secs(25 * 3600));
    let feed = server.get("/cal/all.ics").await.text().await.expect("text");
    assert_eq!(summaries(&feed).len(), 3);
    until("the calendar is flagged", || async {
        status().await["flagged"] == true
    })
    .await;
}

#[tokio::test]
async fn a_source_that_cannot_be_fetched_refuses_the_publish_on_its_field() {
    let (work, _home) = upstreams().await;
    let missing = Upstream::start().await;
    missing.set_status(404);
    let server = TestServer::calendars(|_| {}).await;
    let response = publish(
        &server,
        "all",
        json!([{"url": work.url("/work.ics")}, {"url": missing.url("/nope.ics")}]),
    )
    .await;
    // Upstream's fault, not the request's: 502, named on the source's field.
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    let (field, message) = field_error(response).await;
    assert_eq!(field, "sources[1].url");
    assert!(message.contains("404"), "{message}");
    // Nothing was published.
    assert_eq!(
        server.get("/cal/all.ics").await.status(),
        StatusCode::NOT_FOUND
    );
    // Eleven sources are too many, a url beside sources is one too many.
    let eleven: Vec<Value> = (0..11)
        .map(|i| json!({"url": work.url(&format!("/{i}.ics"))}))
        .collect();
    let response = publish(&server, "all", Value::from(eleven)).await;
    assert_eq!(field_error(response).await.0, "sources");
}

/// `hearth remap` with its arguments; its exit code, stdout and stderr.
fn remap_cli(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = common::hearth_bin()
        .arg("remap")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("hearth runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn hearth_remap_merges_its_inputs_in_order_with_the_configs_sources() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("work.ics");
    let b = dir.path().join("home.ics");
    std::fs::write(&a, upstream::SAMPLE).expect("written");
    std::fs::write(&b, HOME).expect("written");
    let config = dir.path().join("merged.json");
    std::fs::write(
        &config,
        json!({
            "mapping": {"SUMMARY": "${SUMMARY}!"},
            "sources": [{"prefix": "[Work] "}, {"prefix": "[Home] "}],
            "filters": [{"action": "exclude", "allDay": true}]
        })
        .to_string(),
    )
    .expect("written");
    let (code, feed, stderr) = remap_cli(&[
        "--config".as_ref(),
        config.as_os_str(),
        a.as_os_str(),
        b.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    // The prefix is the feed's, the mapping and filters run over the merged events.
    assert_eq!(
        summaries(&feed),
        ["[Home] Dentist!", "[Home] Team meeting (moved)!"]
    );

    // Without sources in the config the inputs merge without prefixes.
    let (code, feed, _) = remap_cli(&[a.as_os_str(), b.as_os_str()]);
    assert_eq!(code, Some(0));
    assert_eq!(
        summaries(&feed),
        ["Holiday", "Dentist", "Team meeting (moved)"]
    );

    // One feed per source, or a clear refusal; a bad input is named.
    let (code, _, stderr) = remap_cli(&["--config".as_ref(), config.as_os_str(), a.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("2 sources"), "{stderr}");
    let junk = dir.path().join("junk.ics");
    std::fs::write(&junk, "hello").expect("written");
    let (code, _, stderr) = remap_cli(&[a.as_os_str(), junk.as_os_str()]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("junk.ics"), "{stderr}");
}

#[tokio::test]
async fn after_the_editor_read_the_feeds_a_publish_stores_notes_and_names_every_source() {
    let (work, home) = upstreams().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |c| {
        c.edge.publish_key = Some("owner-key".into());
    })
    .await;
    // The editor reads the feeds first (kept in memory only), then Build & Host takes those
    // fresh copies: they must be stored and their fetch noted as if the publish had fetched them.
    let read = server
        .client
        .post(server.url("/api/feed"))
        .header("x-publish-key", "owner-key")
        .json(&json!({ "sources": sources(&work, &home) }))
        .send()
        .await
        .expect("sent");
    assert_eq!(read.status(), StatusCode::OK);
    let hits = (work.hits(), home.hits());
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .header("x-publish-key", "owner-key")
        .json(&json!({ "id": "all", "name": "Everything", "sources": sources(&work, &home), "mapping": {} }))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(
        (work.hits(), home.hits()),
        hits,
        "the fresh copies were taken"
    );

    let owner = || server.get_json("/api/owner", &[("x-publish-key", "owner-key")]);
    let answer = owner().await;
    // Every source's copy is stored, in the meter and in the doctor's quota line.
    let both = (upstream::SAMPLE.len() + HOME.len()) as u64;
    assert_eq!(answer["feeds"]["bytes"], both, "{answer}");
    let quotas = answer["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "quotas")
        .expect("quotas")["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(quotas.contains("1.2 KiB of"), "{quotas}");
    // Each source is listed with its label, and its fetch is on record.
    let status = &answer["calendars"][0]["status"];
    assert_eq!(status["sources"][0]["label"], "Work", "{status}");
    assert!(status["sources"][1].get("label").is_none(), "{status}");
    for source in status["sources"].as_array().expect("sources") {
        assert!(source["upstream"]["lastFetchAt"].is_string(), "{status}");
        assert_eq!(source["upstream"]["failures"], 0, "{status}");
    }

    // The second feed fails for a day: the doctor names it by number and address.
    home.set_status(404);
    clock.advance(TTL * 2);
    server.get("/cal/all.ics").await;
    let failing = |answer: &Value| {
        answer["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .find(|c| c["check"] == "calendar sources")
            .map(|c| c["message"].as_str().unwrap_or_default().to_owned())
            .unwrap_or_default()
    };
    until("the failure is noted", || async {
        owner().await["calendars"][0]["status"]["sources"][1]["upstream"]["failures"]
            .as_u64()
            .is_some_and(|n| n > 0)
    })
    .await;
    clock.advance(Duration::from_secs(25 * 3600));
    server.get("/cal/all.ics").await;
    until("the feed is flagged", || async {
        owner().await["calendars"][0]["status"]["flagged"] == true
    })
    .await;
    let line = failing(&owner().await);
    assert!(
        line.contains(&format!(
            "'Everything' (all): feed 2 ({}) has failed",
            home.url("/home.ics")
        )) && line.contains("404"),
        "{line}"
    );
    assert!(!line.contains("feed 1"), "{line}");
}
