//! Issue 22 against publishing: a large hosted feed nobody reads the answer of, the engine kept
//! busy by previews while a subscriber polls, and concurrent publishes racing for the storage.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use serde_json::json;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::http::{client, error_words, fetch, fetch_text, join_all, loopback, Answer, Tally};
use crate::raw::unread_round;
use crate::upstream::FeedKind;
use crate::{Ctx, Outcome, MB, PUBLISH_KEY};

/// `127.0.0.n`.
fn local(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, n))
}

/// Publishes calendar `id` over `feed` (a path of the upstream) from `http`; Err with what the
/// server said when it is not created.
async fn publish(
    ctx: &Ctx<'_>,
    http: &reqwest::Client,
    id: &str,
    feed: &str,
) -> Result<Answer, String> {
    let (answer, text) = fetch_text(http.post(ctx.url("/api/calendars")).json(&json!({
        "id": id, "name": id, "url": ctx.upstream.url(feed),
        "mapping": {"SUMMARY": "${SUMMARY}"}
    })))
    .await;
    if answer.is_ok() {
        Ok(answer)
    } else {
        Err(format!(
            "publishing {id}: {} {}",
            answer.key(),
            error_words(&text)
        ))
    }
}

/// A calendar over a ~9 MB feed (rendered once, too large for memory, streamed from disk), then
/// 20 connections, each from its own address, that ask for it and never read; after 20 s, how
/// many the server dropped. A subscriber downloads it meanwhile.
pub async fn nonreading_feed(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const WAIT: Duration = Duration::from_secs(20);
    const READERS: usize = 20;
    let events = ctx.upstream.events_for_bytes(9_000_000);
    let feed_bytes = ctx.upstream.feed(FeedKind::Generated, events).len();
    let owner = client(None, Duration::from_secs(60))?;
    let published = publish(ctx, &owner, "big", &format!("/feed/{events}.ics")).await?;
    let first = client(Some(local(3)), Duration::from_secs(60))?;
    let warm = fetch(first.get(ctx.url("/cal/big.ics")), 1 << 30).await;
    let subscriber = client(Some(local(4)), Duration::from_secs(60))?;
    let url = ctx.url("/cal/big.ics");
    let reading = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(2)).await;
        fetch(subscriber.get(url), 1 << 30).await
    });
    let round = unread_round(ctx.addr, ctx.pid, "/cal/big.ics", READERS, 6, WAIT).await;
    let read = reading.await.map_err(|e| format!("the subscriber: {e}"))?;
    Ok(Outcome {
        outcome: format!(
            "{READERS} unread GETs of a {:.1} MB feed, after {} s: {} dropped ({})",
            warm.bytes as f64 / MB,
            WAIT.as_secs(),
            round.closed,
            round.statuses
        ),
        legit: format!(
            "a subscriber (127.0.0.4) downloads it meanwhile: {} {:.1} MB in {:.2} s",
            read.key(),
            read.bytes as f64 / MB,
            read.elapsed.as_secs_f64()
        ),
        details: format!(
            "upstream {:.1} MB ({events} events); publish {} in {:.1} s, first GET {} in {:.1} s; \
             {} connected, each from its own address, 4 KiB receive buffer; server sockets open \
             at the check: {}",
            feed_bytes as f64 / MB,
            published.key(),
            published.elapsed.as_secs_f64(),
            warm.key(),
            warm.elapsed.as_secs_f64(),
            round.connected,
            round.server_sockets
        ),
        targets: vec![
            ("all dropped".to_owned(), round.closed == round.connected),
            ("subscriber served".to_owned(), read.is_ok()),
        ],
    })
}

/// A preview's answer by what it says: stopped at its time, the visitor's engine time spent,
/// the engine busy.
fn preview_key(answer: &Answer, words: &str) -> String {
    match answer.status {
        Some(400) if words.contains("ran out") => "400 time ran out".to_owned(),
        Some(429) if words.contains("engine") => "429 engine time spent".to_owned(),
        Some(503) => "503 busy".to_owned(),
        _ => answer.key(),
    }
}

