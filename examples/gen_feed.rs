//! Writes a deterministic benchmark feed to stdout: `cargo run --release --example gen_feed -- 10000 > feed.ics`.

#[path = "../crates/engine/benches/feedgen/mod.rs"]
mod feedgen;

use std::io::Write;

fn main() -> std::process::ExitCode {
    let events = match std::env::args().nth(1).map(|a| a.parse::<usize>()) {
        Some(Ok(n)) => n,
        None => 1000,
        Some(Err(_)) => {
            eprintln!("usage: gen_feed [EVENTS]");
            return std::process::ExitCode::from(2);
        }
    };
    let feed = feedgen::feed(events);
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(&feed).and_then(|()| out.flush()) {
        eprintln!("gen_feed: {e}");
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}
