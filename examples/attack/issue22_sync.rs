//! Issue 22 against sync: uploads that trickle, a vault nobody reads the answer of, a flood of
//! vaults and shared decks from a few addresses, and a household of learners behind one router.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::http::header;
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::http::{client, error_words, fetch, fetch_text, join_all, Answer, Tally};
use crate::raw::{slow_upload, unread_round, UploadEnd};
use crate::{Ctx, Outcome, MB};

/// The largest vault the server accepts by default (`--max-vault-size`).
const MAX_BLOB: usize = 8 * 1024 * 1024;

/// `127.0.0.n`.
fn local(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, n))
}

/// A write token as the app makes them (here 64 letters and digits).
fn token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// `len` bytes that look like ciphertext (they do not compress).
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005) | 1;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 56) as u8
        })
        .collect()
}

/// The seconds a 429's words ask to wait ("try again in 12 seconds").
fn retry_secs(words: &str) -> Option<u64> {
    let tokens: Vec<&str> = words.split_whitespace().collect();
    tokens
        .windows(2)
        .find(|w| w[1].starts_with("second"))
        .and_then(|w| w[0].parse().ok())
}

/// A 429 keyed by the wait it asks for ("429/1s"), which tells its causes apart: requests in
/// flight (1 s), the byte budget (5 s), a daily allowance (hours).
fn answer_key(status: u16, words: &str) -> String {
    match (status, retry_secs(words)) {
        (429, Some(s)) => format!("429/{s}s"),
        _ => status.to_string(),
    }
}

/// Whether words about a refusal carry a number other than the client's own wait: a total, a
/// share or what others hold.
fn tells_numbers(words: &str) -> bool {
    let tokens: Vec<&str> = words.split_whitespace().collect();
    tokens.iter().enumerate().any(|(i, t)| {
        t.chars().any(|c| c.is_ascii_digit())
            && !tokens
                .get(i + 1)
                .is_some_and(|next| next.starts_with("second"))
    })
}

/// Distinct words of refusals, by status.
#[derive(Default)]
struct Words(BTreeMap<u16, BTreeSet<String>>);

impl Words {
    fn note(&mut self, status: u16, words: &str) {
        self.0.entry(status).or_default().insert(words.to_owned());
    }

    /// Refusals whose words tell numbers (429s and 507s only).
    fn telling(&self) -> Vec<String> {
        self.0
            .iter()
            .filter(|(status, _)| matches!(status, 429 | 507))
            .flat_map(|(_, words)| words.iter().filter(|w| tells_numbers(w)).cloned())
            .collect()
    }

    fn merge(&mut self, other: Words) {
        for (status, words) in other.0 {
            self.0.entry(status).or_default().extend(words);
        }
    }
}

impl std::fmt::Display for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .0
            .iter()
            .flat_map(|(status, words)| words.iter().map(move |w| format!("{status} \"{w}\"")))
            .collect();
        write!(f, "{}", parts.join("; "))
    }
}

