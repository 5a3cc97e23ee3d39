//! A message as it is sent: plain text (the check's words, addresses cut to their host, at most
//! [`MAX_BODY`] bytes) with the `Title`, `Priority` and `Tags` headers ntfy reads (any webhook
//! takes them or ignores them).

use crate::doctor::Status;

/// ntfy keeps a message up to 4096 bytes as text (longer ones become attachments).
pub const MAX_BODY: usize = 4000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The check turned bad.
    Bad(Status),
    /// It stayed bad for a day since the last message.
    StillBad(Status),
    /// It was said to be bad and is good again.
    Recovered,
    /// The owner page's "Send a test notification".
    Test,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub check: String,
    pub kind: Kind,
    pub body: String,
}

impl Message {
    /// A message about `check`, its findings' words one per line.
    pub fn about<'a>(check: &str, kind: Kind, words: impl Iterator<Item = &'a str>) -> Message {
        let lines: Vec<String> = words.map(without_addresses).collect();
        Message {
            check: check.to_owned(),
            kind,
            body: bounded(format!("{check}: {}", lines.join("\n"))),
        }
    }

    pub fn test(site: &str) -> Message {
        Message {
            check: "test".to_owned(),
            kind: Kind::Test,
            body: format!(
                "A test notification from Hearth at {site}: when a check of `hearth doctor` turns bad, or good again, a message like this one arrives here."
            ),
        }
    }

    /// The `Title` header: what happened, on which site.
    pub fn title(&self, site: &str) -> String {
        let what = match self.kind {
            Kind::Bad(Status::Fail) => format!("{} failing", self.check),
            Kind::Bad(_) => format!("{} needs attention", self.check),
            Kind::StillBad(Status::Fail) => format!("{} still failing", self.check),
            Kind::StillBad(_) => format!("{} still needs attention", self.check),
            Kind::Recovered => format!("{} ok again", self.check),
            Kind::Test => "test notification".to_owned(),
        };
        header_text(&format!("Hearth ({site}): {what}"))
    }

    /// The `Priority` header, in ntfy's words.
    pub fn priority(&self) -> &'static str {
        match self.kind {
            Kind::Bad(Status::Fail) | Kind::StillBad(Status::Fail) => "high",
            Kind::Bad(_) | Kind::StillBad(_) | Kind::Test => "default",
            Kind::Recovered => "low",
        }
    }

    /// The `Tags` header: ntfy shows known tags as emoji before the title.
    pub fn tags(&self) -> &'static str {
        match self.kind {
            Kind::Bad(Status::Fail) | Kind::StillBad(Status::Fail) => "rotating_light,hearth",
            Kind::Bad(_) | Kind::StillBad(_) => "warning,hearth",
            Kind::Recovered => "white_check_mark,hearth",
            Kind::Test => "bell,hearth",
        }
    }
}

/// Header values are visible ASCII: anything else becomes `?`.
fn header_text(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c == ' ' || c.is_ascii_graphic() {
                c
            } else {
                '?'
            }
        })
        .take(250)
        .collect()
}

/// At most [`MAX_BODY`] bytes, cut at a character and marked.
fn bounded(mut text: String) -> String {
    if text.len() <= MAX_BODY {
        return text;
    }
    let mut end = MAX_BODY - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push('…');
    text
}

/// Every web address in `text` cut to its scheme and host: a calendar's source may be a private
/// address whose path or query is its token, and a message leaves this machine (an ntfy topic
/// may be public). The owner page shows the whole address to the owner.
pub fn without_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = ["http://", "https://", "webcal://"]
        .iter()
        .filter_map(|scheme| rest.find(scheme).map(|at| (at, scheme.len())))
        .min()
    {
        let (at, scheme_len) = start;
        out.push_str(&rest[..at]);
        let address = &rest[at..];
        let end = address
            .find(|c: char| c.is_whitespace() || matches!(c, ')' | '\'' | '"' | ',' | ';'))
            .unwrap_or(address.len());
        let (whole, after) = address.split_at(end);
        let host_end = whole[scheme_len..]
            .find(['/', '?', '#'])
            .map_or(whole.len(), |i| i + scheme_len);
        // A host written with a user and password keeps only the host.
        let (scheme, host) = whole[..host_end].split_at(scheme_len);
        let host = host.rsplit('@').next().unwrap_or_default();
        out.push_str(scheme);
        out.push_str(host);
        if host_end < whole.len() {
            out.push_str("/…");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_keep_only_their_host() {
        assert_eq!(
            without_addresses("feed 1 'Work' (https://calendar.google.com/calendar/ical/me/private-abc/basic.ics) has failed"),
            "feed 1 'Work' (https://calendar.google.com/…) has failed"
        );
        assert_eq!(
            without_addresses(
                "'Club' (club): the source has failed: http://user:pw@example.org?token=1"
            ),
            "'Club' (club): the source has failed: http://example.org/…"
        );
        assert_eq!(without_addresses("no address here"), "no address here");
        assert_eq!(without_addresses("https://a.test"), "https://a.test");
    }

    #[test]
    fn a_message_has_ntfy_headers_and_a_bounded_body() {
        let long = "é".repeat(5000);
        let m = Message::about(
            "quotas",
            Kind::Bad(Status::Warn),
            [long.as_str()].into_iter(),
        );
        assert!(m.body.len() <= MAX_BODY && m.body.ends_with('…'));
        assert_eq!(
            m.title("example.org"),
            "Hearth (example.org): quotas needs attention"
        );
        assert_eq!((m.priority(), m.tags()), ("default", "warning,hearth"));
        let m = Message::about("backups", Kind::Recovered, ["ok"].into_iter());
        assert_eq!(m.body, "backups: ok");
        assert_eq!(m.title("ü.test"), "Hearth (?.test): backups ok again");
    }
}
