//! Outlook / Office 365 and other picky upstreams: the User-Agent sent per host, and upstream
//! failures explained in words in the editor's error.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::net::{IpAddr, Ipv4Addr};

use common::TestServer;
use hearth::publish::fetch::{
    FetchError, FetchOptions, Fetcher, Validators, BROWSER_USER_AGENT, HEARTH_USER_AGENT,
};
use reqwest::StatusCode;
use serde_json::Value;
use upstream::Upstream;

const OUTLOOK_HOSTS: [&str; 3] = [
    "outlook.office365.com",
    "outlook.office.com",
    "outlook.live.com",
];

fn loopback() -> Vec<IpAddr> {
    vec![IpAddr::V4(Ipv4Addr::LOCALHOST)]
}

/// A fetcher that reaches every name in `names` on loopback.
fn fetcher(names: &[&str]) -> Fetcher {
    let mut options = FetchOptions::new(true, 1 << 20);
    for name in names {
        options.hosts.insert((*name).to_owned(), loopback());
    }
    Fetcher::with_options(options).expect("fetcher")
}

#[tokio::test]
async fn outlook_hosts_are_asked_with_a_browser_user_agent_and_others_with_hearths() {
    let upstream = Upstream::start().await;
    let port = upstream.addr.port();
    let fetcher = fetcher(&[&OUTLOOK_HOSTS[..], &["feeds.example"]].concat());
    for host in OUTLOOK_HOSTS.iter().chain(&["feeds.example"]) {
        let url = reqwest::Url::parse(&format!("http://{host}:{port}/owa/calendar/x/calendar.ics"))
            .expect("url");
        fetcher
            .fetch(&url, &Validators::default())
            .await
            .expect("fetches");
    }
    let seen = upstream.requests();
    assert_eq!(seen.len(), 4, "{seen:?}");
    for (host, agent) in &seen[..3] {
        assert_eq!(agent, BROWSER_USER_AGENT, "{host}");
    }
    assert_eq!(seen[3].0, format!("feeds.example:{port}"));
    assert_eq!(seen[3].1, HEARTH_USER_AGENT);
}

async fn editor_feed_error(server: &TestServer, url: &str) -> (StatusCode, String) {
    let response = server
        .get(&format!(
            "/api/feed?url={}",
            percent_encoding::utf8_percent_encode(url, percent_encoding::NON_ALPHANUMERIC)
        ))
        .await;
    let status = response.status();
    let body: Value = response.json().await.expect("json error");
    (
        status,
        body["error"].as_str().unwrap_or_default().to_owned(),
    )
}

#[tokio::test]
async fn an_outlook_500_is_explained_as_outlook_refusing_in_the_editors_error() {
    let upstream = Upstream::start().await;
    upstream.set_status(500);
    let server = TestServer::calendars(|c| {
        c.calendars
            .feed_hosts
            .insert("outlook.office365.com".into(), loopback());
    })
    .await;
    let url = format!(
        "http://outlook.office365.com:{}/owa/calendar/a/b/calendar.ics",
        upstream.addr.port()
    );
    let (status, error) = editor_feed_error(&server, &url).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert!(error.contains("HTTP 500: Outlook refused"), "{error}");
    assert_eq!(upstream.requests()[0].1, BROWSER_USER_AGENT);

    // A redirect that ends at Outlook is explained as Outlook.
    let other = Upstream::start().await;
    other.redirect_to(&url);
    let (_, error) = editor_feed_error(&server, &other.url("/moved.ics")).await;
    assert!(error.contains("HTTP 500: Outlook refused"), "{error}");

    // Another host's 503 is the server being down, not Outlook.
    upstream.set_status(503);
    let (status, error) = editor_feed_error(&server, &upstream.url("/other.ics")).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert!(error.contains("HTTP 503"), "{error}");
    assert!(
        error.contains("down for maintenance or overloaded"),
        "{error}"
    );
    assert!(!error.contains("Outlook"), "{error}");
    server.stop().await;
}

#[tokio::test]
async fn a_tls_failure_and_a_refused_connection_are_told_apart() {
    // An https request to a server that speaks plain http fails in the TLS handshake.
    let upstream = Upstream::start().await;
    let fetcher = fetcher(&["secure.example"]);
    let url = reqwest::Url::parse(&format!(
        "https://secure.example:{}/a.ics",
        upstream.addr.port()
    ))
    .expect("url");
    let err = fetcher
        .fetch(&url, &Validators::default())
        .await
        .expect_err("no TLS there");
    assert!(matches!(err, FetchError::Tls(_)), "{err:?}");
    assert!(
        err.to_string().contains("secure (https) connection"),
        "{err}"
    );

    // Nothing listens on a port just freed: the connection is refused.
    let free = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = free.local_addr().expect("addr").port();
    drop(free);
    let url = reqwest::Url::parse(&format!("http://127.0.0.1:{port}/a.ics")).expect("url");
    let err = fetcher
        .fetch(&url, &Validators::default())
        .await
        .expect_err("refused");
    assert!(matches!(err, FetchError::Connect(_)), "{err:?}");
    assert!(err.to_string().contains("may be down"), "{err}");
}
