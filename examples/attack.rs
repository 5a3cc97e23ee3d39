//! The attack benchmark of `make bench` (issues 11 and 12): starts the release binary once per
//! attack, attacks it from 127.0.0.1 while probing `/healthz` from 127.0.0.2, and prints a table.
//!
//! Run through `bench/attack.sh`. Environment: `HEARTH_BIN` (the server binary),
//! `ATTACKS=regex,amplify,cache,slots,slow,slowloris,flood` (a subset), `SCALE=0.1` (smaller
//! counts while developing), `RSS_CAP_MB` (the server is killed above it; default 6144).

#[path = "../crates/engine/benches/feedgen/mod.rs"]
mod feedgen;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::future::Future;
use std::io::{BufRead, BufReader};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, Uri};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::{json, Value};
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinSet;

/// /healthz is probed this often, each time on a fresh connection (a kept-alive one would hide
/// a server that no longer accepts).
const PROBE_EVERY: Duration = Duration::from_millis(50);
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
const RSS_EVERY: Duration = Duration::from_millis(10);
/// How long after an attack "RSS after" is taken: time for caches and buffers to be given back.
const SETTLE: Duration = Duration::from_secs(3);
/// One regex token of issue 11: 21 bytes, so 195 of them fill a 4 KiB template.
const REGEX_TOKEN: &str = r"${A|re:s/\w{20\}/x/g}";
const FIELDS: [&str; 5] = ["SUMMARY", "DESCRIPTION", "LOCATION", "DTSTART", "DTEND"];
const MB: f64 = 1024.0 * 1024.0;
/// The issue 11 memory target for every attack.
const TARGET_PEAK_MB: f64 = 128.0;
const TARGET_HEALTHZ_MS: u128 = 100;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    RegexRender,
    RegexPublish,
    Amplify,
    Cache,
    Cold,
    Slots,
    Slow,
    Slowloris,
    Flood,
}

struct AttackDef {
    kind: Kind,
    name: &'static str,
    /// The name ATTACKS selects it by, besides its own.
    group: &'static str,
    issue: u8,
}

const ATTACKS: &[AttackDef] = &[
    AttackDef {
        kind: Kind::RegexRender,
        name: "regex-render",
        group: "regex",
        issue: 11,
    },
    AttackDef {
        kind: Kind::RegexPublish,
        name: "regex-publish",
        group: "regex",
        issue: 11,
    },
    AttackDef {
        kind: Kind::Amplify,
        name: "amplify",
        group: "amplify",
        issue: 11,
    },
    AttackDef {
        kind: Kind::Cache,
        name: "cache-40x3MB",
        group: "cache",
        issue: 11,
    },
    AttackDef {
        kind: Kind::Cold,
        name: "cold-200k",
        group: "cache",
        issue: 11,
    },
    AttackDef {
        kind: Kind::Slots,
        name: "slots",
        group: "slots",
        issue: 11,
    },
    AttackDef {
        kind: Kind::Slow,
        name: "slow-upstream",
        group: "slow",
        issue: 11,
    },
    AttackDef {
        kind: Kind::Slowloris,
        name: "slowloris",
        group: "slowloris",
        issue: 12,
    },
    AttackDef {
        kind: Kind::Flood,
        name: "publish-flood",
        group: "flood",
        issue: 12,
    },
];

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("attack: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Settings {
    bin: PathBuf,
    scale: f64,
    rss_cap_kb: u64,
    selected: Vec<String>,
}

