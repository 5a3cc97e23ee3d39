//! One feed of a merged calendar as the server reads it (its parsed address, its prefix and its
//! login, opened): what the publish request's check, a served calendar and the merge all name.

use super::fetch::Login;

/// One source: its address, prefix and login.
#[derive(Debug, Clone)]
pub struct SourceFeed {
    pub url: reqwest::Url,
    pub prefix: Option<String>,
    /// Its login, opened: sent with its fetches, and its copies kept apart from the address's.
    pub login: Option<Login>,
}

/// What separates a login's copy key from its address: a space, which no address holds.
const LOGIN_KEY: &str = " login:";

impl SourceFeed {
    pub fn new(url: reqwest::Url, prefix: Option<String>) -> SourceFeed {
        SourceFeed {
            url,
            prefix,
            login: None,
        }
    }

    /// What its copies, its health and its kept events are kept under: the address, or for a
    /// source with a login the address and its login's tag (as the `calendar_urls` view says).
    pub fn key(&self) -> String {
        copy_key(self.url.as_str(), self.login.as_ref())
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
