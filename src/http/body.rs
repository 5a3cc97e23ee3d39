//! Reading a request body, only once the request was admitted: within the route's size limit (a
//! declared length past it is refused before a byte is read), against the byte budget as it
//! arrives (what has arrived plus a small window, never the declared length, so a slow sender
//! holds little), with a deadline on every chunk and a minimum rate overall, so a client that
//! trickles its upload is dropped and its memory freed. A body whose room the budget takes back
//! for a lighter holder stops at once.

use axum::body::{Body, HttpBody};
use axum::http::{header, HeaderMap};
use tokio::time::Instant;

use super::budget::{BudgetRefusal, Reservation, WINDOW};
use super::error::AppError;
pub use super::pace::BodyRules;

#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("the request body is larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error(transparent)]
    Refused(#[from] BudgetRefusal),
    #[error("the request body arrived too slowly")]
    TooSlow,
    #[error("the request body could not be read: {0}")]
    Broken(String),
}

impl BodyError {
    /// The answer for this failure; `too_large` words the 413 for the route (naming its limit
    /// or the flag that sets it).
    pub fn into_app_error(self, too_large: impl FnOnce(usize) -> String) -> AppError {
        match self {
            BodyError::TooLarge { limit } => AppError::PayloadTooLarge(too_large(limit)),
            BodyError::Refused(refusal) => refusal.into(),
            BodyError::TooSlow => AppError::RequestTimeout(self.to_string()),
            BodyError::Broken(_) => AppError::BadRequest(self.to_string()),
        }
    }
}

/// A body read whole, and the bytes it holds in the budget until both are dropped.
#[derive(Debug)]
pub struct ReadBody {
    pub bytes: Vec<u8>,
    pub reservation: Reservation,
}

/// The length a request declares, if any.
pub fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

