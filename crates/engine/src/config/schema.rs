//! A calendar's whole configuration as JSON: the mapping plus options (filters, a date window,
//! time zones, alarms, privacy), as the editor, the publish API and `hearth remap --config` send
//! it. Read and written by serde; checked and compiled in `compile`.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::mapping::Mapping;

/// The config JSON: only `mapping` is required; every absent option is today's behaviour.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CalendarConfig {
    pub mapping: Mapping,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<FilterRule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub timezones: TimezoneMode,
    #[serde(default, skip_serializing_if = "is_default")]
    pub alarms: AlarmMode,
    #[serde(default, skip_serializing_if = "is_default")]
    pub privacy: Privacy,
    /// Whether filters and the window keep or drop a recurring event whole, by its first
    /// occurrence, or judge each of its occurrences.
    #[serde(default, skip_serializing_if = "is_default")]
    pub occurrences: Occurrences,
    /// The feeds merged into this calendar, in order (absent: the calendar has one feed, its
    /// `url` beside the config). The mapping and every option apply to the merged events.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
    /// Events the source stops publishing after they ended, kept this many days after their end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<History>,
    /// Single events or occurrences changed by hand, applied after the mapping.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<Override>,
    /// Serve the calendar's agenda (`/cal/{id}` as a page, `/cal/{id}.json`) beside its feed.
    #[serde(default, skip_serializing_if = "is_default")]
    pub agenda: bool,
    /// Properties beyond the five templates (`TRANSP`, `CATEGORIES`, `CLASS`, `URL`, `COLOR`),
    /// each a template in the mapping's syntax set on every kept event; an empty result removes
    /// the property.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, String>,
    /// Where events' UIDs come from: the source's own, or made from their content.
    #[serde(default, skip_serializing_if = "is_default")]
    pub uids: UidMode,
}

/// `"source"`: events keep the UIDs their source gives (what every calendar did before this
/// key). `"content"`: a UID made from the event's content (its source, start, the source's
/// summary and recurrence), for sources whose UIDs are missing or change at every fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UidMode {
    #[default]
    Source,
    Content,
}

/// One event changed by hand: the event (`uid`), or one occurrence of it (`recurrenceId`, its
/// RECURRENCE-ID value as written, e.g. `20240311T100000`), hidden, or given another title,
/// shifted in time, or given a note (added to its description).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Override {
    pub uid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recurrence_id: Option<String>,
    #[serde(default, skip_serializing_if = "is_default")]
    pub hide: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Minutes to move the start and end by (negative: earlier); whole days for all-day events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift_minutes: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `{"keepDays": N}`: an event the source stops publishing after it ended stays N days after
/// its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct History {
    pub keep_days: u32,
}

/// One feed of a merged calendar: `{"url": "https://…", "prefix": "[Work] ", "label": "Work"}`.
/// The command line merges its inputs in order and needs no `url`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Put before the SUMMARY of each of this feed's events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// The owner's name for the feed, shown in the editor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// A feed (`"feed"`, the default: a GET of the address) or a CalDAV calendar (`"caldav"`:
    /// its events read with a REPORT within the calendar's window).
    #[serde(default, skip_serializing_if = "is_default")]
    pub kind: SourceKind,
    /// The login the source asks for. Write-only: it is always written back as `"set"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<SourceAuth>,
    /// The owner allows the login to travel unencrypted over `http://` to a public host (without
    /// it, a login goes over plain HTTP only to a loopback or private address).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub plain_http: bool,
}

/// What kind of address a source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    #[default]
    Feed,
    Caldav,
}

/// Longest username, password or token a source's login may hold, in bytes.
pub const MAX_AUTH_BYTES: usize = 1024;

/// A source's login: `{"username": "…", "password": "…"}` (HTTP Basic), `{"token": "…"}`
/// (Bearer), or `"set"`, a login stored before and kept. It is write-only by construction: it
/// serializes as `"set"` whatever it holds and its `Debug` names no secret, so no config written
/// back (an answer, a stored config, a log line) can carry it.
#[derive(Clone, PartialEq, Eq)]
pub enum SourceAuth {
    Basic {
        username: String,
        password: String,
    },
    Bearer {
        token: String,
    },
    /// The login stored for this source before, unchanged.
    Set,
}

impl fmt::Debug for SourceAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SourceAuth::Basic { .. } => "SourceAuth::Basic(..)",
            SourceAuth::Bearer { .. } => "SourceAuth::Bearer(..)",
            SourceAuth::Set => "SourceAuth::Set",
        })
    }
}

impl Serialize for SourceAuth {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("set")
    }
}

