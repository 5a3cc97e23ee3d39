//! The agenda written out (`GET /cal/{id}` and `GET /cal/{id}.json`): a page that reads without
//! JavaScript (its styles inline, allowed by their hash, light and dark by the reader's
//! preference, phone first; every text escaped), and the JSON of the same events. Pure: an
//! [`Agenda`] and the calendar's addresses in, bytes out.

use std::fmt::Write;
use std::sync::LazyLock;

use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::calendar::{agenda::date_parts, agenda::iso_date, Agenda, AgendaEvent, When};

/// The page's styles, inline so that it is one request, allowed by their hash.
const STYLE: &str = include_str!("agenda_page.css");

/// The copy button: shown, and wired, only where scripts run (the address is a selectable field
/// without it).
const SCRIPT: &str = "document.documentElement.classList.add('js');\
document.querySelectorAll('[data-copy]').forEach(function(b){b.addEventListener('click',function(){\
var f=document.getElementById(b.getAttribute('data-copy'));var s=document.getElementById('copied');\
f.select();var done=function(){s.textContent='Address copied';};\
if(navigator.clipboard){navigator.clipboard.writeText(f.value).then(done,function(){s.textContent='Select the address and copy it';});}\
else{s.textContent='Select the address and copy it';}});});";

/// The page's Content-Security-Policy: its own inline style and script by hash, nothing else
/// loaded (but reads of its own site, `connect-src 'self'`, which crawlers' tools such as
/// Lighthouse make from the page for `/robots.txt`), and any site may frame it (the one page
/// that says so; see `http::headers`).
pub static PAGE_POLICY: LazyLock<String> = LazyLock::new(|| {
    let hash = |text: &str| base64(&Sha256::digest(text.as_bytes()));
    format!(
        "default-src 'none'; style-src 'sha256-{}'; script-src 'sha256-{}'; img-src data:; \
         connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *",
        hash(STYLE),
        hash(SCRIPT)
    )
});

/// Standard base64 with padding (a CSP hash source).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Where the calendar is: its hosted feed's address.
pub struct Addresses {
    /// `https://host/cal/{id}.ics`.
    pub feed: String,
}

impl Addresses {
    fn webcal(&self) -> String {
        let rest = self
            .feed
            .strip_prefix("https://")
            .or_else(|| self.feed.strip_prefix("http://"))
            .unwrap_or(&self.feed);
        format!("webcal://{rest}")
    }

    fn google(&self) -> String {
        format!(
            "https://calendar.google.com/calendar/render?cid={}",
            utf8_percent_encode(&self.webcal(), NON_ALPHANUMERIC)
        )
    }
}

/// Text for HTML, escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `Wednesday 2 December`.
fn day_label(days: i64) -> String {
    let (weekday, month, day) = date_parts(days);
    let weekday = WEEKDAYS.get(weekday as usize).copied().unwrap_or_default();
    let month = MONTHS
        .get(month.saturating_sub(1) as usize)
        .copied()
        .unwrap_or_default();
    format!("{weekday} {day} {month}")
}

/// An event's time as its row says it: `09:00–10:00`, `All day`, `All day, until Friday 4
/// December`, or when it ends on a later day, `09:00 – Friday 4 December 10:00`.
fn time_label(agenda: &Agenda, event: &AgendaEvent) -> String {
    match event.when {
        When::AllDay { start, end } if end - start <= 1 => "All day".to_owned(),
        When::AllDay { end, .. } => format!("All day, until {}", day_label(end - 1)),
        When::Timed { start, end } if end == start => agenda.clock(start),
        When::Timed { start, end } => {
            let first = agenda.day_of(&AgendaEvent {
                when: When::Timed { start, end: start },
                ..event.clone()
            });
            let last = agenda.day_of(&AgendaEvent {
                when: When::Timed {
                    start: end - 1,
                    end: end - 1,
                },
                ..event.clone()
            });
            if first == last {
                format!("{}–{}", agenda.clock(start), agenda.clock(end))
            } else {
                format!(
                    "{} – {} {}",
                    agenda.clock(start),
                    day_label(last),
                    agenda.clock(end)
                )
            }
        }
    }
}