/// 4 addresses × 32 uploads of a vault declared at 8 MiB and sent at 64 KiB/s, for 20 s; a
/// learner from another address makes a vault meanwhile. `key`: the server has a publish key
/// (the learner has it; the attackers do not).
pub async fn slow_uploads(ctx: &Ctx<'_>, key: Option<&str>) -> Result<Outcome, String> {
    const CLIENTS: [u8; 4] = [11, 12, 13, 14];
    const PER_CLIENT: usize = 32;
    const RATE: usize = 64 * 1024;
    let hold = ctx.secs(20.0, 8.0);
    let until = Instant::now() + hold;
    let mut set = JoinSet::new();
    for n in CLIENTS {
        for _ in 0..PER_CLIENT {
            let head = format!(
                "POST /api/sync/vaults HTTP/1.1\r\nHost: {}\r\nContent-Type: application/octet-stream\r\n\
                 Content-Length: {MAX_BLOB}\r\nAuthorization: Bearer {}\r\n\r\n",
                ctx.addr,
                token()
            );
            set.spawn(slow_upload(local(n), ctx.addr, head, MAX_BLOB, RATE, until));
        }
    }
    // The uploads are being read (or refused) when the learner comes.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let learner = client(Some(local(20)), Duration::from_secs(20))?;
    let mut request = learner
        .post(ctx.url("/api/sync/vaults"))
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .bearer_auth(token())
        .body(noise(64 * 1024, 1));
    if let Some(key) = key {
        request = request.header("X-Sync-Key", key);
    }
    let (made, made_words) = fetch_text(request).await;
    let ends = join_all(set).await;
    let mut tally = Tally::default();
    let mut words = Words::default();
    for end in &ends {
        match end {
            UploadEnd::Answered(head) => {
                let said = error_words(&head.body);
                tally.count(answer_key(head.status, &said));
                if head.status >= 400 && head.status != 429 {
                    words.note(head.status, &said);
                }
            }
            other => tally.count(other.key()),
        }
    }
    let learner_said = if made.is_ok() {
        String::new()
    } else {
        format!(" \"{}\"", error_words(&made_words))
    };
    Ok(Outcome {
        outcome: format!(
            "{} uploads of {} MiB at {} KiB/s, {:.0} s: {tally}",
            ends.len(),
            MAX_BLOB >> 20,
            RATE >> 10,
            hold.as_secs_f64()
        ),
        legit: format!(
            "a learner (127.0.0.20) makes a vault: {} in {:.2} s{learner_said}",
            made.key(),
            made.elapsed.as_secs_f64()
        ),
        details: format!(
            "from 127.0.0.11..14, server --trust-loopback false{}; 429/Ns = Retry-After N; {words}",
            if key.is_some() {
                " --publish-key (attackers without it)"
            } else {
                ", no key"
            }
        ),
        targets: vec![("learner served".to_owned(), made.is_ok())],
    })
}

/// An 8 MiB vault, then 32 and then 64 connections (each from its own address) that ask for it
/// and never read; after 20 s, how many the server dropped. A learner reads it meanwhile.
pub async fn nonreading_vault(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const WAIT: Duration = Duration::from_secs(20);
    let maker = client(None, Duration::from_secs(60))?;
    let (made, text) = fetch_text(
        maker
            .post(ctx.url("/api/sync/vaults"))
            .header(header::CONTENT_TYPE, "application/octet-stream")
            .bearer_auth(token())
            .body(noise(MAX_BLOB, 2)),
    )
    .await;
    let id = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("id").and_then(|id| id.as_str()).map(str::to_owned))
        .ok_or_else(|| format!("making the vault: {} {}", made.key(), error_words(&text)))?;
    let path = format!("/api/sync/vaults/{id}");
    let first = unread_round(ctx.addr, ctx.pid, &path, 32, 5, WAIT).await;
    let reader = client(Some(local(3)), Duration::from_secs(30))?;
    let url = ctx.url(&path);
    let reading = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(2)).await;
        fetch(reader.get(url), 1 << 30).await
    });
    let second = unread_round(ctx.addr, ctx.pid, &path, 64, 6, WAIT).await;
    let read = reading
        .await
        .map_err(|e| format!("the learner's read: {e}"))?;
    let round = |r: &crate::raw::UnreadRound| {
        format!("{}: {} dropped ({})", r.connected, r.closed, r.statuses)
    };
    Ok(Outcome {
        outcome: format!(
            "unread GETs of an 8 MiB vault, after {} s: {}; {}",
            WAIT.as_secs(),
            round(&first),
            round(&second)
        ),
        legit: format!(
            "a learner (127.0.0.3) reads it during the 64: {} {:.1} MB in {:.2} s",
            read.key(),
            read.bytes as f64 / MB,
            read.elapsed.as_secs_f64()
        ),
        details: format!(
            "each from its own address, 4 KiB receive buffer; server sockets open at the check: {} and {}",
            first.server_sockets, second.server_sockets
        ),
        targets: vec![
            (
                "all dropped".to_owned(),
                first.closed == first.connected && second.closed == second.connected,
            ),
            ("learner served".to_owned(), read.is_ok()),
        ],
    })
}

/// A blob made: its id, its token and its version.
struct Made {
    id: String,
    token: String,
    version: i64,
}

