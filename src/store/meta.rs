//! The `meta` table: one text value per key, what the server keeps of itself between starts
//! (the backup report, the restore drill, the heartbeat replication is measured by, what the
//! proxies named, which alerts were sent). One way to write a value, so every writer replaces it
//! the same way.

use rusqlite::Connection;
use serde::Serialize;

use super::{Db, StoreError};

/// Sets `key` to `value`, replacing what was there.
pub fn set(conn: &Connection, key: &str, value: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [key, value],
    )?;
    Ok(())
}

/// Sets `key` to `value` as JSON (the server's own reports, plain structs that always serialise).
pub fn set_json<T: Serialize>(conn: &Connection, key: &str, value: &T) -> Result<(), StoreError> {
    set(conn, key, &json(value))
}

fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

impl Db {
    /// Sets `key` to `value` on the writer (off the async threads).
    pub async fn set_meta(&self, key: &'static str, value: String) -> Result<(), StoreError> {
        self.write(move |conn| set(conn, key, &value)).await
    }

    /// Sets `key` to `value` as JSON on the writer.
    pub async fn set_meta_json<T: Serialize>(
        &self,
        key: &'static str,
        value: &T,
    ) -> Result<(), StoreError> {
        self.set_meta(key, json(value)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_set_then_replaced() {
        let conn = Connection::open_in_memory().expect("memory");
        conn.execute_batch("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            .expect("table");
        set(&conn, "k", "one").expect("set");
        set_json(&conn, "k", &["two"]).expect("replace");
        let value: String = conn
            .query_row("SELECT value FROM meta WHERE key = 'k'", [], |r| r.get(0))
            .expect("read");
        assert_eq!(value, r#"["two"]"#);
    }
}
