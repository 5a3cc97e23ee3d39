//! The engine's peer for `bench/remap.sh`: reads an ICS file with the `ical` crate and writes it
//! to stdout with its generator, as `hearth remap` reads and writes one: its property parser
//! streamed (its faster way), or with `--tree` its parser into calendars.
//! `cargo build --release -p hearth-engine --example ical_peer; ical_peer [--tree] FEED.ics`

#[path = "../benches/peer/mod.rs"]
mod peer;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let tree = args.first().is_some_and(|a| a == "--tree");
    if tree {
        args.remove(0);
    }
    let [path] = &args[..] else {
        eprintln!("usage: ical_peer [--tree] FEED.ics");
        return ExitCode::from(2);
    };
    let written = std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|input| {
            if tree {
                peer::ical_parse_write(&input)
            } else {
                peer::ical_stream(&input)
            }
        })
        .and_then(|out| {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(&out)
                .and_then(|()| stdout.flush())
                .map_err(|e| e.to_string())
        });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ical_peer: {e}");
            ExitCode::FAILURE
        }
    }
}
