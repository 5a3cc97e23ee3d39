//! Published calendars: what a publish request must hold, the records in SQLite (the mapping and
//! the options beside it, the hashed edit token, and the revision that every republish raises), the quotas on how many
//! there are and how much their feed copies take, and removing copies no calendar uses.

use std::sync::Arc;
use std::time::SystemTime;

use rusqlite::{params, OptionalExtension};
use serde_json::{Map, Value};

use super::feeds::{from_millis, to_millis};
use super::fetch::normalize_url;
use crate::calendar::{
    AlarmMode, CalendarConfig, CompiledConfig, ConfigError, FilterRule, MappedField, Mapping,
    Privacy, TimezoneMode, Window,
};
use crate::config::Config;
use crate::secret::{token_matches, Token};
use crate::store::{Db, StoreError};

pub const MAX_ID_LEN: usize = 64;
pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_TEMPLATE_BYTES: usize = 4 * 1024;

/// A publish request after validation.
#[derive(Debug, Clone)]
pub struct PublishInput {
    pub id: String,
    pub name: String,
    /// As normalised (webcal: → https:).
    pub url: reqwest::Url,
    /// The mapping and the options.
    pub config: CalendarConfig,
    /// The config compiled while it was checked, for serving it.
    pub compiled: Arc<CompiledConfig>,
}

/// The options of a publish request, beside its mapping (absent: today's behaviour).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishOptions {
    #[serde(default)]
    pub filters: Vec<FilterRule>,
    #[serde(default)]
    pub window: Option<Window>,
    #[serde(default)]
    pub timezones: TimezoneMode,
    #[serde(default)]
    pub alarms: AlarmMode,
    #[serde(default)]
    pub privacy: Privacy,
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

/// Limits on what publishing may store (`--max-calendars`, `--max-feed-storage`).
#[derive(Debug, Clone, Copy)]
pub struct Quotas {
    pub max_calendars: usize,
    pub max_feed_storage: u64,
}

impl Quotas {
    pub fn of(config: &Config) -> Quotas {
        Quotas {
            max_calendars: config.max_calendars,
            max_feed_storage: config.max_feed_storage,
        }
    }
}

/// Why a publish may not store anything more.
#[derive(Debug, thiserror::Error)]
pub enum QuotaError {
    #[error(
        "this server already holds its limit of {0} published calendars: unpublish one you no \
         longer need, or ask the site's owner to raise --max-calendars"
    )]
    TooManyCalendars(usize),
    #[error(
        "the server's storage for calendar feeds is full ({used} of {limit} bytes used): \
         unpublish a calendar you no longer need, or ask the site's owner to raise --max-feed-storage"
    )]
    FeedStorageFull { used: u64, limit: u64 },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A quota is answered 507 Insufficient Storage rather than 403: nothing is wrong with the
/// request or its sender, the server is out of the room its owner gave it, and the same
/// request succeeds once room is made.
/// Before the feed is fetched: refuses a new calendar beyond the count, and a feed not stored
/// yet once stored copies reach the byte cap (a feed already stored costs nothing new).
pub async fn check_quotas(db: &Db, input: &PublishInput, quotas: Quotas) -> Result<(), QuotaError> {
    let id = input.id.clone();
    let url = input.url.as_str().to_owned();
    let problem = db
        .read(move |conn| {
            if let Some(problem) = count_problem(conn, &id, quotas)? {
                return Ok(Some(problem));
            }
            storage_problem(conn, &url, quotas)
        })
        .await?;
    problem.map_or(Ok(()), Err)
}

fn count_problem(
    conn: &rusqlite::Connection,
    id: &str,
    quotas: Quotas,
) -> Result<Option<QuotaError>, StoreError> {
    let exists = conn
        .query_row("SELECT 1 FROM calendars WHERE id = ?1", [id], |_| Ok(()))
        .optional()?
        .is_some();
    if exists {
        return Ok(None);
    }
    let count: i64 = conn.query_row("SELECT count(*) FROM calendars", [], |r| r.get(0))?;
    Ok(
        (usize::try_from(count).unwrap_or(usize::MAX) >= quotas.max_calendars)
            .then_some(QuotaError::TooManyCalendars(quotas.max_calendars)),
    )
}

