//! Fetching upstream calendar feeds safely: http(s) only, no server-side request forgery (every
//! address actually connected to is checked, on every redirect too), messages that reveal
//! nothing about the network behind the server, time and size limits on the decompressed body,
//! control characters removed, conditional requests against the copy we already hold, a
//! browser-like User-Agent for the hosts that refuse others (Outlook), and failures in words.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Once};
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{HeaderValue, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED};
use reqwest::{redirect, StatusCode, Url};

use crate::http::budget::Reservation;

pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
pub const TOTAL_TIMEOUT: Duration = Duration::from_secs(15);
pub const MAX_REDIRECTS: usize = 5;
/// Default for `--feed-max-size`.
pub const DEFAULT_MAX_FEED_BYTES: usize = 10 * 1024 * 1024;
const MAX_URL_LEN: usize = 2048;

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
        )
    }
}

/// What the server answered.
#[derive(Debug)]
pub enum Fetched {
    /// A new body, with the validators to send next time.
    Body {
        bytes: Vec<u8>,
        etag: Option<String>,
        last_modified: Option<String>,
    },
    /// 304: the copy we hold is still current.
    NotModified,
}

/// Validators of the copy we hold, for a conditional request.
#[derive(Debug, Default, Clone)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

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

/// Normalises a user-supplied feed address: trims it, turns webcal: and webcals: (Apple's
/// spelling) into https:, and accepts only http and https.
pub fn normalize_url(raw: &str) -> Result<Url, FetchError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(FetchError::EmptyUrl);
    }
    if trimmed.len() > MAX_URL_LEN {
        return Err(FetchError::UrlTooLong);
    }
    let rewritten = match trimmed.split_once(':') {
        Some((scheme, rest))
            if scheme.eq_ignore_ascii_case("webcal") || scheme.eq_ignore_ascii_case("webcals") =>
        {
            format!("https:{rest}")
        }
        _ => trimmed.to_owned(),
    };
    let url = Url::parse(&rewritten).map_err(|_| FetchError::InvalidUrl(trimmed.to_owned()))?;
    match url.scheme() {
        "http" | "https" => {}
        other => return Err(FetchError::UnsupportedScheme(other.to_owned())),
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(FetchError::InvalidUrl(trimmed.to_owned()));
    }
    Ok(url)
}

/// Decides which addresses may not be contacted.
pub type RefusePolicy = Arc<dyn Fn(IpAddr) -> bool + Send + Sync>;

/// How a fetcher behaves; `FetchOptions::new` gives the production settings.
#[derive(Clone)]
pub struct FetchOptions {
    pub refuse: RefusePolicy,
    pub max_bytes: usize,
    pub connect_timeout: Duration,
    pub total_timeout: Duration,
    /// Fixed answers for host names (checked like any other answer), for tests and LAN setups;
    /// a name may have several addresses, as in DNS.
    pub hosts: HashMap<String, Vec<IpAddr>>,
}

impl FetchOptions {
    pub fn new(allow_private: bool, max_bytes: usize) -> FetchOptions {
        let refuse: RefusePolicy = if allow_private {
            Arc::new(|_| false)
        } else {
            Arc::new(is_refused)
        };
        FetchOptions {
            refuse,
            max_bytes,
            connect_timeout: CONNECT_TIMEOUT,
            total_timeout: TOTAL_TIMEOUT,
            hosts: HashMap::new(),
        }
    }
}

/// Fetches feeds; cheap to clone (one connection pool).
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    refuse: RefusePolicy,
    max_bytes: usize,
    total_timeout: Duration,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("max_bytes", &self.max_bytes)
            .finish()
    }
}

/// Installs ring as the process-wide rustls provider (once); every HTTP client needs it.
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Fails only when a provider is installed already, which is just as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

impl Fetcher {
    pub fn new(allow_private: bool, max_bytes: usize) -> Result<Fetcher, FetchError> {
        Fetcher::with_options(FetchOptions::new(allow_private, max_bytes))
    }

