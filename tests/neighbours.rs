//! Noisy neighbours, against the real server on a free port: for every resource all visitors
//! share, a few attackers do their worst at once (four IPv4 addresses, and sixteen /64s of one
//! IPv6 /48) while a bystander of every kind keeps being answered: a subscriber, a learner
//! reading and writing its vault, a new learner, an editor, the owner. Visitors are named by
//! `X-Forwarded-For` through the proxy on this machine (loopback is trusted in these tests);
//! connections come from loopback addresses of their own.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use common::TestServer;
use hearth::http::limits::RateLimit;
use reqwest::header::CONTENT_TYPE;
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};
use upstream::Upstream;

const OCTETS: &str = "application/octet-stream";

/// Four IPv4 addresses, and sixteen /64s of one /48.
fn attackers() -> Vec<String> {
    let v4 = (11..=14).map(|n| format!("198.51.100.{n}"));
    let v6 = (0..16).map(|n| format!("2001:db8:48:{n:x}::1"));
    v4.chain(v6).collect()
}

/// The /48's sixteen /64s only.
fn one_48() -> Vec<String> {
    (0..16).map(|n| format!("2001:db8:48:{n:x}::1")).collect()
}

/// Sends `request` for the visitor `from`.
fn from(request: reqwest::RequestBuilder, from: &str) -> reqwest::RequestBuilder {
    request.header("X-Forwarded-For", from)
}

/// Sends `request` and asserts its status within `within`; returns the response.
async fn answered(
    what: &str,
    request: reqwest::RequestBuilder,
    status: StatusCode,
    within: Duration,
) -> reqwest::Response {
    let started = Instant::now();
    let response = tokio::time::timeout(within, request.send())
        .await
        .unwrap_or_else(|_| panic!("{what}: not answered within {within:?}"))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let took = started.elapsed();
    assert_eq!(response.status(), status, "{what} (after {took:?})");
    response
}

/// A vault made for `who`: its id and write token.
async fn make_vault(server: &TestServer, who: &str, size: usize) -> (String, String) {
    let response = answered(
        &format!("vault of {who}"),
        from(server.client.post(server.url("/api/sync/vaults")), who)
            .header(CONTENT_TYPE, OCTETS)
            .body(vec![1u8; size]),
        StatusCode::CREATED,
        Duration::from_secs(10),
    )
    .await;
    let answer: serde_json::Value = response.json().await.expect("json");
    (
        answer["id"].as_str().expect("id").to_owned(),
        answer["token"].as_str().expect("token").to_owned(),
    )
}

/// An upload for `who` that promises `declared` bytes, sends `sent` of them and stalls.
async fn stalled_upload(server: &TestServer, who: &str, declared: usize, sent: usize) -> TcpStream {
    let mut stream = TcpStream::connect(server.addr).await.expect("connect");
    let head = format!(
        "POST /api/sync/vaults HTTP/1.1\r\nHost: localhost\r\nContent-Type: {OCTETS}\r\n\
         X-Forwarded-For: {who}\r\nContent-Length: {declared}\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    // The server may stop reading (a 429 past the share): what it does not take stays here.
    let _ = tokio::time::timeout(
        Duration::from_millis(100),
        stream.write_all(&vec![7u8; sent]),
    )
    .await;
    stream
}

#[tokio::test]
async fn bytes_in_flight_stay_open_to_bystanders_while_attackers_send_all_they_can() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        // A client's share is its largest body (1 MiB) of 4 MiB; an eighth is kept for
        // newcomers and an eighth for the server's own fetches.
        c.edge.max_bytes_in_flight = 4 * 1024 * 1024;
        c.sync.max_vault_size = 1024 * 1024;
        c.calendars.feed_max_size = 1024 * 1024;
    })
    .await;
    // Before the attack: a calendar with subscribers, a learner with a vault.
    server
        .publish_feed("work", &upstream.url("/work.ics"), None)
        .await;
    let learner = "203.0.113.20";
    let (vault, token) = make_vault(&server, learner, 200 * 1024).await;

    // Every attacker opens two uploads of a whole vault and sends all it can before stalling:
    // forty uploads of 900 KiB against a budget of 4 MiB.
    let mut held = Vec::new();
    for who in attackers() {
        for _ in 0..2 {
            held.push(stalled_upload(&server, &who, 1024 * 1024, 900 * 1024).await);
        }
    }

    let within = Duration::from_secs(5);
    answered(
        "a subscriber",
        from(
            server.client.get(server.url("/cal/work.ics")),
            "203.0.113.30",
        ),
        StatusCode::OK,
        Duration::from_secs(1),
    )
    .await;
    answered(
        "a learner reading its vault",
        from(
            server
                .client
                .get(server.url(&format!("/api/sync/vaults/{vault}"))),
            learner,
        ),
        StatusCode::OK,
        within,
    )
    .await;
    answered(
        "a learner writing its vault",
        from(
            server
                .client
                .put(server.url(&format!("/api/sync/vaults/{vault}"))),
            learner,
        )
        .header(CONTENT_TYPE, OCTETS)
        .header("If-Match", "\"v1\"")
        .bearer_auth(&token)
        .body(vec![2u8; 300 * 1024]),
        StatusCode::OK,
        within,
    )
    .await;
    make_vault(&server, "203.0.113.21", 400 * 1024).await;
    answered(
        "an editor reading a feed",
        from(
            server
                .client
                .get(server.url(&format!("/api/feed?url={}", upstream.url("/other.ics")))),
            "203.0.113.22",
        ),
        StatusCode::OK,
        within,
    )
    .await;
    drop(held);
    server.stop().await;
}

