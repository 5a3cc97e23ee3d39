//! The HTTP toolkit every feature uses: one error type and its JSON answer, strict extractors,
//! conditional responses, the client's address, per-address rate limits and the headers every
//! response carries. A leaf: it imports no feature, and nothing here knows a route.

pub mod client;
pub mod conditional;
pub mod error;
pub mod extract;
pub mod headers;
pub mod hosts;
pub mod limits;
