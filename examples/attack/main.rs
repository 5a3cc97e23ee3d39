//! The attack benchmark of `make bench` (issues 11, 12, 22 and 33): starts the release binary once
//! per attack, attacks it from loopback addresses (127.0.0.1 and others of 127/8, IPv6 /64s of
//! one /48 when it can add them) while probing `/healthz` from 127.0.0.2, and prints a table:
//! peak RSS, RSS after, the worst probe, what legitimate clients got, and each target met or not.
//!
//! Run through `bench/attack.sh`. Environment: `HEARTH_BIN` (the server binary), `ATTACKS=` a
//! comma-separated subset of attack names or groups (`regex,amplify,cache,slots,slow,slowloris,
//! flood,proxy-slow,slow-uploads,nonreading,sync-flood,conn-table,engine-saturated,quota-race,
//! household,neighbours,history,metrics,reflector`), `SCALE=0.1` (smaller counts and shorter holds while developing), `RSS_CAP_MB`
//! (the server is killed above it; default 6144).

#[path = "../../crates/engine/benches/feedgen/mod.rs"]
mod feedgen;
mod http;
mod issue11_12;
mod issue22_edge;
mod issue22_publish;
mod issue22_sync;
mod issue33_edge;
mod issue33_neighbours;
mod raw;
mod server;
mod upstream;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use http::wait_healthy;
use issue11_12::{
    amplify, cache_growth, cold_calendar, publish_flood, regex_bomb, slot_growth, slow_upstream,
    slowloris,
};
use issue22_edge::{conn_table, proxy_slow, V6Addresses};
use issue22_publish::{engine_saturated, nonreading_feed, quota_race};
use issue22_sync::{household, nonreading_vault, slow_uploads, sync_flood};
use issue33_edge::{history_render, history_storage, metrics_conns, reflector};
use issue33_neighbours::{neighbours_bytes, neighbours_engine, neighbours_keys, neighbours_quotas};
use server::{read_status, Monitor, ProbeStats, Server};
use upstream::Upstream;

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
/// The publish key of the servers started with one (the attackers never send it).
const PUBLISH_KEY: &str = "bench-owner-key-7f3a9c";
/// Issue 22's memory target, for every attack (issue 11's was 128 MB for its own).
const TARGET_PEAK_MB: f64 = 200.0;
/// Issue 11's latency target for its attacks; every attack must have /healthz answered.
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
    ProxySlow,
    SlowUploads,
    SlowUploadsKey,
    NonreadingVault,
    NonreadingFeed,
    SyncFlood,
    ConnTable,
    ConnTableV6,
    EngineSaturated,
    QuotaRace,
    Household,
    NeighboursBytes,
    NeighboursEngine,
    NeighboursQuotas,
    NeighboursKeys,
    HistoryRender,
    HistoryStorage,
    MetricsConns,
    Reflector,
    ReflectorV6,
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
    AttackDef {
        kind: Kind::ProxySlow,
        name: "proxy-slow",
        group: "proxy-slow",
        issue: 22,
    },
    AttackDef {
        kind: Kind::SlowUploads,
        name: "slow-uploads",
        group: "slow-uploads",
        issue: 22,
    },
    AttackDef {
        kind: Kind::SlowUploadsKey,
        name: "slow-uploads-key",
        group: "slow-uploads",
        issue: 22,
    },
    AttackDef {
        kind: Kind::NonreadingVault,
        name: "nonreading-vault",
        group: "nonreading",
        issue: 22,
    },
    AttackDef {
        kind: Kind::NonreadingFeed,
        name: "nonreading-feed",
        group: "nonreading",
        issue: 22,
    },
    AttackDef {
        kind: Kind::SyncFlood,
        name: "sync-flood",
        group: "sync-flood",
        issue: 22,
    },
    AttackDef {
        kind: Kind::ConnTable,
        name: "conn-table",
        group: "conn-table",
        issue: 22,
    },
    AttackDef {
        kind: Kind::ConnTableV6,
        name: "conn-table-v6",
        group: "conn-table",
        issue: 22,
    },
    AttackDef {
        kind: Kind::EngineSaturated,
        name: "engine-saturated",
        group: "engine-saturated",
        issue: 22,
    },
    AttackDef {
        kind: Kind::QuotaRace,
        name: "quota-race",
        group: "quota-race",
        issue: 22,
    },
    AttackDef {
        kind: Kind::Household,
        name: "household",
        group: "household",
        issue: 22,
    },
    AttackDef {
        kind: Kind::NeighboursBytes,
        name: "neighbours-bytes",
        group: "neighbours",
        issue: 33,
    },
    AttackDef {
        kind: Kind::NeighboursEngine,
        name: "neighbours-engine",
        group: "neighbours",
        issue: 33,
    },
    AttackDef {
        kind: Kind::NeighboursQuotas,
        name: "neighbours-quotas",
        group: "neighbours",
        issue: 33,
    },
    AttackDef {
        kind: Kind::NeighboursKeys,
        name: "neighbours-keys",
        group: "neighbours",
        issue: 33,
    },
    AttackDef {
        kind: Kind::HistoryRender,
        name: "history-render",
        group: "history",
        issue: 33,
    },
    AttackDef {
        kind: Kind::HistoryStorage,
        name: "history-storage",
        group: "history",
        issue: 33,
    },
    AttackDef {
        kind: Kind::MetricsConns,
        name: "metrics-conns",
        group: "metrics",
        issue: 33,
    },
    AttackDef {
        kind: Kind::Reflector,
        name: "reflector",
        group: "reflector",
        issue: 33,
    },
    AttackDef {
        kind: Kind::ReflectorV6,
        name: "reflector-v6",
        group: "reflector",
        issue: 33,
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
        "targets: every attack: peak RSS <= {TARGET_PEAK_MB} MB and every /healthz probe answered; \
         issue 11: /healthz < {TARGET_HEALTHZ_MS} ms throughout; issue 12: slowloris all probes ok \
         and < 10% attacker connections open after 40 s"
    );
    println!();
    println!(
        "| {:<14} | {:<52} | {:>8} | {:>8} | {:>8} | {:>11} | {:>9} | legitimate clients | details | targets |",
        "attack",
        "requests / outcome",
        "start MB",
        "peak MB",
        "after MB",
        "worst hz ms",
        "hz failed",
    );
    println!(
        "|{}|{}|{}|{}|{}|{}|{}|---|---|---|",
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
            Err(AttackError::Skipped(why)) => {
                println!("| {:<14} | skipped: {why} |", attack.name);
            }
            Err(AttackError::Failed(e)) => {
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
    legit: String,
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
            "| {:<14} | {:<52} | {:>8.1} | {:>8.1} | {:>8} | {:>11} | {:>9} | {} | {} | {} |",
            self.name,
            self.outcome,
            self.start_mb,
            self.peak_mb,
            after,
            worst,
            failed,
            self.legit,
            self.details,
            self.targets
        )
    }
}

