//! The writing pass's side of `properties`: each template rendered for the buffered event,
//! after the mapping; a valid result replaces the event's own property (all its lines), an
//! empty one removes it, one that is not valid leaves the event's own with a warning. With
//! privacy `busy`, `URL` and `CATEGORIES` are not set (privacy removes them: they can say what
//! the event is); `TRANSP`, `CLASS` and `COLOR` still are.

use super::dates::truncate_for_message;
use super::event::StreamEvent;
use crate::config::{CompiledConfig, EventProperty, Privacy};
use crate::interrupt::{Interrupt, Interrupted};

/// What the writer does with one property of the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PropertyEdit {
    pub name: &'static str,
    /// The new line, or `None`: every line of the property is removed.
    pub line: Option<String>,
}

/// The property edits `config` makes to the buffered event (empty when it sets none, or when
/// every template gives what the event has); unusable results are noted in `warnings`
/// against `begin_line`.
pub(super) fn property_edits(
    config: &CompiledConfig,
    view: &StreamEvent<'_, '_>,
    begin_line: u32,
    warnings: &mut Vec<(u32, String)>,
    interrupt: Option<&Interrupt>,
) -> Result<Vec<PropertyEdit>, Interrupted> {
    let busy = config.privacy == Privacy::Busy;
    let mut edits = Vec::new();
    for (property, template) in &config.properties.list {
        if busy && matches!(property, EventProperty::Url | EventProperty::Categories) {
            continue;
        }
        let name = property.name();
        let rendered = template.render_with(view, interrupt)?;
        let rendered = rendered.trim();
        let has = view.props().any(|(_, _, n)| n.eq_ignore_ascii_case(name));
        if rendered.is_empty() {
            if has {
                edits.push(PropertyEdit { name, line: None });
            }
            continue;
        }
        match property.line_value(rendered) {
            Ok(value) => {
                let lines = view
                    .props()
                    .filter(|(_, _, n)| n.eq_ignore_ascii_case(name))
                    .count();
                let same = lines == 1
                    && view
                        .property(name)
                        .is_some_and(|v| v.trim() == rendered && rendered == value);
                if !same {
                    edits.push(PropertyEdit {
                        name,
                        line: Some(format!("{name}:{value}")),
                    });
                }
            }
            Err(message) => warnings.push((
                begin_line,
                format!(
                    "{name} template gave {:?}, not {message}: kept the event's own",
                    truncate_for_message(rendered)
                ),
            )),
        }
    }
    Ok(edits)
}