#[derive(Deserialize)]
#[serde(
    untagged,
    expecting = "{\"username\": …, \"password\": …}, {\"token\": …} or \"set\""
)]
enum RawAuth {
    Word(AuthWord),
    Basic(BasicAuth),
    Bearer(BearerAuth),
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum AuthWord {
    Set,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BasicAuth {
    username: String,
    password: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BearerAuth {
    token: String,
}

impl<'de> Deserialize<'de> for SourceAuth {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let auth = match RawAuth::deserialize(deserializer)? {
            RawAuth::Word(AuthWord::Set) => SourceAuth::Set,
            RawAuth::Basic(b) => SourceAuth::Basic {
                username: b.username,
                password: b.password,
            },
            RawAuth::Bearer(b) => SourceAuth::Bearer { token: b.token },
        };
        auth.check().map_err(D::Error::custom)?;
        Ok(auth)
    }
}

impl SourceAuth {
    /// Each part present, at most [`MAX_AUTH_BYTES`], without control characters (a header
    /// value cannot hold them), and a Basic username without `:` (RFC 7617).
    fn check(&self) -> Result<(), String> {
        let parts: &[(&str, &str)] = match self {
            SourceAuth::Basic { username, password } => {
                if username.contains(':') {
                    return Err("a login's username cannot contain \":\"".to_owned());
                }
                &[("username", username), ("password", password)]
            }
            SourceAuth::Bearer { token } => &[("token", token)],
            SourceAuth::Set => &[],
        };
        for (name, value) in parts {
            if value.is_empty() {
                return Err(format!("a login's {name} is empty"));
            }
            if value.len() > MAX_AUTH_BYTES {
                return Err(format!(
                    "a login's {name} is longer than {MAX_AUTH_BYTES} bytes"
                ));
            }
            if value.chars().any(char::is_control) {
                return Err(format!("a login's {name} holds a control character"));
            }
        }
        Ok(())
    }
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

impl CalendarConfig {
    /// A config that is only a mapping (every option as today).
    pub fn from_mapping(mapping: Mapping) -> CalendarConfig {
        CalendarConfig {
            mapping,
            ..CalendarConfig::default()
        }
    }
}

/// Whether a rule keeps only what matches or drops what matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FilterAction {
    Include,
    Exclude,
}

/// One filter: an action and exactly one matcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawRule", into = "RawRule")]
pub struct FilterRule {
    pub action: FilterAction,
    pub matcher: Matcher,
}

/// What a filter rule looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Matcher {
    /// The property's unescaped value (repeats joined as templates see them) matches `pattern`
    /// with the template flags `flags` (from `imsxU`); an absent property is "".
    Property {
        field: String,
        pattern: String,
        flags: String,
    },
    /// DTSTART is a DATE (true) or a DATE-TIME (false).
    AllDay(bool),
    /// The weekday of DTSTART as written is one of these (`MO` … `SU`).
    Weekdays(Vec<String>),
    /// A timed event whose start time as written is in [from, to) (`HH:MM`; from > to wraps
    /// past midnight).
    TimeOfDay(TimeOfDay),
    /// DTEND − DTSTART (or DURATION) in minutes is within the bounds.
    Duration(DurationRange),
    /// STATUS equals this, case-insensitively.
    Status(String),
    /// Every VEVENT with this UID, or with `recurrence_id` only that occurrence.
    Uid {
        uid: String,
        recurrence_id: Option<String>,
    },
    /// A VTODO or VJOURNAL component.
    Component(String),
}

/// `{"from": "09:00", "to": "17:30"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeOfDay {
    pub from: String,
    pub to: String,
}

/// `{"minMinutes": 0, "maxMinutes": 60}`, either bound optional.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DurationRange {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_minutes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_minutes: Option<u64>,
}

/// The flat JSON shape of a rule; [`FilterRule`] is read through it so that "exactly one
/// matcher" is checked where the JSON is read.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawRule {
    action: Option<FilterAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pattern: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    flags: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    all_day: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weekdays: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time_of_day: Option<TimeOfDay>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    duration: Option<DurationRange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    recurrence_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    component: Option<String>,
}

const MATCHER_KEYS: &str =
    "field (with pattern), allDay, weekdays, timeOfDay, duration, status, uid or component";

impl TryFrom<RawRule> for FilterRule {
    type Error = String;

