//! Who reads each hosted feed: polls counted per calendar and client family (Google, Apple,
//! Microsoft, Thunderbird, Fastmail, other, told apart by their user agents), so the owner can
//! see "Google Calendar last fetched this feed 3 hours ago". Kept compactly: one row per
//! calendar and family with its last poll and daily counts for 30 days. Polls are counted in
//! memory and written at most once a minute (and at shutdown), so a busy feed does not write
//! to the SD card at every poll; the status answer adds what is not written yet.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use rusqlite::params;
use serde::Serialize;

use super::health::rfc3339;
use crate::clock::Clock;
use crate::clock::{from_millis, to_millis};
use crate::lock::lock;
use crate::store::{Db, StoreError};

/// Days of counts kept per row.
pub const DAYS_KEPT: i64 = 30;
/// How often counted polls are written to the database.
pub const WRITE_EVERY: Duration = Duration::from_secs(60);
/// Calendar and family pairs counted in memory at once; past it polls wait for the next write
/// (calendars are few, so this is only reached by a flood of ids that do not exist, which are
/// not counted anyway).
const MAX_PENDING: usize = 20_000;

/// The calendar apps told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Google,
    Apple,
    Microsoft,
    Thunderbird,
    Fastmail,
    Other,
}

impl Family {
    pub const ALL: [Family; 6] = [
        Family::Google,
        Family::Apple,
        Family::Microsoft,
        Family::Thunderbird,
        Family::Fastmail,
        Family::Other,
    ];

    /// The family of a `User-Agent`. Microsoft's apps are looked for before Apple's, since
    /// Outlook for iOS names iOS too.
    pub fn of(user_agent: &str) -> Family {
        let ua = user_agent.to_ascii_lowercase();
        let any = |needles: &[&str]| needles.iter().any(|n| ua.contains(n));
        if any(&["google-calendar", "google calendar"]) {
            Family::Google
        } else if any(&["outlook", "microsoft", "msoffice", "exchange"]) {
            Family::Microsoft
        } else if any(&["thunderbird", "lightning/"]) {
            Family::Thunderbird
        } else if any(&["fastmail"]) {
            Family::Fastmail
        } else if any(&[
            "dataaccessd",
            "calendaragent",
            "accountsd",
            "ical/",
            "ios/",
            "macos/",
            "mac os x/",
            "mac_os_x/",
        ]) {
            Family::Apple
        } else {
            Family::Other
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Family::Google => "google",
            Family::Apple => "apple",
            Family::Microsoft => "microsoft",
            Family::Thunderbird => "thunderbird",
            Family::Fastmail => "fastmail",
            Family::Other => "other",
        }
    }

    fn from_name(name: &str) -> Family {
        Family::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .unwrap_or(Family::Other)
    }
}

/// One family's polls of one calendar.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Counts {
    /// Unix ms.
    last_at: i64,
    /// Day number (days since 1970, UTC) to polls that day.
    days: BTreeMap<i64, u64>,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.last_at = self.last_at.max(other.last_at);
        for (day, n) in &other.days {
            *self.days.entry(*day).or_default() += n;
        }
    }

    /// Drops the days older than [`DAYS_KEPT`] before `today`.
    fn trim(&mut self, today: i64) {
        self.days.retain(|day, _| *day > today - DAYS_KEPT);
    }
}

/// A family's line in the status answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriberAnswer {
    pub family: Family,
    pub last_poll_at: String,
    /// Polls today and the six days before.
    pub polls7d: u64,
}

fn day_of(at: SystemTime) -> i64 {
    to_millis(at).div_euclid(86_400_000)
}

pub struct Polls {
    db: Db,
    clock: Clock,
    pending: Mutex<HashMap<(String, Family), Counts>>,
    /// Polls since the start by family, in [`Family::ALL`]'s order (the metrics read them).
    totals: [AtomicU64; 6],
}

impl Polls {
    pub fn new(db: Db, clock: Clock) -> Arc<Polls> {
        Arc::new(Polls {
            db,
            clock,
            pending: Mutex::new(HashMap::new()),
            totals: Default::default(),
        })
    }

    /// Polls since the start, by family.
    pub fn totals(&self) -> [(Family, u64); 6] {
        Family::ALL.map(|f| (f, self.totals[f as usize].load(Ordering::Relaxed)))
    }

