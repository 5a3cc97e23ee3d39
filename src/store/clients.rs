//! Who made a stored row, as the budgets need to know it: a client's key (an IPv4 address, an
//! IPv6 /64) hashed with this installation's own random salt, so each address can be held to
//! its share without the database keeping anyone's address.

use rusqlite::{Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use super::StoreError;

/// The tag stored for `client` (its key as text, e.g. `198.51.100.7` or `2001:db8:1:2::/64`).
pub fn client_tag(conn: &Connection, client: &str) -> Result<String, StoreError> {
    let salt: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'client_salt'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    let mut hasher = Sha256::new();
    hasher.update(salt.unwrap_or_default().as_bytes());
    hasher.update(b"\0");
    hasher.update(client.as_bytes());
    Ok(crate::hex::encode(&hasher.finalize()[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Db;

    #[tokio::test]
    async fn tags_are_stable_per_installation_and_hide_the_address() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        let (a, a_again, b) = db
            .read(|conn| {
                Ok((
                    client_tag(conn, "198.51.100.7")?,
                    client_tag(conn, "198.51.100.7")?,
                    client_tag(conn, "198.51.100.8")?,
                ))
            })
            .await
            .expect("read");
        assert_eq!(a, a_again);
        assert_ne!(a, b);
        // A hex digest: the address (with its dots) cannot be in it. Checking for "198" alone
        // failed whenever the random salt's digest happened to hold those three digits.
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert!(!a.contains("198.51.100.7"));
        let other = tempfile::tempdir().expect("tempdir");
        let other_db = Db::open(other.path()).expect("db");
        let elsewhere = other_db
            .read(|conn| client_tag(conn, "198.51.100.7"))
            .await
            .expect("read");
        assert_ne!(a, elsewhere, "each installation has its own salt");
    }
}
