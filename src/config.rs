//! Command line and environment: every flag of DESIGN.md, each also read from its `HEARTH_*`
//! variable (flags win), resolved into the `Config` that the server runs with.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::http::client::IpRange;
use crate::http::limits::RateLimits;

pub use crate::version::VERSION;

/// Default for `--cache-size`: room for a few large feeds on a 1 GB Pi.
pub const DEFAULT_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// Owner name shown until the owner configures one.
pub const DEFAULT_OWNER_NAME: &str = "Your Name";

/// Defaults of `--max-calendars` and `--max-feed-storage`: room for a household's calendars
/// that a small SD card still holds comfortably beside the system.
pub const DEFAULT_MAX_CALENDARS: usize = 100;
pub const DEFAULT_MAX_FEED_STORAGE: u64 = 256 * 1024 * 1024;

/// Defaults of the sync quotas (`--max-vaults`, `--max-shares`, `--max-vault-size`,
/// `--max-sync-storage`): a household's devices and shared decks; 300 decks with 10,000 reviews
/// make a vault of well under 1 MiB once compressed and encrypted.
pub const DEFAULT_MAX_VAULTS: usize = 200;
pub const DEFAULT_MAX_SHARES: usize = 1000;
pub const DEFAULT_MAX_VAULT_SIZE: usize = 8 * 1024 * 1024;
pub const DEFAULT_MAX_SYNC_STORAGE: u64 = 256 * 1024 * 1024;

/// Defaults of `--vault-expiry` and `--share-expiry`: how long a vault or shared deck nobody
/// reads stays on the server (every device of a learner reads its vault each time it opens).
pub const DEFAULT_VAULT_EXPIRY: Duration = Duration::from_secs(180 * 24 * 60 * 60);
pub const DEFAULT_SHARE_EXPIRY: Duration = Duration::from_secs(90 * 24 * 60 * 60);

/// Default of `--max-bytes-in-flight`: request bodies being read and large answers being
/// written from memory, all clients together; one client may use a quarter of it.
pub const DEFAULT_BYTES_IN_FLIGHT: usize = 48 * 1024 * 1024;

/// Requests under way at once per client (IPv4 address, IPv6 /64) on the routes that do work
/// (the API, hosted feeds), and per IPv6 /48 in aggregate.
pub const DEFAULT_IN_FLIGHT_PER_CLIENT: usize = 16;
pub const DEFAULT_IN_FLIGHT_PER_NETWORK: usize = 32;

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

/// Largest avatar image accepted, so a wrong path cannot make the server hold a huge file.
const MAX_AVATAR_BYTES: u64 = 2 * 1024 * 1024;

#[derive(Debug, Parser)]
#[command(
    name = "hearth",
    version = VERSION,
    about = "A personal website in one binary: landing page, flashcards and calendar feed remapping."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once at start: boxing `ServeArgs` would save nothing that matters.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the site.
    Serve(Box<ServeArgs>),
    /// Write an online copy of the database to PATH (safe while `serve` runs).
    Backup(BackupArgs),
    /// Remap a calendar feed (file or stdin) with a mapping and write it to stdout.
    Remap(RemapArgs),
}

/// Where the SQLite file lives; shared by `serve` and `backup`.
#[derive(Debug, Clone, Args)]
pub struct DataDirArg {
    /// Directory for the SQLite database (hearth.db). Default: $STATE_DIRECTORY under systemd, else ./data.
    #[arg(long, env = "HEARTH_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

impl DataDirArg {
    /// The flag, else the first directory systemd gave in `$STATE_DIRECTORY`, else `./data`.
    pub fn resolve(&self) -> PathBuf {
        if let Some(dir) = &self.data_dir {
            return dir.clone();
        }
        if let Some(state) = std::env::var_os("STATE_DIRECTORY") {
            if let Some(first) = std::env::split_paths(&state).find(|p| !p.as_os_str().is_empty()) {
                return first;
            }
        }
        PathBuf::from("./data")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address and port to listen on.
    #[arg(
        long,
        env = "HEARTH_LISTEN",
        default_value = "127.0.0.1:8080",
        value_name = "ADDR"
    )]
    pub listen: SocketAddr,

    #[command(flatten)]
    pub data_dir: DataDirArg,

    /// Public address of the site (e.g. https://example.org), used in hosted feed links; other
    /// Host names (but localhost, IP addresses and .local) are then refused. Unset: derived
    /// from each request's Host and X-Forwarded-Proto.
    #[arg(long, env = "HEARTH_PUBLIC_URL", value_name = "URL", value_parser = parse_public_url)]
    pub public_url: Option<String>,

