//! The owner's edits in SQLite (migration 10): one row of texts in `site_profile`, one picture
//! with its type in `site_avatar`. No row means the flags' value: removing a row is how the
//! owner goes back to them.

use rusqlite::{Connection, OptionalExtension};

use super::Texts;
use crate::store::StoreError;

/// A picture and its `Content-Type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPicture {
    pub bytes: Vec<u8>,
    pub content_type: String,
}

/// What the owner saved; `None` parts are the flags'.
#[derive(Debug, Clone, Default)]
pub struct Saved {
    pub texts: Option<Texts>,
    pub picture: Option<StoredPicture>,
}

pub fn read(conn: &Connection) -> Result<Saved, StoreError> {
    let texts = conn
        .query_row(
            "SELECT name, about, spotify_url, beehive_url FROM site_profile WHERE id = 1",
            [],
            |r| {
                Ok(Texts {
                    name: r.get(0)?,
                    about: r.get(1)?,
                    spotify_url: r.get(2)?,
                    beehive_url: r.get(3)?,
                })
            },
        )
        .optional()?;
    let picture = conn
        .query_row(
            "SELECT content_type, body FROM site_avatar WHERE id = 1",
            [],
            |r| {
                Ok(StoredPicture {
                    content_type: r.get(0)?,
                    bytes: r.get(1)?,
                })
            },
        )
        .optional()?;
    Ok(Saved { texts, picture })
}

pub fn save_texts(conn: &Connection, texts: &Texts) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO site_profile (id, name, about, spotify_url, beehive_url)
         VALUES (1, ?1, ?2, ?3, ?4)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, about = excluded.about,
             spotify_url = excluded.spotify_url, beehive_url = excluded.beehive_url",
        (
            &texts.name,
            &texts.about,
            &texts.spotify_url,
            &texts.beehive_url,
        ),
    )?;
    Ok(())
}

pub fn save_picture(conn: &Connection, picture: &StoredPicture) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO site_avatar (id, content_type, body) VALUES (1, ?1, ?2)
         ON CONFLICT (id) DO UPDATE SET content_type = excluded.content_type, body = excluded.body",
        (&picture.content_type, &picture.bytes),
    )?;
    Ok(())
}

pub fn remove_picture(conn: &Connection) -> Result<(), StoreError> {
    conn.execute("DELETE FROM site_avatar", [])?;
    Ok(())
}

/// Back to the flags' values, texts and picture.
pub fn reset(conn: &Connection) -> Result<(), StoreError> {
    conn.execute("DELETE FROM site_profile", [])?;
    remove_picture(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Db;

    #[tokio::test]
    async fn saved_texts_and_picture_read_back_and_reset_removes_both() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        let texts = Texts {
            name: "Ada".into(),
            about: Some("Hi".into()),
            spotify_url: None,
            beehive_url: Some("https://example.org".into()),
        };
        let picture = StoredPicture {
            bytes: vec![1, 2, 3],
            content_type: "image/webp".into(),
        };
        let (t, p) = (texts.clone(), picture.clone());
        let saved = db
            .write(move |conn| {
                save_texts(conn, &t)?;
                save_picture(conn, &p)?;
                read(conn)
            })
            .await
            .expect("saved");
        assert_eq!(saved.texts, Some(texts));
        assert_eq!(saved.picture, Some(picture));
        let after = db
            .write(|conn| {
                reset(conn)?;
                read(conn)
            })
            .await
            .expect("reset");
        assert!(after.texts.is_none() && after.picture.is_none());
    }
}