#[tokio::test]
async fn the_engine_gives_a_bystander_its_turn_while_attackers_keep_it_busy() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_with_descriptions(3000, 300));
    let server = TestServer::calendars(|c| {
        c.calendars.engine.preview = Duration::from_millis(300);
    })
    .await;
    server
        .publish_feed("work", &upstream.url("/work.ics"), None)
        .await;
    // The subscribers' render exists before the attack.
    answered(
        "the first subscriber",
        server.client.get(server.url("/cal/work.ics")),
        StatusCode::OK,
        Duration::from_secs(10),
    )
    .await;
    // Regex-heavy previews that each run to their time budget, two at once per attacker, for
    // as long as the bystanders are being checked.
    let heavy = format!(
        "${{SUMMARY}}{}",
        "${DESCRIPTION|re:s/[\\s\\S]//g}".repeat(hearth::calendar::MAX_REGEX_TRANSFORMS)
    );
    let body = json!({"url": upstream.url("/work.ics"), "config": {"mapping": {"SUMMARY": heavy}}});
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut attacks = tokio::task::JoinSet::new();
    for who in attackers() {
        for _ in 0..2 {
            let (client, url, body, who, stop) = (
                server.client.clone(),
                server.url("/api/preview"),
                body.clone(),
                who.clone(),
                stop_rx.clone(),
            );
            attacks.spawn(async move {
                while !*stop.borrow() {
                    let refused = from(client.post(&url), &who)
                        .json(&body)
                        .send()
                        .await
                        .map_or(true, |r| r.status() == StatusCode::TOO_MANY_REQUESTS);
                    if refused {
                        // Past its share of jobs: it tries again at once, but not in a spin.
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
            });
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Every answer of the bystanders within a few slices of the attackers' jobs, never a 503.
    let mut worst = Duration::ZERO;
    for n in 0..5 {
        let started = Instant::now();
        answered(
            "an editor's one-field render",
            from(
                server.client.post(server.url("/api/render")),
                "203.0.113.40",
            )
            .json(&json!({
                "event": {"SUMMARY": format!("Meeting {n}")},
                "mapping": {"SUMMARY": "${SUMMARY}!"}
            })),
            StatusCode::OK,
            Duration::from_secs(8),
        )
        .await;
        worst = worst.max(started.elapsed());
        answered(
            "a subscriber",
            from(
                server.client.get(server.url("/cal/work.ics")),
                "203.0.113.41",
            ),
            StatusCode::OK,
            Duration::from_secs(1),
        )
        .await;
    }
    let _ = stop_tx.send(true);
    while attacks.join_next().await.is_some() {}
    // Five sites keep the engine busy with 300 ms jobs: the editor, holding no engine job when
    // it asks, takes the slot kept for such sites and waits for none of them.
    assert!(
        worst < Duration::from_millis(1000),
        "the editor waited {worst:?}"
    );
    server.stop().await;
}

/// A feed of `events` events whose descriptions are `description_bytes` long.
fn feed_with_descriptions(events: usize, description_bytes: usize) -> Vec<u8> {
    let mut ics = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n");
    for n in 0..events {
        ics.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:{n}@t\r\nDTSTAMP:20260101T000000Z\r\n\
             DTSTART:20261201T090000Z\r\nSUMMARY:Event {n}\r\nDESCRIPTION:{}\r\nEND:VEVENT\r\n",
            "d".repeat(description_bytes)
        ));
    }
    ics.push_str("END:VCALENDAR\r\n");
    ics.into_bytes()
}

#[tokio::test]
async fn quotas_keep_room_for_newcomers_however_many_attackers_fill_their_shares() {
    let server = TestServer::start(|c| {
        // A client's share of each count is two (its /56 three, its /48 four), and of the
        // storage 128 KiB; an eighth of each is kept for clients holding none.
        c.sync.max_vaults = 16;
        c.sync.max_shares = 16;
        c.sync.max_vault_size = 64 * 1024;
        c.sync.max_sync_storage = 16 * 64 * 1024;
    })
    .await;
    // Every attacker makes vaults and shared decks until it is refused.
    let mut vaults_made = 0;
    for who in attackers() {
        for kind in ["vaults", "shares"] {
            for _ in 0..8 {
                let response = from(
                    server.client.post(server.url(&format!("/api/sync/{kind}"))),
                    &who,
                )
                .header(CONTENT_TYPE, OCTETS)
                .body(vec![3u8; 40 * 1024])
                .send()
                .await
                .expect("sent");
                if response.status() != StatusCode::CREATED {
                    assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE, "{who}");
                    break;
                }
                if kind == "vaults" {
                    vaults_made += 1;
                }
            }
        }
    }
    // Four IPv4 addresses take two vaults each, the /48's sixteen /64s (in one /56) three.
    assert!(vaults_made <= 4 * 2 + 3, "{vaults_made} vaults made");
    for who in one_48() {
        let response = from(server.client.post(server.url("/api/sync/vaults")), &who)
            .header(CONTENT_TYPE, OCTETS)
            .body(vec![3u8; 1024])
            .send()
            .await
            .expect("sent");
        assert_eq!(
            response.status(),
            StatusCode::INSUFFICIENT_STORAGE,
            "{who}: the /48 holds its share already"
        );
    }
    // A new learner starts a vault.
    make_vault(&server, "203.0.113.51", 40 * 1024).await;
    server.stop().await;

    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| c.calendars.max_calendars = 16).await;
    let publish = |id: String, who: &str| {
        from(server.client.post(server.url("/api/calendars")), who).json(
            &json!({"id": id, "name": "W", "url": upstream.url("/w.ics"),
                    "mapping": {"SUMMARY": "${SUMMARY}"}}),
        )
    };
    let earlier = answered(
        "an earlier publisher",
        publish("kept".into(), "203.0.113.50"),
        StatusCode::CREATED,
        Duration::from_secs(10),
    )
    .await;
    let earlier: serde_json::Value = earlier.json().await.expect("json");
    let mut published = 0;
    for (n, who) in attackers().iter().enumerate() {
        for m in 0..4 {
            let response = publish(format!("a{n}-{m}"), who)
                .send()
                .await
                .expect("sent");
            if response.status() != StatusCode::CREATED {
                assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE, "{who}");
                break;
            }
            published += 1;
        }
    }
    assert!(published <= 4 * 2 + 4, "{published} calendars published");
    answered(
        "a new publisher",
        publish("new".into(), "203.0.113.52"),
        StatusCode::CREATED,
        Duration::from_secs(10),
    )
    .await;
    answered(
        "the earlier publisher republishing",
        publish("kept".into(), "203.0.113.50")
            .bearer_auth(earlier["editToken"].as_str().expect("token")),
        StatusCode::OK,
        Duration::from_secs(10),
    )
    .await;
    server.stop().await;
}

