//! Reading a request body, only once the request was admitted: against the byte budget (a
//! declared length is reserved before a byte is read, a body without one as it arrives), within
//! the route's size limit, with a deadline on every chunk and a minimum rate overall, so a client
//! that trickles its upload is dropped and its memory freed.

use axum::body::{Body, HttpBody};
use axum::http::{header, HeaderMap};
use tokio::time::Instant;

use super::budget::{BudgetRefusal, Reservation};
use super::error::AppError;
pub use super::pace::BodyRules;

/// Bodies without a declared length are reserved in steps of this many bytes as they arrive.
const STEP: usize = 64 * 1024;

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
/// `reservation` (which may start empty: it grows as the body needs).
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
    let expected = declared.map_or(0, |n| n as usize);
    if reservation.bytes() < expected {
        reservation.grow(expected - reservation.bytes())?;
    }
    let mut bytes = Vec::with_capacity(expected);
    let started = Instant::now();
    loop {
        let frame = tokio::time::timeout(
            rules.stall,
            std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)),
        )
        .await
        .map_err(|_| BodyError::TooSlow)?;
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
            let step = (needed - reservation.bytes()).max(STEP);
            let step = step.min(limit.saturating_sub(reservation.bytes()));
            reservation.grow(step.max(needed - reservation.bytes()))?;
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
    use crate::http::budget::ByteBudget;
    use crate::http::client::ClientKey;
    use axum::body::Bytes;
    use axum::http::HeaderValue;
    use std::time::Duration;
    use tokio::sync::mpsc;

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
        let budget = ByteBudget::new(1000, 500);
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
    async fn the_declared_length_is_reserved_first_and_held_with_the_bytes() {
        let budget = ByteBudget::new(1000, 500);
        let reservation = budget.reserve(client(), 0).expect("empty");
        let read_body = read(
            Body::from(vec![b'x'; 300]),
            &length(300),
            400,
            reservation,
            &BodyRules::default(),
        )
        .await
        .expect("read");
        assert_eq!(read_body.bytes.len(), 300);
        assert_eq!(budget.used(), 300);
        drop(read_body);
        assert_eq!(budget.used(), 0);
        let reservation = budget.reserve(client(), 0).expect("empty");
        let err = read(
            Body::from(vec![b'x'; 10]),
            &length(501),
            1000,
            reservation,
            &BodyRules::default(),
        )
        .await
        .expect_err("past the client's share");
        assert!(matches!(err, BodyError::Refused(BudgetRefusal::Client)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_stops_arriving_is_dropped_at_the_stall_deadline() {
        let budget = ByteBudget::new(1 << 20, 1 << 20);
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
        let budget = ByteBudget::new(1 << 20, 1 << 20);
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
        let budget = ByteBudget::new(1 << 20, 1 << 20);
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
