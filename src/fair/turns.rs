//! Turns on a few slots (the engine's threads) taken fairly: the server's own work first (it
//! never waits behind visitors), then visitors round-robin by site (an IPv6 /48, an IPv4
//! address) and, within a site, by client, each client's jobs in the order they came. One
//! client queueing many jobs only lengthens its own line; everyone else gets every other turn. A
//! site that has not had a turn lately joins at the front of the line, not the back, and slots
//! are kept for sites holding none (running or waiting) and for the server's own work: a
//! newcomer starts at once, not after the jobs of those who keep the engine busy.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;

use super::key::{ClientKey, Group, Holder};
use crate::lock::lock;

/// No slot came free in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut;

type Waiter = (u64, Holder, oneshot::Sender<Turn>);

#[derive(Default)]
struct Site {
    /// Clients with jobs waiting, the next to be served first.
    clients: VecDeque<(ClientKey, VecDeque<Waiter>)>,
}

/// Sites served last, remembered to tell a newcomer from a site that keeps coming back.
const RECENT: usize = 16;

#[derive(Default)]
struct State {
    free: usize,
    /// Free slots kept for sites holding none, and for the server's own work.
    kept_free: usize,
    /// Turns held now, by site.
    running: HashMap<Group, usize>,
    next: u64,
    server: VecDeque<Waiter>,
    sites: HashMap<Group, Site>,
    /// Sites with jobs waiting, the next to be served first.
    order: VecDeque<Group>,
    /// The sites of the last turns given, newest last.
    recent: VecDeque<Group>,
}

impl State {
    fn is_waiting(&self) -> bool {
        !self.server.is_empty() || !self.order.is_empty()
    }

    fn enqueue(&mut self, holder: Holder, waiter: Waiter) {
        let Holder::Client(client) = holder else {
            self.server.push_back(waiter);
            return;
        };
        let site_key = client.site();
        let site = self.sites.entry(site_key).or_default();
        if site.clients.is_empty() {
            if self.recent.contains(&site_key) {
                self.order.push_back(site_key);
            } else {
                self.order.push_front(site_key);
            }
        }
        match site.clients.iter_mut().find(|(c, _)| *c == client) {
            Some((_, jobs)) => jobs.push_back(waiter),
            None => site.clients.push_back((client, VecDeque::from([waiter]))),
        }
    }

    /// The next waiter by the rule above, taken out of the queue.
    fn next_waiter(&mut self) -> Option<Waiter> {
        if let Some(waiter) = self.server.pop_front() {
            return Some(waiter);
        }
        let site_key = self.order.pop_front()?;
        let site = self.sites.get_mut(&site_key)?;
        let (client, mut jobs) = site.clients.pop_front()?;
        let waiter = jobs.pop_front();
        if !jobs.is_empty() {
            site.clients.push_back((client, jobs));
        }
        if site.clients.is_empty() {
            self.sites.remove(&site_key);
        } else {
            self.order.push_back(site_key);
        }
        waiter
    }

    /// Whether `holder` may take a kept slot: the server, or a site holding no turn and
    /// waiting for none.
    fn may_take_kept(&self, holder: Holder) -> bool {
        match holder {
            Holder::Server => true,
            Holder::Client(client) => {
                let site = client.site();
                !self.running.contains_key(&site) && !self.sites.contains_key(&site)
            }
        }
    }

    /// A turn for `holder` starts.
    fn start(&mut self, holder: Holder) -> Option<Group> {
        let Holder::Client(client) = holder else {
            return None;
        };
        let site = client.site();
        *self.running.entry(site).or_insert(0) += 1;
        self.served(site);
        Some(site)
    }

    /// A turn of `site` ended.
    fn end(&mut self, site: Option<Group>) {
        if let Some(site) = site {
            if let Some(n) = self.running.get_mut(&site) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.running.remove(&site);
                }
            }
        }
    }

    /// Remembers that `site` was given a turn.
    fn served(&mut self, site: Group) {
        self.recent.push_back(site);
        if self.recent.len() > RECENT {
            self.recent.pop_front();
        }
    }

    /// Takes waiter `id` out (it stopped waiting).
    fn remove(&mut self, holder: Holder, id: u64) {
        let Holder::Client(client) = holder else {
            self.server.retain(|(w, _, _)| *w != id);
            return;
        };
        let site_key = client.site();
        let Some(site) = self.sites.get_mut(&site_key) else {
            return;
        };
        for (_, jobs) in site.clients.iter_mut() {
            jobs.retain(|(w, _, _)| *w != id);
        }
        site.clients.retain(|(_, jobs)| !jobs.is_empty());
        if site.clients.is_empty() {
            self.sites.remove(&site_key);
            self.order.retain(|s| *s != site_key);
        }
    }
}

