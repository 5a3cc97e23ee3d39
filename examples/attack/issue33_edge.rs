//! Issue 33's periphery, as noisy neighbours: K attackers (4 IPv4 clients, and 16 /64s of one
//! /48, named through the same-host proxy's X-Forwarded-For) do their worst against one
//! resource while three bystanders keep asking (a subscriber polling a hosted feed, an editor
//! rendering one field, a learner reading its vault), each from an address of its own. The
//! resources: memory of renders with history, feed storage through history, the metrics
//! listener's connections, and outbound fetches (a preview of ten sources, each with its own
//! query string).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::header;
use serde_json::{json, Value};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::http::{client, error_words, fetch, fetch_text, join_all, percentile, Answer, Tally};
use crate::{Ctx, Outcome, MB};

/// The four IPv4 attackers, as the proxy names them.
fn attacker_v4(n: usize) -> String {
    format!("198.51.100.{}", 10 + n)
}

/// The /64 number `n` of one /48.
fn attacker_v6(n: usize) -> String {
    format!("2001:db8:48:{:x}::1", n + 1)
}

/// One bystander's answers: what it got, and how long each took.
struct Seen {
    kind: &'static str,
    tally: Tally,
    times: Vec<Duration>,
}

impl Seen {
    fn new(kind: &'static str) -> Seen {
        Seen {
            kind,
            tally: Tally::default(),
            times: Vec::new(),
        }
    }

    fn add(&mut self, answer: &Answer) {
        self.tally.add(answer);
        self.times.push(answer.elapsed);
    }

    fn summary(&mut self) -> String {
        self.times.sort();
        format!(
            "{} {} p50 {:.0} ms worst {:.0} ms",
            self.kind,
            self.tally,
            percentile(&self.times, 50).as_secs_f64() * 1000.0,
            self.times.last().copied().unwrap_or_default().as_secs_f64() * 1000.0
        )
    }

    fn all_answered(&self) -> bool {
        self.tally.total() > 0 && self.tally.ok() == self.tally.total()
    }

    fn worst(&self) -> Duration {
        self.times.iter().copied().max().unwrap_or_default()
    }
}

/// A subscriber, an editor and a learner asking all along, each from an address of its own.
pub struct Bystanders {
    stop: Arc<AtomicBool>,
    tasks: JoinSet<Seen>,
}

