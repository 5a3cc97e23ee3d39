//! The HTTP toolkit every feature uses: one error type and its JSON answer, admission at the
//! edge (who calls, under which policy), the budgets every request draws on (rate allowances,
//! requests in flight, bytes in flight, how fast a body must arrive), strict extractors,
//! conditional responses, the client's address and the headers every response carries. A leaf:
//! it imports no feature, and nothing here knows a route.

pub mod admission;
pub mod body;
pub mod budget;
pub mod client;
pub mod conditional;
pub mod error;
pub mod extract;
pub mod headers;
pub mod hosts;
pub mod inflight;
pub mod limits;
pub mod pace;
