//! The WebDAV requests of CalDAV (`PROPFIND`, `REPORT`): an XML body, a `Depth`, the source's
//! login, and an answer read within the same bounds as a feed's (the fetcher's timeouts and
//! size limit, the decompressed body counted against the bytes in flight as it arrives).
//! Redirects are followed here, by hand, because a client would turn a PROPFIND into a GET on a
//! 301 (`/.well-known/caldav` answers with one): at most `MAX_REDIRECTS`, each hop checked as
//! the feed client checks one (http or https, no refused literal address; host names go through
//! the checking resolver), and a login is never sent to another origin: such a redirect is
//! refused in words that name where it led. A login is sent as a feed's is (`login`): only
//! where `may_send` allows, and a 401 or 403 is the same `NeedsLogin` or `LoginRefused`.

use reqwest::header::{CONTENT_TYPE, LOCATION};
use reqwest::{Method, StatusCode, Url};

use super::errors::classify;
use super::login::{login_failure, may_send};
use super::{literal_ip, with_login, FetchError, Fetcher, Login, MAX_REDIRECTS};
use crate::http::budget::Reservation;

/// The largest body a WebDAV request of ours sends (they are fixed XML with two dates).
pub const MAX_DAV_REQUEST_BYTES: usize = 4096;

/// One WebDAV request.
pub struct DavRequest<'a> {
    /// `PROPFIND` or `REPORT`.
    pub method: &'static str,
    pub url: &'a Url,
    /// `0` or `1`.
    pub depth: &'static str,
    pub body: String,
    pub login: Option<&'a Login>,
}

/// A WebDAV answer with a success status.
#[derive(Debug)]
pub struct DavAnswer {
    /// The address that answered (after redirects): the answer's `href`s are relative to it.
    pub url: Url,
    pub status: u16,
    pub body: Vec<u8>,
}

impl Fetcher {
    /// Sends `request`, following redirects within its origin, and reads at most `max_bytes`
    /// of the answer (never more than the fetcher's limit), held in `budget` as it arrives.
    pub async fn dav(
        &self,
        request: DavRequest<'_>,
        max_bytes: usize,
        mut budget: Option<Reservation>,
    ) -> Result<DavAnswer, FetchError> {
        let max_bytes = max_bytes.min(self.max_bytes);
        if request.body.len() > MAX_DAV_REQUEST_BYTES {
            return Err(FetchError::Other("the WebDAV request is too large".into()));
        }
        let method = Method::from_bytes(request.method.as_bytes())
            .map_err(|e| FetchError::Other(e.to_string()))?;
        let origin = request.url.origin();
        let mut url = request.url.clone();
        for _ in 0..=MAX_REDIRECTS {
            if let Some(ip) = literal_ip(&url).filter(|ip| (self.refuse)(*ip)) {
                return Err(FetchError::RefusedAddress(ip.to_string()));
            }
            if let Some(login) = request.login {
                may_send(&url, login.plain_http)?;
            }
            let builder = self
                .dav_client
                .request(method.clone(), url.clone())
                .header("Depth", request.depth)
                .header(CONTENT_TYPE, "application/xml; charset=utf-8")
                .body(request.body.clone());
            let mut response = with_login(builder, request.login.map(|l| &l.auth))
                .send()
                .await
                .map_err(|e| classify(e, self.total_timeout))?;
            let status = response.status();
            if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
                let next = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|to| url.join(to).ok())
                    .ok_or_else(|| {
                        FetchError::Other("the server redirected without saying where".into())
                    })?;
                if !matches!(next.scheme(), "http" | "https") {
                    return Err(FetchError::UnsupportedScheme(next.scheme().to_owned()));
                }
                if request.login.is_some() && next.origin() != origin {
                    return Err(FetchError::Other(format!(
                        "the server sent the request on to {}, another address than the one \
                         given: the login is not sent there; give that address instead",
                        next.origin().ascii_serialization()
                    )));
                }
                url = next;
                continue;
            }
            if let Some(failed) = login_failure(status.as_u16(), request.login.is_some()) {
                return Err(failed);
            }
            if !status.is_success() {
                let status = status.as_u16();
                return Err(FetchError::Status {
                    status,
                    explanation: super::explain_status(&url, status),
                });
            }
            if response
                .content_length()
                .is_some_and(|len| len > max_bytes as u64)
            {
                return Err(FetchError::TooLarge(max_bytes));
            }
            let body = self
                .read_body(&mut response, max_bytes, budget.as_mut())
                .await?;
            return Ok(DavAnswer {
                url,
                status: status.as_u16(),
                body,
            });
        }
        Err(FetchError::TooManyRedirects)
    }
}
