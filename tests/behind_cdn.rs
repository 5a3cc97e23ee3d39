//! `--behind-cdn` with a real nginx in front (`proxy_cache`, as README's "Behind a CDN or a
//! caching proxy" sets it up): the polls of many calendar apps reach Hearth at most once per
//! feed TTL, and with Hearth stopped nginx keeps serving the last copy it holds. Needs nginx
//! (`scripts/test-prereqs.sh` installs nginx-light as root); without it the test fails and says so.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{until, TestServer};
use reqwest::header::{CACHE_CONTROL, USER_AGENT};
use reqwest::StatusCode;
use upstream::Upstream;

/// nginx on a free loopback port with a cache in `dir`, in front of `hearth`.
struct Nginx {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Nginx {
    /// A fast shutdown through the master (SIGTERM), which takes its workers with it: killing
    /// the master alone left them running, holding the ports and every file the test run had
    /// open.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn nginx_binary() -> String {
    for candidate in ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"] {
        if Path::new(candidate).exists() {
            return candidate.to_owned();
        }
    }
    panic!("nginx is needed for this test: apt-get install nginx-light (scripts/test-prereqs.sh does it as root)");
}

fn free_addr() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr")
}

fn start_nginx(dir: &Path, hearth: SocketAddr) -> Nginx {
    let addr = free_addr();
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n")
        .unwrap_or(false);
    let user = if root { "user root root;" } else { "" };
    let d = dir.display();
    // The same proxy_cache settings README documents.
    let conf = format!(
        "{user}
daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {d}/body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    proxy_cache_path {d}/cache levels=1:2 keys_zone=hearth_feeds:1m max_size=100m inactive=30d use_temp_path=off;
    server {{
        listen {addr};
        location /cal/ {{
            proxy_pass http://{hearth};
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_cache hearth_feeds;
            proxy_cache_revalidate on;
            proxy_cache_background_update on;
            proxy_cache_lock on;
            proxy_cache_use_stale error timeout updating http_500 http_502 http_503 http_504;
            add_header X-Cache-Status $upstream_cache_status always;
        }}
    }}
}}
"
    );
    let path = dir.join("nginx.conf");
    std::fs::write(&path, conf).expect("writes");
    let child = Command::new(nginx_binary())
        .arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(&path)
        .arg("-e")
        .arg(dir.join("error.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nginx starts");
    // nginx is up when its port answers.
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(
            Instant::now() < deadline,
            "nginx did not listen: {}",
            std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
        );
        std::thread::yield_now();
    }
    Nginx { child, addr }
}

async fn publish(server: &TestServer, upstream: &Upstream) -> String {
    server
        .publish_feed("team", &upstream.url("/work.ics"), None)
        .await
}

/// Polls Hearth saw of calendar `team`, from its status.
async fn polls_seen(server: &TestServer, token: &str) -> u64 {
    let bearer = format!("Bearer {token}");
    let answer = server
        .get_json("/api/calendars/team/status", &[("authorization", &bearer)])
        .await;
    answer["subscribers"]
        .as_array()
        .expect("subscribers")
        .iter()
        .map(|s| s["polls7d"].as_u64().unwrap_or(0))
        .sum()
}

async fn poll_through(nginx: &Nginx, agent: &str) -> reqwest::Response {
    common::client()
        .get(format!("http://{}/cal/team.ics", nginx.addr))
        .header(USER_AGENT, agent)
        .send()
        .await
        .expect("sent")
}

#[tokio::test]
async fn polls_through_a_caching_proxy_reach_hearth_once_per_ttl() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.calendars.behind_cdn = true;
        c.calendars.feed_ttl = Duration::from_secs(3600);
    })
    .await;
    let token = publish(&server, &upstream).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let nginx = start_nginx(dir.path(), server.addr);

    for agent in [
        "Google-Calendar-Importer",
        "iOS/17.4 (21E219) dataaccessd/1.0",
        "Thunderbird/128.0",
    ]
    .iter()
    .cycle()
    .take(30)
    {
        let response = poll_through(&nginx, agent).await;
        assert_eq!(response.status(), StatusCode::OK);
        let cache_control = response.headers()[CACHE_CONTROL]
            .to_str()
            .expect("text")
            .to_owned();
        assert!(
            cache_control.starts_with("public, max-age=3600"),
            "{cache_control}"
        );
        assert!(cache_control.contains("stale-if-error"), "{cache_control}");
        assert!(response
            .text()
            .await
            .expect("body")
            .contains("BEGIN:VCALENDAR"));
    }
    assert_eq!(
        polls_seen(&server, &token).await,
        1,
        "30 polls through the proxy, one reached Hearth"
    );
}

#[tokio::test]
async fn with_hearth_stopped_the_proxy_still_serves_the_feed() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.calendars.behind_cdn = true;
        c.calendars.feed_ttl = Duration::from_secs(1);
    })
    .await;
    publish(&server, &upstream).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let nginx = start_nginx(dir.path(), server.addr);
    let first = poll_through(&nginx, "Google-Calendar-Importer").await;
    assert_eq!(first.status(), StatusCode::OK);
    let body = first.text().await.expect("body");
    server.stop().await;

    // Past the one-second TTL nginx cannot ask Hearth; it serves the copy it holds, stale.
    let mut answers = 0;
    until("a stale answer from the proxy", || {
        answers += 1;
        let nginx = &nginx;
        let body = &body;
        async move {
            let response = poll_through(nginx, "Google-Calendar-Importer").await;
            assert_eq!(response.status(), StatusCode::OK, "the proxy kept serving");
            let status = response
                .headers()
                .get("x-cache-status")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            assert_eq!(&response.text().await.expect("body"), body);
            status == "STALE"
        }
    })
    .await;
    assert!(answers >= 1);
}
