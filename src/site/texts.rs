//! The owner's texts: the name, the About text and the two links, and the rules an edit sent to
//! `PUT /api/owner/site` must meet: the name and the links as their flags' (`--owner-name`,
//! `--spotify-url`, `--beehive-url`), the About text plain text of at most
//! [`MAX_ABOUT_CHARS`] characters. A refusal names its field, as the rest of the API does.

use serde::Deserialize;

use crate::config::{parse_link_url, parse_owner_name};
use crate::http::error::AppError;

/// The About text's length, in characters (Unicode scalar values, as the editor counts them).
pub const MAX_ABOUT_CHARS: usize = 4000;

/// A link's length, in characters: far beyond any real address, short of a screenful.
const MAX_LINK_CHARS: usize = 2000;

/// The site's texts as shown (the flags' or the owner's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Texts {
    pub name: String,
    /// Paragraphs split by blank lines; `\n` line ends; `None`: the built-in sentence.
    pub about: Option<String>,
    pub spotify_url: Option<String>,
    pub beehive_url: Option<String>,
}

/// `PUT /api/owner/site`'s body: every field, as the editor sends them (blank: none).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TextsEdit {
    pub name: String,
    #[serde(default)]
    pub about: Option<String>,
    #[serde(default)]
    pub spotify_url: Option<String>,
    #[serde(default)]
    pub beehive_url: Option<String>,
}

fn invalid(field: &str, message: impl Into<String>) -> AppError {
    AppError::Invalid {
        field: field.to_owned(),
        message: message.into(),
    }
}

impl TextsEdit {
    /// The texts to keep, or the first field that is wrong.
    pub fn validate(self) -> Result<Texts, AppError> {
        if self.name.chars().any(char::is_control) {
            return Err(invalid("name", "the name is one line of text"));
        }
        let name = parse_owner_name(&self.name).map_err(|m| invalid("name", m))?;
        let about = about_text(self.about.as_deref().unwrap_or_default())?;
        let spotify_url = link("spotifyUrl", self.spotify_url.as_deref())?;
        let beehive_url = link("beehiveUrl", self.beehive_url.as_deref())?;
        Ok(Texts {
            name,
            about,
            spotify_url,
            beehive_url,
        })
    }
}

/// The About text with `\n` line ends and no white space around it; `None` when blank.
fn about_text(value: &str) -> Result<Option<String>, AppError> {
    let text = value.replace("\r\n", "\n").replace('\r', "\n");
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    if text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(invalid(
            "about",
            "the About text holds control characters; write plain text",
        ));
    }
    let count = text.chars().count();
    if count > MAX_ABOUT_CHARS {
        return Err(invalid(
            "about",
            format!("the About text has {count} characters; at most {MAX_ABOUT_CHARS} fit"),
        ));
    }
    Ok(Some(text.to_owned()))
}

/// A link as its flag takes it; blank: none (the landing page hides it).
fn link(field: &str, value: Option<&str>) -> Result<Option<String>, AppError> {
    let value = value.unwrap_or_default().trim();
    if value.is_empty() {
        return Ok(None);
    }
    if value.chars().count() > MAX_LINK_CHARS {
        return Err(invalid(
            field,
            format!("the address is longer than {MAX_LINK_CHARS} characters"),
        ));
    }
    parse_link_url(value)
        .map(Some)
        .map_err(|m| invalid(field, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(name: &str, about: &str, spotify: &str) -> TextsEdit {
        TextsEdit {
            name: name.to_owned(),
            about: Some(about.to_owned()),
            spotify_url: Some(spotify.to_owned()),
            beehive_url: None,
        }
    }

    fn field_of(result: Result<Texts, AppError>) -> String {
        match result {
            Err(AppError::Invalid { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn blank_fields_are_none_and_line_ends_become_newlines() {
        let texts = edit(" Ada ", "\r\n One\r\n\r\nTwo \n", "  ")
            .validate()
            .expect("valid");
        assert_eq!(texts.name, "Ada");
        assert_eq!(texts.about.as_deref(), Some("One\n\nTwo"));
        assert_eq!(texts.spotify_url, None);
        assert_eq!(edit("Ada", " \n ", "").validate().expect("ok").about, None);
    }

    #[test]
    fn each_wrong_field_is_named() {
        assert_eq!(field_of(edit("", "", "").validate()), "name");
        assert_eq!(field_of(edit("A\nB", "", "").validate()), "name");
        assert_eq!(field_of(edit(&"x".repeat(101), "", "").validate()), "name");
        assert_eq!(field_of(edit("Ada", "a\u{7}b", "").validate()), "about");
        let long = "é".repeat(MAX_ABOUT_CHARS + 1);
        assert_eq!(field_of(edit("Ada", &long, "").validate()), "about");
        assert!(edit("Ada", &"é".repeat(MAX_ABOUT_CHARS), "")
            .validate()
            .is_ok());
        assert_eq!(
            field_of(edit("Ada", "", "javascript:alert(1)").validate()),
            "spotifyUrl"
        );
        let mut beehive = edit("Ada", "", "https://open.spotify.com/x");
        beehive.beehive_url = Some("ftp://example.org".to_owned());
        assert_eq!(field_of(beehive.validate()), "beehiveUrl");
    }
}
