//! Admission before work, against the real server on a free port: a refused request is answered
//! before its body is read; bodies are reserved in the byte budget before they are read, a
//! client's share first; behind the proxy on this machine each visitor has its own share of
//! requests in flight, so one visitor's slow requests never take the others'.

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
async fn an_upload_past_the_clients_share_of_bytes_in_flight_is_refused_at_once() {
    let server = TestServer::start(|c| {
        // A quarter of 4 MiB per client.
        c.edge.max_bytes_in_flight = 4 * 1024 * 1024;
        c.sync.max_vault_size = 1024 * 1024;
    })
    .await;
    let head = |from: &str| {
        format!(
            "POST /api/sync/vaults HTTP/1.1\r\nContent-Type: application/octet-stream\r\n\
             X-Forwarded-For: {from}\r\n"
        )
    };
    // Two uploads of one client: whichever is admitted first holds the client's whole share
    // while its body is awaited, so the other is answered 429 at once, before any body.
    let mut a = promise_body(&server, &head("198.51.100.1"), 1024 * 1024).await;
    let mut b = promise_body(&server, &head("198.51.100.1"), 1024 * 1024).await;
    let (mut buf_a, mut buf_b) = (vec![0u8; 2048], vec![0u8; 2048]);
    let answer = tokio::time::timeout(Duration::from_secs(5), async {
        tokio::select! {
            n = a.read(&mut buf_a) => String::from_utf8_lossy(&buf_a[..n.unwrap_or(0)]).into_owned(),
            n = b.read(&mut buf_b) => String::from_utf8_lossy(&buf_b[..n.unwrap_or(0)]).into_owned(),
        }
    })
    .await
    .expect("one of them is answered at once");
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    // Another client's upload is admitted: its body is awaited, not refused.
    let mut other = promise_body(&server, &head("198.51.100.2"), 1024 * 1024).await;
    let mut byte = [0u8; 1];
    let waited = tokio::time::timeout(Duration::from_millis(300), other.read(&mut byte)).await;
    assert!(
        waited.is_err(),
        "another client's upload is being read, not answered"
    );
    // Closing them ends the uploads still awaited, so the server stops at once.
    drop((a, b, other));
    server.stop().await;
}

#[tokio::test]
async fn behind_the_proxy_each_visitor_has_its_own_share_of_requests_in_flight() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.edge.in_flight.per_client = 2;
        c.edge.in_flight.per_network = 4;
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
