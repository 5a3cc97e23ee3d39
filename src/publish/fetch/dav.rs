//! The WebDAV requests of CalDAV (`PROPFIND`, `REPORT`): an XML body, a `Depth`, the source's
//! login, and an answer read within the same bounds as a feed's (the fetcher's timeouts and
//! size limit, the decompressed body counted against the bytes in flight as it arrives).
//! Redirects are followed here, by hand, because a client would turn a PROPFIND into a GET on a
//! 301 (`/.well-known/caldav` answers with one): at most `MAX_REDIRECTS`, each hop checked as
//! the feed client checks one (http or https, no refused literal address; host names go through
//! the checking resolver), and a login is never sent to another origin: such a redirect is
//! refused in words that name where it led.

use reqwest::header::{CONTENT_TYPE, LOCATION};
use reqwest::{Method, StatusCode, Url};

use super::errors::classify;
use super::{literal_ip, with_login, FetchError, Fetcher, MAX_REDIRECTS};
use crate::calendar::config::SourceAuth;
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
    pub login: Option<&'a SourceAuth>,
}

/// A WebDAV answer with a success status.
#[derive(Debug)]
pub struct DavAnswer {
    /// The address that answered (after redirects): the answer's `href`s are relative to it.
    pub url: Url,
    pub status: u16,
    pub body: Vec<u8>,
}

/// 401 and 403 in the words the editor shows at a source's login: a login is missing, or the
/// one sent was refused.
pub fn login_status(status: u16, login_sent: bool) -> Option<&'static str> {
    match (status, login_sent) {
        (401, false) => Some("this feed needs a login"),
        (401 | 403, true) => Some("the login was refused"),
        _ => None,
    }
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
            let builder = self
                .dav_client
                .request(method.clone(), url.clone())
                .header("Depth", request.depth)
                .header(CONTENT_TYPE, "application/xml; charset=utf-8")
                .body(request.body.clone());
            let mut response = with_login(builder, request.login)
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
            if !status.is_success() {
                let status = status.as_u16();
                let explanation = login_status(status, request.login.is_some())
                    .or_else(|| super::explain_status(&url, status));
                return Err(FetchError::Status {
                    status,
                    explanation,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_login_and_a_missing_one_are_told_apart() {
        assert_eq!(login_status(401, false), Some("this feed needs a login"));
        assert_eq!(login_status(401, true), Some("the login was refused"));
        assert_eq!(login_status(403, true), Some("the login was refused"));
        assert_eq!(login_status(403, false), None);
        assert_eq!(login_status(404, true), None);
    }
}
