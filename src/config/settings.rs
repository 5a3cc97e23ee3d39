//! The settings each part of the server takes, and only its own: the site's profile, the
//! calendar tool, sync, and the edge every request passes (keys, proxies, budgets). What has a
//! flag gets its default from the flag (`cli.rs`); what has none (the budgets tests lower) gets
//! it from its type's `Default` here or in `http`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use crate::http::client::IpRange;
use crate::http::inflight::InFlightLimits;
use crate::http::limits::RateLimits;
use crate::http::pace::{BodyRules, WriteRules};

/// Time a client has to send a request's headers, counted from the connection's start or the
/// end of its previous response (so it also closes idle keep-alive connections).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long in-flight requests may take to finish after a shutdown signal.
pub const SHUTDOWN_DEADLINE: Duration = Duration::from_secs(5);

/// An image the landing page shows as the profile picture.
#[derive(Debug, Clone)]
pub struct Avatar {
    pub bytes: Vec<u8>,
    pub content_type: &'static str,
}

/// The landing page's profile.
#[derive(Debug, Clone)]
pub struct SiteSettings {
    pub owner_name: String,
    /// `None`: the built-in avatar.
    pub avatar: Option<Avatar>,
    pub spotify_url: Option<String>,
    pub beehive_url: Option<String>,
}

/// The calendar tool: fetching, caching, the engine's budgets and what publishing may store.
#[derive(Debug, Clone)]
pub struct CalendarSettings {
    pub allow_private_feeds: bool,
    pub feed_ttl: Duration,
    /// `--behind-cdn`: hosted feeds may be kept by shared caches.
    pub behind_cdn: bool,
    pub feed_max_size: usize,
    /// Bytes of feed copies and rendered feeds kept in memory (`--cache-size`).
    pub cache_size: usize,
    pub max_calendars: usize,
    pub max_feed_storage: u64,
    /// The calendar engine's time budgets (no flag).
    pub engine: EngineBudget,
    /// Fixed addresses for feed host names (no flag: tests point Outlook's names at loopback).
    pub feed_hosts: HashMap<String, Vec<IpAddr>>,
    /// Budgets of the fetches made upstream for visitors (no flag).
    pub upstream: UpstreamLimits,
}

/// Budgets of the fetches Hearth makes to other servers for its visitors (the editor reading
/// feeds, previews, publishing), so that nobody can use it to hammer a third party: per client
/// (its /56 and /48 at their multiples) and per upstream host, each `burst` at once and then one
/// every `every`; and connections open at once to one host. The server's own refreshes of hosted
/// calendars spend neither allowance and have as many connections again of their own. No flags:
/// README's Budgets section documents them, tests lift them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpstreamLimits {
    pub client_burst: u32,
    pub client_every: Duration,
    pub host_burst: u32,
    pub host_every: Duration,
    pub connections_per_host: usize,
}

impl Default for UpstreamLimits {
    /// A merged calendar's ten sources on one host at once, then six fetches a minute of that
    /// host; a client thirty fetches at once, then one every two seconds; eight connections to
    /// a host for visitors (a client two of them, two kept for clients holding none).
    fn default() -> UpstreamLimits {
        UpstreamLimits {
            client_burst: 30,
            client_every: Duration::from_secs(2),
            host_burst: 10,
            host_every: Duration::from_secs(10),
            connections_per_host: 8,
        }
    }
}

impl UpstreamLimits {
    /// As good as none (tests that fetch the same loopback upstream many times).
    pub fn unlimited() -> UpstreamLimits {
        UpstreamLimits {
            client_burst: 1_000_000,
            client_every: Duration::from_millis(1),
            host_burst: 1_000_000,
            host_every: Duration::from_millis(1),
            connections_per_host: 64,
        }
    }
}

/// Flashcard sync and shared decks.
#[derive(Debug, Clone, Copy)]
pub struct SyncSettings {
    /// Off with `--no-sync`: the sync routes answer 404.
    pub enabled: bool,
    pub max_vaults: usize,
    pub max_shares: usize,
    /// Bytes of one encrypted blob (a vault or a shared deck).
    pub max_vault_size: usize,
    /// Bytes of all sync blobs together (their parts and media included).
    pub max_sync_storage: u64,
    /// Bytes of the media (sealed pictures and sounds) of one vault or shared deck.
    pub media_quota: u64,
    /// How long an unread vault, and an unopened shared deck, are kept.
    pub vault_expiry: Duration,
    pub share_expiry: Duration,
}

/// Replication by Litestream (`--replica-url` and the flags beside it).
#[derive(Debug, Clone)]
pub struct ReplicationSettings {
    /// `None`: not replicated.
    pub replica_url: Option<String>,
    /// Litestream's configuration file and program.
    pub config: std::path::PathBuf,
    pub litestream: std::path::PathBuf,
    /// How often the restore drill runs; `None`: never.
    pub drill_interval: Option<Duration>,
    /// How long one drill (the restore and the check) may take (no flag; tests shorten it).
    pub drill_timeout: Duration,
}

/// How long a restore drill may take before it is stopped and counted as failed.
pub const DRILL_TIMEOUT: Duration = Duration::from_secs(15 * 60);

impl ReplicationSettings {
    pub fn replicated(&self) -> bool {
        self.replica_url.is_some()
    }

    /// The replica's address without its query (which may name an endpoint with a key).
    pub fn replica_shown(&self) -> Option<String> {
        self.replica_url
            .as_deref()
            .map(|u| u.split(['?', '#']).next().unwrap_or(u).to_owned())
    }
}