#[tokio::test]
async fn keys_are_guessed_a_handful_of_times_however_many_addresses_guess() {
    let server = TestServer::start(|c| {
        c.edge.publish_key = Some("the-owners-key".into());
        c.edge.rate_limits.wrong_key = RateLimit {
            burst: 5,
            every: Duration::from_secs(12),
        };
    })
    .await;
    let guess = |who: &str, key: &str| {
        from(server.client.get(server.url("/api/owner")), who).header("x-publish-key", key)
    };
    let mut compared_by_48 = 0;
    for who in attackers() {
        let mut compared = 0;
        for n in 0..12 {
            let response = guess(&who, &format!("guess-{n}"))
                .send()
                .await
                .expect("sent");
            match response.status() {
                StatusCode::UNAUTHORIZED => compared += 1,
                StatusCode::TOO_MANY_REQUESTS => {}
                other => panic!("{who}: {other}"),
            }
        }
        if who.contains(':') {
            compared_by_48 += compared;
        } else {
            assert!(compared <= 5, "{who} had {compared} keys compared");
        }
        // The owner, from its own address, is answered all along.
        answered(
            "the owner",
            guess("203.0.113.60", "the-owners-key"),
            StatusCode::OK,
            Duration::from_secs(5),
        )
        .await;
    }
    assert!(
        compared_by_48 <= 10,
        "the /48 had {compared_by_48} keys compared"
    );
    server.stop().await;
}