fn storage_problem(
    conn: &rusqlite::Connection,
    url: &str,
    quotas: Quotas,
) -> Result<Option<QuotaError>, StoreError> {
    let stored = conn
        .query_row(
            "SELECT 1 FROM feed_copies WHERE url = ?1",
            [url],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if stored {
        return Ok(None);
    }
    let used = stored_feed_bytes(conn)?;
    Ok(
        (used >= quotas.max_feed_storage).then_some(QuotaError::FeedStorageFull {
            used,
            limit: quotas.max_feed_storage,
        }),
    )
}

/// Bytes of all stored feed copies (`length` of a blob reads its header, not its content).
pub fn stored_feed_bytes(conn: &rusqlite::Connection) -> Result<u64, StoreError> {
    let used: i64 = conn.query_row(
        "SELECT coalesce(sum(length(body)), 0) FROM feed_copies",
        [],
        |r| r.get(0),
    )?;
    Ok(u64::try_from(used).unwrap_or(0))
}

/// Removes the stored copy of `url` unless a calendar still uses it. Copies are keyed by the
/// normalised address, as `calendars.url` holds it.
fn remove_unused_copy(conn: &rusqlite::Connection, url: &str) -> Result<(), StoreError> {
    conn.execute(
        "DELETE FROM feed_copies WHERE url = ?1
         AND NOT EXISTS (SELECT 1 FROM calendars WHERE url = ?1)",
        [url],
    )?;
    Ok(())
}

/// A field of a request that is wrong, and why: `name: the calendar needs a name`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct Invalid {
    /// The field's path in the request (`name`, `mapping.SUMMARY`).
    pub field: String,
    pub message: String,
}

impl Invalid {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Invalid {
        Invalid {
            field: field.into(),
            message: message.into(),
        }
    }

    /// A config that does not check, named by its path (`filters[1].pattern: …`).
    pub fn config(error: ConfigError) -> Invalid {
        Invalid::new(error.path, error.message)
    }
}

/// Checks every field of a publish request, naming the field that is wrong.
pub fn validate(
    id: &str,
    name: &str,
    url: &str,
    mapping: &Map<String, Value>,
    options: PublishOptions,
) -> Result<PublishInput, Invalid> {
    validate_id(id)?;
    let name = name.trim();
    if name.is_empty() {
        return Err(Invalid::new("name", "the calendar needs a name"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(Invalid::new(
            "name",
            format!("at most {MAX_NAME_CHARS} characters are allowed"),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Invalid::new("name", "control characters are not allowed"));
    }
    let url = normalize_url(url).map_err(|e| Invalid::new("url", e.to_string()))?;
    let config = CalendarConfig {
        mapping: read_mapping(mapping)?,
        filters: options.filters,
        window: options.window,
        timezones: options.timezones,
        alarms: options.alarms,
        privacy: options.privacy,
    };
    let compiled = Arc::new(CompiledConfig::compile(&config).map_err(Invalid::config)?);
    Ok(PublishInput {
        id: id.to_owned(),
        name: name.to_owned(),
        url,
        config,
        compiled,
    })
}

pub fn validate_id(id: &str) -> Result<(), Invalid> {
    if id.is_empty()
        || id.len() > MAX_ID_LEN
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(Invalid::new(
            "id",
            format!("must be 1 to {MAX_ID_LEN} characters of A-Z, a-z, 0-9, '-' and '_'"),
        ));
    }
    Ok(())
}

/// The mapping's shape: only the five keys, each a string template of at most 4 KiB. Whether
/// the templates compile is left to the caller (the preview renders despite errors).
pub fn read_mapping(raw: &Map<String, Value>) -> Result<Mapping, Invalid> {
    let mut mapping = Mapping::default();
    for (key, value) in raw {
        let Some(field) = MappedField::from_name(key) else {
            return Err(Invalid::new(
                "mapping",
                format!("unknown field '{key}' (the fields are SUMMARY, DESCRIPTION, LOCATION, DTSTART, DTEND)"),
            ));
        };
        let Some(template) = value.as_str() else {
            return Err(Invalid::new(format!("mapping.{key}"), "must be a string"));
        };
        check_template_size(&format!("mapping.{key}"), template)?;
        mapping.set(field, template);
    }
    Ok(mapping)
}

/// Templates are at most 4 KiB; `what` names the field in the message.
pub fn check_template_size(what: &str, template: &str) -> Result<(), Invalid> {
    if template.len() > MAX_TEMPLATE_BYTES {
        return Err(Invalid::new(
            what,
            format!("the template is longer than {MAX_TEMPLATE_BYTES} bytes"),
        ));
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
        },
        r.get(6)?,
    ))
}

const SELECT: &str =
    "SELECT id, name, url, mapping, revision, updated_at, token_hash, options FROM calendars";

