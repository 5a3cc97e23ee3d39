//! The lossless ICS parser: content lines, the component tree, limits, warnings and typed errors.
//! `walk` drives both the tree builder here and the streaming writer in `remap`.

mod fold;
pub mod lexer;
pub mod line;
mod tree;
pub mod view;

pub use fold::write_folded;
pub use line::{escape_text, unescape_text};
pub use tree::*;
pub use view::{EventView, Fields};
