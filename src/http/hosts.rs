//! The Host check: with `--public-url`, requests for other host names are refused (421), so a
//! hostile page cannot reach a LAN-only Hearth through a DNS name it rebinds to the Pi.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware;
use axum::response::{IntoResponse, Response};

use super::error::AppError;

/// With `--public-url`, the host names a request may carry: the public one, `localhost` (health
/// checks, the installer), any IP address and mDNS `.local` names (the LAN). Anything else is
/// refused, so a hostile page cannot reach the Pi through a DNS name it rebinds to the Pi's
/// address: rebinding needs a name in the attacker's DNS, never an address or a `.local` name.
#[derive(Debug)]
pub struct AllowedHosts {
    /// `None`: no public address set, every host is accepted.
    hosts: Option<Vec<String>>,
}

impl AllowedHosts {
    pub fn new(public_url: Option<&str>) -> AllowedHosts {
        let Some(public) = public_url.and_then(|u| url::Url::parse(u).ok()) else {
            return AllowedHosts { hosts: None };
        };
        let mut hosts = vec!["localhost".to_owned()];
        if let Some(host) = public.host_str() {
            hosts.push(host.to_ascii_lowercase());
        }
        AllowedHosts { hosts: Some(hosts) }
    }

    /// `host` is a Host header: a name or address, maybe with a port (ignored).
    pub fn allows(&self, host: Option<&str>) -> bool {
        let Some(allowed) = &self.hosts else {
            return true;
        };
        let Some(host) = host else {
            return false;
        };
        let name = if host.starts_with('[') {
            host.split_inclusive(']').next().unwrap_or(host)
        } else {
            host.split(':').next().unwrap_or(host)
        };
        let name = name.trim_end_matches('.').to_ascii_lowercase();
        let is_ip = name.parse::<std::net::Ipv4Addr>().is_ok()
            || name
                .strip_prefix('[')
                .and_then(|n| n.strip_suffix(']'))
                .is_some_and(|n| n.parse::<std::net::Ipv6Addr>().is_ok());
        let is_mdns = name.ends_with(".local") && name.len() > ".local".len();
        is_ip || is_mdns || allowed.contains(&name)
    }
}

/// Middleware: refuses requests whose Host is not allowed.
pub async fn check_host(
    State(hosts): State<Arc<AllowedHosts>>,
    request: Request,
    next: middleware::Next,
) -> Response {
    let host = request
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()));
    if hosts.allows(host) {
        return next.run(request).await;
    }
    AppError::Misdirected(
        "this site is not served under that host name; use its public address".into(),
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_a_public_url_only_its_host_localhost_addresses_and_local_names_pass() {
        assert!(AllowedHosts::new(None).allows(Some("anything.example")));
        let hosts = AllowedHosts::new(Some("https://Cal.Example.org"));
        for ok in [
            "cal.example.org",
            "CAL.example.org:443",
            "cal.example.org.",
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "192.168.1.5:8080",
            "[2001:db8::5]",
            "raspberrypi.local:8080",
        ] {
            assert!(hosts.allows(Some(ok)), "{ok}");
        }
        for bad in [
            "evil.example",
            "cal.example.org.evil.example",
            "localhost.evil.example",
            "192.168.1.6.nip.io",
            "local",
            "[not-an-ip]",
            "",
        ] {
            assert!(!hosts.allows(Some(bad)), "{bad}");
        }
        assert!(!hosts.allows(None));
    }
}
