//! Command line and environment into the settings each part of the server runs with: every flag
//! of DESIGN.md, each also read from its `HEARTH_*` variable (flags win). Each default is written
//! once, with its flag (`cli.rs`); `Config::defaults` reads the flags with no command line and no
//! environment, for tests and embedding. Each feature takes its own part of the `Config`.

mod cli;
mod parse;
mod settings;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches};

pub use cli::{BackupArgs, Cli, Command, DataDirArg, LogFormat, RemapArgs, RestoreArgs, ServeArgs};
use parse::load_avatar;
// The owner edits the same values on `/owner` (src/site/), held to the same rules.
pub use parse::{parse_link_url, parse_owner_name};
pub use settings::{
    AlertSettings, Avatar, BackupSettings, CalendarSettings, EdgeSettings, EngineBudget, NotifyUrl,
    ReplicationSettings, SiteSettings, SyncSettings, UpstreamLimits, DRILL_TIMEOUT,
    HEADER_READ_TIMEOUT, SHUTDOWN_DEADLINE,
};

use crate::http::inflight::InFlightLimits;
use crate::http::limits::RateLimits;
use crate::http::pace::{BodyRules, WriteRules};
pub use crate::version::VERSION;

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
    /// The address is not repeated: it may hold a token.
    #[error("--notify-url: {0}")]
    NotifyUrl(&'static str),
    /// The flags' own defaults do not read (a mistake in `cli.rs`, which a test catches).
    #[error("the built-in defaults do not read: {0}")]
    Defaults(String),
}

/// Everything `serve` needs, resolved and checked: a few settings of the server as a whole, and
/// one part per feature.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    /// `--metrics-listen`: where `/metrics` is served, apart from the site.
    pub metrics_listen: Option<SocketAddr>,
    pub data_dir: PathBuf,
    /// `--public-url`: hosted feeds' links and the Host check.
    pub public_url: Option<String>,
    pub log_format: LogFormat,
    /// Where time comes from: the system, or a manual clock in tests.
    pub clock: crate::clock::Clock,
    /// See `SHUTDOWN_DEADLINE` (no flag; tests shorten it).
    pub shutdown_deadline: Duration,
    pub site: SiteSettings,
    pub calendars: CalendarSettings,
    pub sync: SyncSettings,
    pub edge: EdgeSettings,
    pub backups: BackupSettings,
    /// `--notify-url`: alerts of the doctor's checks.
    pub alerts: AlertSettings,
    pub replication: ReplicationSettings,
}

/// A key given on the command line or in a file, trimmed; an empty one is refused.
fn read_key(
    key: Option<&String>,
    file: Option<&PathBuf>,
    unreadable: impl FnOnce(String, std::io::Error) -> ConfigError,
    empty: ConfigError,
) -> Result<Option<String>, ConfigError> {
    let key = match (key, file) {
        (Some(key), _) => Some(key.trim().to_owned()),
        (None, Some(path)) => Some(
            std::fs::read_to_string(path)
                .map_err(|source| unreadable(path.display().to_string(), source))?
                .trim()
                .to_owned(),
        ),
        (None, None) => None,
    };
    if key.as_deref() == Some("") {
        return Err(empty);
    }
    Ok(key)
}

