//! The engine's peer for `bench/remap.sh`: reads an ICS file with the `ical` crate's parser and
//! writes it to stdout with its generator, as `hearth remap` reads and writes one.
//! `cargo build --release -p hearth-engine --example ical_peer; ical_peer FEED.ics > out.ics`

#[path = "../benches/peer/mod.rs"]
mod peer;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: ical_peer FEED.ics");
        return ExitCode::from(2);
    };
    let written = std::fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|input| peer::ical_parse_write(&input))
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