    /// The owner's name, shown as the landing page heading.
    #[arg(long, env = "HEARTH_OWNER_NAME", default_value = DEFAULT_OWNER_NAME, value_name = "NAME", value_parser = parse_owner_name)]
    pub owner_name: String,

    /// Profile picture (PNG, JPEG, WebP, GIF or SVG file). Unset: a built-in neutral avatar.
    #[arg(long, env = "HEARTH_AVATAR", value_name = "PATH")]
    pub avatar: Option<PathBuf>,

    /// Address of the Spotify link on the landing page (hidden when unset).
    #[arg(long, env = "HEARTH_SPOTIFY_URL", value_name = "URL", value_parser = parse_link_url)]
    pub spotify_url: Option<String>,

    /// Address of the Beehive link on the landing page (hidden when unset).
    #[arg(long, env = "HEARTH_BEEHIVE_URL", value_name = "URL", value_parser = parse_link_url)]
    pub beehive_url: Option<String>,

    /// Allow calendar feeds on loopback, private and link-local addresses (LAN feeds, tests).
    /// Anyone who can use the editor can then make hearth fetch addresses on the LAN.
    #[arg(
        long,
        env = "HEARTH_ALLOW_PRIVATE_FEEDS",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub allow_private_feeds: bool,

    /// How long a fetched upstream feed is reused (e.g. 90s, 15m, 1h).
    #[arg(long, env = "HEARTH_FEED_TTL", default_value = "15m", value_name = "DURATION", value_parser = parse_ttl)]
    pub feed_ttl: Duration,

    /// Largest upstream feed accepted, after decompression (e.g. 10MiB, 512KiB).
    #[arg(long, env = "HEARTH_FEED_MAX_SIZE", default_value = "10MiB", value_name = "SIZE", value_parser = parse_size)]
    pub feed_max_size: usize,

    /// Memory for upstream copies and rendered feeds together; least recently used go first.
    #[arg(long, env = "HEARTH_CACHE_SIZE", default_value = "32MiB", value_name = "SIZE", value_parser = parse_cache_size)]
    pub cache_size: usize,
    /// Most calendars that may be published; a publish of a new one beyond it is refused (507).
    #[arg(long, env = "HEARTH_MAX_CALENDARS", default_value = "100", value_name = "COUNT", value_parser = parse_max_calendars)]
    pub max_calendars: usize,

    /// Most bytes of upstream feed copies kept in the database (e.g. 256MiB, 1GiB); publishing
    /// a feed not stored yet is refused (507) once they reach it.
    #[arg(long, env = "HEARTH_MAX_FEED_STORAGE", default_value = "256MiB", value_name = "SIZE", value_parser = parse_storage)]
    pub max_feed_storage: u64,

    /// Turn off flashcard sync and deck sharing: every /api/sync route answers 404 and the app
    /// hides them.
    #[arg(
        long,
        env = "HEARTH_NO_SYNC",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub no_sync: bool,

    /// Most sync vaults (one per learner's set of devices); creating one more is refused (507).
    /// One client address may hold an eighth of them.
    #[arg(long, env = "HEARTH_MAX_VAULTS", default_value_t = DEFAULT_MAX_VAULTS, value_name = "COUNT", value_parser = parse_count)]
    pub max_vaults: usize,

    /// Most shared-deck links; sharing one more is refused (507). One client address may hold
    /// an eighth of them.
    #[arg(long, env = "HEARTH_MAX_SHARES", default_value_t = DEFAULT_MAX_SHARES, value_name = "COUNT", value_parser = parse_count)]
    pub max_shares: usize,

    /// A vault nobody reads for this long is removed (e.g. 180d, 1y); its learner's devices
    /// keep their decks and can start a new one.
    #[arg(long, env = "HEARTH_VAULT_EXPIRY", default_value = "180d", value_name = "DURATION", value_parser = parse_expiry)]
    pub vault_expiry: Duration,

    /// A shared-deck link nobody opens for this long is removed (e.g. 90d).
    #[arg(long, env = "HEARTH_SHARE_EXPIRY", default_value = "90d", value_name = "DURATION", value_parser = parse_expiry)]
    pub share_expiry: Duration,

