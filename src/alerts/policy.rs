//! When a check's outcome is worth a message (pure: the findings, what was sent before and the
//! time in, the messages and what to keep out). Checks are taken by their name, so checks added
//! to the doctor later are alerted on without this file knowing them; a short list of
//! configuration advice is left out. A check turning bad is said at once, then at most once a
//! day while it stays bad; a check that was said to be bad and is good again is said once.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::message::{Kind, Message};
use crate::doctor::{Finding, Status};

/// A day in unix milliseconds: the least time between two messages about one bad check.
pub const DAY_MS: i64 = 24 * 3600 * 1000;

/// Checks that are advice about how the server is set up, not events: they change only when the
/// owner changes the configuration (or, for `proxy`, with the traffic a proxy sends), and the
/// owner page and `hearth doctor` already say them. A message about them would be noise.
pub const QUIET: &[&str] = &[
    "public url",
    "publish key",
    "metrics",
    "proxy",
    "file modes",
];

/// What is kept per check between runs and restarts (in `meta`, as JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub checks: BTreeMap<String, CheckState>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckState {
    /// The last message about this check said it was bad (a recovery is owed when it is good).
    pub alerted: bool,
    /// When the last message saying it was bad was sent (unix ms).
    pub alerted_at: Option<i64>,
}

/// One check's findings together (a check may give several, one per calendar).
struct Group<'a> {
    check: &'a str,
    worst: Status,
    findings: Vec<&'a Finding>,
}

fn groups(findings: &[Finding]) -> Vec<Group<'_>> {
    let mut out: Vec<Group<'_>> = Vec::new();
    for finding in findings {
        match out.iter_mut().find(|g| g.check == finding.check) {
            Some(group) => {
                group.worst = group.worst.max(finding.status);
                group.findings.push(finding);
            }
            None => out.push(Group {
                check: finding.check,
                worst: finding.status,
                findings: vec![finding],
            }),
        }
    }
    out
}

/// The messages `findings` call for, given what was sent before (`kept`) and `now` (unix ms);
/// `quiet` names checks left out. Returns the messages and what to keep from now on.
pub fn decide(
    kept: &Kept,
    findings: &[Finding],
    quiet: impl Fn(&str) -> bool,
    now: i64,
) -> (Vec<Message>, Kept) {
    let mut next = kept.clone();
    let mut messages = Vec::new();
    for group in groups(findings) {
        if quiet(group.check) {
            continue;
        }
        let state = next.checks.entry(group.check.to_owned()).or_default();
        if group.worst == Status::Ok {
            if state.alerted {
                let words = group.findings.iter().map(|f| f.message.as_str());
                messages.push(Message::about(group.check, Kind::Recovered, words));
                state.alerted = false;
            }
            continue;
        }
        let due = state.alerted_at.is_none_or(|at| now - at >= DAY_MS);
        if !due {
            continue;
        }
        let kind = match (state.alerted, group.worst) {
            (true, _) => Kind::StillBad(group.worst),
            (false, _) => Kind::Bad(group.worst),
        };
        let words = group
            .findings
            .iter()
            .filter(|f| f.status != Status::Ok)
            .map(|f| f.message.as_str());
        messages.push(Message::about(group.check, kind, words));
        state.alerted = true;
        state.alerted_at = Some(now);
    }
    (messages, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(status: Status, check: &'static str, message: &str) -> Finding {
        Finding {
            status,
            check,
            message: message.to_owned(),
        }
    }

    fn none(_: &str) -> bool {
        false
    }

    const HOUR: i64 = 3600 * 1000;

    #[test]
    fn a_check_turning_bad_is_said_once_a_day_and_its_recovery_once() {
        let bad = [finding(Status::Fail, "backups", "the last run failed")];
        let good = [finding(
            Status::Ok,
            "backups",
            "the last backup is 1 hour old",
        )];
        let (sent, kept) = decide(&Kept::default(), &good, none, 0);
        assert!(sent.is_empty());
        let (sent, kept) = decide(&kept, &bad, none, HOUR);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].kind, Kind::Bad(Status::Fail));
        assert!(sent[0].body.contains("the last run failed"));
        // Still bad within the day: nothing; a day after the first: a reminder.
        let (sent, kept) = decide(&kept, &bad, none, HOUR + DAY_MS - 1);
        assert!(sent.is_empty());
        let (sent, kept) = decide(&kept, &bad, none, HOUR + DAY_MS);
        assert_eq!(sent[0].kind, Kind::StillBad(Status::Fail));
        // Good again: said once.
        let (sent, kept) = decide(&kept, &good, none, HOUR + DAY_MS + 1);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].kind, Kind::Recovered);
        let (sent, kept) = decide(&kept, &good, none, HOUR + DAY_MS + 2);
        assert!(sent.is_empty());
        // Bad again within the day of the last bad message: held back until that day is over,
        // so a check that flaps sends at most two messages a day.
        let (sent, kept) = decide(&kept, &bad, none, HOUR + DAY_MS + 3);
        assert!(sent.is_empty());
        let (sent, kept) = decide(&kept, &good, none, HOUR + DAY_MS + 4);
        assert!(sent.is_empty(), "no recovery for a bad spell never said");
        let (sent, _) = decide(&kept, &bad, none, HOUR + 2 * DAY_MS);
        assert_eq!(sent[0].kind, Kind::Bad(Status::Fail));
    }

    #[test]
    fn checks_are_taken_by_name_and_quiet_ones_left_out() {
        let findings = [
            finding(Status::Warn, "public url", "listening without --public-url"),
            finding(
                Status::Warn,
                "replication lag",
                "the replica is 3 minutes behind",
            ),
            finding(
                Status::Warn,
                "calendar sources",
                "'Work': the source has failed",
            ),
            finding(
                Status::Warn,
                "calendar sources",
                "'Club': the source has failed",
            ),
        ];
        let quiet = |check: &str| QUIET.contains(&check);
        let (sent, kept) = decide(&Kept::default(), &findings, quiet, 0);
        let checks: Vec<&str> = sent.iter().map(|m| m.check.as_str()).collect();
        assert_eq!(checks, ["replication lag", "calendar sources"]);
        assert!(sent[1].body.contains("'Work'") && sent[1].body.contains("'Club'"));
        assert!(!kept.checks.contains_key("public url"));
    }

    #[test]
    fn what_is_kept_reads_back_as_written() {
        let bad = [finding(Status::Warn, "quotas", "nearly full")];
        let (_, kept) = decide(&Kept::default(), &bad, none, 7);
        let text = serde_json::to_string(&kept).expect("json");
        let read: Kept = serde_json::from_str(&text).expect("reads");
        assert_eq!(read, kept);
        let (sent, _) = decide(&read, &bad, none, 8);
        assert!(sent.is_empty(), "a restart does not send again");
    }
}