impl Settings {
    fn from_env() -> Result<Settings, String> {
        let bin = PathBuf::from(
            std::env::var("HEARTH_BIN").unwrap_or_else(|_| "target/release/hearth".into()),
        );
        let scale = match std::env::var("SCALE") {
            Ok(s) => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| *v > 0.0 && *v <= 4.0)
                .ok_or_else(|| format!("SCALE={s}: expected a number in (0, 4]"))?,
            Err(_) => 1.0,
        };
        let rss_cap_mb = match std::env::var("RSS_CAP_MB") {
            Ok(s) => s
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|v| *v >= 64)
                .ok_or_else(|| format!("RSS_CAP_MB={s}: expected megabytes, at least 64"))?,
            Err(_) => 6144,
        };
        let selected: Vec<String> = std::env::var("ATTACKS")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        for name in &selected {
            if !ATTACKS.iter().any(|a| a.name == name || a.group == name) {
                let mut names: Vec<&str> = ATTACKS.iter().flat_map(|a| [a.group, a.name]).collect();
                names.sort_unstable();
                names.dedup();
                return Err(format!(
                    "ATTACKS: unknown attack '{name}' (known: {})",
                    names.join(", ")
                ));
            }
        }
        if !bin.is_file() {
            return Err(format!(
                "{} is missing: run make build (or set HEARTH_BIN)",
                bin.display()
            ));
        }
        Ok(Settings {
            bin,
            scale,
            rss_cap_kb: rss_cap_mb * 1024,
            selected,
        })
    }

    fn wants(&self, attack: &AttackDef) -> bool {
        self.selected.is_empty()
            || self
                .selected
                .iter()
                .any(|s| s == attack.name || s == attack.group)
    }

    /// `n` scaled by SCALE, at least 1.
    fn scaled(&self, n: usize) -> usize {
        ((n as f64 * self.scale).round() as usize).max(1)
    }
}

fn run() -> Result<bool, String> {
    let settings = Settings::from_env()?;
    hearth::publish::fetch::install_crypto_provider();
    let upstream = Upstream::start()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;

    let began = Instant::now();
    println!(
        "== attacks on {} (SCALE={}); attacker 127.0.0.1, /healthz probed from 127.0.0.2 every {} ms \
         on a fresh connection ({} s timeout); RSS sampled every {} ms, \"after\" {} s after the attack",
        settings.bin.display(),
        settings.scale,
        PROBE_EVERY.as_millis(),
        PROBE_TIMEOUT.as_secs(),
        RSS_EVERY.as_millis(),
        SETTLE.as_secs()
    );
    println!(
        "targets: issue 11: peak RSS <= {TARGET_PEAK_MB} MB, /healthz < {TARGET_HEALTHZ_MS} ms throughout; \
         issue 12: slowloris all probes ok and < 10% attacker connections open after 40 s"
    );
    println!();
    println!(
        "| {:<14} | {:<52} | {:>8} | {:>8} | {:>8} | {:>11} | {:>9} | details | targets |",
        "attack",
        "requests / outcome",
        "start MB",
        "peak MB",
        "after MB",
        "worst hz ms",
        "hz failed",
    );
    println!(
        "|{}|{}|{}|{}|{}|{}|{}|---|---|",
        "-".repeat(16),
        "-".repeat(54),
        "-".repeat(10),
        "-".repeat(10),
        "-".repeat(10),
        "-".repeat(13),
        "-".repeat(11)
    );

    let mut all_ran = true;
    for attack in ATTACKS.iter().filter(|a| settings.wants(a)) {
        eprintln!(
            "attack: {} ({:.0} s so far)",
            attack.name,
            began.elapsed().as_secs_f64()
        );
        match run_attack(&rt, &settings, &upstream, attack) {
            Ok(row) => println!("{}", row.line()),
            Err(e) => {
                all_ran = false;
                println!("| {:<14} | could not run: {e}", attack.name);
            }
        }
    }
    println!();
    println!(
        "attack benchmark: {:.0} s; upstream served {} requests",
        began.elapsed().as_secs_f64(),
        upstream.hits()
    );
    rt.shutdown_timeout(Duration::from_secs(2));
    Ok(all_ran)
}

// ---------------------------------------------------------------------------------------------
// One attack: a fresh server, the monitors, the attack, a pause, the numbers.

struct Row {
    name: &'static str,
    outcome: String,
    start_mb: f64,
    peak_mb: f64,
    after_mb: Option<f64>,
    probes: ProbeStats,
    details: String,
    targets: String,
}

impl Row {
    fn line(&self) -> String {
        let after = self
            .after_mb
            .map_or_else(|| "gone".to_owned(), |v| format!("{v:.1}"));
        let worst = if self.probes.probes == 0 {
            "-".to_owned()
        } else if self.probes.worst >= PROBE_TIMEOUT {
            format!(">={}", self.probes.worst.as_millis())
        } else {
            self.probes.worst.as_millis().to_string()
        };
        let failed = format!("{}/{}", self.probes.failures, self.probes.probes);
        format!(
            "| {:<14} | {:<52} | {:>8.1} | {:>8.1} | {:>8} | {:>11} | {:>9} | {} | {} |",
            self.name,
            self.outcome,
            self.start_mb,
            self.peak_mb,
            after,
            worst,
            failed,
            self.details,
            self.targets
        )
    }
}

