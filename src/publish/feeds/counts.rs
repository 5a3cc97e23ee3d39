//! Upstream fetches since the start, counted by outcome for the metrics.

use std::sync::atomic::{AtomicU64, Ordering};

/// Upstream fetches by outcome.
#[derive(Debug, Default)]
pub struct FetchCounts {
    /// A new body.
    pub changed: AtomicU64,
    /// 304, or the same body again.
    pub unchanged: AtomicU64,
    pub failed: AtomicU64,
}

impl FetchCounts {
    /// (outcome, count) for each outcome.
    pub fn read(&self) -> [(&'static str, u64); 3] {
        [
            ("changed", self.changed.load(Ordering::Relaxed)),
            ("unchanged", self.unchanged.load(Ordering::Relaxed)),
            ("failed", self.failed.load(Ordering::Relaxed)),
        ]
    }
}
