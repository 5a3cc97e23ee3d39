//! What the fuzz targets share: how an input splits into parts, the limits they read with, the
//! fixed "now" windows and history count from, and the checks every remapped feed must pass.
#![allow(dead_code)]

use hearth_engine::{parse, Document, Limits};

/// 2024-01-10 12:00 UTC, a Wednesday: the seeds' events sit around it.
pub const NOW: i64 = 1_704_888_000;

/// The limits the targets read with: the server's, with inputs up to 1 MiB.
pub fn limits() -> Limits {
    Limits {
        max_input_bytes: 1 << 20,
        ..Limits::default()
    }
}

/// The input cut at NUL bytes (which no feed, template or JSON config holds).
pub fn parts(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == 0).collect()
}

/// The remap writes CRLF lines of at most 75 octets (plus CRLF), never splitting UTF-8, and
/// its output parses (within larger limits: prefixes and added properties make it grow).
pub fn check_remapped(bytes: &[u8]) -> Document {
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        assert!(
            line.ends_with(b"\r\n") && line.len() <= 77,
            "bad output line {line:?}"
        );
    }
    reparse(bytes)
}

/// The limits the engine's output is read back with. A merge or remap may add: prefixes and
/// properties (bytes, longer lines), the sources' events together (more events), and the
/// VCALENDAR the merge wraps bare components in (one level deeper: a source of bare components
/// at the depth limit makes a merged feed past it, which the remap answers with the depth
/// error; `crates/engine/tests/fuzz_findings.rs`).
pub fn roomy() -> Limits {
    let limits = Limits::default();
    Limits {
        max_input_bytes: usize::MAX,
        max_events: usize::MAX,
        max_line_bytes: usize::MAX,
        max_depth: limits.max_depth + 1,
    }
}

/// The engine's output parses again.
pub fn reparse(bytes: &[u8]) -> Document {
    match parse(bytes, &roomy()) {
        Ok((doc, _)) => doc,
        Err(e) => panic!(
            "the engine's output does not parse: {e}\n{}",
            String::from_utf8_lossy(bytes)
        ),
    }
}
