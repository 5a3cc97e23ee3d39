//! The lossless ICS parser: content lines (`lexer`, `line`), their text (`text`), the walk that
//! keeps the component stack within the limits (`walk`, `limits`), the component tree (`tree`)
//! and the event as templates see it (`view`); `fold` writes lines back. `walk` drives both the
//! tree builder and the streaming writer in `remap`.

mod fold;
pub mod lexer;
mod limits;
pub mod line;
mod text;
mod tree;
pub mod view;
mod walk;

pub use fold::write_folded;
pub(crate) use limits::Warnings;
pub use limits::{Limits, ParseError, Warning, MAX_WARNINGS};
pub use line::{escape_text, unescape_text};
pub(crate) use text::{line_name, text};
pub(crate) use tree::parse_property;
pub use tree::{check, parse, Checked, Component, Document, Item, Param, Property};
pub use view::{EventView, Fields};
pub(crate) use walk::{walk, Flow, Visitor, GO_ON};

#[cfg(test)]
mod tests;
