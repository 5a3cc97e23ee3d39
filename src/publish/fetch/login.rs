//! A source's login on a request to it: HTTP Basic or a Bearer token, the header marked
//! sensitive (kept out of reqwest's logs). reqwest drops it on a redirect to another host or
//! port; the login's own client (`Fetcher`) also refuses a redirect from https to plain http,
//! and a login is sent over plain http only to a host on the owner's own network unless the
//! owner allowed it (`may_send`).

use std::net::IpAddr;

use reqwest::{RequestBuilder, Url};

use super::FetchError;
use crate::calendar::config::SourceAuth;

/// A source's login opened for its fetches: what it sends, whether its owner lets it travel
/// unencrypted to a public host (`plainHttp`), and the tag its copies are kept under (a keyed
/// hash of the address and the login: copies fetched with a login are never another's).
#[derive(Clone, PartialEq, Eq)]
pub struct Login {
    pub auth: SourceAuth,
    pub plain_http: bool,
    pub tag: String,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("auth", &self.auth)
            .field("plain_http", &self.plain_http)
            .finish_non_exhaustive()
    }
}

/// `request` carrying `login`, when there is one to send. `SourceAuth::Set` (a stored login not
/// opened) sends nothing: whoever fetches opens the stored login first.
pub fn with_login(request: RequestBuilder, login: Option<&SourceAuth>) -> RequestBuilder {
    match login {
        Some(SourceAuth::Basic { username, password }) => {
            request.basic_auth(username, Some(password))
        }
        Some(SourceAuth::Bearer { token }) => request.bearer_auth(token),
        Some(SourceAuth::Set) | None => request,
    }
}

/// A 401 or 403 in the words said at a source's login, for a feed's GET and a CalDAV request
/// alike: a login is missing (`sent`: the request carried one), or the one sent was refused.
pub fn login_failure(status: u16, sent: bool) -> Option<FetchError> {
    match (status, sent) {
        (401, false) => Some(FetchError::NeedsLogin),
        (code @ (401 | 403), true) => Some(FetchError::LoginRefused(code)),
        _ => None,
    }
}

/// Whether a login may be sent to `url`: always over https; over plain http only to a host
/// that says it is on the owner's own network (a loopback or private address, `localhost`, or
/// a name under `.local`, `.lan`, `.internal`, `.home.arpa`), unless `plain_http` allows it. A
/// name is judged as written, not by what it resolves to: a public name that resolves to a
/// private address is still treated as public.
pub fn may_send(url: &Url, plain_http: bool) -> Result<(), FetchError> {
    if url.scheme() != "http" || plain_http || is_own_network(url) {
        return Ok(());
    }
    Err(FetchError::LoginUnencrypted)
}

fn is_own_network(url: &Url) -> bool {
    let own = |ip: IpAddr| {
        ip.is_loopback()
            || match ip {
                IpAddr::V4(v4) => v4.is_private() || v4.is_link_local(),
                // Unique local (fc00::/7) and link-local (fe80::/10).
                IpAddr::V6(v6) => {
                    (v6.segments()[0] & 0xfe00) == 0xfc00 || (v6.segments()[0] & 0xffc0) == 0xfe80
                }
            }
    };
    match url.host() {
        Some(url::Host::Ipv4(ip)) => own(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => own(ip.to_ipv4_mapped().map_or(IpAddr::V6(ip), IpAddr::V4)),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost"
                || [".localhost", ".local", ".lan", ".internal", ".home.arpa"]
                    .iter()
                    .any(|suffix| name.ends_with(suffix))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).expect("url")
    }

    #[test]
    fn a_login_goes_over_plain_http_only_to_the_owners_network_unless_allowed() {
        for own in [
            "http://127.0.0.1:8080/a.ics",
            "http://[::1]/a.ics",
            "http://192.168.1.10/a.ics",
            "http://10.0.0.2/a.ics",
            "http://nas.local/a.ics",
            "http://localhost/a.ics",
            "http://cloud.home.arpa/a.ics",
            "http://[fd00::1]/a.ics",
        ] {
            assert_eq!(may_send(&url(own), false), Ok(()), "{own}");
        }
        for public in [
            "http://calendar.example/a.ics",
            "http://93.184.216.34/a.ics",
            "http://localhost.example.com/a.ics",
        ] {
            assert_eq!(
                may_send(&url(public), false),
                Err(FetchError::LoginUnencrypted),
                "{public}"
            );
            assert_eq!(may_send(&url(public), true), Ok(()), "{public}");
        }
        assert_eq!(
            may_send(&url("https://calendar.example/a.ics"), false),
            Ok(())
        );
    }

    #[test]
    fn a_refused_login_and_a_missing_one_are_told_apart() {
        assert_eq!(login_failure(401, false), Some(FetchError::NeedsLogin));
        assert_eq!(
            login_failure(401, true),
            Some(FetchError::LoginRefused(401))
        );
        assert_eq!(
            login_failure(403, true),
            Some(FetchError::LoginRefused(403))
        );
        assert_eq!(login_failure(403, false), None);
        assert_eq!(login_failure(404, true), None);
    }

    #[test]
    fn a_logins_debug_names_no_secret_and_no_tag() {
        let login = Login {
            auth: SourceAuth::Basic {
                username: "ann".into(),
                password: "hunter2".into(),
            },
            plain_http: false,
            tag: "abc123".into(),
        };
        let text = format!("{login:?}");
        assert!(
            !text.contains("hunter2") && !text.contains("abc123"),
            "{text}"
        );
    }
}
