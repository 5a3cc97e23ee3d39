//! One feed of a merged calendar as the server reads it (its parsed address, its prefix and how
//! it is read): what the publish request's check, a served calendar and the merge all name.

use crate::calendar::config::{SourceAuth, SourceKind, Window};
use crate::calendar::Source;

/// One source: its address and prefix, and how it is read.
#[derive(Debug, Clone)]
pub struct SourceFeed {
    pub url: reqwest::Url,
    pub prefix: Option<String>,
    pub read: Reading,
}

/// How a source is read: a GET of a feed (the default) or a CalDAV REPORT, with its login, and
/// the window of the calendar it belongs to (a CalDAV REPORT asks for the events within it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reading {
    pub kind: SourceKind,
    pub auth: Option<SourceAuth>,
    pub window: Option<Window>,
}

impl Reading {
    /// How `source` of a calendar with `window` is read.
    pub fn of(source: &Source, window: Option<Window>) -> Reading {
        Reading {
            kind: source.kind,
            auth: source.auth.clone(),
            window,
        }
    }
}
