use super::*;
use crate::{parse, Component, Limits};

/// One observance read back from the text: onsets in UTC seconds (up to `until_year`) and the
/// offset it sets.
struct Observance {
    onsets: Vec<i64>,
    to: i32,
}

fn seconds(dt: DateTime, offset: i32) -> i64 {
    let at = Offset::UTC.to_timestamp(dt).expect("in range").as_second();
    at - i64::from(offset)
}

fn read_offset(text: &str) -> i32 {
    let sign = if text.starts_with('-') { -1 } else { 1 };
    let digits = &text[1..];
    let n = |r: std::ops::Range<usize>| {
        digits
            .get(r)
            .map_or(0, |d| d.parse::<i32>().expect("digits"))
    };
    sign * (n(0..2) * 3600 + n(2..4) * 60 + n(4..6))
}

fn read_local(text: &str) -> DateTime {
    let n = |r: std::ops::Range<usize>| text[r].parse::<i32>().expect("digits");
    DateTime::new(
        n(0..4) as i16,
        n(4..6) as i8,
        n(6..8) as i8,
        n(9..11) as i8,
        n(11..13) as i8,
        n(13..15) as i8,
        0,
    )
    .expect("valid")
}

/// The days of `month` in `year` an RRULE of the forms `vtimezone` writes picks.
fn rule_days(rule: &str, year: i16, month: i8) -> Vec<i8> {
    let mut byday = "";
    let mut bymonthday: Vec<i32> = Vec::new();
    for part in rule.split(';') {
        if let Some(v) = part.strip_prefix("BYDAY=") {
            byday = v;
        }
        if let Some(v) = part.strip_prefix("BYMONTHDAY=") {
            bymonthday = v.split(',').map(|d| d.parse().expect("day")).collect();
        }
    }
    let wd = &byday[byday.len() - 2..];
    let nth: Option<i32> = byday[..byday.len() - 2].parse().ok();
    let len = DateTime::new(year, month, 1, 0, 0, 0, 0)
        .expect("valid")
        .days_in_month();
    let days: Vec<i8> = (1..=len)
        .filter(|&d| {
            let dt = DateTime::new(year, month, d, 0, 0, 0, 0).expect("valid");
            weekday(dt) == wd
        })
        .collect();
    match nth {
        Some(n) if n > 0 => days.get(n as usize - 1).copied().into_iter().collect(),
        Some(n) => days
            .len()
            .checked_sub(n.unsigned_abs() as usize)
            .and_then(|i| days.get(i).copied())
            .into_iter()
            .collect(),
        None => days
            .into_iter()
            .filter(|&d| {
                let from_end = i32::from(d) - i32::from(len) - 1;
                bymonthday.contains(&i32::from(d)) || bymonthday.contains(&from_end)
            })
            .collect(),
    }
}

fn observances(vtz: &Component, until_year: i16) -> Vec<Observance> {
    vtz.children()
        .map(|o| {
            let prop = |name: &str| {
                o.properties()
                    .find(|p| p.name == name)
                    .map(|p| p.value.clone())
            };
            let start = read_local(&prop("DTSTART").expect("DTSTART"));
            let from = read_offset(&prop("TZOFFSETFROM").expect("TZOFFSETFROM"));
            let to = read_offset(&prop("TZOFFSETTO").expect("TZOFFSETTO"));
            let mut onsets = vec![seconds(start, from)];
            if let Some(rule) = prop("RRULE") {
                assert!(rule.starts_with("FREQ=YEARLY;BYMONTH="), "{rule}");
                assert!(!rule.contains("UNTIL") && !rule.contains("COUNT"), "{rule}");
                for year in start.year() + 1..=until_year {
                    for day in rule_days(&rule, year, start.month()) {
                        let local = DateTime::new(
                            year,
                            start.month(),
                            day,
                            start.hour(),
                            start.minute(),
                            start.second(),
                            0,
                        )
                        .expect("valid");
                        onsets.push(seconds(local, from));
                    }
                }
            }
            Observance { onsets, to }
        })
        .collect()
}

/// The offset the VTIMEZONE gives at a UTC instant: that of the latest onset at or before it.
fn offset_at(obs: &[Observance], at: i64) -> Option<i32> {
    obs.iter()
        .flat_map(|o| o.onsets.iter().map(move |&t| (t, o.to)))
        .filter(|&(t, _)| t <= at)
        .max_by_key(|&(t, _)| t)
        .map(|(_, to)| to)
}

fn synthesise(iana: &str, from_year: i32) -> (String, Component) {
    let text = vtimezone(iana, from_year).expect("known zone");
    for line in text.split_inclusive('\n') {
        assert!(line.ends_with("\r\n") && line.len() <= 77, "{line:?}");
    }
    let (doc, warnings) = parse(text.as_bytes(), &Limits::default()).expect("parses");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(doc.components.len(), 1);
    let vtz = doc.components[0].clone();
    assert_eq!(vtz.name, "VTIMEZONE");
    let tzid = vtz.properties().find(|p| p.name == "TZID").expect("TZID");
    assert_eq!(tzid.value, iana);
    (text, vtz)
}

/// Compares the VTIMEZONE with the tz database every 5 days and an hour either side of every
/// change, from `from_year` to 2060 (well past the end of any explicit observance).
fn assert_matches_tzdb(iana: &str, from_year: i32) {
    let (_, vtz) = synthesise(iana, from_year);
    let obs = observances(&vtz, 2061);
    let tz = TimeZone::get(iana).expect("zone");
    let start = year_start(from_year as i16).expect("start").as_second();
    let end = year_start(2060).expect("end").as_second();
    let mut instants: Vec<i64> = (start..end).step_by(5 * 86_400).collect();
    for t in tz.following(Timestamp::from_second(start).expect("ts")) {
        let s = t.timestamp().as_second();
        if s >= end {
            break;
        }
        instants.extend([s - 3600, s - 1, s, s + 3600]);
    }
    for at in instants {
        let want = tz
            .to_offset(Timestamp::from_second(at).expect("ts"))
            .seconds();
        let got = offset_at(&obs, at);
        assert_eq!(
            got,
            Some(want),
            "{iana} from {from_year} at {}",
            Timestamp::from_second(at).expect("ts")
        );
    }
}

