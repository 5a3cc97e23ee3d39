//! What can go wrong fetching a feed, in words a visitor can act on, and nothing more: messages
//! about host names never reveal the addresses behind them or the resolver's details, so the
//! server cannot be used to map the network it sits in; error statuses say what they probably
//! mean (Outlook's included).

use std::time::Duration;

use reqwest::Url;

use super::outlook::is_outlook;
use super::{MAX_REDIRECTS, MAX_URL_LEN};

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum FetchError {
    #[error("the feed address is empty")]
    EmptyUrl,
    #[error("the feed address is longer than {MAX_URL_LEN} characters")]
    UrlTooLong,
    #[error("'{0}' is not a valid address")]
    InvalidUrl(String),
    #[error("only http, https and webcal addresses can be fetched, not {0}:")]
    UnsupportedScheme(String),
    /// A literal address (as typed, or in a redirect): echoing it reveals nothing.
    #[error("the feed address points to a refused address ({0}): loopback, private and link-local networks are not fetched")]
    RefusedAddress(String),
    /// A host name whose addresses are all refused; which addresses they are is not said, so the
    /// server cannot be used to map the names of the network it sits in.
    #[error("the feed's host is on a private or local network, which is not fetched")]
    RefusedHost,
    /// Resolver details (NXDOMAIN, SERVFAIL, timeouts) are not passed on, for the same reason.
    #[error("the feed's host could not be found")]
    Dns,
    #[error("could not connect to the feed's server ({0}): it may be down, or refuse connections from this server")]
    Connect(String),
    /// The TLS handshake failed: an expired, self-signed or wrong-name certificate, or a server
    /// that speaks only old TLS versions.
    #[error("a secure (https) connection to the feed's server could not be made ({0}): its certificate may be expired, self-signed or for another name, or it may only speak old TLS versions")]
    Tls(String),
    #[error("the feed took longer than {0} seconds to answer")]
    Timeout(u64),
    #[error("the feed is larger than the limit of {0} bytes")]
    TooLarge(usize),
    /// The status and what it probably means, in words (see [`explain_status`]).
    #[error("the feed's server answered HTTP {status}{}", explanation.map(|e| format!(": {e}")).unwrap_or_default())]
    Status {
        status: u16,
        explanation: Option<&'static str>,
    },
    /// 401 to a request without a login.
    #[error("this feed needs a login: its server answered HTTP 401; add the login it asks for to the source")]
    NeedsLogin,
    /// 401 or 403 to a request with the source's login.
    #[error("the login was refused: the feed's server answered HTTP {0}; check the username and password, or the token")]
    LoginRefused(u16),
    /// A login would go over plain http to a host not on the owner's network.
    #[error("the login would travel unencrypted: this is a plain http:// address of a host that is not on your own network; use https://, or allow the login over plain HTTP")]
    LoginUnencrypted,
    /// A fetch with a login was redirected from https to plain http.
    #[error(
        "the feed's server redirected from https to plain http: the login is not sent unencrypted"
    )]
    LoginDowngraded,
    #[error("the feed redirected more than {MAX_REDIRECTS} times")]
    TooManyRedirects,
    #[error("fetching the feed failed: {0}")]
    Other(String),
    /// The body would take the server's (or the asking client's) bytes in flight past their
    /// share: nothing is wrong with the feed, the server is busy.
    #[error("the server is receiving too much at once: try again in a few seconds")]
    InFlight,
}

impl FetchError {
    /// Whether it is about a source's login (said at the login's field, not the address's).
    pub fn is_about_login(&self) -> bool {
        matches!(
            self,
            FetchError::NeedsLogin
                | FetchError::LoginRefused(_)
                | FetchError::LoginUnencrypted
                | FetchError::LoginDowngraded
        )
    }

    /// Whether the caller, not the upstream server, is at fault (a 4xx rather than a 502).
    pub fn is_client_error(&self) -> bool {
        matches!(
            self,
            FetchError::EmptyUrl
                | FetchError::UrlTooLong
                | FetchError::InvalidUrl(_)
                | FetchError::UnsupportedScheme(_)
                | FetchError::RefusedAddress(_)
                | FetchError::RefusedHost
                | FetchError::LoginUnencrypted
        )
    }
}

