//! One feed of a merged calendar as the server reads it (its parsed address, its prefix and how
//! it is read: its kind, its login opened, its calendar's window): what the publish request's
//! check, a served calendar and the merge all name.

use super::fetch::Login;
use crate::calendar::config::{SourceKind, Window};

/// One source: its address and prefix, and how it is read.
#[derive(Debug, Clone)]
pub struct SourceFeed {
    pub url: reqwest::Url,
    pub prefix: Option<String>,
    pub read: Reading,
}

/// How a source is read: a GET of a feed (the default) or a CalDAV REPORT, with its login
/// opened (sent with its fetches, DAV requests included, where `fetch::may_send` allows, and
/// its copies kept apart from the address's by the login's tag), and the window of the calendar
/// it belongs to (a CalDAV REPORT asks for the events within it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    pub kind: SourceKind,
    pub login: Option<Login>,
    pub window: Option<Window>,
}

impl Reading {
    /// How a source of `kind` of a calendar with `window` is read; its login is opened (or
    /// given) apart (`logins`).
    pub fn of(kind: SourceKind, window: Option<Window>) -> Reading {
        Reading {
            kind,
            login: None,
            window,
        }
    }
}

/// What separates a login's copy key from its address: a space, which no address holds.
const LOGIN_KEY: &str = " login:";

impl SourceFeed {
    pub fn new(url: reqwest::Url, prefix: Option<String>) -> SourceFeed {
        SourceFeed {
            url,
            prefix,
            read: Reading::default(),
        }
    }

    /// What its copies, its health and its kept events are kept under: the address, or for a
    /// source with a login the address and its login's tag (as the `calendar_urls` view says).
    pub fn key(&self) -> String {
        copy_key(self.url.as_str(), self.read.login.as_ref())
    }
}

/// The copy key of `url` fetched with `login`.
pub fn copy_key(url: &str, login: Option<&Login>) -> String {
    match login {
        Some(login) => format!("{url}{LOGIN_KEY}{}", login.tag),
        None => url.to_owned(),
    }
}

/// The address a copy key names (the key itself for a source without a login).
pub fn address_of(key: &str) -> &str {
    key.split_once(LOGIN_KEY).map_or(key, |(url, _)| url)
}
