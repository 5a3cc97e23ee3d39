//! Rendered feeds too large for their share of the memory cache, kept on disk instead
//! (`<data-dir>/renders/`) and streamed from there in small chunks: a hosted feed larger than
//! the cache is rendered once, not on every poll, and a subscriber that reads slowly holds a
//! 64 KiB buffer, not the whole feed. A file lives as long as the render it belongs to.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use tokio::io::{AsyncRead, ReadBuf};

/// How much of a file one poll of a subscriber's answer reads.
const CHUNK: usize = 64 * 1024;

/// Where spilled renders go, emptied at start (what a previous run left is of no use).
#[derive(Debug)]
pub struct SpillDir {
    dir: PathBuf,
    /// Each file gets a number of its own: two renders may have the same name and bytes.
    next: AtomicU64,
}

impl SpillDir {
    pub fn new(data_dir: &Path) -> SpillDir {
        let dir = data_dir.join("renders");
        if let Err(e) = std::fs::remove_dir_all(&dir) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(dir = %dir.display(), error = %e, "could not empty the renders directory");
            }
        }
        SpillDir {
            dir,
            next: AtomicU64::new(0),
        }
    }

    /// Writes `bytes` as a new file named after `name` (written aside, then renamed, so a
    /// reader never sees half a file); the file is removed when the handle is dropped.
    pub fn write(&self, name: &str, bytes: &[u8]) -> std::io::Result<SpilledFile> {
        std::fs::create_dir_all(&self.dir)?;
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let name = format!("{n}-{name}");
        let path = self.dir.join(&name);
        let partial = self.dir.join(format!(".{name}.part"));
        let written = crate::store::create_owner_only(&partial).and_then(|mut file| {
            use std::io::Write;
            file.write_all(bytes)
        });
        if let Err(e) = written.and_then(|()| std::fs::rename(&partial, &path)) {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        Ok(SpilledFile {
            path,
            len: bytes.len() as u64,
        })
    }
}

/// One spilled file; removed from disk when dropped (answers already reading it keep their
/// open handle, which is all they need).
#[derive(Debug)]
pub struct SpilledFile {
    path: PathBuf,
    len: u64,
}

impl SpilledFile {
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The file as an answer's body, read a chunk at a time.
    pub async fn body(&self) -> std::io::Result<Body> {
        let file = tokio::fs::File::open(&self.path).await?;
        Ok(Body::new(FileBody {
            file,
            left: self.len,
        }))
    }
}

impl Drop for SpilledFile {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(path = %self.path.display(), error = %e, "could not remove a spilled render");
            }
        }
    }
}

struct FileBody {
    file: tokio::fs::File,
    left: u64,
}

impl HttpBody for FileBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if this.left == 0 {
            return Poll::Ready(None);
        }
        let want = CHUNK.min(usize::try_from(this.left).unwrap_or(CHUNK));
        let mut chunk = vec![0u8; want];
        let mut buf = ReadBuf::new(&mut chunk);
        match Pin::new(&mut this.file).poll_read(cx, &mut buf) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => Poll::Ready(Some(Err(e))),
            Poll::Ready(Ok(())) => {
                let n = buf.filled().len();
                if n == 0 {
                    return Poll::Ready(Some(Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "a spilled render was shorter than written",
                    ))));
                }
                chunk.truncate(n);
                this.left -= n as u64;
                Poll::Ready(Some(Ok(http_body::Frame::data(Bytes::from(chunk)))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.left == 0
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_spilled_file_streams_back_whole_and_goes_with_its_handle() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spill = SpillDir::new(dir.path());
        let bytes: Vec<u8> = (0..200_000u32).map(|n| (n % 251) as u8).collect();
        let file = spill.write("a.ics", &bytes).expect("written");
        assert_eq!(file.len(), 200_000);
        let body = file.body().await.expect("opens");
        let read = axum::body::to_bytes(body, 1 << 20).await.expect("reads");
        assert_eq!(read.to_vec(), bytes);
        let path = dir.path().join("renders/0-a.ics");
        assert!(path.exists());
        drop(file);
        assert!(!path.exists(), "removed with its handle");
    }

    #[test]
    fn what_a_previous_run_left_is_removed_at_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("renders")).expect("dir");
        std::fs::write(dir.path().join("renders/old.ics"), b"x").expect("file");
        let _spill = SpillDir::new(dir.path());
        assert!(!dir.path().join("renders/old.ics").exists());
    }
}
