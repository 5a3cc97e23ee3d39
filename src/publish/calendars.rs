//! Published calendars in SQLite: the mapping and the options beside it, the hashed edit token,
//! the revision that every republish raises, who made it (as a salted tag, for its share of the
//! quota), and removing feed copies no calendar uses.

use std::time::SystemTime;

use rusqlite::{params, OptionalExtension};
use serde_json::{Map, Value};

use super::logins::{self, SealedRow};
use super::quotas::{count_problem, QuotaError, Quotas};
use super::validate::PublishInput;
use crate::calendar::{CalendarConfig, Mapping};
use crate::clock::{from_millis, to_millis};
use crate::http::client::ClientKey;
use crate::secret::{token_matches, PresentedToken, Token};
use crate::store::{client_tags, ClientTags, Db, StoreError};

/// Who is publishing: the client, and whether it presented the publish key.
#[derive(Debug, Clone, Copy)]
pub struct Maker {
    pub client: ClientKey,
    pub owner: bool,
}

/// A stored published calendar.
#[derive(Debug, Clone)]
pub struct Published {
    pub id: String,
    pub name: String,
    pub url: String,
    /// The mapping and its options.
    pub config: CalendarConfig,
    pub revision: i64,
    pub updated_at: SystemTime,
    /// Who published it, as stored: its hosted renders are charged to them.
    pub maker: ClientTags,
}

/// The outcome of writing a publish.
#[derive(Debug)]
pub enum PublishOutcome {
    /// First publish of this id; the token is shown once.
    Created {
        token: String,
        record: Published,
    },
    Updated {
        record: Published,
    },
    /// The id exists and the token is missing or wrong.
    Forbidden,
}

/// What the copies of every address calendar `id` reads are kept under (`calendar_urls`).
fn copy_keys_of(conn: &rusqlite::Connection, id: &str) -> Result<Vec<String>, StoreError> {
    let keys = conn
        .prepare_cached("SELECT url FROM calendar_urls WHERE calendar_id = ?1")?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(keys)
}

/// One source of a merged calendar as stored: its address, what its copies and health are kept
/// under (the address, or with a login the address and its login's tag), and its label.
#[derive(Debug, Clone)]
pub struct StoredSource {
    pub url: String,
    pub key: String,
    pub label: Option<String>,
}