/// Scheduled backups of the database.
#[derive(Debug, Clone)]
pub struct BackupSettings {
    pub dir: std::path::PathBuf,
    /// `None`: off.
    pub interval: Option<Duration>,
    pub keep: usize,
    pub command: Option<String>,
    /// Free space the disk keeps after a backup; short of it the backup is skipped and
    /// reported (no flag: tests raise it to see the skip).
    pub min_free: u64,
    /// How long `--backup-command` may run before it is stopped (no flag; tests shorten it).
    pub command_timeout: Duration,
}

/// Free space a backup leaves on the disk at least.
pub const BACKUP_MIN_FREE: u64 = 64 * 1024 * 1024;
/// How long a backup command may run.
pub const BACKUP_COMMAND_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// The edge every request passes: who may do what (the keys), who the client is (the
/// proxies), and the budgets every client draws on.
#[derive(Debug, Clone)]
pub struct EdgeSettings {
    pub publish_key: Option<String>,
    /// `--sync-key`: what making a vault or shared deck needs (else the publish key, if any).
    pub sync_key: Option<String>,
    /// Connections open at once; when full the heaviest client loses its oldest.
    pub max_connections: usize,
    /// Connections open at once per client (IPv4 address, IPv6 /64; a /48 gets twice as many).
    pub max_connections_per_address: usize,
    /// See `HEADER_READ_TIMEOUT` (no flag; tests shorten it).
    pub header_read_timeout: Duration,
    /// `--trusted-proxy`: peers whose forwarding headers name the client.
    pub trusted_proxies: Vec<IpRange>,
    /// `--trust-loopback`: loopback peers are proxies too.
    pub trust_loopback: bool,
    /// `--max-bytes-in-flight`: bodies being read and answers being written, all together.
    pub max_bytes_in_flight: usize,
    /// Requests under way at once per client on the API and hosted feeds (no flag).
    pub in_flight: InFlightLimits,
    /// How fast request bodies must arrive and answers be taken (no flags; tests shorten them).
    pub body_rules: BodyRules,
    pub write_rules: WriteRules,
    /// Rate allowances (no flags; README documents them, tests lower them).
    pub rate_limits: RateLimits,
}

/// The calendar engine's budgets (no flags; README's Budgets section documents them, tests
/// lower them): how long one job may take, and each visitor's share of engine time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineBudget {
    /// A preview, a test render or a feed page for the editor.
    pub preview: Duration,
    /// Checking a calendar being published (compiling it and rendering its feed once).
    pub publish: Duration,
    /// A hosted feed's render (the server's own work, kept until its inputs change).
    pub hosted: Duration,
    /// Engine time one visitor may use in a row, and how fast it comes back: one second of
    /// engine time every `refill_every`.
    pub burst: Duration,
    pub refill_every: Duration,
    /// Jobs of one visitor under way or waiting at once.
    pub jobs_per_client: usize,
}

impl EngineBudget {
    /// Seconds of engine time a visitor gets back per second.
    pub fn refill_per_second(&self) -> f64 {
        1.0 / self.refill_every.as_secs_f64().max(0.001)
    }
}

impl Default for EngineBudget {
    fn default() -> Self {
        EngineBudget {
            preview: Duration::from_secs(5),
            publish: Duration::from_secs(10),
            hosted: Duration::from_secs(20),
            burst: Duration::from_secs(30),
            refill_every: Duration::from_secs(4),
            jobs_per_client: 2,
        }
    }
}

/// `--notify-url`: where alerts go. It may hold a token (an ntfy access token in its query, a
/// webhook's secret path), so nothing prints it: its `Debug` says only that it is set, and the
/// one way to read it is [`NotifyUrl::expose`], for the request that sends a message.
#[derive(Clone, PartialEq, Eq)]
pub struct NotifyUrl(String);

impl NotifyUrl {
    /// An `http://` or `https://` address with a host. The error never repeats the address.
    pub fn parse(value: &str) -> Result<NotifyUrl, &'static str> {
        let trimmed = value.trim();
        if trimmed.is_empty() {
            return Err("the address is empty");
        }
        let url = reqwest::Url::parse(trimmed).map_err(|_| "not a valid address")?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err("not an http:// or https:// address");
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("the address has no host");
        }
        Ok(NotifyUrl(url.to_string()))
    }

    /// The address itself, for the request that sends a message and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for NotifyUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NotifyUrl(set)")
    }
}

/// Alerts: the doctor's checks run in the server, and a message when one turns bad or good.
#[derive(Debug, Clone)]
pub struct AlertSettings {
    /// `None`: no alerts (the checks are not run for them either).
    pub url: Option<NotifyUrl>,
    /// How often the checks run (no flag); the first run waits `first_after`.
    pub check_every: Duration,
    pub first_after: Duration,
    /// Waits between the attempts of one message (no flag; their count bounds the attempts).
    pub retry_after: Vec<Duration>,
    /// One request's time limit.
    pub timeout: Duration,
}

impl Default for AlertSettings {
    fn default() -> AlertSettings {
        let minutes = |m: u64| Duration::from_secs(m * 60);
        AlertSettings {
            url: None,
            check_every: minutes(5),
            first_after: minutes(1),
            // Five attempts within about 45 minutes, then the message is given up (the next
            // day's reminder says it again while the check stays bad).
            retry_after: vec![
                Duration::from_secs(30),
                minutes(2),
                minutes(10),
                minutes(30),
            ],
            timeout: Duration::from_secs(10),
        }
    }
}
