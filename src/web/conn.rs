//! The accept loop: HTTP/1.1 connections with a header-read timeout and a write deadline,
//! counted in one connection table held to the fairness rule of every global resource (`fair`):
//! a client (IPv4 address, IPv6 /64) may hold a share of it, its /56 and /48 a bounded multiple
//! in aggregate, the top is kept for clients holding none; when the table is full, the heaviest
//! holder loses its oldest connection to the newcomer instead of the newcomer being refused.
//! Connections from a trusted proxy count for the client each request names. The same loop
//! serves the metrics listener. Drained on shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};
use tokio::task::JoinSet;
use tower::ServiceExt;

use super::deadline::{Deadlined, WriteRules};
use crate::fair::{ClaimId, ClientKey, Holder, Ledger, Refusal, Shares};
use crate::http::client::TrustedProxies;
use crate::lock::lock;

/// Send buffer of each accepted connection (the kernel doubles it for its own bookkeeping).
const SEND_BUFFER_BYTES: usize = 256 * 1024;

/// Largest request head (request line and headers) a connection buffers: far above what any
/// browser or calendar app sends, and 6 times less memory than hyper's default per connection.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// How the loop treats connections; from `Config`.
#[derive(Debug, Clone)]
pub struct ConnectionSettings {
    pub max_connections: usize,
    /// One client's share of the table (IPv4 address, IPv6 /64); its /56 and /48 get the
    /// multiples every share has.
    pub max_per_client: usize,
    pub header_read_timeout: Duration,
    pub write: WriteRules,
    /// Trusted proxies carry many visitors on one address: their connections are counted for
    /// the client each request names, not capped by the proxy's own address.
    pub proxies: TrustedProxies,
}

impl ConnectionSettings {
    /// The table's split: a client its share, an eighth kept for clients holding none.
    fn shares(&self) -> Shares {
        let total = self.max_connections as u64;
        Shares {
            total,
            per_client: (self.max_per_client as u64).min(total),
            newcomers: total / 8,
            server: 0,
        }
    }
}

/// The open connections; an evicted one's task is told through its `Notify`.
struct Table {
    ledger: Ledger<Arc<Notify>>,
}

impl Table {
    fn new(settings: &ConnectionSettings) -> Table {
        Table {
            ledger: Ledger::new(settings.shares()),
        }
    }

    #[cfg(test)]
    fn total(&self) -> usize {
        self.ledger.len()
    }

    #[cfg(test)]
    fn held_by(&self, client: ClientKey) -> usize {
        self.ledger.held_by(Holder::Client(client)) as usize
    }

    fn remove(&mut self, id: ClaimId) {
        self.ledger.release(id);
    }

    fn set_holder(&mut self, id: ClaimId, holder: ClientKey) {
        self.ledger.reassign(id, Holder::Client(holder));
    }

    /// A place for a connection from `peer` (a trusted proxy is held to the room left only),
    /// closing the heaviest holders' oldest connections if that is what makes room.
    fn admit(&mut self, peer: ClientKey, trusted: bool) -> Result<(ClaimId, Arc<Notify>), Refusal> {
        let evict = Arc::new(Notify::new());
        let holder = Holder::Client(peer);
        let (id, evicted) = if trusted {
            self.ledger.claim_unshared(holder, 1, true, evict.clone())?
        } else {
            self.ledger.claim(holder, 1, true, evict.clone())?
        };
        for other in evicted {
            other.notify_one();
            tracing::debug!(
                "connection table full: closed the heaviest client's oldest connection"
            );
        }
        Ok((id, evict))
    }
}

/// A connection's place in the table, handed to its requests (as a request extension) so that
/// a connection from a trusted proxy counts for the client its current request names.
#[derive(Clone)]
pub struct ConnHandle {
    table: Arc<Mutex<Table>>,
    id: ClaimId,
}

impl ConnHandle {
    /// From now on this connection counts for `client`.
    pub fn hold_for(&self, client: ClientKey) {
        lock(&self.table).set_holder(self.id, client);
    }
}

/// Removes the connection from the table when it ends (an evicted one is gone already).
struct Slot(ConnHandle);

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.0.table).remove(self.0.id);
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then stops accepting, asks every
/// connection to finish its current request and waits for them. The caller bounds that wait
/// (dropping this future closes every connection, since they live in its `JoinSet`).
pub async fn serve<F>(
    listener: TcpListener,
    app: Router,
    settings: ConnectionSettings,
    shutdown: F,
) -> std::io::Result<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    let table = Arc::new(Mutex::new(Table::new(&settings)));
    let (closing_tx, closing_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(settings.header_read_timeout)
        .max_buf_size(MAX_HEAD_BYTES)
        .keep_alive(true);
    tokio::pin!(shutdown);

    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            // Reap finished connections so the set does not grow with the server's age.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
        };
        // A bounded send buffer bounds how much one poll of a connection copies: with hundreds
        // of subscribers downloading a large feed at once, every task gets its turn quickly, and
        // so does the next /healthz probe. 256 KiB still covers a home uplink's round trip.
        if let Err(e) = socket2::SockRef::from(&stream).set_send_buffer_size(SEND_BUFFER_BYTES) {
            tracing::debug!(%peer, error = %e, "could not size the send buffer");
        }
        let key = ClientKey::of(peer.ip());
        let trusted = settings.proxies.is_trusted(peer.ip());
        let admitted = lock(&table).admit(key, trusted);
        let (id, evict) = match admitted {
            Ok(admitted) => admitted,
            Err(refusal) => {
                tracing::debug!(%peer, ?refusal, "connection refused: its share of the table is taken");
                drop(stream);
                continue;
            }
        };
        let handle = ConnHandle {
            table: table.clone(),
            id,
        };
        connections.spawn(serve_connection(
            Deadlined::new(stream, settings.write),
            peer,
            app.clone(),
            builder.clone(),
            closing_rx.clone(),
            Slot(handle),
            evict,
        ));
    }

    drop(listener);
    let _ = closing_tx.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}

