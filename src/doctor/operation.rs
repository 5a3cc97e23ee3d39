//! The doctor's checks of how the server is run: its backups, its public address and key, the
//! proxy in front of it (from what the running server saw), the clock and the tz database.

use std::net::IpAddr;
use std::time::{Duration, SystemTime};

use rusqlite::Connection;

use super::{age, meta, size, Finding, Setup};
use crate::backups::{every, files, Report, FIRST_AFTER};
use crate::http::client::ProxyReport;

pub(super) fn backups(setup: &Setup, conn: Option<&Connection>, now: SystemTime) -> Finding {
    const CHECK: &str = "backups";
    let Some(interval) = setup.backups.interval else {
        return Finding::warn(
            CHECK,
            "scheduled backups are off (--backup-interval off): copy the database yourself with `hearth backup`",
        );
    };
    let dir = &setup.backups.dir;
    let newest = match files::list(dir) {
        Ok(all) => all.into_iter().next(),
        Err(e) => return Finding::fail(CHECK, format!("cannot read {}: {e}", dir.display())),
    };
    let report = conn.and_then(|c| Report::read(c).ok().flatten());
    let failure = report
        .as_ref()
        .and_then(|r| r.last_error.clone())
        .map(|e| format!("the last run failed: {e}"));
    let command = report
        .as_ref()
        .filter(|r| r.command_ok == Some(false))
        .and_then(|r| r.command.clone());
    // A backup is late an hour after it was due, and missing after two intervals.
    let late = interval + Duration::from_secs(3600);
    let missing = interval * 2;
    let Some(newest) = newest else {
        let created = conn
            .and_then(|c| meta(c, "created_at"))
            .and_then(|t| humantime::parse_rfc3339(&t).ok());
        let young = created.is_none_or(|at| files::age(at, now) < interval + FIRST_AFTER);
        return match (young, failure) {
            (true, None) => Finding::ok(
                CHECK,
                format!("no backup yet: the first is made a minute after the server starts, then {}", every(interval)),
            ),
            (_, Some(failure)) => Finding::fail(CHECK, format!("no backup in {}: {failure}", dir.display())),
            (false, None) => Finding::fail(
                CHECK,
                format!("no backup in {} although the database is older than the interval: is the server running? (journalctl -u hearth)", dir.display()),
            ),
        };
    };
    let how_old = files::age(newest.made_at, now);
    let name = newest
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let said = format!(
        "the last backup is {} old ({name}, {}) in {}",
        age(how_old),
        size(newest.size),
        dir.display()
    );
    if how_old > missing {
        let why = failure.map(|f| format!(": {f}")).unwrap_or_default();
        return Finding::fail(CHECK, format!("{said}{why}"));
    }
    if let Some(failure) = failure {
        return Finding::warn(CHECK, format!("{said}; {failure}"));
    }
    if how_old > late {
        return Finding::warn(CHECK, format!("{said}: later than {}", every(interval)));
    }
    if let Some(command) = command {
        return Finding::warn(
            CHECK,
            format!("{said}; {command}, so it was not copied off this machine"),
        );
    }
    Finding::ok(CHECK, said)
}