struct Outcome {
    outcome: String,
    details: String,
    /// Attack-specific targets: (what, met).
    targets: Vec<(String, bool)>,
}

fn run_attack(
    rt: &tokio::runtime::Runtime,
    settings: &Settings,
    upstream: &Upstream,
    attack: &AttackDef,
) -> Result<Row, String> {
    let mut args: Vec<&str> = Vec::new();
    let mut nofile = None;
    match attack.kind {
        // A 200k-event feed is larger than the default 10MiB limit.
        Kind::Cold => args.extend(["--feed-max-size", "64MiB"]),
        Kind::Slow => args.extend(["--feed-ttl", "2s"]),
        // systemd's default for a unit without LimitNOFILE.
        Kind::Slowloris => nofile = Some(1024),
        _ => {}
    }
    let server = Server::start(&settings.bin, &args, nofile)?;
    rt.block_on(wait_healthy(server.addr))
        .map_err(|e| format!("{e}; log: {}", server.log_tail()))?;
    let start_kb = read_status(server.pid).map_or(0, |s| s.rss_kb);
    let monitor = Monitor::start(&server, settings.rss_cap_kb)?;
    let ctx = Ctx {
        addr: server.addr,
        upstream,
        settings,
    };
    let result = rt.block_on(attack_of(attack.kind, &ctx));
    std::thread::sleep(SETTLE);
    let after_kb = read_status(server.pid).and_then(|s| (s.rss_kb > 0).then_some(s.rss_kb));
    let (rss, probes) = monitor.finish();
    let exited = server.exited();
    let log = server.log_tail();
    drop(server);
    let mut outcome = result?;

    if rss.capped {
        outcome.details.push_str(&format!(
            "; KILLED above RSS_CAP_MB={}",
            settings.rss_cap_kb / 1024
        ));
    } else if let Some(status) = exited {
        outcome
            .details
            .push_str(&format!("; server exited ({status}); log: {log}"));
    }
    let peak_mb = rss.peak_kb as f64 / 1024.0;
    let mut targets = Vec::new();
    if attack.issue == 11 {
        targets.push((
            format!("peak<={TARGET_PEAK_MB}MB"),
            peak_mb <= TARGET_PEAK_MB && !rss.capped,
        ));
        targets.push((
            format!("hz<{TARGET_HEALTHZ_MS}ms"),
            probes.failures == 0
                && probes.probes > 0
                && probes.worst.as_millis() < TARGET_HEALTHZ_MS,
        ));
    }
    targets.extend(outcome.targets);
    let targets = if targets.is_empty() {
        "(report only)".to_owned()
    } else {
        targets
            .iter()
            .map(|(what, met)| format!("{what}: {}", if *met { "ok" } else { "MISS" }))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Ok(Row {
        name: attack.name,
        outcome: outcome.outcome,
        start_mb: start_kb as f64 / 1024.0,
        peak_mb,
        after_mb: after_kb.map(|kb| kb as f64 / 1024.0),
        probes,
        details: outcome.details,
        targets,
    })
}

struct Ctx<'a> {
    addr: SocketAddr,
    upstream: &'a Upstream,
    settings: &'a Settings,
}

impl Ctx<'_> {
    fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

async fn attack_of(kind: Kind, ctx: &Ctx<'_>) -> Result<Outcome, String> {
    match kind {
        Kind::RegexRender => regex_bomb(ctx, false).await,
        Kind::RegexPublish => regex_bomb(ctx, true).await,
        Kind::Amplify => amplify(ctx).await,
        Kind::Cache => cache_growth(ctx).await,
        Kind::Cold => cold_calendar(ctx).await,
        Kind::Slots => slot_growth(ctx).await,
        Kind::Slow => slow_upstream(ctx).await,
        Kind::Slowloris => slowloris(ctx).await,
        Kind::Flood => publish_flood(ctx).await,
    }
}

