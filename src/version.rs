//! The version line every part reports (`--version`, `/healthz`, the database's record of which
//! binary migrated it): the crate version and the git revision it was built from. A leaf, so the
//! store can name it without importing the configuration.

pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("HEARTH_GIT_REV"), ")");
