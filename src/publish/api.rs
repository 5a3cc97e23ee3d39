//! The calendar API: `POST /api/render` (the preview, from the same engine subscribers get),
//! `POST /api/calendars` and `DELETE /api/calendars/{id}` (publishing), a calendar's status, and
//! `GET|HEAD /cal/{id}.ics` (the hosted feed), with the admission policies of every calendar
//! route; what the editor reads (`/api/feed`, `/api/preview`) is in `editor`.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use std::sync::Arc;

use super::calendars::{self, Access, DeleteOutcome, Maker};
use super::errors::RouteError;
use super::health::{self, UpstreamAnswer};
use super::hosted;
use super::polls::SubscriberAnswer;
use super::publishing::{PublishError, Stored};
use super::validate::{self, Invalid};
use super::workers::Budget;
use super::Publisher;
use super::{agenda, aliases};
use crate::calendar::{CompiledMapping, Interrupt, Template, TemplateError};
use crate::clock::Clock;
use crate::config::CalendarSettings;
use crate::http::admission::{Admission, Caller, KeyRule, Policy};
use crate::http::client::ClientAddr;
use crate::http::error::AppError;
use crate::http::extract::JsonBody;
use crate::http::headers::bearer_token;
use crate::http::limits::Action;
use crate::store::Db;

/// What the calendar tool's handlers share (the router gives it from the app's state).
#[derive(Clone)]
pub struct CalendarState {
    pub settings: Arc<CalendarSettings>,
    /// `--public-url`, for the links of hosted feeds.
    pub public_url: Option<String>,
    pub clock: Clock,
    pub db: Db,
    pub publisher: Arc<Publisher>,
    pub admission: Arc<Admission>,
}

/// Largest publish request (`POST /api/calendars`): five 4 KiB templates and up to 50 filters of
/// at most 2 KiB patterns, with room for the JSON around them.
pub const MAX_PUBLISH_BYTES: usize = 256 * 1024;

const EDITOR_NEEDS_KEY: &str =
    "the calendar editor needs this site's publish key (X-Publish-Key header)";
const PUBLISHING_NEEDS_KEY: &str =
    "publishing needs this site's publish key (X-Publish-Key header)";

/// Reading a feed in the editor (`GET /api/feed`): it may fetch upstream.
pub struct ReadingFeeds;
impl Policy for ReadingFeeds {
    const ACTIONS: &'static [Action] = &[Action::Feed];
    const KEY: KeyRule = KeyRule::Owner;
    const NEEDS_KEY: &'static str = EDITOR_NEEDS_KEY;
}

/// The editor's previews (`POST /api/render`, `POST /api/preview`): engine work.
pub struct Previewing;
impl Policy for Previewing {
    const ACTIONS: &'static [Action] = &[Action::Render];
    const KEY: KeyRule = KeyRule::Owner;
    const NEEDS_KEY: &'static str = EDITOR_NEEDS_KEY;
}

/// `POST /api/calendars`: a fetch, engine work and a write to the SD card.
pub struct Publishing;
impl Policy for Publishing {
    const ACTIONS: &'static [Action] = &[Action::Publish];
    const KEY: KeyRule = KeyRule::Owner;
    const NEEDS_KEY: &'static str = PUBLISHING_NEEDS_KEY;
}

/// `GET /api/calendars/{id}/status`: as cheap as a poll, counted as one; the edit token (or
/// the publish key) is checked in the handler.
pub struct ReadingStatus;
impl Policy for ReadingStatus {
    const ACTIONS: &'static [Action] = &[Action::Poll];
    const KEY: KeyRule = KeyRule::Open;
}

/// `DELETE /api/calendars/{id}` (which needs the calendar's edit token besides).
pub struct Unpublishing;
impl Policy for Unpublishing {
    const ACTIONS: &'static [Action] = &[Action::Unpublish];
    const KEY: KeyRule = KeyRule::Owner;
    const NEEDS_KEY: &'static str = PUBLISHING_NEEDS_KEY;
}

/// An error about the request's feed address.
pub(super) fn url_error(message: impl Into<String>) -> Invalid {
    Invalid::new("url", message)
}

