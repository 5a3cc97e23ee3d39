//! The calendar engine's share of the machine: compiling templates, rendering feeds and reading
//! upstream bodies run on blocking threads, at most a few at once, so a burst of heavy requests
//! waits here briefly instead of taking every core, the async workers, or the memory of many
//! renders at once. The turns are taken fairly (`fair::Turns`): the server's own work first,
//! then visitors round-robin by site (an IPv6 /48, an IPv4 address) and client, so one client
//! queueing many jobs only lengthens its own line. Engine time is a budget: a job stops when its
//! time is up (the engine checks while it matches, not only while it compiles), and what it used
//! is charged to whoever asked for it: a visitor's allowance (per client, /56 and /48), or for a
//! hosted feed's render, its publisher's allowance of its own.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::calendar::Interrupt;
use crate::clock::Clock;
use crate::config::EngineBudget;
use crate::fair::{Allowance, ClaimId, ClientKey, Holder, Ledger, Rate, Shares, Turns};
use crate::lock::lock;
use crate::store::ClientTags;

/// How long a job waits for its turn before the request is answered "busy".
pub const MAX_WAIT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum WorkError {
    #[error("the server is busy: try again in a few seconds")]
    Busy,
    /// The client has used its share of engine time (or has its share of jobs under way).
    #[error("the calendar engine has worked for your address as much as it gives one visitor for now: try again in {retry_after} seconds")]
    Spent { retry_after: u64 },
    /// A hosted calendar's renders have used the engine time its publisher gets.
    #[error("this calendar's renders have used the engine time its publisher gets for now: try again in {retry_after} seconds")]
    PublisherSpent { retry_after: u64 },
    #[error("the engine task stopped unexpectedly")]
    Stopped,
}

/// Who pays for a job's engine time.
#[derive(Debug, Clone)]
pub enum Payer {
    /// The server's own work (compiling a stored calendar, reading a copy) and the site's owner:
    /// charged to nobody, first in line.
    Server,
    /// A visitor: its allowance, per client and network.
    Visitor(ClientKey),
    /// A hosted calendar's render for its subscribers: its publisher's allowance for renders,
    /// kept apart from what the publisher spends in the editor.
    Publisher(ClientTags),
}

/// Who a job is for and how long it may take.
#[derive(Debug, Clone)]
pub struct Budget {
    pub payer: Payer,
    pub time: Duration,
}

impl Budget {
    /// A visitor's job (`None`: the owner's, charged to nobody).
    pub fn for_client(client: Option<ClientKey>, time: Duration) -> Budget {
        Budget {
            payer: client.map_or(Payer::Server, Payer::Visitor),
            time,
        }
    }
}

/// A bounded pool of engine jobs; cheap to clone.
#[derive(Clone)]
pub struct Workers {
    turns: Arc<Turns>,
    max_wait: Duration,
    rules: EngineBudget,
    /// Visitors' engine time, in milliseconds.
    time: Arc<Allowance<ClientKey>>,
    /// Hosted renders' engine time by publisher, in milliseconds.
    renders: Arc<Allowance<ClientTags>>,
    /// Jobs of each visitor under way or waiting.
    jobs: Arc<Mutex<Ledger<()>>>,
    /// Engine time spent since the start, in microseconds (the metrics read it).
    spent_micros: Arc<AtomicU64>,
}