/// A raw connection from the loopback address `from`.
async fn connect_from(from: IpAddr, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.bind(SocketAddr::new(from, 0)).expect("bind");
    socket.connect(to).await.expect("connect")
}

#[tokio::test]
async fn a_full_connection_table_lets_a_newcomer_in_while_four_addresses_hold_it() {
    let server = TestServer::start(|c| {
        c.edge.trust_loopback = false;
        c.edge.max_connections = 64;
        c.edge.max_connections_per_address = 24;
    })
    .await;
    let mut held = Vec::new();
    for last in 11..=14 {
        for _ in 0..24 {
            let mut stream =
                connect_from(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last)), server.addr).await;
            let _ = stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .await;
            held.push(stream);
        }
    }
    let bystander = reqwest::Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 20)))
        .timeout(Duration::from_secs(5))
        .build()
        .expect("client");
    for _ in 0..5 {
        let response = bystander
            .get(server.url("/api/site"))
            .send()
            .await
            .expect("a newcomer is served");
        assert_eq!(response.status(), StatusCode::OK);
    }
    drop(held);
    server.stop().await;
}

/// A preview naming ten sources of one host, each with a query string of its own.
fn ten_sources(base: &str, who: &str, n: usize) -> serde_json::Value {
    let sources: Vec<serde_json::Value> = (0..10)
        .map(|s| json!({"url": format!("{base}?who={who}&n={n}&s={s}")}))
        .collect();
    json!({"config": {"mapping": {}, "sources": sources}})
}

#[tokio::test]
async fn an_upstream_host_is_fetched_a_few_times_however_many_clients_ask_and_a_newcomer_still_gets_in(
) {
    let upstream = Upstream::start().await;
    // This test is about the budgets of fetches made upstream: the defaults, not common's.
    let server = TestServer::calendars(|c| {
        c.calendars.upstream = hearth::config::UpstreamLimits::default();
    })
    .await;
    let base = upstream.url("/reflect.ics");
    let started = Instant::now();
    let mut asked = 0;
    for round in 0..3 {
        for who in attackers() {
            let response = from(server.client.post(server.url("/api/preview")), &who)
                .json(&ten_sources(&base, &who, round))
                .send()
                .await
                .expect("answered");
            asked += 10;
            assert!(
                response.status() == StatusCode::OK
                    || response.status() == StatusCode::TOO_MANY_REQUESTS,
                "{who}: {}",
                response.status()
            );
            if response.status() == StatusCode::TOO_MANY_REQUESTS {
                assert!(response.headers().contains_key("retry-after"));
                let error = common::error_of(response).await;
                assert!(
                    error.contains("asked too often") || error.contains("too many feeds"),
                    "{error}"
                );
            }
        }
    }
    let elapsed = started.elapsed();
    let fetched = upstream.hits();
    // The host's allowance (10, one more every 10 s), and what the room kept for newcomers let
    // in: one per attacker (the /48 twice one client's). Without budgets, all 600 are fetched.
    let most = 10 + 6 + (elapsed.as_secs_f64() / 10.0).ceil() as usize;
    assert!(
        fetched <= most,
        "{fetched} of {asked} fetched in {elapsed:?} (at most {most})"
    );
    // A learner new to the host previews one feed of it: the room kept for newcomers lets it in
    // once the attackers have spent theirs.
    tokio::time::sleep(Duration::from_secs(20)).await;
    for round in 3..5 {
        for who in attackers() {
            let _ = from(server.client.post(server.url("/api/preview")), &who)
                .json(&ten_sources(&base, &who, round))
                .send()
                .await;
        }
    }
    answered(
        "a bystander's preview of the same host",
        from(
            server.client.post(server.url("/api/preview")),
            "203.0.113.50",
        )
        .json(&json!({
            "url": upstream.url("/bystander.ics"),
            "config": {"mapping": {}}
        })),
        StatusCode::OK,
        Duration::from_secs(10),
    )
    .await;
    server.stop().await;
}