struct Outcome {
    outcome: String,
    /// What legitimate clients got meanwhile ("-" when the attack has none).
    legit: String,
    details: String,
    /// Attack-specific targets: (what, met).
    targets: Vec<(String, bool)>,
}

/// Why an attack has no row of numbers.
enum AttackError {
    /// It cannot run here (said why, as a row of its own).
    Skipped(String),
    Failed(String),
}

impl From<String> for AttackError {
    fn from(e: String) -> AttackError {
        AttackError::Failed(e)
    }
}

/// How the server of an attack runs: its extra flags, its descriptor limit, where it listens.
struct Setup {
    args: Vec<String>,
    nofile: Option<u32>,
    listen: &'static str,
    /// Where its metrics are served, when the attack needs them.
    metrics: Option<SocketAddr>,
}

fn setup_of(kind: Kind) -> Setup {
    let mut setup = Setup {
        args: Vec::new(),
        nofile: None,
        listen: "127.0.0.1:0",
        metrics: None,
    };
    let mut args = |list: &[&str]| setup.args.extend(list.iter().map(|a| (*a).to_owned()));
    match kind {
        // A 200k-event feed is larger than the default 10MiB limit.
        Kind::Cold => args(&["--feed-max-size", "64MiB"]),
        Kind::Slow => args(&["--feed-ttl", "2s"]),
        // systemd's default for a unit without LimitNOFILE.
        Kind::Slowloris => setup.nofile = Some(1024),
        // Each attacking address is a client of its own: no loopback peer is a proxy.
        Kind::SlowUploads | Kind::SyncFlood | Kind::ConnTable => {
            args(&["--trust-loopback", "false"]);
        }
        Kind::SlowUploadsKey => args(&["--trust-loopback", "false", "--publish-key", PUBLISH_KEY]),
        Kind::ConnTableV6 => {
            args(&["--trust-loopback", "false"]);
            // Every address, so the /48's clients reach it on ::1 and the probes on 127.0.0.1.
            setup.listen = "[::]:0";
        }
        // The hosted feed's copy is old within the attack, so its changed upstream is fetched.
        Kind::EngineSaturated => args(&["--feed-ttl", "2s"]),
        // The owner publishes (with the key): a visitor's publishes of one upstream host are
        // held by its outbound budgets and its eighth of the storage before they could race.
        Kind::QuotaRace => args(&["--max-feed-storage", "8MiB", "--publish-key", PUBLISH_KEY]),
        Kind::Cache => args(&["--publish-key", PUBLISH_KEY]),
        Kind::NeighboursKeys => args(&["--publish-key", PUBLISH_KEY]),
        Kind::HistoryRender => args(&["--feed-ttl", "2s"]),
        Kind::HistoryStorage => args(&["--feed-ttl", "2s", "--max-feed-storage", "48MiB"]),
        Kind::MetricsConns => {
            // The issue's machine: 4,096 files.
            setup.nofile = Some(4096);
            let free = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .ok();
            if let Some(addr) = free {
                args(&["--metrics-listen", &addr.to_string()]);
            }
            setup.metrics = free;
        }
        _ => {}
    }
    setup
}

