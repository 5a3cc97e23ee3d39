//! How a live claim's holder hears that its claim was evicted for a newcomer (the payload a
//! [`super::Ledger`] hands back for each claim it evicts): a flag to check and a wait to select
//! on, so a body being read or a fetch under way stops at once.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

#[derive(Debug, Default)]
pub struct Eviction {
    done: AtomicBool,
    notify: Notify,
}

impl Eviction {
    /// Tells the holder: its claim is gone.
    pub fn evict(&self) {
        self.done.store(true, Ordering::Release);
        self.notify.notify_waiters();
    }

    /// Whether the claim was evicted.
    pub fn is_evicted(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Resolves once the claim is evicted.
    pub async fn until_evicted(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_evicted() {
                return;
            }
            notified.await;
        }
    }
}