/// The slots and who waits for them; cheap to share behind an `Arc`.
pub struct Turns {
    state: Mutex<State>,
}

impl std::fmt::Debug for Turns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Turns").field("free", &self.free()).finish()
    }
}

impl Turns {
    /// `slots` taken in turn, and `kept` more for sites holding none and the server's own work.
    pub fn new(slots: usize, kept: usize) -> Arc<Turns> {
        Arc::new(Turns {
            state: Mutex::new(State {
                free: slots.max(1),
                kept_free: kept,
                ..State::default()
            }),
        })
    }

    /// Slots free now, kept ones included.
    pub fn free(&self) -> usize {
        let state = lock(&self.state);
        state.free + state.kept_free
    }

    /// Waits for a slot for `holder`, at most `max_wait`.
    pub async fn wait(
        self: &Arc<Self>,
        holder: Holder,
        max_wait: Duration,
    ) -> Result<Turn, TimedOut> {
        let (id, rx) = {
            let mut state = lock(&self.state);
            if state.free > 0 && !state.is_waiting() {
                state.free -= 1;
                let site = state.start(holder);
                return Ok(Turn {
                    turns: Some(self.clone()),
                    kept: false,
                    site,
                });
            }
            if state.kept_free > 0 && state.may_take_kept(holder) {
                state.kept_free -= 1;
                let site = state.start(holder);
                return Ok(Turn {
                    turns: Some(self.clone()),
                    kept: true,
                    site,
                });
            }
            let (tx, rx) = oneshot::channel();
            state.next += 1;
            let id = state.next;
            state.enqueue(holder, (id, holder, tx));
            (id, rx)
        };
        let mut waiting = Waiting {
            turns: self,
            holder,
            id,
            done: false,
        };
        let outcome = tokio::time::timeout(max_wait, rx).await;
        waiting.done = matches!(outcome, Ok(Ok(_)));
        match outcome {
            Ok(Ok(turn)) => Ok(turn),
            _ => Err(TimedOut),
        }
    }

    /// A turn of `site` ended: a kept slot goes back to be kept, a slot to the next waiter or
    /// back to the pool.
    fn release(self: &Arc<Self>, kept: bool, site: Option<Group>) {
        {
            let mut state = lock(&self.state);
            state.end(site);
            if kept {
                state.kept_free += 1;
                return;
            }
        }
        loop {
            let (turn, sender) = {
                let mut state = lock(&self.state);
                match state.next_waiter() {
                    Some((_, holder, sender)) => {
                        let site = state.start(holder);
                        let turn = Turn {
                            turns: Some(self.clone()),
                            kept: false,
                            site,
                        };
                        (turn, sender)
                    }
                    None => {
                        state.free += 1;
                        return;
                    }
                }
            };
            match sender.send(turn) {
                Ok(()) => return,
                // It stopped waiting: the turn it did not take ends here, and the next waiter
                // gets the slot.
                Err(mut turn) => {
                    turn.turns = None;
                    lock(&self.state).end(turn.site);
                }
            }
        }
    }
}

/// Takes a waiter out of the queue when it stops waiting without its turn (timed out, or its
/// request went away).
struct Waiting<'a> {
    turns: &'a Arc<Turns>,
    holder: Holder,
    id: u64,
    done: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if !self.done {
            lock(&self.turns.state).remove(self.holder, self.id);
        }
    }
}

/// A slot, until dropped.
pub struct Turn {
    turns: Option<Arc<Turns>>,
    /// One of the slots kept for newcomers and the server.
    kept: bool,
    site: Option<Group>,
}