/// Engine work for `caller`, within `time`: charged to the visitor, not to the site's owner.
pub(super) fn budget<P>(caller: &Caller<P>, time: Duration) -> Budget {
    Budget::for_client((!caller.owner).then(|| caller.client.key()), time)
}

/// Engine work stopped at its time budget.
pub(super) fn too_slow(error: impl std::fmt::Display) -> RouteError {
    RouteError::TooSlow(error.to_string())
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderRequest {
    event: BTreeMap<String, String>,
    mapping: Option<Map<String, Value>>,
    template: Option<String>,
}

#[derive(Debug, Serialize)]
struct RenderError {
    field: String,
    position: usize,
    message: String,
}

impl From<TemplateError> for RenderError {
    fn from(e: TemplateError) -> Self {
        RenderError {
            field: e.field,
            position: e.position,
            message: e.message,
        }
    }
}

/// Compiling and rendering run on an engine thread: a hostile template costs a bounded share of
/// the machine and never stalls the async workers.
pub async fn render(
    State(state): State<CalendarState>,
    caller: Caller<Previewing>,
    JsonBody(request): JsonBody<RenderRequest>,
) -> Result<Response, AppError> {
    let time = state.settings.engine.preview;
    state
        .publisher
        .run_within(budget(&caller, time), move |stop| render_now(request, stop))
        .await?
}

fn render_now(request: RenderRequest, stop: &Interrupt) -> Result<Response, AppError> {
    match (request.mapping, request.template) {
        (Some(_), Some(_)) => Err(RouteError::MappingAndTemplate.into()),
        (None, None) => Err(RouteError::NothingToRender.into()),
        (None, Some(template)) => {
            validate::check_template_size("template", &template)?;
            let (compiled, errors) = Template::compile_lenient(&template);
            let result = compiled
                .render_checked(&request.event, stop)
                .map_err(too_slow)?;
            let errors: Vec<RenderError> = errors.into_iter().map(RenderError::from).collect();
            Ok(Json(json!({ "result": result, "errors": errors })).into_response())
        }
        (Some(raw), None) => {
            let mapping = validate::read_mapping(&raw)?;
            let (compiled, errors) = CompiledMapping::compile_lenient(&mapping);
            let fields: BTreeMap<&'static str, String> = compiled
                .render_all_checked(&request.event, stop)
                .map_err(too_slow)?
                .into_iter()
                .map(|(f, v)| (f.name(), v))
                .collect();
            let errors: Vec<RenderError> = errors.into_iter().map(RenderError::from).collect();
            Ok(Json(json!({ "fields": fields, "errors": errors })).into_response())
        }
    }
}

/// The site's public address: `--public-url`, else the request's Host and X-Forwarded-Proto.
pub(super) fn public_base(state: &CalendarState, headers: &HeaderMap) -> Result<String, AppError> {
    if let Some(url) = &state.public_url {
        return Ok(url.clone());
    }
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.len() <= 255
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]_".contains(&b))
        })
        .ok_or(RouteError::NoHost)?;
    let proto = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .filter(|p| p == "https" || p == "http")
        .unwrap_or_else(|| "http".to_owned());
    Ok(format!("{proto}://{host}"))
}

pub async fn publish(
    State(state): State<CalendarState>,
    caller: Caller<Publishing>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<Map<String, Value>, MAX_PUBLISH_BYTES>,
) -> Result<Response, AppError> {
    let base = public_base(&state, &headers)?;
    let (publishing, given) = validate::read_request(body)?;
    // The edit token is compared only once paid for from the caller's wrong keys.
    let mut presented = state
        .admission
        .present(caller.client.key(), bearer_token(&headers).or(given))?;
    let maker = Maker {
        client: caller.client.key(),
        owner: caller.owner,
    };
    let work = budget(&caller, state.settings.engine.publish);
    let outcome = state
        .publisher
        .publish(&state.db, publishing, presented.token.clone(), maker, work)
        .await;
    if !matches!(outcome, Err(PublishError::Forbidden(_))) {
        presented.was_right();
    }
    let outcome = outcome?;
    match outcome {
        Stored::Created { token, record } => {
            let hosted_url = format!("{base}/cal/{}.ics", record.id);
            Ok((
                StatusCode::CREATED,
                Json(json!({ "hostedUrl": hosted_url, "editToken": token, "revision": 0 })),
            )
                .into_response())
        }
        Stored::Updated { record } => {
            let hosted_url = format!("{base}/cal/{}.ics", record.id);
            Ok(
                Json(json!({ "hostedUrl": hosted_url, "revision": record.revision }))
                    .into_response(),
            )
        }
    }
}