    /// Key that making a sync vault or a shared deck requires (an invitation for learners,
    /// which is not the publish key). Unset: the publish key when one is set, else anyone.
    #[arg(
        long,
        env = "HEARTH_SYNC_KEY",
        value_name = "KEY",
        conflicts_with = "sync_key_file",
        hide_env_values = true
    )]
    pub sync_key: Option<String>,

    /// File holding the sync key.
    #[arg(long, env = "HEARTH_SYNC_KEY_FILE", value_name = "PATH")]
    pub sync_key_file: Option<PathBuf>,

    /// Largest encrypted vault or shared deck accepted (e.g. 8MiB); larger uploads get 413.
    #[arg(long, env = "HEARTH_MAX_VAULT_SIZE", default_value = "8MiB", value_name = "SIZE", value_parser = parse_size)]
    pub max_vault_size: usize,

    /// Most bytes that vaults and shared decks take together in the database; writes that
    /// would grow past it are refused (507).
    #[arg(long, env = "HEARTH_MAX_SYNC_STORAGE", default_value = "256MiB", value_name = "SIZE", value_parser = parse_storage)]
    pub max_sync_storage: u64,

    /// Key that the calendar editor requires (feeds, previews, publishing). Unset: open to any
    /// visitor.
    #[arg(
        long,
        env = "HEARTH_PUBLISH_KEY",
        value_name = "KEY",
        conflicts_with = "publish_key_file",
        hide_env_values = true
    )]
    pub publish_key: Option<String>,

    /// File holding the publish key (for secrets managers and systemd credentials).
    #[arg(long, env = "HEARTH_PUBLISH_KEY_FILE", value_name = "PATH")]
    pub publish_key_file: Option<PathBuf>,

    /// Most connections open at once; more are closed as soon as they are accepted. Keep it
    /// well below the file descriptor limit (LimitNOFILE in the systemd unit).
    #[arg(
        long,
        env = "HEARTH_MAX_CONNECTIONS",
        default_value_t = DEFAULT_MAX_CONNECTIONS,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..=100_000)
    )]
    pub max_connections: u32,

    /// Most connections open at once for one client (an IPv4 address, an IPv6 /64; a /48 gets
    /// twice as many in aggregate). Behind a trusted proxy a connection counts for the visitor
    /// it carries. When the table is full, the client holding the most loses its oldest.
    #[arg(
        long,
        env = "HEARTH_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..=100_000)
    )]
    pub max_connections_per_address: u32,

    /// Reverse proxies whose X-Forwarded-For/Forwarded headers are believed, besides loopback:
    /// IP addresses or CIDR ranges, repeated or comma-separated (e.g. 10.0.0.2,192.168.1.0/24).
    #[arg(
        long = "trusted-proxy",
        env = "HEARTH_TRUSTED_PROXY",
        value_name = "IP[/BITS]",
        value_delimiter = ',',
        action = clap::ArgAction::Append
    )]
    pub trusted_proxies: Vec<IpRange>,

    /// Believe X-Forwarded-For/Forwarded from loopback peers (a reverse proxy on this
    /// machine). Turn it off when nothing on this machine forwards visitors to Hearth, so that
    /// every loopback connection counts as one client.
    #[arg(
        long,
        env = "HEARTH_TRUST_LOOPBACK",
        default_value_t = true,
        value_name = "BOOL",
        action = clap::ArgAction::Set,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub trust_loopback: bool,

    /// Memory for request bodies being read and large answers being written, all clients
    /// together (e.g. 48MiB); one client may use a quarter of it. Past it: 429 or 503.
    #[arg(long, env = "HEARTH_MAX_BYTES_IN_FLIGHT", default_value = "48MiB", value_name = "SIZE", value_parser = parse_in_flight)]
    pub max_bytes_in_flight: usize,

    /// Log format: text or json.
    #[arg(
        long,
        env = "HEARTH_LOG_FORMAT",
        default_value = "text",
        value_name = "FORMAT"
    )]
    pub log_format: LogFormat,
}

#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    #[command(flatten)]
    pub data_dir: DataDirArg,

    /// Where to write the copy; must not exist yet.
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct RemapArgs {
    /// JSON object with any of SUMMARY, DESCRIPTION, LOCATION, DTSTART, DTEND (absent keys keep ${KEY}).
    #[arg(long, value_name = "FILE.json", conflicts_with = "config")]
    pub mapping: Option<PathBuf>,

    /// A whole calendar config: {"mapping": {...}, "filters": [...], "window": {...},
    /// "timezones", "alarms", "privacy"} (README: Calendar options).
    #[arg(long, value_name = "CALENDAR.json")]
    pub config: Option<PathBuf>,

    /// Calendar name to set (X-WR-CALNAME and NAME).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// The feed to read; `-` or absent: standard input.
    #[arg(value_name = "INPUT.ics")]
    pub input: Option<PathBuf>,
}

