//! `POST /api/caldav/calendars` (`{"url": …, "auth": {"username": …, "password": …}}`): the
//! calendars of a CalDAV account, for the editor to choose from (`{"calendars": [{"url",
//! "name", "color"}]}`). Admitted as the editor's reads are (`FindingCalendars`: the publish
//! key when the site has one, a visitor's allowance of feed reads), and each of its at most four
//! requests upstream counts in the same fetch allowances as a feed's. The login is used for
//! these requests only and kept nowhere; no answer or error repeats it. It is sent by a feed's
//! rules (`fetch::may_send`: over plain HTTP only to the owner's own network unless
//! `"plainHttp": true`).

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use super::discover::{self, Asker, DiscoveryError};
use crate::calendar::config::{SourceAuth, MAX_AUTH_BYTES};
use crate::http::admission::{Caller, KeyRule, Policy};
use crate::http::error::AppError;
use crate::http::extract::JsonBody;
use crate::http::limits::Action;
use crate::publish::api::{budget, CalendarState};
use crate::publish::fetch::{may_send, normalize_url, Login};
use crate::publish::validate::Invalid;

/// The largest request: an address and a login.
const MAX_REQUEST_BYTES: usize = 8 * 1024;

/// Finding an account's calendars: fetches upstream, as the editor's feed reads do.
pub struct FindingCalendars;
impl Policy for FindingCalendars {
    const ACTIONS: &'static [Action] = &[Action::Feed];
    const KEY: KeyRule = KeyRule::Owner;
    const NEEDS_KEY: &'static str =
        "the calendar editor needs this site's publish key (X-Publish-Key header)";
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindRequest {
    url: String,
    auth: Option<SourceAuth>,
    /// The owner allows the login over plain HTTP to a public host (as a source's `plainHttp`).
    #[serde(default, rename = "plainHttp")]
    plain_http: bool,
}

pub async fn find_calendars(
    State(state): State<CalendarState>,
    caller: Caller<FindingCalendars>,
    JsonBody(request): JsonBody<FindRequest, MAX_REQUEST_BYTES>,
) -> Result<Response, AppError> {
    let url = normalize_url(&request.url).map_err(|e| Invalid::new("url", e.to_string()))?;
    check_login(request.auth.as_ref())?;
    let login = match request.auth {
        Some(auth) => {
            may_send(&url, request.plain_http).map_err(|e| Invalid::new("auth", e.to_string()))?;
            // Used for these requests only: no copy is kept, so it needs no tag.
            Some(Login {
                auth,
                plain_http: request.plain_http,
                tag: String::new(),
            })
        }
        None => None,
    };
    let asker = Asker {
        client: caller.client.key(),
        owner: caller.owner,
        budget: budget(&caller, state.settings.engine.preview),
    };
    let found = discover::find_calendars(&state.publisher, &url, login.as_ref(), &asker)
        .await
        .map_err(|e| match e {
            DiscoveryError::Login(words) => AppError::UpstreamField {
                field: "auth".into(),
                message: words.into(),
            },
            e @ (DiscoveryError::NotCaldav(_) | DiscoveryError::TooMany) => {
                AppError::UpstreamField {
                    field: "url".into(),
                    message: e.to_string(),
                }
            }
            DiscoveryError::Feed(e) => e.into(),
            DiscoveryError::Work(e) => e.into(),
        })?;
    Ok(Json(json!({ "calendars": found })).into_response())
}

/// A login to try now: a username and password, or a token, each of at most `MAX_AUTH_BYTES`
/// (a stored login, `"set"`, belongs to a source, not to an account being looked at).
fn check_login(login: Option<&SourceAuth>) -> Result<(), Invalid> {
    let parts: Vec<&str> = match login {
        None => return Ok(()),
        Some(SourceAuth::Basic { username, password }) => vec![username, password],
        Some(SourceAuth::Bearer { token }) => vec![token],
        Some(SourceAuth::Set) => {
            return Err(Invalid::new(
                "auth",
                "give the username and password to look with",
            ))
        }
    };
    if parts.iter().any(|p| p.len() > MAX_AUTH_BYTES) {
        return Err(Invalid::new(
            "auth",
            format!("at most {MAX_AUTH_BYTES} bytes are allowed"),
        ));
    }
    if parts.iter().any(|p| p.chars().any(char::is_control)) {
        return Err(Invalid::new("auth", "control characters are not allowed"));
    }
    Ok(())
}
