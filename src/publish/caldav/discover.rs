//! An account's calendars, found for the editor from its address and login, as RFC 6764 and
//! RFC 4791 describe: `PROPFIND` (Depth 0) for the `current-user-principal` at the address
//! given, else at `/.well-known/caldav` of its origin; then the principal's
//! `calendar-home-set`; then the home's collections (Depth 1) whose `resourcetype` is a
//! calendar and which hold VEVENTs (a calendar naming no component set holds them all), each
//! with its name, its colour when it has one, and its absolute address. At most four requests,
//! each within the feeds' budgets (`Feeds::dav`); the answers read on engine threads within the
//! visitor's budget; at most `MAX_CALENDARS` calendars.

use reqwest::Url;

use super::xml::{self, Response, CALDAV, DAV};
use crate::http::client::ClientKey;
use crate::publish::feeds::FeedError;
use crate::publish::fetch::{DavRequest, FetchError, Login};
use crate::publish::workers::{Budget, WorkError};
use crate::publish::Publisher;

/// The most calendars an account may list.
pub const MAX_CALENDARS: usize = 100;
/// The longest name shown, in characters.
const MAX_NAME_CHARS: usize = 200;

const PRINCIPAL: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:current-user-principal/><c:calendar-home-set/></d:prop>
</d:propfind>
"#;
const HOME: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><c:calendar-home-set/></d:prop>
</d:propfind>
"#;
const LIST: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/">
  <d:prop><d:resourcetype/><d:displayname/><a:calendar-color/><c:supported-calendar-component-set/></d:prop>
</d:propfind>
"#;

/// A calendar of the account.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FoundCalendar {
    pub url: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

/// Why no calendars could be listed, in words for the field they are about.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// 401 or 403: the login's field.
    #[error("{0}")]
    Login(&'static str),
    /// The address is not a CalDAV server's.
    #[error("no CalDAV account was found at this address ({0}): give the address of the account's CalDAV server")]
    NotCaldav(String),
    #[error("this account has more than {MAX_CALENDARS} calendars: give the address of the calendar itself")]
    TooMany,
    #[error(transparent)]
    Feed(FeedError),
    #[error(transparent)]
    Work(#[from] WorkError),
}

impl From<FeedError> for DiscoveryError {
    fn from(error: FeedError) -> DiscoveryError {
        match error {
            FeedError::Fetch(FetchError::NeedsLogin) => {
                DiscoveryError::Login("this feed needs a login")
            }
            FeedError::Fetch(FetchError::LoginRefused(_)) => {
                DiscoveryError::Login("the login was refused")
            }
            FeedError::Fetch(FetchError::Status {
                status: 404 | 405 | 501,
                ..
            }) => DiscoveryError::NotCaldav(error.to_string()),
            other => DiscoveryError::Feed(other),
        }
    }
}

/// Who asks: the visitor, whether it is the site's owner, and its engine budget.
pub struct Asker {
    pub client: ClientKey,
    pub owner: bool,
    pub budget: Budget,
}

/// The calendars of the account at `url` with `login`.
pub async fn find_calendars(
    publisher: &Publisher,
    url: &Url,
    login: Option<&Login>,
    asker: &Asker,
) -> Result<Vec<FoundCalendar>, DiscoveryError> {
    let first = propfind(publisher, url, "0", PRINCIPAL, login, asker).await;
    let (at, found) = match first {
        Ok(found) if principal_or_home(&found.1).is_some() => found,
        Ok(_) | Err(DiscoveryError::NotCaldav(_)) => {
            let known = url
                .join("/.well-known/caldav")
                .map_err(|e| DiscoveryError::NotCaldav(e.to_string()))?;
            propfind(publisher, &known, "0", PRINCIPAL, login, asker).await?
        }
        Err(other) => return Err(other),
    };
    let home = match principal_or_home(&found) {
        Some(Step::Home(home)) => resolve(&at, &home, url)?,
        Some(Step::Principal(principal)) => {
            let principal = resolve(&at, &principal, url)?;
            let (at, found) = propfind(publisher, &principal, "0", HOME, login, asker).await?;
            let home = found
                .iter()
                .find_map(|r| r.prop(CALDAV, "calendar-home-set")?.hrefs.first().cloned())
                .ok_or_else(|| not_caldav("the account names no calendar home"))?;
            resolve(&at, &home, url)?
        }
        None => {
            return Err(not_caldav(
                "the server names no account (current-user-principal)",
            ))
        }
    };
    let (at, found) = propfind(publisher, &home, "1", LIST, login, asker).await?;
    let mut calendars = Vec::new();
    for response in &found {
        if !holds_events(response) {
            continue;
        }
        if calendars.len() == MAX_CALENDARS {
            return Err(DiscoveryError::TooMany);
        }
        let address = resolve(&at, &response.href, url)?;
        calendars.push(FoundCalendar {
            name: name_of(response, &address),
            color: response
                .prop("http://apple.com/ns/ical/", "calendar-color")
                .and_then(|c| colour(&c.text)),
            url: address.to_string(),
        });
    }
    Ok(calendars)
}

enum Step {
    Principal(String),
    Home(String),
}

/// The account's calendar home where the first answer names it, else its principal.
fn principal_or_home(found: &[Response]) -> Option<Step> {
    let home = found
        .iter()
        .find_map(|r| r.prop(CALDAV, "calendar-home-set")?.hrefs.first().cloned());
    if let Some(home) = home {
        return Some(Step::Home(home));
    }
    found
        .iter()
        .find_map(|r| {
            r.prop(DAV, "current-user-principal")?
                .hrefs
                .first()
                .cloned()
        })
        .map(Step::Principal)
}

fn not_caldav(why: &str) -> DiscoveryError {
    DiscoveryError::NotCaldav(why.to_owned())
}

/// A PROPFIND's answer, read: where it came from and its responses.
async fn propfind(
    publisher: &Publisher,
    url: &Url,
    depth: &'static str,
    body: &str,
    login: Option<&Login>,
    asker: &Asker,
) -> Result<(Url, Vec<Response>), DiscoveryError> {
    let request = DavRequest {
        method: "PROPFIND",
        url,
        depth,
        body: body.to_owned(),
        login,
    };
    let answer = publisher
        .feeds
        .dav(request, asker.client, asker.owner)
        .await?;
    let at = answer.url.clone();
    let read = publisher
        .run_within(asker.budget.clone(), move |_| {
            xml::multistatus(&answer.body)
        })
        .await?;
    let responses = read.map_err(|e| DiscoveryError::NotCaldav(e.to_string()))?;
    Ok((at, responses))
}

/// An `href` of an answer from `at` as an absolute address: http or https, and never plain
/// http when the account's address `given` was https.
fn resolve(at: &Url, href: &str, given: &Url) -> Result<Url, DiscoveryError> {
    let url = at
        .join(href.trim())
        .map_err(|_| not_caldav("the server named an address that does not read"))?;
    let downgraded = given.scheme() == "https" && url.scheme() != "https";
    if !matches!(url.scheme(), "http" | "https") || downgraded {
        return Err(not_caldav("the server named an address that is not https"));
    }
    Ok(url)
}

/// A collection that is a calendar and holds events.
fn holds_events(response: &Response) -> bool {
    let calendar = response
        .prop(DAV, "resourcetype")
        .is_some_and(|t| t.has_child(CALDAV, "calendar"));
    let events = response
        .prop(CALDAV, "supported-calendar-component-set")
        .is_none_or(|set| {
            set.comps.is_empty() || set.comps.iter().any(|c| c.eq_ignore_ascii_case("VEVENT"))
        });
    calendar && events
}

/// Its display name (without control characters, at most `MAX_NAME_CHARS`), else the last
/// part of its address.
fn name_of(response: &Response, url: &Url) -> String {
    let given: String = response
        .prop(DAV, "displayname")
        .map(|p| p.text.trim())
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_NAME_CHARS)
        .collect();
    if !given.is_empty() {
        return given;
    }
    url.path_segments()
        .and_then(|mut s| s.rfind(|p| !p.is_empty()))
        .map(|s| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        })
        .unwrap_or_else(|| url.to_string())
}