/// Connections open at once, overall and per client address: well under the unit's
/// LimitNOFILE, and enough for a personal site (a browser opens about six per site).
pub const DEFAULT_MAX_CONNECTIONS: u32 = 512;
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: u32 = 32;
/// How long in-flight requests may take to finish after a shutdown signal.
pub const DEFAULT_SHUTDOWN_DEADLINE: Duration = Duration::from_secs(5);

/// Time a client has to send a request's headers, counted from the connection's start or the
/// end of its previous response (so it also closes idle keep-alive connections).
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// A setting that parsed but cannot be used (a file that does not read, a bad key file).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("--avatar {path}: {source}")]
    AvatarUnreadable {
        path: String,
        source: std::io::Error,
    },
    #[error("--avatar {path}: the file is larger than 2 MiB")]
    AvatarTooLarge { path: String },
    #[error("--avatar {path}: not a PNG, JPEG, WebP, GIF or SVG file")]
    AvatarType { path: String },
    #[error("--publish-key-file {path}: {source}")]
    PublishKeyUnreadable {
        path: String,
        source: std::io::Error,
    },
    #[error("the publish key is empty")]
    PublishKeyEmpty,
    #[error("--sync-key-file {path}: {source}")]
    SyncKeyUnreadable {
        path: String,
        source: std::io::Error,
    },
    #[error("the sync key is empty")]
    SyncKeyEmpty,
}

/// An image the landing page shows as the profile picture.
#[derive(Debug, Clone)]
pub struct Avatar {
    pub bytes: Vec<u8>,
    pub content_type: &'static str,
}

/// Everything `serve` needs, resolved and checked.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub data_dir: PathBuf,
    pub public_url: Option<String>,
    pub owner_name: String,
    /// `None`: the built-in avatar.
    pub avatar: Option<Avatar>,
    pub spotify_url: Option<String>,
    pub beehive_url: Option<String>,
    pub allow_private_feeds: bool,
    pub feed_ttl: Duration,
    pub feed_max_size: usize,
    /// Bytes of feed copies and rendered feeds kept in memory (`--cache-size`).
    pub cache_size: usize,
    pub max_calendars: usize,
    pub max_feed_storage: u64,
    pub publish_key: Option<String>,
    /// `--no-sync`: the sync routes answer 404.
    pub sync_enabled: bool,
    pub max_vaults: usize,
    pub max_shares: usize,
    /// Bytes of one encrypted blob (a vault or a shared deck).
    pub max_vault_size: usize,
    /// Bytes of all sync blobs together.
    pub max_sync_storage: u64,
    /// `--sync-key`: what making a vault or shared deck needs (else the publish key, if any).
    pub sync_key: Option<String>,
    /// How long an unread vault, and an unopened shared deck, are kept.
    pub vault_expiry: Duration,
    pub share_expiry: Duration,
    pub log_format: LogFormat,
    /// Where time comes from: the system, or a manual clock in tests.
    pub clock: crate::clock::Clock,
    /// Connections open at once; more are closed on accept.
    pub max_connections: usize,
    /// Connections open at once per client (IPv4 address, IPv6 /64; a /48 gets twice as many).
    pub max_connections_per_address: usize,
    /// How fast clients must take their answers (no flag; tests shorten it).
    pub write_rules: crate::http::pace::WriteRules,
    /// How fast request bodies must arrive (no flag; tests shorten it).
    pub body_rules: crate::http::pace::BodyRules,
    /// The calendar engine's time budgets (no flag).
    pub engine: EngineBudget,
    /// Requests under way at once per client on the API and hosted feeds (no flag).
    pub in_flight: crate::http::inflight::InFlightLimits,
    /// `--max-bytes-in-flight`: bodies being read and answers being written, all together.
    pub max_bytes_in_flight: usize,
    /// See `DEFAULT_HEADER_READ_TIMEOUT` (no flag; tests shorten it).
    pub header_read_timeout: Duration,
    /// See `DEFAULT_SHUTDOWN_DEADLINE` (no flag; tests shorten it).
    pub shutdown_deadline: Duration,
    /// `--trusted-proxy`: peers whose forwarding headers name the client (loopback always is).
    pub trusted_proxies: Vec<IpRange>,
    /// `--trust-loopback`: loopback peers are proxies whose headers name the client.
    pub trust_loopback: bool,
    /// Per-address allowances (no flags; README documents them, tests lower them).
    pub rate_limits: RateLimits,
    /// Fixed addresses for feed host names (no flag: tests point Outlook's names at loopback).
    pub feed_hosts: std::collections::HashMap<String, Vec<std::net::IpAddr>>,
}

