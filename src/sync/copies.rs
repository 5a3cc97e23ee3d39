//! One copy in memory per blob being sent: every device polling a vault, and every connection
//! downloading it at once, are written from the same bytes, which stay in the byte budget until
//! the last of those answers is done. Readers that miss at the same moment take turns to load
//! it, so the later ones find the first one's copy. Nothing is kept once no answer needs it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use axum::body::Bytes;
use tokio::sync::OwnedMutexGuard;

use crate::http::budget::{BudgetRefusal, ByteBudget, Reservation};
use crate::http::client::ClientKey;
use crate::lock::lock;

/// A blob's body and the bytes it holds in the budget.
struct Copy {
    body: Vec<u8>,
    _reservation: Reservation,
}

/// What `Bytes` shares: the copy, kept alive by every answer that holds it.
struct Held(Arc<Copy>);

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.0.body
    }
}

/// The copies being sent now, by blob id and version.
pub struct Copies {
    budget: Arc<ByteBudget>,
    live: Mutex<HashMap<String, (i64, Weak<Copy>)>>,
    /// Loads under way, by blob id: without them, readers arriving together would each load
    /// (and reserve room for) a copy of their own, and the budget would refuse the rest.
    loads: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// The turn to load one blob, held while loading it.
pub struct LoadTurn<'a> {
    copies: &'a Copies,
    id: String,
    held: Option<OwnedMutexGuard<()>>,
}

impl Drop for LoadTurn<'_> {
    fn drop(&mut self) {
        let mut loads = lock(&self.copies.loads);
        // Only the map and this turn hold the gate: nobody waits, so it goes.
        if loads
            .get(&self.id)
            .is_some_and(|gate| Arc::strong_count(gate) <= 2)
        {
            loads.remove(&self.id);
        }
        self.held.take();
    }
}

impl Copies {
    pub fn new(budget: Arc<ByteBudget>) -> Copies {
        Copies {
            budget,
            live: Mutex::new(HashMap::new()),
            loads: Mutex::new(HashMap::new()),
        }
    }

    /// Waits for the turn to load blob `id` (one reader at a time per blob); whoever waited
    /// looks for a shared copy again before loading one.
    pub async fn load_turn(&self, id: &str) -> LoadTurn<'_> {
        let gate = lock(&self.loads).entry(id.to_owned()).or_default().clone();
        let held = gate.lock_owned().await;
        LoadTurn {
            copies: self,
            id: id.to_owned(),
            held: Some(held),
        }
    }

    /// The copy of blob `id` at `version` that answers are being written from, if any.
    pub fn shared(&self, id: &str, version: i64) -> Option<Bytes> {
        let live = lock(&self.live);
        let (held_version, weak) = live.get(id)?;
        if *held_version != version {
            return None;
        }
        weak.upgrade().map(|copy| Bytes::from_owner(Held(copy)))
    }

    /// Room in the budget for a copy of `size` bytes loaded for `client`: held whole until the
    /// last answer sent from it is done (never taken back: the write deadline bounds it).
    pub fn reserve(&self, client: ClientKey, size: usize) -> Result<Reservation, BudgetRefusal> {
        self.budget.hold(client, size)
    }

    /// Keeps `body` (just loaded, its room reserved) as the copy of `id` at `version`, unless
    /// another answer kept one meanwhile, and hands out the bytes to send.
    pub fn keep(&self, id: &str, version: i64, body: Vec<u8>, reservation: Reservation) -> Bytes {
        let mut live = lock(&self.live);
        if let Some(copy) = live
            .get(id)
            .filter(|(v, _)| *v == version)
            .and_then(|(_, weak)| weak.upgrade())
        {
            return Bytes::from_owner(Held(copy));
        }
        // Forget copies nobody holds any more, so the map only lists live ones.
        live.retain(|_, (_, weak)| weak.strong_count() > 0);
        let copy = Arc::new(Copy {
            body,
            _reservation: reservation,
        });
        live.insert(id.to_owned(), (version, Arc::downgrade(&copy)));
        Bytes::from_owner(Held(copy))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;

    fn client() -> ClientKey {
        ClientKey::of("198.51.100.1".parse().expect("ip"))
    }

    #[test]
    fn answers_share_one_copy_that_leaves_the_budget_with_the_last_of_them() {
        let budget = ByteBudget::split(1000, 1000);
        let copies = Copies::new(budget.clone());
        let reservation = copies.reserve(client(), 300).expect("room");
        let first = copies.keep("a", 1, vec![7; 300], reservation);
        let second = copies.shared("a", 1).expect("shared");
        assert_eq!(first.as_ptr(), second.as_ptr(), "the same bytes");
        assert_eq!(budget.used(), 300);
        assert!(
            copies.shared("a", 2).is_none(),
            "another version is another copy"
        );
        drop(first);
        assert_eq!(budget.used(), 300, "one answer still sends it");
        drop(second);
        assert_eq!(budget.used(), 0);
        assert!(copies.shared("a", 1).is_none());
    }

    #[tokio::test]
    async fn readers_of_one_blob_take_turns_to_load_it() {
        let copies = Copies::new(ByteBudget::split(1000, 1000));
        let first = copies.load_turn("a").await;
        let mut second = Box::pin(copies.load_turn("a"));
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        assert!(
            second.as_mut().poll(&mut cx).is_pending(),
            "waits for the first load"
        );
        let other = copies.load_turn("b").await;
        drop(first);
        let second = second.await;
        drop((second, other));
        assert!(
            lock(&copies.loads).is_empty(),
            "no gate kept once nobody loads"
        );
    }
}
