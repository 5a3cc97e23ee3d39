//! The command line: `hearth serve`, `backup`, `restore` and `remap`, every flag also read from its
//! `HEARTH_*` variable (flags win). Each flag's default is written here and nowhere else
//! (`Config::defaults` reads these with no command line and no environment).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use super::parse::{
    parse_backup_interval, parse_backup_keep, parse_cache_size, parse_count, parse_drill_interval,
    parse_expiry, parse_in_flight, parse_link_url, parse_max_calendars, parse_owner_name,
    parse_public_url, parse_size, parse_storage, parse_ttl, BackupInterval,
};
use super::VERSION;
use crate::http::client::IpRange;

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
    /// Check the installation (database, free space, file modes, backups, public address,
    /// key, proxy, clock, tz database, quotas, calendar sources) with the flags and variables
    /// of `serve`; one line per check; exit status 1 when any check fails.
    Doctor(Box<ServeArgs>),
    /// Put a backup in place of the database, after checking it; the current database is kept
    /// aside. Refused while a server runs on the data directory.
    Restore(RestoreArgs),
    /// Remap a calendar feed (file or stdin) with a mapping and write it to stdout.
    Remap(RemapArgs),
}

/// Where the SQLite file lives; shared by `serve`, `backup` and `restore`.
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
    #[arg(long, env = "HEARTH_OWNER_NAME", default_value = "Your Name", value_name = "NAME", value_parser = parse_owner_name)]
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

    /// Hosted feeds may be kept by a shared cache in front (a CDN, nginx's proxy_cache): they
    /// are sent `public` with the feed TTL as max-age, stale-while-revalidate and
    /// stale-if-error, so the cache answers the polls and keeps serving while Hearth is down.
    #[arg(
        long,
        env = "HEARTH_BEHIND_CDN",
        action = clap::ArgAction::SetTrue,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub behind_cdn: bool,

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
    #[arg(long, env = "HEARTH_MAX_VAULTS", default_value = "200", value_name = "COUNT", value_parser = parse_count)]
    pub max_vaults: usize,

    /// Most shared-deck links; sharing one more is refused (507). One client address may hold
    /// an eighth of them.
    #[arg(long, env = "HEARTH_MAX_SHARES", default_value = "1000", value_name = "COUNT", value_parser = parse_count)]
    pub max_shares: usize,

    /// A vault nobody reads for this long is removed (e.g. 180d, 1y); its learner's devices
    /// keep their decks and can start a new one.
    #[arg(long, env = "HEARTH_VAULT_EXPIRY", default_value = "180d", value_name = "DURATION", value_parser = parse_expiry)]
    pub vault_expiry: Duration,

    /// A shared-deck link nobody opens for this long is removed (e.g. 90d).
    #[arg(long, env = "HEARTH_SHARE_EXPIRY", default_value = "90d", value_name = "DURATION", value_parser = parse_expiry)]
    pub share_expiry: Duration,

    /// Serve Prometheus metrics (`/metrics`) on this address, and only there (e.g.
    /// 127.0.0.1:9090). Unset: no metrics.
    #[arg(long, env = "HEARTH_METRICS_LISTEN", value_name = "ADDR")]
    pub metrics_listen: Option<SocketAddr>,

    /// Where scheduled backups go. Default: the `backups` folder of the data directory.
    #[arg(long, env = "HEARTH_BACKUP_DIR", value_name = "DIR")]
    pub backup_dir: Option<PathBuf>,

    /// How often a backup is made (e.g. 6h, 1d, 7d), or `off`.
    #[arg(long, env = "HEARTH_BACKUP_INTERVAL", default_value = "1d", value_name = "DURATION|off", value_parser = parse_backup_interval)]
    pub backup_interval: BackupInterval,

    /// Backups kept; the oldest beyond this many are removed.
    #[arg(long, env = "HEARTH_BACKUP_KEEP", default_value = "7", value_name = "COUNT", value_parser = parse_backup_keep)]
    pub backup_keep: usize,

    /// A shell command run after each backup, with the new file as $1 (and in
    /// $HEARTH_BACKUP_FILE), e.g. to copy it off the SD card: rclone copy "$1" remote:hearth.
    #[arg(long, env = "HEARTH_BACKUP_COMMAND", value_name = "COMMAND")]
    pub backup_command: Option<String>,

    /// The replica Litestream keeps of the database (s3://BUCKET/PATH, with ?endpoint=URL for
    /// S3-compatible storage, or file:///PATH), as deploy/litestream.yml reads it. Set when Hearth
    /// runs under `litestream replicate`: Hearth then leaves checkpoints to Litestream, reports
    /// how far behind the replica is, and runs the restore drill. Unset: not replicated.
    #[arg(
        long,
        env = "HEARTH_REPLICA_URL",
        value_name = "URL",
        hide_env_values = true
    )]
    pub replica_url: Option<String>,

    /// Litestream's configuration (the drill and the replica's position are read through it).
    #[arg(
        long,
        env = "HEARTH_LITESTREAM_CONFIG",
        default_value = "/etc/hearth/litestream.yml",
        value_name = "PATH"
    )]
    pub litestream_config: PathBuf,

    /// The litestream program (a name looked up in PATH, or a path).
    #[arg(
        long,
        env = "HEARTH_LITESTREAM",
        default_value = "litestream",
        value_name = "PATH"
    )]
    pub litestream: PathBuf,

    /// How often the restore drill restores the replica to a temporary file and checks it
    /// (e.g. 7d), or `off`; only while replicated.
    #[arg(long, env = "HEARTH_RESTORE_DRILL_INTERVAL", default_value = "7d", value_name = "DURATION|off", value_parser = parse_drill_interval)]
    pub restore_drill_interval: BackupInterval,

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
    #[arg(long, env = "HEARTH_MAX_SYNC_STORAGE", default_value = "1GiB", value_name = "SIZE", value_parser = parse_storage)]
    pub max_sync_storage: u64,

    /// Most bytes of pictures and sounds one vault or shared deck may hold beside it (e.g.
    /// 64MiB, a language deck of 2,000 notes with a short sound and a picture each); counted in
    /// --max-sync-storage too. One file is at most --max-vault-size.
    #[arg(long, env = "HEARTH_SYNC_MEDIA_QUOTA", default_value = "64MiB", value_name = "SIZE", value_parser = parse_storage)]
    pub sync_media_quota: u64,

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

    /// Where Hearth sends a message when a check of `hearth doctor` turns bad, and when it is
    /// good again: an ntfy topic (https://ntfy.sh/your-topic) or any webhook that takes a POST of
    /// plain text. It may hold a token, so it is never logged or shown.
    #[arg(
        long,
        env = "HEARTH_NOTIFY_URL",
        value_name = "URL",
        hide_env_values = true
    )]
    pub notify_url: Option<String>,

    /// Most connections open at once; more are closed as soon as they are accepted. Keep it
    /// well below the file descriptor limit (LimitNOFILE in the systemd unit).
    #[arg(
        long,
        env = "HEARTH_MAX_CONNECTIONS",
        default_value = "512",
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..=100_000)
    )]
    pub max_connections: u32,

    /// Most connections open at once for one client (an IPv4 address, an IPv6 /64; its /56 gets
    /// one and a half times as many in aggregate, its /48 twice). Behind a trusted proxy a
    /// connection counts for the visitor it carries. When the table is full, the site holding
    /// the most loses its oldest.
    #[arg(
        long,
        env = "HEARTH_MAX_CONNECTIONS_PER_ADDRESS",
        default_value = "32",
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

    /// Believe X-Forwarded-For/Forwarded from loopback peers: say so when a reverse proxy on
    /// this machine (Caddy, nginx) forwards visitors to Hearth. Off by default, so a forwarder
    /// that passes headers through (ssh -L, socat) cannot let its clients pick their address:
    /// every loopback connection then counts as one client.
    #[arg(
        long,
        env = "HEARTH_TRUST_LOOPBACK",
        default_value_t = false,
        value_name = "BOOL",
        action = clap::ArgAction::Set,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub trust_loopback: bool,

    /// Memory for request bodies being read, feeds being fetched and large answers being
    /// written, all clients together (e.g. 48MiB); one client may hold an eighth of it, or its
    /// largest body if that is more. Past its share: 429; when full, the heaviest site's oldest
    /// body is stopped for a newcomer.
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
pub struct RestoreArgs {
    #[command(flatten)]
    pub data_dir: DataDirArg,

    /// The backup to restore (a file `hearth backup` or a scheduled backup wrote).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct RemapArgs {
    /// JSON object with any of SUMMARY, DESCRIPTION, LOCATION, DTSTART, DTEND (absent keys keep ${KEY}).
    #[arg(long, value_name = "FILE.json", conflicts_with = "config")]
    pub mapping: Option<PathBuf>,

    /// A whole calendar config: {"mapping": {...}, "filters": [...], "window": {...},
    /// "timezones", "alarms", "privacy", "sources"} (README: Calendar options).
    #[arg(long, value_name = "CALENDAR.json")]
    pub config: Option<PathBuf>,

    /// Calendar name to set (X-WR-CALNAME and NAME).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// The feed to read; `-` or absent: standard input. Several feeds are merged into one, in
    /// order, the config's `sources[i]` (its prefix) applying to the i-th (README: Merged
    /// calendars).
    #[arg(value_name = "INPUT.ics", num_args = 0..)]
    pub inputs: Vec<PathBuf>,
}
