//! Issue 22 at the edge: one visitor's slow requests behind the same-host proxy, and the
//! connection table filled from many addresses (IPv4, and IPv6 /64s of one /48).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::http::{client, encode_query, fetch, join_all, Tally};
use crate::raw::{closed, half_request_from};
use crate::{Ctx, Outcome};

/// The attacker's address as the proxy names it.
const ATTACKER: &str = "203.0.113.66";

/// Behind the same-host proxy (loopback trusted): 32 editor reads of a feed that takes 14 s, all
/// from one visitor as X-Forwarded-For names it, while 5 other visitors each load the site's
/// profile and a page of a fast feed.
pub async fn proxy_slow(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const READS: usize = 32;
    const VISITORS: u8 = 5;
    let delay = ctx.secs(14.0, 3.0).as_secs();
    // Every connection comes from 127.0.0.1, the proxy.
    let proxy = client(None, Duration::from_secs(delay + 20))?;
    let hits = ctx.upstream.hits();
    let began = Instant::now();
    let mut reads = JoinSet::new();
    for i in 0..READS {
        // Distinct addresses: nothing is shared between the reads.
        let feed = ctx.upstream.url(&format!("/slow/{delay}.ics?read={i}"));
        let request = proxy
            .get(ctx.url(&format!("/api/feed?url={}", encode_query(&feed))))
            .header("X-Forwarded-For", ATTACKER);
        reads.spawn(fetch(request, 1 << 20));
    }
    // The reads are under way (and the server has admitted what it admits) before anyone else comes.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let fast = ctx.upstream.url("/compact/200.ics");
    let mut visits = JoinSet::new();
    for k in 1..=VISITORS {
        let visitor = format!("198.51.100.{k}");
        let site = proxy
            .get(ctx.url("/api/site"))
            .header("X-Forwarded-For", &visitor);
        let page = proxy
            .get(ctx.url(&format!("/api/feed?url={}&limit=50", encode_query(&fast))))
            .header("X-Forwarded-For", &visitor);
        visits.spawn(async move {
            let began = Instant::now();
            let site = fetch(site, 1 << 20).await;
            let page = fetch(page, 1 << 22).await;
            (
                site.is_ok() && page.is_ok(),
                began.elapsed(),
                site.key(),
                page.key(),
            )
        });
    }
    let visits = join_all(visits).await;
    let answers = join_all(reads).await;
    let served = visits.iter().filter(|v| v.0).count();
    let slowest_visit = visits.iter().map(|v| v.1).max().unwrap_or_default();
    let mut visit_tally = Tally::default();
    for (_, _, site, page) in &visits {
        visit_tally.count(format!("site {site}"));
        visit_tally.count(format!("page {page}"));
    }
    let mut tally = Tally::default();
    let mut refused_at_once = 0;
    for a in &answers {
        // A refusal after the slow fetch is another rule than the requests in flight.
        if a.status == Some(429) && a.elapsed < Duration::from_secs(1) {
            refused_at_once += 1;
            tally.count("429 at once");
        } else if a.status == Some(429) {
            tally.count("429 after the fetch");
        } else {
            tally.add(a);
        }
    }
    Ok(Outcome {
        outcome: format!(
            "{READS} reads of a {delay} s feed as {ATTACKER}: {tally} in {:.1} s",
            began.elapsed().as_secs_f64()
        ),
        legit: format!(
            "{served}/{VISITORS} visitors served ({visit_tally}), slowest {:.2} s",
            slowest_visit.as_secs_f64()
        ),
        details: format!(
            "server on loopback, loopback trusted (the proxy); upstream hits {}",
            ctx.upstream.hits() - hits
        ),
        targets: vec![
            (
                format!("visitors {VISITORS}/{VISITORS}"),
                served == VISITORS as usize,
            ),
            ("extra reads 429 at once".to_owned(), refused_at_once > 0),
        ],
    })
}

/// IPv6 addresses added to `lo` for an attack, removed again when dropped.
pub struct V6Addresses {
    added: Vec<Ipv6Addr>,
}

impl V6Addresses {
    /// `2001:db8:48:N::1` for N = 1..=count: one address in each of `count` /64s of one /48.
    /// Err says why they cannot be added (not root, no `ip`, IPv6 off).
    pub fn add(count: u16) -> Result<V6Addresses, String> {
        if !is_root() {
            return Err("not running as root, so no IPv6 addresses can be added to lo".to_owned());
        }
        let bindv6only = std::fs::read_to_string("/proc/sys/net/ipv6/bindv6only")
            .map_err(|e| format!("no IPv6 here (/proc/sys/net/ipv6/bindv6only: {e})"))?;
        if bindv6only.trim() != "0" {
            return Err(
                "net.ipv6.bindv6only is set: a server on [::] would not answer on 127.0.0.1"
                    .to_owned(),
            );
        }
        let mut added = V6Addresses { added: Vec::new() };
        for n in 1..=count {
            let ip = Ipv6Addr::new(0x2001, 0xdb8, 0x48, n, 0, 0, 0, 1);
            // nodad: usable at once, with no duplicate address detection to wait for.
            let out = std::process::Command::new("ip")
                .args([
                    "-6",
                    "addr",
                    "add",
                    &format!("{ip}/128"),
                    "dev",
                    "lo",
                    "nodad",
                ])
                .output()
                .map_err(|e| format!("ip -6 addr add: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "ip -6 addr add {ip}/128 dev lo: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            added.added.push(ip);
        }
        Ok(added)
    }

    pub fn addresses(&self) -> Vec<IpAddr> {
        self.added.iter().copied().map(IpAddr::V6).collect()
    }
}

impl Drop for V6Addresses {
    fn drop(&mut self) {
        for ip in &self.added {
            let _ = std::process::Command::new("ip")
                .args(["-6", "addr", "del", &format!("{ip}/128"), "dev", "lo"])
                .output();
        }
    }
}

/// Whether this process runs as root (its effective uid is 0).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1).map(|euid| euid == "0"))
            .unwrap_or(false)
    })
}