impl ServeArgs {
    /// Reads the files the flags name and checks what clap cannot.
    pub fn into_config(self) -> Result<Config, ConfigError> {
        let avatar = self.avatar.as_deref().map(load_avatar).transpose()?;
        let publish_key = match (&self.publish_key, &self.publish_key_file) {
            (Some(key), _) => Some(key.trim().to_owned()),
            (None, Some(path)) => Some(std::fs::read_to_string(path).map_err(|source| {
                ConfigError::PublishKeyUnreadable {
                    path: path.display().to_string(),
                    source,
                }
            })?)
            .map(|k| k.trim().to_owned()),
            (None, None) => None,
        };
        if publish_key.as_deref() == Some("") {
            return Err(ConfigError::PublishKeyEmpty);
        }
        let sync_key = match (&self.sync_key, &self.sync_key_file) {
            (Some(key), _) => Some(key.trim().to_owned()),
            (None, Some(path)) => Some(
                std::fs::read_to_string(path)
                    .map_err(|source| ConfigError::SyncKeyUnreadable {
                        path: path.display().to_string(),
                        source,
                    })?
                    .trim()
                    .to_owned(),
            ),
            (None, None) => None,
        };
        if sync_key.as_deref() == Some("") {
            return Err(ConfigError::SyncKeyEmpty);
        }
        Ok(Config {
            listen: self.listen,
            data_dir: self.data_dir.resolve(),
            public_url: self.public_url,
            owner_name: self.owner_name,
            avatar,
            spotify_url: self.spotify_url,
            beehive_url: self.beehive_url,
            allow_private_feeds: self.allow_private_feeds,
            feed_ttl: self.feed_ttl,
            feed_max_size: self.feed_max_size,
            cache_size: self.cache_size,
            max_calendars: self.max_calendars,
            max_feed_storage: self.max_feed_storage,
            publish_key,
            sync_enabled: !self.no_sync,
            max_vaults: self.max_vaults,
            max_shares: self.max_shares,
            max_vault_size: self.max_vault_size,
            max_sync_storage: self.max_sync_storage,
            sync_key,
            vault_expiry: self.vault_expiry,
            share_expiry: self.share_expiry,
            log_format: self.log_format,
            clock: crate::clock::Clock::system(),
            max_connections: self.max_connections as usize,
            max_connections_per_address: self.max_connections_per_address as usize,
            write_rules: crate::http::pace::WriteRules::default(),
            body_rules: crate::http::pace::BodyRules::default(),
            in_flight: default_in_flight(),
            engine: EngineBudget::default(),
            max_bytes_in_flight: self.max_bytes_in_flight,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            shutdown_deadline: DEFAULT_SHUTDOWN_DEADLINE,
            trusted_proxies: self.trusted_proxies,
            trust_loopback: self.trust_loopback,
            rate_limits: RateLimits::default(),
            feed_hosts: std::collections::HashMap::new(),
        })
    }
}

impl Config {
    /// A configuration with every default, for tests and embedding.
    pub fn for_data_dir(data_dir: impl Into<PathBuf>) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: data_dir.into(),
            public_url: None,
            owner_name: DEFAULT_OWNER_NAME.to_owned(),
            avatar: None,
            spotify_url: None,
            beehive_url: None,
            allow_private_feeds: false,
            feed_ttl: Duration::from_secs(15 * 60),
            feed_max_size: 10 * 1024 * 1024,
            cache_size: DEFAULT_CACHE_BYTES,
            max_calendars: DEFAULT_MAX_CALENDARS,
            max_feed_storage: DEFAULT_MAX_FEED_STORAGE,
            publish_key: None,
            sync_enabled: true,
            max_vaults: DEFAULT_MAX_VAULTS,
            max_shares: DEFAULT_MAX_SHARES,
            max_vault_size: DEFAULT_MAX_VAULT_SIZE,
            max_sync_storage: DEFAULT_MAX_SYNC_STORAGE,
            sync_key: None,
            vault_expiry: DEFAULT_VAULT_EXPIRY,
            share_expiry: DEFAULT_SHARE_EXPIRY,
            log_format: LogFormat::Text,
            clock: crate::clock::Clock::system(),
            max_connections: DEFAULT_MAX_CONNECTIONS as usize,
            max_connections_per_address: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS as usize,
            write_rules: crate::http::pace::WriteRules::default(),
            body_rules: crate::http::pace::BodyRules::default(),
            in_flight: default_in_flight(),
            engine: EngineBudget::default(),
            max_bytes_in_flight: DEFAULT_BYTES_IN_FLIGHT,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            shutdown_deadline: DEFAULT_SHUTDOWN_DEADLINE,
            trusted_proxies: Vec::new(),
            trust_loopback: true,
            rate_limits: RateLimits::default(),
            feed_hosts: std::collections::HashMap::new(),
        }
    }
}

