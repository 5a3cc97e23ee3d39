//! The attacks of issues 11 (memory and engine: regex bombs, amplification, caches, slots, a slow
//! upstream) and 12 (slowloris, a publish flood).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinSet;

use crate::http::{
    client, encode_query, fetch, join_all, loopback, percentile, pool, probe_client, probe_once,
    Tally,
};
use crate::upstream::FeedKind;
use crate::{Ctx, Outcome, FIELDS, MB, PUBLISH_KEY, REGEX_TOKEN};

/// Issue 11: five 4 KiB templates of regex tokens, 4 requests at a time for 8 s, through
/// `/api/render` or through publishing (distinct ids, a feed that works).
pub async fn regex_bomb(ctx: &Ctx<'_>, publish: bool) -> Result<Outcome, String> {
    const CONCURRENCY: usize = 4;
    const DURATION: Duration = Duration::from_secs(8);
    let tokens = ctx.settings.scaled(195);
    let template = REGEX_TOKEN.repeat(tokens);
    let mapping: serde_json::Map<String, Value> = FIELDS
        .iter()
        .map(|f| ((*f).to_owned(), Value::String(template.clone())))
        .collect();
    let client = client(None, Duration::from_secs(10))?;
    let url = ctx.url(if publish {
        "/api/calendars"
    } else {
        "/api/render"
    });
    let feed = ctx.upstream.url("/x/bomb.ics");
    let text = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor \
                incididunt ut labore et dolore magna aliqua ut enim ad minim veniam quis nostrud";
    let event = json!({
        "A": text, "SUMMARY": text, "DESCRIPTION": text, "LOCATION": text,
        "DTSTART": "20261201T090000Z", "DTEND": "20261201T100000Z"
    });
    let run = pool(
        usize::MAX,
        CONCURRENCY,
        Instant::now() + DURATION,
        move |i| {
            let body = if publish {
                json!({"id": format!("bomb-{i}"), "name": "Bomb", "url": feed, "mapping": mapping})
            } else {
                json!({"event": event, "mapping": mapping})
            };
            fetch(client.post(&url).json(&body), 1 << 20)
        },
    )
    .await;
    Ok(Outcome {
        outcome: format!(
            "{} {} in {:.1} s: {}",
            run.sent,
            if publish { "publishes" } else { "renders" },
            run.elapsed.as_secs_f64(),
            run.tally
        ),
        legit: "-".to_owned(),
        details: format!(
            "{} tokens of {REGEX_TOKEN} x 5 fields ({} B each), {CONCURRENCY} at a time; slowest {:.1} s",
            tokens * 5,
            template.len(),
            run.slowest.as_secs_f64()
        ),
        targets: Vec::new(),
    })
}

/// Issue 11: `${DESCRIPTION}` 292 times in three fields over a ~1.1 MB feed, then one GET.
pub async fn amplify(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    let events = ctx.upstream.events_for_bytes(1_100_000);
    let upstream_bytes = ctx.upstream.feed(FeedKind::Generated, events).len();
    let repeat = ctx.settings.scaled(292);
    let template = "${DESCRIPTION}".repeat(repeat);
    let publisher = client(None, Duration::from_secs(30))?;
    let published = fetch(
        publisher.post(ctx.url("/api/calendars")).json(&json!({
            "id": "amp", "name": "Amplified",
            "url": ctx.upstream.url(&format!("/feed/{events}.ics")),
            "mapping": {"SUMMARY": template, "DESCRIPTION": template, "LOCATION": template}
        })),
        1 << 20,
    )
    .await;
    let subscriber = client(None, Duration::from_secs(60))?;
    let got = fetch(subscriber.get(ctx.url("/cal/amp.ics")), 4 << 30).await;
    Ok(Outcome {
        outcome: format!(
            "publish {}, GET /cal {} in {:.1} s",
            published.key(),
            got.key(),
            got.elapsed.as_secs_f64()
        ),
        legit: "-".to_owned(),
        details: format!(
            "answer {} {:.1} MB = {:.0}x the {:.2} MB upstream ({events} events; template {} B x 3 fields)",
            got.key(),
            got.bytes as f64 / MB,
            got.bytes as f64 / upstream_bytes as f64,
            upstream_bytes as f64 / MB,
            template.len()
        ),
        targets: Vec::new(),
    })
}

