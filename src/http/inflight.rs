//! Requests in flight per client: one visitor's slow requests (a feed that takes 14 s to answer,
//! an upload that trickles) hold at most its share, however it arrives: on its own connections
//! or through a reverse proxy that carries everyone's requests. Past the share the answer is an
//! immediate 429, so the connection (often the proxy's) is free again at once.

use std::sync::{Arc, Mutex};

use axum::body::{Body, HttpBody};
use axum::response::Response;

use super::error::AppError;
use crate::fair::{ClaimId, ClientKey, Holder, Ledger, Shares};
use crate::lock::lock;

/// One client's share (IPv4 address, IPv6 /64); its /56 and /48 in aggregate get the multiples
/// every share has (`fair::Level::cap`: 24 and 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InFlightLimits {
    pub per_client: usize,
}

impl Default for InFlightLimits {
    /// Enough for a household's browsers at once, little enough that one visitor's slow
    /// requests leave the proxy's connections to everyone else.
    fn default() -> Self {
        InFlightLimits { per_client: 16 }
    }
}

pub struct InFlight {
    ledger: Mutex<Ledger<()>>,
}

impl InFlight {
    pub fn new(limits: InFlightLimits) -> Arc<InFlight> {
        // Requests hold nothing global (connections and bytes have budgets of their own): only
        // the shares count, so the total is unbounded and nothing is evicted.
        let shares = Shares {
            total: u64::MAX,
            per_client: limits.per_client as u64,
            newcomers: 0,
            server: 0,
        };
        Arc::new(InFlight {
            ledger: Mutex::new(Ledger::new(shares)),
        })
    }

    /// Counts one more request of `client`, or refuses it with a 429 when it (or its network)
    /// has its share under way already.
    pub fn enter(self: &Arc<Self>, client: ClientKey) -> Result<InFlightGuard, AppError> {
        let (id, _) = lock(&self.ledger)
            .claim(Holder::Client(client), 1, false, ())
            .map_err(|_| AppError::TooManyRequests { retry_after: 1 })?;
        Ok(InFlightGuard {
            owner: self.clone(),
            id,
        })
    }

    /// Requests of `client` under way now.
    pub fn of(&self, client: ClientKey) -> usize {
        lock(&self.ledger).held_by(Holder::Client(client)) as usize
    }
}

/// One request's place until dropped (with its answer's body: see [`hold_until_sent`]).
pub struct InFlightGuard {
    owner: Arc<InFlight>,
    id: ClaimId,
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        lock(&self.owner.ledger).release(self.id);
    }
}

/// Keeps `held` (a request's place, a byte reservation) until the answer's body has been
/// written to the client or dropped with its connection: a client that does not read its answer
/// keeps paying for it.
pub fn hold_until_sent<T: Send + Sync + Unpin + 'static>(response: Response, held: T) -> Response {
    let (parts, body) = response.into_parts();
    Response::from_parts(
        parts,
        Body::new(Holding {
            inner: body,
            _held: held,
        }),
    )
}

struct Holding<T> {
    inner: Body,
    /// Dropped with the body.
    _held: T,
}

impl<T: Send + Sync + Unpin + 'static> HttpBody for Holding<T> {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        // `Body` is Unpin, so the wrapper is too and needs no projection.
        std::pin::Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ip: &str) -> ClientKey {
        ClientKey::of(ip.parse().expect("ip"))
    }

    #[test]
    fn a_client_holds_its_share_and_no_more() {
        let inflight = InFlight::new(InFlightLimits { per_client: 2 });
        let a = key("198.51.100.1");
        let first = inflight.enter(a).expect("first");
        let _second = inflight.enter(a).expect("second");
        assert!(matches!(
            inflight.enter(a),
            Err(AppError::TooManyRequests { .. })
        ));
        assert!(
            inflight.enter(key("198.51.100.2")).is_ok(),
            "another client"
        );
        drop(first);
        assert_eq!(inflight.of(a), 1);
        assert!(inflight.enter(a).is_ok());
    }

    #[test]
    fn the_64s_of_one_48_count_together() {
        let inflight = InFlight::new(InFlightLimits { per_client: 2 });
        // Two each from two /64s in different /56s: the /48 holds twice one client's share.
        let held: Vec<InFlightGuard> = [
            "2001:db8:1:100::1",
            "2001:db8:1:100::2",
            "2001:db8:1:200::1",
            "2001:db8:1:200::2",
        ]
        .iter()
        .map(|ip| inflight.enter(key(ip)).expect("within the /48's share"))
        .collect();
        assert!(inflight.enter(key("2001:db8:1:300::1")).is_err());
        assert!(inflight.enter(key("2001:db8:2:1::1")).is_ok());
        drop(held);
        assert!(inflight.enter(key("2001:db8:1:3::1")).is_ok());
    }

    #[tokio::test]
    async fn the_place_is_kept_until_the_body_is_gone() {
        let inflight = InFlight::new(InFlightLimits { per_client: 1 });
        let a = key("198.51.100.1");
        let guard = inflight.enter(a).expect("first");
        let response = hold_until_sent(Response::new(Body::from("answer")), guard);
        assert_eq!(inflight.of(a), 1, "still sending");
        let bytes = axum::body::to_bytes(response.into_body(), 1024)
            .await
            .expect("body");
        assert_eq!(&bytes[..], b"answer");
        assert_eq!(inflight.of(a), 0, "sent: the place is free");
    }
}
