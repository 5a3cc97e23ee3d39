//! What the running server saw of its set-up, kept where `hearth doctor` (another process) can
//! read it: the proxy report (requests from proxies without forwarding headers, forwarded
//! headers from peers that are not trusted) is written to the database's `meta` once a minute.

use std::time::Duration;

use super::AppState;
use crate::http::client::ProxyReport;

/// How often the report is written (when it changed).
const WRITE_EVERY: Duration = Duration::from_secs(60);

/// Writes the proxy report every [`WRITE_EVERY`] while the server runs.
pub fn spawn_reports(state: &AppState) -> tokio::task::JoinHandle<()> {
    let (proxies, db) = (state.trusted_proxies.clone(), state.db.clone());
    tokio::spawn(async move {
        let mut written = ProxyReport::default();
        let mut every = tokio::time::interval(WRITE_EVERY);
        loop {
            every.tick().await;
            let report = proxies.report();
            if report == written {
                continue;
            }
            let text = serde_json::to_string(&report).unwrap_or_default();
            let saved = db
                .write(move |conn| {
                    conn.execute(
                        "INSERT INTO meta (key, value) VALUES (?1, ?2)
                         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        [ProxyReport::KEY, text.as_str()],
                    )?;
                    Ok(())
                })
                .await;
            match saved {
                Ok(()) => written = report,
                Err(e) => tracing::warn!(error = %e, "could not keep the proxy report"),
            }
        }
    })
}