impl std::fmt::Debug for Turn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Turn")
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(turns) = self.turns.take() {
            turns.release(self.kept, self.site);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(ip: &str) -> Holder {
        Holder::Client(ClientKey::of(ip.parse().expect("ip")))
    }

    /// Gives every holder a turn first (so none is a newcomer), then queues one job per name
    /// (in order) behind a held slot, frees it, and returns the order in which they got it.
    async fn order_of(jobs: &[(&'static str, Holder)]) -> Vec<&'static str> {
        let turns = Turns::new(1, 0);
        for (_, holder) in jobs {
            drop(
                turns
                    .wait(*holder, Duration::from_secs(1))
                    .await
                    .expect("warm"),
            );
        }
        let held = turns
            .wait(Holder::Server, Duration::from_secs(1))
            .await
            .expect("first");
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut tasks = Vec::new();
        for (name, holder) in jobs {
            let (mine, tx, name, holder) = (turns.clone(), tx.clone(), *name, *holder);
            tasks.push(tokio::spawn(async move {
                let turn = mine
                    .wait(holder, Duration::from_secs(5))
                    .await
                    .expect("turn");
                tx.send(name).expect("send");
                drop(turn);
            }));
            // Each is queued before the next comes.
            while lock(&turns.state).next < tasks.len() as u64 {
                tokio::task::yield_now().await;
            }
        }
        drop(held);
        for task in tasks {
            task.await.expect("joins");
        }
        drop(tx);
        let mut order = Vec::new();
        while let Some(name) = rx.recv().await {
            order.push(name);
        }
        order
    }

    #[tokio::test]
    async fn a_site_without_a_recent_turn_goes_before_those_that_keep_coming() {
        let turns = Turns::new(1, 0);
        let a = client("198.51.100.1");
        let b = client("198.51.100.2");
        // a and b have had turns.
        for holder in [a, b] {
            drop(
                turns
                    .wait(holder, Duration::from_secs(1))
                    .await
                    .expect("turn"),
            );
        }
        let held = turns
            .wait(Holder::Server, Duration::from_secs(1))
            .await
            .expect("held");
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut tasks = Vec::new();
        for (name, holder) in [("a", a), ("b", b), ("newcomer", client("203.0.113.7"))] {
            let (mine, tx) = (turns.clone(), tx.clone());
            tasks.push(tokio::spawn(async move {
                let turn = mine
                    .wait(holder, Duration::from_secs(5))
                    .await
                    .expect("turn");
                tx.send(name).expect("send");
                drop(turn);
            }));
            while lock(&turns.state).next < tasks.len() as u64 {
                tokio::task::yield_now().await;
            }
        }
        drop(held);
        for task in tasks {
            task.await.expect("joins");
        }
        drop(tx);
        let mut order = Vec::new();
        while let Some(name) = rx.recv().await {
            order.push(name);
        }
        assert_eq!(order, ["newcomer", "a", "b"]);
    }

    #[tokio::test]
    async fn sites_take_turns_and_the_server_goes_first() {
        let a = client("198.51.100.1");
        let b = client("198.51.100.2");
        let order = order_of(&[
            ("a1", a),
            ("a2", a),
            ("a3", a),
            ("b1", b),
            ("server", Holder::Server),
            ("b2", b),
        ])
        .await;
        assert_eq!(order, ["server", "a1", "b1", "a2", "b2", "a3"]);
    }

    #[tokio::test]
    async fn the_64s_of_one_48_are_one_site() {
        let v6 = |n: u32| client(&format!("2001:db8:48:{n:x}::1"));
        let bystander = client("203.0.113.5");
        let order = order_of(&[
            ("v1", v6(1)),
            ("v2", v6(2)),
            ("v3", v6(3)),
            ("v4", v6(4)),
            ("me", bystander),
        ])
        .await;
        assert_eq!(order[..2], ["v1", "me"], "{order:?}");
    }

    #[tokio::test]
    async fn kept_slots_are_for_sites_holding_none_and_the_server() {
        let turns = Turns::new(1, 1);
        let busy = client("198.51.100.1");
        let first = turns
            .wait(busy, Duration::from_secs(1))
            .await
            .expect("the slot");
        // The same site holds a turn: it waits (and gives up), the kept slot stays kept.
        assert_eq!(
            turns.wait(busy, Duration::from_millis(10)).await.err(),
            Some(TimedOut)
        );
        let newcomer = turns
            .wait(client("203.0.113.1"), Duration::from_millis(10))
            .await
            .expect("the kept slot");
        assert_eq!(turns.free(), 0);
        drop(newcomer);
        assert_eq!(turns.free(), 1, "back to be kept");
        let server = turns
            .wait(Holder::Server, Duration::from_millis(10))
            .await
            .expect("the server may take it");
        drop((first, server));
        assert_eq!(turns.free(), 2);
    }

    #[tokio::test]
    async fn a_waiter_that_gives_up_leaves_the_queue() {
        let turns = Turns::new(1, 0);
        let held = turns
            .wait(Holder::Server, Duration::from_secs(1))
            .await
            .expect("first");
        assert_eq!(
            turns
                .wait(client("198.51.100.1"), Duration::from_millis(10))
                .await
                .err(),
            Some(TimedOut)
        );
        assert!(!lock(&turns.state).is_waiting());
        drop(held);
        assert_eq!(turns.free(), 1);
        let again = turns
            .wait(client("198.51.100.1"), Duration::from_millis(10))
            .await;
        assert!(again.is_ok());
    }
}