    pub fn with_options(options: FetchOptions) -> Result<Fetcher, FetchError> {
        install_crypto_provider();
        let refuse = options.refuse.clone();
        let redirect_policy = redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() > MAX_REDIRECTS {
                return attempt.error(FetchError::TooManyRedirects);
            }
            let url = attempt.url();
            if !matches!(url.scheme(), "http" | "https") {
                let scheme = url.scheme().to_owned();
                return attempt.error(FetchError::UnsupportedScheme(scheme));
            }
            // Hostnames go through the checking resolver again; literal addresses do not.
            if let Some(ip) = literal_ip(url).filter(|ip| refuse(*ip)) {
                return attempt.error(FetchError::RefusedAddress(ip.to_string()));
            }
            attempt.follow()
        });
        let client = reqwest::Client::builder()
            .user_agent(HEARTH_USER_AGENT)
            .connect_timeout(options.connect_timeout)
            .timeout(options.total_timeout)
            .redirect(redirect_policy)
            .no_proxy()
            .dns_resolver(Arc::new(CheckingResolver {
                refuse: options.refuse.clone(),
                hosts: options.hosts,
            }))
            .build()
            .map_err(|e| FetchError::Other(e.to_string()))?;
        Ok(Fetcher {
            client,
            refuse: options.refuse,
            max_bytes: options.max_bytes,
            total_timeout: options.total_timeout,
        })
    }

    /// Fetches `url` (already normalised), conditionally when `validators` are given.
    pub async fn fetch(&self, url: &Url, validators: &Validators) -> Result<Fetched, FetchError> {
        self.fetch_at_most(url, validators, self.max_bytes, None)
            .await
    }

    /// As [`Fetcher::fetch`], bringing at most `max_bytes` (and never more than the limit the
    /// fetcher was made with: a publish fetches no more than the storage it reserved), the body
    /// held in `budget` as it arrives when one is given.
    pub async fn fetch_at_most(
        &self,
        url: &Url,
        validators: &Validators,
        max_bytes: usize,
        mut budget: Option<Reservation>,
    ) -> Result<Fetched, FetchError> {
        let max_bytes = max_bytes.min(self.max_bytes);
        if let Some(ip) = literal_ip(url).filter(|ip| (self.refuse)(*ip)) {
            return Err(FetchError::RefusedAddress(ip.to_string()));
        }
        // A request's own User-Agent wins over the client's default (and is kept on redirects).
        let mut request = self
            .client
            .get(url.clone())
            .header(
                reqwest::header::ACCEPT,
                "text/calendar, text/plain;q=0.8, */*;q=0.5",
            )
            .header(reqwest::header::USER_AGENT, user_agent_for(url));
        if let Some(etag) = validators
            .etag
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            request = request.header(IF_NONE_MATCH, etag);
        }
        if let Some(lm) = validators
            .last_modified
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            request = request.header(IF_MODIFIED_SINCE, lm);
        }
        let mut response = request
            .send()
            .await
            .map_err(|e| classify(e, self.total_timeout))?;
        let status = response.status();
        if status == StatusCode::NOT_MODIFIED {
            return Ok(Fetched::NotModified);
        }
        if !status.is_success() {
            // Explained by the host that answered (a redirect may have led to Outlook).
            let status = status.as_u16();
            return Err(FetchError::Status {
                status,
                explanation: explain_status(response.url(), status),
            });
        }
        if response
            .content_length()
            .is_some_and(|len| len > max_bytes as u64)
        {
            return Err(FetchError::TooLarge(max_bytes));
        }
        let header = |name| {
            response
                .headers()
                .get(name)
                .and_then(|v: &HeaderValue| v.to_str().ok())
                .map(str::to_owned)
        };
        let etag = header(ETAG);
        let last_modified = header(LAST_MODIFIED);
        // Counted after decompression: a small gzip body cannot blow up past the limit.
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| classify(e, self.total_timeout))?
        {
            if bytes.len() + chunk.len() > max_bytes {
                return Err(FetchError::TooLarge(max_bytes));
            }
            if let Some(budget) = budget.as_mut() {
                budget.grow(chunk.len()).map_err(|_| FetchError::InFlight)?;
            }
            bytes.extend_from_slice(&chunk);
        }
        strip_control_bytes(&mut bytes);
        Ok(Fetched::Body {
            bytes,
            etag,
            last_modified,
        })
    }
}

/// Removes the C0 control characters other than TAB, LF and CR, and DEL, in one pass and in
/// place: NUL and the like mean nothing in iCalendar text and must not reach the feeds we host
/// (calendar apps and parsers written in C stop at a NUL). They are ASCII, so no UTF-8
/// sequence is cut.
pub fn strip_control_bytes(bytes: &mut Vec<u8>) {
    bytes.retain(|&b| !matches!(b, 0x00..=0x08 | 0x0B | 0x0C | 0x0E..=0x1F | 0x7F));
}