async fn serve_connection(
    stream: Deadlined<TcpStream>,
    peer: SocketAddr,
    app: Router,
    builder: http1::Builder,
    mut closing: watch::Receiver<bool>,
    slot: Slot,
    evict: Arc<Notify>,
) {
    let handle = slot.0.clone();
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(handle.clone());
        app.clone().oneshot(request)
    });
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let finished = tokio::select! {
        result = connection.as_mut() => Some(result),
        // Closed to make room for another client: drop it with whatever it holds.
        () = evict.notified() => return,
        _ = closing.wait_for(|closing| *closing) => None,
    };
    let result = match finished {
        Some(result) => result,
        None => {
            // Finish the request in flight (if any), then close; idle connections close now.
            connection.as_mut().graceful_shutdown();
            tokio::select! {
                result = connection.as_mut() => result,
                () = evict.notified() => return,
            }
        }
    };
    drop(slot);
    if let Err(e) = result {
        // Timeouts, resets and malformed requests: the client's business, not the owner's.
        tracing::debug!(%peer, error = %e, "connection ended with an error");
    }
}

/// Errors of `accept` that concern one connection are skipped; others (out of file descriptors)
/// are logged and retried after a pause, as `axum::serve` does, instead of spinning.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::error!(error = %e, "accepting a connection failed; retrying in a second");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair::Level;

    fn settings(total: usize, per_client: usize) -> ConnectionSettings {
        ConnectionSettings {
            max_connections: total,
            max_per_client: per_client,
            header_read_timeout: Duration::from_secs(1),
            write: WriteRules::default(),
            proxies: TrustedProxies::default(),
        }
    }

    fn key(ip: &str) -> ClientKey {
        ClientKey::of(ip.parse().expect("ip"))
    }

    #[test]
    fn a_client_and_a_network_hold_their_share_and_no_more() {
        let mut table = Table::new(&settings(100, 2));
        let a = key("192.0.2.1");
        let (first, _) = table.admit(a, false).expect("first");
        table.admit(a, false).expect("second");
        assert_eq!(
            table.admit(a, false).err(),
            Some(Refusal::Share(Level::Client))
        );
        table.remove(first);
        assert!(
            table.admit(a, false).is_ok(),
            "a closed connection frees its place"
        );
        // /64s of one /56 share three places, of one /48 four.
        table.admit(key("2001:db8:5:1::1"), false).expect("1");
        table.admit(key("2001:db8:5:1::2"), false).expect("2");
        table.admit(key("2001:db8:5:2::1"), false).expect("3");
        assert_eq!(
            table.admit(key("2001:db8:5:3::1"), false).err(),
            Some(Refusal::Share(Level::Net56))
        );
        table.admit(key("2001:db8:5:100::1"), false).expect("4");
        assert_eq!(
            table.admit(key("2001:db8:5:200::1"), false).err(),
            Some(Refusal::Share(Level::Net48))
        );
    }

    #[test]
    fn a_full_table_closes_the_heaviest_clients_oldest_connection_for_a_newcomer() {
        let mut table = Table::new(&settings(4, 3));
        let heavy = key("192.0.2.1");
        let (oldest, oldest_evict) = table.admit(heavy, false).expect("1");
        table.admit(heavy, false).expect("2");
        table.admit(heavy, false).expect("3");
        table.admit(key("192.0.2.2"), false).expect("4");
        let newcomer = key("192.0.2.3");
        table.admit(newcomer, false).expect("room made");
        assert_eq!(table.held_by(heavy), 2);
        assert_eq!(table.total(), 4);
        table.remove(oldest);
        assert_eq!(table.total(), 4, "the oldest went already");
        // The evicted connection's task hears of it.
        let notified = oldest_evict.notified();
        tokio::pin!(notified);
        assert!(
            futures_ready(notified.as_mut()),
            "the eviction is signalled even before anyone waits"
        );
        // Now the heaviest holds two and the newcomer one: closing one of them for the
        // newcomer would only trade places, so it is refused.
        assert_eq!(table.admit(newcomer, false).err(), Some(Refusal::Full));
    }

    /// Polls a future once.
    fn futures_ready<F: Future>(f: std::pin::Pin<&mut F>) -> bool {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        f.poll(&mut cx).is_ready()
    }

    #[test]
    fn a_newcomer_as_heavy_as_anyone_is_refused_when_full() {
        let mut table = Table::new(&settings(2, 2));
        let a = key("192.0.2.1");
        let b = key("192.0.2.2");
        table.admit(a, false).expect("a");
        table.admit(b, false).expect("b");
        // Both hold one: evicting one for the other would only trade places.
        assert_eq!(table.admit(b, false).err(), Some(Refusal::Full));
        assert_eq!(
            table.admit(key("192.0.2.3"), false).err(),
            Some(Refusal::Full)
        );
    }

    #[test]
    fn proxied_connections_count_for_the_client_their_request_names() {
        let mut table = Table::new(&settings(10, 2));
        let proxy = key("127.0.0.1");
        // The proxy is not capped by its own address.
        let ids: Vec<ClaimId> = (0..5)
            .map(|_| table.admit(proxy, true).expect("proxy").0)
            .collect();
        let visitor = key("198.51.100.7");
        for id in &ids[..3] {
            table.set_holder(*id, visitor);
        }
        assert_eq!(table.held_by(visitor), 3);
        assert_eq!(table.held_by(proxy), 2);
        for id in ids {
            table.remove(id);
        }
        assert_eq!(table.total(), 0);
    }
}
