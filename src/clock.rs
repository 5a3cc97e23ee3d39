//! Time as the server reads it: a monotonic clock for in-memory freshness (a Raspberry Pi has
//! no real-time clock and its wall clock jumps when NTP catches up) and the wall clock for what
//! is persisted or shown. Tests hold a manual clock and move it forward instead of sleeping.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::lock::lock;

/// The server's clock: the system's, or a manual one in tests. Cheap to clone.
#[derive(Clone, Default)]
pub struct Clock {
    manual: Option<Arc<Manual>>,
}

struct Manual {
    start: Instant,
    start_wall: SystemTime,
    offset: Mutex<Duration>,
    /// Told whenever the clock moves, so sleepers on a manual clock wake.
    moved: tokio::sync::watch::Sender<()>,
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.manual {
            None => f.write_str("Clock::system"),
            Some(m) => write!(f, "Clock::manual(+{:?})", m.elapsed()),
        }
    }
}

impl Manual {
    fn elapsed(&self) -> Duration {
        *lock(&self.offset)
    }
}

impl Clock {
    /// The system's clocks.
    pub fn system() -> Clock {
        Clock { manual: None }
    }

    /// A clock that stands still until [`Clock::advance`] moves it (both readings together).
    pub fn manual() -> Clock {
        Clock {
            manual: Some(Arc::new(Manual {
                start: Instant::now(),
                start_wall: SystemTime::now(),
                offset: Mutex::new(Duration::ZERO),
                moved: tokio::sync::watch::Sender::new(()),
            })),
        }
    }

    /// Monotonic now: for ages and deadlines kept in memory.
    pub fn now(&self) -> Instant {
        match &self.manual {
            None => Instant::now(),
            Some(m) => m.start + m.elapsed(),
        }
    }

    /// Wall-clock now: for what is stored or shown (Last-Modified, fetched_at).
    pub fn wall(&self) -> SystemTime {
        match &self.manual {
            None => SystemTime::now(),
            Some(m) => m.start_wall + m.elapsed(),
        }
    }

    /// Moves a manual clock forward; the system clock cannot be moved (it is left alone).
    pub fn advance(&self, by: Duration) {
        if let Some(m) = &self.manual {
            *lock(&m.offset) += by;
            m.moved.send_replace(());
        }
    }

    /// Waits `duration` on this clock: real time on the system's, until it is advanced that
    /// far on a manual one (scheduled work in tests runs when the test moves the clock).
    pub async fn sleep(&self, duration: Duration) {
        self.sleep_until(self.now() + duration).await;
    }

    /// Waits until this clock's monotonic time reaches `until` (see [`Clock::sleep`]).
    pub async fn sleep_until(&self, until: Instant) {
        let Some(m) = &self.manual else {
            tokio::time::sleep_until(until.into()).await;
            return;
        };
        let mut moved = m.moved.subscribe();
        while self.now() < until {
            if moved.changed().await.is_err() {
                return;
            }
        }
    }
}

/// A wall-clock time as the database keeps it: unix milliseconds.
pub fn to_millis(t: SystemTime) -> i64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// The time of unix milliseconds read from the database (before 1970: 1970).
pub fn from_millis(ms: i64) -> SystemTime {
    std::time::UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_advanced() {
        let clock = Clock::manual();
        let (t0, w0) = (clock.now(), clock.wall());
        assert_eq!(clock.now(), t0);
        clock.advance(Duration::from_secs(90));
        assert_eq!(clock.now() - t0, Duration::from_secs(90));
        assert_eq!(
            clock.wall().duration_since(w0).expect("later"),
            Duration::from_secs(90)
        );
    }

    #[tokio::test]
    async fn a_sleep_on_a_manual_clock_ends_when_the_clock_is_moved_past_it() {
        let clock = Clock::manual();
        let sleeper = tokio::spawn({
            let clock = clock.clone();
            async move { clock.sleep(Duration::from_secs(60)).await }
        });
        tokio::task::yield_now().await;
        clock.advance(Duration::from_secs(59));
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished());
        clock.advance(Duration::from_secs(1));
        tokio::time::timeout(Duration::from_secs(10), sleeper)
            .await
            .expect("woke")
            .expect("joined");
    }

    #[test]
    fn the_system_clock_is_not_moved_by_advance() {
        let clock = Clock::system();
        let before = clock.now();
        clock.advance(Duration::from_secs(3600));
        assert!(clock.now() - before < Duration::from_secs(60));
    }
}
