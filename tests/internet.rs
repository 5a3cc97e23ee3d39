//! Exposed to the open internet, against a real server on a free port: connection caps and the
//! header-read timeout, the client address behind proxies, per-address rate limits, the publish
//! key guarding the whole editor, strict HTTP errors and the Host check. 127.0.0.2 and 127.0.0.3
//! stand for other clients than 127.0.0.1.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use common::{error_of, TestServer};
use hearth::http::limits::{RateLimit, RateLimits};
use reqwest::header::{CONTENT_TYPE, HOST, RETRY_AFTER};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use upstream::Upstream;

const HALF_SENT: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";

fn loopback(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
}

/// A client whose connections come from `from`.
fn client_from(from: IpAddr) -> reqwest::Client {
    hearth::publish::fetch::install_crypto_provider();
    reqwest::Client::builder()
        .local_address(from)
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client")
}

/// A raw connection from `from`.
async fn connect_from(from: IpAddr, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.bind(SocketAddr::new(from, 0)).expect("bind");
    socket.connect(to).await.expect("connect")
}

/// True when the server closes `stream` within `within` (EOF, a reset, or an answer followed by
/// EOF); false when it is still open then.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

fn limits(burst: u32, every: Duration) -> RateLimits {
    RateLimits::all(RateLimit { burst, every })
}

fn render_body() -> Value {
    json!({ "event": { "SUMMARY": "Standup" }, "template": "${SUMMARY}!" })
}

async fn render(
    client: &reqwest::Client,
    server: &TestServer,
    key: Option<&str>,
) -> reqwest::Response {
    let mut request = client.post(server.url("/api/render")).json(&render_body());
    if let Some(key) = key {
        request = request.header("X-Publish-Key", key);
    }
    request.send().await.expect("sent")
}

fn calendar(id: &str, url: &str) -> Value {
    json!({
        "id": id,
        "name": "Work",
        "url": url,
        "mapping": { "SUMMARY": "${SUMMARY}" }
    })
}

// --- Connections ------------------------------------------------------------------------------

#[tokio::test]
async fn half_sent_connections_from_one_address_do_not_stop_another() {
    // Clients on the internet, not behind a proxy on this machine.
    let server = TestServer::start(|c| {
        c.edge.max_connections_per_address = 32;
        c.edge.trust_loopback = false;
    })
    .await;
    let attacker = loopback(1);
    let mut held = Vec::new();
    for _ in 0..200 {
        let mut stream = connect_from(attacker, server.addr).await;
        // A refused connection may already be closed: the write can fail, which is the point.
        let _ = stream.write_all(HALF_SENT).await;
        held.push(stream);
    }

    let other = client_from(loopback(2));
    for _ in 0..5 {
        let response = other
            .get(server.url("/healthz"))
            .send()
            .await
            .expect("another address is served");
        assert_eq!(response.status(), StatusCode::OK);
    }

    // Connections over the per-address cap were closed at once, not queued.
    let mut checks = tokio::task::JoinSet::new();
    for mut stream in held {
        checks.spawn(async move { closed_within(&mut stream, Duration::from_millis(300)).await });
    }
    let mut open = 0;
    while let Some(closed) = checks.join_next().await {
        if !closed.expect("joins") {
            open += 1;
        }
    }
    assert!(open <= 32, "{open} of the attacker's connections are open");
    assert!(open >= 16, "the first connections are served ({open} open)");
    let stopping = Instant::now();
    server.stop().await;
    eprintln!("stopped in {:?}", stopping.elapsed());
}

