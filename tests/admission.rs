//! Admission before work, against the real server on a free port: a refused request is answered
//! before its body is read; bodies hold in the byte budget what they have sent, not what they
//! declare, within the client's share; behind the proxy on this machine each visitor has its own
//! share of requests in flight, so one visitor's slow requests never take the others'.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::Duration;

use common::{error_of, TestServer};
use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use upstream::Upstream;

/// Sends a request head that promises `length` bytes of body and sends none of it; returns the
/// connection (kept open: it holds whatever the server reserved for it).
async fn promise_body(server: &TestServer, head: &str, length: usize) -> TcpStream {
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    let request = format!("{head}Host: localhost\r\nContent-Length: {length}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("write");
    stream
}

/// The status line of the answer on `stream`, which must come without any body being sent.
async fn status_without_body(stream: &mut TcpStream) -> String {
    let mut answer = vec![0u8; 2048];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
        .await
        .expect("answered before the body")
        .expect("read");
    String::from_utf8_lossy(&answer[..n])
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_publish_without_the_key_is_refused_before_its_body_is_read() {
    let server = TestServer::start(|c| c.edge.publish_key = Some("k3y".into())).await;
    let mut stream = promise_body(
        &server,
        "POST /api/calendars HTTP/1.1\r\nContent-Type: application/json\r\n",
        200 * 1024,
    )
    .await;
    assert!(status_without_body(&mut stream)
        .await
        .starts_with("HTTP/1.1 401"));
    drop(stream);
    server.stop().await;
}

#[tokio::test]
async fn uploads_hold_what_they_sent_not_what_they_declared() {
    let server = TestServer::start(|c| {
        // An eighth of 4 MiB, or the largest body (a vault, a feed: 1 MiB) if that is more: a
        // client's share is 1 MiB.
        c.edge.max_bytes_in_flight = 4 * 1024 * 1024;
        c.sync.max_vault_size = 1024 * 1024;
        c.calendars.feed_max_size = 1024 * 1024;
    })
    .await;
    let head = |from: &str| {
        format!(
            "POST /api/sync/vaults HTTP/1.1\r\nContent-Type: application/octet-stream\r\n\
             X-Forwarded-For: {from}\r\n"
        )
    };
    // Four clients, two uploads each, every one declaring a whole vault and sending nothing:
    // eight megabytes declared against a budget of four.
    let mut promised = Vec::new();
    for n in 1..=4 {
        for _ in 0..2 {
            promised
                .push(promise_body(&server, &head(&format!("198.51.100.{n}")), 1024 * 1024).await);
        }
    }
    // None of them is answered: each is admitted and awaited, holding what it sent (nothing).
    let mut byte = [0u8; 1];
    for stream in &mut promised {
        let waited = tokio::time::timeout(Duration::from_millis(50), stream.read(&mut byte)).await;
        assert!(waited.is_err(), "an upload is being read, not answered");
    }
    // Another client's whole upload is read and stored meanwhile, twice.
    for _ in 0..2 {
        let stored = server
            .client
            .post(server.url("/api/sync/vaults"))
            .header("Content-Type", "application/octet-stream")
            .header("X-Forwarded-For", "198.51.100.9")
            .body(vec![7u8; 900 * 1024])
            .send()
            .await
            .expect("sent");
        assert_eq!(stored.status(), StatusCode::CREATED);
    }
    // One client sending two vaults at once passes its share as the bytes arrive: the second
    // is refused with a 429 while the first holds its megabyte.
    let mut first = promise_body(&server, &head("198.51.100.10"), 1024 * 1024).await;
    first
        .write_all(&vec![1u8; 1000 * 1024])
        .await
        .expect("sent most of it");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let second = server
        .client
        .post(server.url("/api/sync/vaults"))
        .header("Content-Type", "application/octet-stream")
        .header("X-Forwarded-For", "198.51.100.10")
        .body(vec![2u8; 500 * 1024])
        .send()
        .await
        .expect("sent");
    assert_eq!(second.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(second.headers().contains_key("retry-after"));
    error_of(second).await;
    drop((promised, first));
    server.stop().await;
}

#[tokio::test]
async fn behind_the_proxy_each_visitor_has_its_own_share_of_requests_in_flight() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.edge.in_flight.per_client = 2;
    })
    .await;
    // Every fetch waits at the upstream's gate: the editor reads stay under way.
    upstream.close_gate();
    let read_feed = |from: &'static str, path: &str| {
        let url = format!("/api/feed?url={}", upstream.url(path));
        server
            .client
            .get(server.url(&url))
            .header("X-Forwarded-For", from)
            .send()
    };
    let held = async {
        upstream.until_waiting(2).await;
        // Both of the visitor's requests are under way: a third is refused at once.
        let third = read_feed("203.0.113.66", "/c.ics").await.expect("sent");
        assert_eq!(third.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(third.headers().contains_key("retry-after"));
        error_of(third).await;
        // Other visitors behind the same proxy are served.
        for n in 1..=5 {
            let other = server
                .client
                .get(server.url("/api/site"))
                .header("X-Forwarded-For", format!("198.51.100.{n}"))
                .send()
                .await
                .expect("sent");
            assert_eq!(other.status(), StatusCode::OK, "visitor {n}");
        }
        upstream.open_gate();
    };
    let (first, second, ()) = tokio::join!(
        read_feed("203.0.113.66", "/a.ics"),
        read_feed("203.0.113.66", "/b.ics"),
        held
    );
    assert_eq!(first.expect("sent").status(), StatusCode::OK);
    assert_eq!(second.expect("sent").status(), StatusCode::OK);
    server.stop().await;
}
