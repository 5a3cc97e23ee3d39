//! Graceful shutdown: a request in flight when the signal arrives still gets its answer, new
//! connections are refused, and the server stops within its deadline. The upstream's gate holds
//! the request in flight, so nothing here waits on a timer to make something happen.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::{Duration, Instant};

use common::TestServer;
use upstream::Upstream;

const DRAIN: Duration = Duration::from_millis(800);

#[tokio::test]
async fn shutdown_finishes_an_in_flight_request() {
    let upstream = Upstream::start().await;
    upstream.close_gate();
    let mut server = TestServer::calendars(|c| {
        c.shutdown_deadline = Duration::from_secs(10);
    })
    .await;
    let url = server.url(&format!(
        "/api/feed?url=http%3A%2F%2F{}%2Fslow.ics",
        upstream.addr
    ));
    let client = server.client.clone();
    let in_flight = tokio::spawn(async move { client.get(url).send().await });

    // Once the request has reached upstream, signal shutdown while it waits for the answer.
    upstream.until_waiting(1).await;
    server.signal_shutdown();
    upstream.open_gate();

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
    // The upstream never answers: the request stays in flight until the deadline.
    upstream.close_gate();
    let mut server = TestServer::calendars(|c| {
        c.shutdown_deadline = DRAIN;
    })
    .await;
    let url = server.url(&format!(
        "/api/feed?url=http%3A%2F%2F{}%2Fstuck.ics",
        upstream.addr
    ));
    let client = server.client.clone();
    let _stuck = tokio::spawn(async move { client.get(url).send().await });
    upstream.until_waiting(1).await;
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
        took >= DRAIN - Duration::from_millis(100) && took < DRAIN + Duration::from_secs(2),
        "stopped after {took:?}"
    );
}