fn is_local(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

/// Whether the site is reachable from beyond this machine: it listens beyond loopback, or a
/// public address is configured (a proxy in front).
fn public(setup: &Setup) -> bool {
    !is_local(setup.listen.ip()) || setup.public_url.is_some()
}

pub(super) fn public_url(setup: &Setup) -> Finding {
    const CHECK: &str = "public url";
    match &setup.public_url {
        Some(url) if url.starts_with("http://") && !url.contains("://localhost") => Finding::warn(
            CHECK,
            format!("{url} is not https: calendar apps (Google Calendar among them) may refuse to subscribe; serve it through Caddy or nginx with TLS"),
        ),
        Some(url) => Finding::ok(CHECK, format!("{url}; other host names are refused")),
        None if !is_local(setup.listen.ip()) => Finding::warn(
            CHECK,
            format!("listening on {} without --public-url: hosted feed links follow each request's Host, and any host name is answered; set --public-url", setup.listen),
        ),
        None => Finding::ok(CHECK, "not set: links follow each request's Host (fine on this machine only, or behind a proxy that sets it)"),
    }
}

pub(super) fn publish_key(setup: &Setup) -> Finding {
    const CHECK: &str = "publish key";
    match (setup.publish_key, public(setup)) {
        (true, _) => Finding::ok(CHECK, "set: the calendar editor and the owner page need it"),
        (false, true) => Finding::warn(
            CHECK,
            "not set while the site is reachable from beyond this machine: anyone can publish calendars and make Hearth fetch feeds; set --publish-key (or --publish-key-file)",
        ),
        (false, false) => Finding::ok(CHECK, "not set; the site listens on loopback only"),
    }
}

/// The metrics listener answers anyone who reaches it, with no key: what the site serves, how
/// busy it is, when it was last backed up. On loopback only this machine's Prometheus (or an
/// SSH tunnel) reaches it.
pub(super) fn metrics(setup: &Setup) -> Finding {
    const CHECK: &str = "metrics";
    match setup.metrics_listen {
        None => Finding::ok(CHECK, "not served (--metrics-listen unset)"),
        Some(addr) if is_local(addr.ip()) => {
            Finding::ok(CHECK, format!("served on {addr}, this machine only"))
        }
        Some(addr) => Finding::warn(
            CHECK,
            format!("served on {addr}, beyond this machine: anyone who reaches that address reads the site's metrics without a key (what it serves, how busy it is, its backups) and holds connections to it; bind it to 127.0.0.1 (a Prometheus on this machine, or an SSH tunnel), or to a LAN address that a firewall opens to your Prometheus server alone"),
        ),
    }
}

pub(super) fn proxy(conn: Option<&Connection>) -> Finding {
    const CHECK: &str = "proxy";
    let report: Option<ProxyReport> = conn
        .and_then(|c| meta(c, ProxyReport::KEY))
        .and_then(|t| serde_json::from_str(&t).ok());
    let Some(report) = report else {
        return Finding::ok(
            CHECK,
            "no requests seen yet (the running server writes what it sees once a minute)",
        );
    };
    let mut problems = Vec::new();
    // A request or two straight from this machine (curl) is normal; most of them is not.
    if report.from_proxies_bare >= 20 && report.from_proxies_bare * 2 > report.from_proxies {
        problems.push(format!(
            "{} of {} requests from a trusted proxy carried no X-Forwarded-For, so everyone behind it counts as one visitor: set the header in the proxy (README: Behind Caddy or nginx), or --trust-loopback false if nothing on this machine forwards visitors",
            report.from_proxies_bare, report.from_proxies
        ));
    }
    if report.forwarded_from_loopback > 0 {
        problems.push(format!(
            "{} requests from this machine carried X-Forwarded-For, which is not believed while --trust-loopback is off: if Caddy or nginx on this machine forwards visitors, start Hearth with --trust-loopback true (HEARTH_TRUST_LOOPBACK=true); never for a forwarder that passes its clients' headers through (ssh -L, socat)",
            report.forwarded_from_loopback
        ));
    }
    if report.forwarded_by_others > 0 {
        problems.push(format!(
            "{} requests carried forwarding headers from a peer that is not a trusted proxy (ignored): if a proxy on another machine forwards visitors, add it with --trusted-proxy",
            report.forwarded_by_others
        ));
    }
    if problems.is_empty() {
        Finding::ok(
            CHECK,
            format!(
                "{} requests through trusted proxies named their visitor",
                report.from_proxies - report.from_proxies_bare
            ),
        )
    } else {
        Finding::warn(CHECK, problems.join("; "))
    }
}

/// No Hearth runs before this (2025-01-01): a clock before it has not been set.
const EARLIEST: Duration = Duration::from_secs(1_735_689_600);

pub(super) fn clock(conn: Option<&Connection>, now: SystemTime) -> Finding {
    const CHECK: &str = "clock";
    let since_epoch = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    if since_epoch < EARLIEST {
        return Finding::fail(
            CHECK,
            format!("the clock says {}: it has not been set (a Raspberry Pi has no clock of its own: check NTP, timedatectl)", humantime::format_rfc3339_seconds(now)),
        );
    }
    let created = conn
        .and_then(|c| meta(c, "created_at"))
        .and_then(|t| humantime::parse_rfc3339(&t).ok());
    if let Some(created) = created {
        if created > now + Duration::from_secs(86_400) {
            return Finding::fail(
                CHECK,
                format!("the clock says {}, before the database was created ({}): check NTP (timedatectl)", humantime::format_rfc3339_seconds(now), humantime::format_rfc3339_seconds(created)),
            );
        }
    }
    Finding::ok(
        CHECK,
        format!("{} UTC", humantime::format_rfc3339_seconds(now)),
    )
}

pub(super) fn time_zones() -> Finding {
    const CHECK: &str = "tz database";
    let system = [
        "/usr/share/zoneinfo",
        "/usr/share/lib/zoneinfo",
        "/etc/zoneinfo",
    ]
    .into_iter()
    .find(|dir| std::path::Path::new(dir).join("UTC").exists());
    match system {
        Some(dir) => Finding::ok(CHECK, format!("the system's, in {dir}")),
        None => Finding::warn(
            CHECK,
            "no system tz database: time-zone repair uses the copy built into Hearth, which ages with the binary; install tzdata",
        ),
    }
}
