//! Alerts (`--notify-url`): the server runs the doctor's checks every few minutes and tells its
//! owner when one turns bad, and when it is good again, with a `POST` of the check's words to an
//! address of their choosing (an ntfy topic, or any webhook). Which checks and how often is
//! `policy.rs` (at most one message per check a day while it stays bad, what was sent kept in
//! `meta` so a restart does not send it again); the message is `message.rs`; sending it,
//! `deliver.rs`. Messages wait in a bounded queue for a task of their own, each tried a bounded
//! number of times with growing waits, so nothing here ever holds up a request. The address may
//! hold a token: it is never logged, answered or shown ("set" or "not set" only).

mod deliver;
pub mod message;
pub mod policy;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

pub use deliver::DeliveryError;
use deliver::Sender;
use message::Message;
use policy::Kept;

use crate::clock::{to_millis, Clock};
use crate::config::AlertSettings;
use crate::doctor::{self, Setup};
use crate::fair::{Allowance, ClientKey, Rate};
use crate::lock::lock;
use crate::store::{Db, StoreError};

/// Messages waiting to be sent; past this a new one is dropped (and counted as failed).
const QUEUE: usize = 32;

/// The `meta` key of what was sent per check.
const KEPT_KEY: &str = "alerts_sent";

/// Test notifications a client may send: three at once, then one every two minutes.
const TESTS_BURST: u32 = 3;
const TESTS_EVERY: Duration = Duration::from_secs(120);

/// What the owner page says of the alerts (never the address).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlertsReport {
    /// Whether `--notify-url` is set.
    pub configured: bool,
    /// The checks' runs since the start, and the last one's time (unix ms).
    pub checks: u64,
    #[serde(serialize_with = "rfc3339")]
    pub checked_at: Option<i64>,
    /// Messages delivered and given up since the start, and those still to go.
    pub sent: u64,
    pub failed: u64,
    pub pending: usize,
    /// Why the last message given up was not delivered, and when (unix ms).
    pub last_failure: Option<String>,
    #[serde(serialize_with = "rfc3339")]
    pub last_failure_at: Option<i64>,
}

/// Times in the owner answer as its other times are: RFC 3339.
fn rfc3339<S: serde::Serializer>(at: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    at.map(|ms| crate::publish::health::rfc3339(crate::clock::from_millis(ms)))
        .serialize(s)
}

/// Why a test notification was not sent.
#[derive(Debug, thiserror::Error)]
pub enum TestError {
    #[error(
        "no notification address is set: start Hearth with --notify-url (or HEARTH_NOTIFY_URL)"
    )]
    NotSet,
    #[error("wait before sending another test notification")]
    Wait(Duration),
    #[error("the test notification was not delivered: {0}")]
    Failed(DeliveryError),
}

