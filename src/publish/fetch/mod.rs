//! Fetching upstream calendar feeds safely: http(s) only, conditional requests against the copy
//! we already hold, time and size limits on the decompressed body (counted against the bytes in
//! flight of whoever asked), control characters removed. The wing's parts: `address` (what may
//! be fetched), `policy` (where it may connect: the SSRF rules, readable alone), `outlook` (the one
//! host family with a rule of its own), `errors` (failures in words that reveal nothing about
//! the network behind the server), `login` (a source's login on a request to it), `dav` (the
//! WebDAV requests of CalDAV, PROPFIND and REPORT, their redirects followed by hand).

mod address;
mod dav;
mod errors;
mod login;
mod outlook;
mod policy;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Once};
use std::time::Duration;

use reqwest::header::{HeaderValue, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED};
use reqwest::{redirect, StatusCode, Url};

pub use address::normalize_url;
pub use dav::{DavAnswer, DavRequest, MAX_DAV_REQUEST_BYTES};
use errors::classify;
pub use errors::{explain_status, FetchError};
pub use login::{may_send, with_login, Login};
pub use outlook::{is_outlook, user_agent_for, BROWSER_USER_AGENT, HEARTH_USER_AGENT};
use policy::CheckingResolver;
pub use policy::{is_refused, RefusePolicy};

use crate::http::budget::Reservation;

pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
pub const TOTAL_TIMEOUT: Duration = Duration::from_secs(15);
pub const MAX_REDIRECTS: usize = 5;
/// Default for `--feed-max-size`.
pub const DEFAULT_MAX_FEED_BYTES: usize = 10 * 1024 * 1024;
const MAX_URL_LEN: usize = 2048;

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

/// An upstream server as its budgets know it (see [`Fetcher::upstream_of`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Upstream {
    pub host: String,
    pub addr: Option<IpAddr>,
}

/// Validators of the copy we hold, for a conditional request.
#[derive(Debug, Default, Clone)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

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
    /// For fetches with a login: the same, but a redirect from https to plain http is refused
    /// (reqwest itself drops the login on a redirect to another host or port).
    login_client: reqwest::Client,
    /// The same client for WebDAV requests, which follow redirects themselves (`dav`).
    dav_client: reqwest::Client,
    refuse: RefusePolicy,
    max_bytes: usize,
    total_timeout: Duration,
    /// The resolver's fixed answers, for [`Fetcher::upstream_of`].
    hosts: Arc<HashMap<String, Vec<IpAddr>>>,
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
        let policy = |login: bool| {
            let refuse = options.refuse.clone();
            redirect::Policy::custom(move |attempt| {
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
                let downgraded = url.scheme() == "http"
                    && attempt.previous().iter().any(|p| p.scheme() == "https");
                if login && downgraded {
                    return attempt.error(FetchError::LoginDowngraded);
                }
                attempt.follow()
            })
        };
        let build = |redirects: redirect::Policy| {
            reqwest::Client::builder()
                .user_agent(HEARTH_USER_AGENT)
                .connect_timeout(options.connect_timeout)
                .timeout(options.total_timeout)
                .redirect(redirects)
                .no_proxy()
                .dns_resolver(Arc::new(CheckingResolver {
                    refuse: options.refuse.clone(),
                    hosts: options.hosts.clone(),
                }))
                .build()
                .map_err(|e| FetchError::Other(e.to_string()))
        };
        let client = build(policy(false))?;
        let login_client = build(policy(true))?;
        let dav_client = build(redirect::Policy::none())?;
        Ok(Fetcher {
            client,
            login_client,
            dav_client,
            refuse: options.refuse,
            max_bytes: options.max_bytes,
            total_timeout: options.total_timeout,
            hosts: Arc::new(options.hosts),
        })
    }

    /// The most a fetch brings (`--feed-max-size`).
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Who a fetch of `url` would ask: its host as written once normalised (lower case, no
    /// final dot, an address in its one canonical form), and the first address a connection
    /// would go to, by the same rules as the connection itself.
    pub async fn upstream_of(&self, url: &Url) -> Result<Upstream, FetchError> {
        if let Some(ip) = literal_ip(url) {
            let ip = ip.to_canonical();
            if (self.refuse)(ip) {
                return Err(FetchError::RefusedAddress(ip.to_string()));
            }
            return Ok(Upstream {
                host: ip.to_string(),
                addr: Some(ip),
            });
        }
        let host = url
            .host_str()
            .unwrap_or_default()
            .trim_end_matches('.')
            .to_ascii_lowercase();
        let fixed = self.hosts.get(&host).cloned();
        let addrs = policy::allowed_addresses(&host, fixed, &self.refuse).await?;
        Ok(Upstream {
            addr: addrs.first().map(|a| a.ip().to_canonical()),
            host,
        })
    }

    /// Fetches `url` (already normalised), conditionally when `validators` are given.
    pub async fn fetch(&self, url: &Url, validators: &Validators) -> Result<Fetched, FetchError> {
        self.fetch_at_most(url, validators, self.max_bytes, None, None)
            .await
    }

    /// As [`Fetcher::fetch`], bringing at most `max_bytes` (and never more than the limit the
    /// fetcher was made with: a publish fetches no more than the storage it reserved), the body
    /// held in `budget` as it arrives when one is given, with the source's `login` when it has
    /// one (sent only where `login::may_send` allows, never across a redirect to another origin).
    pub async fn fetch_at_most(
        &self,
        url: &Url,
        validators: &Validators,
        max_bytes: usize,
        mut budget: Option<Reservation>,
        login: Option<&Login>,
    ) -> Result<Fetched, FetchError> {
        let max_bytes = max_bytes.min(self.max_bytes);
        if let Some(ip) = literal_ip(url).filter(|ip| (self.refuse)(*ip)) {
            return Err(FetchError::RefusedAddress(ip.to_string()));
        }
        if let Some(login) = login {
            may_send(url, login.plain_http)?;
        }
        let client = if login.is_some() {
            &self.login_client
        } else {
            &self.client
        };
        // A request's own User-Agent wins over the client's default (and is kept on redirects).
        let mut request = client
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
        request = with_login(request, login.map(|l| &l.auth));
        let mut response = request
            .send()
            .await
            .map_err(|e| classify(e, self.total_timeout))?;
        let status = response.status();
        if status == StatusCode::NOT_MODIFIED {
            return Ok(Fetched::NotModified);
        }
        // A redirect to another origin was followed without the login (reqwest drops it).
        let sent = login.is_some() && response.url().origin() == url.origin();
        if let Some(failed) = login::login_failure(status.as_u16(), sent) {
            return Err(failed);
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
        let bytes = self
            .read_body(&mut response, max_bytes, budget.as_mut())
            .await?;
        Ok(Fetched::Body {
            bytes,
            etag,
            last_modified,
        })
    }
}

impl Fetcher {
    /// An answer's body, at most `max_bytes` of it counted after decompression (a small gzip
    /// body cannot blow up past the limit), held in `budget` as it arrives, control characters
    /// removed.
    async fn read_body(
        &self,
        response: &mut reqwest::Response,
        max_bytes: usize,
        mut budget: Option<&mut Reservation>,
    ) -> Result<Vec<u8>, FetchError> {
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
        Ok(bytes)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