// ---------------------------------------------------------------------------------------------
// The attacks.

/// Issue 11: five 4 KiB templates of regex tokens, 4 requests at a time for 8 s, through
/// `/api/render` or through publishing (distinct ids, a feed that works).
async fn regex_bomb(ctx: &Ctx<'_>, publish: bool) -> Result<Outcome, String> {
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
async fn amplify(ctx: &Ctx<'_>) -> Result<Outcome, String> {
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
/// calendar is published from its own address, so a per-address publish limit does not hide
/// what the caches keep.
async fn cache_growth(ctx: &Ctx<'_>) -> Result<Outcome, String> {
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
            publisher.post(ctx.url("/api/calendars")).json(&json!({
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
async fn cold_calendar(ctx: &Ctx<'_>) -> Result<Outcome, String> {
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
async fn slot_growth(ctx: &Ctx<'_>) -> Result<Outcome, String> {
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
        details: format!(
            "distinct URLs, 32 at a time; upstream hits {}",
            ctx.upstream.hits() - hits
        ),
        targets: Vec::new(),
    })
}

/// Issue 11: a calendar whose upstream turns slow (10 s) once its copy is past the TTL (2 s);
/// 50 subscribers at once, each from its own address.
async fn slow_upstream(ctx: &Ctx<'_>) -> Result<Outcome, String> {
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
async fn slowloris(ctx: &Ctx<'_>) -> Result<Outcome, String> {
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
/// 8 at a time.
async fn publish_flood(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    let n = ctx.settings.scaled(300);
    let client = client(None, Duration::from_secs(10))?;
    let hits = ctx.upstream.hits();
    let url = ctx.url("/api/calendars");
    let feed_base = format!("http://{}/x/flood-", ctx.upstream.addr);
    let run = pool(n, 8, Instant::now() + Duration::from_secs(60), move |i| {
        let body = json!({
            "id": format!("flood-{i}"), "name": format!("Flood {i}"),
            "url": format!("{feed_base}{i}.ics"),
            "mapping": {"SUMMARY": "${SUMMARY}"}
        });
        fetch(client.post(&url).json(&body), 1 << 20)
    })
    .await;
    Ok(Outcome {
        outcome: format!(
            "accepted {}/{n} in {:.1} s: {}",
            run.tally.ok(),
            run.elapsed.as_secs_f64(),
            run.tally
        ),
        details: format!(
            "8 at a time from one address; upstream hits {}",
            ctx.upstream.hits() - hits
        ),
        targets: Vec::new(),
    })
}

/// One slowloris connection: connected from 127.0.0.1, half a request sent. None when it could
/// not connect (the server's queue is full) or was closed at once.
async fn half_request(addr: SocketAddr) -> Option<TcpStream> {
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
async fn still_open(stream: &TcpStream) -> bool {
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

// ---------------------------------------------------------------------------------------------
// HTTP helpers: every request has a timeout; failures are counted, never fatal.

/// An attacker's or subscriber's client, optionally bound to a loopback address of its own.
fn client(local: Option<IpAddr>, timeout: Duration) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .no_proxy()
        // Sizes are the rendered sizes: no compression asked for.
        .no_gzip()
        .no_deflate()
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(3))
        .local_address(local)
        .build()
        .map_err(|e| format!("http client: {e}"))
}

/// The /healthz prober: another address than the attacker's, a fresh connection every time.
fn probe_client(timeout: Duration) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout)
        .pool_max_idle_per_host(0)
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)))
        .build()
        .map_err(|e| format!("probe client: {e}"))
}

async fn probe_once(client: &reqwest::Client, url: &str) -> bool {
    match client.get(url).send().await {
        Ok(resp) => resp.status().is_success() && resp.bytes().await.is_ok(),
        Err(_) => false,
    }
}

/// Loopback address number `i` of network `net` (127.net.x.y), one per simulated client.
fn loopback(net: u8, i: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(
        127,
        net,
        ((i / 250) % 250) as u8,
        (i % 250 + 1) as u8,
    ))
}

struct Answer {
    status: Option<u16>,
    error: Option<&'static str>,
    bytes: u64,
    elapsed: Duration,
    stale: bool,
}

impl Answer {
    fn is_ok(&self) -> bool {
        self.error.is_none() && self.status.is_some_and(|s| (200..300).contains(&s))
    }

    /// The status, or what went wrong: "200", "429", "timeout", "200+timeout" (cut mid-body).
    fn key(&self) -> String {
        match (self.status, self.error) {
            (Some(s), None) => s.to_string(),
            (Some(s), Some(e)) => format!("{s}+{e}"),
            (None, Some(e)) => e.to_owned(),
            (None, None) => "?".to_owned(),
        }
    }
}

/// Sends a request and reads the whole answer (at most `max_bytes`), counting bytes.
async fn fetch(request: reqwest::RequestBuilder, max_bytes: u64) -> Answer {
    let began = Instant::now();
    let mut resp = match request.send().await {
        Ok(resp) => resp,
        Err(e) => {
            return Answer {
                status: None,
                error: Some(classify(&e)),
                bytes: 0,
                elapsed: began.elapsed(),
                stale: false,
            }
        }
    };
    let status = resp.status().as_u16();
    let stale = resp.headers().contains_key("x-hearth-stale");
    let mut bytes = 0u64;
    let mut error = None;
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                bytes += chunk.len() as u64;
                if bytes >= max_bytes {
                    error = Some("cut");
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                error = Some(classify(&e));
                break;
            }
        }
    }
    Answer {
        status: Some(status),
        error,
        bytes,
        elapsed: began.elapsed(),
        stale,
    }
}

