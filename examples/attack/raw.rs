//! HTTP/1.1 by hand over TCP, for what an HTTP client library will not do: a body sent slowly,
//! an answer never read, half a request left hanging, each from a loopback address of its own.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::Instant;

/// A connection from `local` to `addr`. `recv_buffer` bounds what the kernel takes in for a
/// reader that never reads (set before connecting, so the window is offered at that size).
pub async fn connect_from(
    local: IpAddr,
    addr: SocketAddr,
    recv_buffer: Option<u32>,
) -> io::Result<TcpStream> {
    let socket = if local.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    if let Some(bytes) = recv_buffer {
        socket.set_recv_buffer_size(bytes)?;
    }
    socket.bind(SocketAddr::new(local, 0))?;
    tokio::time::timeout(Duration::from_secs(3), socket.connect(addr))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))?
}

/// An answer's status and the first few KiB of its body (an error's words).
#[derive(Debug, Clone)]
pub struct Head {
    pub status: u16,
    pub body: String,
}

/// Reads an answer's head and up to 4 KiB of its body (what arrives within a second).
async fn read_answer<R: AsyncRead + Unpin>(reader: &mut R) -> Option<Head> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if buf.len() > 64 * 1024 {
            return None;
        }
        match reader.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let status = status_of(head.as_bytes())?;
    let length = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0)
        .min(4096);
    let deadline = Instant::now() + Duration::from_secs(1);
    while buf.len() < end + length {
        match tokio::time::timeout_at(deadline, reader.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => buf.extend_from_slice(&chunk[..n]),
            _ => break,
        }
    }
    let body_end = buf.len().min(end + length);
    Some(Head {
        status,
        body: String::from_utf8_lossy(&buf[end..body_end]).into_owned(),
    })
}

/// The status of an answer that starts with `HTTP/1.1 NNN`.
pub fn status_of(bytes: &[u8]) -> Option<u16> {
    let line = bytes.split(|b| *b == b'\r').next()?;
    let text = std::str::from_utf8(line).ok()?;
    text.strip_prefix("HTTP/1.")?.get(2..5)?.parse().ok()
}

/// How a slow upload ended.
#[derive(Debug)]
pub enum UploadEnd {
    Answered(Head),
    /// Still sending when the attack stopped.
    Sending,
    /// The server closed the connection without an answer.
    Closed,
    ConnectFailed,
}

impl UploadEnd {
    pub fn key(&self) -> String {
        match self {
            UploadEnd::Answered(head) => head.status.to_string(),
            UploadEnd::Sending => "still-sending".to_owned(),
            UploadEnd::Closed => "closed".to_owned(),
            UploadEnd::ConnectFailed => "connect-error".to_owned(),
        }
    }
}

/// Sends `head` and then a body of `length` bytes at `rate` bytes a second from `local`, reading
/// the answer meanwhile (a server may answer before the body is in); gives up at `until`.
pub async fn slow_upload(
    local: IpAddr,
    addr: SocketAddr,
    head: String,
    length: usize,
    rate: usize,
    until: Instant,
) -> UploadEnd {
    const TICKS_PER_SECOND: usize = 16;
    let Ok(stream) = connect_from(local, addr, None).await else {
        return UploadEnd::ConnectFailed;
    };
    let (mut reader, mut writer) = stream.into_split();
    let send = async move {
        writer.write_all(head.as_bytes()).await?;
        let chunk = (rate / TICKS_PER_SECOND).max(1);
        let filler = vec![0x5a; chunk];
        let mut tick = tokio::time::interval(Duration::from_secs(1) / TICKS_PER_SECOND as u32);
        let mut sent = 0;
        while sent < length {
            tick.tick().await;
            let n = chunk.min(length - sent);
            writer.write_all(&filler[..n]).await?;
            sent += n;
        }
        // Handed back, not dropped: dropping it would half-close the connection, which the
        // server takes for the client leaving.
        Ok::<_, io::Error>(writer)
    };
    let answer = read_answer(&mut reader);
    tokio::pin!(send, answer);
    let mut _writer = None;
    let mut sending = true;
    loop {
        tokio::select! {
            head = &mut answer => {
                return head.map_or(UploadEnd::Closed, UploadEnd::Answered);
            }
            sent = &mut send, if sending => {
                sending = false;
                match sent {
                    Ok(writer) => _writer = Some(writer),
                    // Closed by the server: its answer may be in already.
                    Err(_) => {
                        return match tokio::time::timeout(Duration::from_secs(1), &mut answer).await {
                            Ok(Some(head)) => UploadEnd::Answered(head),
                            _ => UploadEnd::Closed,
                        };
                    }
                }
            }
            () = tokio::time::sleep_until(until) => return UploadEnd::Sending,
        }
    }
}

