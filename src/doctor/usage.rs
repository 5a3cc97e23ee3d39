//! The doctor's checks of what is stored: quotas near full (calendars, feed storage, sync) and
//! calendars whose source has failed for a day.

use std::time::SystemTime;

use rusqlite::Connection;

use super::{size, Finding, Setup};
use crate::publish::health;

/// Past this share of a quota, the doctor warns.
const NEAR_FULL: f64 = 0.9;

/// (rows, bytes of `column`) of `table`, optionally of one `kind`.
fn holding(conn: &Connection, table: &str, column: &str, kind: Option<&str>) -> (u64, u64) {
    let filter = if kind.is_some() {
        " WHERE kind = ?1"
    } else {
        ""
    };
    let sql = format!("SELECT count(*), coalesce(sum(length({column})), 0) FROM {table}{filter}");
    let read = |r: &rusqlite::Row<'_>| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?));
    let row = match kind {
        Some(kind) => conn.query_row(&sql, [kind], read),
        None => conn.query_row(&sql, [], read),
    };
    row.map(|(n, b)| (u64::try_from(n).unwrap_or(0), u64::try_from(b).unwrap_or(0)))
        .unwrap_or((0, 0))
}

fn share(used: u64, max: u64) -> f64 {
    used as f64 / max.max(1) as f64
}

pub(super) fn quotas(setup: &Setup, conn: &Connection) -> Vec<Finding> {
    const CHECK: &str = "quotas";
    let (calendars, _) = holding(conn, "calendars", "id", None);
    let (_, copy_bytes) = holding(conn, "feed_copies", "body", None);
    let (_, kept_bytes) = holding(conn, "kept_events", "component", None);
    let feed_bytes = copy_bytes + kept_bytes;
    let mut near = Vec::new();
    let mut said = vec![
        format!("{calendars} of {} calendars", setup.max_calendars),
        format!(
            "{} of {} of feed copies",
            size(feed_bytes),
            size(setup.max_feed_storage)
        ),
    ];
    if share(calendars, setup.max_calendars as u64) >= NEAR_FULL {
        near.push("calendars (--max-calendars)");
    }
    if share(feed_bytes, setup.max_feed_storage) >= NEAR_FULL {
        near.push("feed storage (--max-feed-storage)");
    }
    if setup.sync_enabled {
        let (vaults, vault_bytes) = holding(conn, "sync_blobs", "body", Some("vault"));
        let (shares, share_bytes) = holding(conn, "sync_blobs", "body", Some("share"));
        // A vault written in parts keeps them beside its manifest (`sync_parts`).
        let (_, part_bytes) = holding(conn, "sync_parts", "body", None);
        // And its pictures and sounds (`sync_media`).
        let (_, media_bytes) = holding(conn, "sync_media", "body", None);
        let bytes = vault_bytes + part_bytes + media_bytes + share_bytes;
        said.push(format!("{vaults} of {} vaults", setup.max_vaults));
        said.push(format!("{shares} of {} shared decks", setup.max_shares));
        said.push(format!(
            "{} of {} of sync storage",
            size(bytes),
            size(setup.max_sync_storage)
        ));
        if share(vaults, setup.max_vaults as u64) >= NEAR_FULL {
            near.push("vaults (--max-vaults)");
        }
        if share(shares, setup.max_shares as u64) >= NEAR_FULL {
            near.push("shared decks (--max-shares)");
        }
        if share(bytes, setup.max_sync_storage) >= NEAR_FULL {
            near.push("sync storage (--max-sync-storage)");
        }
    }
    let summary = said.join(", ");
    if near.is_empty() {
        vec![Finding::ok(CHECK, summary)]
    } else {
        vec![Finding::warn(
            CHECK,
            format!(
                "nearly full: {}; raise the limit or remove what is no longer used ({summary})",
                near.join(", ")
            ),
        )]
    }
}

pub(super) fn failing_sources(conn: &Connection, now: SystemTime) -> Vec<Finding> {
    const CHECK: &str = "calendar sources";
    let flagged = match health::flagged_in(conn, now) {
        Ok(flagged) => flagged,
        Err(e) => {
            return vec![Finding::warn(
                CHECK,
                format!("cannot read the calendars' health: {e}"),
            )]
        }
    };
    if flagged.is_empty() {
        return vec![Finding::ok(
            CHECK,
            "no calendar's source has failed for a day",
        )];
    }
    flagged
        .into_iter()
        .map(|f| {
            let h = f.health;
            let since = h
                .failing_since
                .map(|t| humantime::format_rfc3339_seconds(t).to_string())
                .unwrap_or_default();
            // A merged calendar names the feed that fails, as its owner numbered and labelled it.
            let which = match f.feed {
                None => "the source".to_owned(),
                Some(feed) => match feed.label {
                    Some(label) => format!("feed {} '{label}' ({})", feed.number, feed.url),
                    None => format!("feed {} ({})", feed.number, feed.url),
                },
            };
            Finding::warn(
                CHECK,
                format!(
                    "'{}' ({}): {which} has failed {} times since {since}: {}; subscribers get the last good copy",
                    f.calendar_name,
                    f.calendar_id,
                    h.failures,
                    h.last_error.unwrap_or_default()
                ),
            )
        })
        .collect()
}