fn classify(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timeout"
    } else if e.is_connect() {
        "connect-error"
    } else if e.is_body() || e.is_decode() {
        "body-error"
    } else {
        "error"
    }
}

/// Answers counted by status (or error).
#[derive(Default)]
struct Tally(BTreeMap<String, usize>);

impl Tally {
    fn add(&mut self, answer: &Answer) {
        *self.0.entry(answer.key()).or_default() += 1;
    }

    fn merge(&mut self, other: Tally) {
        for (k, v) in other.0 {
            *self.0.entry(k).or_default() += v;
        }
    }

    /// Complete 2xx answers.
    fn ok(&self) -> usize {
        self.0
            .iter()
            .filter(|(k, _)| k.len() == 3 && k.starts_with('2'))
            .map(|(_, v)| v)
            .sum()
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return write!(f, "none");
        }
        let parts: Vec<String> = self.0.iter().map(|(k, v)| format!("{k}:{v}")).collect();
        write!(f, "{}", parts.join(" "))
    }
}

struct PoolRun {
    sent: usize,
    tally: Tally,
    bytes: u64,
    slowest: Duration,
    elapsed: Duration,
}

/// Requests 0..total, `concurrency` at a time; none starts after `deadline`.
async fn pool<F, Fut>(total: usize, concurrency: usize, deadline: Instant, make: F) -> PoolRun
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Answer> + Send + 'static,
{
    let began = Instant::now();
    let make = Arc::new(make);
    let next = Arc::new(AtomicUsize::new(0));
    let mut set = JoinSet::new();
    for _ in 0..concurrency {
        let make = make.clone();
        let next = next.clone();
        set.spawn(async move {
            let mut run = PoolRun {
                sent: 0,
                tally: Tally::default(),
                bytes: 0,
                slowest: Duration::ZERO,
                elapsed: Duration::ZERO,
            };
            while Instant::now() < deadline {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= total {
                    break;
                }
                let answer = make(i).await;
                run.sent += 1;
                run.bytes += answer.bytes;
                run.slowest = run.slowest.max(answer.elapsed);
                run.tally.add(&answer);
            }
            run
        });
    }
    let mut all = PoolRun {
        sent: 0,
        tally: Tally::default(),
        bytes: 0,
        slowest: Duration::ZERO,
        elapsed: Duration::ZERO,
    };
    for run in join_all(set).await {
        all.sent += run.sent;
        all.bytes += run.bytes;
        all.slowest = all.slowest.max(run.slowest);
        all.tally.merge(run.tally);
    }
    all.elapsed = began.elapsed();
    all
}

/// Every task's result; a task that panicked is left out (and said so).
async fn join_all<T: 'static>(mut set: JoinSet<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(set.len());
    while let Some(result) = set.join_next().await {
        match result {
            Ok(v) => out.push(v),
            Err(e) => eprintln!("attack: a task failed: {e}"),
        }
    }
    out
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (sorted.len() * p).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