pub async fn unpublish(
    State(state): State<CalendarState>,
    caller: Caller<Unpublishing>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    validate::validate_id(&id)?;
    let now = state.clock.wall();
    let mut presented = state
        .admission
        .present(caller.client.key(), bearer_token(&headers))?;
    let aliases = super::aliases::of(&state.db, id.clone()).await?;
    let outcome = calendars::delete(&state.db, id.clone(), presented.token.clone(), now).await?;
    if outcome != DeleteOutcome::Forbidden {
        presented.was_right();
    }
    match outcome {
        DeleteOutcome::Deleted => {
            state.publisher.forget(&id);
            for alias in aliases {
                state.publisher.gone.insert(&alias);
            }
            Ok(StatusCode::NO_CONTENT.into_response())
        }
        DeleteOutcome::NotFound => Err(RouteError::NoSuchCalendar(id).into()),
        DeleteOutcome::Forbidden => Err(RouteError::EditTokenNeeded.into()),
    }
}

/// `GET /api/calendars/{id}/status` (the calendar's edit token as `Authorization: Bearer`, or
/// the publish key): how its source has been doing and who reads it, and the addresses made for
/// Google (`aliases`), newest first, so the editor shows the one its owner gave Google again.
pub async fn status(
    State(state): State<CalendarState>,
    caller: Caller<ReadingStatus>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Json<EditorStatusAnswer>, AppError> {
    validate::validate_id(&id)?;
    let base = public_base(&state, &headers)?;
    // The owner's key was compared at admission; a token is compared only for others.
    let given = if caller.owner {
        None
    } else {
        bearer_token(&headers)
    };
    let mut presented = state.admission.present(caller.client.key(), given)?;
    let access =
        calendars::access(&state.db, id.clone(), presented.token.clone(), caller.owner).await?;
    if access != Access::Forbidden {
        presented.was_right();
    }
    let url = match access {
        Access::Granted { url } => url,
        Access::NotFound => return Err(RouteError::NoSuchCalendar(id).into()),
        Access::Forbidden => return Err(RouteError::StatusTokenNeeded.into()),
    };
    let status = status_answer(&state, &id, url).await?;
    let google_addresses = aliases::of(&state.db, id)
        .await?
        .into_iter()
        .map(|alias| format!("{base}/cal/{alias}.ics"))
        .collect();
    Ok(Json(EditorStatusAnswer {
        status,
        google_addresses,
    }))
}

/// The status route's answer: the status (as the owner page has it too) and the calendar's
/// addresses for Google, newest first.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditorStatusAnswer {
    #[serde(flatten)]
    status: StatusAnswer,
    google_addresses: Vec<String>,
}

