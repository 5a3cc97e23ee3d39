//! systemd integration without a library: `READY=1` once the socket is bound (Type=notify),
//! `WATCHDOG=1` at half the watchdog interval but only while the database answers, so a wedged
//! database gets the service restarted, and `STOPPING=1` on shutdown. Does nothing elsewhere.

use std::time::Duration;

use crate::store::Db;

/// Sends one state line to the service manager, if there is one.
pub fn notify(state: &str) {
    let Some(path) = std::env::var_os("NOTIFY_SOCKET") else {
        return;
    };
    if let Err(e) = send(&path, state) {
        tracing::debug!(error = %e, state, "sd_notify failed");
    }
}

#[cfg(target_os = "linux")]
fn send(path: &std::ffi::OsStr, state: &str) -> std::io::Result<()> {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::net::{SocketAddr, UnixDatagram};

    let socket = UnixDatagram::unbound()?;
    let bytes = path.as_bytes();
    // A leading '@' names a socket in the abstract namespace.
    let addr = match bytes.strip_prefix(b"@") {
        Some(name) => SocketAddr::from_abstract_name(name)?,
        None => SocketAddr::from_pathname(std::path::Path::new(path))?,
    };
    socket.send_to_addr(state.as_bytes(), &addr)?;
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn send(_: &std::ffi::OsStr, _: &str) -> std::io::Result<()> {
    Ok(())
}

/// The watchdog interval systemd asked for (`WatchdogSec=`), meant for this process, or for its
/// parent when that is `litestream replicate -exec`, which starts Hearth and does not ping
/// (deploy/hearth-litestream.service lets Hearth ping for it with `NotifyAccess=all`).
fn watchdog_interval() -> Option<Duration> {
    let usec: u64 = std::env::var("WATCHDOG_USEC").ok()?.parse().ok()?;
    if let Ok(pid) = std::env::var("WATCHDOG_PID") {
        let pid = pid.parse::<u32>().ok()?;
        if pid != std::process::id() && pid != std::os::unix::process::parent_id() {
            return None;
        }
    }
    (usec > 0).then(|| Duration::from_micros(usec))
}

/// Pings the watchdog at half its interval while the database answers.
pub fn spawn_watchdog(db: Db) {
    let Some(interval) = watchdog_interval() else {
        return;
    };
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval / 2);
        loop {
            ticker.tick().await;
            match db.check().await {
                Ok(()) => notify("WATCHDOG=1"),
                Err(e) => {
                    tracing::warn!(error = %e, "database check failed: not pinging the watchdog")
                }
            }
        }
    });
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn sends_the_state_to_the_socket_systemd_names() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("notify.sock");
        let listener = std::os::unix::net::UnixDatagram::bind(&path).expect("bind");
        send(path.as_os_str(), "READY=1").expect("sends");
        let mut buf = [0u8; 64];
        let n = listener.recv(&mut buf).expect("receives");
        assert_eq!(&buf[..n], b"READY=1");
    }
}