fn literal_ip(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        url::Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        url::Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        url::Host::Domain(_) => None,
    }
}

/// Maps reqwest's errors to ours, finding our own error (refused address, redirects) inside.
fn classify(error: reqwest::Error, total_timeout: Duration) -> FetchError {
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

/// Resolves with the system resolver and drops every refused address, so the connection can
/// only go to an address that passed the check (no DNS-rebinding gap between check and use).
struct CheckingResolver {
    refuse: RefusePolicy,
    hosts: HashMap<String, Vec<IpAddr>>,
}

impl Resolve for CheckingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let refuse = self.refuse.clone();
        let host = name.as_str().to_owned();
        let fixed = self.hosts.get(&host.to_ascii_lowercase()).cloned();
        Box::pin(async move {
            type BoxError = Box<dyn std::error::Error + Send + Sync>;
            let addrs: Vec<SocketAddr> = match fixed {
                Some(ips) => ips.into_iter().map(|ip| SocketAddr::new(ip, 0)).collect(),
                None => match tokio::net::lookup_host((host.as_str(), 0)).await {
                    Ok(found) => found.collect(),
                    Err(e) => {
                        tracing::debug!(host = %host, error = %e, "resolving a feed's host failed");
                        return Err(Box::new(FetchError::Dns) as BoxError);
                    }
                },
            };
            if addrs.is_empty() {
                return Err(Box::new(FetchError::Dns) as BoxError);
            }
            // Only the allowed addresses are handed on: a name with a public and a private
            // address is reached on the public one only.
            let allowed: Vec<SocketAddr> =
                addrs.iter().copied().filter(|a| !refuse(a.ip())).collect();
            if allowed.is_empty() {
                return Err(Box::new(FetchError::RefusedHost) as BoxError);
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

/// Addresses a feed may not live on: anything not on the public internet.
pub fn is_refused(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_refused_v4(v4),
        IpAddr::V6(v6) => is_refused_v6(v6),
    }
}

fn is_refused_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // CGNAT 100.64.0.0/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

fn is_refused_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_refused_v4(v4);
    }
    // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 (64:ff9b::/96) embed an IPv4 address.
    let embedded = Ipv4Addr::new(
        (segments[6] >> 8) as u8,
        segments[6] as u8,
        (segments[7] >> 8) as u8,
        segments[7] as u8,
    );
    if segments[..6] == [0, 0, 0, 0, 0, 0] && !ip.is_unspecified() && !ip.is_loopback() {
        return is_refused_v4(embedded);
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return is_refused_v4(embedded);
    }
    // Local-use NAT64 (64:ff9b:1::/48, RFC 8215) translates into the operator's own networks.
    if segments[..3] == [0x64, 0xff9b, 1] {
        return true;
    }
    // SIIT IPv4-translated addresses (::ffff:0:a.b.c.d, RFC 7915) and Teredo (2001::/32), whose
    // embedded IPv4 address is obfuscated: neither is a place a feed lives.
    if segments[..6] == [0, 0, 0, 0, 0xffff, 0] || segments[..2] == [0x2001, 0] {
        return true;
    }
    // 6to4 (2002::/16) embeds the IPv4 address in the next 32 bits.
    if segments[0] == 0x2002 {
        let v4 = Ipv4Addr::new(
            (segments[1] >> 8) as u8,
            segments[1] as u8,
            (segments[2] >> 8) as u8,
            segments[2] as u8,
        );
        if is_refused_v4(v4) {
            return true;
        }
    }
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (segments[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (segments[0] & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated)
        || (segments[0] & 0xfe00) == 0xfc00 // unique-local fc00::/7
        || (segments[0] == 0x2001 && segments[1] == 0x0db8) // documentation
        || (segments[0] == 0x2001 && segments[1] == 0x0002 && segments[2] == 0) // benchmarking 2001:2::/48
        || segments[..4] == [0x0100, 0, 0, 0] // discard-only 100::/64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(s: &str) -> bool {
        is_refused(s.parse().expect("address"))
    }

    #[test]
    fn private_loopback_link_local_and_special_addresses_are_refused() {
        for ip in [
            "127.0.0.1",
            "127.8.9.10",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.254",
            "0.0.0.0",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::1",
            // Local-use NAT64, whatever it embeds.
            "64:ff9b:1::808:808",
            "64:ff9b:1:ffff::1",
            // SIIT IPv4-translated, even of a public address.
            "::ffff:0:7f00:1",
            "::ffff:0:a00:1",
            "::ffff:0:808:808",
            // Teredo, the whole prefix.
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:0:ffff:ffff:ffff:ffff:ffff:ffff",
            "2001:2::1",
            "100::1",
        ] {
            assert!(refused(ip), "{ip} should be refused");
        }
    }

    #[test]
    fn public_addresses_are_allowed() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2001:4860:4860::8888",
            "2a00:1450:4001::1",
        ] {
            assert!(!refused(ip), "{ip} should be allowed");
        }
    }

    #[test]
    fn webcal_becomes_https_and_other_schemes_are_refused() {
        assert_eq!(
            normalize_url(" webcal://example.org/a.ics ")
                .expect("valid")
                .as_str(),
            "https://example.org/a.ics"
        );
        assert_eq!(
            normalize_url("WEBCAL://example.org/a.ics")
                .expect("valid")
                .scheme(),
            "https"
        );
        assert!(matches!(
            normalize_url("file:///etc/passwd"),
            Err(FetchError::UnsupportedScheme(s)) if s == "file"
        ));
        assert!(matches!(
            normalize_url("ftp://example.org/x"),
            Err(FetchError::UnsupportedScheme(_))
        ));
        assert_eq!(
            normalize_url("webcals://example.org/a.ics")
                .expect("valid")
                .as_str(),
            "https://example.org/a.ics"
        );
        assert_eq!(
            normalize_url("WebCalS://example.org/a.ics")
                .expect("valid")
                .scheme(),
            "https"
        );
        assert!(matches!(
            normalize_url("webcalx://example.org/a.ics"),
            Err(FetchError::UnsupportedScheme(_))
        ));
        assert_eq!(normalize_url("  "), Err(FetchError::EmptyUrl));
        assert!(matches!(
            normalize_url("not a url"),
            Err(FetchError::InvalidUrl(_))
        ));
    }

    #[test]
    fn control_bytes_are_dropped_and_tab_cr_lf_and_utf8_kept() {
        let mut body = b"SUMMARY:a\0b\x01\x08\x0b\x0c\x0e\x1f\x7fc\td\r\n\xc3\xa9".to_vec();
        strip_control_bytes(&mut body);
        assert_eq!(body, b"SUMMARY:abc\td\r\n\xc3\xa9");
        let mut all: Vec<u8> = (0..=255).collect();
        strip_control_bytes(&mut all);
        assert_eq!(all.len(), 256 - 30);
        assert!(all.contains(&b'\t') && all.contains(&b'\n') && all.contains(&b'\r'));
        assert!(!all.contains(&0) && !all.contains(&0x7f));
    }

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

    async fn resolve(hosts: &[(&str, &[&str])], name: &str) -> Result<Vec<IpAddr>, String> {
        let resolver = CheckingResolver {
            refuse: Arc::new(is_refused),
            hosts: hosts
                .iter()
                .map(|(n, ips)| {
                    let ips = ips.iter().map(|ip| ip.parse().expect("ip")).collect();
                    ((*n).to_owned(), ips)
                })
                .collect(),
        };
        let name: Name = name.parse().expect("name");
        match resolver.resolve(name).await {
            Ok(addrs) => Ok(addrs.map(|a| a.ip()).collect()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[tokio::test]
    async fn a_name_with_public_and_private_addresses_resolves_to_the_public_ones_only() {
        let hosts: &[(&str, &[&str])] = &[
            (
                "mixed.example",
                &["10.0.0.5", "93.184.215.14", "::1", "2606:4700::1"],
            ),
            (
                "inside.example",
                &["192.168.1.10", "fd00::10", "::ffff:0:a00:1"],
            ),
        ];
        assert_eq!(
            resolve(hosts, "mixed.example").await.expect("resolves"),
            [
                "93.184.215.14".parse::<IpAddr>().expect("ip"),
                "2606:4700::1".parse().expect("ip")
            ]
        );
        let err = resolve(hosts, "inside.example").await.expect_err("refused");
        assert_eq!(err, FetchError::RefusedHost.to_string());
        assert!(!err.contains("192.168") && !err.contains("fd00"), "{err}");
    }
}
