//! The calendar engine's share of the machine: compiling templates, rendering feeds and reading
//! upstream bodies run on blocking threads, at most a few at once, so a burst of heavy requests
//! waits here briefly instead of taking every core, the async workers, or the memory of many
//! renders at once. Engine time is a budget: a job that a visitor asked for stops when its time
//! is up (the engine checks while it matches, not only while it compiles), and what it used is
//! charged to that visitor's allowance, of which each client has its own.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::calendar::Interrupt;
use crate::clock::Clock;
use crate::config::EngineBudget;
use crate::http::client::ClientKey;
use crate::lock::lock;

/// How long a job waits for its turn before the request is answered "busy".
pub const MAX_WAIT: Duration = Duration::from_secs(10);

/// Clients whose allowance is remembered at once; past it, those whose allowance is full
/// again are forgotten (they are indistinguishable from new ones).
const MAX_TRACKED: usize = 10_000;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum WorkError {
    #[error("the server is busy: try again in a few seconds")]
    Busy,
    /// The client has used its share of engine time (or has its share of jobs under way).
    #[error("the calendar engine has worked for your address as much as it gives one visitor for now: try again in {retry_after} seconds")]
    Spent { retry_after: u64 },
    #[error("the engine task stopped unexpectedly")]
    Stopped,
}

/// Who a job is for and how long it may take.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// The visitor whose allowance pays; `None` for the server's own work (subscribers' feeds)
    /// and the site's owner.
    pub client: Option<ClientKey>,
    pub time: Duration,
}

/// One client's engine time: a balance that refills with the clock, and jobs under way.
#[derive(Debug, Clone, Copy)]
struct Account {
    /// Engine time left, in milliseconds (negative after a long job: it refills first).
    balance_ms: f64,
    at: Instant,
    running: usize,
}

/// A bounded pool of engine jobs; cheap to clone.
#[derive(Clone)]
pub struct Workers {
    permits: Arc<Semaphore>,
    max_wait: Duration,
    rules: EngineBudget,
    clock: Clock,
    accounts: Arc<Mutex<HashMap<ClientKey, Account>>>,
    /// Engine time spent since the start, in microseconds (the metrics read it).
    spent_micros: Arc<AtomicU64>,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workers")
            .field("free", &self.permits.available_permits())
            .finish()
    }
}

fn add_micros(counter: &AtomicU64, took: Duration) {
    counter.fetch_add(
        u64::try_from(took.as_micros()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
}

/// One job per core but one, at least one and at most three: a core always stays free for the
/// threads that answer requests (health checks, cached feeds), whatever the engine does.
pub fn default_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    cores.saturating_sub(1).clamp(1, 3)
}

impl Workers {
    pub fn new(jobs: usize, max_wait: Duration, rules: EngineBudget, clock: Clock) -> Workers {
        Workers {
            permits: Arc::new(Semaphore::new(jobs.max(1))),
            max_wait,
            rules,
            clock,
            accounts: Arc::new(Mutex::new(HashMap::new())),
            spent_micros: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Engine time spent since the start, all jobs together.
    pub fn spent(&self) -> Duration {
        Duration::from_micros(self.spent_micros.load(Ordering::Relaxed))
    }

    pub fn rules(&self) -> &EngineBudget {
        &self.rules
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
    /// For the server's own work, which has no budget to stop it.
    pub async fn run<T, F>(&self, job: F) -> Result<T, WorkError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let permit = tokio::time::timeout(self.max_wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| WorkError::Busy)?
            .map_err(|_| WorkError::Stopped)?;
        let spent = self.spent_micros.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let started = Instant::now();
            let value = job();
            add_micros(&spent, started.elapsed());
            value
        })
        .await
        .map_err(|_| WorkError::Stopped)
    }

    /// Runs `job` within `budget`: refused at once when its client has spent its allowance or
    /// has its share of jobs under way; stopped (through the interrupt it is given) when its
    /// time is up; what it took is charged to the client.
    pub async fn run_within<T, F>(&self, budget: Budget, job: F) -> Result<T, WorkError>
    where
        T: Send + 'static,
        F: FnOnce(&Interrupt) -> T + Send + 'static,
    {
        let _running = match budget.client {
            Some(client) => Some(self.open(client)?),
            None => None,
        };
        let permit = tokio::time::timeout(self.max_wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| WorkError::Busy)?
            .map_err(|_| WorkError::Stopped)?;
        let interrupt = Interrupt::new();
        let stop = interrupt.clone();
        let timer = tokio::spawn(async move {
            tokio::time::sleep(budget.time).await;
            stop.stop();
        });
        let spent = self.spent_micros.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let started = Instant::now();
            let value = job(&interrupt);
            let took = started.elapsed();
            add_micros(&spent, took);
            (value, took)
        })
        .await;
        timer.abort();
        let (value, took) = outcome.map_err(|_| WorkError::Stopped)?;
        if let Some(client) = budget.client {
            self.charge(client, took);
        }
        Ok(value)
    }

    /// The client's account, refilled to now.
    fn account<'a>(
        &self,
        accounts: &'a mut HashMap<ClientKey, Account>,
        client: ClientKey,
    ) -> &'a mut Account {
        let now = self.clock.now();
        let burst_ms = self.rules.burst.as_secs_f64() * 1000.0;
        if accounts.len() >= MAX_TRACKED && !accounts.contains_key(&client) {
            let rules = self.rules;
            accounts.retain(|_, a| a.running > 0 || refilled(a, now, &rules) < burst_ms);
        }
        let account = accounts.entry(client).or_insert(Account {
            balance_ms: burst_ms,
            at: now,
            running: 0,
        });
        account.balance_ms = refilled(account, now, &self.rules);
        account.at = now;
        account
    }

    /// Counts a job of `client` as under way, or refuses it.
    fn open(&self, client: ClientKey) -> Result<Running, WorkError> {
        let mut accounts = lock(&self.accounts);
        let refill = self.rules.refill_per_second();
        let account = self.account(&mut accounts, client);
        if account.running >= self.rules.jobs_per_client {
            return Err(WorkError::Spent { retry_after: 1 });
        }
        if account.balance_ms <= 0.0 {
            let wait = -account.balance_ms / 1000.0 / refill.max(f64::EPSILON);
            return Err(WorkError::Spent {
                retry_after: (wait.ceil() as u64).max(1),
            });
        }
        account.running += 1;
        Ok(Running {
            accounts: self.accounts.clone(),
            client,
        })
    }

    fn charge(&self, client: ClientKey, took: Duration) {
        let mut accounts = lock(&self.accounts);
        let account = self.account(&mut accounts, client);
        account.balance_ms -= took.as_secs_f64() * 1000.0;
    }

    /// Engine time left to `client` now, in milliseconds (tests and the owner's view).
    pub fn balance_ms(&self, client: ClientKey) -> f64 {
        let mut accounts = lock(&self.accounts);
        self.account(&mut accounts, client).balance_ms
    }
}

