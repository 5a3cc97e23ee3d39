//! Logging: text (the default) or JSON on stderr; under journald no timestamps and no colours,
//! since the journal adds its own. The level comes from `HEARTH_LOG` (e.g. `debug`).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_env("HEARTH_LOG")
        .unwrap_or_else(|_| EnvFilter::new("info,tower_http=warn"));
    let journald = std::env::var_os("JOURNAL_STREAM").is_some();
    let ansi = !journald && std::io::stderr().is_terminal();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_target(false);
    // `try_init`: a second initialisation (tests) is not an error worth stopping for.
    let _ = match (format, journald) {
        (LogFormat::Json, true) => builder.json().without_time().try_init(),
        (LogFormat::Json, false) => builder.json().try_init(),
        (LogFormat::Text, true) => builder.without_time().try_init(),
        (LogFormat::Text, false) => builder.try_init(),
    };
}