impl ServeArgs {
    /// Reads the files the flags name and checks what clap cannot.
    pub fn into_config(self) -> Result<Config, ConfigError> {
        let avatar = self.avatar.as_deref().map(load_avatar).transpose()?;
        let publish_key = read_key(
            self.publish_key.as_ref(),
            self.publish_key_file.as_ref(),
            |path, source| ConfigError::PublishKeyUnreadable { path, source },
            ConfigError::PublishKeyEmpty,
        )?;
        let sync_key = read_key(
            self.sync_key.as_ref(),
            self.sync_key_file.as_ref(),
            |path, source| ConfigError::SyncKeyUnreadable { path, source },
            ConfigError::SyncKeyEmpty,
        )?;
        let data_dir = self.data_dir.resolve();
        let backups = BackupSettings {
            dir: self
                .backup_dir
                .clone()
                .unwrap_or_else(|| data_dir.join("backups")),
            interval: self.backup_interval.0,
            keep: self.backup_keep,
            command: self.backup_command.clone().filter(|c| !c.trim().is_empty()),
            min_free: settings::BACKUP_MIN_FREE,
            command_timeout: settings::BACKUP_COMMAND_TIMEOUT,
        };
        let alerts = AlertSettings {
            url: self
                .notify_url
                .as_deref()
                .map(NotifyUrl::parse)
                .transpose()
                .map_err(ConfigError::NotifyUrl)?,
            ..AlertSettings::default()
        };
        let replication = ReplicationSettings {
            replica_url: self
                .replica_url
                .clone()
                .map(|u| u.trim().to_owned())
                .filter(|u| !u.is_empty()),
            config: self.litestream_config.clone(),
            litestream: self.litestream.clone(),
            drill_interval: self.restore_drill_interval.0,
            drill_timeout: settings::DRILL_TIMEOUT,
        };
        Ok(Config {
            alerts,
            listen: self.listen,
            metrics_listen: self.metrics_listen,
            data_dir,
            backups,
            replication,
            public_url: self.public_url,
            log_format: self.log_format,
            clock: crate::clock::Clock::system(),
            shutdown_deadline: SHUTDOWN_DEADLINE,
            site: SiteSettings {
                owner_name: self.owner_name,
                avatar,
                spotify_url: self.spotify_url,
                beehive_url: self.beehive_url,
            },
            calendars: CalendarSettings {
                allow_private_feeds: self.allow_private_feeds,
                feed_ttl: self.feed_ttl,
                behind_cdn: self.behind_cdn,
                feed_max_size: self.feed_max_size,
                cache_size: self.cache_size,
                max_calendars: self.max_calendars,
                max_feed_storage: self.max_feed_storage,
                engine: EngineBudget::default(),
                feed_hosts: std::collections::HashMap::new(),
                upstream: UpstreamLimits::default(),
            },
            sync: SyncSettings {
                enabled: !self.no_sync,
                max_vaults: self.max_vaults,
                max_shares: self.max_shares,
                max_vault_size: self.max_vault_size,
                max_sync_storage: self.max_sync_storage,
                media_quota: self.sync_media_quota,
                vault_expiry: self.vault_expiry,
                share_expiry: self.share_expiry,
            },
            edge: EdgeSettings {
                publish_key,
                sync_key,
                max_connections: self.max_connections as usize,
                max_connections_per_address: self.max_connections_per_address as usize,
                header_read_timeout: HEADER_READ_TIMEOUT,
                trusted_proxies: self.trusted_proxies,
                trust_loopback: self.trust_loopback,
                max_bytes_in_flight: self.max_bytes_in_flight,
                in_flight: InFlightLimits::default(),
                body_rules: BodyRules::default(),
                write_rules: WriteRules::default(),
                rate_limits: RateLimits::default(),
            },
        })
    }
}

