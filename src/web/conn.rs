//! The accept loop: HTTP/1.1 connections with a header-read timeout and a write deadline,
//! counted in one connection table with a fair share per client. A client (IPv4 address, IPv6
//! /64) may hold a share of it, its /48 twice that in aggregate; when the table is full, the
//! heaviest holder loses its oldest connection to the newcomer instead of the newcomer being
//! refused. Connections from a trusted proxy count for the client each request names. Drained
//! on shutdown.

use std::collections::{BTreeSet, HashMap};
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
use crate::http::client::{ClientKey, TrustedProxies};
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
    /// One client's share of the table (IPv4 address, IPv6 /64).
    pub max_per_client: usize,
    /// An IPv6 /48's share in aggregate.
    pub max_per_network: usize,
    pub header_read_timeout: Duration,
    pub write: WriteRules,
    /// Trusted proxies carry many visitors on one address: their connections are counted for
    /// the client each request names, not capped by the proxy's own address.
    pub proxies: TrustedProxies,
}

struct Entry {
    holder: ClientKey,
    evict: Arc<Notify>,
}

/// The open connections: by id (ids only grow, so a smaller id is an older connection), by the
/// client they count for, and by network.
#[derive(Default)]
struct Table {
    next: u64,
    entries: HashMap<u64, Entry>,
    by_holder: HashMap<ClientKey, BTreeSet<u64>>,
    by_network: HashMap<ClientKey, usize>,
}

/// Why a connection was turned away (logged at debug: an attack would flood the log).
#[derive(Debug, PartialEq, Eq)]
enum Refusal {
    /// The table is full and the newcomer's client is already as heavy as anyone.
    Total,
    PerClient,
    PerNetwork,
}

impl Table {
    fn total(&self) -> usize {
        self.entries.len()
    }

    fn held_by(&self, client: ClientKey) -> usize {
        self.by_holder.get(&client).map_or(0, BTreeSet::len)
    }

    fn held_by_network(&self, client: ClientKey) -> usize {
        self.by_network.get(&client.network()).copied().unwrap_or(0)
    }

    fn count(&mut self, id: u64, holder: ClientKey) {
        self.by_holder.entry(holder).or_default().insert(id);
        let network = holder.network();
        if network != holder {
            *self.by_network.entry(network).or_insert(0) += 1;
        }
    }

    fn uncount(&mut self, id: u64, holder: ClientKey) {
        if let Some(ids) = self.by_holder.get_mut(&holder) {
            ids.remove(&id);
            if ids.is_empty() {
                self.by_holder.remove(&holder);
            }
        }
        let network = holder.network();
        if network != holder {
            if let Some(n) = self.by_network.get_mut(&network) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.by_network.remove(&network);
                }
            }
        }
    }

    fn insert(&mut self, holder: ClientKey) -> (u64, Arc<Notify>) {
        self.next += 1;
        let id = self.next;
        let evict = Arc::new(Notify::new());
        self.entries.insert(
            id,
            Entry {
                holder,
                evict: evict.clone(),
            },
        );
        self.count(id, holder);
        (id, evict)
    }

    fn remove(&mut self, id: u64) -> Option<Entry> {
        let entry = self.entries.remove(&id)?;
        self.uncount(id, entry.holder);
        Some(entry)
    }

    fn set_holder(&mut self, id: u64, holder: ClientKey) {
        let Some(old) = self.entries.get(&id).map(|e| e.holder) else {
            return;
        };
        if old == holder {
            return;
        }
        self.uncount(id, old);
        self.count(id, holder);
        if let Some(entry) = self.entries.get_mut(&id) {
            entry.holder = holder;
        }
    }

    /// The client holding the most connections (the older one among equals), and how many.
    fn heaviest(&self) -> Option<(ClientKey, usize)> {
        self.by_holder
            .iter()
            .max_by(|(_, a), (_, b)| {
                a.len()
                    .cmp(&b.len())
                    .then_with(|| b.first().cmp(&a.first()))
            })
            .map(|(k, ids)| (*k, ids.len()))
    }

    /// Makes room for a connection of `newcomer` by closing the oldest connection of the
    /// heaviest holder, when that holder has more than the newcomer would.
    fn evict_for(&mut self, newcomer: ClientKey) -> bool {
        let Some((heavy, n)) = self.heaviest() else {
            return false;
        };
        if heavy == newcomer || n <= self.held_by(newcomer) + 1 {
            return false;
        }
        let Some(oldest) = self
            .by_holder
            .get(&heavy)
            .and_then(|ids| ids.first().copied())
        else {
            return false;
        };
        if let Some(entry) = self.remove(oldest) {
            entry.evict.notify_one();
            tracing::debug!(client = %heavy, held = n, "connection table full: closed the heaviest client's oldest connection");
        }
        true
    }

    fn admit(
        &mut self,
        settings: &ConnectionSettings,
        peer: ClientKey,
        trusted: bool,
    ) -> Result<(u64, Arc<Notify>), Refusal> {
        if !trusted {
            if self.held_by(peer) >= settings.max_per_client {
                return Err(Refusal::PerClient);
            }
            if peer.network() != peer && self.held_by_network(peer) >= settings.max_per_network {
                return Err(Refusal::PerNetwork);
            }
        }
        if self.total() >= settings.max_connections && !self.evict_for(peer) {
            return Err(Refusal::Total);
        }
        Ok(self.insert(peer))
    }
}