/// What an error status from a calendar's server probably means, for the editor's message.
pub fn explain_status(url: &Url, status: u16) -> Option<&'static str> {
    if is_outlook(url) && status >= 500 {
        return Some(
            "Outlook refused to serve the published calendar. It does so when the calendar is no \
             longer published or sharing was turned off, and for programs it does not accept; \
             check in Outlook (Settings, Calendar, Shared calendars) that the calendar is still \
             published and copy its ICS link again",
        );
    }
    Some(match status {
        401 | 403 => {
            "the calendar's server refused access: the calendar may be private, or the link may \
             have expired or been reset; copy a fresh public (ICS) link"
        }
        404 | 410 => {
            "there is no calendar at this address: it may have been unpublished, or the link is \
             incomplete"
        }
        429 => "the calendar's server is limiting requests: try again in a few minutes",
        500 => {
            "the calendar's server failed with an internal error; this is usually on its side and \
             temporary, so try again later (if it lasts, the calendar may no longer be published)"
        }
        502 | 504 => {
            "a gateway in front of the calendar's server could not reach it: the server is \
             probably down or overloaded; try again later"
        }
        503 => "the calendar's server is down for maintenance or overloaded: try again later",
        s if s >= 500 => "the calendar's server reported an error on its side: try again later",
        _ => return None,
    })
}

/// Maps reqwest's errors to ours, finding our own error (refused address, redirects) inside.
pub(super) fn classify(error: reqwest::Error, total_timeout: Duration) -> FetchError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&error);
    while let Some(e) = source {
        if let Some(ours) = e.downcast_ref::<FetchError>() {
            return ours.clone();
        }
        source = e.source();
    }
    if error.is_timeout() {
        return FetchError::Timeout(total_timeout.as_secs().max(1));
    }
    if error.is_redirect() {
        return FetchError::TooManyRedirects;
    }
    if error.is_connect() {
        let cause = root_cause(&error);
        if is_tls_failure(&error) {
            return FetchError::Tls(cause);
        }
        return FetchError::Connect(cause);
    }
    FetchError::Other(root_cause(&error))
}

/// Whether a connection failed in the TLS handshake (rustls' errors, however deep they sit).
fn is_tls_failure(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        // rustls' errors reach us inside io::Errors (nested), whose source() skips the inner
        // error: unwrap them by hand.
        let mut inner: &(dyn std::error::Error + 'static) = e;
        while let Some(wrapped) = inner
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            inner = wrapped;
        }
        if inner.is::<rustls::Error>() {
            return true;
        }
        let text = e.to_string().to_ascii_lowercase();
        if text.contains("certificate") || text.contains("tls") || text.contains("handshake") {
            return true;
        }
        source = e.source();
    }
    false
}

fn root_cause(error: &dyn std::error::Error) -> String {
    let mut last = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        last = e.to_string();
        source = e.source();
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_about_names_reveal_no_addresses_or_resolver_details() {
        assert_eq!(
            FetchError::RefusedHost.to_string(),
            "the feed's host is on a private or local network, which is not fetched"
        );
        assert_eq!(
            FetchError::Dns.to_string(),
            "the feed's host could not be found"
        );
        assert!(FetchError::RefusedHost.is_client_error());
        // A literal address the user typed may be echoed.
        assert!(FetchError::RefusedAddress("10.0.0.1".into())
            .to_string()
            .contains("10.0.0.1"));
    }

    fn url(s: &str) -> Url {
        Url::parse(s).expect("url")
    }

    #[test]
    fn error_statuses_say_in_words_what_probably_happened() {
        let outlook = url("https://outlook.office365.com/owa/calendar/x/calendar.ics");
        let other = url("https://example.org/a.ics");
        let message = |u: &Url, status: u16| {
            FetchError::Status {
                status,
                explanation: explain_status(u, status),
            }
            .to_string()
        };
        let m = message(&outlook, 500);
        assert!(
            m.starts_with("the feed's server answered HTTP 500: Outlook refused"),
            "{m}"
        );
        assert!(m.contains("still published"), "{m}");
        assert!(message(&other, 500).contains("internal error"));
        assert!(message(&other, 503).contains("down for maintenance or overloaded"));
        assert!(message(&other, 502).contains("probably down"));
        assert!(message(&other, 404).contains("no calendar at this address"));
        assert!(message(&other, 403).contains("refused access"));
        assert_eq!(message(&other, 418), "the feed's server answered HTTP 418");
        assert!(!message(&outlook, 404).contains("Outlook"));
        assert!(FetchError::Tls("invalid peer certificate: Expired".into())
            .to_string()
            .contains("certificate may be expired"));
    }
}
