//! The store as the owner meets it through the server: `/readyz` when the disk is nearly full,
//! and a 507 that says so when a write runs out of space.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use hearth::{Config, Db};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use upstream::Upstream;

/// A server on `db`, which the test keeps a handle to (to change it behind the server's back).
async fn serve_on(db: Db, config: Config) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(hearth::serve(config, db, listener, std::future::pending()));
    format!("http://{addr}")
}

#[tokio::test]
async fn readyz_is_503_and_says_so_when_the_disk_is_nearly_full() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Db::open(dir.path()).expect("opens");
    let base = serve_on(db.clone(), Config::defaults(dir.path()).expect("defaults")).await;
    let client = common::client();
    let ready = client
        .get(format!("{base}/readyz"))
        .send()
        .await
        .expect("sent");
    assert_eq!(ready.status(), StatusCode::OK);

    // No test can fill the disk; a threshold above any disk's size stands for it.
    db.set_min_free_bytes(u64::MAX);
    let ready = client
        .get(format!("{base}/readyz"))
        .send()
        .await
        .expect("sent");
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    let text = ready.text().await.expect("body");
    assert!(text.contains("disk full"), "{text}");
    // Liveness does not depend on free space.
    let health = client
        .get(format!("{base}/healthz"))
        .send()
        .await
        .expect("sent");
    assert_eq!(health.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_write_on_a_full_database_is_507_with_a_message_that_says_the_disk_is_full() {
    let upstream = Upstream::start().await;
    // A feed of many pages, so that storing its copy must grow the file.
    let mut feed = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n");
    for i in 0..500 {
        feed.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:{i}@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261201T090000Z\r\nSUMMARY:Event number {i}\r\nEND:VEVENT\r\n"
        ));
    }
    feed.push_str("END:VCALENDAR\r\n");
    upstream.set_body(feed);
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Db::open(dir.path()).expect("opens");
    // SQLite answers SQLITE_FULL, as on a full disk, once the file may not grow any more.
    db.write(|c| {
        let pages: i64 = c.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        c.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |_| Ok(()))?;
        Ok(())
    })
    .await
    .expect("cap the file");
    let mut config = Config::defaults(dir.path()).expect("defaults");
    config.calendars.allow_private_feeds = true;
    let base = serve_on(db, config).await;
    let response = common::client()
        .post(format!("{base}/api/calendars"))
        .json(&json!({
            "id": "work",
            "name": "Work",
            "url": upstream.url("/work.ics"),
            "mapping": {"SUMMARY": "${SUMMARY}"}
        }))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
    let body: Value = response.json().await.expect("json");
    let error = body["error"].as_str().expect("error text");
    assert!(error.contains("disk is full"), "{error}");
    assert!(!error.contains("internal error"), "{error}");
}
