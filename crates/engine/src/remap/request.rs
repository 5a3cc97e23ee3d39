//! What a remap is asked to do besides the config (a calendar name, a refresh interval, the
//! output bound, the time and the interrupt) and why it can fail. Below both passes.

use std::io;
use std::time::Duration;

use crate::ics::ParseError;
use crate::interrupt::{Interrupt, Interrupted};

/// What the server adds to a hosted feed besides the mapping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemapOptions {
    /// Sets X-WR-CALNAME and NAME of each VCALENDAR.
    pub calendar_name: Option<String>,
    /// Sets REFRESH-INTERVAL;VALUE=DURATION and X-PUBLISHED-TTL.
    pub refresh_interval: Option<Duration>,
    /// Added to the SEQUENCE (0 when absent) of every event the mapping changed, so that
    /// clients that cache by SEQUENCE pick up the edit.
    pub sequence_offset: u32,
    /// Largest output allowed; past it the remap stops with [`RemapError::TooLarge`] (the
    /// server sets [`output_limit`] of the input; the command line leaves it unset).
    pub max_output_bytes: Option<usize>,
    /// The time of the render (unix seconds), which a config's window counts from; `None`
    /// applies no window.
    pub now: Option<i64>,
    /// Stops the remap (and `decide`) with [`RemapError::Interrupted`] once stopped: the
    /// server's time budget for the request. `None` never stops.
    pub interrupt: Option<Interrupt>,
}

/// Absolute cap on a hosted feed's remapped size.
pub const MAX_OUTPUT_BYTES: usize = 32 << 20;

/// The largest remapped feed allowed for an input of `input_len` bytes: four times the input
/// plus 1 MiB (room for any sensible mapping), and never more than [`MAX_OUTPUT_BYTES`].
pub fn output_limit(input_len: usize) -> usize {
    input_len
        .saturating_mul(4)
        .saturating_add(1 << 20)
        .min(MAX_OUTPUT_BYTES)
}

/// Why `remap_into` stopped.
#[derive(Debug, thiserror::Error)]
pub enum RemapError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("writing the feed failed: {0}")]
    Io(#[from] io::Error),
    /// The output would pass `RemapOptions::max_output_bytes`; `field` is the mapped field whose
    /// rendered values took the most room (the one to fix).
    #[error("{field}: the mapping makes the feed larger than {limit} bytes (its rendered values take {field_bytes} bytes before the limit is reached)")]
    TooLarge {
        limit: usize,
        field: &'static str,
        field_bytes: usize,
    },
    /// [`RemapOptions::interrupt`] was stopped: the work took longer than its budget.
    #[error("the engine's time for this request ran out: simplify the mapping's patterns or filters, or use a smaller feed")]
    Interrupted,
}

impl From<Interrupted> for RemapError {
    fn from(_: Interrupted) -> RemapError {
        RemapError::Interrupted
    }
}
