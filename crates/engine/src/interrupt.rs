//! A stop flag for engine work: the server sets it from another thread when a request's time
//! budget runs out, and the engine checks it between components and every few hundred regex
//! matches, so a hostile mapping over a large feed stops soon after instead of running on.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A shared flag that asks engine work to stop. Clones share one flag; cheap to check.
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// A flag that is not stopped yet.
    pub fn new() -> Interrupt {
        Interrupt::default()
    }

    /// Asks every holder of this flag (and its clones) to stop.
    pub fn stop(&self) {
        // Relaxed: the flag carries no data with it; a reader seeing it a little late only
        // does a little more work.
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether `stop` has been called on this flag or a clone of it.
    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Two interrupts are equal when they are the same flag (clones of one another), so that a
/// struct holding one can still compare by value.
impl PartialEq for Interrupt {
    fn eq(&self, other: &Interrupt) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Interrupt {}

/// Engine work stopped because its [`Interrupt`] was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the engine's time for this request ran out")]
pub struct Interrupted;

/// `Err(Interrupted)` when `interrupt` is set and stopped; no interrupt never stops.
pub(crate) fn check(interrupt: Option<&Interrupt>) -> Result<(), Interrupted> {
    match interrupt {
        Some(i) if i.is_stopped() => Err(Interrupted),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_sees_the_stop_and_equals_its_original() {
        let a = Interrupt::new();
        let b = a.clone();
        assert!(!b.is_stopped());
        assert_eq!(check(Some(&b)), Ok(()));
        a.stop();
        assert!(b.is_stopped());
        assert_eq!(check(Some(&b)), Err(Interrupted));
        assert_eq!(a, b);
    }

    #[test]
    fn separate_flags_are_unequal_and_independent() {
        let a = Interrupt::new();
        let b = Interrupt::new();
        assert_ne!(a, b);
        a.stop();
        assert!(!b.is_stopped());
    }

    #[test]
    fn no_interrupt_never_stops() {
        assert_eq!(check(None), Ok(()));
    }
}