/// Which generation of the `/changing/` feed a hosted feed shows.
fn generation(body: &str) -> Option<u64> {
    body.split("SUMMARY:Generation ")
        .nth(1)?
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// Three visitors keep the engine busy with previews (two each, the most one may run at once)
/// of 32 regex tokens over a ~9 MB feed for 20 s, while a subscriber polls a hosted feed every
/// 250 ms whose upstream has just changed (so it needs a new render).
pub async fn engine_saturated(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const PREVIEWERS: usize = 3;
    const JOBS_EACH: usize = 2;
    const POLL_EVERY: Duration = Duration::from_millis(250);
    let events = ctx.upstream.events_for_bytes(9_000_000);
    let feed_bytes = ctx.upstream.feed(FeedKind::Generated, events).len();
    let big = ctx.upstream.url(&format!("/feed/{events}.ics"));
    let owner = client(None, Duration::from_secs(30))?;
    publish(ctx, &owner, "sub", "/changing/sub.ics").await?;
    let subscriber = client(Some(loopback(8, 0)), Duration::from_secs(10))?;
    let cal = ctx.url("/cal/sub.ics");
    let (warm, warm_text) = fetch_text(subscriber.get(&cal)).await;
    if !warm.is_ok() {
        return Err(format!("the first GET of the hosted feed: {}", warm.key()));
    }
    let before = generation(&warm_text);
    ctx.upstream.change();
    // Past --feed-ttl (2 s): the next poll finds the copy old and the upstream changed.
    tokio::time::sleep(Duration::from_millis(2500)).await;

    let heavy = format!(
        "${{SUMMARY}}{}",
        r"${DESCRIPTION|re:s/[\s\S]//g}".repeat(32)
    );
    let run_for = ctx.secs(20.0, 10.0);
    let warmup = Duration::from_millis(1500);
    let until = Instant::now() + warmup + run_for;
    let mut previews = JoinSet::new();
    for p in 0..PREVIEWERS {
        let http = client(Some(loopback(7, p)), Duration::from_secs(30))?;
        for _ in 0..JOBS_EACH {
            let (http, url) = (http.clone(), ctx.url("/api/preview"));
            let body = json!({"url": big, "config": {"mapping": {"SUMMARY": heavy}}});
            previews.spawn(async move {
                let mut tally = Tally::default();
                while Instant::now() < until {
                    let (answer, text) = fetch_text(http.post(&url).json(&body)).await;
                    let words = error_words(&text);
                    tally.count(preview_key(&answer, &words));
                    if answer.status == Some(429) {
                        // As the editor does: wait a moment before asking again.
                        tokio::time::sleep(Duration::from_millis(500)).await;
                    }
                }
                tally
            });
        }
    }
    tokio::time::sleep(warmup).await;
    let mut polls = Tally::default();
    let mut worst = Duration::ZERO;
    let mut new_render_at = None;
    let polling = Instant::now();
    let mut next = polling;
    while next < until {
        tokio::time::sleep_until(next).await;
        next += POLL_EVERY;
        let (answer, text) = fetch_text(subscriber.get(&cal)).await;
        worst = worst.max(answer.elapsed);
        polls.add(&answer);
        if new_render_at.is_none() && answer.is_ok() && generation(&text) != before {
            new_render_at = Some(polling.elapsed());
        }
    }
    let mut preview_tally = Tally::default();
    for t in join_all(previews).await {
        preview_tally.merge(t);
    }
    let all_served = polls.ok() == polls.total() && polls.total() > 0;
    Ok(Outcome {
        outcome: format!(
            "{} previews ({PREVIEWERS} visitors x {JOBS_EACH}) for {:.0} s: {preview_tally}",
            preview_tally.total(),
            run_for.as_secs_f64()
        ),
        legit: format!(
            "subscriber polls every {} ms: {polls}, worst {:.3} s; new render {}",
            POLL_EVERY.as_millis(),
            worst.as_secs_f64(),
            match new_render_at {
                Some(at) => format!("seen at {:.1} s", at.as_secs_f64()),
                None => "not seen while busy".to_owned(),
            }
        ),
        details: format!(
            "previews over a {:.1} MB feed ({events} events), 32 x ${{DESCRIPTION|re:s/[\\s\\S]//g}}; \
             server --feed-ttl 2s, the hosted feed's upstream changed before polling",
            feed_bytes as f64 / MB
        ),
        targets: vec![(
            "subscriber <1 s".to_owned(),
            all_served && worst < Duration::from_secs(1),
        )],
    })
}

/// With `--max-feed-storage 8MiB`: 10 publishes at once by the owner (who has no share, only the
/// whole), each from its own address, of distinct ~5 MB feeds; what was created and how many
/// bytes the feed copies take afterwards.
pub async fn quota_race(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const PUBLISHERS: usize = 10;
    const STORAGE: u64 = 8 * 1024 * 1024;
    let events = ctx.upstream.events_for_bytes(5_000_000);
    let feed_bytes = ctx.upstream.feed(FeedKind::Generated, events).len();
    let mut set = JoinSet::new();
    for i in 0..PUBLISHERS {
        let http = client(Some(loopback(9, i)), Duration::from_secs(60))?;
        let url = ctx.url("/api/calendars");
        let body = json!({
            "id": format!("race-{i}"), "name": format!("Race {i}"),
            "url": ctx.upstream.url(&format!("/feed/{events}/race{i}.ics")),
            "mapping": {"SUMMARY": "${SUMMARY}"}
        });
        set.spawn(async move {
            let request = http.post(url).header("x-publish-key", PUBLISH_KEY);
            let (answer, text) = fetch_text(request.json(&body)).await;
            (answer, error_words(&text))
        });
    }
    let answers = join_all(set).await;
    let mut tally = Tally::default();
    let mut words = std::collections::BTreeSet::new();
    for (answer, said) in &answers {
        tally.add(answer);
        if !answer.is_ok() {
            words.insert(format!("{} \"{said}\"", answer.key()));
        }
    }
    let (copies, stored) = stored_copies(&ctx.data_dir)?;
    Ok(Outcome {
        outcome: format!(
            "{PUBLISHERS} publishes at once of distinct {:.1} MB feeds: {tally}",
            feed_bytes as f64 / MB
        ),
        legit: "-".to_owned(),
        details: format!(
            "--max-feed-storage 8MiB; stored after: {copies} copies, {:.2} MiB; refusals said: {}",
            stored as f64 / MB,
            words.into_iter().collect::<Vec<_>>().join("; ")
        ),
        targets: vec![("stored<=8MiB".to_owned(), stored <= STORAGE)],
    })
}

/// Feed copies in the server's SQLite file: how many and their bytes.
fn stored_copies(data_dir: &std::path::Path) -> Result<(i64, u64), String> {
    let db = data_dir.join(hearth::store::DB_FILE);
    let conn =
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| format!("{}: {e}", db.display()))?;
    conn.query_row(
        "SELECT count(*), coalesce(sum(length(body)), 0) FROM feed_copies",
        [],
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
    )
    .map(|(n, bytes)| (n, u64::try_from(bytes).unwrap_or(0)))
    .map_err(|e| format!("reading feed_copies: {e}"))
}
