//! Hearth: a personal website in one binary. This crate root wires the pieces together and
//! exposes `serve`, which `main.rs` and the integration tests call the same way.

// Production code handles every error; tests may expect (clippy.toml allows it there).
#![deny(clippy::unwrap_used, clippy::expect_used)]

pub mod alerts;
pub mod backups;
pub mod clock;
pub mod config;
pub mod doctor;
pub mod fair;
pub mod hex;
pub mod http;
pub mod lock;
pub mod notify;
pub mod publish;
pub mod secret;
pub mod site;
pub mod store;
pub mod sync;
pub mod telemetry;
pub mod version;
pub mod web;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::Notify;

/// The calendar engine lives in its own crate (crates/engine), which imports nothing of the
/// server; under this name every `crate::calendar::…` and `hearth::calendar::…` path still holds.
pub use hearth_engine as calendar;

pub use config::Config;
pub use store::Db;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the server failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("the server task stopped unexpectedly")]
    Task,
    #[error("the feed fetcher could not start: {0}")]
    Fetcher(#[from] publish::fetch::FetchError),
    #[error("cannot listen for metrics on {addr}: {source}")]
    MetricsListen {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
}

/// Serves the site on `listener` until `shutdown` resolves, then lets in-flight requests finish
/// for up to `config.shutdown_deadline` (five seconds) and closes the database cleanly.
pub async fn serve<F>(
    config: Config,
    db: Db,
    listener: TcpListener,
    shutdown: F,
) -> Result<(), ServeError>
where
    F: Future<Output = ()> + Send + 'static,
{
    let drain = config.shutdown_deadline;
    let settings = web::conn::ConnectionSettings {
        max_connections: config.edge.max_connections,
        max_per_client: config.edge.max_connections_per_address,
        header_read_timeout: config.edge.header_read_timeout,
        write: config.edge.write_rules,
        proxies: http::client::TrustedProxies::new(
            config.edge.trusted_proxies.clone(),
            config.edge.trust_loopback,
        ),
    };
    let clock = config.clock.clone();
    let metrics_listen = config.metrics_listen;
    let metrics_settings = web::metrics::connection_settings(&config.edge);
    let state = web::AppState::new(config, db.clone())?;
    // What the owner saved on /owner takes the flags' place.
    if let Err(e) = state.site.load(&db).await {
        tracing::warn!(error = %e, "could not read the owner's saved profile: showing the flags' values");
    }
    let backups = state.backups.clone();
    backups.spawn().await;
    let alerts = state.alerts.clone();
    alerts.spawn().await;
    let replication = state.replication.clone();
    replication.spawn().await;
    let observed = web::observed::spawn_reports(&state);
    // Metrics on a listener of their own, never on the public one, through the same accept
    // loop (deadlines, a connection table of its own); stopped by aborting it, which closes its
    // connections.
    let metrics_server = match metrics_listen {
        Some(addr) => {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|source| ServeError::MetricsListen { addr, source })?;
            tracing::info!(%addr, "metrics on http://{addr}/metrics");
            let app = web::metrics::router(state.clone());
            Some(tokio::spawn(async move {
                let forever = std::future::pending::<()>();
                if let Err(e) = web::conn::serve(listener, app, metrics_settings, forever).await {
                    tracing::error!(error = %e, "the metrics listener failed");
                }
            }))
        }
        None => None,
    };
    state.sync.spawn_expiry();
    let publisher = state.publisher.clone();
    match publisher.gone.load(&db, clock.wall()).await {
        Ok(count) => tracing::debug!(count, "deleted calendars answered 410"),
        Err(e) => tracing::warn!(error = %e, "could not read the deleted calendars"),
    }
    publisher.polls.spawn_writes();
    let app = web::router(state);
    if let Ok(addr) = listener.local_addr() {
        tracing::info!(%addr, version = config::VERSION, "listening on http://{addr}");
    }

    notify::notify("READY=1");
    notify::spawn_watchdog(db.clone());

    let signalled = Arc::new(Notify::new());
    let notify = signalled.clone();
    let server = web::conn::serve(listener, app, settings, async move {
        shutdown.await;
        tracing::info!("shutting down: finishing in-flight requests");
        notify::notify("STOPPING=1");
        notify.notify_one();
    });
    let mut task = tokio::spawn(server);

    let outcome = tokio::select! {
        joined = &mut task => joined.map_err(|_| ServeError::Task).and_then(|r| r.map_err(ServeError::from)),
        () = async {
            signalled.notified().await;
            tokio::time::sleep(drain).await;
        } => {
            tracing::warn!("requests still running after {drain:?}: closing them");
            task.abort();
            Ok(())
        }
    };
    backups.stop();
    alerts.stop();
    replication.stop();
    observed.abort();
    if let Some(metrics) = metrics_server {
        metrics.abort();
    }
    if let Err(e) = publisher.polls.write().await {
        tracing::warn!(error = %e, "could not write the last feed poll counts");
    }
    db.close();
    tracing::info!("stopped");
    outcome
}
