//! Feed storage held to the one fairness rule, against the real server and a real upstream on
//! the server's manual clock: an address's copy counts against the storage together with the
//! past events its calendars keep, a publisher (one anonymous address, a /48 in aggregate) holds
//! at most an eighth of it, and a source that drops its ended events at every fetch makes the
//! oldest kept events go (said in the calendar's status) instead of filling the storage, so
//! another visitor's publish is still accepted.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::{Duration, SystemTime};

use common::{error_of, until, TestServer};
use hearth::clock::Clock;
use reqwest::StatusCode;
use serde_json::{json, Value};
use upstream::Upstream;

const TTL: Duration = Duration::from_secs(60);
const MIB: u64 = 1024 * 1024;
/// The storage of these tests: a visitor's eighth is 1 MiB.
const STORAGE: u64 = 8 * MIB;

/// Generation `g` of a source that publishes 1,000 events that ended in the past days, new ones
/// at every fetch (those of the last fetch dropped after they ended), each generation's later
/// than the last's, and one ahead.
fn generation(g: u32) -> String {
    let mut out = String::from(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n\
         BEGIN:VEVENT\r\nUID:ahead@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20301201T090000Z\r\nSUMMARY:Ahead\r\nEND:VEVENT\r\n",
    );
    let now = SystemTime::now();
    for i in 0..1_000u32 {
        let ago = 86_400 * 10 + u64::from(i) * 60 - u64::from(g) * 72_000;
        let start = common::utc_stamp(now - Duration::from_secs(ago));
        out.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:g{g}-{i}@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{start}\r\n\
             DURATION:PT1H\r\nSUMMARY:Ended {g}/{i}\r\nEND:VEVENT\r\n"
        ));
    }
    out.push_str("END:VCALENDAR\r\n");
    out
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

fn keeping(id: &str, url: &str) -> Value {
    json!({"id": id, "name": id, "url": url, "mapping": {}, "history": {"keepDays": 366}})
}

/// (bytes of every copy and kept event, kept events) in the database.
async fn storage(server: &TestServer) -> (u64, u64) {
    let db = hearth::Db::open(server.data_dir.path()).expect("opens");
    db.read(|conn| {
        let (bytes, kept): (i64, i64) = conn.query_row(
            "SELECT (SELECT coalesce(sum(length(body)), 0) FROM feed_copies)
                  + (SELECT coalesce(sum(length(component)), 0) FROM kept_events),
                    (SELECT count(*) FROM kept_events)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok((
            u64::try_from(bytes).unwrap_or(0),
            u64::try_from(kept).unwrap_or(0),
        ))
    })
    .await
    .expect("read")
}

async fn hosted(server: &TestServer, id: &str) -> String {
    let response = server.get(&format!("/cal/{id}.ics")).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.expect("text")
}

#[tokio::test]
async fn history_against_a_source_that_drops_its_ended_events_stays_within_the_publishers_share() {
    let upstream = Upstream::start().await;
    upstream.set_body(generation(0));
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, TTL, |c| {
        c.calendars.max_feed_storage = STORAGE;
    })
    .await;
    let attacker = "198.51.100.66";
    let ids = ["h1", "h2", "h3", "h4"];
    let mut tokens = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        let response = publish_as(
            &server,
            attacker,
            &keeping(id, &upstream.url(&format!("/drops.ics?copy={n}"))),
        )
        .await;
        assert_eq!(response.status(), StatusCode::CREATED, "{id}");
        let body: Value = response.json().await.expect("json");
        tokens.push(body["editToken"].as_str().expect("token").to_owned());
    }
    let (copies, _) = storage(&server).await;
    // Each fetch drops the last 1,000 ended events: every refresh would keep 1,000 more per
    // calendar (up to 5,000 each) without the share.
    for g in 1..=6 {
        upstream.set_body(generation(g));
        clock.advance(TTL * 2);
        let marker = format!("UID:g{g}-0@t");
        for id in ids {
            until(&format!("{id} serves generation {g}"), || async {
                hosted(&server, id).await.contains(&marker)
            })
            .await;
        }
    }
    let (stored, kept) = storage(&server).await;
    assert!(kept > 0, "past events are kept within the share");
    assert!(
        stored <= STORAGE / 8,
        "{stored} bytes stored for one address against its eighth ({}; copies alone {copies})",
        STORAGE / 8
    );
    // The newest kept events stayed, the oldest went.
    let newest = hosted(&server, "h1").await;
    assert!(newest.contains("UID:g5-0@t"), "the last generation kept");
    assert!(!newest.contains("UID:g0-0@t"), "the first generation gone");
    // The calendar's status says so.
    let status = server
        .client
        .get(server.url("/api/calendars/h1/status"))
        .bearer_auth(&tokens[0])
        .send()
        .await
        .expect("sent");
    assert_eq!(status.status(), StatusCode::OK);
    let status: Value = status.json().await.expect("json");
    let dropped = &status["upstream"]["historyDropped"];
    assert!(dropped["events"].as_u64().unwrap_or(0) > 0, "{status}");
    assert!(dropped["at"].is_string(), "{status}");

    // The attacker's next calendar is past its share; another address's is accepted.
    let more = publish_as(
        &server,
        attacker,
        &keeping("h5", &upstream.url("/drops.ics?copy=5")),
    )
    .await;
    assert_eq!(more.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert!(error_of(more).await.contains("your address"));
    let bystander = publish_as(
        &server,
        "203.0.113.9",
        &keeping("mine", &upstream.url("/mine.ics")),
    )
    .await;
    assert_eq!(bystander.status(), StatusCode::CREATED);
    server.stop().await;
}

#[tokio::test]
async fn the_64s_of_one_48_share_twice_one_addresss_storage() {
    let upstream = Upstream::start().await;
    // A feed of about 300 KB: three fit one address's eighth (1 MiB), six a /48's two.
    upstream.set_body(generation(0).replace("Ended", &"Ended ".repeat(20)));
    let server = TestServer::calendars(|c| {
        c.calendars.max_feed_storage = STORAGE;
    })
    .await;
    let size = storage(&server).await.0;
    assert_eq!(size, 0);
    let mut created = 0;
    let mut refused = None;
    for n in 1..=16u32 {
        let from = format!("2001:db8:48:{n:x}::1");
        let response = publish_as(
            &server,
            &from,
            &keeping(&format!("v{n}"), &upstream.url(&format!("/v6.ics?n={n}"))),
        )
        .await;
        match response.status() {
            StatusCode::CREATED => created += 1,
            StatusCode::INSUFFICIENT_STORAGE => {
                refused = Some(error_of(response).await);
                break;
            }
            other => panic!("unexpected {other}"),
        }
    }
    let (stored, _) = storage(&server).await;
    assert!(stored <= 2 * STORAGE / 8, "{stored} bytes for one /48");
    assert!((4..=7).contains(&created), "{created} calendars of one /48");
    assert!(
        refused
            .as_deref()
            .is_some_and(|e| e.contains("your network")),
        "{refused:?}"
    );
    // An address elsewhere still publishes.
    let other = publish_as(
        &server,
        "203.0.113.9",
        &keeping("mine", &upstream.url("/mine.ics")),
    )
    .await;
    assert_eq!(other.status(), StatusCode::CREATED);
    server.stop().await;
}