/// `POST /api/sync/{kind}` of `body` from `http`.
async fn create(
    ctx: &Ctx<'_>,
    http: &reqwest::Client,
    kind: &str,
    body: Vec<u8>,
) -> (Answer, String, Option<Made>) {
    let token = token();
    let (answer, text) = fetch_text(
        http.post(ctx.url(&format!("/api/sync/{kind}")))
            .header(header::CONTENT_TYPE, "application/octet-stream")
            .bearer_auth(&token)
            .body(body),
    )
    .await;
    let made = answer
        .is_ok()
        .then(|| serde_json::from_str::<serde_json::Value>(&text).ok())
        .flatten()
        .and_then(|v| {
            Some(Made {
                id: v.get("id")?.as_str()?.to_owned(),
                token: token.clone(),
                version: v.get("version")?.as_i64()?,
            })
        });
    (answer, error_words(&text), made)
}

/// Makes blobs of `kind` of `size` bytes from `http` until one is refused (a short wait, as
/// Retry-After asks for a busy server, is waited out up to 5 times) or `most` are made.
async fn make_until_refused(
    ctx: &Ctx<'_>,
    http: &reqwest::Client,
    kind: &str,
    size: usize,
    most: usize,
    seed: u64,
) -> (usize, Tally, Words) {
    let mut made = 0;
    let mut refusals = Tally::default();
    let mut words = Words::default();
    let mut waits = 0;
    while made < most {
        let (answer, said, blob) = create(ctx, http, kind, noise(size, seed + made as u64)).await;
        if blob.is_some() {
            made += 1;
            continue;
        }
        let status = answer.status.unwrap_or(0);
        let short_wait = status == 503 || retry_secs(&said).is_some_and(|s| s <= 5);
        if short_wait && waits < 5 {
            waits += 1;
            tokio::time::sleep(Duration::from_secs(retry_secs(&said).unwrap_or(2))).await;
            continue;
        }
        refusals.count(answer_key(status, &said));
        words.note(status, &said);
        break;
    }
    (made, refusals, words)
}