/// The agenda page of calendar `name`.
pub fn page(name: &str, agenda: &Agenda, addresses: &Addresses) -> String {
    let name = escape(name);
    let mut html = String::with_capacity(4096 + agenda.events.len() * 256);
    let _ = write!(
        html,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<meta name=\"color-scheme\" content=\"light dark\">\
<title>{name} · coming events</title>\
<meta name=\"description\" content=\"The coming events of {name}, and how to subscribe.\">\
<link rel=\"icon\" href=\"data:,\"><style>{STYLE}</style></head><body><main>\
<header><h1>{name}</h1><p class=\"muted\">Times in {zone}.</p></header>",
        zone = escape(&agenda.zone),
    );
    if agenda.events.is_empty() {
        html.push_str("<p class=\"empty\">No events coming up.</p>");
    }
    let mut day = None;
    for event in &agenda.events {
        let this = agenda.day_of(event);
        if day != Some(this) {
            if day.is_some() {
                html.push_str("</ol></section>");
            }
            day = Some(this);
            let _ = write!(
                html,
                "<section class=\"day\"><h2><time datetime=\"{}\">{}</time></h2><ol>",
                iso_date(this),
                day_label(this)
            );
        }
        let _ = write!(
            html,
            "<li><p class=\"when\">{}</p><h3>{}</h3>",
            escape(&time_label(agenda, event)),
            escape(if event.summary.is_empty() {
                "(no title)"
            } else {
                &event.summary
            })
        );
        if let Some(location) = &event.location {
            let _ = write!(html, "<p class=\"where\">{}</p>", escape(location));
        }
        if let Some(description) = &event.description {
            let _ = write!(html, "<p class=\"what\">{}</p>", escape(description));
        }
        html.push_str("</li>");
    }
    if day.is_some() {
        html.push_str("</ol></section>");
    }
    if agenda.more {
        let _ = write!(
            html,
            "<p class=\"muted\">The first {} events are shown.</p>",
            agenda.events.len()
        );
    }
    let _ = write!(
        html,
        "<p class=\"muted\">Events until {}.</p>\
<section class=\"subscribe\" aria-labelledby=\"subscribe\"><h2 id=\"subscribe\">Subscribe</h2>\
<ul><li><a href=\"{webcal}\">Subscribe in your calendar app</a></li>\
<li><a href=\"{google}\" target=\"_blank\" rel=\"noopener\">Add to Google Calendar</a></li></ul>\
<label for=\"address\">The calendar’s address, to copy</label>\
<div class=\"copy\"><input id=\"address\" type=\"url\" readonly value=\"{feed}\">\
<button type=\"button\" data-copy=\"address\">Copy</button></div>\
<p id=\"copied\" role=\"status\"></p></section></main><script>{SCRIPT}</script></body></html>",
        day_label(agenda.last_day),
        webcal = escape(&addresses.webcal()),
        google = escape(&addresses.google()),
        feed = escape(&addresses.feed),
    );
    html
}

/// The agenda as JSON, for a site that draws its own.
pub fn json(name: &str, agenda: &Agenda) -> Value {
    let events: Vec<Value> = agenda
        .events
        .iter()
        .map(|e| {
            let (start, end, all_day) = match e.when {
                When::AllDay { start, end } => (iso_date(start), iso_date(end), true),
                When::Timed { start, end } => (agenda.rfc3339(start), agenda.rfc3339(end), false),
            };
            json!({
                "uid": e.uid,
                "summary": e.summary,
                "start": start,
                "end": end,
                "allDay": all_day,
                "location": e.location,
                "description": e.description,
            })
        })
        .collect();
    json!({
        "calendar": name,
        "timeZone": agenda.zone,
        "from": iso_date(agenda.first_day),
        "until": iso_date(agenda.last_day),
        "more": agenda.more,
        "events": events,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::{agenda, AgendaRequest, Limits};

    fn sample() -> Agenda {
        let feed = b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a\r\n\
SUMMARY:<b>Tea</b> & \"cake\"\r\nDTSTART:20261202T090000Z\r\nDTEND:20261202T100000Z\r\n\
DESCRIPTION:<script>alert(1)</script>\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let request = AgendaRequest {
            now: 1_796_126_400,
            days: 30,
            max_events: 10,
        };
        agenda(feed, &request, &Limits::default(), None).expect("agenda")
    }

    #[test]
    fn every_text_is_escaped_and_the_links_are_made_from_the_feeds_address() {
        let addresses = Addresses {
            feed: "https://example.org/cal/x.ics".to_owned(),
        };
        let html = page("<Club>", &sample(), &addresses);
        assert!(
            html.contains("&lt;b&gt;Tea&lt;/b&gt; &amp; &quot;cake&quot;"),
            "{html}"
        );
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!html.contains("<Club>") && html.contains("&lt;Club&gt;"));
        assert!(html.contains("href=\"webcal://example.org/cal/x.ics\""));
        assert!(html.contains("cid=webcal%3A%2F%2Fexample%2Eorg%2Fcal%2Fx%2Eics"));
        assert!(html.contains("<time datetime=\"2026-12-02\">Wednesday 2 December</time>"));
        assert!(html.contains("09:00–10:00"));
    }

    #[test]
    fn the_json_names_the_zone_and_each_field() {
        let j = json("Club", &sample());
        assert_eq!(j["timeZone"], "UTC");
        let e = &j["events"][0];
        assert_eq!(e["uid"], "a");
        assert_eq!(e["start"], "2026-12-02T09:00:00+00:00");
        assert_eq!(e["end"], "2026-12-02T10:00:00+00:00");
        assert_eq!(e["allDay"], false);
        assert!(e["location"].is_null());
    }

    #[test]
    fn base64_is_the_standard_alphabet_with_padding() {
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(base64(b"M"), "TQ==");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }

    #[test]
    fn the_policy_allows_framing_and_only_the_pages_own_inline_code() {
        assert!(PAGE_POLICY.ends_with("frame-ancestors *"));
        assert!(!PAGE_POLICY.contains("unsafe-inline"));
    }
}