/// Creates the calendar, or updates it when `token` matches the stored one. The count quota is
/// checked again here, in the write transaction, so concurrent publishes cannot pass it
/// together. A publish that stores no calendar takes its feed copy (saved while checking the
/// feed) away again, and a republish to another address removes the old address's copy.
pub async fn publish(
    db: &Db,
    input: PublishInput,
    token: Option<Token>,
    quotas: Quotas,
) -> Result<PublishOutcome, QuotaError> {
    let outcome = db.write(move |conn| {
        let tx = conn.transaction()?;
        let existing = tx
            .query_row(&format!("{SELECT} WHERE id = ?1"), [&input.id], row_to_published)
            .optional()?;
        let now = SystemTime::now();
        let outcome = match existing {
            None => {
                if let Some(problem) = count_problem(&tx, &input.id, quotas)? {
                    remove_unused_copy(&tx, input.url.as_str())?;
                    tx.commit()?;
                    return Ok(Err(problem));
                }
                let token = Token::generate();
                tx.execute(
                    "INSERT INTO calendars (id, name, url, mapping, token_hash, revision, created_at, updated_at, options)
                     VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6, ?7)",
                    params![input.id, input.name, input.url.as_str(), mapping_json(&input.config.mapping), token.hash(), to_millis(now), options_json(&input.config)],
                )?;
                PublishOutcome::Created {
                    token: token.as_str().to_owned(),
                    record: Published {
                        id: input.id,
                        name: input.name,
                        url: input.url.to_string(),
                        config: input.config,
                        revision: 0,
                        updated_at: now,
                    },
                }
            }
            Some((old, stored_hash)) => {
                if !token_matches(token.as_ref(), &stored_hash) {
                    remove_unused_copy(&tx, input.url.as_str())?;
                    tx.commit()?;
                    return Ok(Ok(PublishOutcome::Forbidden));
                }
                let revision = old.revision + 1;
                tx.execute(
                    "UPDATE calendars SET name = ?2, url = ?3, mapping = ?4, revision = ?5, updated_at = ?6, options = ?7
                     WHERE id = ?1",
                    params![input.id, input.name, input.url.as_str(), mapping_json(&input.config.mapping), revision, to_millis(now), options_json(&input.config)],
                )?;
                if old.url != input.url.as_str() {
                    remove_unused_copy(&tx, &old.url)?;
                }
                PublishOutcome::Updated {
                    record: Published {
                        id: input.id,
                        name: input.name,
                        url: input.url.to_string(),
                        config: input.config,
                        revision,
                        updated_at: now,
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
    token: Option<Token>,
) -> Result<DeleteOutcome, StoreError> {
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
            Some((hash, url)) if token_matches(token.as_ref(), &hash) => {
                tx.execute("DELETE FROM calendars WHERE id = ?1", [&id])?;
                remove_unused_copy(&tx, &url)?;
                DeleteOutcome::Deleted
            }
            Some(_) => DeleteOutcome::Forbidden,
        };
        tx.commit()?;
        Ok(outcome)
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

    fn validate_mapping(raw: &Map<String, Value>) -> Result<PublishInput, Invalid> {
        validate(
            "a",
            "x",
            "https://example.org/a.ics",
            raw,
            PublishOptions::default(),
        )
    }

    fn options(json: Value) -> PublishOptions {
        serde_json::from_value(json).expect("options read")
    }

    #[test]
    fn a_config_that_does_not_check_names_its_path() {
        let err = validate(
            "a",
            "x",
            "https://example.org/a.ics",
            &Map::new(),
            options(serde_json::json!({"filters": [
                {"action": "exclude", "status": "CANCELLED"},
                {"action": "exclude", "field": "SUMMARY", "pattern": "("}
            ]})),
        )
        .expect_err("bad pattern");
        assert_eq!(err.field, "filters[1].pattern", "{err}");
        let err = validate(
            "a",
            "x",
            "https://example.org/a.ics",
            &Map::new(),
            options(serde_json::json!({"window": {"pastDays": 40000}})),
        )
        .expect_err("too far");
        assert_eq!(err.field, "window.pastDays", "{err}");
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

    fn mapping(pairs: &[(&str, Value)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn ids_are_1_to_64_safe_characters() {
        assert!(validate_id("a").is_ok());
        assert!(validate_id(&"a".repeat(64)).is_ok());
        assert!(validate_id("3f2b-ab_C9").is_ok());
        for bad in ["", "a b", "a/b", "ä", "../x", &"a".repeat(65)] {
            assert!(validate_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn mapping_accepts_only_the_five_string_fields() {
        assert!(validate_mapping(&mapping(&[("SUMMARY", Value::from("${SUMMARY}!"))])).is_ok());
        let err = validate_mapping(&mapping(&[("TITLE", Value::from("x"))])).expect_err("unknown");
        assert!(err.to_string().contains("TITLE"), "{err}");
        let err = validate_mapping(&mapping(&[("SUMMARY", Value::from(5))])).expect_err("type");
        assert_eq!(err.field, "mapping.SUMMARY");
        let long = "x".repeat(MAX_TEMPLATE_BYTES + 1);
        let err = validate_mapping(&mapping(&[("LOCATION", Value::from(long))])).expect_err("long");
        assert_eq!(err.field, "mapping.LOCATION");
    }

    #[test]
    fn a_template_that_does_not_compile_names_its_field_and_position() {
        let err = validate_mapping(&mapping(&[(
            "DESCRIPTION",
            Value::from("${DESCRIPTION|re:s/(/x/g}"),
        )]))
        .expect_err("bad regex");
        assert_eq!(err.field, "mapping.DESCRIPTION");
        assert!(err.message.contains("character"), "{err}");
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        let m = Map::new();
        let ok = validate(
            "a",
            "  Work  ",
            "https://example.org/a.ics",
            &m,
            PublishOptions::default(),
        )
        .expect("valid");
        assert_eq!(ok.name, "Work");
        assert!(validate(
            "a",
            " ",
            "https://example.org/a.ics",
            &m,
            PublishOptions::default()
        )
        .is_err());
        let long = "n".repeat(MAX_NAME_CHARS + 1);
        assert!(validate(
            "a",
            &long,
            "https://example.org/a.ics",
            &m,
            PublishOptions::default()
        )
        .expect_err("long")
        .to_string()
        .starts_with("name:"));
        assert_eq!(
            validate(
                "a",
                "x",
                "webcal://example.org/a.ics",
                &m,
                PublishOptions::default()
            )
            .expect("valid")
            .url
            .as_str(),
            "https://example.org/a.ics"
        );
        assert!(
            validate("a", "x", "gopher://x", &m, PublishOptions::default())
                .expect_err("scheme")
                .to_string()
                .starts_with("url:")
        );
    }

    const PLENTY: Quotas = Quotas {
        max_calendars: 100,
        max_feed_storage: 1 << 30,
    };

    fn input(id: &str, url: &str) -> PublishInput {
        validate(id, "Work", url, &Map::new(), PublishOptions::default()).expect("valid")
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
        let a = input("a", "https://example.org/a.ics");
        check_quotas(&db, &a, quotas).await.expect("room");
        let token_a = created_token(&db, a, quotas).await;
        created_token(&db, input("b", "https://example.org/b.ics"), quotas).await;

        let c = input("c", "https://example.org/c.ics");
        let err = check_quotas(&db, &c, quotas).await.expect_err("full");
        assert!(matches!(err, QuotaError::TooManyCalendars(2)), "{err:?}");
        // The check inside the write holds too (two publishes may pass the first together).
        store_copy(&db, "https://example.org/c.ics", 10).await;
        let err = publish(&db, c, None, quotas).await.expect_err("full");
        assert!(
            err.to_string().contains("limit of 2 published calendars"),
            "{err}"
        );
        assert!(!copies(&db)
            .await
            .contains(&"https://example.org/c.ics".to_owned()));
        let app = crate::http::error::AppError::from(err);
        assert_eq!(app.status(), axum::http::StatusCode::INSUFFICIENT_STORAGE);

        let again = input("a", "https://example.org/a.ics");
        check_quotas(&db, &again, quotas).await.expect("not new");
        assert!(matches!(
            publish(&db, again, Some(token_a), quotas)
                .await
                .expect("republish"),
            PublishOutcome::Updated { .. }
        ));
    }

    #[tokio::test]
    async fn a_feed_not_stored_yet_is_refused_once_copies_reach_the_byte_cap() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path()).expect("db");
        let quotas = Quotas {
            max_feed_storage: 1000,
            ..PLENTY
        };
        store_copy(&db, "https://example.org/a.ics", 600).await;
        check_quotas(&db, &input("b", "https://example.org/b.ics"), quotas)
            .await
            .expect("600 of 1000 bytes");
        store_copy(&db, "https://example.org/b.ics", 400).await;
        let err = check_quotas(&db, &input("c", "https://example.org/c.ics"), quotas)
            .await
            .expect_err("1000 of 1000 bytes");
        assert!(
            err.to_string()
                .starts_with("the server's storage for calendar feeds is full"),
            "{err}"
        );
        // An address already stored adds nothing.
        check_quotas(&db, &input("d", "https://example.org/a.ics"), quotas)
            .await
            .expect("stored already");
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
            delete(&db, "a".into(), Some(token_a))
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
        delete(&db, "b".into(), Some(token_b))
            .await
            .expect("delete");
        assert!(copies(&db).await.is_empty());
    }
}