#[tokio::test]
async fn the_owner_publishing_many_calendars_of_one_host_spends_no_visitors_allowance() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.calendars.upstream = hearth::config::UpstreamLimits::default();
        c.edge.publish_key = Some("owner-key".into());
    })
    .await;
    // Past the host's allowance (10) and the room kept for newcomers: every one is stored.
    for n in 0..15 {
        server
            .publish_feed(
                &format!("team-{n}"),
                &upstream.url(&format!("/team-{n}.ics")),
                Some("owner-key"),
            )
            .await;
    }
    assert_eq!(upstream.hits(), 15);
    server.stop().await;
}

#[tokio::test]
async fn attackers_holding_a_hosts_connections_with_slow_addresses_leave_a_bystander_its_fetch() {
    let upstream = Upstream::start().await;
    upstream.close_gate();
    let server = TestServer::calendars(|c| {
        // The allowances out of the way: this test is about the host's connections.
        c.calendars.upstream = hearth::config::UpstreamLimits {
            connections_per_host: 8,
            ..hearth::config::UpstreamLimits::unlimited()
        };
    })
    .await;
    // Four IPv4 addresses, one after the other, each read four slow addresses of the host at
    // once: they hold what they may of its eight connections (two each while others remain,
    // the last two kept for clients holding none, of which the fourth takes one).
    let mut attacks = tokio::task::JoinSet::new();
    for (who, held) in attackers().into_iter().take(4).zip([2, 4, 6, 7]) {
        for n in 0..4 {
            let feed = upstream.url(&format!("/slow.ics?who={who}&n={n}"));
            let request = from(server.client.get(editor_read(&server, &feed)), &who);
            attacks.spawn(async move { request.send().await.map(|r| r.status()) });
        }
        tokio::time::timeout(Duration::from_secs(5), upstream.until_waiting(held))
            .await
            .unwrap_or_else(|_| panic!("{who}'s reads reach the host"));
    }
    // A bystander's slow read takes the last connection; another bystander's quick read of the
    // same host is answered at once all the same, the heaviest attacker's oldest fetch stopped
    // for it.
    let slow = upstream.url("/slow.ics?who=bystander");
    let first = from(
        server.client.get(editor_read(&server, &slow)),
        "203.0.113.60",
    );
    let first = tokio::spawn(async move { first.send().await.map(|r| r.status()) });
    tokio::time::timeout(Duration::from_secs(5), upstream.until_waiting(8))
        .await
        .expect("the first bystander's read reaches the host");
    answered(
        "a bystander's read of the same host",
        from(
            server
                .client
                .get(editor_read(&server, &upstream.url("/fast/feed.ics"))),
            "203.0.113.61",
        ),
        StatusCode::OK,
        Duration::from_secs(5),
    )
    .await;
    upstream.open_gate();
    let mut statuses = Vec::new();
    while let Some(status) = attacks.join_next().await {
        statuses.push(status.expect("joins").expect("answered"));
    }
    // At least one attacker's fetch was stopped for the bystander. When the gate opens, an
    // attacker whose reads all finished holds none again, so its queued read may take a
    // connection as a newcomer and stop the oldest fetch of an attacker still finishing (the
    // rule at work among attackers; never a bystander's): under CPU load 2 to 6 of 16 were seen.
    let stopped = statuses
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert!(
        stopped >= 1,
        "an attacker's fetch was stopped: {statuses:?}"
    );
    assert_eq!(
        first.await.expect("joins").expect("answered"),
        StatusCode::OK,
        "the first bystander's slow read"
    );
    server.stop().await;
}

/// The editor's read of `feed`.
fn editor_read(server: &TestServer, feed: &str) -> reqwest::Url {
    reqwest::Url::parse_with_params(&server.url("/api/feed"), [("url", feed)]).expect("url")
}
