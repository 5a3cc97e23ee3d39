//! A deterministic feed generator for benchmarks: realistic events of about 1.45 KB each
//! (VTIMEZONE, TZID parameters, RRULE, long folded non-ASCII DESCRIPTIONs, ATTENDEEs, VALARMs).

use hearth_engine::{escape_text, write_folded};

const WORDS: &[&str] = &[
    "réunion",
    "équipe",
    "planning",
    "budget",
    "Zürich",
    "café",
    "naïve",
    "façade",
    "projet",
    "Øresund",
    "crème",
    "déjà-vu",
    "señor",
    "año",
    "straße",
    "weekly",
    "review",
    "roadmap",
    "design",
    "Kraków",
    "Łódź",
    "sprint",
    "retro",
    "ĳssel",
    "coördinatie",
    "über",
    "piñata",
];

const TIMEZONE: &str = "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nX-LIC-LOCATION:Europe/Berlin\r\n\
BEGIN:DAYLIGHT\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST\r\n\
DTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\n\
BEGIN:STANDARD\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nTZNAME:CET\r\n\
DTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r\n\
END:VTIMEZONE\r\n";

/// A small linear congruential generator: the same feed on every machine and run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }

    fn words(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| WORDS[self.next() % WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn prop(out: &mut Vec<u8>, line: &str) {
    write_folded(out, line.as_bytes());
}

/// A feed with `events` events.
pub fn feed(events: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(events * 1500 + 1024);
    out.extend_from_slice(
        b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth//gen_feed//EN\r\nCALSCALE:GREGORIAN\r\n\
METHOD:PUBLISH\r\nX-WR-CALNAME:Generated\r\nX-WR-TIMEZONE:Europe/Berlin\r\n",
    );
    out.extend_from_slice(TIMEZONE.as_bytes());
    let mut rng = Lcg(42);
    for i in 0..events {
        let month = 1 + i % 12;
        let day = 1 + i % 28;
        let hour = 8 + i % 10;
        out.extend_from_slice(b"BEGIN:VEVENT\r\n");
        prop(&mut out, &format!("UID:event-{i:07}@gen.hearth.example"));
        prop(&mut out, "DTSTAMP:20240101T000000Z");
        prop(&mut out, &format!("CREATED:20231201T{:02}0000Z", i % 24));
        prop(&mut out, "LAST-MODIFIED:20231215T120000Z");
        prop(
            &mut out,
            &format!("DTSTART;TZID=Europe/Berlin:2024{month:02}{day:02}T{hour:02}0000"),
        );
        prop(
            &mut out,
            &format!(
                "DTEND;TZID=Europe/Berlin:2024{month:02}{day:02}T{:02}3000",
                hour + 1
            ),
        );
        if i % 3 == 0 {
            prop(&mut out, "RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE,FR");
        }
        let summary = format!("{} n°{i} — {}", rng.words(3), rng.words(2));
        prop(&mut out, &format!("SUMMARY:{}", escape_text(&summary)));
        let location = format!("Salle {}, Bâtiment B, 12 rue de la Paix, Paris", i % 40);
        prop(&mut out, &format!("LOCATION:{}", escape_text(&location)));
        let description = format!(
            "{}.\nOrdre du jour: {}, {}.\nLien: https://meet.example.org/r/{i:07}\n{}",
            rng.words(20),
            rng.words(12),
            rng.words(12),
            rng.words(18)
        );
        prop(
            &mut out,
            &format!("DESCRIPTION:{}", escape_text(&description)),
        );
        prop(
            &mut out,
            "ORGANIZER;CN=\"Zoë Müller\":mailto:zoe.muller@example.org",
        );
        for a in 0..2 {
            prop(
                &mut out,
                &format!(
                    "ATTENDEE;CUTYPE=INDIVIDUAL;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION;\
RSVP=TRUE;CN=\"Attendee {a}, Team {}\":mailto:attendee{a}.{}@example.org",
                    i % 7,
                    i % 100
                ),
            );
        }
        prop(&mut out, "CATEGORIES:Travail,Équipe");
        prop(&mut out, "SEQUENCE:0");
        prop(&mut out, "STATUS:CONFIRMED");
        prop(&mut out, "TRANSP:OPAQUE");
        out.extend_from_slice(b"BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Rappel\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n");
        out.extend_from_slice(b"END:VEVENT\r\n");
    }
    out.extend_from_slice(b"END:VCALENDAR\r\n");
    out
}
