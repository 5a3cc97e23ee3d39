//! A real CalDAV server for the tests: Radicale (from PyPI, installed by tests/caldav/run.sh,
//! which names its program in `HEARTH_RADICALE`) on a free loopback port, with htpasswd logins
//! (plain) and its collections in a throw-away folder; stopped when dropped. Seeding speaks
//! CalDAV to it (MKCALENDAR, PUT), as a calendar app would.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};

pub const USER: &str = "alice";
pub const PASSWORD: &str = "correct horse battery";

pub struct Radicale {
    pub port: u16,
    child: Child,
    _dir: tempfile::TempDir,
    client: reqwest::Client,
}

impl Drop for Radicale {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

impl Radicale {
    /// Starts Radicale; panics (the test fails, it is never skipped) when it cannot.
    pub async fn start() -> Radicale {
        let program = std::env::var("HEARTH_RADICALE").unwrap_or_else(|_| {
            panic!("HEARTH_RADICALE names no Radicale: run these tests with `make caldav`")
        });
        let dir = tempfile::tempdir().expect("tempdir");
        let users = dir.path().join("users");
        std::fs::write(&users, format!("{USER}:{PASSWORD}\nbob:bobs password\n")).expect("users");
        let port = free_port();
        let config = dir.path().join("config");
        let mut file = std::fs::File::create(&config).expect("config");
        write!(
            file,
            "[server]\nhosts = 127.0.0.1:{port}\n\
             [auth]\ntype = htpasswd\nhtpasswd_filename = {}\nhtpasswd_encryption = plain\ndelay = 0\n\
             [rights]\ntype = owner_only\n\
             [storage]\nfilesystem_folder = {}\n\
             [logging]\nlevel = warning\n",
            users.display(),
            dir.path().join("collections").display()
        )
        .expect("written");
        let child = Command::new(&program)
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("Radicale ({program}) does not start: {e}"));
        hearth::publish::fetch::install_crypto_provider();
        let radicale = Radicale {
            port,
            child,
            _dir: dir,
            client: reqwest::Client::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let answer = radicale.client.get(radicale.url("/")).send().await;
            if answer.is_ok() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "Radicale did not answer within 20 s"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        radicale
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    async fn send(&self, method: &str, path: &str, body: String, kind: &str) -> StatusCode {
        let method = Method::from_bytes(method.as_bytes()).expect("method");
        self.client
            .request(method, self.url(path))
            .basic_auth(USER, Some(PASSWORD))
            .header(reqwest::header::CONTENT_TYPE, kind)
            .body(body)
            .send()
            .await
            .expect("Radicale answers")
            .status()
    }

    /// Makes the calendar `path` (`/alice/work/`) named `name`, of `components`, with `color`.
    pub async fn calendar(&self, path: &str, name: &str, color: &str, components: &[&str]) {
        let comps: String = components
            .iter()
            .map(|c| format!("<C:comp name=\"{c}\"/>"))
            .collect();
        let body = format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\
             <C:mkcalendar xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\" xmlns:A=\"http://apple.com/ns/ical/\">\
             <D:set><D:prop><D:displayname>{name}</D:displayname><A:calendar-color>{color}</A:calendar-color>\
             <C:supported-calendar-component-set>{comps}</C:supported-calendar-component-set></D:prop></D:set></C:mkcalendar>"
        );
        let status = self.send("MKCALENDAR", path, body, "application/xml").await;
        assert_eq!(status, StatusCode::CREATED, "MKCALENDAR {path}");
    }

    /// Puts the calendar object `ics` at `path` (`/alice/work/a.ics`).
    pub async fn put(&self, path: &str, ics: &str) {
        let status = self
            .send("PUT", path, ics.to_owned(), "text/calendar")
            .await;
        assert!(status.is_success(), "PUT {path}: {status}");
    }
}