pub struct Alerts {
    settings: AlertSettings,
    db: Db,
    clock: Clock,
    doctor: Arc<Setup>,
    sender: Option<Arc<Sender>>,
    tests: Allowance,
    kept: Mutex<Kept>,
    report: Mutex<AlertsReport>,
    queue: Mutex<Option<mpsc::Sender<Message>>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl Alerts {
    /// `site` names the server in messages (the public address's host, or where it listens).
    pub fn new(
        settings: AlertSettings,
        db: Db,
        clock: Clock,
        doctor: Arc<Setup>,
        site: String,
    ) -> Arc<Alerts> {
        let sender = settings.url.clone().and_then(|url| {
            Sender::new(url, settings.timeout, site)
                .map_err(|e| tracing::error!(error = %e, "notifications are off"))
                .ok()
                .map(Arc::new)
        });
        Arc::new(Alerts {
            tests: Allowance::new(Rate::every(TESTS_BURST, TESTS_EVERY), clock.clone()),
            report: Mutex::new(AlertsReport {
                configured: sender.is_some(),
                ..AlertsReport::default()
            }),
            settings,
            db,
            clock,
            doctor,
            sender,
            kept: Mutex::new(Kept::default()),
            queue: Mutex::new(None),
            tasks: Mutex::new(Vec::new()),
        })
    }

    pub fn report(&self) -> AlertsReport {
        lock(&self.report).clone()
    }

    /// Starts the checks and the sending (nothing without `--notify-url`).
    pub async fn spawn(self: &Arc<Self>) {
        let Some(sender) = self.sender.clone() else {
            tracing::info!("notifications are off (--notify-url unset)");
            return;
        };
        match self.db.read(read_kept).await {
            Ok(kept) => *lock(&self.kept) = kept,
            Err(e) => tracing::warn!(error = %e, "could not read which notifications were sent"),
        }
        tracing::info!(
            every = %crate::backups::every(self.settings.check_every),
            "notifications on: the checks run {}",
            crate::backups::every(self.settings.check_every)
        );
        let (tx, mut rx) = mpsc::channel::<Message>(QUEUE);
        *lock(&self.queue) = Some(tx);
        let alerts = self.clone();
        let sending = tokio::spawn(async move {
            while let Some(message) = rx.recv().await {
                alerts.deliver(&sender, &message).await;
            }
        });
        let alerts = self.clone();
        let checking = tokio::spawn(async move {
            let every = alerts.settings.check_every;
            let mut due = alerts.clock.now() + alerts.settings.first_after;
            loop {
                alerts.clock.sleep_until(due).await;
                alerts.check().await;
                due += every;
                let now = alerts.clock.now();
                while due < now {
                    due += every;
                }
            }
        });
        lock(&self.tasks).extend([sending, checking]);
    }

    /// Stops the checks and the sending (at shutdown); what is queued is not sent.
    pub fn stop(&self) {
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }

    /// Configuration advice is no news (see `policy::QUIET`); nor is the backups check when
    /// scheduled backups are off, which is then only the advice to turn them on.
    fn quiet(&self, check: &str) -> bool {
        policy::QUIET.contains(&check)
            || (check == "backups" && self.doctor.backups.interval.is_none())
    }

    /// One run of the checks, and the messages it calls for queued.
    async fn check(&self) {
        let setup = self.doctor.clone();
        let now = self.clock.wall();
        let Ok(findings) = tokio::task::spawn_blocking(move || doctor::run(&setup, now)).await
        else {
            tracing::warn!("the checks for notifications stopped");
            return;
        };
        let kept = lock(&self.kept).clone();
        let (messages, next) = policy::decide(&kept, &findings, |c| self.quiet(c), to_millis(now));
        if next != kept {
            *lock(&self.kept) = next.clone();
            if let Err(e) = self.db.write(move |conn| write_kept(conn, &next)).await {
                tracing::warn!(error = %e, "could not keep which notifications were sent");
            }
        }
        for message in messages {
            self.enqueue(message);
        }
        let mut report = lock(&self.report);
        report.checks += 1;
        report.checked_at = Some(to_millis(now));
    }

    fn enqueue(&self, message: Message) {
        let Some(queue) = lock(&self.queue).clone() else {
            return;
        };
        let check = message.check.clone();
        lock(&self.report).pending += 1;
        if queue.try_send(message).is_err() {
            tracing::warn!(
                check,
                "too many notifications waiting: this one was dropped"
            );
            self.given_up("too many notifications were waiting".to_owned());
        }
    }

    fn given_up(&self, why: String) {
        let mut report = lock(&self.report);
        report.pending = report.pending.saturating_sub(1);
        report.failed += 1;
        report.last_failure = Some(why);
        report.last_failure_at = Some(to_millis(self.clock.wall()));
    }

    /// Sends `message`, trying again after each of the configured waits.
    async fn deliver(&self, sender: &Sender, message: &Message) {
        let mut waits = self.settings.retry_after.iter();
        loop {
            match sender.send(message).await {
                Ok(()) => {
                    tracing::info!(check = message.check, "sent a notification");
                    let mut report = lock(&self.report);
                    report.pending = report.pending.saturating_sub(1);
                    report.sent += 1;
                    return;
                }
                Err(e) => match waits.next() {
                    Some(wait) => {
                        tracing::warn!(check = message.check, error = %e, "a notification was not delivered: trying again in {}", humantime::format_duration(*wait));
                        self.clock.sleep(*wait).await;
                    }
                    None => {
                        tracing::error!(check = message.check, error = %e, "a notification was not delivered: given up");
                        self.given_up(e.to_string());
                        return;
                    }
                },
            }
        }
    }

    /// The owner page's "Send a test notification": one attempt, its outcome in the answer.
    pub async fn test(&self, client: ClientKey) -> Result<(), TestError> {
        let sender = self.sender.as_ref().ok_or(TestError::NotSet)?;
        self.tests.take(&client, 1.0).map_err(TestError::Wait)?;
        let message = Message::test(sender.site());
        sender.send(&message).await.map_err(TestError::Failed)?;
        tracing::info!("sent a test notification");
        Ok(())
    }
}

fn read_kept(conn: &rusqlite::Connection) -> Result<Kept, StoreError> {
    use rusqlite::OptionalExtension;
    let text: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = ?1", [KEPT_KEY], |r| {
            r.get(0)
        })
        .optional()?;
    Ok(text
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default())
}

fn write_kept(conn: &mut rusqlite::Connection, kept: &Kept) -> Result<(), StoreError> {
    crate::store::meta::set_json(conn, KEPT_KEY, kept)
}

/// How messages name this server: the host of `--public-url`, else the address it listens on.
pub fn site_name(public_url: Option<&str>, listen: std::net::SocketAddr) -> String {
    public_url
        .and_then(|u| reqwest::Url::parse(u).ok())
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| listen.to_string())
}