fn default_in_flight() -> crate::http::inflight::InFlightLimits {
    crate::http::inflight::InFlightLimits {
        per_client: DEFAULT_IN_FLIGHT_PER_CLIENT,
        per_network: DEFAULT_IN_FLIGHT_PER_NETWORK,
    }
}

fn load_avatar(path: &Path) -> Result<Avatar, ConfigError> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|source| ConfigError::AvatarUnreadable {
        path: shown.clone(),
        source,
    })?;
    if meta.len() > MAX_AVATAR_BYTES {
        return Err(ConfigError::AvatarTooLarge { path: shown });
    }
    let bytes = std::fs::read(path).map_err(|source| ConfigError::AvatarUnreadable {
        path: shown.clone(),
        source,
    })?;
    let content_type = sniff_image(&bytes).ok_or(ConfigError::AvatarType { path: shown })?;
    Ok(Avatar {
        bytes,
        content_type,
    })
}

/// The image type from the file's first bytes, so a misnamed file is still served right.
fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]).to_ascii_lowercase();
        head.contains("<svg").then_some("image/svg+xml")
    }
}

fn parse_http_url(value: &str) -> Result<String, String> {
    let trimmed = value.trim();
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))
        .ok_or_else(|| format!("'{value}' is not an http:// or https:// address"))?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host.is_empty() || trimmed.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("'{value}' is not a valid address"));
    }
    Ok(trimmed.to_owned())
}

fn parse_public_url(value: &str) -> Result<String, String> {
    let url = parse_http_url(value)?;
    Ok(url.trim_end_matches('/').to_owned())
}

fn parse_link_url(value: &str) -> Result<String, String> {
    parse_http_url(value)
}

fn parse_owner_name(value: &str) -> Result<String, String> {
    let name = value.trim();
    if name.is_empty() {
        return Err("the owner name is empty".to_owned());
    }
    if name.chars().count() > 100 {
        return Err("the owner name is longer than 100 characters".to_owned());
    }
    Ok(name.to_owned())
}

fn parse_ttl(value: &str) -> Result<Duration, String> {
    let ttl = humantime::parse_duration(value.trim())
        .map_err(|e| format!("'{value}' is not a duration like 90s, 15m or 1h ({e})"))?;
    if ttl < Duration::from_secs(1) || ttl > Duration::from_secs(7 * 24 * 3600) {
        return Err(format!("'{value}' is outside 1s to 7d"));
    }
    Ok(ttl)
}

/// Sizes like `10MiB`, `512KiB`, `2MB`, `1GiB` or plain bytes.
fn parse_bytes(value: &str) -> Result<u64, String> {
    let v = value.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (digits, unit) = v.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("'{value}' is not a size like 10MiB"))?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1024,
        "m" | "mb" | "mib" => 1024 * 1024,
        "g" | "gb" | "gib" => 1024 * 1024 * 1024,
        _ => return Err(format!("'{value}' is not a size like 10MiB")),
    };
    number
        .checked_mul(factor)
        .ok_or_else(|| format!("'{value}' is too large"))
}

/// `--feed-max-size`: 1 KiB to 256 MiB.
fn parse_size(value: &str) -> Result<usize, String> {
    let size = parse_bytes(value)?;
    if !(1024..=256 * 1024 * 1024).contains(&size) {
        return Err(format!("'{value}' is outside 1KiB to 256MiB"));
    }
    usize::try_from(size).map_err(|_| format!("'{value}' is too large"))
}

