//! The one host family that needs a rule of its own: Outlook and Office 365 publish calendars
//! only to a browser's User-Agent, so those hosts get one; every other host is told honestly that
//! Hearth is asking.

use reqwest::Url;

/// Hosts that publish Outlook and Office 365 calendars. Since August 2025 they answer HTTP 500
/// (`OwaBasicUnsupportedException`) to a User-Agent that is not a browser's.
const OUTLOOK_HOSTS: &[&str] = &[
    "outlook.office365.com",
    "outlook.office.com",
    "outlook.live.com",
];

/// The User-Agent sent to every other host: says honestly who is asking.
pub const HEARTH_USER_AGENT: &str = concat!(
    "hearth/",
    env!("CARGO_PKG_VERSION"),
    " (calendar feed remapper)"
);

/// The User-Agent Outlook's hosts accept: a current desktop browser's.
pub const BROWSER_USER_AGENT: &str =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 \
     (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// Whether `url` is an Outlook / Office 365 published calendar (one of their hosts, any case).
pub fn is_outlook(url: &Url) -> bool {
    url.host_str().is_some_and(|host| {
        let host = host.trim_end_matches('.');
        OUTLOOK_HOSTS.iter().any(|h| h.eq_ignore_ascii_case(host))
    })
}

/// The User-Agent to send for `url`: a browser's for the picky hosts, hearth's elsewhere.
pub fn user_agent_for(url: &Url) -> &'static str {
    if is_outlook(url) {
        BROWSER_USER_AGENT
    } else {
        HEARTH_USER_AGENT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).expect("url")
    }

    #[test]
    fn outlook_hosts_get_a_browser_user_agent_and_others_hearths() {
        for outlook in [
            "https://outlook.office365.com/owa/calendar/x/y/calendar.ics",
            "https://OUTLOOK.office.com/owa/calendar/a/b/reachcalendar.ics",
            "https://outlook.live.com./owa/calendar/c.ics",
        ] {
            assert!(is_outlook(&url(outlook)), "{outlook}");
            assert_eq!(user_agent_for(&url(outlook)), BROWSER_USER_AGENT);
        }
        for other in [
            "https://calendar.google.com/calendar/ical/x/basic.ics",
            "https://office365.com.evil.example/outlook.office365.com.ics",
            "https://eu.outlook.office365.com.example.org/c.ics",
        ] {
            assert!(!is_outlook(&url(other)), "{other}");
            assert_eq!(user_agent_for(&url(other)), HEARTH_USER_AGENT);
        }
        assert!(BROWSER_USER_AGENT.starts_with("Mozilla/5.0 ("));
        assert!(!BROWSER_USER_AGENT.contains("  "), "{BROWSER_USER_AGENT}");
        assert!(HEARTH_USER_AGENT.starts_with("hearth/"));
    }
}
