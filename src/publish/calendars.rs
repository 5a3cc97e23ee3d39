//! Published calendars: what a publish request must hold, and the records in SQLite (the
//! mapping, the hashed edit token, and the revision that every republish raises).

use std::time::SystemTime;

use rusqlite::{params, OptionalExtension};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::feeds::{from_millis, to_millis};
use super::fetch::normalize_url;
use crate::calendar::{CompiledMapping, MappedField, Mapping};
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
    pub mapping: Mapping,
}

/// A stored published calendar.
#[derive(Debug, Clone)]
pub struct Published {
    pub id: String,
    pub name: String,
    pub url: String,
    pub mapping: Mapping,
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

/// Checks every field of a publish request, naming the field that is wrong.
pub fn validate(
    id: &str,
    name: &str,
    url: &str,
    mapping: &Map<String, Value>,
) -> Result<PublishInput, String> {
    validate_id(id)?;
    let name = name.trim();
    if name.is_empty() {
        return Err("name: the calendar needs a name".into());
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "name: at most {MAX_NAME_CHARS} characters are allowed"
        ));
    }
    if name.chars().any(char::is_control) {
        return Err("name: control characters are not allowed".into());
    }
    let url = normalize_url(url).map_err(|e| format!("url: {e}"))?;
    let mapping = validate_mapping(mapping)?;
    Ok(PublishInput {
        id: id.to_owned(),
        name: name.to_owned(),
        url,
        mapping,
    })
}

pub fn validate_id(id: &str) -> Result<(), String> {
    if id.is_empty()
        || id.len() > MAX_ID_LEN
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(format!(
            "id: must be 1 to {MAX_ID_LEN} characters of A-Z, a-z, 0-9, '-' and '_'"
        ));
    }
    Ok(())
}

/// Only the five keys, each a string template of at most 4 KiB that compiles.
pub fn validate_mapping(raw: &Map<String, Value>) -> Result<Mapping, String> {
    let mapping = read_mapping(raw)?;
    CompiledMapping::compile(&mapping).map_err(|e| format!("mapping.{e}"))?;
    Ok(mapping)
}

/// The mapping's shape: only the five keys, each a string template of at most 4 KiB. Whether
/// the templates compile is left to the caller (the preview renders despite errors).
pub fn read_mapping(raw: &Map<String, Value>) -> Result<Mapping, String> {
    let mut mapping = Mapping::default();
    for (key, value) in raw {
        let Some(field) = MappedField::from_name(key) else {
            return Err(format!(
                "mapping: unknown field '{key}' (the fields are SUMMARY, DESCRIPTION, LOCATION, DTSTART, DTEND)"
            ));
        };
        let Some(template) = value.as_str() else {
            return Err(format!("mapping.{key}: must be a string"));
        };
        check_template_size(&format!("mapping.{key}"), template)?;
        mapping.set(field, template);
    }
    Ok(mapping)
}

/// Templates are at most 4 KiB; `what` names the field in the message.
pub fn check_template_size(what: &str, template: &str) -> Result<(), String> {
    if template.len() > MAX_TEMPLATE_BYTES {
        return Err(format!(
            "{what}: the template is longer than {MAX_TEMPLATE_BYTES} bytes"
        ));
    }
    Ok(())
}

/// Edit tokens are random and stored only as their hash.
pub fn new_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