/// What the attacker's connections saw.
#[derive(Default)]
struct SlotStats {
    connects: AtomicUsize,
    failed: AtomicUsize,
    open: AtomicUsize,
    most_open: AtomicUsize,
    /// Closed by the server within 100 ms of connecting: refused at accept, or evicted at once.
    at_once: AtomicUsize,
    /// Closed later: the header timeout, or evicted for a newcomer.
    later: AtomicUsize,
}

/// Keeps one connection of `local` open with half a request in it until `until`, reconnecting
/// whenever the server closes it.
async fn hold_slot(local: IpAddr, addr: SocketAddr, until: Instant, stats: Arc<SlotStats>) {
    while Instant::now() < until {
        let Some(mut stream) = half_request_from(local, addr).await else {
            stats.failed.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let connected = Instant::now();
        stats.connects.fetch_add(1, Ordering::SeqCst);
        let open = stats.open.fetch_add(1, Ordering::SeqCst) + 1;
        stats.most_open.fetch_max(open, Ordering::SeqCst);
        let closed_by_server = tokio::select! {
            () = closed(&mut stream) => true,
            () = tokio::time::sleep_until(until) => false,
        };
        stats.open.fetch_sub(1, Ordering::SeqCst);
        if closed_by_server {
            if connected.elapsed() < Duration::from_millis(100) {
                stats.at_once.fetch_add(1, Ordering::SeqCst);
                // Refused: a moment before the next try, as any client would.
                tokio::time::sleep(Duration::from_millis(50)).await;
            } else {
                stats.later.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
}

/// 17 clients × 32 half-sent connections (544, past the table's 512), each reconnecting when
/// closed, for 20 s (twice the header timeout); /healthz is probed throughout and another
/// visitor loads the site's profile every second. `v6`: the 17 clients are /64s of one /48
/// (`2001:db8:48::/48`) on `lo`.
pub async fn conn_table(ctx: &Ctx<'_>, v6: Option<&V6Addresses>) -> Result<Outcome, String> {
    const PER_CLIENT: usize = 32;
    let hold = ctx.secs(20.0, 12.0);
    let (clients, target): (Vec<IpAddr>, SocketAddr) = match v6 {
        Some(v6) => (
            v6.addresses(),
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), ctx.addr.port()),
        ),
        None => (
            (21..=37)
                .map(|n| IpAddr::V4(Ipv4Addr::new(127, 0, 0, n)))
                .collect(),
            ctx.addr,
        ),
    };
    let until = Instant::now() + hold;
    let stats = Arc::new(SlotStats::default());
    let mut slots = JoinSet::new();
    for ip in &clients {
        for _ in 0..PER_CLIENT {
            slots.spawn(hold_slot(*ip, target, until, stats.clone()));
        }
    }
    // Another visitor, once a second, while the table is full.
    let visitor = client(
        Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 3))),
        Duration::from_secs(5),
    )?;
    let mut visits = Tally::default();
    let mut slowest = Duration::ZERO;
    tokio::time::sleep(Duration::from_secs(2)).await;
    while Instant::now() + Duration::from_secs(1) < until {
        let answer = fetch(visitor.get(ctx.url("/api/site")), 1 << 20).await;
        slowest = slowest.max(answer.elapsed);
        visits.add(&answer);
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    join_all(slots).await;
    let n = clients.len() * PER_CLIENT;
    let load = |a: &AtomicUsize| a.load(Ordering::SeqCst);
    let visited = visits.ok();
    let asked = visits.total();
    Ok(Outcome {
        outcome: format!(
            "{} clients x {PER_CLIENT} = {n} half-sent, {:.0} s: {} connects, at most {} open",
            clients.len(),
            hold.as_secs_f64(),
            load(&stats.connects),
            load(&stats.most_open)
        ),
        legit: format!(
            "GET /api/site from 127.0.0.3 every s: {visits}, slowest {:.2} s",
            slowest.as_secs_f64()
        ),
        details: format!(
            "{}; server closed {} at once (refused or evicted) and {} later (header timeout or \
             evicted); {} connects failed",
            match v6 {
                Some(_) => "server on [::], attackers 2001:db8:48:1..11::1 (17 /64s of one /48)",
                None => "server --trust-loopback false, attackers 127.0.0.21..37",
            },
            load(&stats.at_once),
            load(&stats.later),
            load(&stats.failed)
        ),
        targets: vec![("visitor served".to_owned(), asked > 0 && visited == asked)],
    })
}
