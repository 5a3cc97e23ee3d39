//! What a publish request must hold: an id, a name, a feed address and a config (the mapping
//! and its options) that compiles, each checked and named by its field when it is wrong. The
//! config's keys are declared once, by the engine's `CalendarConfig`: the request carries them
//! beside its own fields, the preview and `hearth remap --config` as a whole object.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::feed_source::{Reading, SourceFeed};
use super::fetch::{may_send, normalize_url, Login};
use crate::calendar::{CalendarConfig, CompiledConfig, ConfigError, MappedField, Mapping};
use crate::secret::Token;

pub const MAX_ID_LEN: usize = 64;
pub const MAX_NAME_CHARS: usize = 200;
pub const MAX_TEMPLATE_BYTES: usize = 4 * 1024;

/// A publish as the editor sends it.
#[derive(Debug)]
pub struct PublishRequest {
    pub id: String,
    pub name: String,
    /// The feed's address; absent for a calendar of several `sources` (in the config).
    pub url: Option<String>,
    /// The calendar's config: `mapping` and any options, as `CalendarConfig` declares them.
    pub config: Map<String, Value>,
}

/// A mapping that makes the hosted feed larger than its bound; `field` grows it most.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the remapped feed would be larger than {limit} bytes (at most four times the source feed \
     plus 1 MiB, and 32 MiB): repeat the field's tokens less"
)]
pub struct MappingTooLarge {
    pub field: &'static str,
    pub limit: usize,
}

/// A publish request after validation.
#[derive(Debug, Clone)]
pub struct PublishInput {
    pub id: String,
    pub name: String,
    /// As normalised (webcal: → https:); the first source's for a merged calendar.
    pub url: reqwest::Url,
    /// A merged calendar's feeds, in order, normalised (their addresses also written back into
    /// `config.sources`); empty for a calendar of one feed.
    pub sources: Vec<SourceFeed>,
    /// The mapping and the options.
    pub config: CalendarConfig,
    /// The config compiled while it was checked, for serving it.
    pub compiled: Arc<CompiledConfig>,
    /// Its sources' logins, opened, by address (filled in by the publish, which may open
    /// stored ones: `logins::given`).
    pub logins: Vec<(String, Login)>,
}

impl PublishInput {
    /// What the copies of every address it reads are kept under: its feed's address, or each
    /// source's (with its login's tag when it has one).
    pub fn copy_keys(&self) -> Vec<String> {
        if self.sources.is_empty() {
            return vec![self.url.to_string()];
        }
        self.sources.iter().map(SourceFeed::key).collect()
    }
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

/// Checks every field of a publish request, naming the field that is wrong; `config` is the
/// calendar's config object (`mapping` and any options).
pub fn validate(
    id: &str,
    name: &str,
    url: Option<&str>,
    config: &Map<String, Value>,
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
    let mut config = read_publish_config(config)?;
    let compiled = Arc::new(CompiledConfig::compile(&config).map_err(Invalid::config)?);
    let sources = read_sources(&mut config)?;
    let url = match (url, sources.first()) {
        (Some(_), Some(_)) => {
            return Err(Invalid::new(
                "url",
                "a calendar of several feeds has its addresses in `sources`, and no `url`",
            ))
        }
        (Some(url), None) => normalize_url(url).map_err(|e| Invalid::new("url", e.to_string()))?,
        (None, Some(first)) => first.url.clone(),
        (None, None) => return Err(Invalid::new("url", "missing field `url`")),
    };
    Ok(PublishInput {
        id: id.to_owned(),
        name: name.to_owned(),
        url,
        sources,
        config,
        compiled,
        logins: Vec::new(),
    })
}

/// A merged calendar's sources: each address normalised (and written back, so the stored
/// config holds what is fetched), none twice.
fn read_sources(config: &mut crate::calendar::CalendarConfig) -> Result<Vec<SourceFeed>, Invalid> {
    let window = config.window;
    let mut sources: Vec<SourceFeed> = Vec::with_capacity(config.sources.len());
    for (i, source) in config.sources.iter_mut().enumerate() {
        let field = format!("sources[{i}].url");
        let Some(given) = source.url.as_deref() else {
            return Err(Invalid::new(field, "the feed address is missing"));
        };
        let url = normalize_url(given).map_err(|e| Invalid::new(&field, e.to_string()))?;
        if sources.iter().any(|s| s.url == url) {
            return Err(Invalid::new(
                field,
                "this feed is already a source of the calendar",
            ));
        }
        if source.auth.is_some() {
            may_send(&url, source.plain_http)
                .map_err(|e| Invalid::new(format!("sources[{i}].auth"), e.to_string()))?;
        }
        source.url = Some(url.to_string());
        sources.push(SourceFeed {
            url,
            prefix: source.prefix.clone(),
            // Its login is opened by the publish (`logins::given`), which may open a stored one.
            read: Reading::of(source.kind, window),
        });
    }
    Ok(sources)
}

/// A publish request's body: `id`, `name`, `url` and the optional `editToken` (returned beside
/// the request: it is compared only once paid for), beside the calendar's config (`mapping` and
/// its options), whose keys the config itself declares.
pub fn read_request(
    mut body: Map<String, Value>,
) -> Result<(PublishRequest, Option<Token>), Invalid> {
    let mut text = |key: &str| -> Result<Option<String>, Invalid> {
        match body.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(Invalid::new(key, "must be a string")),
        }
    };
    let required = |value: Option<String>, key: &str| {
        value.ok_or_else(|| Invalid::new(key, format!("missing field `{key}`")))
    };
    let id = required(text("id")?, "id")?;
    let name = required(text("name")?, "name")?;
    let url = text("url")?;
    let token = text("editToken")?.as_deref().and_then(Token::given);
    Ok((
        PublishRequest {
            id,
            name,
            url,
            config: body,
        },
        token,
    ))
}