impl std::fmt::Debug for Workers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workers")
            .field("free", &self.turns.free())
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
        let engine_time = Rate {
            burst: rules.burst.as_secs_f64() * 1000.0,
            per_second: rules.refill_per_second() * 1000.0,
        };
        let jobs_at_once = Shares {
            total: u64::MAX,
            per_client: rules.jobs_per_client as u64,
            newcomers: 0,
            server: 0,
        };
        Workers {
            // One more slot kept for sites holding no engine job and the server's own work: a
            // newcomer's render starts at once, not after the jobs of those keeping it busy.
            turns: Turns::new(jobs, 1),
            max_wait,
            rules,
            time: Arc::new(Allowance::new(engine_time, clock.clone())),
            renders: Arc::new(Allowance::new(engine_time, clock)),
            jobs: Arc::new(Mutex::new(Ledger::new(jobs_at_once))),
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
        self.turns.free()
    }

    /// Whether every slot is taken now (a subscriber then gets an earlier render at once).
    pub fn busy(&self) -> bool {
        self.turns.free() == 0
    }

    /// Whether `publisher`'s renders have engine time left now (a subscriber gets an earlier
    /// render at once when not).
    pub fn publisher_can_render(&self, publisher: &ClientTags) -> bool {
        self.renders.ready(publisher).is_ok()
    }

    /// Runs `job` on a blocking thread once a slot is free; `Busy` if none frees up in time.
    /// For the server's own work, which has no budget to stop it.
    pub async fn run<T, F>(&self, job: F) -> Result<T, WorkError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let turn = self
            .turns
            .wait(Holder::Server, self.max_wait)
            .await
            .map_err(|_| WorkError::Busy)?;
        let spent = self.spent_micros.clone();
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            let started = Instant::now();
            let value = job();
            add_micros(&spent, started.elapsed());
            value
        })
        .await
        .map_err(|_| WorkError::Stopped)
    }

    /// Runs `job` within `budget`: refused at once when its payer has spent its allowance (or a
    /// visitor has its share of jobs under way); stopped (through the interrupt it is given)
    /// when its time is up; what it took is charged to the payer.
    pub async fn run_within<T, F>(&self, budget: Budget, job: F) -> Result<T, WorkError>
    where
        T: Send + 'static,
        F: FnOnce(&Interrupt) -> T + Send + 'static,
    {
        let waits_as = match &budget.payer {
            Payer::Visitor(client) => Holder::Client(*client),
            Payer::Server | Payer::Publisher(_) => Holder::Server,
        };
        let _queued = match &budget.payer {
            Payer::Visitor(client) => Some(self.open(*client)?),
            Payer::Publisher(publisher) => {
                self.renders
                    .ready(publisher)
                    .map_err(|wait| WorkError::PublisherSpent {
                        retry_after: seconds(wait),
                    })?;
                None
            }
            Payer::Server => None,
        };
        let turn = self
            .turns
            .wait(waits_as, self.max_wait)
            .await
            .map_err(|_| WorkError::Busy)?;
        let interrupt = Interrupt::new();
        let stop = interrupt.clone();
        let timer = tokio::spawn(async move {
            tokio::time::sleep(budget.time).await;
            stop.stop();
        });
        let spent = self.spent_micros.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            let started = Instant::now();
            let value = job(&interrupt);
            let took = started.elapsed();
            add_micros(&spent, took);
            (value, took)
        })
        .await;
        timer.abort();
        let (value, took) = outcome.map_err(|_| WorkError::Stopped)?;
        let ms = took.as_secs_f64() * 1000.0;
        match &budget.payer {
            Payer::Visitor(client) => self.time.charge(client, ms),
            Payer::Publisher(publisher) => self.renders.charge(publisher, ms),
            Payer::Server => {}
        }
        Ok(value)
    }

    /// Counts a job of `client` as under way, or refuses it: engine time spent, or its (or its
    /// network's) share of jobs under way already.
    fn open(&self, client: ClientKey) -> Result<Queued, WorkError> {
        self.time.ready(&client).map_err(|wait| WorkError::Spent {
            retry_after: seconds(wait),
        })?;
        let (id, _) = lock(&self.jobs)
            .claim(Holder::Client(client), 1, false, ())
            .map_err(|_| WorkError::Spent { retry_after: 1 })?;
        Ok(Queued {
            jobs: self.jobs.clone(),
            id,
        })
    }

    /// Engine time left to `client` now, in milliseconds (tests and the owner's view).
    pub fn balance_ms(&self, client: ClientKey) -> f64 {
        self.time.left(&client)
    }

    /// Charges `client` for `took` of engine time (tests).
    #[cfg(test)]
    fn charge(&self, client: ClientKey, took: Duration) {
        self.time.charge(&client, took.as_secs_f64() * 1000.0);
    }
}

