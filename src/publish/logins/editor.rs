//! The logins of an editor's read (`POST /api/feed`, `POST /api/preview`): a source not
//! published yet brings its login in full (held for this read only, never kept); `"set"`
//! opens the stored login only for the calendar's owner, who names the calendar and presents
//! its edit token (`Authorization: Bearer`, paid for from the caller's allowance of wrong
//! keys); anyone else is told to give the login.

use axum::http::HeaderMap;

use super::super::api::CalendarState;
use super::super::calendars::{self, Access};
use super::super::fetch::{may_send, Login};
use super::super::validate::{validate_id, Invalid};
use super::Stored;
use crate::calendar::config::SourceAuth;
use crate::calendar::Source;
use crate::http::client::ClientKey;
use crate::http::error::AppError;
use crate::http::headers::bearer_token;

/// Each source's login for an editor's read (in order; `None` without one), `urls` their
/// addresses as normalised.
pub(in crate::publish) async fn editor_logins(
    state: &CalendarState,
    client: ClientKey,
    headers: &HeaderMap,
    calendar: Option<&str>,
    sources: &[Source],
    urls: &[reqwest::Url],
) -> Result<Vec<Option<Login>>, AppError> {
    let keeps = sources.iter().any(|s| s.auth == Some(SourceAuth::Set));
    let stored = match (keeps, calendar) {
        (true, Some(id)) => owners_logins(state, client, headers, id).await?,
        _ => None,
    };
    let mut logins = Vec::with_capacity(sources.len());
    for (i, (source, url)) in sources.iter().zip(urls).enumerate() {
        let field = || format!("sources[{i}].auth");
        let auth = match &source.auth {
            None => {
                logins.push(None);
                continue;
            }
            Some(SourceAuth::Set) => stored
                .as_ref()
                .and_then(|stored| stored.iter().find(|s| s.url == url.as_str()))
                .map(|s| s.auth.clone())
                .ok_or_else(|| {
                    Invalid::new(
                        field(),
                        "a saved login is opened only for the calendar's owner (its edit \
                         token), and for its own address: give the login to read this source",
                    )
                })?,
            Some(given) => given.clone(),
        };
        may_send(url, source.plain_http).map_err(|e| Invalid::new(field(), e.to_string()))?;
        let login = state
            .publisher
            .logins
            .login(url.as_str(), auth, source.plain_http)
            .map_err(|e| AppError::Internal(e.to_string()))?;
        logins.push(Some(login));
    }
    Ok(logins)
}

/// Calendar `id`'s stored logins, for the holder of its edit token; `None` for anyone else.
async fn owners_logins(
    state: &CalendarState,
    client: ClientKey,
    headers: &HeaderMap,
    id: &str,
) -> Result<Option<Vec<Stored>>, AppError> {
    validate_id(id).map_err(|e| Invalid::new("calendar", e.message))?;
    let Some(token) = bearer_token(headers) else {
        return Ok(None);
    };
    let mut presented = state.admission.present(client, Some(token))?;
    let access =
        calendars::access(&state.db, id.to_owned(), presented.token.clone(), false).await?;
    if access != Access::Forbidden {
        presented.was_right();
    }
    if !matches!(access, Access::Granted { .. }) {
        return Ok(None);
    }
    let stored = state.publisher.logins.stored(&state.db, id).await;
    stored
        .map(Some)
        .map_err(|e| AppError::Internal(e.to_string()))
}
