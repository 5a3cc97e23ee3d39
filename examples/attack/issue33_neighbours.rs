//! Issue 33's noisy neighbours: K attackers (four IPv4 addresses and sixteen /64s of one IPv6
//! /48, named by X-Forwarded-For through the proxy on this machine) do their worst at one
//! resource all visitors share, while a bystander of every kind keeps asking: a subscriber, a
//! learner reading and writing its vault, a new learner, an editor (and, where a key guards the
//! site, the owner). The row says what each bystander got and how long it waited.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use reqwest::header;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::task::JoinSet;

use crate::http::{client, error_words, fetch_text, join_all, loopback, Answer, Tally};
use crate::raw::connect_from;
use crate::{Ctx, Outcome, PUBLISH_KEY};

/// Four IPv4 addresses, and sixteen /64s of one /48.
fn attackers() -> Vec<String> {
    let v4 = (11..=14).map(|n| format!("198.51.100.{n}"));
    let v6 = (0..16).map(|n| format!("2001:db8:48:{n:x}::1"));
    v4.chain(v6).collect()
}

/// The subscriber's target (issue 33): a hosted feed within a second.
const SUBSCRIBER_WITHIN: Duration = Duration::from_secs(1);

/// What one kind of bystander got.
#[derive(Default)]
struct Seen {
    tally: Tally,
    worst: Duration,
    /// Words of its answers that were not 2xx, by status.
    said: BTreeMap<u16, String>,
}

/// The bystanders of every kind, asking in turn until `until`.
struct Bystanders {
    seen: BTreeMap<&'static str, Seen>,
}

impl Bystanders {
    fn note(&mut self, kind: &'static str, answer: &Answer, text: &str) {
        let seen = self.seen.entry(kind).or_default();
        seen.tally.add(answer);
        seen.worst = seen.worst.max(answer.elapsed);
        if let Some(status) = answer.status.filter(|_| !answer.is_ok()) {
            seen.said
                .entry(status)
                .or_insert_with(|| error_words(text).chars().take(80).collect());
        }
    }

    fn all_answered(&self) -> bool {
        self.seen
            .values()
            .all(|s| s.tally.total() > 0 && s.tally.ok() == s.tally.total())
    }

    fn subscriber_in_time(&self) -> bool {
        self.seen
            .get("subscriber")
            .is_none_or(|s| s.worst <= SUBSCRIBER_WITHIN)
    }