impl Bystanders {
    /// Publishes the subscriber's calendar and makes the learner's vault, then starts asking.
    pub async fn start(ctx: &Ctx<'_>) -> Result<Bystanders, String> {
        let http = client(None, Duration::from_secs(30))?;
        let (made, text) = fetch_text(
            http.post(ctx.url("/api/calendars"))
                .header("X-Forwarded-For", "203.0.113.10")
                .json(&json!({
                    "id": "bystander", "name": "Bystander",
                    "url": ctx.upstream.url("/changing/bystander.ics"),
                    "mapping": {"SUMMARY": "${SUMMARY}"}
                })),
        )
        .await;
        if !made.is_ok() {
            return Err(format!(
                "the bystander's calendar: {} {}",
                made.key(),
                error_words(&text)
            ));
        }
        let token = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let (vault, text) = fetch_text(
            http.post(ctx.url("/api/sync/vaults"))
                .header("X-Forwarded-For", "203.0.113.13")
                .header(header::CONTENT_TYPE, "application/octet-stream")
                .bearer_auth(&token)
                .body(vec![7u8; 4096]),
        )
        .await;
        let vault_id = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| v.get("id")?.as_str().map(str::to_owned))
            .ok_or_else(|| format!("the learner's vault: {} {}", vault.key(), text))?;
        let stop = Arc::new(AtomicBool::new(false));
        let mut tasks = JoinSet::new();
        let every = |kind: &'static str,
                     pause: Duration,
                     request: Box<dyn Fn() -> reqwest::RequestBuilder + Send>| {
            let stop = stop.clone();
            async move {
                let mut seen = Seen::new(kind);
                while !stop.load(Ordering::SeqCst) {
                    let began = Instant::now();
                    let answer = fetch(request(), 1 << 26).await;
                    seen.add(&answer);
                    tokio::time::sleep_until(began + pause).await;
                }
                seen
            }
        };
        let (feed, render, read) = (
            ctx.url("/cal/bystander.ics"),
            ctx.url("/api/render"),
            ctx.url(&format!("/api/sync/vaults/{vault_id}")),
        );
        let h = http.clone();
        // Every second: a calendar app polls far less, and one a second is its allowance.
        tasks.spawn(every(
            "subscriber",
            Duration::from_secs(1),
            Box::new(move || h.get(&feed).header("X-Forwarded-For", "203.0.113.11")),
        ));
        let h = http.clone();
        tasks.spawn(every(
            "editor",
            Duration::from_secs(1),
            Box::new(move || {
                h.post(&render)
                    .header("X-Forwarded-For", "203.0.113.12")
                    .json(&json!({
                        "event": {"SUMMARY": "Team meeting", "DTSTART": "20261201T090000Z"},
                        "template": "${SUMMARY|re:s/Team/Crew/}"
                    }))
            }),
        ));
        let h = http.clone();
        tasks.spawn(every(
            "learner",
            Duration::from_secs(1),
            Box::new(move || h.get(&read).header("X-Forwarded-For", "203.0.113.13")),
        ));
        Ok(Bystanders { stop, tasks })
    }

    /// Stops them; (what each got, in words; every one answered; the subscriber's worst).
    pub async fn finish(self) -> (String, bool, Duration) {
        self.stop.store(true, Ordering::SeqCst);
        let mut seen = join_all(self.tasks).await;
        seen.sort_by_key(|s| s.kind);
        let answered = seen.len() == 3 && seen.iter().all(Seen::all_answered);
        let subscriber = seen
            .iter()
            .find(|s| s.kind == "subscriber")
            .map_or(Duration::MAX, Seen::worst);
        let words = seen
            .iter_mut()
            .map(Seen::summary)
            .collect::<Vec<_>>()
            .join("; ");
        (words, answered, subscriber)
    }
}

/// The bystanders' targets: every one answered, the subscriber within 1 s.
fn bystander_targets(answered: bool, subscriber: Duration) -> Vec<(String, bool)> {
    vec![
        ("bystanders answered".to_owned(), answered),
        (
            "subscriber <1 s".to_owned(),
            subscriber < Duration::from_secs(1),
        ),
    ]
}

/// Publishes a calendar keeping a year of history over `feed` (an upstream path) for `from`.
async fn publish_history(
    ctx: &Ctx<'_>,
    http: &reqwest::Client,
    from: &str,
    id: &str,
    feed: &str,
) -> Answer {
    let (answer, _) = fetch_text(
        http.post(ctx.url("/api/calendars"))
            .header("X-Forwarded-For", from)
            .json(&json!({
                "id": id, "name": id, "url": ctx.upstream.url(feed),
                "mapping": {"SUMMARY": "${SUMMARY}"},
                "history": {"keepDays": 366}
            })),
    )
    .await;
    answer
}

/// The server's peak RSS so far (VmHWM), in MB.
fn peak_mb(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Feed copies and kept events in the server's SQLite file: (copy bytes, kept bytes, kept).
fn feed_storage(data_dir: &std::path::Path, like: &str) -> Result<(u64, u64, u64), String> {
    let db = data_dir.join(hearth::store::DB_FILE);
    let conn =
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| format!("{}: {e}", db.display()))?;
    conn.query_row(
        "SELECT (SELECT coalesce(sum(length(body)), 0) FROM feed_copies WHERE url LIKE ?1),
                (SELECT coalesce(sum(length(component)), 0) FROM kept_events WHERE url LIKE ?1),
                (SELECT count(*) FROM kept_events WHERE url LIKE ?1)",
        [like],
        |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        },
    )
    .map(|(c, k, n)| (c.max(0) as u64, k.max(0) as u64, n.max(0) as u64))
    .map_err(|e| format!("reading the feed storage: {e}"))
}