fn hash_token(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `token` (as the client sent it) is the one whose hash is stored.
fn token_matches(token: Option<&str>, stored_hash: &str) -> bool {
    token.is_some_and(|t| same(&hash_token(t.trim()), stored_hash))
}

/// Compares in time independent of where the strings differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

fn mapping_json(mapping: &Mapping) -> String {
    serde_json::to_string(mapping).unwrap_or_else(|_| "{}".to_owned())
}

fn row_to_published(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Published, String)> {
    let mapping_text: String = r.get(3)?;
    let mapping = serde_json::from_str(&mapping_text).unwrap_or_default();
    Ok((
        Published {
            id: r.get(0)?,
            name: r.get(1)?,
            url: r.get(2)?,
            mapping,
            revision: r.get(4)?,
            updated_at: from_millis(r.get(5)?),
        },
        r.get(6)?,
    ))
}

const SELECT: &str =
    "SELECT id, name, url, mapping, revision, updated_at, token_hash FROM calendars";

/// Creates the calendar, or updates it when `token` matches the stored one.
pub async fn publish(
    db: &Db,
    input: PublishInput,
    token: Option<String>,
) -> Result<PublishOutcome, StoreError> {
    db.write(move |conn| {
        let tx = conn.transaction()?;
        let existing = tx
            .query_row(&format!("{SELECT} WHERE id = ?1"), [&input.id], row_to_published)
            .optional()?;
        let now = SystemTime::now();
        let outcome = match existing {
            None => {
                let token = new_token();
                tx.execute(
                    "INSERT INTO calendars (id, name, url, mapping, token_hash, revision, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?6)",
                    params![input.id, input.name, input.url.as_str(), mapping_json(&input.mapping), hash_token(&token), to_millis(now)],
                )?;
                PublishOutcome::Created {
                    token,
                    record: Published {
                        id: input.id,
                        name: input.name,
                        url: input.url.to_string(),
                        mapping: input.mapping,
                        revision: 0,
                        updated_at: now,
                    },
                }
            }
            Some((old, stored_hash)) => {
                if !token_matches(token.as_deref(), &stored_hash) {
                    return Ok(PublishOutcome::Forbidden);
                }
                let revision = old.revision + 1;
                tx.execute(
                    "UPDATE calendars SET name = ?2, url = ?3, mapping = ?4, revision = ?5, updated_at = ?6
                     WHERE id = ?1",
                    params![input.id, input.name, input.url.as_str(), mapping_json(&input.mapping), revision, to_millis(now)],
                )?;
                PublishOutcome::Updated {
                    record: Published {
                        id: input.id,
                        name: input.name,
                        url: input.url.to_string(),
                        mapping: input.mapping,
                        revision,
                        updated_at: now,
                    },
                }
            }
        };
        tx.commit()?;
        Ok(outcome)
    })
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
    token: Option<String>,
) -> Result<DeleteOutcome, StoreError> {
    db.write(move |conn| {
        let tx = conn.transaction()?;
        let stored: Option<String> = tx
            .query_row(
                "SELECT token_hash FROM calendars WHERE id = ?1",
                [&id],
                |r| r.get(0),
            )
            .optional()?;
        let outcome = match stored {
            None => DeleteOutcome::NotFound,
            Some(hash)
                if token
                    .as_deref()
                    .is_some_and(|t| same(&hash_token(t.trim()), &hash)) =>
            {
                tx.execute("DELETE FROM calendars WHERE id = ?1", [&id])?;
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
        assert!(err.contains("TITLE"), "{err}");
        let err = validate_mapping(&mapping(&[("SUMMARY", Value::from(5))])).expect_err("type");
        assert!(err.starts_with("mapping.SUMMARY"), "{err}");
        let long = "x".repeat(MAX_TEMPLATE_BYTES + 1);
        let err = validate_mapping(&mapping(&[("LOCATION", Value::from(long))])).expect_err("long");
        assert!(err.starts_with("mapping.LOCATION"), "{err}");
    }

    #[test]
    fn a_template_that_does_not_compile_names_its_field_and_position() {
        let err = validate_mapping(&mapping(&[(
            "DESCRIPTION",
            Value::from("${DESCRIPTION|re:s/(/x/g}"),
        )]))
        .expect_err("bad regex");
        assert!(err.starts_with("mapping.DESCRIPTION"), "{err}");
        assert!(err.contains("character"), "{err}");
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        let m = Map::new();
        let ok = validate("a", "  Work  ", "https://example.org/a.ics", &m).expect("valid");
        assert_eq!(ok.name, "Work");
        assert!(validate("a", " ", "https://example.org/a.ics", &m).is_err());
        let long = "n".repeat(MAX_NAME_CHARS + 1);
        assert!(validate("a", &long, "https://example.org/a.ics", &m)
            .expect_err("long")
            .starts_with("name:"));
        assert_eq!(
            validate("a", "x", "webcal://example.org/a.ics", &m)
                .expect("valid")
                .url
                .as_str(),
            "https://example.org/a.ics"
        );
        assert!(validate("a", "x", "gopher://x", &m)
            .expect_err("scheme")
            .starts_with("url:"));
    }

    #[test]
    fn token_comparison_needs_the_same_token() {
        let t = new_token();
        assert_eq!(t.len(), 64);
        assert!(same(&hash_token(&t), &hash_token(&t)));
        assert!(!same(&hash_token(&t), &hash_token("other")));
    }
}