#[tokio::test]
async fn a_half_sent_connection_is_closed_after_the_header_read_timeout() {
    let server = TestServer::start(|c| c.edge.header_read_timeout = Duration::from_secs(1)).await;
    let mut stream = connect_from(loopback(1), server.addr).await;
    stream.write_all(HALF_SENT).await.expect("write");
    let started = Instant::now();
    assert!(
        closed_within(&mut stream, Duration::from_secs(5)).await,
        "still open after 5 s"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(800),
        "closed early: {:?}",
        started.elapsed()
    );
    server.stop().await;
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_after_the_timeout() {
    let server = TestServer::start(|c| c.edge.header_read_timeout = Duration::from_secs(1)).await;
    let mut stream = connect_from(loopback(1), server.addr).await;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .expect("write");
    let mut buf = vec![0u8; 4096];
    let n = stream.read(&mut buf).await.expect("answer");
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"), "answered");
    let started = Instant::now();
    assert!(
        closed_within(&mut stream, Duration::from_secs(5)).await,
        "idle connection still open after 5 s"
    );
    assert!(started.elapsed() >= Duration::from_millis(800));
    server.stop().await;
}

#[tokio::test]
async fn a_full_table_closes_the_heaviest_clients_oldest_connection_for_a_newcomer() {
    let server = TestServer::start(|c| {
        c.edge.max_connections = 3;
        c.edge.max_connections_per_address = 3;
        c.edge.trust_loopback = false;
    })
    .await;
    // One client takes the whole table (the kernel hands them over in the order they came).
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = connect_from(loopback(3), server.addr).await;
        stream.write_all(HALF_SENT).await.expect("write");
        held.push(stream);
    }
    // A newcomer is served: the heaviest client's oldest connection made room.
    let newcomer = client_from(loopback(2));
    let response = newcomer
        .get(server.url("/healthz"))
        .send()
        .await
        .expect("the newcomer is served");
    assert_eq!(response.status(), StatusCode::OK);
    response.bytes().await.expect("read");
    let mut oldest = held.remove(0);
    assert!(
        closed_within(&mut oldest, Duration::from_secs(2)).await,
        "the oldest connection of the heaviest client was closed"
    );
    // The newcomer's connection (kept alive) and the other two share the table now: another
    // connection of the heavy client is refused at once rather than trade places.
    let mut again = connect_from(loopback(3), server.addr).await;
    let _ = again.write_all(HALF_SENT).await;
    assert!(
        closed_within(&mut again, Duration::from_secs(2)).await,
        "a client as heavy as the heaviest is not given another place"
    );
    for stream in &mut held {
        assert!(!closed_within(stream, Duration::from_millis(50)).await);
    }
    drop(newcomer);
    server.stop().await;
}

// --- Client address and rate limits -----------------------------------------------------------

#[tokio::test]
async fn behind_a_proxy_the_forwarded_address_is_limited_and_cannot_be_rotated() {
    let server =
        TestServer::start(|c| c.edge.rate_limits = limits(1, Duration::from_secs(60))).await;
    // The peer is loopback, so it counts as a proxy; the right-most address is the client.
    let proxy = client_from(loopback(2));
    let feed = |xff: &'static str| {
        proxy
            .get(server.url("/api/feed"))
            .header("X-Forwarded-For", xff)
            .send()
    };
    assert_eq!(
        feed("198.51.100.1").await.expect("sent").status(),
        StatusCode::BAD_REQUEST
    );
    // Made-up addresses left of the one the proxy appended change nothing.
    let again = feed("1.1.1.1, 198.51.100.1").await.expect("sent");
    assert_eq!(again.status(), StatusCode::TOO_MANY_REQUESTS);
    // Another visitor behind the same proxy has its own allowance.
    let other = feed("198.51.100.2").await.expect("sent");
    assert_eq!(other.status(), StatusCode::BAD_REQUEST);
    server.stop().await;
}

#[tokio::test]
async fn unless_the_owner_says_a_proxy_is_here_a_forwarder_cannot_pick_its_clients_address() {
    // The default: nothing on this machine is said to forward visitors.
    let server = TestServer::start(|c| {
        c.edge.trust_loopback = false;
        c.edge.rate_limits.vault_create = RateLimit {
            burst: 3,
            every: Duration::from_secs(3600),
        };
    })
    .await;
    // A forwarder on this machine (ssh -L, socat) passing a made-up header through, a new
    // address every time.
    let forwarder = client_from(loopback(4));
    let mut made = 0;
    for n in 0..20 {
        let response = forwarder
            .post(server.url("/api/sync/vaults"))
            .header(CONTENT_TYPE, "application/octet-stream")
            .header("X-Forwarded-For", format!("203.0.113.{n}"))
            .body(vec![1u8; 64])
            .send()
            .await
            .expect("sent");
        if response.status() == StatusCode::CREATED {
            made += 1;
        } else {
            assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
        }
    }
    assert_eq!(made, 3, "the forwarder counts as one client");
    server.stop().await;
}

#[tokio::test]
async fn forwarded_is_read_when_x_forwarded_for_is_absent() {
    let server =
        TestServer::start(|c| c.edge.rate_limits = limits(1, Duration::from_secs(60))).await;
    let proxy = client_from(loopback(2));
    let send = |forwarded: &'static str| {
        proxy
            .post(server.url("/api/render"))
            .header("Forwarded", forwarded)
            .json(&render_body())
            .send()
    };
    assert_eq!(
        send("for=203.0.113.4").await.expect("sent").status(),
        StatusCode::OK
    );
    assert_eq!(
        send("for=\"203.0.113.4:1234\";proto=https")
            .await
            .expect("sent")
            .status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(
        send("for=203.0.113.5").await.expect("sent").status(),
        StatusCode::OK
    );
    server.stop().await;
}