/// The balance of `a` refilled to `now`, never above the burst.
fn refilled(a: &Account, now: Instant, rules: &EngineBudget) -> f64 {
    let gained = now.saturating_duration_since(a.at).as_secs_f64() * rules.refill_per_second();
    (a.balance_ms + gained * 1000.0).min(rules.burst.as_secs_f64() * 1000.0)
}

/// A job under way for a client, until dropped.
struct Running {
    accounts: Arc<Mutex<HashMap<ClientKey, Account>>>,
    client: ClientKey,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(account) = lock(&self.accounts).get_mut(&self.client) {
            account.running = account.running.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> EngineBudget {
        EngineBudget {
            burst: Duration::from_secs(2),
            refill_every: Duration::from_secs(4),
            jobs_per_client: 1,
            ..EngineBudget::default()
        }
    }

    fn client() -> ClientKey {
        ClientKey::of("198.51.100.1".parse().expect("ip"))
    }

    #[tokio::test]
    async fn jobs_past_the_limit_wait_and_then_are_refused() {
        let workers = Workers::new(1, Duration::from_millis(50), rules(), Clock::manual());
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

    #[tokio::test]
    async fn a_job_past_its_time_is_stopped_through_its_interrupt() {
        let workers = Workers::new(1, MAX_WAIT, rules(), Clock::manual());
        let budget = Budget {
            client: None,
            time: Duration::from_millis(20),
        };
        // The job runs until it is told to stop (a render that checks its interrupt).
        let stopped = workers
            .run_within(budget, |stop| {
                while !stop.is_stopped() {
                    std::thread::yield_now();
                }
                true
            })
            .await;
        assert_eq!(stopped, Ok(true));
    }

    #[tokio::test]
    async fn engine_time_is_charged_to_the_client_and_refills_with_the_clock() {
        let clock = Clock::manual();
        let workers = Workers::new(2, MAX_WAIT, rules(), clock.clone());
        let mine = Budget {
            client: Some(client()),
            time: Duration::from_secs(5),
        };
        workers.charge(client(), Duration::from_millis(2500));
        assert!(workers.balance_ms(client()) < 0.0);
        match workers.run_within(mine, |_| ()).await {
            Err(WorkError::Spent { retry_after }) => assert_eq!(retry_after, 2),
            other => panic!("expected a refusal, got {other:?}"),
        }
        // Another client is not held back, nor the server's own work.
        let theirs = Budget {
            client: Some(ClientKey::of("198.51.100.2".parse().expect("ip"))),
            ..mine
        };
        assert_eq!(workers.run_within(theirs, |_| 1).await, Ok(1));
        let server = Budget {
            client: None,
            ..mine
        };
        assert_eq!(workers.run_within(server, |_| 2).await, Ok(2));
        // A quarter second a second: 2 s of waiting buys half a second of engine time.
        clock.advance(Duration::from_secs(4));
        assert_eq!(workers.run_within(mine, |_| 3).await, Ok(3));
    }

    #[tokio::test]
    async fn a_client_has_its_share_of_jobs_under_way() {
        let workers = Workers::new(2, MAX_WAIT, rules(), Clock::manual());
        let running = workers.open(client()).expect("first");
        assert!(matches!(
            workers.open(client()),
            Err(WorkError::Spent { retry_after: 1 })
        ));
        drop(running);
        assert!(workers.open(client()).is_ok());
    }
}