/// `--cache-size`: 1 MiB to 4 GiB.
fn parse_cache_size(value: &str) -> Result<usize, String> {
    let size = parse_bytes(value)?;
    if !(1024 * 1024..=4 * 1024 * 1024 * 1024).contains(&size) {
        return Err(format!("'{value}' is outside 1MiB to 4GiB"));
    }
    usize::try_from(size).map_err(|_| format!("'{value}' is too large for this machine"))
}

/// `--max-feed-storage`: 1 MiB to 1 TiB.
fn parse_storage(value: &str) -> Result<u64, String> {
    let size = parse_bytes(value)?;
    if !(1024 * 1024..=1024 * 1024 * 1024 * 1024).contains(&size) {
        return Err(format!("'{value}' is outside 1MiB to 1024GiB"));
    }
    Ok(size)
}

/// `--vault-expiry`, `--share-expiry`: 1 day to 10 years.
fn parse_expiry(value: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(value.trim())
        .map_err(|e| format!("'{value}' is not a duration like 90d or 1y ({e})"))?;
    if d < Duration::from_secs(24 * 3600) || d > Duration::from_secs(3650 * 24 * 3600) {
        return Err(format!("'{value}' is outside 1d to 10y"));
    }
    Ok(d)
}

/// `--max-bytes-in-flight`: 4 MiB to 4 GiB.
fn parse_in_flight(value: &str) -> Result<usize, String> {
    let size = parse_bytes(value)?;
    if !(4 * 1024 * 1024..=4 * 1024 * 1024 * 1024).contains(&size) {
        return Err(format!("'{value}' is outside 4MiB to 4GiB"));
    }
    usize::try_from(size).map_err(|_| format!("'{value}' is too large for this machine"))
}

/// `--max-calendars`: 1 to 100000.
fn parse_max_calendars(value: &str) -> Result<usize, String> {
    let count: usize = value
        .trim()
        .parse()
        .map_err(|_| format!("'{value}' is not a number of calendars"))?;
    if !(1..=100_000).contains(&count) {
        return Err(format!("'{value}' is outside 1 to 100000"));
    }
    Ok(count)
}

