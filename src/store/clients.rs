//! Who made a stored row, as the budgets need to know it: a client's key (an IPv4 address, an
//! IPv6 /64) and its /56 and /48, each hashed with this installation's own random salt, so each
//! client and each network can be held to its share without the database keeping anyone's
//! address.

use rusqlite::{Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use super::StoreError;
use crate::fair::{ClientKey, Keyed, Level};

/// The tags stored for one client: its own, and its networks' (equal to its own for IPv4). The
/// default, all empty, is nobody's: rows stored before tags, and the site owner's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientTags {
    pub client: String,
    pub net56: String,
    pub net48: String,
}

impl ClientTags {
    /// The tag of `level`, and the column it is stored in.
    pub fn at(&self, level: Level) -> (&str, &'static str) {
        match level {
            Level::Client => (&self.client, "client"),
            Level::Net56 => (&self.net56, "net56"),
            Level::Net48 => (&self.net48, "net48"),
        }
    }
}

/// A client known by its stored tags pays from its own bucket and its networks' (an IPv4
/// address is its own network: its tags are one bucket).
impl Keyed for ClientTags {
    type Bucket = String;
    fn buckets(&self) -> Vec<(String, f64)> {
        let mut buckets = vec![(self.client.clone(), Level::Client.factor())];
        for (tag, level) in [(&self.net56, Level::Net56), (&self.net48, Level::Net48)] {
            if !buckets.iter().any(|(b, _)| b == tag) {
                buckets.push((tag.clone(), level.factor()));
            }
        }
        buckets
    }
}

fn salt(conn: &Connection) -> Result<String, StoreError> {
    let salt: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'client_salt'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    Ok(salt.unwrap_or_default())
}

fn tag(salt: &str, text: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(salt.as_bytes());
    hasher.update(b"\0");
    hasher.update(text.as_bytes());
    crate::hex::encode(&hasher.finalize()[..16])
}

/// The tags stored for `client`.
pub fn client_tags(conn: &Connection, client: ClientKey) -> Result<ClientTags, StoreError> {
    let salt = salt(conn)?;
    let at = |level| tag(&salt, &client.group(level).to_string());
    Ok(ClientTags {
        client: at(Level::Client),
        net56: at(Level::Net56),
        net48: at(Level::Net48),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Db;

    fn key(ip: &str) -> ClientKey {
        ClientKey::of(ip.parse().expect("ip"))
    }

    #[tokio::test]
    async fn tags_are_stable_per_installation_and_hide_the_address() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        let (a, a_again, b) = db
            .read(|conn| {
                Ok((
                    client_tags(conn, key("198.51.100.7"))?,
                    client_tags(conn, key("198.51.100.7"))?,
                    client_tags(conn, key("198.51.100.8"))?,
                ))
            })
            .await
            .expect("read");
        assert_eq!(a, a_again);
        assert_ne!(a.client, b.client);
        assert_eq!(
            (&a.net56, &a.net48),
            (&a.client, &a.client),
            "IPv4 is its own network"
        );
        // A hex digest: the address (with its dots) cannot be in it. Checking for "198" alone
        // failed whenever the random salt's digest happened to hold those three digits.
        assert!(a.client.chars().all(|c| c.is_ascii_hexdigit()), "{a:?}");
        assert!(!a.client.contains("198.51.100.7"));
        let other = tempfile::tempdir().expect("tempdir");
        let other_db = Db::open(other.path()).expect("db");
        let elsewhere = other_db
            .read(|conn| client_tags(conn, key("198.51.100.7")))
            .await
            .expect("read");
        assert_ne!(
            a.client, elsewhere.client,
            "each installation has its own salt"
        );
    }

    #[tokio::test]
    async fn the_64s_of_one_48_share_its_tag() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        let (a, b) = db
            .read(|conn| {
                Ok((
                    client_tags(conn, key("2001:db8:1:1::1"))?,
                    client_tags(conn, key("2001:db8:1:200::1"))?,
                ))
            })
            .await
            .expect("read");
        assert_ne!(a.client, b.client);
        assert_ne!(a.net56, b.net56);
        assert_eq!(a.net48, b.net48);
    }
}
