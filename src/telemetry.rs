//! Logging: text (the default) or JSON on stderr; under journald no timestamps and no colours,
//! since the journal adds its own. The level comes from `HEARTH_LOG`: a level (`debug`) and
//! per-module levels after it (`info,tower_http=debug`). Read by tracing-subscriber's `Targets`,
//! which parses exactly that without compiling regular expressions into DFAs (`EnvFilter` did,
//! for span and field filters nobody sets here, at about 75 KB of the binary).

use std::io::IsTerminal;

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::LogFormat;

/// What is logged when `HEARTH_LOG` is unset or does not read.
const DEFAULT_FILTER: &str = "info,tower_http=warn";

pub fn init(format: LogFormat) {
    let filter = read_filter(std::env::var("HEARTH_LOG").ok().as_deref());
    let journald = std::env::var_os("JOURNAL_STREAM").is_some();
    let ansi = !journald && std::io::stderr().is_terminal();
    // The builder's own level (INFO by default) is opened wide: the filter layer decides.
    let builder = tracing_subscriber::fmt()
        .with_max_level(LevelFilter::TRACE)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_target(false);
    // `try_init`: a second initialisation (tests) is not an error worth stopping for.
    let _ = match (format, journald) {
        (LogFormat::Json, true) => builder
            .json()
            .without_time()
            .finish()
            .with(filter)
            .try_init(),
        (LogFormat::Json, false) => builder.json().finish().with(filter).try_init(),
        (LogFormat::Text, true) => builder.without_time().finish().with(filter).try_init(),
        (LogFormat::Text, false) => builder.finish().with(filter).try_init(),
    };
}

/// `HEARTH_LOG` as a filter; the default when it is unset, empty or does not read.
fn read_filter(value: Option<&str>) -> Targets {
    let default = || DEFAULT_FILTER.parse().unwrap_or_default();
    match value.map(str::trim) {
        Some(text) if !text.is_empty() => text.parse().unwrap_or_else(|_| default()),
        _ => default(),
    }
}

#[cfg(test)]
mod tests {
    use tracing::Level;

    use super::read_filter;

    #[test]
    fn a_level_and_per_module_levels_read() {
        let filter = read_filter(Some("info,tower_http=debug"));
        assert!(filter.would_enable("hearth::web", &Level::INFO));
        assert!(!filter.would_enable("hearth::web", &Level::DEBUG));
        assert!(filter.would_enable("tower_http::trace", &Level::DEBUG));
        let debug = read_filter(Some("debug"));
        assert!(debug.would_enable("hearth", &Level::DEBUG));
        assert!(!debug.would_enable("hearth", &Level::TRACE));
    }

    #[test]
    fn unset_or_unreadable_falls_back_to_the_default() {
        for value in [None, Some(""), Some("  "), Some("info,=nonsense=")] {
            let filter = read_filter(value);
            assert!(filter.would_enable("hearth", &Level::INFO), "{value:?}");
            assert!(!filter.would_enable("hearth", &Level::DEBUG), "{value:?}");
            assert!(
                !filter.would_enable("tower_http::trace", &Level::INFO),
                "{value:?}"
            );
            assert!(
                filter.would_enable("tower_http::trace", &Level::WARN),
                "{value:?}"
            );
        }
    }
}
