//! The calendar objects of a CalDAV answer (each `calendar-data` a VCALENDAR of one event, its
//! exceptions and its time zones) made one VCALENDAR, which the engine then reads as a fetched
//! feed: the components in order, each VTIMEZONE once (by its TZID), within the feed's size
//! bound. Lines are copied as they are; a folded line's continuation starts with a space, so it
//! is never taken for a `BEGIN:` or `END:`.

/// The lines Hearth writes around the combined components.
const HEAD: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth//CalDAV//EN\r\n";
const TAIL: &str = "END:VCALENDAR\r\n";

/// Why the objects could not be combined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CombineError {
    #[error("the calendar's events come to more than {0} bytes")]
    TooLarge(usize),
}

/// `objects` as one VCALENDAR of at most `max_bytes`.
pub fn combine<'a>(
    objects: impl IntoIterator<Item = &'a str>,
    max_bytes: usize,
) -> Result<Vec<u8>, CombineError> {
    let mut zones: Vec<u8> = Vec::new();
    let mut zone_ids: Vec<String> = Vec::new();
    let mut others: Vec<u8> = Vec::new();
    for object in objects {
        for component in components(object) {
            let size = HEAD.len() + TAIL.len() + zones.len() + others.len() + component.len();
            if size > max_bytes {
                return Err(CombineError::TooLarge(max_bytes));
            }
            if component.name.eq_ignore_ascii_case("VTIMEZONE") {
                let id = component.tzid().unwrap_or_default();
                if zone_ids.contains(&id) {
                    continue;
                }
                zone_ids.push(id);
                component.write_to(&mut zones);
            } else {
                component.write_to(&mut others);
            }
        }
    }
    let mut out = Vec::with_capacity(HEAD.len() + zones.len() + others.len() + TAIL.len());
    out.extend_from_slice(HEAD.as_bytes());
    out.extend_from_slice(&zones);
    out.extend_from_slice(&others);
    out.extend_from_slice(TAIL.as_bytes());
    Ok(out)
}

/// A component directly inside a VCALENDAR: its name and its lines (`BEGIN` to `END`).
struct Component<'a> {
    name: &'a str,
    lines: Vec<&'a str>,
}

impl Component<'_> {
    fn len(&self) -> usize {
        self.lines.iter().map(|l| l.len() + 2).sum()
    }

    fn tzid(&self) -> Option<String> {
        self.lines.iter().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            let name = name.split(';').next().unwrap_or_default();
            name.eq_ignore_ascii_case("TZID")
                .then(|| value.trim().to_owned())
        })
    }

    fn write_to(&self, out: &mut Vec<u8>) {
        for line in &self.lines {
            out.extend_from_slice(line.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
    }
}

/// The components at the top level of every VCALENDAR in `text`; what lies outside one, and a
/// component left open at the end, is dropped.
fn components(text: &str) -> Vec<Component<'_>> {
    let mut found = Vec::new();
    let mut in_calendar = false;
    let mut current: Option<Component<'_>> = None;
    let mut depth = 0usize;
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let upper_begin = value_of(line, "BEGIN");
        let upper_end = value_of(line, "END");
        if !in_calendar {
            in_calendar = upper_begin.is_some_and(|v| v.eq_ignore_ascii_case("VCALENDAR"));
            continue;
        }
        match current.as_mut() {
            None => {
                if let Some(name) = upper_begin {
                    current = Some(Component {
                        name,
                        lines: vec![line],
                    });
                    depth = 1;
                } else if upper_end.is_some_and(|v| v.eq_ignore_ascii_case("VCALENDAR")) {
                    in_calendar = false;
                }
            }
            Some(component) => {
                component.lines.push(line);
                if upper_begin.is_some() {
                    depth += 1;
                } else if upper_end.is_some() {
                    depth -= 1;
                    if depth == 0 {
                        found.extend(current.take());
                    }
                }
            }
        }
    }
    found
}

/// The value of a `BEGIN:` or `END:` line (the name compared without case).
fn value_of<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let (key, value) = line.split_once(':')?;
    key.eq_ignore_ascii_case(name).then(|| value.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZONE: &str = "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n";

    fn object(event: &str) -> String {
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\n{ZONE}BEGIN:VEVENT\r\nUID:{event}\r\nSUMMARY:a long\r\n  folded END:VEVENT line\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        )
    }

    #[test]
    fn objects_become_one_calendar_with_each_time_zone_once() {
        let (a, b) = (object("a"), object("b"));
        let out = combine([a.as_str(), b.as_str()], 1 << 20).expect("fits");
        let text = String::from_utf8(out).expect("text");
        assert!(text.starts_with(HEAD), "{text}");
        assert!(text.ends_with(TAIL), "{text}");
        assert_eq!(text.matches("BEGIN:VTIMEZONE").count(), 1, "{text}");
        assert_eq!(text.matches("BEGIN:VEVENT").count(), 2, "{text}");
        assert_eq!(text.matches("BEGIN:VCALENDAR").count(), 1, "{text}");
        assert!(text.contains("UID:a\r\n") && text.contains("UID:b\r\n"));
        assert!(text.contains("\r\n  folded END:VEVENT line\r\n"), "{text}");
        // The time zone comes before the events that use it.
        assert!(text.find("VTIMEZONE") < text.find("VEVENT"));
    }

    #[test]
    fn lf_only_objects_and_nothing_at_all_read_too() {
        let lf = object("c").replace("\r\n", "\n");
        let out = combine([lf.as_str()], 1 << 20).expect("fits");
        let text = String::from_utf8(out).expect("text");
        assert!(text.contains("BEGIN:VEVENT\r\nUID:c\r\n"), "{text}");
        let empty = combine(std::iter::empty(), 1 << 20).expect("fits");
        assert_eq!(empty, format!("{HEAD}{TAIL}").into_bytes());
    }

    #[test]
    fn the_feed_bound_holds() {
        let objects: Vec<String> = (0..100).map(|i| object(&i.to_string())).collect();
        let result = combine(objects.iter().map(String::as_str), 4096);
        assert_eq!(result, Err(CombineError::TooLarge(4096)));
    }
}