    fn line(&self) -> String {
        self.seen
            .iter()
            .map(|(kind, s)| {
                let said: Vec<String> = s
                    .said
                    .iter()
                    .map(|(status, words)| format!("{status} \"{words}\""))
                    .collect();
                format!(
                    "{kind} {} worst {:.2} s{}",
                    s.tally,
                    s.worst.as_secs_f64(),
                    if said.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", said.join("; "))
                    }
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn targets(&self) -> Vec<(String, bool)> {
        vec![
            ("bystanders answered".to_owned(), self.all_answered()),
            (
                format!("subscriber<={}s", SUBSCRIBER_WITHIN.as_secs()),
                self.subscriber_in_time(),
            ),
        ]
    }
}

/// What the bystanders need set up before the attack: a hosted calendar, a learner's vault.
struct Stage {
    vault: String,
    token: String,
    version: u64,
}

async fn stage(ctx: &Ctx<'_>, key: Option<&str>) -> Result<Stage, String> {
    let http = client(None, Duration::from_secs(30))?;
    let mut publish = http
        .post(ctx.url("/api/calendars"))
        .header("X-Forwarded-For", "203.0.113.70")
        .json(
            &json!({"id": "sub", "name": "Sub", "url": ctx.upstream.url("/changing/sub.ics"),
                      "mapping": {"SUMMARY": "${SUMMARY}"}}),
        );
    if let Some(key) = key {
        publish = publish.header("X-Publish-Key", key);
    }
    let (published, words) = fetch_text(publish).await;
    if !published.is_ok() {
        return Err(format!(
            "publishing the bystanders' calendar: {} {words}",
            published.key()
        ));
    }
    let (first, _) = fetch_text(http.get(ctx.url("/cal/sub.ics"))).await;
    if !first.is_ok() {
        return Err(format!(
            "the first poll of the hosted feed: {}",
            first.key()
        ));
    }
    let mut make = http
        .post(ctx.url("/api/sync/vaults"))
        .header("X-Forwarded-For", "203.0.113.71")
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .body(vec![1u8; 16 * 1024]);
    if let Some(key) = key {
        make = make.header("X-Sync-Key", key);
    }
    let (made, text) = fetch_text(make).await;
    if !made.is_ok() {
        return Err(format!("the learner's vault: {} {text}", made.key()));
    }
    let answer: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("the vault's answer: {e}"))?;
    Ok(Stage {
        vault: answer["id"].as_str().unwrap_or_default().to_owned(),
        token: answer["token"].as_str().unwrap_or_default().to_owned(),
        version: answer["version"].as_u64().unwrap_or(1),
    })
}

/// Asks as each kind of bystander in turn, one request every `every`, until `until`.
async fn bystand(
    ctx: &Ctx<'_>,
    mut stage: Stage,
    key: Option<&str>,
    every: Duration,
    until: Instant,
) -> Result<Bystanders, String> {
    let http = client(None, Duration::from_secs(20))?;
    let mut seen = Bystanders {
        seen: BTreeMap::new(),
    };
    let mut turn = 0usize;
    let mut newcomers = 0u32;
    let with_key = |request: reqwest::RequestBuilder, header_name: &str| match key {
        Some(key) => request.header(header_name, key),
        None => request,
    };
    while Instant::now() < until {
        let kinds = if key.is_some() { 6 } else { 5 };
        let (kind, (answer, text)) = match turn % kinds {
            0 => (
                "subscriber",
                fetch_text(
                    http.get(ctx.url("/cal/sub.ics"))
                        .header("X-Forwarded-For", "203.0.113.72"),
                )
                .await,
            ),
            1 => (
                "learner-read",
                fetch_text(
                    http.get(ctx.url(&format!("/api/sync/vaults/{}", stage.vault)))
                        .header("X-Forwarded-For", "203.0.113.71"),
                )
                .await,
            ),
            2 => {
                let (answer, text) = fetch_text(
                    http.put(ctx.url(&format!("/api/sync/vaults/{}", stage.vault)))
                        .header("X-Forwarded-For", "203.0.113.71")
                        .header(header::CONTENT_TYPE, "application/octet-stream")
                        .header(header::IF_MATCH, format!("\"v{}\"", stage.version))
                        .bearer_auth(&stage.token)
                        .body(vec![(turn % 251) as u8; 24 * 1024]),
                )
                .await;
                if let Some(v) = serde_json::from_str::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| v["version"].as_u64())
                {
                    stage.version = v;
                }
                ("learner-write", (answer, text))
            }
            3 => {
                newcomers += 1;
                let who = format!("198.18.{}.{}", newcomers / 250, newcomers % 250 + 1);
                (
                    "new-learner",
                    fetch_text(with_key(
                        http.post(ctx.url("/api/sync/vaults"))
                            .header("X-Forwarded-For", who)
                            .header(header::CONTENT_TYPE, "application/octet-stream")
                            .body(vec![2u8; 8 * 1024]),
                        "X-Sync-Key",
                    ))
                    .await,
                )
            }
            4 => (
                "editor",
                fetch_text(with_key(
                    http.post(ctx.url("/api/render"))
                        .header("X-Forwarded-For", "203.0.113.73")
                        .json(&json!({"event": {"SUMMARY": format!("Meeting {turn}")},
                                      "mapping": {"SUMMARY": "${SUMMARY}!"}})),
                    "X-Publish-Key",
                ))
                .await,
            ),
            _ => (
                "owner",
                fetch_text(with_key(
                    http.get(ctx.url("/api/owner"))
                        .header("X-Forwarded-For", "203.0.113.74"),
                    "X-Publish-Key",
                ))
                .await,
            ),
        };
        seen.note(kind, &answer, &text);
        turn += 1;
        tokio::time::sleep(every).await;
    }
    Ok(seen)
}

/// An upload of a vault write for `who` (through the proxy on this machine, from `local`),
/// promising `declared` bytes, sending `burst` at once and then `rate` bytes a second until
/// `until`; ends with the answer's status, or how it ended without one.
#[allow(clippy::too_many_arguments)]
async fn trickle(
    addr: SocketAddr,
    local: IpAddr,
    who: String,
    vault: (String, String),
    declared: usize,
    burst: usize,
    rate: usize,
    until: Instant,
) -> String {
    let Ok(mut stream) = connect_from(local, addr, None).await else {
        return "connect-error".to_owned();
    };
    let head = format!(
        "PUT /api/sync/vaults/{} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/octet-stream\r\n\
         X-Forwarded-For: {who}\r\nAuthorization: Bearer {}\r\nIf-Match: \"v1\"\r\n\
         Content-Length: {declared}\r\n\r\n",
        vault.0, addr, vault.1
    );
    if stream.write_all(head.as_bytes()).await.is_err() {
        return "closed".to_owned();
    }
    let (mut reader, mut writer) = stream.into_split();
    let send = async move {
        let filler = vec![0x5a; 64 * 1024];
        let mut sent = 0;
        while sent < burst.min(declared) {
            let n = filler.len().min(burst - sent);
            writer.write_all(&filler[..n]).await?;
            sent += n;
        }
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        while sent < declared {
            tick.tick().await;
            let n = (rate / 4).max(1).min(declared - sent);
            writer.write_all(&filler[..n]).await?;
            sent += n;
        }
        Ok::<_, std::io::Error>(writer)
    };
    let answer = async {
        let mut buf = [0u8; 512];
        match tokio::io::AsyncReadExt::read(&mut reader, &mut buf).await {
            Ok(n) if n > 0 => crate::raw::status_of(&buf[..n])
                .map_or_else(|| "answered".to_owned(), |s| s.to_string()),
            _ => "closed".to_owned(),
        }
    };
    tokio::select! {
        status = answer => status,
        _ = send => "sent".to_owned(),
        () = tokio::time::sleep_until(until.into()) => "still-sending".to_owned(),
    }
}

/// Makes a small vault for each attacker (its own, to write to).
async fn attackers_vaults(ctx: &Ctx<'_>) -> Result<Vec<(String, (String, String))>, String> {
    let http = client(None, Duration::from_secs(20))?;
    let mut vaults = Vec::new();
    for who in attackers() {
        let (made, text) = fetch_text(
            http.post(ctx.url("/api/sync/vaults"))
                .header("X-Forwarded-For", &who)
                .header(header::CONTENT_TYPE, "application/octet-stream")
                .body(vec![0u8; 64]),
        )
        .await;
        if !made.is_ok() {
            return Err(format!("{who}'s vault: {} {text}", made.key()));
        }
        let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        vaults.push((
            who,
            (
                v["id"].as_str().unwrap_or_default().to_owned(),
                v["token"].as_str().unwrap_or_default().to_owned(),
            ),
        ));
    }
    Ok(vaults)
}

/// Bytes in flight: every attacker keeps two writes to its own 64-byte vault open, declaring
/// 8 MiB and 4 MiB: one sends 6 MiB at once and then 4 KB/s, the other 4 KB/s from the start
/// (issue 33's numbers, and what would fill the budget if claims followed declarations).
pub async fn neighbours_bytes(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    let stage = stage(ctx, None).await?;
    let vaults = attackers_vaults(ctx).await?;
    let hold = ctx.secs(30.0, 12.0);
    let until = Instant::now() + hold;
    let mut set = JoinSet::new();
    for (i, (who, vault)) in vaults.into_iter().enumerate() {
        for (declared, burst) in [(8 << 20, 6 << 20), (4 << 20, 0)] {
            let (who, vault) = (who.clone(), vault.clone());
            set.spawn(trickle(
                ctx.addr,
                loopback(33, i),
                who,
                vault,
                declared,
                burst,
                4 * 1024,
                until,
            ));
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let seen = bystand(ctx, stage, None, Duration::from_millis(300), until).await?;
    let mut tally = Tally::default();
    for end in join_all(set).await {
        tally.count(end);
    }
    Ok(Outcome {
        outcome: format!(
            "{} writes (20 attackers x 2: 8 MiB with 6 MiB at once, 4 MiB) at 4 KB/s, {:.0} s: {tally}",
            tally.total(),
            hold.as_secs_f64()
        ),
        legit: seen.line(),
        details: "-".to_owned(),
        targets: seen.targets(),
    })
}

/// The engine: every attacker keeps two regex-heavy previews of a 2 MB feed under way (each
/// running to its time budget), while the bystanders ask.
pub async fn neighbours_engine(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    let stage = stage(ctx, None).await?;
    let events = ctx.upstream.events_for_bytes(2_000_000);
    let feed = ctx.upstream.url(&format!("/feed/{events}.ics"));
    let heavy = format!(
        "${{SUMMARY}}{}",
        r"${DESCRIPTION|re:s/[\s\S]//g}".repeat(32)
    );
    let body = json!({"url": feed, "config": {"mapping": {"SUMMARY": heavy}}});
    let run_for = ctx.secs(30.0, 12.0);
    let until = Instant::now() + Duration::from_secs(2) + run_for;
    let mut set = JoinSet::new();
    for who in attackers() {
        for _ in 0..2 {
            let http = client(None, Duration::from_secs(30))?;
            let (url, body, who) = (ctx.url("/api/preview"), body.clone(), who.clone());
            set.spawn(async move {
                let mut tally = Tally::default();
                while Instant::now() < until {
                    let (answer, _) =
                        fetch_text(http.post(&url).header("X-Forwarded-For", &who).json(&body))
                            .await;
                    tally.add(&answer);
                    if answer.status == Some(429) {
                        tokio::time::sleep(Duration::from_millis(250)).await;
                    }
                }
                tally
            });
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let seen = bystand(ctx, stage, None, Duration::from_millis(300), until).await?;
    let mut tally = Tally::default();
    for t in join_all(set).await {
        tally.merge(t);
    }
    Ok(Outcome {
        outcome: format!(
            "{} previews (20 attackers x 2 at once, 32 regexes over 2 MB), {:.0} s: {tally}",
            tally.total(),
            run_for.as_secs_f64()
        ),
        legit: seen.line(),
        details: "-".to_owned(),
        targets: seen.targets(),
    })
}

/// The quotas: every attacker publishes calendars and makes vaults and shared decks until it is
/// refused; then the bystanders ask (a new learner makes a vault, the subscriber polls).
pub async fn neighbours_quotas(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    let stage = stage(ctx, None).await?;
    let http = client(None, Duration::from_secs(30))?;
    let mut calendars = BTreeMap::<&str, usize>::new();
    let mut blobs = BTreeMap::<&str, usize>::new();
    let mut refusals = Tally::default();
    for (n, who) in attackers().iter().enumerate() {
        let family = if who.contains(':') {
            "the /48"
        } else {
            "4 IPv4"
        };
        for m in 0..40 {
            let (answer, text) = fetch_text(
                http.post(ctx.url("/api/calendars"))
                    .header("X-Forwarded-For", who)
                    .json(&json!({"id": format!("q{n}-{m}"), "name": "Q",
                                  "url": ctx.upstream.url(&format!("/x/q{n}-{m}.ics")),
                                  "mapping": {"SUMMARY": "${SUMMARY}"}})),
            )
            .await;
            if !answer.is_ok() {
                refusals.count(format!("calendar {} {}", answer.key(), error_words(&text)));
                break;
            }
            *calendars.entry(family).or_default() += 1;
        }
        for kind in ["vaults", "shares"] {
            for _ in 0..40 {
                let (answer, text) = fetch_text(
                    http.post(ctx.url(&format!("/api/sync/{kind}")))
                        .header("X-Forwarded-For", who)
                        .header(header::CONTENT_TYPE, "application/octet-stream")
                        .body(vec![3u8; 1024 * 1024]),
                )
                .await;
                if !answer.is_ok() {
                    refusals.count(format!("{kind} {}", answer.key()));
                    let _ = text;
                    break;
                }
                *blobs.entry(family).or_default() += 1;
            }
        }
    }
    let until = Instant::now() + ctx.secs(6.0, 4.0);
    let seen = bystand(ctx, stage, None, Duration::from_millis(200), until).await?;
    let shares_kept = calendars.get("the /48").copied().unwrap_or(0) <= 2 * 12;
    let mut targets = seen.targets();
    targets.push(("the /48 <= 2 shares of calendars".to_owned(), shares_kept));
    Ok(Outcome {
        outcome: format!(
            "calendars published {calendars:?}, vaults and shared decks of 1 MiB made {blobs:?}; refused: {refusals}"
        ),
        legit: seen.line(),
        details: "-".to_owned(),
        targets,
    })
}

/// The key allowance: every attacker guesses the publish key on the owner page as fast as it can
/// for a minute (scaled), while the bystanders (the owner among them) ask.
pub async fn neighbours_keys(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    let stage = stage(ctx, Some(PUBLISH_KEY)).await?;
    let run_for = ctx.secs(60.0, 12.0);
    let until = Instant::now() + run_for;
    let mut set = JoinSet::new();
    for who in attackers() {
        let http = client(None, Duration::from_secs(10))?;
        let url = ctx.url("/api/owner");
        set.spawn(async move {
            let (mut compared, mut throttled, mut n) = (0usize, 0usize, 0usize);
            while Instant::now() < until {
                n += 1;
                let (answer, _) = fetch_text(
                    http.get(&url)
                        .header("X-Forwarded-For", &who)
                        .header("X-Publish-Key", format!("guess-{n}")),
                )
                .await;
                match answer.status {
                    Some(401) => compared += 1,
                    Some(429) => throttled += 1,
                    _ => {}
                }
            }
            (who, compared, throttled)
        });
    }
    let seen = bystand(
        ctx,
        stage,
        Some(PUBLISH_KEY),
        Duration::from_millis(300),
        until,
    )
    .await?;
    let results = join_all(set).await;
    let minutes = run_for.as_secs_f64() / 60.0;
    let worst_v4 = results
        .iter()
        .filter(|(who, ..)| !who.contains(':'))
        .map(|(_, c, _)| *c)
        .max()
        .unwrap_or(0);
    let by_48: usize = results
        .iter()
        .filter(|(who, ..)| who.contains(':'))
        .map(|(_, c, _)| *c)
        .sum();
    let throttled: usize = results.iter().map(|(_, _, t)| *t).sum();
    let mut targets = seen.targets();
    // A minute holds the burst and the refill: at most ten keys compared per client.
    targets.push((
        "<=10 keys/min per client".to_owned(),
        worst_v4 as f64 <= 10.0 * minutes.max(1.0),
    ));
    Ok(Outcome {
        outcome: format!(
            "20 guessers for {:.0} s: keys compared at most {worst_v4} by one IPv4 address, {by_48} by the /48 together; {throttled} guesses refused before any comparison",
            run_for.as_secs_f64()
        ),
        legit: seen.line(),
        details: "-".to_owned(),
        targets,
    })
}
