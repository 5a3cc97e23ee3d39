//! The doctor's check of sources' stored logins: each must open with the key file in the data
//! directory (kept apart from the database and its backups). A missing or other key is a
//! failure in words naming the calendars whose logins cannot be opened, and what to do.

use rusqlite::Connection;

use super::{Finding, Setup};
use crate::publish::logins::{check_all, SealError, KEY_FILE};

const CHECK: &str = "source logins";

/// Nothing when no login is stored (the key file need not exist).
pub(super) fn logins(setup: &Setup, conn: &Connection) -> Option<Finding> {
    let calendars = match check_all(conn, &setup.data_dir) {
        Ok(calendars) if calendars.is_empty() => return None,
        Ok(calendars) => calendars,
        Err(e) => {
            return Some(Finding::fail(
                CHECK,
                format!("the stored logins could not be read: {e}"),
            ))
        }
    };
    let failing: Vec<(&str, &SealError)> = calendars
        .iter()
        .filter_map(|(id, state)| state.as_ref().err().map(|e| (id.as_str(), e)))
        .collect();
    let Some((_, first)) = failing.first() else {
        let count: usize = calendars.iter().filter_map(|(_, s)| s.as_ref().ok()).sum();
        return Some(Finding::ok(
            CHECK,
            format!(
                "{count} stored login{} of {} calendar{} open with {KEY_FILE}; keep a copy of \
                 that file apart from the backups: a restore on a new machine needs it",
                if count == 1 { "" } else { "s" },
                calendars.len(),
                if calendars.len() == 1 { "" } else { "s" },
            ),
        ));
    };
    let names: Vec<String> = failing.iter().map(|(id, _)| format!("'{id}'")).collect();
    let what_to_do = match first {
        SealError::KeyMissing(_) => format!(
            "put back the {KEY_FILE} kept from the old machine (beside hearth.db, owner-only), \
             or give these calendars their logins again in the editor"
        ),
        _ => format!(
            "the {KEY_FILE} in the data directory is not the one these logins were sealed with: \
             put back the right one, or give these calendars their logins again in the editor"
        ),
    };
    Some(Finding::fail(
        CHECK,
        format!(
            "the stored logins of calendar {} cannot be opened ({first}); their sources are not \
             fetched: {what_to_do}",
            names.join(", ")
        ),
    ))
}
