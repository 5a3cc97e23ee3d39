//! Reading the values of flags (durations, sizes, counts, addresses, the owner's name) and the
//! files they name (the avatar), with messages that say what was expected.

use std::path::Path;
use std::time::Duration;

use super::settings::Avatar;
use super::ConfigError;

/// Largest avatar image accepted, so a wrong path cannot make the server hold a huge file.
const MAX_AVATAR_BYTES: u64 = 2 * 1024 * 1024;

pub(super) fn load_avatar(path: &Path) -> Result<Avatar, ConfigError> {
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
pub(super) fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
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

pub(super) fn parse_http_url(value: &str) -> Result<String, String> {
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

pub(super) fn parse_public_url(value: &str) -> Result<String, String> {
    let url = parse_http_url(value)?;
    Ok(url.trim_end_matches('/').to_owned())
}

pub fn parse_link_url(value: &str) -> Result<String, String> {
    parse_http_url(value)
}

pub fn parse_owner_name(value: &str) -> Result<String, String> {
    let name = value.trim();
    if name.is_empty() {
        return Err("the owner name is empty".to_owned());
    }
    if name.chars().count() > 100 {
        return Err("the owner name is longer than 100 characters".to_owned());
    }
    Ok(name.to_owned())
}

pub(super) fn parse_ttl(value: &str) -> Result<Duration, String> {
    let ttl = humantime::parse_duration(value.trim())
        .map_err(|e| format!("'{value}' is not a duration like 90s, 15m or 1h ({e})"))?;
    if ttl < Duration::from_secs(1) || ttl > Duration::from_secs(7 * 24 * 3600) {
        return Err(format!("'{value}' is outside 1s to 7d"));
    }
    Ok(ttl)
}

/// Sizes like `10MiB`, `512KiB`, `2MB`, `1GiB` or plain bytes.
pub(super) fn parse_bytes(value: &str) -> Result<u64, String> {
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
pub(super) fn parse_size(value: &str) -> Result<usize, String> {
    let size = parse_bytes(value)?;
    if !(1024..=256 * 1024 * 1024).contains(&size) {
        return Err(format!("'{value}' is outside 1KiB to 256MiB"));
    }
    usize::try_from(size).map_err(|_| format!("'{value}' is too large"))
}

/// `--cache-size`: 1 MiB to 4 GiB.
pub(super) fn parse_cache_size(value: &str) -> Result<usize, String> {
    let size = parse_bytes(value)?;
    if !(1024 * 1024..=4 * 1024 * 1024 * 1024).contains(&size) {
        return Err(format!("'{value}' is outside 1MiB to 4GiB"));
    }
    usize::try_from(size).map_err(|_| format!("'{value}' is too large for this machine"))
}

/// `--max-feed-storage`: 1 MiB to 1 TiB.
pub(super) fn parse_storage(value: &str) -> Result<u64, String> {
    let size = parse_bytes(value)?;
    if !(1024 * 1024..=1024 * 1024 * 1024 * 1024).contains(&size) {
        return Err(format!("'{value}' is outside 1MiB to 1024GiB"));
    }
    Ok(size)
}

/// `--vault-expiry`, `--share-expiry`: 1 day to 10 years.
pub(super) fn parse_expiry(value: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(value.trim())
        .map_err(|e| format!("'{value}' is not a duration like 90d or 1y ({e})"))?;
    if d < Duration::from_secs(24 * 3600) || d > Duration::from_secs(3650 * 24 * 3600) {
        return Err(format!("'{value}' is outside 1d to 10y"));
    }
    Ok(d)
}

/// `--backup-interval`: how often, or `None` for `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackupInterval(pub Option<Duration>);

/// `--backup-interval`: a duration from 1 minute to 1 year, or `off`.
pub(super) fn parse_backup_interval(value: &str) -> Result<BackupInterval, String> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("off") {
        return Ok(BackupInterval(None));
    }
    let d = humantime::parse_duration(value)
        .map_err(|e| format!("'{value}' is not a duration like 6h or 1d, or off ({e})"))?;
    if d < Duration::from_secs(60) || d > Duration::from_secs(365 * 24 * 3600) {
        return Err(format!("'{value}' is outside 1m to 365d"));
    }
    Ok(BackupInterval(Some(d)))
}

/// `--restore-drill-interval`: a duration from 10 seconds to 1 year, or `off`.
pub(super) fn parse_drill_interval(value: &str) -> Result<BackupInterval, String> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("off") {
        return Ok(BackupInterval(None));
    }
    let d = humantime::parse_duration(value)
        .map_err(|e| format!("'{value}' is not a duration like 7d, or off ({e})"))?;
    if d < Duration::from_secs(10) || d > Duration::from_secs(365 * 24 * 3600) {
        return Err(format!("'{value}' is outside 10s to 365d"));
    }
    Ok(BackupInterval(Some(d)))
}

/// `--backup-keep`: 1 to 1000.
pub(super) fn parse_backup_keep(value: &str) -> Result<usize, String> {
    match value.trim().parse::<usize>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        _ => Err(format!("'{value}' is not a count from 1 to 1000")),
    }
}

/// `--max-bytes-in-flight`: 4 MiB to 4 GiB.
pub(super) fn parse_in_flight(value: &str) -> Result<usize, String> {
    let size = parse_bytes(value)?;
    if !(4 * 1024 * 1024..=4 * 1024 * 1024 * 1024).contains(&size) {
        return Err(format!("'{value}' is outside 4MiB to 4GiB"));
    }
    usize::try_from(size).map_err(|_| format!("'{value}' is too large for this machine"))
}

/// `--max-calendars`: 1 to 100000.
pub(super) fn parse_max_calendars(value: &str) -> Result<usize, String> {
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
pub(super) fn parse_count(value: &str) -> Result<usize, String> {
    let count: usize = value
        .trim()
        .parse()
        .map_err(|_| format!("'{value}' is not a count"))?;
    if !(1..=100_000).contains(&count) {
        return Err(format!("'{value}' is outside 1 to 100000"));
    }
    Ok(count)
}