/// Calendar `id`'s status (its source at `url`, or each of its sources), for its editor and the
/// owner page.
pub async fn status_answer(
    state: &CalendarState,
    id: &str,
    url: String,
) -> Result<StatusAnswer, AppError> {
    let calendar = id.to_owned();
    let upstream_url = url.clone();
    let (upstream, sources) = state
        .db
        .read(move |conn| {
            let sources = calendars::source_urls(conn, &calendar)?
                .into_iter()
                .map(|s| Ok((health::read(conn, &s.key)?, s)))
                .collect::<Result<Vec<_>, crate::store::StoreError>>()?;
            Ok((health::read(conn, &url)?, sources))
        })
        .await?;
    let subscribers = state.publisher.polls.of(id).await?;
    let now = state.clock.wall();
    let flagged = |h: &Option<health::UpstreamHealth>| h.as_ref().is_some_and(|h| h.flagged(now));
    let feeds = &state.publisher.feeds;
    let answer = |h: &Option<health::UpstreamHealth>, url: &str| UpstreamAnswer {
        history_dropped: feeds.trimmed(url).map(|t| health::HistoryDropped {
            at: health::rfc3339(t.at),
            events: t.events,
        }),
        uids_changed: feeds.uids_changed(url),
        ..h.as_ref().map(UpstreamAnswer::from).unwrap_or_default()
    };
    // A merged calendar is flagged when any source is, and shows the first failing one first.
    let (upstream, is_flagged) = match sources.iter().find(|(h, _)| flagged(h)) {
        Some((failing, source)) => (answer(failing, &source.key), true),
        None => (answer(&upstream, &upstream_url), flagged(&upstream)),
    };
    Ok(StatusAnswer {
        flagged: is_flagged,
        upstream,
        subscribers,
        sources: (!sources.is_empty()).then(|| {
            sources
                .iter()
                .map(|(h, source)| SourceStatus {
                    url: source.url.clone(),
                    label: source.label.clone(),
                    flagged: flagged(h),
                    upstream: answer(h, &source.key),
                })
                .collect()
        }),
    })
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusAnswer {
    upstream: UpstreamAnswer,
    subscribers: Vec<SubscriberAnswer>,
    /// The source (any source of a merged calendar) has failed for a day or more.
    flagged: bool,
    /// A merged calendar's sources, each with its health.
    #[serde(skip_serializing_if = "Option::is_none")]
    sources: Option<Vec<SourceStatus>>,
}

/// One source of a merged calendar and how it has been doing.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatus {
    url: String,
    /// The name its owner gave it in the editor, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    upstream: UpstreamAnswer,
    flagged: bool,
}

/// `GET|HEAD /cal/{file}` where file is `{id}.ics` (or a second address of it, `aliases`), or
/// with `"agenda": true` the agenda, `{id}` (the page) and `{id}.json`. Open to anyone, within
/// each client's allowance of polls.
pub async fn hosted_feed(
    State(state): State<CalendarState>,
    client: ClientAddr,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    match hosted_feed_inner(&state, client, &file, &headers).await {
        Ok(response) => response,
        // Calendar apps show this text; JSON would mean nothing to them.
        Err(e) => e.into_text_response(),
    }
}

async fn hosted_feed_inner(
    state: &CalendarState,
    client: ClientAddr,
    file: &str,
    headers: &HeaderMap,
) -> Result<Response, AppError> {
    state.admission.limits.check(Action::Poll, client.key())?;
    let agenda = match file.strip_suffix(".json") {
        Some(id) => Some((id, agenda::Form::Json)),
        None => (!file.contains('.')).then_some((file, agenda::Form::Page)),
    };
    if let Some((id, form)) = agenda {
        let viewing = agenda::Viewing {
            ttl: state.settings.feed_ttl,
            shared: state.settings.behind_cdn,
            now: state
                .clock
                .wall()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX)),
            base: public_base(state, headers)?,
        };
        return agenda::answer(&state.publisher, &state.db, id, form, viewing, headers).await;
    }
    let stem = file.strip_suffix(".ics").ok_or(RouteError::NoSuchFeed)?;
    if state.publisher.gone.answers(stem) {
        return Err(RouteError::Deleted.into());
    }
    let resolved = if aliases::is_alias(stem) {
        state.publisher.aliases.resolve(&state.db, stem).await?
    } else {
        validate::validate_id(stem).is_ok().then(|| stem.to_owned())
    };
    let id = resolved.ok_or(RouteError::NoSuchFeed)?;
    let id = id.as_str();
    let ttl = state.settings.feed_ttl;
    let hosted = state
        .publisher
        .hosted_feed(&state.db, id, ttl)
        .await?
        .ok_or(RouteError::NoSuchFeed)?;
    let user_agent = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    state.publisher.polls.record(id, user_agent);
    let caching = hosted::Caching {
        ttl,
        shared: state.settings.behind_cdn,
    };
    hosted::response(
        &hosted.rendered,
        &hosted.calendar.disposition,
        &hosted.feed,
        caching,
        headers,
    )
    .await
}
