//! Health probes: `/healthz` (the process answers) and `/readyz` (the database answers and the
//! disk has room).

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::store::Db;

pub async fn healthz() -> impl IntoResponse {
    (
        [(header::CACHE_CONTROL, "no-store")],
        format!("ok hearth {}\n", crate::config::VERSION),
    )
}

pub async fn readyz(State(db): State<Db>) -> Response {
    match db.ready().await {
        Ok(()) => ([(header::CACHE_CONTROL, "no-store")], "ready\n").into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed");
            let text = if e.is_disk_full() {
                "disk full: free space in the data directory\n"
            } else {
                "database unavailable\n"
            };
            (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::CACHE_CONTROL, "no-store")],
                text,
            )
                .into_response()
        }
    }
}