/// A merged calendar's sources, in order (none for a calendar of one feed).
pub fn source_urls(conn: &rusqlite::Connection, id: &str) -> Result<Vec<StoredSource>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT json_extract(s.value, '$.url'), json_extract(s.value, '$.label'),
            (SELECT l.tag FROM source_logins l
             WHERE l.calendar_id = c.id AND l.url = json_extract(s.value, '$.url'))
         FROM calendars c, json_each(c.options, '$.sources') s
         WHERE c.id = ?1 AND json_extract(s.value, '$.url') IS NOT NULL ORDER BY s.key",
    )?;
    let sources = statement
        .query_map([id], |r| {
            let url: String = r.get(0)?;
            let tag: Option<String> = r.get(2)?;
            Ok(StoredSource {
                key: tag.map_or_else(|| url.clone(), |tag| format!("{url} login:{tag}")),
                url,
                label: r.get(1)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(sources)
}

/// Removes the stored copies of `urls` that no calendar still uses.
fn remove_unused_copies(conn: &rusqlite::Connection, urls: &[String]) -> Result<(), StoreError> {
    for url in urls {
        remove_unused_copy(conn, url)?;
    }
    Ok(())
}

/// Removes the stored copy of `url` unless a calendar still uses it. Copies are keyed by the
/// normalised address, as `calendars.url` holds it.
fn remove_unused_copy(conn: &rusqlite::Connection, url: &str) -> Result<(), StoreError> {
    for table in ["feed_copies", "upstream_health", "kept_events"] {
        conn.execute(
            &format!(
                "DELETE FROM {table} WHERE url = ?1
                 AND NOT EXISTS (SELECT 1 FROM calendar_urls WHERE url = ?1)"
            ),
            [url],
        )?;
    }
    Ok(())
}

fn mapping_json(mapping: &Mapping) -> String {
    serde_json::to_string(mapping).unwrap_or_else(|_| "{}".to_owned())
}

/// The config without its mapping, as `calendars.options` keeps it (`{}`: every option as
/// before options existed).
fn options_json(config: &CalendarConfig) -> String {
    match serde_json::to_value(config) {
        Ok(Value::Object(mut object)) => {
            object.remove("mapping");
            Value::Object(object).to_string()
        }
        _ => "{}".to_owned(),
    }
}

/// The stored config: the mapping column and the options column, read back as one.
fn read_config(mapping: &str, options: &str) -> Result<CalendarConfig, serde_json::Error> {
    let mut object: Map<String, Value> = serde_json::from_str(options)?;
    object.insert("mapping".to_owned(), serde_json::from_str(mapping)?);
    serde_json::from_value(Value::Object(object))
}

fn row_to_published(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Published, String)> {
    let mapping_text: String = r.get(3)?;
    let options_text: String = r.get(7)?;
    // A stored config that does not read is an error, not silently the default mapping.
    let config = read_config(&mapping_text, &options_text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(7, rusqlite::types::Type::Text, Box::new(e))
    })?;
    Ok((
        Published {
            id: r.get(0)?,
            name: r.get(1)?,
            url: r.get(2)?,
            config,
            revision: r.get(4)?,
            updated_at: from_millis(r.get(5)?),
            maker: ClientTags {
                client: r.get(8)?,
                net56: r.get(9)?,
                net48: r.get(10)?,
            },
        },
        r.get(6)?,
    ))
}

const SELECT: &str = "SELECT id, name, url, mapping, revision, updated_at, token_hash, options, \
                      client, net56, net48 FROM calendars";

/// Whether `maker` may publish calendar `id` as things stand (checked again, exactly, when it
/// is stored): before anything is fetched.
pub async fn may_publish(
    db: &Db,
    id: String,
    maker: Maker,
    quotas: Quotas,
) -> Result<(), QuotaError> {
    let problem = db
        .read(move |conn| {
            let tags = client_tags(conn, maker.client)?;
            count_problem(conn, &id, &tags, maker.owner, quotas)
        })
        .await?;
    problem.map_or(Ok(()), Err)
}

/// Creates the calendar, or updates it when `token` matches the stored one. The count quota
/// and the maker's share are checked again here, in the write transaction, so concurrent
/// publishes cannot pass them together. A publish that stores no calendar takes its feed copy
/// (saved while checking the feed) away again, and a republish to another address removes the
/// old address's copy.
pub async fn publish(
    db: &Db,
    input: PublishInput,
    token: Option<PresentedToken>,
    maker: Maker,
    quotas: Quotas,
    now: SystemTime,
    logins: Vec<SealedRow>,
) -> Result<PublishOutcome, QuotaError> {
    let fetched = input.copy_keys();
    let outcome = db.write(move |conn| {
        let tx = conn.transaction()?;
        let existing = tx
            .query_row(&format!("{SELECT} WHERE id = ?1"), [&input.id], row_to_published)
            .optional()?;
        let outcome = match existing {
            None => {
                let tags = client_tags(&tx, maker.client)?;
                if let Some(problem) = count_problem(&tx, &input.id, &tags, maker.owner, quotas)? {
                    remove_unused_copies(&tx, &fetched)?;
                    tx.commit()?;
                    return Ok(Err(problem));
                }
                // The owner's calendars are nobody's share (of the count or the feed storage),
                // as calendars stored before tags were.
                let tags = if maker.owner { ClientTags::default() } else { tags };
                let token = Token::generate();
                tx.execute(
                    "INSERT INTO calendars (id, name, url, mapping, token_hash, revision, created_at, updated_at, options, client, net56, net48)
                     VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6, ?7, ?8, ?9, ?10)",
                    params![input.id, input.name, input.url.as_str(), mapping_json(&input.config.mapping), token.hash(), to_millis(now), options_json(&input.config), tags.client, tags.net56, tags.net48],
                )?;
                logins::replace(&tx, &input.id, &logins)?;
                // An id published again after it was deleted is served again.
                tx.execute("DELETE FROM deleted_calendars WHERE id = ?1", [&input.id])?;
                PublishOutcome::Created {
                    token: token.as_str().to_owned(),
                    record: Published {
                        id: input.id,
                        name: input.name,
                        url: input.url.to_string(),
                        config: input.config,
                        revision: 0,
                        updated_at: now,
                        maker: tags,
                    },
                }
            }
            Some((old, stored_hash)) => {
                if !token_matches(token.as_ref(), &stored_hash) {
                    remove_unused_copies(&tx, &fetched)?;
                    tx.commit()?;
                    return Ok(Ok(PublishOutcome::Forbidden));
                }
                let revision = old.revision + 1;
                let before = copy_keys_of(&tx, &input.id)?;
                tx.execute(
                    "UPDATE calendars SET name = ?2, url = ?3, mapping = ?4, revision = ?5, updated_at = ?6, options = ?7
                     WHERE id = ?1",
                    params![input.id, input.name, input.url.as_str(), mapping_json(&input.config.mapping), revision, to_millis(now), options_json(&input.config)],
                )?;
                logins::replace(&tx, &input.id, &logins)?;
                let now_read = copy_keys_of(&tx, &input.id)?;
                let dropped: Vec<String> = before
                    .into_iter()
                    .filter(|u| !now_read.contains(u))
                    .collect();
                remove_unused_copies(&tx, &dropped)?;
                PublishOutcome::Updated {
                    record: Published {
                        id: input.id,
                        name: input.name,
                        url: input.url.to_string(),
                        config: input.config,
                        revision,
                        updated_at: now,
                        maker: old.maker,
                    },
                }
            }
        };
        tx.commit()?;
        Ok(Ok(outcome))
    })
    .await?;
    outcome
}

/// Removes the stored copies of `urls` when no calendar uses them: after a publish that fetched
/// them stored nothing (its mapping was refused), so that refused publishes cannot fill the
/// storage.
pub async fn discard_copies(db: &Db, urls: Vec<String>) -> Result<(), StoreError> {
    db.write(move |conn| remove_unused_copies(conn, &urls))
        .await
}

/// The outcome of an unpublish.
#[derive(Debug, PartialEq, Eq)]
pub enum DeleteOutcome {
    Deleted,
    NotFound,
    Forbidden,
}

pub async fn delete(
    db: &Db,
    id: String,
    token: Option<PresentedToken>,
    now: SystemTime,
) -> Result<DeleteOutcome, StoreError> {
    let deleted_at = to_millis(now);
    db.write(move |conn| {
        let tx = conn.transaction()?;
        let stored: Option<(String, String)> = tx
            .query_row(
                "SELECT token_hash, url FROM calendars WHERE id = ?1",
                [&id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let outcome = match stored {
            None => DeleteOutcome::NotFound,
            Some((hash, _)) if token_matches(token.as_ref(), &hash) => {
                let urls = copy_keys_of(&tx, &id)?;
                tx.execute("DELETE FROM calendars WHERE id = ?1", [&id])?;
                logins::replace(&tx, &id, &[])?;
                remove_unused_copies(&tx, &urls)?;
                tx.execute("DELETE FROM feed_polls WHERE calendar_id = ?1", [&id])?;
                // Calendar apps keep polling a deleted feed: it is remembered, so they get 410.
                tx.execute(
                    "INSERT INTO deleted_calendars (id, deleted_at) VALUES (?1, ?2)
                     ON CONFLICT (id) DO UPDATE SET deleted_at = excluded.deleted_at",
                    rusqlite::params![id, deleted_at],
                )?;
                DeleteOutcome::Deleted
            }
            Some(_) => DeleteOutcome::Forbidden,
        };
        tx.commit()?;
        Ok(outcome)
    })
    .await
}

/// Whether a caller may read calendar `id`'s status, and the calendar's address if so.
#[derive(Debug, PartialEq, Eq)]
pub enum Access {
    Granted { url: String },
    NotFound,
    Forbidden,
}

/// Access to calendar `id` for the holder of `token`, or for the owner (`owner`: presented the
/// publish key) whatever the token.
pub async fn access(
    db: &Db,
    id: String,
    token: Option<PresentedToken>,
    owner: bool,
) -> Result<Access, StoreError> {
    db.read(move |conn| {
        let stored: Option<(String, String)> = conn
            .query_row(
                "SELECT token_hash, url FROM calendars WHERE id = ?1",
                [&id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(match stored {
            None => Access::NotFound,
            Some((hash, url)) if owner || token_matches(token.as_ref(), &hash) => {
                Access::Granted { url }
            }
            Some(_) => Access::Forbidden,
        })
    })
    .await
}

/// Every published calendar: id, name and feed address, by name; and the bytes of the feed
/// copies kept.
pub async fn listing(db: &Db) -> Result<(Vec<(String, String, String)>, u64), StoreError> {
    db.read(|conn| {
        let mut statement =
            conn.prepare("SELECT id, name, url FROM calendars ORDER BY name, id")?;
        let all = statement
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        let bytes: i64 = conn.query_row(
            "SELECT coalesce(sum(length(body)), 0)
                    + (SELECT coalesce(sum(length(component)), 0) FROM kept_events)
             FROM feed_copies",
            [],
            |r| r.get(0),
        )?;
        Ok((all, u64::try_from(bytes).unwrap_or(0)))
    })
    .await
}

pub async fn find(db: &Db, id: String) -> Result<Option<Published>, StoreError> {
    db.read(move |conn| {
        Ok(conn
            .query_row(&format!("{SELECT} WHERE id = ?1"), [&id], row_to_published)
            .optional()?
            .map(|(p, _)| p))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::publish::fetch::normalize_url;
    use crate::publish::validate::validate;

    const PLENTY: Quotas = Quotas {
        max_calendars: 100,
        max_feed_storage: 1 << 30,
    };

    fn input(id: &str, url: &str) -> PublishInput {
        let config = serde_json::json!({ "mapping": {} });
        let config = config.as_object().cloned().unwrap_or_default();
        validate(id, "Work", Some(url), &config).expect("valid")
    }

    fn visitor(n: u8) -> Maker {
        Maker {
            client: ClientKey::of(std::net::IpAddr::from([198, 51, 100, n])),
            owner: false,
        }
    }

    async fn publish(
        db: &Db,
        input: PublishInput,
        token: Option<Token>,
        quotas: Quotas,
    ) -> Result<PublishOutcome, QuotaError> {
        let token = token.map(crate::secret::presented_in_a_test);
        super::publish(
            db,
            input,
            token,
            visitor(1),
            quotas,
            SystemTime::now(),
            Vec::new(),
        )
        .await
    }

    /// What `Feeds` does while a publish checks the feed: the copy is saved first.
    async fn store_copy(db: &Db, url: &str, bytes: usize) {
        let url = normalize_url(url).expect("url").as_str().to_owned();
        db.write(move |c| {
            c.execute(
                "INSERT INTO feed_copies (url, body, fetched_at, changed_at) VALUES (?1, zeroblob(?2), 0, 0)
                 ON CONFLICT (url) DO UPDATE SET body = excluded.body",
                params![url, bytes as i64],
            )?;
            Ok(())
        })
        .await
        .expect("copy stored");
    }

    async fn copies(db: &Db) -> Vec<String> {
        db.read(|c| {
            let mut s = c.prepare("SELECT url FROM feed_copies ORDER BY url")?;
            let urls = s.query_map([], |r| r.get(0))?.collect::<Result<_, _>>()?;
            Ok(urls)
        })
        .await
        .expect("read")
    }

    async fn created_token(db: &Db, input: PublishInput, quotas: Quotas) -> Token {
        match publish(db, input, None, quotas).await.expect("publishes") {
            PublishOutcome::Created { token, .. } => Token::given(&token).expect("a token"),
            other => panic!("not created: {other:?}"),
        }
    }

    #[test]
    fn options_are_stored_beside_the_mapping_and_read_back_as_one_config() {
        let config = CalendarConfig {
            mapping: Mapping::default(),
            ..serde_json::from_value(serde_json::json!({
                "mapping": {},
                "filters": [{"action": "exclude", "uid": "u@x"}],
                "window": {"futureDays": 10},
                "timezones": "repair",
                "alarms": {"addMinutesBefore": 5},
                "privacy": "busy"
            }))
            .expect("config")
        };
        let options = options_json(&config);
        assert!(!options.contains("mapping"), "{options}");
        assert_eq!(
            read_config(&mapping_json(&config.mapping), &options).expect("reads"),
            config
        );
        assert_eq!(options_json(&CalendarConfig::default()), "{}");
        assert_eq!(
            read_config(&mapping_json(&Mapping::default()), "{}").expect("reads"),
            CalendarConfig::default()
        );
    }

    #[tokio::test]
    async fn a_stored_mapping_that_does_not_read_is_an_error_not_the_default() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        created_token(&db, input("bad", "https://example.org/a.ics"), PLENTY).await;
        db.write(|c| {
            c.execute(
                "UPDATE calendars SET mapping = '{not json' WHERE id = 'bad'",
                [],
            )?;
            Ok(())
        })
        .await
        .expect("corrupt");
        assert!(find(&db, "bad".into()).await.is_err());
    }

    #[tokio::test]
    async fn new_calendars_beyond_the_count_are_refused_and_existing_ones_still_republish() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        let quotas = Quotas {
            max_calendars: 2,
            ..PLENTY
        };
        may_publish(&db, "a".into(), visitor(1), quotas)
            .await
            .expect("room");
        let token_a = created_token(&db, input("a", "https://example.org/a.ics"), quotas).await;
        let b = super::publish(
            &db,
            input("b", "https://example.org/b.ics"),
            None,
            visitor(2),
            quotas,
            SystemTime::now(),
            Vec::new(),
        )
        .await
        .expect("b");
        assert!(matches!(b, PublishOutcome::Created { .. }));

        let err = may_publish(&db, "c".into(), visitor(3), quotas)
            .await
            .expect_err("full");
        assert!(matches!(err, QuotaError::TooManyCalendars), "{err:?}");
        // The check inside the write holds too (two publishes may pass the first together).
        store_copy(&db, "https://example.org/c.ics", 10).await;
        let c = input("c", "https://example.org/c.ics");
        let err = super::publish(
            &db,
            c,
            None,
            visitor(3),
            quotas,
            SystemTime::now(),
            Vec::new(),
        )
        .await
        .expect_err("full");
        assert!(err.to_string().contains("--max-calendars"), "{err}");
        assert!(
            !err.to_string().chars().any(|c| c.is_ascii_digit()),
            "{err}"
        );
        assert!(!copies(&db)
            .await
            .contains(&"https://example.org/c.ics".to_owned()));
        let app = crate::http::error::AppError::from(err);
        assert_eq!(app.status(), axum::http::StatusCode::INSUFFICIENT_STORAGE);

        may_publish(&db, "a".into(), visitor(1), quotas)
            .await
            .expect("not new");
        assert!(matches!(
            publish(
                &db,
                input("a", "https://example.org/a.ics"),
                Some(token_a),
                quotas
            )
            .await
            .expect("republish"),
            PublishOutcome::Updated { .. }
        ));
    }

    #[tokio::test]
    async fn a_visitor_publishes_its_share_and_the_owner_has_none_to_keep_to() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        // 16 calendars: two per visitor.
        let quotas = Quotas {
            max_calendars: 16,
            ..PLENTY
        };
        for id in ["a", "b"] {
            created_token(
                &db,
                input(id, &format!("https://example.org/{id}.ics")),
                quotas,
            )
            .await;
        }
        let err = publish(&db, input("c", "https://example.org/c.ics"), None, quotas)
            .await
            .expect_err("share taken");
        assert!(
            matches!(err, QuotaError::CalendarShareTaken { share: 2 }),
            "{err:?}"
        );
        let owner = Maker {
            owner: true,
            ..visitor(1)
        };
        let made = super::publish(
            &db,
            input("c", "https://example.org/c.ics"),
            None,
            owner,
            quotas,
            SystemTime::now(),
            Vec::new(),
        )
        .await
        .expect("the owner");
        assert!(matches!(made, PublishOutcome::Created { .. }));
        may_publish(&db, "d".into(), visitor(2), quotas)
            .await
            .expect("another visitor");
    }

    #[tokio::test]
    async fn copies_no_calendar_uses_are_removed_on_unpublish_move_and_refusal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        let shared = "https://example.org/shared.ics";
        store_copy(&db, shared, 10).await;
        let token_a = created_token(&db, input("a", shared), PLENTY).await;
        let token_b = created_token(&db, input("b", shared), PLENTY).await;

        // b moves to another address: the shared copy stays for a.
        store_copy(&db, "https://example.org/b2.ics", 10).await;
        publish(
            &db,
            input("b", "https://example.org/b2.ics"),
            Some(token_b.clone()),
            PLENTY,
        )
        .await
        .expect("moves");
        assert_eq!(
            copies(&db).await,
            [
                "https://example.org/b2.ics",
                "https://example.org/shared.ics"
            ]
        );
        // a is unpublished: nobody uses the shared copy any more.
        assert_eq!(
            delete(
                &db,
                "a".into(),
                Some(crate::secret::presented_in_a_test(token_a)),
                SystemTime::now()
            )
            .await
            .expect("delete"),
            DeleteOutcome::Deleted
        );
        assert_eq!(copies(&db).await, ["https://example.org/b2.ics"]);
        // A republish with the wrong token stores nothing, not even the copy it fetched.
        store_copy(&db, "https://example.org/evil.ics", 10).await;
        assert!(matches!(
            publish(
                &db,
                input("b", "https://example.org/evil.ics"),
                Token::given("wrong"),
                PLENTY
            )
            .await
            .expect("answers"),
            PublishOutcome::Forbidden
        ));
        assert_eq!(copies(&db).await, ["https://example.org/b2.ics"]);
        // b moves again: its old copy goes.
        store_copy(&db, "https://example.org/b3.ics", 10).await;
        publish(
            &db,
            input("b", "https://example.org/b3.ics"),
            Some(token_b.clone()),
            PLENTY,
        )
        .await
        .expect("moves");
        assert_eq!(copies(&db).await, ["https://example.org/b3.ics"]);
        delete(
            &db,
            "b".into(),
            Some(crate::secret::presented_in_a_test(token_b)),
            SystemTime::now(),
        )
        .await
        .expect("delete");
        assert!(copies(&db).await.is_empty());
    }
}
