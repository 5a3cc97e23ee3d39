//! How fast a client must send its request body and take its answer: a deadline on every chunk
//! and a minimum rate overall, in each direction. `http::body` applies the first, the
//! connection loop (`web::deadline`) the second.

use std::time::Duration;

/// How fast a request body must arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyRules {
    /// Longest wait for the next chunk.
    pub stall: Duration,
    /// Bytes a second a body must average once `grace` has passed.
    pub min_rate: u64,
    pub grace: Duration,
}

impl Default for BodyRules {
    fn default() -> Self {
        BodyRules {
            stall: Duration::from_secs(10),
            min_rate: 4 * 1024,
            grace: Duration::from_secs(10),
        }
    }
}

/// How fast a client must take its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteRules {
    /// Longest time a write may wait without any byte going out.
    pub stall: Duration,
    /// Bytes a second an answer must average, once `grace` has passed, while the client keeps
    /// the send buffer full.
    pub min_rate: u64,
    pub grace: Duration,
}

impl Default for WriteRules {
    fn default() -> Self {
        WriteRules {
            stall: Duration::from_secs(15),
            min_rate: 2 * 1024,
            grace: Duration::from_secs(15),
        }
    }
}
