//! The doctor's checks of the data directory: the database (sound, a schema this binary runs),
//! the free space (for writes and for the next backup) and who may read the files.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use rusqlite::Connection;

use super::{size, Finding, Setup};
use crate::store::{
    database_bytes, free_bytes, integrity, Checked, CHECK_TIME_LIMIT, MIN_FREE_BYTES,
    SCHEMA_VERSION,
};

pub(super) fn database(setup: &Setup, conn: Option<&Connection>) -> Finding {
    const CHECK: &str = "database";
    let path = setup.data_dir.join(crate::store::DB_FILE);
    if !path.exists() {
        return Finding::warn(
            CHECK,
            format!(
                "no database at {} yet: `hearth serve` creates it (is --data-dir right?)",
                path.display()
            ),
        );
    }
    let Some(conn) = conn else {
        return Finding::fail(
            CHECK,
            format!(
                "{} does not open: restore a backup (hearth restore)",
                path.display()
            ),
        );
    };
    let version: i64 = match conn.query_row("PRAGMA user_version", [], |r| r.get(0)) {
        Ok(v) => v,
        Err(e) => {
            return Finding::fail(
                CHECK,
                format!(
                    "{} is not readable ({e}): restore a backup (hearth restore)",
                    path.display()
                ),
            )
        }
    };
    if version > SCHEMA_VERSION {
        return Finding::fail(
            CHECK,
            format!("schema {version} is newer than this binary's ({SCHEMA_VERSION}): run the newer Hearth, or restore the snapshot taken before the upgrade"),
        );
    }
    let schema = if version < SCHEMA_VERSION {
        format!("schema {version}, brought up to {SCHEMA_VERSION} at the next start")
    } else {
        format!("schema {version}")
    };
    if !setup.thorough {
        return Finding::ok(CHECK, format!("checked at start; {schema}"));
    }
    let file_size = std::fs::metadata(&path).map_or(0, |m| m.len());
    // The check runs on a connection of its own, which it may interrupt.
    let checked = Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| {
            c.busy_timeout(std::time::Duration::from_secs(5))
                .map(|()| c)
        })
        .map_err(crate::store::StoreError::from)
        .and_then(|mut own| integrity(&mut own, &path, file_size, CHECK_TIME_LIMIT));
    match checked {
        Ok(Checked::Complete) => {
            Finding::ok(CHECK, format!("sound ({}), {schema}", size(file_size)))
        }
        Ok(Checked::CutShort) => Finding::ok(
            CHECK,
            format!(
                "sound as far as {CHECK_TIME_LIMIT:?} of checking read ({}), {schema}",
                size(file_size)
            ),
        ),
        Err(e) => Finding::fail(CHECK, format!("{e}: restore a backup (hearth restore)")),
    }
}

pub(super) fn free_space(setup: &Setup) -> Finding {
    const CHECK: &str = "free space";
    let dir = if setup.data_dir.is_dir() {
        setup.data_dir.as_path()
    } else {
        Path::new(".")
    };
    let free = match free_bytes(dir) {
        Ok(free) => free,
        Err(e) => {
            return Finding::warn(
                CHECK,
                format!("cannot read the free space of {}: {e}", dir.display()),
            )
        }
    };
    let database = database_bytes(&setup.data_dir);
    if free < MIN_FREE_BYTES {
        return Finding::fail(
            CHECK,
            format!("{} free on the data directory's disk: writes are refused below {}; free space (old backups, logs)", size(free), size(MIN_FREE_BYTES)),
        );
    }
    let for_backup = database.saturating_add(setup.backups.min_free);
    if setup.backups.interval.is_some() && free < for_backup {
        return Finding::warn(
            CHECK,
            format!("{} free: the next backup needs about {} and will be skipped; free space or lower --backup-keep", size(free), size(for_backup)),
        );
    }
    Finding::ok(CHECK, format!("{} free", size(free)))
}

pub(super) fn file_modes(setup: &Setup) -> Finding {
    const CHECK: &str = "file modes";
    let mut open = Vec::new();
    let mut look = |path: &Path, want: u32| {
        if let Ok(meta) = std::fs::metadata(path) {
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                open.push(format!("{} is {mode:o} (chmod {want:o})", path.display()));
            }
        }
    };
    look(&setup.data_dir, 0o700);
    look(&setup.data_dir.join(crate::store::DB_FILE), 0o600);
    look(&setup.backups.dir, 0o700);
    if let Ok(backups) = crate::backups::files::list(&setup.backups.dir) {
        for backup in backups {
            look(&backup.path, 0o600);
        }
    }
    if open.is_empty() {
        Finding::ok(
            CHECK,
            "the data and the backups are readable by their owner only",
        )
    } else {
        Finding::warn(
            CHECK,
            format!(
                "others may read what holds tokens' hashes and vaults: {}",
                open.join("; ")
            ),
        )
    }
}