/// Polls every calendar once (a subscriber's GET, which starts a refresh of an old copy) and
/// reads the answers whole; the largest answer's bytes.
async fn poll_all(ctx: &Ctx<'_>, http: &reqwest::Client, ids: &[String]) -> (Tally, u64) {
    let mut set = JoinSet::new();
    for (n, id) in ids.iter().enumerate() {
        let request = http
            .get(ctx.url(&format!("/cal/{id}.ics")))
            .header("X-Forwarded-For", format!("192.0.2.{}", 100 + n));
        set.spawn(fetch(request, 1 << 30));
    }
    let mut tally = Tally::default();
    let mut largest = 0;
    for answer in join_all(set).await {
        largest = largest.max(answer.bytes);
        tally.add(&answer);
    }
    (tally, largest)
}

/// Memory of renders with history (issue 33): four clients each publish a calendar keeping a
/// year of history over a source whose ~900 events of ~8 KB are dropped after they ended at
/// every fetch (server --feed-ttl 2s); three fetches later each calendar keeps ~2,700 past
/// events and renders a feed of about 23 MB. Then they are polled, all at once, for 20 s.
pub async fn history_render(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const CLIENTS: usize = 4;
    const GENERATIONS: u64 = 3;
    let events = ctx.settings.scaled(900);
    let http = client(None, Duration::from_secs(120))?;
    let bystanders = Bystanders::start(ctx).await?;
    let mut ids = Vec::new();
    let mut published = Tally::default();
    for n in 0..CLIENTS {
        let id = format!("history-{n}");
        let feed = format!("/dropping/{events}/8000/h{n}.ics");
        let answer = publish_history(ctx, &http, &attacker_v4(n), &id, &feed).await;
        published.add(&answer);
        if answer.is_ok() {
            ids.push(id);
        }
    }
    if ids.is_empty() {
        let _ = bystanders.finish().await;
        return Err(format!("no calendar was published: {published}"));
    }
    // Each change drops the last generation after it ended; a poll past the TTL refreshes.
    let mut polls = Tally::default();
    for _ in 0..GENERATIONS {
        ctx.upstream.change();
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let (tally, _) = poll_all(ctx, &http, &ids).await;
        polls.merge(tally);
        // The refresh and the past events it keeps, before the next change.
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    let (copies, kept_bytes, kept) = feed_storage(&ctx.data_dir, "%")?;
    let peak_keeping = peak_mb(ctx.pid);
    let run_for = ctx.secs(20.0, 6.0);
    let until = Instant::now() + run_for;
    let mut largest = 0;
    let mut rounds = 0;
    while Instant::now() < until {
        let (tally, biggest) = poll_all(ctx, &http, &ids).await;
        polls.merge(tally);
        largest = largest.max(biggest);
        rounds += 1;
    }
    let (words, answered, subscriber) = bystanders.finish().await;
    let mut targets = bystander_targets(answered, subscriber);
    targets.push(("feeds served".to_owned(), polls.ok() == polls.total()));
    Ok(Outcome {
        outcome: format!(
            "{CLIENTS} clients x 1 calendar, history 366 days: publish {published}; {rounds} \
             rounds of polls: {polls}; largest feed {:.1} MB",
            largest as f64 / MB
        ),
        legit: words,
        details: format!(
            "stored after {GENERATIONS} fetches: copies {:.1} MB, {kept} kept events {:.1} MB; \
             source {events} events of ~8 KB per fetch, --feed-ttl 2s; peak RSS while keeping \
             {peak_keeping:.1} MB, while rendering and serving {:.1} MB",
            copies as f64 / MB,
            kept_bytes as f64 / MB,
            peak_mb(ctx.pid)
        ),
        targets,
    })
}

/// Feed storage through history (issue 33): one anonymous address publishes 4 calendars keeping
/// 366 days over a source that drops its 1,000 ended events at every fetch (--feed-ttl 2s,
/// --max-feed-storage 48MiB), refreshed 8 times; then another address publishes.
pub async fn history_storage(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const STORAGE: u64 = 48 * 1024 * 1024;
    const ATTACKER_FEEDS: &str = "%/dropping/1000/1500/k%";
    const CALENDARS: usize = 4;
    let rounds = ctx.settings.scaled(8).max(2);
    let http = client(None, Duration::from_secs(120))?;
    let bystanders = Bystanders::start(ctx).await?;
    let attacker = attacker_v4(0);
    let mut ids = Vec::new();
    let mut published = Tally::default();
    for n in 0..CALENDARS {
        let id = format!("keeps-{n}");
        let feed = format!("/dropping/1000/1500/k{n}.ics");
        let answer = publish_history(ctx, &http, &attacker, &id, &feed).await;
        published.add(&answer);
        if answer.is_ok() {
            ids.push(id);
        }
    }
    let mut polls = Tally::default();
    let mut most = 0;
    for _ in 0..rounds {
        ctx.upstream.change();
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let (tally, _) = poll_all(ctx, &http, &ids).await;
        polls.merge(tally);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        // The attacker's addresses only: the bystanders' subscriber has a calendar too.
        let (copies, kept, _) = feed_storage(&ctx.data_dir, ATTACKER_FEEDS)?;
        most = most.max(copies + kept);
    }
    let (copies, kept_bytes, kept) = feed_storage(&ctx.data_dir, ATTACKER_FEEDS)?;
    let other = publish_history(
        ctx,
        &http,
        "192.0.2.77",
        "other",
        "/dropping/1000/1500/other.ics",
    )
    .await;
    let (words, answered, subscriber) = bystanders.finish().await;
    let share = STORAGE / 8;
    let mut targets = bystander_targets(answered, subscriber);
    targets.push(("within its eighth".to_owned(), most <= share));
    targets.push(("within the quota".to_owned(), most <= STORAGE));
    targets.push(("another publish 201".to_owned(), other.status == Some(201)));
    Ok(Outcome {
        outcome: format!(
            "1 address, {CALENDARS} calendars keeping 366 days: publish {published}; {rounds} \
             refreshes, polls {polls}; another address's publish: {}",
            other.key()
        ),
        legit: words,
        details: format!(
            "--max-feed-storage 48MiB (an address's eighth: {:.1} MB); most stored at once \
             {:.1} MB; after: copies {:.1} MB, {kept} kept events {:.1} MB",
            share as f64 / MB,
            most as f64 / MB,
            copies as f64 / MB,
            kept_bytes as f64 / MB
        ),
        targets,
    })
}

/// The metrics listener (issue 33): 4 clients (127.0.33.1-4) open 1,050 idle connections each
/// to it (server --metrics-listen, 4,096 files); meanwhile the public site must answer, and a
/// scrape from a fifth address too.
pub async fn metrics_conns(ctx: &Ctx<'_>, metrics: SocketAddr) -> Result<Outcome, String> {
    const CLIENTS: u8 = 4;
    let per_client = ctx.settings.scaled(1050);
    let bystanders = Bystanders::start(ctx).await?;
    let opened = Arc::new(AtomicUsize::new(0));
    let mut held = Vec::new();
    let began = Instant::now();
    for c in 1..=CLIENTS {
        for _ in 0..per_client {
            let socket = tokio::net::TcpSocket::new_v4().map_err(|e| format!("socket: {e}"))?;
            if socket.bind(SocketAddr::from(([127, 0, 33, c], 0))).is_err() {
                continue;
            }
            if let Ok(Ok(stream)) =
                tokio::time::timeout(Duration::from_secs(1), socket.connect(metrics)).await
            {
                opened.fetch_add(1, Ordering::SeqCst);
                held.push(stream);
            }
        }
    }
    let connect_time = began.elapsed();
    let scraper = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .local_address(std::net::IpAddr::from([127, 0, 33, 9]))
        .build()
        .map_err(|e| format!("scraper: {e}"))?;
    let scrape = fetch(scraper.get(format!("http://{metrics}/metrics")), 1 << 24).await;
    let still_open = |held: &[tokio::net::TcpStream]| {
        held.iter()
            .filter(|s| {
                let mut byte = [std::mem::MaybeUninit::<u8>::uninit(); 1];
                matches!(
                    socket2::SockRef::from(*s).peek(&mut byte),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
                )
            })
            .count()
    };
    let open_now = still_open(&held);
    // The edge's header deadline (10 s) closes the rest.
    tokio::time::sleep(Duration::from_secs(12)).await;
    let open_later = still_open(&held);
    drop(held);
    let (words, answered, subscriber) = bystanders.finish().await;
    let mut targets = bystander_targets(answered, subscriber);
    targets.push(("scrape 200".to_owned(), scrape.is_ok()));
    targets.push(("<=16 held".to_owned(), open_now <= 16));
    targets.push(("all cut by 12 s".to_owned(), open_later == 0));
    Ok(Outcome {
        outcome: format!(
            "{CLIENTS} clients x {per_client} idle connections to the metrics listener: {} \
             accepted by the kernel in {:.1} s; open after the scrape: {open_now}; after 12 s: \
             {open_later}",
            opened.load(Ordering::SeqCst),
            connect_time.as_secs_f64()
        ),
        legit: format!("{words}; a scrape from 127.0.33.9: {}", scrape.key()),
        details: "server under ulimit -n 4096, --metrics-listen on 127.0.0.1".to_owned(),
        targets,
    })
}

/// Upstream fetches a preview causes (issue 33): each attacker sends `POST /api/preview` with
/// 10 sources on one upstream host, each with its own query string (a slow upstream: 2 s per
/// answer), as fast as it is answered, for 60 s; how many upstream fetches that made, and the
/// most upstream connections held at once.
pub async fn reflector(ctx: &Ctx<'_>, v6: bool) -> Result<Outcome, String> {
    let clients = if v6 { 16 } else { 4 };
    let run_for = ctx.secs(60.0, 15.0);
    let http = client(None, Duration::from_secs(60))?;
    let bystanders = Bystanders::start(ctx).await?;
    let hits_before = ctx.upstream.hits();
    let _ = ctx.upstream.take_max_in_flight();
    let until = Instant::now() + run_for;
    let counter = Arc::new(AtomicUsize::new(0));
    let mut set = JoinSet::new();
    for c in 0..clients {
        let from = if v6 { attacker_v6(c) } else { attacker_v4(c) };
        // Four requests at a time per client, as a browser's tabs would.
        for lane in 0..4 {
            let (http, url, from, counter) = (
                http.clone(),
                ctx.url("/api/preview"),
                from.clone(),
                counter.clone(),
            );
            let base = ctx.upstream.url("/delay/2000/reflect.ics");
            set.spawn(async move {
                let mut tally = Tally::default();
                while Instant::now() < until {
                    let n = counter.fetch_add(1, Ordering::SeqCst);
                    let sources: Vec<Value> = (0..10)
                        .map(|s| json!({"url": format!("{base}?c={c}&l={lane}&n={n}&s={s}")}))
                        .collect();
                    let body = json!({"config": {"mapping": {}, "sources": sources}});
                    let (answer, text) =
                        fetch_text(http.post(&url).header("X-Forwarded-For", &from).json(&body))
                            .await;
                    let key = match answer.status {
                        Some(429) if error_words(&text).contains("asked too often") => {
                            "429 host".to_owned()
                        }
                        _ => answer.key(),
                    };
                    tally.count(key);
                    if answer.status == Some(429) {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                }
                tally
            });
        }
    }
    let mut tally = Tally::default();
    for t in join_all(set).await {
        tally.merge(t);
    }
    let fetches = ctx.upstream.hits() - hits_before;
    let held = ctx.upstream.take_max_in_flight();
    let per_minute = fetches as f64 * 60.0 / run_for.as_secs_f64();
    let (words, answered, subscriber) = bystanders.finish().await;
    let mut targets = bystander_targets(answered, subscriber);
    targets.push(("<=60 fetches/min".to_owned(), per_minute <= 60.0));
    targets.push(("<=8 held".to_owned(), held <= 8));
    Ok(Outcome {
        outcome: format!(
            "{clients} {} x 4 lanes, previews of 10 sources with their own query strings for \
             {:.0} s: {tally}",
            if v6 {
                "/64s of one /48"
            } else {
                "IPv4 clients"
            },
            run_for.as_secs_f64()
        ),
        legit: words,
        details: format!(
            "upstream fetches {fetches} ({per_minute:.0} a minute), most upstream connections at \
             once {held}; the upstream answers in 2 s"
        ),
        targets,
    })
}
