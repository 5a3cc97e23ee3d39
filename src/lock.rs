//! Locks that outlive a panic: a poisoned mutex only means another thread panicked while
//! holding it; the data (a cache, a connection) is still usable, so carry on rather than spread
//! the panic to every later request.

use std::sync::{Mutex, MutexGuard};

pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