#[tokio::test]
async fn publishing_is_limited_per_address_and_a_refused_publish_fetches_nothing() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.edge.rate_limits = limits(2, Duration::from_secs(60));
    })
    .await;
    let me = client_from(loopback(1));
    for n in 0..2 {
        let response = me
            .post(server.url("/api/calendars"))
            .json(&calendar(&format!("cal-{n}"), &upstream.url("/a.ics")))
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    let hits = upstream.hits();
    let refused = me
        .post(server.url("/api/calendars"))
        .json(&calendar("cal-3", &upstream.url("/a.ics")))
        .send()
        .await
        .expect("sent");
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = refused.headers()[RETRY_AFTER]
        .to_str()
        .expect("ascii")
        .parse()
        .expect("seconds");
    assert!((1..=60).contains(&retry), "Retry-After {retry}");
    let error = error_of(refused).await;
    assert_eq!(
        error,
        format!("too many requests from your address: try again in {retry} seconds")
    );
    assert_eq!(upstream.hits(), hits, "the refused publish fetched nothing");

    // Another address still publishes.
    let response = client_from(loopback(2))
        .post(server.url("/api/calendars"))
        .json(&calendar("cal-4", &upstream.url("/a.ics")))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    server.stop().await;
}

#[tokio::test]
async fn unpublishing_feeds_and_renders_each_have_a_limit() {
    let server =
        TestServer::start(|c| c.edge.rate_limits = limits(2, Duration::from_secs(60))).await;
    let me = client_from(loopback(1));
    for _ in 0..2 {
        let response = me
            .delete(server.url("/api/calendars/nope"))
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }
    let response = me
        .delete(server.url("/api/calendars/nope"))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);

    for _ in 0..2 {
        let response = me
            .get(server.url("/api/feed?url=ftp%3A%2F%2Fx"))
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }
    let response = me
        .get(server.url("/api/feed?url=ftp%3A%2F%2Fx&refresh=true"))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(response.headers().contains_key(RETRY_AFTER));

    for _ in 0..2 {
        assert_eq!(render(&me, &server, None).await.status(), StatusCode::OK);
    }
    let response = render(&me, &server, None).await;
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(error_of(response)
        .await
        .starts_with("too many requests from your address"));
    server.stop().await;
}

#[tokio::test]
async fn previews_share_the_render_allowance() {
    let server =
        TestServer::start(|c| c.edge.rate_limits = limits(2, Duration::from_secs(60))).await;
    let me = client_from(loopback(3));
    assert_eq!(render(&me, &server, None).await.status(), StatusCode::OK);
    // A preview of an address that is refused still counts (it is checked after admission).
    let preview = || {
        me.post(server.url("/api/preview"))
            .json(&json!({ "url": "ftp://x", "config": { "mapping": {} } }))
            .send()
    };
    assert_eq!(
        preview().await.expect("sent").status(),
        StatusCode::BAD_REQUEST
    );
    let response = preview().await.expect("sent");
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(response.headers().contains_key(RETRY_AFTER));
    assert_eq!(
        render(&me, &server, None).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    server.stop().await;
}

#[tokio::test]
async fn the_owner_with_the_publish_key_is_never_throttled_but_guesses_are_before_any_comparison() {
    let server = TestServer::start(|c| {
        c.edge.publish_key = Some("owner-key".into());
        c.edge.rate_limits = limits(1, Duration::from_secs(60));
    })
    .await;
    let me = client_from(loopback(1));
    for _ in 0..10 {
        assert_eq!(
            render(&me, &server, Some("owner-key")).await.status(),
            StatusCode::OK
        );
    }
    // Wrong keys from another address: the first is refused as unauthorized, then it must wait.
    let guesser = client_from(loopback(2));
    assert_eq!(
        render(&guesser, &server, Some("guess-1")).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        render(&guesser, &server, Some("guess-2")).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // Not even the right key is compared from the throttled address (a 200 would tell the
    // guesser it had found the key); the owner's own address is not held back by it.
    assert_eq!(
        render(&guesser, &server, Some("owner-key")).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(
        render(&me, &server, Some("owner-key")).await.status(),
        StatusCode::OK
    );
    server.stop().await;
}

// --- The key protects the whole tool ----------------------------------------------------------

#[tokio::test]
async fn with_a_publish_key_the_editor_calls_need_it_too() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.edge.publish_key = Some("owner-key".into());
    })
    .await;
    let feed_url = server.url(&format!(
        "/api/feed?url=http%3A%2F%2F{}%2Fa.ics",
        upstream.addr
    ));
    let response = server.client.get(&feed_url).send().await.expect("sent");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(error_of(response).await.contains("publish key"));
    assert_eq!(
        upstream.hits(),
        0,
        "nothing fetched for a visitor without the key"
    );

    let response = render(&server.client, &server, None).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(error_of(response).await.contains("X-Publish-Key"));

    let response = server
        .client
        .get(&feed_url)
        .header("X-Publish-Key", "owner-key")
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        render(&server.client, &server, Some("owner-key"))
            .await
            .status(),
        StatusCode::OK
    );
    server.stop().await;
}