fn encode_query(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

async fn wait_healthy(addr: SocketAddr) -> Result<(), String> {
    let client = client(None, Duration::from_secs(1))?;
    let url = format!("http://{addr}/healthz");
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(resp) = client.get(&url).send().await {
            if resp.status().is_success() {
                return Ok(());
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("{url} did not answer within 20 s"))
}

// ---------------------------------------------------------------------------------------------
// The server process and its monitors.

struct Server {
    child: Arc<Mutex<Child>>,
    pid: u32,
    addr: SocketAddr,
    log: Arc<Mutex<VecDeque<String>>>,
    // Last: removed after the process is gone (Drop kills it first).
    _data_dir: tempfile::TempDir,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Server {
    /// `hearth serve` on a free loopback port with a fresh data directory; `nofile` sets its
    /// descriptor limit (through the shell's ulimit, as systemd would set it).
    fn start(bin: &Path, extra: &[&str], nofile: Option<u32>) -> Result<Server, String> {
        let data_dir = tempfile::tempdir().map_err(|e| format!("temporary data directory: {e}"))?;
        let mut cmd = match nofile {
            Some(n) => {
                let mut cmd = Command::new("bash");
                cmd.arg("-c")
                    .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                    .arg(bin);
                cmd
            }
            None => Command::new(bin),
        };
        cmd.arg("serve")
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(data_dir.path())
            .arg("--allow-private-feeds")
            .args(extra);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("HEARTH_") || key == "STATE_DIRECTORY" {
                cmd.env_remove(key);
            }
        }
        cmd.env("HEARTH_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| format!("{}: {e}", bin.display()))?;
        let pid = child.id();
        let log = Arc::new(Mutex::new(VecDeque::new()));
        let (tx, rx) = mpsc::channel();
        if let Some(stderr) = child.stderr.take() {
            let log = log.clone();
            // Reads the log to the end, so the server never blocks on a full pipe.
            std::thread::spawn(move || {
                let mut tx = Some(tx);
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    if let Some(rest) = line.split("listening on http://").nth(1) {
                        let addr: String = rest
                            .chars()
                            .take_while(|c| c.is_ascii_hexdigit() || ".:[]".contains(*c))
                            .collect();
                        if let (Some(tx), Ok(addr)) = (tx.take(), addr.parse::<SocketAddr>()) {
                            let _ = tx.send(addr);
                        }
                    }
                    let mut log = lock(&log);
                    if log.len() >= 8 {
                        log.pop_front();
                    }
                    log.push_back(line);
                }
            });
        }
        let server = |addr| Server {
            child: Arc::new(Mutex::new(child)),
            pid,
            addr,
            log,
            _data_dir: data_dir,
        };
        match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(addr) => Ok(server(addr)),
            Err(_) => {
                let server = server(SocketAddr::from(([127, 0, 0, 1], 0)));
                Err(format!(
                    "hearth serve did not say where it listens; log: {}",
                    server.log_tail()
                ))
            }
        }
    }

    fn log_tail(&self) -> String {
        lock(&self.log)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" / ")
    }

    /// How the server ended, if it did.
    fn exited(&self) -> Option<String> {
        match lock(&self.child).try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            _ => None,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let mut child = lock(&self.child);
        let _ = child.kill();
        let _ = child.wait();
    }
}

struct ProcStatus {
    rss_kb: u64,
    hwm_kb: u64,
}

fn read_status(pid: u32) -> Option<ProcStatus> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
    };
    Some(ProcStatus {
        rss_kb: field("VmRSS:")?,
        hwm_kb: field("VmHWM:").unwrap_or(0),
    })
}

#[derive(Default)]
struct RssStats {
    peak_kb: u64,
    capped: bool,
}

#[derive(Default)]
struct ProbeStats {
    probes: usize,
    failures: usize,
    worst: Duration,
}

/// RSS every 10 ms (killing the server above the cap) and /healthz every 50 ms, each on its own
/// thread, so a busy attack runtime does not slow the measurement.
struct Monitor {
    stop: Arc<AtomicBool>,
    stop_probe: tokio::sync::watch::Sender<bool>,
    rss: JoinHandle<RssStats>,
    probe: JoinHandle<ProbeStats>,
}