/// `--max-vaults`, `--max-shares`: 1 to 100000.
fn parse_count(value: &str) -> Result<usize, String> {
    let count: usize = value
        .trim()
        .parse()
        .map_err(|_| format!("'{value}' is not a count"))?;
    if !(1..=100_000).contains(&count) {
        return Err(format!("'{value}' is outside 1 to 100000"));
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_args(args: &[&str]) -> Result<ServeArgs, clap::Error> {
        let mut all = vec!["hearth", "serve"];
        all.extend_from_slice(args);
        Cli::try_parse_from(all).map(|cli| match cli.command {
            Command::Serve(s) => *s,
            _ => panic!("parsed as another command"),
        })
    }

    #[test]
    fn defaults_match_the_design_contract() {
        let args = serve_args(&["--data-dir", "/tmp/x"]).expect("parses");
        assert_eq!(args.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(args.feed_ttl, Duration::from_secs(900));
        assert!(!args.allow_private_feeds);
        assert_eq!(args.owner_name, DEFAULT_OWNER_NAME);
        assert_eq!(args.log_format, LogFormat::Text);
    }

    #[test]
    fn public_url_loses_its_trailing_slash_and_must_be_http() {
        let args = serve_args(&["--public-url", "https://example.org/"]).expect("parses");
        assert_eq!(args.public_url.as_deref(), Some("https://example.org"));
        assert!(serve_args(&["--public-url", "ftp://example.org"]).is_err());
        assert!(serve_args(&["--public-url", "https://"]).is_err());
    }

    #[test]
    fn feed_ttl_takes_human_durations_within_bounds() {
        assert_eq!(
            serve_args(&["--feed-ttl", "90s"]).expect("parses").feed_ttl,
            Duration::from_secs(90)
        );
        assert!(serve_args(&["--feed-ttl", "soon"]).is_err());
        assert!(serve_args(&["--feed-ttl", "30d"]).is_err());
    }

    #[test]
    fn feed_max_size_takes_units() {
        assert_eq!(
            serve_args(&[]).expect("parses").feed_max_size,
            10 * 1024 * 1024
        );
        assert_eq!(
            serve_args(&["--feed-max-size", "512KiB"])
                .expect("parses")
                .feed_max_size,
            512 * 1024
        );
        assert!(serve_args(&["--feed-max-size", "lots"]).is_err());
        assert!(serve_args(&["--feed-max-size", "1"]).is_err());
    }

    #[test]
    fn quotas_have_sd_card_defaults_and_take_units() {
        let args = serve_args(&[]).expect("parses");
        assert_eq!(args.max_calendars, 100);
        assert_eq!(args.max_feed_storage, 256 * 1024 * 1024);
        let args =
            serve_args(&["--max-calendars", "5", "--max-feed-storage", "2GiB"]).expect("parses");
        assert_eq!(args.max_calendars, 5);
        assert_eq!(args.max_feed_storage, 2 * 1024 * 1024 * 1024);
        for bad in [
            ["--max-calendars", "0"],
            ["--max-calendars", "many"],
            ["--max-feed-storage", "10KiB"],
            ["--max-feed-storage", "lots"],
        ] {
            assert!(serve_args(&bad).is_err(), "{bad:?}");
        }
        let config = serve_args(&[])
            .expect("parses")
            .into_config()
            .expect("config");
        assert_eq!(config.max_calendars, DEFAULT_MAX_CALENDARS);
        assert_eq!(config.max_feed_storage, DEFAULT_MAX_FEED_STORAGE);
    }

    #[test]
    fn sync_is_on_with_quotas_by_default_and_no_sync_turns_it_off() {
        let config = serve_args(&[])
            .expect("parses")
            .into_config()
            .expect("config");
        assert!(config.sync_enabled);
        assert_eq!(config.max_vaults, DEFAULT_MAX_VAULTS);
        assert_eq!(config.max_shares, DEFAULT_MAX_SHARES);
        assert_eq!(config.max_vault_size, DEFAULT_MAX_VAULT_SIZE);
        assert_eq!(config.max_sync_storage, DEFAULT_MAX_SYNC_STORAGE);
        let config = serve_args(&[
            "--no-sync",
            "--max-vaults",
            "3",
            "--max-vault-size",
            "64KiB",
            "--max-sync-storage",
            "2MiB",
        ])
        .expect("parses")
        .into_config()
        .expect("config");
        assert!(!config.sync_enabled);
        assert_eq!(config.max_vaults, 3);
        assert_eq!(config.max_vault_size, 64 * 1024);
        assert_eq!(config.max_sync_storage, 2 * 1024 * 1024);
        assert!(serve_args(&["--max-vaults", "0"]).is_err());
        assert!(serve_args(&["--max-vault-size", "10"]).is_err());
    }

    #[test]
    fn connection_caps_have_pi_defaults_and_trusted_proxies_take_lists() {
        let config = serve_args(&[])
            .expect("parses")
            .into_config()
            .expect("resolves");
        assert_eq!(config.max_connections, 512);
        assert_eq!(config.max_connections_per_address, 32);
        assert!(config.trusted_proxies.is_empty());
        let args = serve_args(&[
            "--trusted-proxy",
            "10.0.0.2,192.168.1.0/24",
            "--trusted-proxy",
            "::1",
            "--max-connections",
            "64",
        ])
        .expect("parses");
        assert_eq!(args.trusted_proxies.len(), 3);
        assert_eq!(args.max_connections, 64);
        assert!(serve_args(&["--trusted-proxy", "proxy.lan"]).is_err());
        assert!(serve_args(&["--max-connections", "0"]).is_err());
    }

    #[test]
    fn publish_key_and_its_file_exclude_each_other() {
        assert!(serve_args(&["--publish-key", "a", "--publish-key-file", "/x"]).is_err());
    }

    #[test]
    fn publish_key_file_is_read_and_trimmed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("key");
        std::fs::write(&path, "s3cret\n").expect("write");
        let path_arg = path.to_string_lossy().into_owned();
        let config = serve_args(&["--publish-key-file", &path_arg])
            .expect("parses")
            .into_config()
            .expect("resolves");
        assert_eq!(config.publish_key.as_deref(), Some("s3cret"));
    }

    #[test]
    fn avatar_must_be_an_image() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("me.png");
        std::fs::write(&path, b"not an image").expect("write");
        let path_arg = path.to_string_lossy().into_owned();
        let err = serve_args(&["--avatar", &path_arg])
            .expect("parses")
            .into_config()
            .expect_err("refused");
        assert!(matches!(err, ConfigError::AvatarType { .. }));
    }

    #[test]
    fn sniffs_common_image_types() {
        assert_eq!(sniff_image(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        assert_eq!(sniff_image(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(
            sniff_image(b"<?xml version='1.0'?><svg/>"),
            Some("image/svg+xml")
        );
        assert_eq!(sniff_image(b"hello"), None);
    }
}
