//! Graceful shutdown: a request in flight when the signal arrives still gets its answer, new
//! connections are refused, and the server stops within its deadline.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::{Duration, Instant};

use common::TestServer;
use upstream::Upstream;

#[tokio::test]
async fn shutdown_finishes_an_in_flight_request() {
    let upstream = Upstream::start().await;
    upstream.set_delay(Duration::from_millis(1500));
    let mut server = TestServer::start(|c| c.allow_private_feeds = true).await;
    let url = server.url(&format!(
        "/api/feed?url=http%3A%2F%2F{}%2Fslow.ics",
        upstream.addr
    ));
    let client = server.client.clone();
    let in_flight = tokio::spawn(async move { client.get(url).send().await });

    // Once the request has reached upstream, signal shutdown while it waits for the answer.
    until_upstream_is_asked(&upstream).await;
    assert_eq!(upstream.hits(), 1, "the request is in flight");
    let started = Instant::now();
    server.signal_shutdown();

    let response = in_flight
        .await
        .expect("joins")
        .expect("in-flight request answered");
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["eventCount"], 2);

    let handle = server.handle().expect("running");
    handle
        .await
        .expect("joins")
        .expect("server stopped cleanly");
    assert!(
        started.elapsed() < hearth::SHUTDOWN_DEADLINE + Duration::from_secs(1),
        "stopped within the deadline"
    );
    // Nothing listens any more.
    assert!(common::client()
        .get(server.url("/healthz"))
        .send()
        .await
        .is_err());
}

#[tokio::test]
async fn shutdown_does_not_wait_past_the_deadline() {
    let upstream = Upstream::start().await;
    upstream.set_delay(Duration::from_secs(12));
    let mut server = TestServer::start(|c| c.allow_private_feeds = true).await;
    let url = server.url(&format!(
        "/api/feed?url=http%3A%2F%2F{}%2Fstuck.ics",
        upstream.addr
    ));
    let client = server.client.clone();
    let _stuck = tokio::spawn(async move { client.get(url).send().await });
    until_upstream_is_asked(&upstream).await;
    let started = Instant::now();
    server.signal_shutdown();
    server
        .handle()
        .expect("running")
        .await
        .expect("joins")
        .expect("stops");
    let took = started.elapsed();
    assert!(
        took >= hearth::SHUTDOWN_DEADLINE - Duration::from_millis(100)
            && took < hearth::SHUTDOWN_DEADLINE + Duration::from_secs(2),
        "stopped after {took:?}"
    );
}

/// Waits (bounded) until the in-flight request has reached the upstream server.
async fn until_upstream_is_asked(upstream: &Upstream) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while upstream.hits() == 0 {
        assert!(
            Instant::now() < deadline,
            "the request never reached upstream"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}
