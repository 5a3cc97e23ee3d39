//! Test support: the real server on a free loopback port (in-process, through `hearth::serve`,
//! or as the real binary), with a throw-away data directory.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hearth::http::limits::{RateLimit, RateLimits};
use hearth::{Config, Db, ServeError};
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A server started in this process.
pub struct TestServer {
    pub addr: SocketAddr,
    pub data_dir: TempDir,
    pub client: reqwest::Client,
    shutdown: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<Result<(), ServeError>>>,
}

impl TestServer {
    /// Starts a server with the default configuration, adjusted by `configure`.
    pub async fn start(configure: impl FnOnce(&mut Config)) -> TestServer {
        let data_dir = tempfile::tempdir().expect("tempdir");
        Self::start_in(data_dir, configure).await
    }

    /// Starts a server on an existing data directory (e.g. to test a restart).
    pub async fn start_in(data_dir: TempDir, configure: impl FnOnce(&mut Config)) -> TestServer {
        let mut config = Config::defaults(data_dir.path()).expect("defaults");
        // Most tests send bursts from the one loopback address; the per-address limits have
        // their own tests (tests/internet.rs), which set them back.
        let unlimited = RateLimit {
            burst: 100_000,
            every: Duration::from_millis(1),
        };
        config.edge.rate_limits = RateLimits::all(unlimited);
        config.edge.max_connections_per_address = config.edge.max_connections;
        // Calendar tests fetch the one loopback upstream many times; the budgets of fetches
        // made upstream have their own tests (tests/neighbours.rs), which set them back.
        config.calendars.upstream = hearth::config::UpstreamLimits::unlimited();
        // Tests speak for their visitors through X-Forwarded-For from loopback, as the reverse
        // proxy on the same machine does.
        config.edge.trust_loopback = true;
        // Scheduled backups have their own tests (tests/backups.rs), which turn them on.
        config.backups.interval = None;
        configure(&mut config);
        let db = Db::open(data_dir.path()).expect("database opens");
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let (tx, rx) = oneshot::channel::<()>();
        let handle = tokio::spawn(hearth::serve(config, db, listener, async move {
            let _ = rx.await;
        }));
        TestServer {
            addr,
            data_dir,
            client: client(),
            shutdown: Some(tx),
            handle: Some(handle),
        }
    }

    /// A server for the calendar tool's tests: feeds on loopback allowed (the test upstream is
    /// there); `configure` adjusts the rest.
    pub async fn calendars(configure: impl FnOnce(&mut Config)) -> TestServer {
        TestServer::start(|c| {
            c.calendars.allow_private_feeds = true;
            configure(c);
        })
        .await
    }

    /// As [`TestServer::calendars`], on `clock` (which the test moves instead of sleeping) and
    /// reusing upstream copies for `ttl`.
    pub async fn calendars_on(
        clock: &hearth::clock::Clock,
        ttl: Duration,
        configure: impl FnOnce(&mut Config),
    ) -> TestServer {
        let on_clock = on_clock(clock, ttl);
        TestServer::start(|c| {
            on_clock(c);
            configure(c);
        })
        .await
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request sent")
    }

    /// GET `path` with `headers`; its JSON body.
    pub async fn get_json(&self, path: &str, headers: &[(&str, &str)]) -> serde_json::Value {
        let mut request = self.client.get(self.url(path));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request
            .send()
            .await
            .expect("sent")
            .json()
            .await
            .expect("json")
    }

    /// Publishes calendar `id` of the feed at `url` with the default mapping (and the publish
    /// key `key`, if given); asserts it was made and returns its edit token.
    pub async fn publish_feed(&self, id: &str, url: &str, key: Option<&str>) -> String {
        let mut request = self.client.post(self.url("/api/calendars")).json(
            &serde_json::json!({ "id": id, "name": "Work", "url": url, "mapping": { "SUMMARY": "${SUMMARY}" } }),
        );
        if let Some(key) = key {
            request = request.header("x-publish-key", key);
        }
        let response = request.send().await.expect("sent");
        assert_eq!(response.status(), reqwest::StatusCode::CREATED, "publish");
        let answer: serde_json::Value = response.json().await.expect("json");
        answer["editToken"].as_str().expect("token").to_owned()
    }