fn run_attack(
    rt: &tokio::runtime::Runtime,
    settings: &Settings,
    upstream: &Upstream,
    attack: &AttackDef,
) -> Result<Row, AttackError> {
    // Before the server: a scenario that cannot run here costs no server start.
    let v6 = match attack.kind {
        Kind::ConnTableV6 => Some(V6Addresses::add(17).map_err(AttackError::Skipped)?),
        _ => None,
    };
    let setup = setup_of(attack.kind);
    let args: Vec<&str> = setup.args.iter().map(String::as_str).collect();
    let server = Server::start(&settings.bin, setup.listen, &args, setup.nofile)?;
    rt.block_on(wait_healthy(server.addr))
        .map_err(|e| format!("{e}; log: {}", server.log_tail()))?;
    let start_kb = read_status(server.pid).map_or(0, |s| s.rss_kb);
    let monitor = Monitor::start(&server, settings.rss_cap_kb)?;
    let ctx = Ctx {
        addr: server.addr,
        pid: server.pid,
        data_dir: server.data_dir().to_owned(),
        v6: v6.as_ref(),
        upstream,
        settings,
        metrics: setup.metrics,
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
    let answered = probes.failures == 0 && probes.probes > 0;
    let mut targets = vec![
        (
            format!("peak<={TARGET_PEAK_MB}MB"),
            peak_mb <= TARGET_PEAK_MB && !rss.capped,
        ),
        ("hz answered".to_owned(), answered),
    ];
    if attack.issue == 11 {
        targets.push((
            format!("hz<{TARGET_HEALTHZ_MS}ms"),
            answered && probes.worst.as_millis() < TARGET_HEALTHZ_MS,
        ));
    }
    targets.extend(outcome.targets);
    let targets = targets
        .iter()
        .map(|(what, met)| format!("{what}: {}", if *met { "met" } else { "MISSED" }))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Row {
        name: attack.name,
        outcome: outcome.outcome,
        start_mb: start_kb as f64 / 1024.0,
        peak_mb,
        after_mb: after_kb.map(|kb| kb as f64 / 1024.0),
        probes,
        legit: outcome.legit,
        details: outcome.details,
        targets,
    })
}

struct Ctx<'a> {
    /// Where the server answers on 127.0.0.1.
    addr: SocketAddr,
    pid: u32,
    data_dir: PathBuf,
    /// The IPv6 addresses added for the attack, if it uses them.
    v6: Option<&'a V6Addresses>,
    upstream: &'a Upstream,
    settings: &'a Settings,
    /// The metrics listener, when the attack's server has one.
    metrics: Option<SocketAddr>,
}

impl Ctx<'_> {
    fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// An attack's duration: `base` seconds at SCALE=1, scaled, never below `min`.
    fn secs(&self, base: f64, min: f64) -> Duration {
        Duration::from_secs_f64((base * self.settings.scale).max(min))
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
        Kind::ProxySlow => proxy_slow(ctx).await,
        Kind::SlowUploads => slow_uploads(ctx, None).await,
        Kind::SlowUploadsKey => slow_uploads(ctx, Some(PUBLISH_KEY)).await,
        Kind::NonreadingVault => nonreading_vault(ctx).await,
        Kind::NonreadingFeed => nonreading_feed(ctx).await,
        Kind::SyncFlood => sync_flood(ctx).await,
        Kind::ConnTable => conn_table(ctx, None).await,
        Kind::ConnTableV6 => conn_table(ctx, ctx.v6).await,
        Kind::EngineSaturated => engine_saturated(ctx).await,
        Kind::QuotaRace => quota_race(ctx).await,
        Kind::Household => household(ctx).await,
        Kind::NeighboursBytes => neighbours_bytes(ctx).await,
        Kind::NeighboursEngine => neighbours_engine(ctx).await,
        Kind::NeighboursQuotas => neighbours_quotas(ctx).await,
        Kind::NeighboursKeys => neighbours_keys(ctx).await,
        Kind::HistoryRender => history_render(ctx).await,
        Kind::HistoryStorage => history_storage(ctx).await,
        Kind::MetricsConns => match ctx.metrics {
            Some(addr) => metrics_conns(ctx, addr).await,
            None => Err("no free port for the metrics listener".to_owned()),
        },
        Kind::Reflector => reflector(ctx, false).await,
        Kind::ReflectorV6 => reflector(ctx, true).await,
    }
}