/// Issue 11: 40 calendars over distinct 3 MB feeds, each fetched once by a subscriber. Each
/// calendar is published from its own address and with the owner's key, so neither a
/// per-address publish limit nor the budgets of fetches of one upstream host hide what the
/// caches keep.
pub async fn cache_growth(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    let calendars = ctx.settings.scaled(40);
    let events = ctx.upstream.events_for_bytes(3_000_000);
    let feed_bytes = ctx.upstream.feed(FeedKind::Generated, events).len();
    let began = Instant::now();
    let mut published = Tally::default();
    for i in 0..calendars {
        if began.elapsed() > Duration::from_secs(45) {
            break;
        }
        let publisher = client(Some(loopback(1, i)), Duration::from_secs(30))?;
        let answer = fetch(
            publisher
                .post(ctx.url("/api/calendars"))
                .header("x-publish-key", PUBLISH_KEY)
                .json(&json!({
                    "id": format!("c{i}"), "name": format!("Calendar {i}"),
                    "url": ctx.upstream.url(&format!("/feed/{events}/v{i}.ics")),
                    "mapping": {"SUMMARY": "${SUMMARY} @ ${LOCATION}"}
                })),
            1 << 20,
        )
        .await;
        published.add(&answer);
    }
    let subscribers: Vec<reqwest::Client> = (0..calendars)
        .map(|i| client(Some(loopback(2, i)), Duration::from_secs(30)))
        .collect::<Result<_, _>>()?;
    let subscribers = Arc::new(subscribers);
    let base = ctx.url("/cal/");
    let run = pool(
        calendars,
        4,
        Instant::now() + Duration::from_secs(60),
        move |i| {
            let subscribers = subscribers.clone();
            let url = format!("{base}c{i}.ics");
            async move { fetch(subscribers[i].get(url), 1 << 30).await }
        },
    )
    .await;
    Ok(Outcome {
        outcome: format!(
            "published {}/{calendars} ({published}), fetched {} in {:.1} s: {}",
            published.ok(),
            run.sent,
            began.elapsed().as_secs_f64(),
            run.tally
        ),
        legit: "-".to_owned(),
        details: format!(
            "feeds {:.2} MB ({events} events) each; {:.0} MB served",
            feed_bytes as f64 / MB,
            run.bytes as f64 / MB
        ),
        targets: Vec::new(),
    })
}

/// Issue 11: 200 subscribers at once (each from its own address) on a published, never
/// rendered 200k-event calendar.
pub async fn cold_calendar(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const WAIT: Duration = Duration::from_secs(15);
    let events = ctx.settings.scaled(200_000);
    let feed_bytes = ctx.upstream.feed(FeedKind::Compact, events).len();
    let publisher = client(Some(loopback(1, 0)), Duration::from_secs(120))?;
    let published = fetch(
        publisher.post(ctx.url("/api/calendars")).json(&json!({
            "id": "cold", "name": "Cold",
            "url": ctx.upstream.url(&format!("/compact/{events}.ics")),
            "mapping": {"SUMMARY": "${SUMMARY} @ ${LOCATION}"}
        })),
        1 << 20,
    )
    .await;
    let n = ctx.settings.scaled(200);
    let subscribers: Vec<reqwest::Client> = (0..n)
        .map(|i| client(Some(loopback(2, i)), WAIT))
        .collect::<Result<_, _>>()?;
    let began = Instant::now();
    let mut set = JoinSet::new();
    let url = ctx.url("/cal/cold.ics");
    for subscriber in subscribers {
        let url = url.clone();
        set.spawn(async move { fetch(subscriber.get(url), 1 << 30).await });
    }
    let answers = join_all(set).await;
    let mut tally = Tally::default();
    let mut last_ok = Duration::ZERO;
    for a in &answers {
        tally.add(a);
        if a.is_ok() {
            last_ok = last_ok.max(a.elapsed);
        }
    }
    Ok(Outcome {
        outcome: format!(
            "{} of {n} answered in {:.0} s: {tally}",
            tally.ok(),
            WAIT.as_secs_f64()
        ),
        legit: "-".to_owned(),
        details: format!(
            "publish {} in {:.1} s; feed {:.1} MB ({events} events); last answer at {:.1} s; all done {:.1} s",
            published.key(),
            published.elapsed.as_secs_f64(),
            feed_bytes as f64 / MB,
            last_ok.as_secs_f64(),
            began.elapsed().as_secs_f64()
        ),
        targets: Vec::new(),
    })
}

