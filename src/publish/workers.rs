//! The calendar engine's share of the machine: compiling templates, rendering feeds and reading
//! upstream bodies run on blocking threads, at most a few at once, so a burst of heavy requests
//! waits here briefly instead of taking every core, the async workers, or the memory of many
//! renders at once.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;

/// How long a job waits for its turn before the request is answered "busy".
pub const MAX_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum WorkError {
    #[error("the server is busy: try again in a few seconds")]
    Busy,
    #[error("the engine task stopped unexpectedly")]
    Stopped,
}

/// A bounded pool of engine jobs; cheap to clone.
#[derive(Clone)]
pub struct Workers {
    permits: Arc<Semaphore>,
    max_wait: Duration,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workers")
            .field("free", &self.permits.available_permits())
            .finish()
    }
}

impl Default for Workers {
    /// One job per core but one, at least one and at most three: a core always stays free for
    /// the threads that answer requests (health checks, cached feeds), whatever the engine does.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        Workers::new(cores.saturating_sub(1).clamp(1, 3), MAX_WAIT)
    }
}

impl Workers {
    pub fn new(jobs: usize, max_wait: Duration) -> Workers {
        Workers {
            permits: Arc::new(Semaphore::new(jobs.max(1))),
            max_wait,
        }
    }

    /// Slots free now.
    pub fn free(&self) -> usize {
        self.permits.available_permits()
    }

    /// Whether every slot is taken now (a subscriber then gets an earlier render at once).
    pub fn busy(&self) -> bool {
        self.permits.available_permits() == 0
    }

    /// Runs `job` on a blocking thread once a slot is free; `Busy` if none frees up in time.
    pub async fn run<T, F>(&self, job: F) -> Result<T, WorkError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let permit = tokio::time::timeout(self.max_wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| WorkError::Busy)?
            .map_err(|_| WorkError::Stopped)?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            job()
        })
        .await
        .map_err(|_| WorkError::Stopped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_past_the_limit_wait_and_then_are_refused() {
        let workers = Workers::new(1, Duration::from_millis(50));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let busy = workers.clone();
        let first = tokio::spawn(async move { busy.run(move || rx.recv().is_ok()).await });
        tokio::task::yield_now().await;
        // Wait until the first job holds the only slot.
        while workers.permits.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(workers.run(|| 1).await, Err(WorkError::Busy));
        tx.send(()).expect("send");
        assert_eq!(first.await.expect("joins"), Ok(true));
        assert_eq!(workers.run(|| 2).await, Ok(2));
    }
}
