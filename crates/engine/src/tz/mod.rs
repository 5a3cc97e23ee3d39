//! Time-zone repair for feeds: Windows zone names to IANA names (CLDR), VTIMEZONEs synthesised
//! from the tz database, and floating times given the calendar's declared zone.

mod plan;
mod repair;
mod vtimezone;
mod windows;

pub(crate) use plan::known_zone;
pub use plan::{plan, TzPlan, TzRewrite, TzUse};
pub use repair::{repair_timezones, TzRepairOutput};
pub use vtimezone::vtimezone;
pub use windows::windows_to_iana;