/// A GET for `path` whose answer is never read: the connection, with a 4 KiB receive buffer, or
/// None when it could not connect.
pub async fn unread_get(local: IpAddr, addr: SocketAddr, path: &str) -> Option<TcpStream> {
    let mut stream = connect_from(local, addr, Some(4096)).await.ok()?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: nonreader\r\n\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    Some(stream)
}

/// What reading a connection to its end showed.
pub struct Drained {
    /// The server had closed it: its end arrived within `max` bytes.
    pub closed: bool,
    pub status: Option<u16>,
}

/// Reads what a connection holds: an end (EOF or reset) within `max` bytes means the server had
/// dropped it (a closed socket still sends what its kernel buffers held, then its end); more than
/// `max`, or nothing for half a second, means it still holds it.
pub async fn drain(stream: &mut TcpStream, max: usize) -> Drained {
    let mut first = Vec::new();
    let mut read = 0;
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match tokio::time::timeout(Duration::from_millis(500), stream.read(&mut chunk)).await {
            Err(_) => {
                return Drained {
                    closed: false,
                    status: status_of(&first),
                }
            }
            Ok(Ok(0)) | Ok(Err(_)) => {
                return Drained {
                    closed: true,
                    status: status_of(&first),
                }
            }
            Ok(Ok(n)) => {
                if first.len() < 64 {
                    first.extend_from_slice(&chunk[..n.min(64)]);
                }
                read += n;
                if read > max {
                    return Drained {
                        closed: false,
                        status: status_of(&first),
                    };
                }
            }
        }
    }
}

/// Half a request from `local` (the head never finished), or None when it could not connect.
pub async fn half_request_from(local: IpAddr, addr: SocketAddr) -> Option<TcpStream> {
    let mut stream = connect_from(local, addr, None).await.ok()?;
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slowloris\r\n")
        .await
        .ok()?;
    Some(stream)
}

/// Waits until the server closes `stream` (EOF or reset), reading and dropping whatever it sends.
pub async fn closed(stream: &mut TcpStream) {
    let mut chunk = [0u8; 4096];
    loop {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// Sockets the server process has open now (its listener, clients, upstream connections).
pub fn server_sockets(pid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            std::fs::read_link(e.path())
                .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"))
        })
        .count()
}

/// What a round of unread answers came to.
pub struct UnreadRound {
    pub connected: usize,
    /// Of those, dropped by the server by the time they were looked at.
    pub closed: usize,
    /// The statuses the answers started with ("?" when none arrived before the end).
    pub statuses: crate::http::Tally,
    /// Sockets the server had open when they were looked at.
    pub server_sockets: usize,
}

/// `n` GETs of `path`, each from its own address `127.net.x.y`, whose answers are never read;
/// after `wait`, how many the server had dropped.
pub async fn unread_round(
    addr: SocketAddr,
    pid: u32,
    path: &str,
    n: usize,
    net: u8,
    wait: Duration,
) -> UnreadRound {
    let began = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for i in 0..n {
        let path = path.to_owned();
        set.spawn(async move { unread_get(crate::http::loopback(net, i), addr, &path).await });
    }
    let streams: Vec<TcpStream> = crate::http::join_all(set)
        .await
        .into_iter()
        .flatten()
        .collect();
    tokio::time::sleep_until(began + wait).await;
    let server_sockets = server_sockets(pid);
    let mut set = tokio::task::JoinSet::new();
    for mut stream in streams {
        // More than 2 MiB still coming means the server still holds the answer open: a dropped
        // connection sends at most what its kernel buffers held (512 KiB here).
        set.spawn(async move { drain(&mut stream, 2 << 20).await });
    }
    let drained = crate::http::join_all(set).await;
    let mut statuses = crate::http::Tally::default();
    for d in &drained {
        statuses.count(d.status.map_or_else(|| "?".to_owned(), |s| s.to_string()));
    }
    UnreadRound {
        connected: drained.len(),
        closed: drained.iter().filter(|d| d.closed).count(),
        statuses,
        server_sockets,
    }
}
