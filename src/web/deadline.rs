//! A deadline on every byte written: a connection whose client stops reading its answer (the
//! kernel's send buffer stays full) is dropped after a stall, and one that reads too slowly is
//! dropped once its answer falls below a minimum rate, so the memory of the answer is freed
//! instead of being held for as long as the client likes. Reads pass through: headers have
//! hyper's header-read timeout, bodies their own rules (`http::body`).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

pub use crate::http::pace::WriteRules;

/// A connection's stream with the write deadline.
pub struct Deadlined<IO> {
    io: IO,
    rules: WriteRules,
    timer: Option<Pin<Box<Sleep>>>,
    /// Since when writes have been waiting for the client, in this answer.
    blocked_since: Option<Instant>,
    /// Bytes written since then.
    written: u64,
    last_progress: Instant,
}

impl<IO> Deadlined<IO> {
    pub fn new(io: IO, rules: WriteRules) -> Deadlined<IO> {
        Deadlined {
            io,
            rules,
            timer: None,
            blocked_since: None,
            written: 0,
            last_progress: Instant::now(),
        }
    }

    fn progressed(&mut self, n: usize) {
        if n > 0 {
            self.last_progress = Instant::now();
            if self.blocked_since.is_some() {
                self.written += n as u64;
            }
        }
    }

    /// The write must wait: on time, or too late?
    fn wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let now = Instant::now();
        let since = *self.blocked_since.get_or_insert(now);
        let stall_at = self.last_progress.max(since) + self.rules.stall;
        let owed = Duration::from_secs_f64(self.written as f64 / self.rules.min_rate.max(1) as f64);
        let rate_at = since + self.rules.grace + owed;
        let deadline = stall_at.min(rate_at);
        if now >= deadline {
            return Poll::Ready(Err(too_slow()));
        }
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if timer.deadline() != deadline {
            timer.as_mut().reset(deadline);
        }
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(too_slow())),
            Poll::Pending => Poll::Pending,
        }
    }
}

fn too_slow() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "the client stopped reading its answer",
    )
}

impl<IO: AsyncRead + Unpin> AsyncRead for Deadlined<IO> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            // The client sent something (its next request): the last answer is behind it.
            this.blocked_since = None;
            this.written = 0;
        }
        polled
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Deadlined<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => {
                this.progressed(n);
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.wait(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_write_vectored(cx, bufs) {
            Poll::Ready(Ok(n)) => {
                this.progressed(n);
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.wait(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_client_that_stops_reading_is_dropped_after_the_stall() {
        let (server, mut client) = tokio::io::duplex(1024);
        let rules = WriteRules {
            stall: Duration::from_secs(15),
            min_rate: 1,
            grace: Duration::from_secs(3600),
        };
        let mut stream = Deadlined::new(server, rules);
        let started = Instant::now();
        let written = stream.write_all(&[b'x'; 64 * 1024]).await;
        let err = written.expect_err("the client never read");
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(15));
        // What the client could take is what the pipe held.
        let mut got = Vec::new();
        drop(stream);
        client.read_to_end(&mut got).await.expect("reads");
        assert_eq!(got.len(), 1024);
    }

    #[tokio::test(start_paused = true)]
    async fn a_reader_below_the_minimum_rate_is_dropped_after_the_grace() {
        let (server, mut client) = tokio::io::duplex(100);
        let rules = WriteRules {
            stall: Duration::from_secs(15),
            min_rate: 100,
            grace: Duration::from_secs(10),
        };
        let mut stream = Deadlined::new(server, rules);
        // 10 bytes every 5 s: never a stall, but 2 bytes a second.
        let reader = tokio::spawn(async move {
            let mut total = 0;
            let mut chunk = [0u8; 10];
            loop {
                tokio::time::sleep(Duration::from_secs(5)).await;
                match client.read(&mut chunk).await {
                    Ok(0) | Err(_) => return total,
                    Ok(n) => total += n,
                }
            }
        });
        let err = stream
            .write_all(&[b'x'; 100_000])
            .await
            .expect_err("too slow");
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        drop(stream);
        let taken = reader.await.expect("joins");
        assert!(taken < 1000, "{taken}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_reader_that_keeps_up_gets_everything() {
        let (server, mut client) = tokio::io::duplex(4096);
        let mut stream = Deadlined::new(server, WriteRules::default());
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            client.read_to_end(&mut got).await.map(|_| got.len())
        });
        stream.write_all(&[b'x'; 1 << 20]).await.expect("written");
        stream.shutdown().await.expect("shut");
        drop(stream);
        assert_eq!(reader.await.expect("joins").expect("read"), 1 << 20);
    }
}