#[test]
fn berlin_is_two_rules_from_1996_on_and_matches_the_tz_database() {
    let (text, vtz) = synthesise("Europe/Berlin", 2020);
    assert_eq!(vtz.children().count(), 2, "{text}");
    assert!(
        text.contains(
            "BEGIN:STANDARD\r\nDTSTART:20191027T030000\r\nTZOFFSETFROM:+0200\r\n\
TZOFFSETTO:+0100\r\nTZNAME:CET\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "BEGIN:DAYLIGHT\r\nDTSTART:20200329T020000\r\nTZOFFSETFROM:+0100\r\n\
TZOFFSETTO:+0200\r\nTZNAME:CEST\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\n"
        ),
        "{text}"
    );
    assert_matches_tzdb("Europe/Berlin", 2020);
    // From 1970: the changes before 1996 (summer time ended in September) are explicit.
    let (text, _) = synthesise("Europe/Berlin", 1970);
    assert!(text.contains("DTSTART:19950924T030000\r\n"), "{text}");
    assert!(
        text.contains("RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU"),
        "{text}"
    );
    assert_matches_tzdb("Europe/Berlin", 1970);
}

#[test]
fn new_york_rules_are_second_and_first_sunday_since_2007() {
    let (text, _) = synthesise("America/New_York", 2000);
    assert!(
        text.contains("RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU\r\n"),
        "{text}"
    );
    assert!(
        text.contains("RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU\r\n"),
        "{text}"
    );
    // 2000..2006 had April and October changes, written out.
    assert!(text.contains("DTSTART:20060402T020000\r\n"), "{text}");
    assert_matches_tzdb("America/New_York", 2000);
}

#[test]
fn sydney_has_southern_hemisphere_rules() {
    let (text, _) = synthesise("Australia/Sydney", 2010);
    assert!(
        text.contains("RRULE:FREQ=YEARLY;BYMONTH=4;BYDAY=1SU\r\n"),
        "{text}"
    );
    assert!(
        text.contains("RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=1SU\r\n"),
        "{text}"
    );
    assert_matches_tzdb("Australia/Sydney", 2010);
}

#[test]
fn kolkata_without_daylight_saving_time_is_one_standard() {
    let (text, vtz) = synthesise("Asia/Kolkata", 2000);
    assert_eq!(vtz.children().count(), 1, "{text}");
    assert!(text.contains("BEGIN:STANDARD\r\n"), "{text}");
    assert!(text.contains("TZOFFSETTO:+0530\r\n"), "{text}");
    assert!(!text.contains("RRULE"), "{text}");
    assert_matches_tzdb("Asia/Kolkata", 2000);
    // The old name CLDR gives for India Standard Time works the same.
    assert_matches_tzdb("Asia/Calcutta", 2000);
}

#[test]
fn fixed_offset_zones_get_one_standard_from_the_start_year() {
    let (text, vtz) = synthesise("Etc/GMT-5", 2024);
    assert_eq!(vtz.children().count(), 1, "{text}");
    assert!(
        text.contains("TZOFFSETFROM:+0500\r\nTZOFFSETTO:+0500\r\n"),
        "{text}"
    );
    assert_matches_tzdb("Etc/UTC", 2024);
}

#[test]
fn zones_whose_rules_changed_or_stopped_match_the_tz_database() {
    // Moscow: DST until 2011, then +04, then +03 since 2014; Jerusalem: a Friday rule;
    // Casablanca: changes tied to Ramadan, explicit to the end; Nuuk: a rule at -01:00.
    for zone in [
        "Europe/Moscow",
        "Asia/Jerusalem",
        "Africa/Casablanca",
        "America/Nuuk",
        "America/Sao_Paulo",
        "Pacific/Auckland",
        "Europe/Dublin",
    ] {
        assert_matches_tzdb(zone, 2005);
    }
    let (text, _) = synthesise("Asia/Jerusalem", 2020);
    // Friday before the last Sunday: the 9th to the 3rd day from the end of March.
    assert!(
        text.contains("BYMONTH=3;BYDAY=FR;BYMONTHDAY=-9,-8,-7,-6,-5,-4,-3"),
        "{text}"
    );
}

#[test]
fn a_repeat_of_the_same_state_is_no_observance() {
    // Singapore: one change since 1970 (to +08 at the end of 1981), whatever the zoneinfo
    // files repeat at 2038-01-19.
    let (text, vtz) = synthesise("Asia/Singapore", 2008);
    assert_eq!(vtz.children().count(), 1, "{text}");
    assert!(text.contains("DTSTART:19811231T233000\r\n"), "{text}");
}

#[test]
fn unknown_zones_have_no_vtimezone() {
    assert_eq!(vtimezone("W. Europe Standard Time", 2024), None);
    assert_eq!(vtimezone("Mars/Olympus_Mons", 2024), None);
}

#[test]
fn offsets_with_seconds_keep_them() {
    assert_eq!(utc_offset(3600), "+0100");
    assert_eq!(utc_offset(-16200), "-0430");
    assert_eq!(utc_offset(3208), "+005328");
    assert_eq!(utc_offset(0), "+0000");
}
