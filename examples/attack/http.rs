//! HTTP helpers: every request has a timeout; failures are counted, never fatal.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinSet;

/// An attacker's or subscriber's client, optionally bound to a loopback address of its own.
pub fn client(local: Option<IpAddr>, timeout: Duration) -> Result<reqwest::Client, String> {
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
pub fn probe_client(timeout: Duration) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(timeout)
        .connect_timeout(timeout)
        .pool_max_idle_per_host(0)
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)))
        .build()
        .map_err(|e| format!("probe client: {e}"))
}

pub async fn probe_once(client: &reqwest::Client, url: &str) -> bool {
    match client.get(url).send().await {
        Ok(resp) => resp.status().is_success() && resp.bytes().await.is_ok(),
        Err(_) => false,
    }
}

/// Loopback address number `i` of network `net` (127.net.x.y), one per simulated client.
pub fn loopback(net: u8, i: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(
        127,
        net,
        ((i / 250) % 250) as u8,
        (i % 250 + 1) as u8,
    ))
}

pub struct Answer {
    pub status: Option<u16>,
    pub error: Option<&'static str>,
    pub bytes: u64,
    pub elapsed: Duration,
    pub stale: bool,
}

impl Answer {
    pub fn is_ok(&self) -> bool {
        self.error.is_none() && self.status.is_some_and(|s| (200..300).contains(&s))
    }

    /// The status, or what went wrong: "200", "429", "timeout", "200+timeout" (cut mid-body).
    pub fn key(&self) -> String {
        match (self.status, self.error) {
            (Some(s), None) => s.to_string(),
            (Some(s), Some(e)) => format!("{s}+{e}"),
            (None, Some(e)) => e.to_owned(),
            (None, None) => "?".to_owned(),
        }
    }
}

/// Sends a request and reads the whole answer (at most `max_bytes`), counting bytes.
pub async fn fetch(request: reqwest::RequestBuilder, max_bytes: u64) -> Answer {
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

/// Sends a request and keeps its answer's words (up to 4 KiB): for error messages.
pub async fn fetch_text(request: reqwest::RequestBuilder) -> (Answer, String) {
    let began = Instant::now();
    let resp = match request.send().await {
        Ok(resp) => resp,
        Err(e) => {
            let answer = Answer {
                status: None,
                error: Some(classify(&e)),
                bytes: 0,
                elapsed: began.elapsed(),
                stale: false,
            };
            return (answer, String::new());
        }
    };
    let status = resp.status().as_u16();
    let (bytes, error) = match resp.bytes().await {
        Ok(bytes) => (bytes, None),
        Err(e) => (Default::default(), Some(classify(&e))),
    };
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
    let answer = Answer {
        status: Some(status),
        error,
        bytes: bytes.len() as u64,
        elapsed: began.elapsed(),
        stale: false,
    };
    (answer, text)
}

/// The `error` of a JSON error answer, or the text itself.
pub fn error_words(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned))
        .unwrap_or_else(|| text.trim().to_owned())
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
pub struct Tally(BTreeMap<String, usize>);

impl Tally {
    pub fn add(&mut self, answer: &Answer) {
        self.count(answer.key());
    }

    /// Counts one under a key of the caller's (a status with what its words say).
    pub fn count(&mut self, key: impl Into<String>) {
        *self.0.entry(key.into()).or_default() += 1;
    }

    /// How many keys start with `prefix` ("429" for every kind of 429).
    pub fn starting(&self, prefix: &str) -> usize {
        self.0
            .iter()
            .filter(|(k, _)| k.starts_with(prefix))
            .map(|(_, v)| v)
            .sum()
    }

    /// How many keys end with `suffix` (" 429" for every operation answered 429).
    pub fn ending(&self, suffix: &str) -> usize {
        self.0
            .iter()
            .filter(|(k, _)| k.ends_with(suffix))
            .map(|(_, v)| v)
            .sum()
    }

    pub fn total(&self) -> usize {
        self.0.values().sum()
    }

    pub fn merge(&mut self, other: Tally) {
        for (k, v) in other.0 {
            *self.0.entry(k).or_default() += v;
        }
    }

    /// Complete 2xx answers.
    pub fn ok(&self) -> usize {
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

pub struct PoolRun {
    pub sent: usize,
    pub tally: Tally,
    pub bytes: u64,
    pub slowest: Duration,
    pub elapsed: Duration,
}

/// Requests 0..total, `concurrency` at a time; none starts after `deadline`.
pub async fn pool<F, Fut>(total: usize, concurrency: usize, deadline: Instant, make: F) -> PoolRun
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
pub async fn join_all<T: 'static>(mut set: JoinSet<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(set.len());
    while let Some(result) = set.join_next().await {
        match result {
            Ok(v) => out.push(v),
            Err(e) => eprintln!("attack: a task failed: {e}"),
        }
    }
    out
}

pub fn percentile(sorted: &[Duration], p: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (sorted.len() * p).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

pub fn encode_query(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

pub async fn wait_healthy(addr: SocketAddr) -> Result<(), String> {
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
