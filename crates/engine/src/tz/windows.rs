//! Windows time zone names (as Outlook and Exchange write them in TZID) to IANA names, from
//! Unicode CLDR's windowsZones mapping (cldr/windowsZones.xml, licence in cldr/LICENSE).

use std::sync::OnceLock;

/// CLDR's file as released; read once, on first use.
const WINDOWS_ZONES: &str = include_str!("cldr/windowsZones.xml");

/// One Windows zone: its name, the IANA zone CLDR gives for the world ("001"), and the display
/// name Windows shows for it ("(UTC+01:00) Amsterdam, Berlin, …"), folded for comparison.
struct Zone {
    windows: &'static str,
    iana: &'static str,
    display: Option<String>,
}

fn zones() -> &'static [Zone] {
    static ZONES: OnceLock<Vec<Zone>> = OnceLock::new();
    ZONES.get_or_init(|| parse(WINDOWS_ZONES))
}

/// Reads the `<mapZone other=… territory="001" type=…/>` lines, each with the display name in
/// the comment that heads its group.
fn parse(xml: &'static str) -> Vec<Zone> {
    let mut zones = Vec::new();
    let mut display: Option<&str> = None;
    for line in xml.lines() {
        let line = line.trim();
        if let Some(comment) = line
            .strip_prefix("<!--")
            .and_then(|c| c.strip_suffix("-->"))
        {
            let comment = comment.trim();
            if comment.starts_with("(UTC") {
                display = Some(comment);
            }
            continue;
        }
        if !line.starts_with("<mapZone ") || attribute(line, "territory") != Some("001") {
            continue;
        }
        let (Some(windows), Some(types)) = (attribute(line, "other"), attribute(line, "type"))
        else {
            continue;
        };
        let Some(iana) = types.split_whitespace().next() else {
            continue;
        };
        zones.push(Zone {
            windows,
            iana,
            display: display.take().map(fold_display),
        });
    }
    zones
}

/// The value of `name="…"` in one XML element line.
fn attribute<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let at = line.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = line[at..].find('"')?;
    Some(&line[at..at + len])
}

/// A display name folded for comparison: lower case, blanks collapsed, and the older Windows
/// spelling `(GMT+01:00)` / `(GMT)` / `(UTC)` read as `(UTC+01:00)` / `(UTC+00:00)`.
fn fold_display(name: &str) -> String {
    let collapsed = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = collapsed.to_lowercase();
    let lower = match lower.strip_prefix("(gmt") {
        Some(rest) => format!("(utc{rest}"),
        None => lower,
    };
    match lower.strip_prefix("(utc)") {
        Some(rest) => format!("(utc+00:00){rest}"),
        None => lower,
    }
}

/// The IANA zone for a Windows zone name: the name itself (`W. Europe Standard Time`, any case),
/// Outlook's numbered copies of it (`GMT Standard Time 1`), or its display name
/// (`(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna`, also with `GMT`, or without
/// the offset). `None` for anything else, IANA names included.
pub fn windows_to_iana(name: &str) -> Option<&'static str> {
    let name = name.trim().trim_matches('"').trim();
    if name.is_empty() {
        return None;
    }
    let by_name = |n: &str| {
        zones()
            .iter()
            .find(|z| z.windows.eq_ignore_ascii_case(n))
            .map(|z| z.iana)
    };
    if let Some(iana) = by_name(name) {
        return Some(iana);
    }
    // Outlook numbers the copies it makes of a zone: "GMT Standard Time 1", "… 2".
    let unnumbered = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if unnumbered.len() < name.len() && unnumbered.ends_with(' ') {
        if let Some(iana) = by_name(unnumbered.trim_end()) {
            return Some(iana);
        }
    }
    let folded = fold_display(name);
    if name.starts_with('(') {
        return zones()
            .iter()
            .find(|z| z.display.as_deref() == Some(folded.as_str()))
            .map(|z| z.iana);
    }
    // Some writers leave the offset out: "Kuala Lumpur, Singapore".
    zones()
        .iter()
        .find(|z| {
            z.display
                .as_deref()
                .and_then(|d| d.split_once(") "))
                .is_some_and(|(_, places)| places == folded)
        })
        .map(|z| z.iana)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_names_map_to_cldr_world_zones() {
        assert_eq!(
            windows_to_iana("W. Europe Standard Time"),
            Some("Europe/Berlin")
        );
        assert_eq!(
            windows_to_iana("Eastern Standard Time"),
            Some("America/New_York")
        );
        assert_eq!(
            windows_to_iana("AUS Eastern Standard Time"),
            Some("Australia/Sydney")
        );
        assert_eq!(
            windows_to_iana("India Standard Time"),
            Some("Asia/Calcutta")
        );
        assert_eq!(windows_to_iana("UTC"), Some("Etc/UTC"));
        // Any case, blanks and quotes around it.
        assert_eq!(
            windows_to_iana(" \"gmt standard time\" "),
            Some("Europe/London")
        );
    }

    #[test]
    fn outlooks_numbered_variants_map_like_the_zone() {
        assert_eq!(
            windows_to_iana("GMT Standard Time 1"),
            Some("Europe/London")
        );
        assert_eq!(
            windows_to_iana("W. Europe Standard Time 12"),
            Some("Europe/Berlin")
        );
        // "UTC-11" is a zone of its own, not "UTC" numbered.
        assert_eq!(windows_to_iana("UTC-11"), Some("Etc/GMT+11"));
        assert_eq!(windows_to_iana("UTC+12"), Some("Etc/GMT-12"));
        assert_eq!(windows_to_iana("Standard Time 1"), None);
    }

    #[test]
    fn display_names_map_also_in_the_older_gmt_spelling() {
        assert_eq!(
            windows_to_iana("(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna"),
            Some("Europe/Berlin")
        );
        assert_eq!(
            windows_to_iana("(GMT+01:00) Amsterdam,  Berlin, Bern, Rome, Stockholm, Vienna"),
            Some("Europe/Berlin")
        );
        assert_eq!(
            windows_to_iana("(UTC-05:00) Eastern Time (US & Canada)"),
            Some("America/New_York")
        );
        assert_eq!(
            windows_to_iana("(UTC+00:00) Dublin, Edinburgh, Lisbon, London"),
            Some("Europe/London")
        );
        assert_eq!(
            windows_to_iana("(UTC) Dublin, Edinburgh, Lisbon, London"),
            Some("Europe/London")
        );
        assert_eq!(windows_to_iana("(UTC+01:00) Nowhere"), None);
        // Without the offset, as some writers put it.
        assert_eq!(
            windows_to_iana("Kuala Lumpur, Singapore"),
            Some("Asia/Singapore")
        );
        assert_eq!(windows_to_iana("Nowhere, Elsewhere"), None);
    }

    #[test]
    fn iana_names_and_unknown_text_are_not_windows_names() {
        assert_eq!(windows_to_iana("Europe/Berlin"), None);
        assert_eq!(windows_to_iana("Customized Time Zone"), None);
        assert_eq!(windows_to_iana(""), None);
    }

    #[test]
    fn the_cldr_file_reads_completely() {
        // CLDR 41 lists 139 Windows zones; each has a display name.
        assert!(zones().len() >= 139, "{}", zones().len());
        assert!(zones().iter().all(|z| z.display.is_some()));
        assert!(zones().iter().all(|z| z.iana.contains('/')));
    }
}