/// One address makes vaults until refused and fills them with 8 MiB each until refused; nine
/// more addresses then make shared decks of 8 MiB until refused, then of ever smaller sizes down
/// to 1 KiB (the room a larger one left), each until refused; a new learner then makes a vault.
/// Every 429 and 507 is checked for numbers it should not tell.
pub async fn sync_flood(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const OTHERS: u8 = 9;
    let began = Instant::now();
    let first = client(Some(local(40)), Duration::from_secs(60))?;
    let mut words = Words::default();
    // The first address: vaults as fast as it may.
    let mut vaults: Vec<Made> = Vec::new();
    let mut vault_refusal = Tally::default();
    for i in 0..200 {
        let (answer, said, made) = create(ctx, &first, "vaults", noise(1024, i)).await;
        match made {
            Some(made) => vaults.push(made),
            None => {
                let status = answer.status.unwrap_or(0);
                vault_refusal.count(answer_key(status, &said));
                words.note(status, &said);
                break;
            }
        }
    }
    // ... and fills them with the largest vaults the server takes.
    let mut filled = 0;
    let mut fill_refusal = Tally::default();
    for (i, vault) in vaults.iter().enumerate() {
        let (answer, text) = fetch_text(
            first
                .put(ctx.url(&format!("/api/sync/vaults/{}", vault.id)))
                .header(header::CONTENT_TYPE, "application/octet-stream")
                .header(header::IF_MATCH, format!("\"v{}\"", vault.version))
                .bearer_auth(&vault.token)
                .body(noise(MAX_BLOB, 1000 + i as u64)),
        )
        .await;
        if answer.is_ok() {
            filled += 1;
        } else {
            let said = error_words(&text);
            let status = answer.status.unwrap_or(0);
            fill_refusal.count(answer_key(status, &said));
            words.note(status, &said);
            break;
        }
    }
    // Nine more addresses try to take every shared deck and all the room.
    // Each size until refused: what a larger one left is taken by smaller ones.
    const SIZES: [usize; 8] = [
        MAX_BLOB,
        MAX_BLOB / 2,
        MAX_BLOB / 8,
        MAX_BLOB / 32,
        MAX_BLOB / 128,
        MAX_BLOB / 512,
        MAX_BLOB / 2048,
        1024,
    ];
    let most = ctx.settings.scaled(110);
    let others: Vec<(u8, reqwest::Client)> = (0..OTHERS)
        .map(|k| Ok((k, client(Some(local(41 + k)), Duration::from_secs(60))?)))
        .collect::<Result<_, String>>()?;
    let runs = others.iter().map(|(k, http)| async move {
        let mut made = [0usize; SIZES.len()];
        let mut refusals = Tally::default();
        let mut words = Words::default();
        let mut left = most;
        for (i, size) in SIZES.iter().enumerate() {
            let seed = 10_000 * u64::from(*k + 1) + 100 * i as u64;
            let (n, refused, said) =
                make_until_refused(ctx, http, "shares", *size, left, seed).await;
            made[i] = n;
            left -= n;
            refusals.merge(refused);
            words.merge(said);
            if left == 0 || refusals.starting("429") > 0 {
                // Out of allowance: smaller ones would be refused alike.
                break;
            }
        }
        (made, refusals, words)
    });
    let mut shares = [0usize; SIZES.len()];
    let mut share_refusals = Tally::default();
    for (made, refusals, said) in futures_join(runs).await {
        for (total, n) in shares.iter_mut().zip(made) {
            *total += n;
        }
        share_refusals.merge(refusals);
        words.merge(said);
    }
    let share_sizes: Vec<String> = SIZES
        .iter()
        .zip(shares)
        .filter(|(_, n)| *n > 0)
        .map(|(size, n)| format!("{n}x{}", kib(*size)))
        .collect();
    // A new learner.
    let learner = client(Some(local(50)), Duration::from_secs(20))?;
    let (made, said, _) = create(ctx, &learner, "vaults", noise(64 * 1024, 7)).await;
    if !made.is_ok() {
        words.note(made.status.unwrap_or(0), &said);
    }
    let stored = stored_blobs(&ctx.data_dir)?;
    let telling = words.telling();
    Ok(Outcome {
        outcome: format!(
            "127.0.0.40: {} vaults then {vault_refusal}, filled {filled} with 8 MiB then \
             {fill_refusal}; 9 others: shares {} (refusals {share_refusals}); {:.0} s",
            vaults.len(),
            share_sizes.join(" "),
            began.elapsed().as_secs_f64()
        ),
        legit: format!(
            "a new learner (127.0.0.50) makes a vault: {} in {:.2} s{}",
            made.key(),
            made.elapsed.as_secs_f64(),
            if made.is_ok() {
                String::new()
            } else {
                format!(" \"{said}\"")
            }
        ),
        details: format!(
            "stored after: {stored}; refusals said: {words}{}",
            if telling.is_empty() {
                String::new()
            } else {
                format!("; NUMBERS TOLD in: {}", telling.join(" | "))
            }
        ),
        targets: vec![
            ("new learner served".to_owned(), made.is_ok()),
            ("no totals told".to_owned(), telling.is_empty()),
        ],
    })
}

/// A size in KiB or MiB.
fn kib(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{}MiB", bytes >> 20)
    } else {
        format!("{}KiB", bytes >> 10)
    }
}

/// Runs the futures together and collects their results in order.
async fn futures_join<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut pending: Vec<std::pin::Pin<Box<F>>> = futures.map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut all = true;
        for (i, f) in pending.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => all = false,
                }
            }
        }
        if all {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

/// What the sync tables hold, read from the server's SQLite file.
fn stored_blobs(data_dir: &std::path::Path) -> Result<String, String> {
    let db = data_dir.join(hearth::store::DB_FILE);
    let conn =
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| format!("{}: {e}", db.display()))?;
    let mut statement = conn
        .prepare("SELECT kind, count(*), coalesce(sum(length(body)), 0) FROM sync_blobs GROUP BY kind ORDER BY kind")
        .map_err(|e| format!("reading sync_blobs: {e}"))?;
    let rows = statement
        .query_map([], |r| {
            Ok(format!(
                "{} {}s {:.1} MiB",
                r.get::<_, i64>(1)?,
                r.get::<_, String>(0)?,
                r.get::<_, i64>(2)? as f64 / MB
            ))
        })
        .map_err(|e| format!("reading sync_blobs: {e}"))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("reading sync_blobs: {e}"))?;
    Ok(rows.join(", "))
}

