//! `POST /api/calendars/{id}/aliases`: a new address of a calendar for Google (see `aliases`),
//! made with the calendar's edit token.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use super::aliases::{store, Made, MAX_ALIASES};
use super::api::{public_base, CalendarState};
use super::calendars::{self, Access};
use super::errors::RouteError;
use super::validate;
use crate::http::admission::{Caller, KeyRule, Policy};
use crate::http::error::AppError;
use crate::http::headers::bearer_token;
use crate::http::limits::Action;

/// `POST /api/calendars/{id}/aliases`: a write to the SD card, counted as a publish; the
/// calendar's edit token is needed besides (the publish key, where the site has one, at
/// admission).
pub struct MakingAlias;
impl Policy for MakingAlias {
    const ACTIONS: &'static [Action] = &[Action::Publish];
    const KEY: KeyRule = KeyRule::Owner;
    const NEEDS_KEY: &'static str =
        "a new address needs this site's publish key (X-Publish-Key header)";
}

/// Makes a new address of calendar `id`: `{"url": …, "count": n, "max": 5}`.
pub async fn create(
    State(state): State<CalendarState>,
    caller: Caller<MakingAlias>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    validate::validate_id(&id)?;
    let base = public_base(&state, &headers)?;
    let mut presented = state
        .admission
        .present(caller.client.key(), bearer_token(&headers))?;
    let access = calendars::access(&state.db, id.clone(), presented.token.clone(), false).await?;
    if access != Access::Forbidden {
        presented.was_right();
    }
    match access {
        Access::Granted { .. } => {}
        Access::NotFound => return Err(RouteError::NoSuchCalendar(id).into()),
        Access::Forbidden => {
            return Err(AppError::Forbidden(
                "a new address needs the calendar's edit token (Authorization: Bearer)".into(),
            ))
        }
    }
    match store(&state.db, id.clone(), state.clock.wall()).await? {
        Made::Alias { alias, count } => Ok((
            StatusCode::CREATED,
            Json(json!({
                "url": format!("{base}/cal/{alias}.ics"),
                "count": count,
                "max": MAX_ALIASES,
            })),
        )
            .into_response()),
        Made::Full => Err(AppError::Invalid {
            field: "alias".into(),
            message: format!(
                "this calendar already has {MAX_ALIASES} addresses for Google, the most it may have; give Google one of them"
            ),
        }),
        Made::NoCalendar => Err(RouteError::NoSuchCalendar(id).into()),
    }
}