    fn try_from(raw: RawRule) -> Result<Self, String> {
        let action = raw
            .action
            .ok_or("a filter needs \"action\": \"include\" or \"exclude\"")?;
        if raw.pattern.is_some() && raw.field.is_none() {
            return Err("\"pattern\" needs \"field\" (the property it reads)".to_owned());
        }
        if raw.flags.is_some() && raw.pattern.is_none() {
            return Err("\"flags\" belong to a \"field\"/\"pattern\" filter".to_owned());
        }
        if raw.recurrence_id.is_some() && raw.uid.is_none() {
            return Err("\"recurrenceId\" needs \"uid\"".to_owned());
        }
        let mut found: Vec<Matcher> = Vec::new();
        if let Some(field) = raw.field {
            let Some(pattern) = raw.pattern else {
                return Err("\"field\" needs \"pattern\" (a regular expression)".to_owned());
            };
            found.push(Matcher::Property {
                field,
                pattern,
                flags: raw.flags.unwrap_or_default(),
            });
        }
        if let Some(v) = raw.all_day {
            found.push(Matcher::AllDay(v));
        }
        if let Some(v) = raw.weekdays {
            found.push(Matcher::Weekdays(v));
        }
        if let Some(v) = raw.time_of_day {
            found.push(Matcher::TimeOfDay(v));
        }
        if let Some(v) = raw.duration {
            found.push(Matcher::Duration(v));
        }
        if let Some(v) = raw.status {
            found.push(Matcher::Status(v));
        }
        if let Some(uid) = raw.uid {
            found.push(Matcher::Uid {
                uid,
                recurrence_id: raw.recurrence_id,
            });
        }
        if let Some(v) = raw.component {
            found.push(Matcher::Component(v));
        }
        match found.len() {
            1 => Ok(FilterRule {
                action,
                matcher: found.remove(0),
            }),
            0 => Err(format!("a filter needs one matcher: {MATCHER_KEYS}")),
            _ => Err(format!(
                "a filter has exactly one matcher ({MATCHER_KEYS}), this one has {}",
                found.len()
            )),
        }
    }
}

impl From<FilterRule> for RawRule {
    fn from(rule: FilterRule) -> RawRule {
        let mut raw = RawRule {
            action: Some(rule.action),
            ..RawRule::default()
        };
        match rule.matcher {
            Matcher::Property {
                field,
                pattern,
                flags,
            } => {
                raw.field = Some(field);
                raw.pattern = Some(pattern);
                raw.flags = (!flags.is_empty()).then_some(flags);
            }
            Matcher::AllDay(v) => raw.all_day = Some(v),
            Matcher::Weekdays(v) => raw.weekdays = Some(v),
            Matcher::TimeOfDay(v) => raw.time_of_day = Some(v),
            Matcher::Duration(v) => raw.duration = Some(v),
            Matcher::Status(v) => raw.status = Some(v),
            Matcher::Uid { uid, recurrence_id } => {
                raw.uid = Some(uid);
                raw.recurrence_id = recurrence_id;
            }
            Matcher::Component(v) => raw.component = Some(v),
        }
        raw
    }
}

/// Keep events that overlap [now − pastDays, now + futureDays]; an absent bound is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Window {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub past_days: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub future_days: Option<u32>,
}

/// `"keep"` the time zones as upstream has them, or `"repair"` them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimezoneMode {
    #[default]
    Keep,
    Repair,
}

/// `"keep"`, `"strip"` or `{"addMinutesBefore": N}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "RawAlarms", into = "RawAlarms")]
pub enum AlarmMode {
    #[default]
    Keep,
    Strip,
    /// Every VALARM replaced by one display alarm this many minutes before the start.
    AddMinutesBefore(u32),
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "\"keep\", \"strip\" or {\"addMinutesBefore\": minutes}"
)]
enum RawAlarms {
    Word(AlarmWord),
    Add(AddAlarm),
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum AlarmWord {
    Keep,
    Strip,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AddAlarm {
    add_minutes_before: u32,
}

impl TryFrom<RawAlarms> for AlarmMode {
    type Error = String;

    fn try_from(raw: RawAlarms) -> Result<Self, String> {
        Ok(match raw {
            RawAlarms::Word(AlarmWord::Keep) => AlarmMode::Keep,
            RawAlarms::Word(AlarmWord::Strip) => AlarmMode::Strip,
            RawAlarms::Add(a) => AlarmMode::AddMinutesBefore(a.add_minutes_before),
        })
    }
}

impl From<AlarmMode> for RawAlarms {
    fn from(mode: AlarmMode) -> RawAlarms {
        match mode {
            AlarmMode::Keep => RawAlarms::Word(AlarmWord::Keep),
            AlarmMode::Strip => RawAlarms::Word(AlarmWord::Strip),
            AlarmMode::AddMinutesBefore(n) => RawAlarms::Add(AddAlarm {
                add_minutes_before: n,
            }),
        }
    }
}

/// `"series"`: a recurring event is kept or dropped whole, by its first occurrence (what every
/// calendar did before this key). `"each"`: the weekday, time-of-day, duration and all-day
/// filters and the window judge every occurrence; those dropped become EXDATEs, and a series
/// that outlasts the window ends with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Occurrences {
    #[default]
    Series,
    Each,
}

/// `"full"` (as upstream) or `"busy"` (only times stay).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Privacy {
    #[default]
    Full,
    Busy,
}