    /// Counts one poll of calendar `id` by a client whose user agent is `user_agent`.
    pub fn record(&self, id: &str, user_agent: &str) {
        let now = self.clock.wall();
        let family = Family::of(user_agent);
        self.totals[family as usize].fetch_add(1, Ordering::Relaxed);
        let mut pending = lock(&self.pending);
        if pending.len() >= MAX_PENDING && !pending.contains_key(&(id.to_owned(), family)) {
            return;
        }
        let counts = pending.entry((id.to_owned(), family)).or_default();
        counts.last_at = to_millis(now);
        *counts.days.entry(day_of(now)).or_default() += 1;
    }

    /// Drops what is counted for a deleted calendar (its rows go with it).
    pub fn forget(&self, id: &str) {
        lock(&self.pending).retain(|(calendar, _), _| calendar != id);
    }

    /// Writes the counted polls into their rows (only for calendars that exist), one
    /// transaction; what cannot be written is counted again for the next try.
    pub async fn write(&self) -> Result<(), StoreError> {
        let taken = std::mem::take(&mut *lock(&self.pending));
        if taken.is_empty() {
            return Ok(());
        }
        let today = day_of(self.clock.wall());
        let kept = taken.clone();
        let written = self
            .db
            .write(move |conn| {
                let tx = conn.transaction()?;
                for ((id, family), counts) in &taken {
                    let stored: Option<(i64, String)> = {
                        use rusqlite::OptionalExtension;
                        tx.query_row(
                            "SELECT last_at, days FROM feed_polls WHERE calendar_id = ?1 AND family = ?2",
                            params![id, family.name()],
                            |r| Ok((r.get(0)?, r.get(1)?)),
                        )
                        .optional()?
                    };
                    let mut merged = stored.map(|(at, days)| parse(at, &days)).unwrap_or_default();
                    merged.add(counts);
                    merged.trim(today);
                    tx.execute(
                        "INSERT INTO feed_polls (calendar_id, family, last_at, days)
                         SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM calendars WHERE id = ?1)
                         ON CONFLICT (calendar_id, family) DO UPDATE SET
                           last_at = excluded.last_at, days = excluded.days",
                        params![id, family.name(), merged.last_at, days_json(&merged)],
                    )?;
                }
                tx.commit()?;
                Ok(())
            })
            .await;
        if written.is_err() {
            let mut pending = lock(&self.pending);
            for (key, counts) in kept {
                pending.entry(key).or_default().add(&counts);
            }
        }
        written
    }

    /// Writes every [`WRITE_EVERY`] until the server stops (the last write is `lib.rs`'s, at
    /// shutdown).
    pub fn spawn_writes(self: &Arc<Self>) {
        let polls = self.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(WRITE_EVERY);
            every.tick().await;
            loop {
                every.tick().await;
                if let Err(e) = polls.write().await {
                    tracing::warn!(error = %e, "could not write the feed poll counts: will try again");
                }
            }
        });
    }

    /// Calendar `id`'s subscribers by family, the latest poll first: the written rows with what
    /// is counted since.
    pub async fn of(&self, id: &str) -> Result<Vec<SubscriberAnswer>, StoreError> {
        let calendar = id.to_owned();
        let mut by_family: BTreeMap<Family, Counts> = self
            .db
            .read(move |conn| {
                let mut statement = conn.prepare(
                    "SELECT family, last_at, days FROM feed_polls WHERE calendar_id = ?1",
                )?;
                let rows = statement.query_map([&calendar], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                })?;
                let mut out = BTreeMap::new();
                for row in rows {
                    let (family, at, days) = row?;
                    out.insert(Family::from_name(&family), parse(at, &days));
                }
                Ok(out)
            })
            .await?;
        for ((calendar, family), counts) in lock(&self.pending).iter() {
            if calendar == id {
                by_family.entry(*family).or_default().add(counts);
            }
        }
        let today = day_of(self.clock.wall());
        let mut answers: Vec<SubscriberAnswer> = by_family
            .into_iter()
            .map(|(family, mut counts)| {
                counts.trim(today);
                SubscriberAnswer {
                    family,
                    last_poll_at: rfc3339(from_millis(counts.last_at)),
                    polls7d: counts.days.range(today - 6..).map(|(_, n)| n).sum(),
                }
            })
            .collect();
        answers.sort_by(|a, b| b.last_poll_at.cmp(&a.last_poll_at));
        Ok(answers)
    }
}