/// `#RRGGBB` of a calendar colour written `#RRGGBB` or `#RRGGBBAA`.
fn colour(text: &str) -> Option<String> {
    let hex = text.trim().strip_prefix('#')?;
    let ok = matches!(hex.len(), 6 | 8) && hex.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| format!("#{}", hex[..6].to_ascii_lowercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(xml_props: &str) -> Response {
        let body = format!(
            r#"<d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:response><d:href>/a/b%20c/</d:href><d:propstat><d:prop>{xml_props}</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>"#
        );
        xml::multistatus(body.as_bytes()).expect("reads").remove(0)
    }

    #[test]
    fn only_calendars_of_events_are_listed() {
        let calendar = "<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>";
        assert!(holds_events(&response(calendar)));
        let tasks = format!("{calendar}<c:supported-calendar-component-set><c:comp name=\"VTODO\"/></c:supported-calendar-component-set>");
        assert!(!holds_events(&response(&tasks)));
        let both = format!("{calendar}<c:supported-calendar-component-set><c:comp name=\"VTODO\"/><c:comp name=\"VEVENT\"/></c:supported-calendar-component-set>");
        assert!(holds_events(&response(&both)));
        let folder = "<d:resourcetype><d:collection/></d:resourcetype>";
        assert!(!holds_events(&response(folder)));
    }

    #[test]
    fn names_colours_and_addresses() {
        let url = Url::parse("https://dav.example/a/b%20c/").expect("url");
        assert_eq!(name_of(&response(""), &url), "b c");
        let named = response("<d:displayname> Wo\trk </d:displayname>");
        assert_eq!(name_of(&named, &url), "Work");
        assert_eq!(colour("#FF8800ff"), Some("#ff8800".into()));
        assert_eq!(colour("#ff8800"), Some("#ff8800".into()));
        assert_eq!(colour("red"), None);
        assert_eq!(colour("#ff88"), None);
        let at = Url::parse("https://dav.example/dav/").expect("url");
        assert_eq!(
            resolve(&at, "/cal/home/", &at).expect("ok").as_str(),
            "https://dav.example/cal/home/"
        );
        assert_eq!(
            resolve(&at, "https://p1-caldav.example/1/calendars/", &at)
                .expect("another host of the account")
                .as_str(),
            "https://p1-caldav.example/1/calendars/"
        );
        assert!(resolve(&at, "http://dav.example/x/", &at).is_err());
        assert!(resolve(&at, "ftp://dav.example/x/", &at).is_err());
    }
}
