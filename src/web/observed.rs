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
            match db.set_meta_json(ProxyReport::KEY, &report).await {
                Ok(()) => written = report,
                Err(e) => tracing::warn!(error = %e, "could not keep the proxy report"),
            }
        }
    })
}
