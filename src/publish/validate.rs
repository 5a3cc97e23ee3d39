//! What a publish request must hold: an id, a name, a feed address and a config (the mapping
//! and its options) that compiles, each checked and named by its field when it is wrong.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::fetch::normalize_url;
use crate::calendar::{
    AlarmMode, CalendarConfig, CompiledConfig, ConfigError, FilterRule, MappedField, Mapping,
    Privacy, TimezoneMode, Window,
};

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
}
