//! The accept loop: HTTP/1.1 connections with a header-read timeout, capped overall and per
//! client address (connections over a cap are closed at once, never queued), drained on shutdown.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::http::client::{limit_key, TrustedProxies};
use crate::lock::lock;

/// Send buffer of each accepted connection (the kernel doubles it for its own bookkeeping).
const SEND_BUFFER_BYTES: usize = 256 * 1024;

/// How the loop treats connections; from `Config`.
#[derive(Debug, Clone)]
pub struct ConnectionSettings {
    pub max_connections: usize,
    pub max_per_address: usize,
    pub header_read_timeout: Duration,
    /// Listed proxies carry many visitors on one address: only the overall cap applies to them.
    pub proxies: TrustedProxies,
}

/// Open connections, overall and per address key.
#[derive(Default)]
struct Counts {
    total: usize,
    per_key: HashMap<IpAddr, usize>,
}

/// Holds one connection's place in `Counts` until dropped.
struct Slot {
    counts: Arc<Mutex<Counts>>,
    key: Option<IpAddr>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut counts = lock(&self.counts);
        counts.total = counts.total.saturating_sub(1);
        if let Some(key) = self.key {
            if let Some(n) = counts.per_key.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    counts.per_key.remove(&key);
                }
            }
        }
    }
}

/// Why a connection was turned away (logged at debug: an attack would flood the log).
#[derive(Debug, PartialEq, Eq)]
enum Refusal {
    Total,
    PerAddress,
}

fn admit(
    counts: &Arc<Mutex<Counts>>,
    settings: &ConnectionSettings,
    peer: IpAddr,
) -> Result<Slot, Refusal> {
    let mut guard = lock(counts);
    if guard.total >= settings.max_connections {
        return Err(Refusal::Total);
    }
    let key = (!settings.proxies.is_listed(peer)).then(|| limit_key(peer));
    if let Some(key) = key {
        let n = guard.per_key.entry(key).or_insert(0);
        if *n >= settings.max_per_address {
            return Err(Refusal::PerAddress);
        }
        *n += 1;
    }
    guard.total += 1;
    Ok(Slot {
        counts: counts.clone(),
        key,
    })
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
    let counts = Arc::new(Mutex::new(Counts::default()));
    let (closing_tx, closing_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(settings.header_read_timeout)
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
        let slot = match admit(&counts, &settings, peer.ip()) {
            Ok(slot) => slot,
            Err(refusal) => {
                tracing::debug!(%peer, ?refusal, "connection refused: too many open");
                drop(stream);
                continue;
            }
        };
        connections.spawn(serve_connection(
            stream,
            peer,
            app.clone(),
            builder.clone(),
            closing_rx.clone(),
            slot,
        ));
    }

    drop(listener);
    let _ = closing_tx.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    builder: http1::Builder,
    mut closing: watch::Receiver<bool>,
    _slot: Slot,
) {
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        app.clone().oneshot(request)
    });
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let finished = tokio::select! {
        result = connection.as_mut() => Some(result),
        _ = closing.wait_for(|closing| *closing) => None,
    };
    let result = match finished {
        Some(result) => result,
        None => {
            // Finish the request in flight (if any), then close; idle connections close now.
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
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

    fn settings(total: usize, per_address: usize, proxies: &[&str]) -> ConnectionSettings {
        ConnectionSettings {
            max_connections: total,
            max_per_address: per_address,
            header_read_timeout: Duration::from_secs(1),
            proxies: TrustedProxies::new(
                proxies.iter().map(|p| p.parse().expect("range")).collect(),
            ),
        }
    }

    #[test]
    fn caps_count_overall_and_per_address_and_free_on_drop() {
        let counts = Arc::new(Mutex::new(Counts::default()));
        let s = settings(3, 2, &[]);
        let a: IpAddr = "192.0.2.1".parse().expect("ip");
        let b: IpAddr = "192.0.2.2".parse().expect("ip");
        let first = admit(&counts, &s, a).expect("first");
        let _second = admit(&counts, &s, a).expect("second");
        assert_eq!(admit(&counts, &s, a).err(), Some(Refusal::PerAddress));
        let _third = admit(&counts, &s, b).expect("other address");
        assert_eq!(admit(&counts, &s, b).err(), Some(Refusal::Total));
        drop(first);
        assert!(
            admit(&counts, &s, a).is_ok(),
            "a closed connection frees its place"
        );
    }

    #[test]
    fn listed_proxies_only_count_towards_the_total() {
        let counts = Arc::new(Mutex::new(Counts::default()));
        let s = settings(10, 1, &["10.0.0.2"]);
        let proxy: IpAddr = "10.0.0.2".parse().expect("ip");
        let slots: Vec<Slot> = (0..5)
            .map(|_| admit(&counts, &s, proxy).expect("proxy"))
            .collect();
        assert_eq!(slots.len(), 5);
        drop(slots);
        let guard = counts.lock().expect("lock");
        assert_eq!(guard.total, 0);
        assert!(guard.per_key.is_empty());
    }
}