/// Reads `body` (of a request with `headers`) into memory, at most `limit` bytes, spending from
/// `reservation` (which may start empty: it grows as the body arrives).
pub async fn read(
    mut body: Body,
    headers: &HeaderMap,
    limit: usize,
    mut reservation: Reservation,
    rules: &BodyRules,
) -> Result<ReadBody, BodyError> {
    let declared = declared_length(headers);
    if let Some(length) = declared {
        if length > limit as u64 {
            return Err(BodyError::TooLarge { limit });
        }
    }
    let mut bytes = Vec::new();
    let started = Instant::now();
    loop {
        let next = tokio::time::timeout(
            rules.stall,
            std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)),
        );
        let frame = tokio::select! {
            frame = next => frame.map_err(|_| BodyError::TooSlow)?,
            () = reservation.until_evicted() => return Err(BudgetRefusal::Evicted.into()),
        };
        let Some(frame) = frame else {
            break;
        };
        let frame = frame.map_err(|e| BodyError::Broken(e.to_string()))?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if bytes.len() + data.len() > limit {
            return Err(BodyError::TooLarge { limit });
        }
        let needed = bytes.len() + data.len();
        if needed > reservation.bytes() {
            // What arrived and a window for what comes next, never past the limit.
            let want = (needed + WINDOW).min(limit).max(needed);
            let more = want - reservation.bytes();
            reservation.grow(more)?;
            bytes.reserve_exact(want - bytes.len());
        }
        bytes.extend_from_slice(&data);
        let elapsed = started.elapsed();
        if elapsed > rules.grace {
            let owed = rules.min_rate as f64 * (elapsed - rules.grace).as_secs_f64();
            if (bytes.len() as f64) < owed {
                return Err(BodyError::TooSlow);
            }
        }
    }
    Ok(ReadBody { bytes, reservation })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fair::{ClientKey, Shares};
    use crate::http::budget::ByteBudget;
    use axum::body::Bytes;
    use axum::http::HeaderValue;
    use std::sync::Arc;
    use std::time::Duration;
    use tokio::sync::mpsc;

    fn budget(total: u64, per_client: u64) -> Arc<ByteBudget> {
        ByteBudget::new(Shares {
            total,
            per_client,
            newcomers: 0,
            server: 0,
        })
    }

    fn client() -> ClientKey {
        ClientKey::of("198.51.100.1".parse().expect("ip"))
    }

    fn length(n: usize) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(n));
        h
    }

    /// A body fed chunk by chunk from the test.
    fn channel_body() -> (mpsc::Sender<Result<Bytes, std::io::Error>>, Body) {
        let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(4);
        (tx, Body::new(ChannelBody(rx)))
    }

    struct ChannelBody(mpsc::Receiver<Result<Bytes, std::io::Error>>);

    impl HttpBody for ChannelBody {
        type Data = Bytes;
        type Error = std::io::Error;
        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, std::io::Error>>> {
            self.0
                .poll_recv(cx)
                .map(|next| next.map(|chunk| chunk.map(http_body::Frame::data)))
        }
    }

    #[tokio::test]
    async fn a_declared_length_past_the_limit_is_refused_before_reading() {
        let budget = budget(1000, 500);
        let reservation = budget.reserve(client(), 0).expect("empty");
        let err = read(
            Body::from(vec![b'x'; 10]),
            &length(600),
            100,
            reservation,
            &BodyRules::default(),
        )
        .await
        .expect_err("too large");
        assert!(matches!(err, BodyError::TooLarge { limit: 100 }));
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn what_arrived_is_held_with_the_bytes_not_the_declared_length() {
        let budget = budget(1 << 20, 1 << 19);
        let (tx, body) = channel_body();
        let reading = tokio::spawn({
            let reservation = budget.reserve(client(), 0).expect("empty");
            async move {
                read(
                    body,
                    &length(400_000),
                    1 << 19,
                    reservation,
                    &BodyRules::default(),
                )
                .await
            }
        });
        tx.send(Ok(Bytes::from(vec![b'x'; 1000])))
            .await
            .expect("sent");
        // The reader has taken the chunk: it holds it and a window, not 400,000 bytes.
        while budget.used() == 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(budget.used(), 1000 + WINDOW);
        tx.send(Ok(Bytes::from(vec![b'x'; 399_000])))
            .await
            .expect("sent");
        drop(tx);
        let read_body = reading.await.expect("joins").expect("read");
        assert_eq!(read_body.bytes.len(), 400_000);
        assert_eq!(budget.used(), read_body.reservation.bytes());
        drop(read_body);
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn a_body_past_the_clients_share_is_refused() {
        let budget = budget(1 << 20, 100_000);
        let reservation = budget.reserve(client(), 0).expect("empty");
        let err = read(
            Body::from(vec![b'x'; 200_000]),
            &HeaderMap::new(),
            1 << 20,
            reservation,
            &BodyRules::default(),
        )
        .await
        .expect_err("past the client's share");
        assert!(matches!(err, BodyError::Refused(BudgetRefusal::Client)));
        assert_eq!(budget.used(), 0);
    }

    #[tokio::test]
    async fn a_body_whose_room_is_taken_back_stops_at_once() {
        let budget = budget(200_000, 200_000);
        let (tx, body) = channel_body();
        let reading = tokio::spawn({
            let reservation = budget.reserve(client(), 0).expect("empty");
            async move {
                read(
                    body,
                    &HeaderMap::new(),
                    1 << 20,
                    reservation,
                    &BodyRules::default(),
                )
                .await
            }
        });
        tx.send(Ok(Bytes::from(vec![b'x'; 100_000])))
            .await
            .expect("sent");
        while budget.used() == 0 {
            tokio::task::yield_now().await;
        }
        // A newcomer needs room: the only (and so heaviest) holder gives it back.
        let other = ClientKey::of("198.51.100.2".parse().expect("ip"));
        let _newcomer = budget.reserve(other, 100_000).expect("room made");
        let err = reading.await.expect("joins").expect_err("evicted");
        assert!(matches!(err, BodyError::Refused(BudgetRefusal::Evicted)));
        drop(tx);
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_stops_arriving_is_dropped_at_the_stall_deadline() {
        let budget = budget(1 << 20, 1 << 20);
        let (tx, body) = channel_body();
        tx.send(Ok(Bytes::from_static(b"start")))
            .await
            .expect("sent");
        let rules = BodyRules::default();
        let reading = tokio::spawn({
            let reservation = budget.reserve(client(), 0).expect("empty");
            async move { read(body, &HeaderMap::new(), 1 << 20, reservation, &rules).await }
        });
        // Paused time jumps to the stall deadline once nothing else can run.
        let err = reading.await.expect("joins").expect_err("stalled");
        assert!(matches!(err, BodyError::TooSlow));
        assert_eq!(budget.used(), 0, "the reservation went with it");
        drop(tx);
    }

    #[tokio::test(start_paused = true)]
    async fn a_trickle_below_the_minimum_rate_is_dropped_after_the_grace() {
        let budget = budget(1 << 20, 1 << 20);
        let (tx, body) = channel_body();
        let rules = BodyRules {
            stall: Duration::from_secs(5),
            min_rate: 1000,
            grace: Duration::from_secs(10),
        };
        let reading = tokio::spawn({
            let reservation = budget.reserve(client(), 0).expect("empty");
            async move { read(body, &HeaderMap::new(), 1 << 20, reservation, &rules).await }
        });
        // 100 bytes every 4 s: never a stall, but 25 bytes a second.
        let mut refused = false;
        for _ in 0..20 {
            tokio::time::sleep(Duration::from_secs(4)).await;
            if tx.send(Ok(Bytes::from(vec![b'x'; 100]))).await.is_err() {
                refused = true;
                break;
            }
        }
        assert!(refused, "the reader stopped taking chunks");
        let err = reading.await.expect("joins").expect_err("too slow");
        assert!(matches!(err, BodyError::TooSlow));
    }

    #[tokio::test]
    async fn a_body_without_a_length_is_reserved_as_it_arrives_and_cut_at_the_limit() {
        let budget = budget(1 << 20, 1 << 20);
        let (tx, body) = channel_body();
        let reading = tokio::spawn({
            let reservation = budget.reserve(client(), 0).expect("empty");
            async move {
                read(
                    body,
                    &HeaderMap::new(),
                    150_000,
                    reservation,
                    &BodyRules::default(),
                )
                .await
            }
        });
        for _ in 0..2 {
            let _ = tx.send(Ok(Bytes::from(vec![b'x'; 100_000]))).await;
        }
        drop(tx);
        let err = reading.await.expect("joins").expect_err("past the limit");
        assert!(matches!(err, BodyError::TooLarge { limit: 150_000 }));
        assert_eq!(budget.used(), 0);
    }
}
