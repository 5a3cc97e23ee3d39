//! Schema migrations by `PRAGMA user_version`: each step runs in its own transaction, in order;
//! a database newer than this binary is refused; an existing database is snapshotted first.

use std::path::Path;

use rusqlite::Connection;

use super::{backup, StoreError};

/// Each entry takes the schema from version `index` to `index + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: facts about the installation itself.
    "CREATE TABLE meta (
        key   TEXT PRIMARY KEY NOT NULL,
        value TEXT NOT NULL
    ) STRICT;
    INSERT INTO meta (key, value) VALUES ('created_at', strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));",
    // 2: published calendars and the last good copy of each upstream feed. Times are unix
    // milliseconds; the edit token is kept only as its SHA-256.
    "CREATE TABLE calendars (
        id         TEXT PRIMARY KEY NOT NULL,
        name       TEXT NOT NULL,
        url        TEXT NOT NULL,
        mapping    TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        revision   INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    ) STRICT;
    CREATE TABLE feed_copies (
        url           TEXT PRIMARY KEY NOT NULL,
        body          BLOB NOT NULL,
        etag          TEXT,
        last_modified TEXT,
        fetched_at    INTEGER NOT NULL,
        changed_at    INTEGER NOT NULL
    ) STRICT;",
    // 3: a calendar's options beside its mapping (filters, window, time zones, alarms, privacy),
    // as the JSON object of the config without `mapping`. Calendars published before keep '{}',
    // the default config, so their hosted feeds do not change.
    "ALTER TABLE calendars ADD COLUMN options TEXT NOT NULL DEFAULT '{}';",
    // 4: end-to-end encrypted sync (src/sync/).
    // The body is ciphertext the server cannot read; `version` rises by one at every update
    // (compare-and-swap); the write token is kept only as its SHA-256; times are unix ms.
    "CREATE TABLE sync_blobs (
        id         TEXT PRIMARY KEY NOT NULL,
        kind       TEXT NOT NULL CHECK (kind IN ('vault', 'share')),
        token_hash TEXT NOT NULL,
        version    INTEGER NOT NULL,
        body       BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    ) STRICT;",
    // 5: budgets. Who made each vault, shared deck and calendar, as a salted hash of the
    // client's address (IPv4, IPv6 /64) so that no address takes more than its share; when each
    // blob was last read, so that blobs nobody uses expire; the write token's hash is looked up
    // when a client retries a create whose answer it lost.
    "INSERT INTO meta (key, value) VALUES ('client_salt', lower(hex(randomblob(16))));
    ALTER TABLE sync_blobs ADD COLUMN client TEXT NOT NULL DEFAULT '';
    ALTER TABLE sync_blobs ADD COLUMN read_at INTEGER NOT NULL DEFAULT 0;
    UPDATE sync_blobs SET read_at = updated_at;
    CREATE INDEX sync_blobs_client ON sync_blobs (kind, client);
    CREATE UNIQUE INDEX sync_blobs_token ON sync_blobs (kind, token_hash);
    ALTER TABLE calendars ADD COLUMN client TEXT NOT NULL DEFAULT '';
    CREATE INDEX calendars_client ON calendars (client);",
    // 6: each calendar's health as its owner sees it. Per upstream address: the last fetch,
    // the last success, the last error in words, the failures in a row since `failing_since`,
    // and the size and event count of the last good copy. Per calendar and client family
    // (google, apple, ...): the last poll and the polls of each of the last 30 days, as a JSON
    // object of day number (days since 1970) to count. Deleted calendars, so the calendar apps
    // that keep polling them get 410 Gone without a lookup. Times are unix ms.
    "CREATE TABLE upstream_health (
        url             TEXT PRIMARY KEY NOT NULL,
        last_fetch_at   INTEGER NOT NULL,
        last_success_at INTEGER,
        last_error      TEXT,
        failures        INTEGER NOT NULL DEFAULT 0,
        failing_since   INTEGER,
        size            INTEGER,
        events          INTEGER
    ) STRICT;
    CREATE TABLE feed_polls (
        calendar_id TEXT NOT NULL,
        family      TEXT NOT NULL,
        last_at     INTEGER NOT NULL,
        days        TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (calendar_id, family)
    ) STRICT;
    CREATE TABLE deleted_calendars (
        id         TEXT PRIMARY KEY NOT NULL,
        deleted_at INTEGER NOT NULL
    ) STRICT;",
    // 7: every address a calendar reads: its `url`, and for a merged calendar each source's
    // (kept normalised in the options' `sources`). What decides whether a feed copy or an
    // address's health is still used. And the events a feed dropped after they ended, kept
    // for calendars with `history` (by address; `ends_at` in unix seconds, wall clock read as
    // UTC; `component` the event's lines as written).
    "CREATE TABLE kept_events (
        url            TEXT NOT NULL,
        uid            TEXT NOT NULL,
        recurrence_id  TEXT NOT NULL DEFAULT '',
        ends_at        INTEGER NOT NULL,
        component      BLOB NOT NULL,
        PRIMARY KEY (url, uid, recurrence_id)
    ) STRICT;
    CREATE VIEW calendar_urls (calendar_id, url) AS
        SELECT id, url FROM calendars
        UNION
        SELECT c.id, json_extract(s.value, '$.url')
        FROM calendars c, json_each(c.options, '$.sources') s
        WHERE json_extract(s.value, '$.url') IS NOT NULL;",
    // 8: a vault written in parts (src/sync/parts.rs): its manifest is the blob's body, its
    // encrypted parts (named by the client, at most 64) live here and go with the blob.
    "CREATE TABLE sync_parts (
        blob_id TEXT NOT NULL REFERENCES sync_blobs (id) ON DELETE CASCADE,
        name    TEXT NOT NULL,
        body    BLOB NOT NULL,
        PRIMARY KEY (blob_id, name)
    ) STRICT, WITHOUT ROWID;",
    // 9: who made a row, counted in aggregate too (src/store/clients.rs): the tags of the
    // maker's IPv6 /56 and /48 beside its own (for IPv4 all three are the address's). Rows made
    // before are counted as their own network: their address was never kept.
    "ALTER TABLE calendars ADD COLUMN net56 TEXT NOT NULL DEFAULT '';
    ALTER TABLE calendars ADD COLUMN net48 TEXT NOT NULL DEFAULT '';
    UPDATE calendars SET net56 = client, net48 = client;
    CREATE INDEX calendars_net56 ON calendars (net56);
    CREATE INDEX calendars_net48 ON calendars (net48);
    ALTER TABLE sync_blobs ADD COLUMN net56 TEXT NOT NULL DEFAULT '';
    ALTER TABLE sync_blobs ADD COLUMN net48 TEXT NOT NULL DEFAULT '';
    UPDATE sync_blobs SET net56 = client, net48 = client;
    CREATE INDEX sync_blobs_net56 ON sync_blobs (kind, net56);
    CREATE INDEX sync_blobs_net48 ON sync_blobs (kind, net48);",
    // 10: the site as its owner edits it on /owner (src/site/). One row each: the texts (a NULL
    // link is not shown; no row: the flags' values), and the picture with its type (no row: the
    // flag's or the built-in avatar). Kept here so backups and replication carry them.
    "CREATE TABLE site_profile (
        id          INTEGER PRIMARY KEY CHECK (id = 1),
        name        TEXT NOT NULL,
        about       TEXT,
        spotify_url TEXT,
        beehive_url TEXT
    ) STRICT;
    CREATE TABLE site_avatar (
        id           INTEGER PRIMARY KEY CHECK (id = 1),
        content_type TEXT NOT NULL,
        body         BLOB NOT NULL
    ) STRICT;",
    // 11: sources' logins (src/publish/logins/), sealed under the key file beside the database
    // (never in it), one per calendar and address, with the tag their copies are kept under
    // (a keyed hash: no password). The addresses a calendar reads name a source with a login by
    // its copies' key, `url || ' login:' || tag`, so such copies are never another's, and the
    // address alone is not held for it.
    "CREATE TABLE source_logins (
        calendar_id TEXT NOT NULL,
        url         TEXT NOT NULL,
        sealed      BLOB NOT NULL,
        tag         TEXT NOT NULL,
        PRIMARY KEY (calendar_id, url)
    ) STRICT, WITHOUT ROWID;
    DROP VIEW calendar_urls;
    CREATE VIEW calendar_urls (calendar_id, url) AS
        SELECT c.id, c.url FROM calendars c
        WHERE NOT EXISTS (SELECT 1 FROM source_logins l WHERE l.calendar_id = c.id AND l.url = c.url)
        UNION
        SELECT c.id, json_extract(s.value, '$.url') || coalesce((SELECT ' login:' || l.tag
            FROM source_logins l
            WHERE l.calendar_id = c.id AND l.url = json_extract(s.value, '$.url')), '')
        FROM calendars c, json_each(c.options, '$.sources') s
        WHERE json_extract(s.value, '$.url') IS NOT NULL;",
    // 12: a calendar's second addresses, for Google (src/publish/aliases.rs); removed with the
    // calendar, whose deleted ids then hold them too (410). Times are unix ms.
    "CREATE TABLE calendar_aliases (
        alias       TEXT PRIMARY KEY NOT NULL,
        calendar_id TEXT NOT NULL,
        created_at  INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX calendar_aliases_calendar ON calendar_aliases (calendar_id);",
    // 13: the pictures and sounds of a vault or shared deck (src/sync/media.rs), each sealed on
    // its own by the client and named by a keyed hash of its content; they go with the blob.
    "CREATE TABLE sync_media (
        blob_id TEXT NOT NULL REFERENCES sync_blobs (id) ON DELETE CASCADE,
        name    TEXT NOT NULL,
        body    BLOB NOT NULL,
        PRIMARY KEY (blob_id, name)
    ) STRICT, WITHOUT ROWID;",
];

