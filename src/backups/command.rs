//! `--backup-command`: the owner's shell command, run after each backup with the new file as
//! `$1` and in `$HEARTH_BACKUP_FILE` (to copy it off the SD card with rsync, restic or rclone),
//! within a time limit, its exit status reported and the end of its output logged.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

/// Output kept for the log, from the end.
const MAX_OUTPUT: usize = 2000;

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ran {
    Succeeded,
    /// Exit status, or `None` when a signal ended it.
    Failed(Option<i32>, String),
    TimedOut,
    NotStarted(String),
}

impl Ran {
    pub fn ok(&self) -> bool {
        *self == Ran::Succeeded
    }
}

impl std::fmt::Display for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ran::Succeeded => f.write_str("exited with status 0"),
            Ran::Failed(Some(code), output) if output.is_empty() => {
                write!(f, "exited with status {code}")
            }
            Ran::Failed(Some(code), output) => write!(f, "exited with status {code}: {output}"),
            Ran::Failed(None, _) => f.write_str("was ended by a signal"),
            Ran::TimedOut => f.write_str("ran past its time limit and was stopped"),
            Ran::NotStarted(why) => write!(f, "could not start: {why}"),
        }
    }
}

/// Runs `command` with `sh -c` for the backup at `file`, stopping it after `timeout`.
pub async fn run(command: &str, file: &Path, timeout: Duration) -> Ran {
    let spawned = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .arg("hearth-backup")
        .arg(file)
        .env("HEARTH_BACKUP_FILE", file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => return Ran::NotStarted(e.to_string()),
    };
    let (mut out, mut err) = (child.stdout.take(), child.stderr.take());
    let finished = tokio::time::timeout(timeout, async {
        // Both pipes are drained while the command runs, so it never blocks on a full pipe.
        let mut text = Vec::new();
        let mut text_err = Vec::new();
        let read_out = async {
            if let Some(out) = out.as_mut() {
                let _ = out.read_to_end(&mut text).await;
            }
        };
        let read_err = async {
            if let Some(err) = err.as_mut() {
                let _ = err.read_to_end(&mut text_err).await;
            }
        };
        tokio::join!(read_out, read_err);
        text.extend_from_slice(&text_err);
        (child.wait().await, text)
    })
    .await;
    match finished {
        Err(_) => Ran::TimedOut,
        Ok((Err(e), _)) => Ran::NotStarted(e.to_string()),
        Ok((Ok(status), _)) if status.success() => Ran::Succeeded,
        Ok((Ok(status), output)) => Ran::Failed(status.code(), tail(&output)),
    }
}

/// The last lines of a command's output, trimmed to [`MAX_OUTPUT`] bytes on one line.
fn tail(output: &[u8]) -> String {
    let text = String::from_utf8_lossy(output);
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let start = joined.len().saturating_sub(MAX_OUTPUT);
    let start = (start..=joined.len())
        .find(|i| joined.is_char_boundary(*i))
        .unwrap_or(joined.len());
    joined[start..].to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_file_is_given_and_the_status_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("hearth-20261125T030000Z.db");
        std::fs::write(&file, b"x").expect("writes");
        let copied = dir.path().join("copied.db");
        let copy = format!(
            "cp \"$1\" '{}' && test \"$1\" = \"$HEARTH_BACKUP_FILE\"",
            copied.display()
        );
        assert_eq!(
            run(&copy, &file, Duration::from_secs(30)).await,
            Ran::Succeeded
        );
        assert!(copied.exists());
        let failed = run(
            "echo no route to host >&2; exit 3",
            &file,
            Duration::from_secs(30),
        )
        .await;
        assert_eq!(failed, Ran::Failed(Some(3), "no route to host".into()));
        assert_eq!(failed.to_string(), "exited with status 3: no route to host");
        assert_eq!(
            run("sleep 30", &file, Duration::from_millis(200)).await,
            Ran::TimedOut
        );
    }
}