#[tokio::test]
async fn without_a_publish_key_the_editor_calls_are_open() {
    let server = TestServer::start(|_| {}).await;
    assert_eq!(
        render(&server.client, &server, None).await.status(),
        StatusCode::OK
    );
    server.stop().await;
}

// --- Strict HTTP errors -----------------------------------------------------------------------

#[tokio::test]
async fn query_string_and_method_errors_answer_json() {
    let server = TestServer::start(|_| {}).await;
    let response = server.get("/api/feed?url=x&offset=abc").await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let error = error_of(response).await;
    assert!(error.contains("offset"), "{error}");

    let response = server.get("/api/feed?url=x&refresh=maybe").await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert!(error_of(response).await.contains("refresh"));

    for (method, path) in [
        (reqwest::Method::PUT, "/api/render"),
        (reqwest::Method::GET, "/api/calendars"),
        (reqwest::Method::DELETE, "/api/feed"),
        (reqwest::Method::POST, "/healthz"),
        (reqwest::Method::PATCH, "/api/calendars/abc"),
    ] {
        let response = server
            .client
            .request(method.clone(), server.url(path))
            .send()
            .await
            .expect("sent");
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        let error = error_of(response).await;
        assert!(
            error.contains(path) && error.contains(method.as_str()),
            "{error}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn json_bodies_are_strict() {
    let server = TestServer::start(|_| {}).await;
    let raw = |content_type: &'static str, body: String| {
        server
            .client
            .post(server.url("/api/render"))
            .header(CONTENT_TYPE, content_type)
            .body(body)
            .send()
    };
    let good = render_body().to_string();

    let response = raw("application/json", format!("{good} {{}}"))
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert!(error_of(response).await.contains("trailing"));
    let response = raw("application/json", format!("{good}\n"))
        .await
        .expect("sent");
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "trailing white space is fine"
    );

    let response = raw("application/jsonfoo", good.clone())
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(error_of(response).await.contains("application/json"));
    let response = raw("application/json; charset=utf-8", good.clone())
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::OK);

    let mut publish = calendar("cal-1", "https://example.org/a.ics");
    publish["owner"] = json!("me");
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .json(&publish)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let error = error_of(response).await;
    assert!(error.contains("unknown field `owner`"), "{error}");
    server.stop().await;
}

// --- Host check -------------------------------------------------------------------------------

#[tokio::test]
async fn with_a_public_url_other_host_names_are_misdirected() {
    let server = TestServer::start(|c| c.public_url = Some("https://cal.example.org".into())).await;
    let with_host = |host: &'static str| {
        server
            .client
            .get(server.url("/api/site"))
            .header(HOST, host)
            .send()
    };
    let response = with_host("rebound.attacker.example").await.expect("sent");
    assert_eq!(response.status(), StatusCode::MISDIRECTED_REQUEST);
    assert!(error_of(response).await.contains("host name"));
    assert_eq!(
        with_host("cal.example.org").await.expect("sent").status(),
        StatusCode::OK
    );
    assert_eq!(
        with_host("CAL.example.org:443")
            .await
            .expect("sent")
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        with_host("localhost:8080").await.expect("sent").status(),
        StatusCode::OK
    );
    // The LAN: addresses and mDNS names cannot be rebound by a hostile page.
    for host in ["raspberrypi.local:8080", "192.168.1.5", "[::1]:8080"] {
        let response = server
            .client
            .get(server.url("/api/site"))
            .header(HOST, host)
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::OK, "{host}");
    }
    let response = with_host("192.168.1.5.nip.io").await.expect("sent");
    assert_eq!(response.status(), StatusCode::MISDIRECTED_REQUEST);
    // The probes of install.sh and pi-check.sh: http://127.0.0.1:PORT.
    assert_eq!(server.get("/healthz").await.status(), StatusCode::OK);
    server.stop().await;

    let open = TestServer::start(|_| {}).await;
    let response = open
        .client
        .get(open.url("/healthz"))
        .header(HOST, "anything.example")
        .send()
        .await
        .expect("sent");
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "without --public-url any host is served"
    );
    open.stop().await;
}