/// The schema version this binary writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let found: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            path: path.display().to_string(),
            found,
            supported: SCHEMA_VERSION,
        });
    }
    if found == SCHEMA_VERSION {
        return Ok(());
    }
    if found > 0 {
        let snapshot = backup::pre_migration_snapshot(conn, path, found)?;
        tracing::info!(snapshot = %snapshot.display(), from = found, to = SCHEMA_VERSION, "snapshotted the database before migrating");
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let version = index as i64 + 1;
        let step = |conn: &mut Connection| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", version)?;
            tx.execute(
                "INSERT INTO meta (key, value) VALUES ('migrated_by', ?1)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [crate::version::VERSION],
            )?;
            tx.commit()
        };
        step(conn).map_err(|source| StoreError::Migration { version, source })?;
        tracing::debug!(version, "applied migration");
    }
    Ok(())
}

/// Feed copies that no published calendar refers to any more (left by versions that kept them,
/// or by a publish that stopped between fetching and saving): removed at every start.
pub(super) fn remove_orphaned_feed_copies(conn: &Connection) -> Result<usize, StoreError> {
    let removed = conn.execute(
        "DELETE FROM feed_copies WHERE url NOT IN (SELECT url FROM calendar_urls)",
        [],
    )?;
    if removed > 0 {
        tracing::info!(removed, "removed stored feed copies that no calendar uses");
    }
    // And the health of addresses, and the polls of calendars, that are no longer published.
    for table in ["upstream_health", "kept_events"] {
        conn.execute(
            &format!("DELETE FROM {table} WHERE url NOT IN (SELECT url FROM calendar_urls)"),
            [],
        )?;
    }
    conn.execute(
        "DELETE FROM feed_polls WHERE calendar_id NOT IN (SELECT id FROM calendars)",
        [],
    )?;
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Db, DB_FILE};

    #[test]
    fn a_newer_database_is_refused_with_a_clear_message() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(DB_FILE);
        let conn = Connection::open(&path).expect("open");
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .expect("set version");
        drop(conn);
        let err = Db::open(dir.path()).expect_err("refused");
        assert!(matches!(err, StoreError::TooNew { .. }));
        assert!(err.to_string().contains("newer than this hearth supports"));
    }

    #[test]
    fn calendars_of_version_2_get_the_default_options_and_keep_their_mapping() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(DB_FILE);
        let mut conn = Connection::open(&path).expect("open");
        for sql in &MIGRATIONS[..2] {
            conn.execute_batch(sql).expect("old schema");
        }
        conn.pragma_update(None, "user_version", 2)
            .expect("version 2");
        conn.execute(
            "INSERT INTO calendars (id, name, url, mapping, token_hash, created_at, updated_at)
             VALUES ('old', 'Old', 'https://example.org/a.ics', '{\"SUMMARY\":\"x\"}', 'h', 0, 0)",
            [],
        )
        .expect("an old calendar");
        migrate(&mut conn, &path).expect("migrates");
        let (mapping, options): (String, String) = conn
            .query_row(
                "SELECT mapping, options FROM calendars WHERE id = 'old'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("row");
        assert_eq!(mapping, r#"{"SUMMARY":"x"}"#);
        assert_eq!(options, "{}");
    }

    #[test]
    fn a_fresh_database_is_migrated_to_the_latest_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut conn = Connection::open(dir.path().join(DB_FILE)).expect("open");
        migrate(&mut conn, &dir.path().join(DB_FILE)).expect("migrates");
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("version");
        assert_eq!(version, SCHEMA_VERSION);
        let by: String = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'migrated_by'",
                [],
                |r| r.get(0),
            )
            .expect("meta row");
        assert_eq!(by, crate::version::VERSION);
    }
}