/// Issue 11: 20,000 `/api/feed?url=` requests for distinct upstream addresses, 32 at a time.
pub async fn slot_growth(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    let n = ctx.settings.scaled(20_000);
    let client = client(None, Duration::from_secs(10))?;
    let hits = ctx.upstream.hits();
    let base = ctx.url("/api/feed?url=");
    let feed_base = format!("http://{}/x/", ctx.upstream.addr);
    let run = pool(n, 32, Instant::now() + Duration::from_secs(40), move |i| {
        let feed = format!("{feed_base}{i}.ics");
        let url = format!("{base}{}", encode_query(&feed));
        fetch(client.get(url), 1 << 20)
    })
    .await;
    Ok(Outcome {
        outcome: format!(
            "{}/{n} in {:.1} s ({:.0}/s): {}",
            run.sent,
            run.elapsed.as_secs_f64(),
            run.sent as f64 / run.elapsed.as_secs_f64().max(0.001),
            run.tally
        ),
        legit: "-".to_owned(),
        details: format!(
            "distinct URLs, 32 at a time; upstream hits {}",
            ctx.upstream.hits() - hits
        ),
        targets: Vec::new(),
    })
}

/// Issue 11: a calendar whose upstream turns slow (10 s) once its copy is past the TTL (2 s);
/// 50 subscribers at once, each from its own address.
pub async fn slow_upstream(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const WAIT: Duration = Duration::from_secs(35);
    let publisher = client(Some(loopback(1, 0)), Duration::from_secs(30))?;
    let published = fetch(
        publisher.post(ctx.url("/api/calendars")).json(&json!({
            "id": "slow", "name": "Slow",
            "url": ctx.upstream.url("/switch/slow.ics"),
            "mapping": {"SUMMARY": "${SUMMARY} @ ${LOCATION}"}
        })),
        1 << 20,
    )
    .await;
    let warm = fetch(publisher.get(ctx.url("/cal/slow.ics")), 1 << 30).await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    ctx.upstream.set_switch_delay(Duration::from_secs(10));
    let n = ctx.settings.scaled(50);
    let subscribers: Vec<reqwest::Client> = (0..n)
        .map(|i| client(Some(loopback(2, i)), WAIT))
        .collect::<Result<_, _>>()?;
    let hits = ctx.upstream.hits();
    let mut set = JoinSet::new();
    let url = ctx.url("/cal/slow.ics");
    for subscriber in subscribers {
        let url = url.clone();
        set.spawn(async move { fetch(subscriber.get(url), 1 << 30).await });
    }
    let answers = join_all(set).await;
    ctx.upstream.set_switch_delay(Duration::ZERO);
    let mut tally = Tally::default();
    let mut latencies: Vec<Duration> = Vec::new();
    let mut stale = 0;
    for a in &answers {
        tally.add(a);
        latencies.push(a.elapsed);
        stale += usize::from(a.stale);
    }
    latencies.sort();
    Ok(Outcome {
        outcome: format!(
            "{n} subscribers: {tally}; p50 {:.2} s, p99 {:.2} s",
            percentile(&latencies, 50).as_secs_f64(),
            percentile(&latencies, 99).as_secs_f64()
        ),
        legit: "-".to_owned(),
        details: format!(
            "publish {}, warm GET {}; {stale} marked X-Hearth-Stale; upstream hits during: {}; max {:.2} s",
            published.key(),
            warm.key(),
            ctx.upstream.hits() - hits,
            latencies.last().copied().unwrap_or_default().as_secs_f64()
        ),
        targets: Vec::new(),
    })
}

/// Issue 12: 1,500 connections from 127.0.0.1 that send half a request (and a header line every
/// 5 s), held for 40 s while 20 probes come from 127.0.0.2; the server runs under `ulimit -n 1024`.
pub async fn slowloris(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const PROBES: u32 = 20;
    const TRICKLE_EVERY: Duration = Duration::from_secs(5);
    let n = ctx.settings.scaled(1500);
    let hold = Duration::from_secs_f64((40.0 * ctx.settings.scale).clamp(5.0, 40.0));
    let addr = ctx.addr;
    let began = Instant::now();

    let mut set = JoinSet::new();
    for _ in 0..n {
        set.spawn(half_request(addr));
    }
    let mut streams: Vec<Option<TcpStream>> = join_all(set).await;
    let connected = streams.iter().filter(|s| s.is_some()).count();
    let connect_time = began.elapsed();

    let interval = hold / PROBES;
    let prober = probe_client(interval.min(Duration::from_secs(2)))?;
    let probe_url = ctx.url("/healthz");
    let mut probes_ok = 0;
    let mut last_trickle = Instant::now();
    let hold_from = Instant::now();
    for k in 0..PROBES {
        let tick = hold_from + interval * k;
        tokio::time::sleep_until(tick.into()).await;
        if probe_once(&prober, &probe_url).await {
            probes_ok += 1;
        }
        if last_trickle.elapsed() >= TRICKLE_EVERY {
            last_trickle = Instant::now();
            for slot in streams.iter_mut() {
                if let Some(stream) = slot {
                    match stream.try_write(b"X-Slow: 1\r\n") {
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                        Err(_) => *slot = None,
                    }
                }
            }
        }
    }
    tokio::time::sleep_until((hold_from + hold).into()).await;

    let mut set = JoinSet::new();
    for stream in streams.into_iter().flatten() {
        set.spawn(async move { still_open(&stream).await });
    }
    let open = join_all(set).await.into_iter().filter(|o| *o).count();
    let open_share = open as f64 / n as f64;
    Ok(Outcome {
        outcome: format!(
            "{connected}/{n} connected in {:.1} s, held {:.0} s",
            connect_time.as_secs_f64(),
            hold.as_secs_f64()
        ),
        legit: "-".to_owned(),
        details: format!(
            "probes ok {probes_ok}/{PROBES}; attacker connections open after {:.0} s: {open}/{n} ({:.0}%)",
            hold.as_secs_f64(),
            open_share * 100.0
        ),
        targets: vec![
            ("all probes ok".to_owned(), probes_ok == PROBES),
            ("open<10%".to_owned(), open_share < 0.10),
        ],
    })
}