fn parse(last_at: i64, days: &str) -> Counts {
    let days: BTreeMap<String, u64> = serde_json::from_str(days).unwrap_or_default();
    Counts {
        last_at,
        days: days
            .into_iter()
            .filter_map(|(day, n)| day.parse().ok().map(|day| (day, n)))
            .collect(),
    }
}

fn days_json(counts: &Counts) -> String {
    let days: BTreeMap<String, u64> = counts
        .days
        .iter()
        .map(|(day, n)| (day.to_string(), *n))
        .collect();
    serde_json::to_string(&days).unwrap_or_else(|_| "{}".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_user_agents_are_told_apart() {
        let cases = [
            ("Google-Calendar-Importer", Family::Google),
            (
                "Mozilla/5.0 (compatible; Google-Calendar-Importer; +http://www.google.com/)",
                Family::Google,
            ),
            ("iOS/17.4 (21E219) dataaccessd/1.0", Family::Apple),
            ("macOS/14.4 (23E214) CalendarAgent/1000.4.1", Family::Apple),
            ("Mac OS X/10.15.7 (19H2) CalendarAgent/954", Family::Apple),
            (
                "Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)",
                Family::Microsoft,
            ),
            ("Outlook-iOS/728.3946", Family::Microsoft),
            (
                "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.3.1",
                Family::Thunderbird,
            ),
            ("Fastmail Calendar Subscriber", Family::Fastmail),
            ("curl/8.5.0", Family::Other),
            ("", Family::Other),
        ];
        for (ua, family) in cases {
            assert_eq!(Family::of(ua), family, "{ua}");
        }
    }

    #[tokio::test]
    async fn counts_are_kept_per_day_for_thirty_days_and_read_with_the_unwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("opens");
        db.write(|c| {
            c.execute_batch(
                "INSERT INTO calendars (id, name, url, mapping, token_hash, created_at, updated_at)
                 VALUES ('cal', 'Cal', 'https://example.com/a.ics', '{}', 'x', 0, 0)",
            )?;
            Ok(())
        })
        .await
        .expect("seeds");
        let clock = Clock::manual();
        let polls = Polls::new(db.clone(), clock.clone());
        polls.record("cal", "Google-Calendar-Importer");
        polls.write().await.expect("writes");
        // Polls of a calendar that does not exist are not written.
        polls.record("nope", "Google-Calendar-Importer");
        clock.advance(Duration::from_secs(3 * 86_400));
        polls.record("cal", "Google-Calendar-Importer");
        polls.record("cal", "Google-Calendar-Importer");
        polls.write().await.expect("writes");
        clock.advance(Duration::from_secs(1));
        polls.record("cal", "iOS/17.4 (21E219) dataaccessd/1.0");
        let now = polls.of("cal").await.expect("reads");
        assert_eq!(now.len(), 2);
        assert_eq!(now[0].family, Family::Apple, "the latest first");
        assert_eq!(now[1].polls7d, 3);
        // Eight days on, the first day's poll has left the week; 38 days on, the row's days.
        clock.advance(Duration::from_secs(5 * 86_400));
        let google = |all: Vec<SubscriberAnswer>| {
            all.into_iter()
                .find(|s| s.family == Family::Google)
                .expect("google")
        };
        assert_eq!(google(polls.of("cal").await.expect("reads")).polls7d, 2);
        let rows: i64 = db
            .read(|c| {
                Ok(c.query_row(
                    "SELECT count(*) FROM feed_polls WHERE calendar_id = 'nope'",
                    [],
                    |r| r.get(0),
                )?)
            })
            .await
            .expect("reads");
        assert_eq!(rows, 0);
        clock.advance(Duration::from_secs(30 * 86_400));
        polls.record("cal", "Google-Calendar-Importer");
        polls.write().await.expect("writes");
        let days: String = db
            .read(|c| {
                Ok(c.query_row(
                    "SELECT days FROM feed_polls WHERE family = 'google'",
                    [],
                    |r| r.get(0),
                )?)
            })
            .await
            .expect("reads");
        assert_eq!(parse(0, &days).days.len(), 1, "{days}");
    }
}
