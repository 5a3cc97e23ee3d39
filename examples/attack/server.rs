//! The server process and its monitors: RSS sampled every 10 ms, /healthz probed every 50 ms.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::http::{probe_client, probe_once};
use crate::{PROBE_EVERY, PROBE_TIMEOUT, RSS_EVERY};

pub struct Server {
    child: Arc<Mutex<Child>>,
    pub pid: u32,
    /// Where it answers on 127.0.0.1 (also when it listens on every address).
    pub addr: SocketAddr,
    log: Arc<Mutex<VecDeque<String>>>,
    // Last: removed after the process is gone (Drop kills it first).
    data_dir: tempfile::TempDir,
}

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Server {
    /// `hearth serve` on `listen` (a free port of it) with a fresh data directory; `nofile` sets
    /// its descriptor limit (through the shell's ulimit, as systemd would set it).
    pub fn start(
        bin: &Path,
        listen: &str,
        extra: &[&str],
        nofile: Option<u32>,
    ) -> Result<Server, String> {
        let data_dir = tempfile::tempdir().map_err(|e| format!("temporary data directory: {e}"))?;
        let mut cmd = match nofile {
            Some(n) => {
                let mut cmd = Command::new("bash");
                cmd.arg("-c")
                    .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                    .arg(bin);
                cmd
            }
            None => Command::new(bin),
        };
        cmd.arg("serve")
            .arg("--listen")
            .arg(listen)
            .arg("--data-dir")
            .arg(data_dir.path())
            .arg("--allow-private-feeds")
            .args(extra);
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("HEARTH_") || key == "STATE_DIRECTORY" {
                cmd.env_remove(key);
            }
        }
        // The attacks come through "the proxy on this machine" (X-Forwarded-For from loopback)
        // unless an attack says otherwise with `--trust-loopback false`.
        cmd.env("HEARTH_LOG", "info")
            .env("HEARTH_TRUST_LOOPBACK", "true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| format!("{}: {e}", bin.display()))?;
        let pid = child.id();
        let log = Arc::new(Mutex::new(VecDeque::new()));
        let (tx, rx) = mpsc::channel();
        if let Some(stderr) = child.stderr.take() {
            let log = log.clone();
            // Reads the log to the end, so the server never blocks on a full pipe.
            std::thread::spawn(move || {
                let mut tx = Some(tx);
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    if let Some(rest) = line.split("listening on http://").nth(1) {
                        let addr: String = rest
                            .chars()
                            .take_while(|c| c.is_ascii_hexdigit() || ".:[]".contains(*c))
                            .collect();
                        if let (Some(tx), Ok(addr)) = (tx.take(), addr.parse::<SocketAddr>()) {
                            let _ = tx.send(addr);
                        }
                    }
                    let mut log = lock(&log);
                    if log.len() >= 8 {
                        log.pop_front();
                    }
                    log.push_back(line);
                }
            });
        }
        let server = |addr| Server {
            child: Arc::new(Mutex::new(child)),
            pid,
            addr,
            log,
            data_dir,
        };
        match rx.recv_timeout(Duration::from_secs(20)) {
            // A server on every address (`[::]`) is probed on 127.0.0.1 like the others.
            Ok(addr) if addr.ip().is_unspecified() => {
                Ok(server(SocketAddr::from(([127, 0, 0, 1], addr.port()))))
            }
            Ok(addr) => Ok(server(addr)),
            Err(_) => {
                let server = server(SocketAddr::from(([127, 0, 0, 1], 0)));
                Err(format!(
                    "hearth serve did not say where it listens; log: {}",
                    server.log_tail()
                ))
            }
        }
    }

    /// The server's data directory (its SQLite file is `hearth.db` in it).
    pub fn data_dir(&self) -> &Path {
        self.data_dir.path()
    }

    pub fn log_tail(&self) -> String {
        lock(&self.log)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" / ")
    }

    /// How the server ended, if it did.
    pub fn exited(&self) -> Option<String> {
        match lock(&self.child).try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            _ => None,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let mut child = lock(&self.child);
        let _ = child.kill();
        let _ = child.wait();
    }
}

pub struct ProcStatus {
    pub rss_kb: u64,
    hwm_kb: u64,
}

pub fn read_status(pid: u32) -> Option<ProcStatus> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
    };
    Some(ProcStatus {
        rss_kb: field("VmRSS:")?,
        hwm_kb: field("VmHWM:").unwrap_or(0),
    })
}

#[derive(Default)]
pub struct RssStats {
    pub peak_kb: u64,
    pub capped: bool,
}

#[derive(Default)]
pub struct ProbeStats {
    pub probes: usize,
    pub failures: usize,
    pub worst: Duration,
}

/// RSS every 10 ms (killing the server above the cap) and /healthz every 50 ms, each on its own
/// thread, so a busy attack runtime does not slow the measurement.
pub struct Monitor {
    stop: Arc<AtomicBool>,
    stop_probe: tokio::sync::watch::Sender<bool>,
    rss: JoinHandle<RssStats>,
    probe: JoinHandle<ProbeStats>,
}

impl Monitor {
    pub fn start(server: &Server, cap_kb: u64) -> Result<Monitor, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let pid = server.pid;
        let child = server.child.clone();
        let flag = stop.clone();
        let rss = std::thread::Builder::new()
            .name("rss".into())
            .spawn(move || {
                let mut stats = RssStats::default();
                while !flag.load(Ordering::SeqCst) {
                    if let Some(s) = read_status(pid) {
                        stats.peak_kb = stats.peak_kb.max(s.rss_kb).max(s.hwm_kb);
                        if s.rss_kb > cap_kb && !stats.capped {
                            stats.capped = true;
                            let _ = lock(&child).kill();
                        }
                    }
                    std::thread::sleep(RSS_EVERY);
                }
                stats
            })
            .map_err(|e| format!("rss thread: {e}"))?;

        let client = probe_client(PROBE_TIMEOUT)?;
        let url = format!("http://{}/healthz", server.addr);
        let (stop_probe, mut stopped) = tokio::sync::watch::channel(false);
        let probe = std::thread::Builder::new()
            .name("probe".into())
            .spawn(move || {
                let mut stats = ProbeStats::default();
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return stats;
                };
                rt.block_on(async {
                    loop {
                        let began = Instant::now();
                        tokio::select! {
                            ok = probe_once(&client, &url) => {
                                stats.probes += 1;
                                stats.failures += usize::from(!ok);
                                stats.worst = stats.worst.max(began.elapsed());
                            }
                            // A probe still stuck when the attack ends counts for the worst.
                            _ = stopped.changed() => {
                                stats.worst = stats.worst.max(began.elapsed());
                                break;
                            }
                        }
                        tokio::select! {
                            () = tokio::time::sleep_until((began + PROBE_EVERY).into()) => {}
                            _ = stopped.changed() => break,
                        }
                    }
                });
                stats
            })
            .map_err(|e| format!("probe thread: {e}"))?;
        Ok(Monitor {
            stop,
            stop_probe,
            rss,
            probe,
        })
    }

    pub fn finish(self) -> (RssStats, ProbeStats) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.stop_probe.send(true);
        let rss = self.rss.join().unwrap_or_default();
        let probe = self.probe.join().unwrap_or_default();
        (rss, probe)
    }
}