/// A connection's place in the table, handed to its requests (as a request extension) so that
/// a connection from a trusted proxy counts for the client its current request names.
#[derive(Clone)]
pub struct ConnHandle {
    table: Arc<Mutex<Table>>,
    id: u64,
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
    let table = Arc::new(Mutex::new(Table::default()));
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
        let admitted = lock(&table).admit(&settings, key, trusted);
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

    fn settings(total: usize, per_client: usize, per_network: usize) -> ConnectionSettings {
        ConnectionSettings {
            max_connections: total,
            max_per_client: per_client,
            max_per_network: per_network,
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
        let mut table = Table::default();
        let s = settings(100, 2, 3);
        let a = key("192.0.2.1");
        let (first, _) = table.admit(&s, a, false).expect("first");
        table.admit(&s, a, false).expect("second");
        assert_eq!(table.admit(&s, a, false).err(), Some(Refusal::PerClient));
        table.remove(first);
        assert!(
            table.admit(&s, a, false).is_ok(),
            "a closed connection frees its place"
        );
        // Three /64s of one /48 share three places.
        table.admit(&s, key("2001:db8:5:1::1"), false).expect("1");
        table.admit(&s, key("2001:db8:5:1::2"), false).expect("2");
        table.admit(&s, key("2001:db8:5:2::1"), false).expect("3");
        assert_eq!(
            table.admit(&s, key("2001:db8:5:3::1"), false).err(),
            Some(Refusal::PerNetwork)
        );
    }

    #[test]
    fn a_full_table_closes_the_heaviest_clients_oldest_connection_for_a_newcomer() {
        let mut table = Table::default();
        let s = settings(4, 3, 6);
        let heavy = key("192.0.2.1");
        let (oldest, oldest_evict) = table.admit(&s, heavy, false).expect("1");
        table.admit(&s, heavy, false).expect("2");
        table.admit(&s, heavy, false).expect("3");
        table.admit(&s, key("192.0.2.2"), false).expect("4");
        let newcomer = key("192.0.2.3");
        table.admit(&s, newcomer, false).expect("room made");
        assert!(!table.entries.contains_key(&oldest), "the oldest went");
        assert_eq!(table.held_by(heavy), 2);
        assert_eq!(table.total(), 4);
        // The evicted connection's task hears of it.
        let notified = oldest_evict.notified();
        tokio::pin!(notified);
        assert!(
            futures_ready(notified.as_mut()),
            "the eviction is signalled even before anyone waits"
        );
        // Now the heaviest holds two and the newcomer one: closing one of them for the
        // newcomer would only trade places, so it is refused.
        assert_eq!(table.admit(&s, newcomer, false).err(), Some(Refusal::Total));
    }

    /// Polls a future once.
    fn futures_ready<F: Future>(f: std::pin::Pin<&mut F>) -> bool {
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        f.poll(&mut cx).is_ready()
    }

    #[test]
    fn a_newcomer_as_heavy_as_anyone_is_refused_when_full() {
        let mut table = Table::default();
        let s = settings(2, 2, 4);
        let a = key("192.0.2.1");
        let b = key("192.0.2.2");
        table.admit(&s, a, false).expect("a");
        table.admit(&s, b, false).expect("b");
        // Both hold one: evicting one for the other would only trade places.
        assert_eq!(table.admit(&s, b, false).err(), Some(Refusal::Total));
        assert_eq!(
            table.admit(&s, key("192.0.2.3"), false).err(),
            Some(Refusal::Total)
        );
    }

    #[test]
    fn proxied_connections_count_for_the_client_their_request_names() {
        let mut table = Table::default();
        let s = settings(10, 2, 4);
        let proxy = key("127.0.0.1");
        // The proxy is not capped by its own address.
        let ids: Vec<u64> = (0..5)
            .map(|_| table.admit(&s, proxy, true).expect("proxy").0)
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
        assert!(table.by_holder.is_empty() && table.by_network.is_empty());
    }
}