/// A config as the preview and `hearth remap --config` give it, naming the path of whatever
/// does not read (`filters[0].action: unknown variant …`).
pub fn read_config(value: Value) -> Result<CalendarConfig, Invalid> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." || path.is_empty() {
            "config".to_owned()
        } else {
            path
        };
        Invalid::new(field, e.into_inner().to_string())
    })
}

/// A publish's config: the mapping checked field by field (only the five keys, each a string
/// of at most 4 KiB), the rest as any config reads.
fn read_publish_config(config: &Map<String, Value>) -> Result<CalendarConfig, Invalid> {
    let mut rest = config.clone();
    let mapping = match rest.remove("mapping") {
        Some(Value::Object(raw)) => read_mapping(&raw)?,
        Some(_) => return Err(Invalid::new("mapping", "must be an object of templates")),
        None => return Err(Invalid::new("mapping", "the mapping is missing")),
    };
    rest.insert("mapping".into(), Value::Object(Map::new()));
    let mut config = read_config(Value::Object(rest))?;
    config.mapping = mapping;
    Ok(config)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn validate_mapping(raw: &Map<String, Value>) -> Result<PublishInput, Invalid> {
        validate("a", "x", Some("https://example.org/a.ics"), &config(raw))
    }

    /// A config of `mapping` and no options.
    fn config(mapping: &Map<String, Value>) -> Map<String, Value> {
        options(serde_json::json!({ "mapping": mapping }))
    }

    /// A config of these keys (an empty mapping unless they name one).
    fn options(json: Value) -> Map<String, Value> {
        let mut config = json.as_object().cloned().expect("an object");
        config
            .entry("mapping")
            .or_insert_with(|| Value::Object(Map::new()));
        config
    }

    #[test]
    fn a_config_that_does_not_check_names_its_path() {
        let err = validate(
            "a",
            "x",
            Some("https://example.org/a.ics"),
            &options(serde_json::json!({"filters": [
                {"action": "exclude", "status": "CANCELLED"},
                {"action": "exclude", "field": "SUMMARY", "pattern": "("}
            ]})),
        )
        .expect_err("bad pattern");
        assert_eq!(err.field, "filters[1].pattern", "{err}");
        let err = validate(
            "a",
            "x",
            Some("https://example.org/a.ics"),
            &options(serde_json::json!({"window": {"pastDays": 40000}})),
        )
        .expect_err("too far");
        assert_eq!(err.field, "window.pastDays", "{err}");
    }

    fn mapping(pairs: &[(&str, Value)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    #[test]
    fn a_merged_calendar_has_sources_instead_of_a_url() {
        let sources = serde_json::json!({"sources": [
            {"url": "webcal://example.org/a.ics", "prefix": "[A] "},
            {"url": "https://example.org/b.ics", "label": "B"}
        ]});
        let ok = validate("a", "x", None, &options(sources.clone())).expect("valid");
        assert_eq!(ok.url.as_str(), "https://example.org/a.ics");
        assert_eq!(ok.sources.len(), 2);
        assert_eq!(ok.sources[0].prefix.as_deref(), Some("[A] "));
        // The stored config holds the addresses as fetched.
        assert_eq!(
            ok.config.sources[0].url.as_deref(),
            Some("https://example.org/a.ics")
        );
        let both = validate(
            "a",
            "x",
            Some("https://example.org/c.ics"),
            &options(sources),
        );
        assert_eq!(both.expect_err("both").field, "url");
        let neither = validate("a", "x", None, &options(serde_json::json!({})));
        assert_eq!(neither.expect_err("neither").field, "url");
        let twice = options(serde_json::json!({"sources": [
            {"url": "https://example.org/a.ics"}, {"url": "webcal://example.org/a.ics"}
        ]}));
        assert_eq!(
            validate("a", "x", None, &twice).expect_err("twice").field,
            "sources[1].url"
        );
        let bad = options(serde_json::json!({"sources": [
            {"url": "https://example.org/a.ics"}, {"url": "gopher://x"}, {"prefix": "x"}
        ]}));
        assert_eq!(
            validate("a", "x", None, &bad).expect_err("bad").field,
            "sources[1].url"
        );
        let long = options(serde_json::json!({"sources": [
            {"url": "https://example.org/a.ics", "prefix": "p".repeat(65)}
        ]}));
        assert_eq!(
            validate("a", "x", None, &long).expect_err("long").field,
            "sources[0].prefix"
        );
    }

    #[test]
    fn a_caldav_source_is_read_with_its_kind_login_and_the_calendars_window() {
        use crate::calendar::config::{SourceAuth, SourceKind, Window};
        let config = options(serde_json::json!({
            "window": {"pastDays": 30},
            "sources": [
                {"url": "https://dav.example/alice/work/", "kind": "caldav",
                 "auth": {"username": "alice", "password": "secret"}},
                {"url": "https://example.org/b.ics"}
            ]
        }));
        let ok = validate("a", "x", None, &config).expect("valid");
        let window = Some(Window {
            past_days: Some(30),
            future_days: None,
        });
        assert_eq!(ok.sources[0].read.kind, SourceKind::Caldav);
        // The login is checked here and opened by the publish, which seals it.
        assert_eq!(ok.sources[0].read.login, None);
        assert!(matches!(
            ok.config.sources[0].auth,
            Some(SourceAuth::Basic { .. })
        ));
        assert_eq!(ok.sources[0].read.window, window);
        assert_eq!(ok.sources[1].read.kind, SourceKind::Feed);
        assert_eq!(ok.sources[1].read.login, None);
        // A calendar of one CalDAV source is a calendar of sources, accepted as such.
        let one = options(serde_json::json!({"sources": [
            {"url": "https://dav.example/alice/work/", "kind": "caldav"}
        ]}));
        let ok = validate("a", "x", None, &one).expect("valid");
        assert_eq!(ok.url.as_str(), "https://dav.example/alice/work/");
        assert_eq!(ok.sources.len(), 1);
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
            Some("https://example.org/a.ics"),
            &config(&m),
        )
        .expect("valid");
        assert_eq!(ok.name, "Work");
        assert!(validate("a", " ", Some("https://example.org/a.ics"), &config(&m)).is_err());
        let long = "n".repeat(MAX_NAME_CHARS + 1);
        assert!(
            validate("a", &long, Some("https://example.org/a.ics"), &config(&m))
                .expect_err("long")
                .to_string()
                .starts_with("name:")
        );
        assert_eq!(
            validate("a", "x", Some("webcal://example.org/a.ics"), &config(&m))
                .expect("valid")
                .url
                .as_str(),
            "https://example.org/a.ics"
        );
        assert!(validate("a", "x", Some("gopher://x"), &config(&m))
            .expect_err("scheme")
            .to_string()
            .starts_with("url:"));
    }
}