    /// Signals shutdown without waiting for it.
    pub fn signal_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// Signals shutdown and waits for the server to stop; returns the data directory.
    pub async fn stop(mut self) -> TempDir {
        self.signal_shutdown();
        if let Some(handle) = self.handle.take() {
            handle
                .await
                .expect("server task joins")
                .expect("server stops cleanly");
        }
        self.data_dir
    }

    pub fn handle(&mut self) -> Option<JoinHandle<Result<(), ServeError>>> {
        self.handle.take()
    }
}

/// The settings of a calendar test server on `clock`: feeds on loopback allowed, upstream copies
/// reused for `ttl` (for `TestServer::start_in`, a restart on the same data).
pub fn on_clock(clock: &hearth::clock::Clock, ttl: Duration) -> impl FnOnce(&mut Config) {
    let clock = clock.clone();
    move |c| {
        c.calendars.allow_private_feeds = true;
        c.calendars.feed_ttl = ttl;
        c.clock = clock;
    }
}

/// A JSON error answer's body: `application/json` with an `error` string, as every 4xx/5xx is.
pub async fn json_error(response: reqwest::Response) -> serde_json::Value {
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "JSON error, not {content_type}"
    );
    let body: serde_json::Value = response.json().await.expect("json error body");
    assert!(body["error"].is_string(), "{body}");
    body
}

/// A JSON error answer's message.
pub async fn error_of(response: reqwest::Response) -> String {
    let body = json_error(response).await;
    body["error"].as_str().unwrap_or_default().to_owned()
}

pub fn client() -> reqwest::Client {
    hearth::publish::fetch::install_crypto_provider();
    reqwest::Client::builder()
        // Tests look at the encodings the server chose, so nothing is decoded behind their back.
        .no_gzip()
        .no_deflate()
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client")
}

/// The `hearth` binary that cargo built for these tests.
pub fn hearth_bin() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hearth"));
    // Keep the tests independent of the environment they run in.
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("HEARTH_") || key == "STATE_DIRECTORY" {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// A `hearth serve` process; killed when dropped.
pub struct ServeProcess {
    child: Option<Child>,
    pub addr: SocketAddr,
}

impl ServeProcess {
    /// Runs `hearth serve --listen 127.0.0.1:0 --data-dir DIR ARGS...` and waits for the
    /// address it logs.
    pub fn start(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> ServeProcess {
        let mut cmd = hearth_bin();
        cmd.arg("serve")
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(data_dir)
            .args(args)
            .env("HEARTH_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("hearth starts");
        let stderr = child.stderr.take().expect("stderr piped");
        let mut lines = BufReader::new(stderr).lines();
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut seen = String::new();
        let addr = loop {
            assert!(Instant::now() < deadline, "no listening line in: {seen}");
            let Some(Ok(line)) = lines.next() else {
                panic!("hearth exited before listening: {seen}");
            };
            seen.push_str(&line);
            seen.push('\n');
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let addr = rest.split_whitespace().next().unwrap_or_default();
                break addr.parse().expect("address parses");
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        ServeProcess {
            child: Some(child),
            addr,
        }
    }

    /// The process id, for signals.
    pub fn id(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Waits for the process to end by itself, at most `within`, on a thread of its own (so
    /// nothing polls or sleeps); `None` when it is still running then (it is killed on drop).
    pub fn exit_within(mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let mut child = self.child.take()?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        rx.recv_timeout(within).ok().and_then(Result::ok)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A field error's field and message: `{"error": …, "field": "filters[1].pattern"}`, as every
/// 400 about one field of a request is.
pub async fn field_error(response: reqwest::Response) -> (String, String) {
    let body = json_error(response).await;
    let field = body["field"]
        .as_str()
        .unwrap_or_else(|| panic!("a field error names its field: {body}"))
        .to_owned();
    let message = body["error"].as_str().unwrap_or_default().to_owned();
    (field, message)
}

/// Waits until `done` answers true, giving the server's background tasks their turn between
/// checks (a yield, not a sleep: nothing here waits on a timer), bounded by 10 s.
pub async fn until<F, Fut>(what: &str, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::task::yield_now().await;
    }
}

/// `YYYYMMDDTHHMMSSZ` of a time, as feeds write UTC times.
pub fn utc_stamp(time: std::time::SystemTime) -> String {
    jiff::Timestamp::try_from(time)
        .expect("a time jiff can hold")
        .strftime("%Y%m%dT%H%M%SZ")
        .to_string()
}
