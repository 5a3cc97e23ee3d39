//! `GET /api/owner`: the owner page's one answer, behind the publish key and absent (404) when
//! the site has none: the self-check's findings, each calendar with its health, sync and feed
//! storage against their limits, and the backups with their report; and the site as its editor
//! shows it (`site::edit`), so the whole page fills from one answer.

use std::time::Duration;

use axum::extract::State;
use axum::Json;
use serde::Serialize;

use super::metrics::sync_holdings;
use super::AppState;
use crate::backups::files;
use crate::doctor::{self, Finding};
use crate::http::admission::{Caller, KeyRule, Policy};
use crate::http::error::AppError;
use crate::publish::api::{status_answer, StatusAnswer};
use crate::publish::calendars;
use crate::publish::health::rfc3339;

/// The owner only: the publish key (a site without one has no owner page).
pub struct Owning;
impl Policy for Owning {
    const ACTIONS: &'static [crate::http::limits::Action] = &[];
    const KEY: KeyRule = KeyRule::Owner;
    const NEEDS_KEY: &'static str =
        "the owner page needs this site's publish key (X-Publish-Key header)";
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerAnswer {
    version: &'static str,
    checks: Vec<Finding>,
    calendars: Vec<CalendarLine>,
    sync: SyncUsage,
    feeds: FeedUsage,
    backups: BackupsAnswer,
    /// Whether `--notify-url` is set and what was sent; never the address.
    notifications: crate::alerts::AlertsReport,
    site: crate::site::edit::SiteAnswer,
    replication: ReplicationAnswer,
}

/// Replication by Litestream: where the replica stands and the last restore drill.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReplicationAnswer {
    enabled: bool,
    /// The replica's address without its query.
    replica: Option<String>,
    measured_at: Option<String>,
    /// Seconds the oldest write the replica lacks has waited (0: it holds every write).
    behind_seconds: Option<f64>,
    measure_error: Option<String>,
    drill: Option<DrillAnswer>,
}