impl Monitor {
    fn start(server: &Server, cap_kb: u64) -> Result<Monitor, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let pid = server.pid;
        let child = server.child.clone();
        let flag = stop.clone();
        let rss = std::thread::Builder::new()
            .name("rss".into())
            .spawn(move || {
                let mut stats = RssStats::default();
                while !flag.load(Ordering::SeqCst) {
                    if let Some(s) = read_status(pid) {
                        stats.peak_kb = stats.peak_kb.max(s.rss_kb).max(s.hwm_kb);
                        if s.rss_kb > cap_kb && !stats.capped {
                            stats.capped = true;
                            let _ = lock(&child).kill();
                        }
                    }
                    std::thread::sleep(RSS_EVERY);
                }
                stats
            })
            .map_err(|e| format!("rss thread: {e}"))?;

        let client = probe_client(PROBE_TIMEOUT)?;
        let url = format!("http://{}/healthz", server.addr);
        let (stop_probe, mut stopped) = tokio::sync::watch::channel(false);
        let probe = std::thread::Builder::new()
            .name("probe".into())
            .spawn(move || {
                let mut stats = ProbeStats::default();
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return stats;
                };
                rt.block_on(async {
                    loop {
                        let began = Instant::now();
                        tokio::select! {
                            ok = probe_once(&client, &url) => {
                                stats.probes += 1;
                                stats.failures += usize::from(!ok);
                                stats.worst = stats.worst.max(began.elapsed());
                            }
                            // A probe still stuck when the attack ends counts for the worst.
                            _ = stopped.changed() => {
                                stats.worst = stats.worst.max(began.elapsed());
                                break;
                            }
                        }
                        tokio::select! {
                            () = tokio::time::sleep_until((began + PROBE_EVERY).into()) => {}
                            _ = stopped.changed() => break,
                        }
                    }
                });
                stats
            })
            .map_err(|e| format!("probe thread: {e}"))?;
        Ok(Monitor {
            stop,
            stop_probe,
            rss,
            probe,
        })
    }

    fn finish(self) -> (RssStats, ProbeStats) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.stop_probe.send(true);
        let rss = self.rss.join().unwrap_or_default();
        let probe = self.probe.join().unwrap_or_default();
        (rss, probe)
    }
}

// ---------------------------------------------------------------------------------------------
// The upstream feed server, in this process on its own runtime.

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum FeedKind {
    /// benches/feedgen: realistic events of about 1.45 KB.
    Generated,
    /// Small events (about 150 B), so 200k of them fit a feed.
    Compact,
}

struct UpState {
    hits: AtomicUsize,
    switch_delay_ms: AtomicU64,
    feeds: Mutex<HashMap<(FeedKind, usize), Bytes>>,
    small: Bytes,
}

impl UpState {
    fn feed(&self, kind: FeedKind, events: usize) -> Bytes {
        let events = events.min(400_000);
        lock(&self.feeds)
            .entry((kind, events))
            .or_insert_with(|| match kind {
                FeedKind::Generated => Bytes::from(feedgen::feed(events)),
                FeedKind::Compact => Bytes::from(compact_feed(events)),
            })
            .clone()
    }
}

/// Serves, counting every request:
/// `/feed/{events}.ics` and `/feed/{events}/{variant}.ics` (a generated feed; the variant makes
/// the URL and the calendar name distinct), `/compact/{events}.ics`, `/slow/{secs}.ics` (a small
/// feed after a delay), `/switch/{name}.ics` (a small feed after the delay the benchmark sets),
/// and any other path: a small feed.
struct Upstream {
    addr: SocketAddr,
    state: Arc<UpState>,
    bytes_per_event: usize,
}

