//! The edge every request passes first: who the client is (worked out once and kept in the
//! request's extensions, so every budget and handler counts the same client), which client its
//! connection counts for in the connection table (a trusted proxy's connection counts for the
//! visitor it carries now), and, on the routes that do work, the client's share of requests in
//! flight, held until the answer has been written.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::conn::ConnHandle;
use crate::http::admission::Admission;
use crate::http::client::ClientAddr;
use crate::http::inflight::hold_until_sent;

/// Names the client of every request.
pub async fn identify(
    State(admission): State<Arc<Admission>>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    // Probes come from wherever the owner's monitor runs; they say nothing of the proxies.
    if !matches!(parts.uri.path(), "/healthz" | "/readyz") {
        if let Some(peer) = parts.extensions.get::<ConnectInfo<SocketAddr>>() {
            admission.proxies.observe(peer.0.ip(), &parts.headers);
        }
    }
    let client = ClientAddr::resolve(&admission.proxies, &parts);
    parts.extensions.insert(client);
    if let Some(conn) = parts.extensions.get::<ConnHandle>() {
        conn.hold_for(client.key());
    }
    next.run(Request::from_parts(parts, body)).await
}

/// Counts the request among its client's requests in flight until its answer is sent, or
/// refuses it at once (429) when the client has its share under way. Hosted feeds are answered
/// in text, as calendar apps show it.
pub async fn in_flight(
    State(admission): State<Arc<Admission>>,
    request: Request,
    next: Next,
) -> Response {
    // `identify` runs first; a request it did not see counts as the unspecified address.
    let client = request
        .extensions()
        .get::<ClientAddr>()
        .copied()
        .unwrap_or(ClientAddr(IpAddr::V6(Ipv6Addr::UNSPECIFIED)));
    match admission.inflight.enter(client.key()) {
        Ok(guard) => hold_until_sent(next.run(request).await, guard),
        Err(refused) if request.uri().path().starts_with("/cal/") => refused.into_text_response(),
        Err(refused) => refused.into_response(),
    }
}