/// 10 learners behind one router (one address in X-Forwarded-For, through the same-host proxy):
/// each makes a vault, then pushes every 5 s and polls every 3 s for 60 s.
pub async fn household(ctx: &Ctx<'_>) -> Result<Outcome, String> {
    const LEARNERS: u64 = 10;
    const ROUTER: &str = "198.51.100.77";
    const VAULT: usize = 100 * 1024;
    let run_for = ctx.secs(60.0, 10.0);
    let http = client(None, Duration::from_secs(20))?;
    let began = Instant::now();
    let learners = (0..LEARNERS).map(|n| {
        let http = http.clone();
        async move {
            let mut tally = Tally::default();
            let token = token();
            let (answer, text) = fetch_text(
                http.post(ctx.url("/api/sync/vaults"))
                    .header("X-Forwarded-For", ROUTER)
                    .header(header::CONTENT_TYPE, "application/octet-stream")
                    .bearer_auth(&token)
                    .body(noise(VAULT, n)),
            )
            .await;
            tally.count(format!("create {}", answer.key()));
            let Some((id, version)) = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| {
                    Some((
                        v.get("id")?.as_str()?.to_owned(),
                        v.get("version")?.as_i64()?,
                    ))
                })
            else {
                return tally;
            };
            let version = Arc::new(AtomicI64::new(version));
            let url = ctx.url(&format!("/api/sync/vaults/{id}"));
            // Learners open the app at different moments.
            let start = began + Duration::from_millis(300 * n);
            let end = began + run_for;
            let mut next_poll = start + Duration::from_secs(3);
            let mut next_push = start + Duration::from_secs(5);
            let mut pushes = 0u64;
            while next_poll.min(next_push) < end {
                let poll = next_poll <= next_push;
                tokio::time::sleep_until(next_poll.min(next_push)).await;
                let current = version.load(Ordering::SeqCst);
                if poll {
                    next_poll += Duration::from_secs(3);
                    let answer = fetch(
                        http.get(&url)
                            .header("X-Forwarded-For", ROUTER)
                            .header(header::IF_NONE_MATCH, format!("\"v{current}\"")),
                        1 << 24,
                    )
                    .await;
                    tally.count(format!("poll {}", answer.key()));
                } else {
                    next_push += Duration::from_secs(5);
                    pushes += 1;
                    let (answer, text) = fetch_text(
                        http.put(&url)
                            .header("X-Forwarded-For", ROUTER)
                            .header(header::CONTENT_TYPE, "application/octet-stream")
                            .header(header::IF_MATCH, format!("\"v{current}\""))
                            .bearer_auth(&token)
                            .body(noise(VAULT, n * 1000 + pushes)),
                    )
                    .await;
                    tally.count(format!("push {}", answer.key()));
                    if let Some(v) = serde_json::from_str::<serde_json::Value>(&text)
                        .ok()
                        .and_then(|v| v.get("version")?.as_i64())
                    {
                        version.store(v, Ordering::SeqCst);
                    }
                }
            }
            tally
        }
    });
    let mut tally = Tally::default();
    for t in futures_join(learners).await {
        tally.merge(t);
    }
    let refused = tally.ending(" 429");
    let failed = tally.total() - tally.ending(" 200") - tally.ending(" 201") - tally.ending(" 304");
    Ok(Outcome {
        outcome: format!(
            "{LEARNERS} learners as {ROUTER}, {:.0} s: {} requests",
            run_for.as_secs_f64(),
            tally.total()
        ),
        legit: format!("{tally}"),
        details: format!(
            "through the same-host proxy (loopback trusted); vaults of {} KiB; push every 5 s, poll every 3 s",
            VAULT >> 10
        ),
        targets: vec![
            ("0 answers 429".to_owned(), refused == 0),
            ("all served".to_owned(), failed == 0),
        ],
    })
}