/// The last restore drill.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DrillAnswer {
    at: String,
    ok: bool,
    message: String,
    took_ms: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CalendarLine {
    id: String,
    name: String,
    feed_path: String,
    url: String,
    status: StatusAnswer,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SyncUsage {
    enabled: bool,
    vaults: u64,
    max_vaults: usize,
    shares: u64,
    max_shares: usize,
    bytes: u64,
    max_bytes: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FeedUsage {
    calendars: usize,
    max_calendars: usize,
    bytes: u64,
    max_bytes: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BackupsAnswer {
    enabled: bool,
    dir: String,
    interval: Option<String>,
    keep: usize,
    files: Vec<BackupFileAnswer>,
    last_run_at: Option<String>,
    last_error: Option<String>,
    command: Option<String>,
    command_ok: Option<bool>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BackupFileAnswer {
    name: String,
    made_at: String,
    size: u64,
}

pub async fn page(
    State(state): State<AppState>,
    caller: Caller<Owning>,
) -> Result<Json<OwnerAnswer>, AppError> {
    // Without a publish key everyone would be "the owner": the page does not exist then.
    if state.admission.keys.publish.is_none() || !caller.owner {
        return Err(AppError::NotFound(
            "this site has no owner page (it has no publish key)".into(),
        ));
    }
    let setup = state.doctor.clone();
    let now = state.clock.wall();
    let checks = tokio::task::spawn_blocking(move || doctor::run(&setup, now))
        .await
        .map_err(|_| AppError::Internal("the self-check stopped".into()))?;

    let (listed, feed_bytes) = calendars::listing(&state.db).await?;
    let mut lines = Vec::with_capacity(listed.len());
    for (id, name, url) in listed {
        let status = status_answer(&state.calendars, &id, url.clone()).await?;
        lines.push(CalendarLine {
            feed_path: format!("/cal/{id}.ics"),
            id,
            name,
            url,
            status,
        });
    }
    let (vaults, shares, sync_bytes) = sync_holdings(&state).await?;
    let sync = &state.sync.settings;
    let settings = state.backups.settings().clone();
    let dir = settings.dir.clone();
    let kept = tokio::task::spawn_blocking(move || files::list(&dir))
        .await
        .map_err(|_| AppError::Internal("listing the backups stopped".into()))?
        .unwrap_or_default();
    let report = state.backups.report();
    let replication = replication_answer(&state);
    Ok(Json(OwnerAnswer {
        notifications: state.alerts.report(),
        replication,
        version: crate::version::VERSION,
        site: crate::site::edit::editor_view(&state.site),
        checks,
        feeds: FeedUsage {
            calendars: lines.len(),
            max_calendars: state.calendars.settings.max_calendars,
            bytes: feed_bytes,
            max_bytes: state.calendars.settings.max_feed_storage,
        },
        calendars: lines,
        sync: SyncUsage {
            enabled: sync.enabled,
            vaults,
            max_vaults: sync.max_vaults,
            shares,
            max_shares: sync.max_shares,
            bytes: sync_bytes,
            max_bytes: sync.max_sync_storage,
        },
        backups: BackupsAnswer {
            enabled: settings.interval.is_some(),
            dir: settings.dir.display().to_string(),
            interval: settings
                .interval
                .map(|i| humantime::format_duration(Duration::from_secs(i.as_secs())).to_string()),
            keep: settings.keep,
            files: kept
                .into_iter()
                .map(|b| BackupFileAnswer {
                    name: b
                        .path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    made_at: rfc3339(b.made_at),
                    size: b.size,
                })
                .collect(),
            last_run_at: report
                .last_run_at
                .map(|ms| rfc3339(crate::clock::from_millis(ms))),
            last_error: report.last_error,
            command: report.command,
            command_ok: report.command_ok,
        },
    }))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestAnswer {
    delivered: bool,
    message: &'static str,
}

/// `POST /api/owner/notifications/test`: the owner page's "Send a test notification", admitted
/// as the page is; one attempt, within the client's allowance of tests. The answer says whether
/// it was delivered, or why not, never the address.
pub async fn test_notification(
    State(state): State<AppState>,
    caller: Caller<Owning>,
) -> Result<Json<TestAnswer>, AppError> {
    if state.admission.keys.publish.is_none() || !caller.owner {
        return Err(AppError::NotFound(
            "this site has no owner page (it has no publish key)".into(),
        ));
    }
    use crate::alerts::TestError;
    match state.alerts.test(caller.client.key()).await {
        Ok(()) => Ok(Json(TestAnswer {
            delivered: true,
            message: "The test notification was delivered.",
        })),
        Err(e @ TestError::NotSet) => Err(AppError::Conflict(e.to_string())),
        Err(e @ TestError::Wait(wait)) => Err(AppError::Throttled {
            message: e.to_string(),
            retry_after: wait.as_secs().max(1),
        }),
        Err(e @ TestError::Failed(_)) => Err(AppError::BadGateway(e.to_string())),
    }
}

fn replication_answer(state: &AppState) -> ReplicationAnswer {
    let replication = &state.replication;
    let measured = replication.measured();
    ReplicationAnswer {
        enabled: replication.settings().replicated(),
        replica: replication.settings().replica_shown(),
        measured_at: measured.as_ref().map(|m| rfc3339(m.at)),
        behind_seconds: measured
            .as_ref()
            .and_then(|m| m.result.as_ref().ok())
            .map(|p| p.behind().as_secs_f64()),
        measure_error: measured.and_then(|m| m.result.err()),
        drill: replication.last_drill().map(|d| DrillAnswer {
            at: rfc3339(crate::clock::from_millis(d.at)),
            ok: d.ok,
            message: d.message,
            took_ms: d.took_ms,
        }),
    }
}