/// Issue 12: 300 publishes of distinct ids (each over its own upstream URL) from one address,
/// 8 at a time; then another visitor publishes one. Since issue 22 a visitor holds at most an
/// eighth of `--max-calendars` (12 of the default 100), and a publish refused at admission
/// (the rate allowance, the share) fetches nothing.
pub async fn publish_flood(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    /// An eighth of the default `--max-calendars` (100).
    const SHARE: usize = 12;
    let n = ctx.settings.scaled(300);
    let attacker = client(None, Duration::from_secs(10))?;
    let hits = ctx.upstream.hits();
    let url = ctx.url("/api/calendars");
    let feed_base = format!("http://{}/x/flood-", ctx.upstream.addr);
    let run = pool(n, 8, Instant::now() + Duration::from_secs(60), {
        let url = url.clone();
        move |i| {
            let body = json!({
                "id": format!("flood-{i}"), "name": format!("Flood {i}"),
                "url": format!("{feed_base}{i}.ics"),
                "mapping": {"SUMMARY": "${SUMMARY}"}
            });
            fetch(attacker.post(&url).json(&body), 1 << 20)
        }
    })
    .await;
    let fetched = ctx.upstream.hits() - hits;
    let visitor = client(
        Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3))),
        Duration::from_secs(10),
    )?;
    let other = fetch(
        visitor.post(&url).json(&json!({
            "id": "neighbour", "name": "Neighbour",
            "url": ctx.upstream.url("/x/neighbour.ics"),
            "mapping": {"SUMMARY": "${SUMMARY}"}
        })),
        1 << 20,
    )
    .await;
    let accepted = run.tally.ok();
    Ok(Outcome {
        outcome: format!(
            "accepted {accepted}/{n} in {:.1} s: {}",
            run.elapsed.as_secs_f64(),
            run.tally
        ),
        legit: format!(
            "another visitor (127.0.0.3) publishes: {} in {:.2} s",
            other.key(),
            other.elapsed.as_secs_f64()
        ),
        details: format!("8 at a time from one address; upstream hits {fetched}"),
        targets: vec![
            (format!("accepted<={SHARE}"), accepted <= SHARE),
            ("no fetch when refused".to_owned(), fetched <= accepted),
            ("other visitor served".to_owned(), other.is_ok()),
        ],
    })
}

/// One slowloris connection: connected from 127.0.0.1, half a request sent. None when it could
/// not connect (the server's queue is full) or was closed at once.
pub async fn half_request(addr: SocketAddr) -> Option<TcpStream> {
    let socket = TcpSocket::new_v4().ok()?;
    socket
        .bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0))
        .ok()?;
    let stream = tokio::time::timeout(Duration::from_secs(3), socket.connect(addr))
        .await
        .ok()?
        .ok()?;
    tokio::time::timeout(Duration::from_secs(1), stream.writable())
        .await
        .ok()?
        .ok()?;
    stream
        .try_write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slowloris\r\n")
        .ok()?;
    Some(stream)
}

/// Whether the server still holds a connection: it did not close it (EOF or reset). An answer
/// (such as a 408) followed by a close counts as closed.
pub async fn still_open(stream: &TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    for _ in 0..64 {
        match tokio::time::timeout(Duration::from_millis(200), stream.readable()).await {
            Err(_) => return true,
            Ok(Err(_)) => return false,
            Ok(Ok(())) => match stream.try_read(&mut buf) {
                Ok(0) => return false,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => return false,
            },
        }
    }
    true
}
