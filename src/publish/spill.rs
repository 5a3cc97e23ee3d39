//! Rendered feeds too large for their share of the memory cache, kept on disk instead
//! (`<data-dir>/renders/`) and streamed from there in small chunks: a hosted feed larger than
//! the cache is rendered once, not on every poll, and a subscriber that reads slowly holds a
//! 64 KiB buffer, not the whole feed. A render is written through a [`SpillWriter`], which keeps
//! it in memory up to its share and goes on to a file past it, so a large render never sits in
//! memory whole. A file lives as long as the render it belongs to.

use std::io::Write;
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
        let mut writer = self.writer(name, 0);
        writer.open_file()?;
        writer.write_all(bytes)?;
        match writer.finish()? {
            Spilled::File(file) => Ok(file),
            Spilled::Memory(_) => Err(std::io::Error::other("the render stayed in memory")),
        }
    }

    /// A writer for a new file named after `name` that keeps what it is given in memory while
    /// that is at most `memory_limit` bytes, and moves it to the file past that.
    pub fn writer(&self, name: &str, memory_limit: usize) -> SpillWriter<'_> {
        SpillWriter {
            spill: self,
            name: name.to_owned(),
            memory_limit,
            memory: Vec::new(),
            file: None,
            len: 0,
        }
    }

    /// The paths of a new file named after `name`: where it is written, where it is renamed.
    fn paths(&self, name: &str) -> (PathBuf, PathBuf) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let name = format!("{n}-{name}");
        (self.dir.join(format!(".{name}.part")), self.dir.join(&name))
    }
}

/// What a [`SpillWriter`] wrote: in memory (at most its limit), or a file.
#[derive(Debug)]
pub enum Spilled {
    Memory(Vec<u8>),
    File(SpilledFile),
}

impl Spilled {
    pub fn len(&self) -> u64 {
        match self {
            Spilled::Memory(bytes) => bytes.len() as u64,
            Spilled::File(file) => file.len(),
        }
    }

    /// On disk, whatever it was (a render kept on disk keeps both forms there).
    pub fn into_file(self, spill: &SpillDir, name: &str) -> std::io::Result<SpilledFile> {
        match self {
            Spilled::File(file) => Ok(file),
            Spilled::Memory(bytes) => spill.write(name, &bytes),
        }
    }
}

/// Writes to memory up to a limit, then to a file (see [`SpillDir::writer`]). Dropped before
/// [`SpillWriter::finish`], it removes its file.
pub struct SpillWriter<'a> {
    spill: &'a SpillDir,
    name: String,
    memory_limit: usize,
    memory: Vec<u8>,
    /// The file being written: the writer, its partial path, its final path.
    file: Option<(std::io::BufWriter<std::fs::File>, PathBuf, PathBuf)>,
    len: u64,
}

impl SpillWriter<'_> {
    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    fn open_file(&mut self) -> std::io::Result<()> {
        if self.file.is_some() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.spill.dir)?;
        let (partial, path) = self.spill.paths(&self.name);
        let file = crate::store::create_owner_only(&partial)?;
        let mut writer = std::io::BufWriter::with_capacity(CHUNK, file);
        let moved = writer.write_all(&self.memory);
        self.file = Some((writer, partial, path));
        moved?;
        // What was in memory is on its way to the file: the memory goes now.
        self.memory = Vec::new();
        Ok(())
    }

    /// What was written, in memory or as a file in place under its final name.
    pub fn finish(mut self) -> std::io::Result<Spilled> {
        let Some((writer, partial, path)) = self.file.take() else {
            return Ok(Spilled::Memory(std::mem::take(&mut self.memory)));
        };
        let placed = writer
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)
            .and_then(|file| file.sync_data())
            .and_then(|()| std::fs::rename(&partial, &path));
        if let Err(e) = placed {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        Ok(Spilled::File(SpilledFile {
            path,
            len: self.len,
        }))
    }
}

impl Write for SpillWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.file.is_none() && self.memory.len() + buf.len() > self.memory_limit {
            self.open_file()?;
        }
        match &mut self.file {
            Some((writer, _, _)) => writer.write_all(buf)?,
            None => self.memory.extend_from_slice(buf),
        }
        self.len += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some((writer, _, _)) => writer.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for SpillWriter<'_> {
    fn drop(&mut self) {
        if let Some((_, partial, _)) = self.file.take() {
            let _ = std::fs::remove_file(partial);
        }
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
    fn a_writer_keeps_what_fits_in_memory_and_moves_the_rest_to_a_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spill = SpillDir::new(dir.path());
        let mut small = spill.writer("small.ics", 100);
        small.write_all(&[b'a'; 60]).expect("writes");
        small.write_all(&[b'b'; 40]).expect("writes");
        assert!(matches!(small.finish().expect("done"), Spilled::Memory(m) if m.len() == 100));
        let mut large = spill.writer("large.ics", 100);
        large.write_all(&[b'a'; 60]).expect("writes");
        large.write_all(&[b'b'; 60]).expect("writes");
        assert!(large.memory.is_empty(), "the memory went to the file");
        let Spilled::File(file) = large.finish().expect("done") else {
            panic!("spilled");
        };
        assert_eq!(file.len(), 120);
        let on_disk = std::fs::read(&file.path).expect("reads");
        assert_eq!(&on_disk[..60], &[b'a'; 60]);
        assert_eq!(&on_disk[60..], &[b'b'; 60]);
        // A writer given up on leaves nothing.
        let mut dropped = spill.writer("dropped.ics", 10);
        dropped.write_all(&[b'x'; 20]).expect("writes");
        drop(dropped);
        let left: Vec<_> = std::fs::read_dir(dir.path().join("renders"))
            .expect("lists")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left.len(), 1, "only the finished file: {left:?}");
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