/// Whole seconds, rounded up, never 0.
fn seconds(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

/// A visitor's job under way or waiting, until dropped.
struct Queued {
    jobs: Arc<Mutex<Ledger<()>>>,
    id: ClaimId,
}

impl Drop for Queued {
    fn drop(&mut self) {
        lock(&self.jobs).release(self.id);
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

    fn visitor(client: ClientKey, time: Duration) -> Budget {
        Budget {
            payer: Payer::Visitor(client),
            time,
        }
    }

    #[tokio::test]
    async fn jobs_past_the_limit_wait_and_then_are_refused() {
        let workers = Workers::new(1, Duration::from_millis(50), rules(), Clock::manual());
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = Arc::new(Mutex::new(rx));
        // Two jobs hold the slot and the one kept beside it.
        let mut held = Vec::new();
        for _ in 0..2 {
            let (busy, rx) = (workers.clone(), rx.clone());
            held.push(tokio::spawn(async move {
                busy.run(move || lock(&rx).recv().is_ok()).await
            }));
        }
        while workers.free() > 0 {
            tokio::task::yield_now().await;
        }
        assert_eq!(workers.run(|| 1).await, Err(WorkError::Busy));
        for _ in 0..2 {
            tx.send(()).expect("send");
        }
        for job in held {
            assert_eq!(job.await.expect("joins"), Ok(true));
        }
        assert_eq!(workers.run(|| 2).await, Ok(2));
    }

    #[tokio::test]
    async fn a_newcomer_starts_at_once_while_others_keep_the_engine_busy() {
        let workers = Workers::new(1, Duration::from_millis(50), rules(), Clock::manual());
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let busy = workers.clone();
        let attacker = client();
        let first = tokio::spawn(async move {
            busy.run_within(visitor(attacker, Duration::from_secs(5)), move |_| {
                rx.recv().is_ok()
            })
            .await
        });
        while workers.free() > 1 {
            tokio::task::yield_now().await;
        }
        let newcomer = ClientKey::of("203.0.113.9".parse().expect("ip"));
        assert_eq!(
            workers
                .run_within(visitor(newcomer, Duration::from_secs(1)), |_| 7)
                .await,
            Ok(7),
            "the kept slot"
        );
        tx.send(()).expect("send");
        assert_eq!(first.await.expect("joins"), Ok(true));
    }

    #[tokio::test]
    async fn a_job_past_its_time_is_stopped_through_its_interrupt() {
        let workers = Workers::new(1, MAX_WAIT, rules(), Clock::manual());
        let budget = Budget {
            payer: Payer::Server,
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
        let mine = visitor(client(), Duration::from_secs(5));
        workers.charge(client(), Duration::from_millis(2500));
        assert!(workers.balance_ms(client()) < 0.0);
        match workers.run_within(mine.clone(), |_| ()).await {
            Err(WorkError::Spent { retry_after }) => assert_eq!(retry_after, 2),
            other => panic!("expected a refusal, got {other:?}"),
        }
        // Another client is not held back, nor the server's own work.
        let theirs = visitor(
            ClientKey::of("198.51.100.2".parse().expect("ip")),
            Duration::from_secs(5),
        );
        assert_eq!(workers.run_within(theirs, |_| 1).await, Ok(1));
        let server = Budget::for_client(None, Duration::from_secs(5));
        assert_eq!(workers.run_within(server, |_| 2).await, Ok(2));
        // A quarter second a second: 2 s of waiting buys half a second of engine time.
        clock.advance(Duration::from_secs(4));
        assert_eq!(workers.run_within(mine, |_| 3).await, Ok(3));
    }

    #[tokio::test]
    async fn the_64s_of_one_48_share_twice_one_clients_engine_time() {
        let workers = Workers::new(2, MAX_WAIT, rules(), Clock::manual());
        // Two /64s in different /56s each spend a client's whole burst: the /48 has spent
        // twice a client's, and a third /64 of it is refused however fresh it is.
        for n in [1, 2] {
            workers.charge(
                ClientKey::of(format!("2001:db8:48:{n}00::1").parse().expect("ip")),
                Duration::from_millis(2000),
            );
        }
        let fresh = ClientKey::of("2001:db8:48:300::1".parse().expect("ip"));
        assert!(matches!(
            workers
                .run_within(visitor(fresh, Duration::from_secs(1)), |_| ())
                .await,
            Err(WorkError::Spent { .. })
        ));
        let elsewhere = ClientKey::of("2001:db8:49::1".parse().expect("ip"));
        assert_eq!(
            workers
                .run_within(visitor(elsewhere, Duration::from_secs(1)), |_| 1)
                .await,
            Ok(1)
        );
    }

    #[tokio::test]
    async fn hosted_renders_are_charged_to_their_publisher_apart_from_the_editor() {
        let workers = Workers::new(1, MAX_WAIT, rules(), Clock::manual());
        let tags = ClientTags {
            client: "a".into(),
            net56: "a".into(),
            net48: "a".into(),
        };
        let render = Budget {
            payer: Payer::Publisher(tags.clone()),
            time: Duration::from_secs(5),
        };
        let spent = workers
            .run_within(render.clone(), |_| {
                std::thread::sleep(Duration::from_millis(2100));
            })
            .await;
        assert_eq!(spent, Ok(()));
        assert!(!workers.publisher_can_render(&tags));
        assert!(matches!(
            workers.run_within(render, |_| ()).await,
            Err(WorkError::PublisherSpent { .. })
        ));
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