impl Upstream {
    fn start() -> Result<Upstream, String> {
        let state = Arc::new(UpState {
            hits: AtomicUsize::new(0),
            switch_delay_ms: AtomicU64::new(0),
            feeds: Mutex::new(HashMap::new()),
            small: Bytes::from(compact_feed(1)),
        });
        let sample = feedgen::feed(1000).len();
        let (tx, rx) = mpsc::channel();
        let shared = state.clone();
        std::thread::Builder::new()
            .name("upstream".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = tx.send(Err(format!("upstream runtime: {e}")));
                        return;
                    }
                };
                rt.block_on(async move {
                    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = tx.send(Err(format!("upstream bind: {e}")));
                            return;
                        }
                    };
                    let _ = tx.send(
                        listener
                            .local_addr()
                            .map_err(|e| format!("upstream address: {e}")),
                    );
                    let app = Router::new().fallback(serve_upstream).with_state(shared);
                    if let Err(e) = axum::serve(listener, app).await {
                        eprintln!("attack: upstream stopped: {e}");
                    }
                });
            })
            .map_err(|e| format!("upstream thread: {e}"))?;
        let addr = rx
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| "the upstream server did not start".to_owned())??;
        Ok(Upstream {
            addr,
            state,
            bytes_per_event: (sample / 1000).max(1),
        })
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    fn hits(&self) -> usize {
        self.state.hits.load(Ordering::SeqCst)
    }

    /// Generates (once) and returns a feed; attacks call it before the server asks for it.
    fn feed(&self, kind: FeedKind, events: usize) -> Bytes {
        self.state.feed(kind, events)
    }

    /// The number of generated events that makes a feed of about `bytes`.
    fn events_for_bytes(&self, bytes: usize) -> usize {
        (bytes / self.bytes_per_event).max(1)
    }

    fn set_switch_delay(&self, delay: Duration) {
        self.state
            .switch_delay_ms
            .store(delay.as_millis() as u64, Ordering::SeqCst);
    }
}

async fn serve_upstream(State(state): State<Arc<UpState>>, uri: Uri) -> Response {
    state.hits.fetch_add(1, Ordering::SeqCst);
    let parts: Vec<&str> = uri.path().trim_start_matches('/').split('/').collect();
    let number = |file: &str| {
        file.strip_suffix(".ics")
            .and_then(|n| n.parse::<usize>().ok())
    };
    let body = match parts.as_slice() {
        ["feed", file] => number(file).map(|n| state.feed(FeedKind::Generated, n)),
        ["feed", n, variant] => n.parse::<usize>().ok().map(|n| {
            let feed = state.feed(FeedKind::Generated, n);
            let name = format!("X-WR-CALNAME:Generated {variant}");
            let mut out = Vec::with_capacity(feed.len() + name.len());
            let marker = b"X-WR-CALNAME:Generated";
            match feed.windows(marker.len()).position(|w| w == marker) {
                Some(at) => {
                    out.extend_from_slice(&feed[..at]);
                    out.extend_from_slice(name.as_bytes());
                    out.extend_from_slice(&feed[at + marker.len()..]);
                }
                None => out.extend_from_slice(&feed),
            }
            Bytes::from(out)
        }),
        ["compact", file] => number(file).map(|n| state.feed(FeedKind::Compact, n)),
        ["slow", file] => {
            let secs = number(file).unwrap_or(10).min(60) as u64;
            tokio::time::sleep(Duration::from_secs(secs)).await;
            None
        }
        ["switch", _] => {
            let ms = state.switch_delay_ms.load(Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            None
        }
        _ => None,
    };
    (
        [(header::CONTENT_TYPE, "text/calendar; charset=utf-8")],
        body.unwrap_or_else(|| state.small.clone()),
    )
        .into_response()
}

/// A feed of small events (about 150 bytes each).
fn compact_feed(events: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(events * 160 + 256);
    out.extend_from_slice(
        b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth//attack bench//EN\r\nX-WR-CALNAME:Compact\r\n",
    );
    for i in 0..events {
        let event = format!(
            "BEGIN:VEVENT\r\nUID:e{i:07}@attack.hearth.example\r\nDTSTAMP:20260101T000000Z\r\n\
             DTSTART:2026{:02}{:02}T{:02}0000Z\r\nSUMMARY:Event {i}\r\nLOCATION:Room {}\r\nEND:VEVENT\r\n",
            1 + i % 12,
            1 + i % 28,
            8 + i % 10,
            i % 40
        );
        out.extend_from_slice(event.as_bytes());
    }
    out.extend_from_slice(b"END:VCALENDAR\r\n");
    out
}
