//! The agenda's list: order, the calendar's zone, series expanded within the span, moved
//! occurrences, past and cancelled events left out, the bound.

use super::*;

/// 2026-12-01T12:00:00Z.
const NOW: i64 = 1_796_126_400;

fn feed(header: &str, events: &str) -> Vec<u8> {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n{header}{events}END:VCALENDAR\r\n"
    )
    .into_bytes()
}

fn event(uid: &str, summary: &str, lines: &str) -> String {
    format!("BEGIN:VEVENT\r\nUID:{uid}\r\nSUMMARY:{summary}\r\n{lines}END:VEVENT\r\n")
}

fn list(bytes: &[u8], days: u32) -> Agenda {
    let request = AgendaRequest {
        now: NOW,
        days,
        max_events: MAX_AGENDA_EVENTS,
    };
    agenda(bytes, &request, &Limits::default(), None).expect("agenda")
}

fn summaries(a: &Agenda) -> Vec<String> {
    a.events.iter().map(|e| e.summary.clone()).collect()
}

#[test]
fn events_come_in_order_of_start_and_past_ones_are_left_out() {
    let events = [
        event(
            "b",
            "Later",
            "DTSTART:20261203T090000Z\r\nDTEND:20261203T100000Z\r\n",
        ),
        event(
            "a",
            "Sooner",
            "DTSTART:20261202T090000Z\r\nDTEND:20261202T100000Z\r\n",
        ),
        event(
            "p",
            "Past",
            "DTSTART:20261130T090000Z\r\nDTEND:20261130T100000Z\r\n",
        ),
        event(
            "o",
            "Ongoing",
            "DTSTART:20261201T110000Z\r\nDTEND:20261201T130000Z\r\n",
        ),
        event(
            "c",
            "Cancelled",
            "DTSTART:20261202T090000Z\r\nSTATUS:CANCELLED\r\n",
        ),
        event("f", "Too far", "DTSTART:20270601T090000Z\r\n"),
    ]
    .concat();
    let a = list(&feed("", &events), 90);
    assert_eq!(summaries(&a), ["Ongoing", "Sooner", "Later"]);
    assert_eq!(a.zone, "UTC");
    assert!(!a.more);
}

#[test]
fn the_zone_is_the_feeds_and_days_follow_it() {
    // 23:30 UTC on 1 December is 00:30 on 2 December in Berlin.
    let events = event(
        "a",
        "Late",
        "DTSTART:20261201T233000Z\r\nDTEND:20261202T000000Z\r\n",
    );
    let a = list(&feed("X-WR-TIMEZONE:Europe/Berlin\r\n", &events), 30);
    assert_eq!(a.zone, "Europe/Berlin");
    let e = &a.events[0];
    assert_eq!(iso_date(a.day_of(e)), "2026-12-02");
    let When::Timed { start, .. } = e.when else {
        panic!("timed")
    };
    assert_eq!(a.rfc3339(start), "2026-12-02T00:30:00+01:00");
    assert_eq!(a.clock(start), "00:30");
}

#[test]
fn without_x_wr_timezone_the_first_tzid_names_the_zone() {
    let events = event(
        "a",
        "Tea",
        "DTSTART;TZID=America/New_York:20261202T090000\r\nDURATION:PT1H\r\n",
    );
    let a = list(&feed("", &events), 30);
    assert_eq!(a.zone, "America/New_York");
    let When::Timed { start, end } = a.events[0].when else {
        panic!("timed")
    };
    assert_eq!(a.rfc3339(start), "2026-12-02T09:00:00-05:00");
    assert_eq!(end - start, 3600);
}

#[test]
fn a_series_is_expanded_within_the_span_with_its_moved_and_excluded_occurrences() {
    let events = [
        event(
            "s",
            "Standup",
            "DTSTART:20200106T090000Z\r\nDTEND:20200106T091500Z\r\nRRULE:FREQ=DAILY\r\n\
             EXDATE:20261203T090000Z\r\n",
        ),
        event(
            "s",
            "Standup moved",
            "RECURRENCE-ID:20261204T090000Z\r\nDTSTART:20261204T140000Z\r\n\
             DTEND:20261204T141500Z\r\n",
        ),
    ]
    .concat();
    let a = list(&feed("", &events), 4);
    // From 1 December 12:00: the 1st is over; the 3rd excluded; the 4th moved to 14:00.
    assert_eq!(
        summaries(&a),
        ["Standup", "Standup moved", "Standup"],
        "{:?}",
        a.events
    );
    let starts: Vec<String> = a
        .events
        .iter()
        .map(|e| match e.when {
            When::Timed { start, .. } => a.rfc3339(start),
            When::AllDay { .. } => String::new(),
        })
        .collect();
    assert_eq!(
        starts,
        [
            "2026-12-02T09:00:00+00:00",
            "2026-12-04T14:00:00+00:00",
            "2026-12-05T09:00:00+00:00"
        ]
    );
}

#[test]
fn all_day_events_run_to_their_end_day_and_come_first_on_their_day() {
    let events = [
        event("t", "Timed", "DTSTART:20261202T080000Z\r\n"),
        event(
            "d",
            "Holiday",
            "DTSTART;VALUE=DATE:20261202\r\nDTEND;VALUE=DATE:20261204\r\n",
        ),
        event("y", "Yesterday", "DTSTART;VALUE=DATE:20261130\r\n"),
    ]
    .concat();
    let a = list(&feed("", &events), 30);
    assert_eq!(summaries(&a), ["Holiday", "Timed"]);
    assert_eq!(
        a.events[0].when,
        When::AllDay {
            start: days_from_civil(2026, 12, 2),
            end: days_from_civil(2026, 12, 4)
        }
    );
}

#[test]
fn the_list_is_bounded() {
    let events = event(
        "s",
        "Often",
        "DTSTART:20261201T130000Z\r\nRRULE:FREQ=HOURLY\r\n",
    );
    let request = AgendaRequest {
        now: NOW,
        days: 90,
        max_events: 10,
    };
    let a = agenda(&feed("", &events), &request, &Limits::default(), None).expect("agenda");
    assert_eq!(a.events.len(), 10);
    assert!(a.more);
}

#[test]
fn texts_are_unescaped_and_blank_ones_absent() {
    let events = event(
        "a",
        "Tea\\, cake",
        "DTSTART:20261202T090000Z\r\nLOCATION: \r\nDESCRIPTION:Line one\\nline two\r\n",
    );
    let a = list(&feed("", &events), 30);
    let e = &a.events[0];
    assert_eq!(e.summary, "Tea, cake");
    assert_eq!(e.location, None);
    assert_eq!(e.description.as_deref(), Some("Line one\nline two"));
}