impl Config {
    /// Every default, with the data in `data_dir`: the flags read with no command line and no
    /// environment (whatever `HEARTH_*` variables the process has), for tests and embedding.
    pub fn defaults(data_dir: impl Into<PathBuf>) -> Result<Config, ConfigError> {
        let command = Cli::command().mut_subcommand("serve", |serve| {
            serve.mut_args(|arg| arg.env(None::<&'static str>))
        });
        let argv = [
            "hearth".into(),
            "serve".into(),
            "--data-dir".into(),
            data_dir.into().into_os_string(),
        ];
        let matches = command
            .try_get_matches_from(argv)
            .map_err(|e| ConfigError::Defaults(e.to_string()))?;
        match Cli::from_arg_matches(&matches) {
            Ok(Cli {
                command: Command::Serve(args),
            }) => args.into_config(),
            Ok(_) => Err(ConfigError::Defaults("not the serve command".into())),
            Err(e) => Err(ConfigError::Defaults(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use parse::sniff_image;

    fn serve_args(args: &[&str]) -> Result<ServeArgs, clap::Error> {
        let mut all = vec!["hearth", "serve"];
        all.extend_from_slice(args);
        Cli::try_parse_from(all).map(|cli| match cli.command {
            Command::Serve(s) => *s,
            _ => panic!("parsed as another command"),
        })
    }

    #[test]
    fn backups_go_into_the_data_directory_daily_unless_told_otherwise() {
        let config = serve_args(&["--data-dir", "/tmp/x"])
            .expect("parses")
            .into_config()
            .expect("config");
        assert_eq!(config.backups.dir, PathBuf::from("/tmp/x/backups"));
        let off = serve_args(&["--backup-interval", "off", "--backup-dir", "/b"]).expect("parses");
        assert_eq!(off.backup_interval.0, None);
        assert_eq!(off.backup_dir, Some(PathBuf::from("/b")));
        assert_eq!(
            serve_args(&["--backup-interval", "6h"])
                .expect("parses")
                .backup_interval
                .0,
            Some(Duration::from_secs(6 * 3600))
        );
        for bad in [
            ["--backup-interval", "10s"],
            ["--backup-interval", "often"],
            ["--backup-keep", "0"],
        ] {
            assert!(serve_args(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn defaults_match_the_design_contract() {
        let args = serve_args(&["--data-dir", "/tmp/x"]).expect("parses");
        assert_eq!(args.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(args.feed_ttl, Duration::from_secs(900));
        assert_eq!(args.backup_interval.0, Some(Duration::from_secs(86_400)));
        assert_eq!(args.backup_keep, 7);
        assert!(!args.allow_private_feeds);
        assert_eq!(args.owner_name, "Your Name");
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
        assert_eq!(config.calendars.max_calendars, 100);
        assert_eq!(config.calendars.max_feed_storage, 256 * 1024 * 1024);
    }

    #[test]
    fn sync_is_on_with_quotas_by_default_and_no_sync_turns_it_off() {
        let config = serve_args(&[])
            .expect("parses")
            .into_config()
            .expect("config");
        assert!(config.sync.enabled);
        assert_eq!(config.sync.max_vaults, 200);
        assert_eq!(config.sync.max_shares, 1000);
        assert_eq!(config.sync.max_vault_size, 8 * 1024 * 1024);
        assert_eq!(config.sync.max_sync_storage, 1024 * 1024 * 1024);
        assert_eq!(config.sync.media_quota, 64 * 1024 * 1024);
        let config = serve_args(&[
            "--no-sync",
            "--max-vaults",
            "3",
            "--max-vault-size",
            "64KiB",
            "--max-sync-storage",
            "2MiB",
            "--sync-media-quota",
            "1MiB",
        ])
        .expect("parses")
        .into_config()
        .expect("config");
        assert!(!config.sync.enabled);
        assert_eq!(config.sync.max_vaults, 3);
        assert_eq!(config.sync.max_vault_size, 64 * 1024);
        assert_eq!(config.sync.max_sync_storage, 2 * 1024 * 1024);
        assert_eq!(config.sync.media_quota, 1024 * 1024);
        assert!(serve_args(&["--max-vaults", "0"]).is_err());
        assert!(serve_args(&["--max-vault-size", "10"]).is_err());
    }

    #[test]
    fn connection_caps_have_pi_defaults_and_trusted_proxies_take_lists() {
        let config = serve_args(&[])
            .expect("parses")
            .into_config()
            .expect("resolves");
        assert_eq!(config.edge.max_connections, 512);
        assert_eq!(config.edge.max_connections_per_address, 32);
        assert!(config.edge.trusted_proxies.is_empty());
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
        assert_eq!(config.edge.publish_key.as_deref(), Some("s3cret"));
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

    #[test]
    fn the_defaults_are_the_flags_read_with_no_command_line() {
        let config = Config::defaults("/tmp/hearth-defaults").expect("the defaults read");
        assert_eq!(config.data_dir, PathBuf::from("/tmp/hearth-defaults"));
        assert_eq!(config.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(config.calendars.feed_ttl, Duration::from_secs(900));
        assert_eq!(config.calendars.cache_size, 32 * 1024 * 1024);
        assert_eq!(
            config.sync.vault_expiry,
            Duration::from_secs(180 * 24 * 3600)
        );
        assert_eq!(config.edge.max_connections, 512);
        assert_eq!(config.edge.max_bytes_in_flight, 48 * 1024 * 1024);
        assert!(
            !config.edge.trust_loopback,
            "a proxy on this machine is said, not assumed"
        );
        assert_eq!(config.site.owner_name, "Your Name");
    }

    #[test]
    fn the_notify_url_is_checked_and_never_printed() {
        let token = "tk_0123456789";
        let url = format!("https://ntfy.example.org/topic?auth={token}");
        let config = serve_args(&["--notify-url", &url])
            .expect("parses")
            .into_config()
            .expect("config");
        let set = config.alerts.url.as_ref().expect("set");
        assert_eq!(set.expose(), url);
        assert!(!format!("{config:?}").contains(token));
        for bad in ["ftp://x/tk_0123456789", "not an address tk_0123456789", " "] {
            let refused = serve_args(&["--notify-url", bad])
                .expect("parses")
                .into_config()
                .expect_err("refused");
            assert!(!refused.to_string().contains(token), "{refused}");
            assert!(
                refused.to_string().starts_with("--notify-url: "),
                "{refused}"
            );
        }
        let config = serve_args(&[])
            .expect("parses")
            .into_config()
            .expect("config");
        assert!(config.alerts.url.is_none());
    }
}
