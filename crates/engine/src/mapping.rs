//! The mapping: the five field templates of a calendar, as the browser and the mapping file give
//! them, and compiled once (within one regex budget) to render for many events.

use serde::{Deserialize, Serialize};

use crate::ics::Fields;
use crate::interrupt::{Interrupt, Interrupted};
use crate::template::{RegexBudget, Template, TemplateError};

/// The five event properties a mapping sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MappedField {
    Summary,
    Description,
    Location,
    Dtstart,
    Dtend,
}

impl MappedField {
    pub const ALL: [MappedField; 5] = [
        MappedField::Summary,
        MappedField::Description,
        MappedField::Location,
        MappedField::Dtstart,
        MappedField::Dtend,
    ];

    /// The property name, which is also the mapping key.
    pub fn name(self) -> &'static str {
        match self {
            MappedField::Summary => "SUMMARY",
            MappedField::Description => "DESCRIPTION",
            MappedField::Location => "LOCATION",
            MappedField::Dtstart => "DTSTART",
            MappedField::Dtend => "DTEND",
        }
    }

    /// The field called `name` (any case).
    pub fn from_name(name: &str) -> Option<MappedField> {
        MappedField::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    pub(crate) fn is_date(self) -> bool {
        matches!(self, MappedField::Dtstart | MappedField::Dtend)
    }
}

fn default_template(field: MappedField) -> String {
    format!("${{{}}}", field.name())
}

/// The templates of a calendar, as the browser and the mapping file give them. A key left out
/// keeps its default, the field's own token (`"SUMMARY": "${SUMMARY}"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    #[serde(rename = "SUMMARY", default = "default_summary")]
    pub summary: String,
    #[serde(rename = "DESCRIPTION", default = "default_description")]
    pub description: String,
    #[serde(rename = "LOCATION", default = "default_location")]
    pub location: String,
    #[serde(rename = "DTSTART", default = "default_dtstart")]
    pub dtstart: String,
    #[serde(rename = "DTEND", default = "default_dtend")]
    pub dtend: String,
}

fn default_summary() -> String {
    default_template(MappedField::Summary)
}
fn default_description() -> String {
    default_template(MappedField::Description)
}
fn default_location() -> String {
    default_template(MappedField::Location)
}
fn default_dtstart() -> String {
    default_template(MappedField::Dtstart)
}
fn default_dtend() -> String {
    default_template(MappedField::Dtend)
}

impl Default for Mapping {
    fn default() -> Self {
        Mapping {
            summary: default_summary(),
            description: default_description(),
            location: default_location(),
            dtstart: default_dtstart(),
            dtend: default_dtend(),
        }
    }
}

impl Mapping {
    /// The template of `field`.
    pub fn get(&self, field: MappedField) -> &str {
        match field {
            MappedField::Summary => &self.summary,
            MappedField::Description => &self.description,
            MappedField::Location => &self.location,
            MappedField::Dtstart => &self.dtstart,
            MappedField::Dtend => &self.dtend,
        }
    }

    /// Sets the template of `field`.
    pub fn set(&mut self, field: MappedField, template: impl Into<String>) {
        let slot = match field {
            MappedField::Summary => &mut self.summary,
            MappedField::Description => &mut self.description,
            MappedField::Location => &mut self.location,
            MappedField::Dtstart => &mut self.dtstart,
            MappedField::Dtend => &mut self.dtend,
        };
        *slot = template.into();
    }
}

#[derive(Debug, Clone)]
struct FieldTemplate {
    template: Template,
    /// `${FIELD}` itself: the property is left exactly as it is.
    identity: bool,
}

/// A mapping with every template compiled once, to render for many events.
#[derive(Debug, Clone)]
pub struct CompiledMapping {
    fields: [FieldTemplate; 5],
    /// Upper-case names the writer reads per event: those the changing templates use and the
    /// changing fields themselves. Only these are computed for each event.
    pub(crate) needed: Vec<String>,
}

impl Default for CompiledMapping {
    fn default() -> Self {
        CompiledMapping::compile_lenient(&Mapping::default()).0
    }
}

impl CompiledMapping {
    /// Compiles every template; the first problem is an error naming the field.
    pub fn compile(mapping: &Mapping) -> Result<CompiledMapping, TemplateError> {
        let (compiled, mut errors) = CompiledMapping::compile_lenient(mapping);
        if errors.is_empty() {
            Ok(compiled)
        } else {
            Err(errors.swap_remove(0))
        }
    }

    /// Compiles every template and collects all problems (each naming its field); the result
    /// still renders, a broken token leaving its value unchanged.
    pub fn compile_lenient(mapping: &Mapping) -> (CompiledMapping, Vec<TemplateError>) {
        CompiledMapping::compile_within(mapping, &mut RegexBudget::default())
    }

    /// As [`CompiledMapping::compile_lenient`], spending from `budget`, which a calendar's
    /// filters share with its mapping.
    pub fn compile_within(
        mapping: &Mapping,
        budget: &mut RegexBudget,
    ) -> (CompiledMapping, Vec<TemplateError>) {
        let mut errors = Vec::new();
        let fields = MappedField::ALL.map(|field| {
            let (template, errs) = Template::compile_within(mapping.get(field), budget);
            errors.extend(errs.into_iter().map(|mut e| {
                e.field = field.name().to_owned();
                e
            }));
            let identity = template.is_identity(field.name());
            FieldTemplate { template, identity }
        });
        let mut needed: Vec<String> = Vec::new();
        for (field, slot) in MappedField::ALL.iter().zip(&fields) {
            if slot.identity {
                continue;
            }
            let names = slot.template.names().chain(std::iter::once(field.name()));
            for name in names {
                if !needed.iter().any(|n| n == name) {
                    needed.push(name.to_owned());
                }
            }
        }
        (CompiledMapping { fields, needed }, errors)
    }

    fn slot(&self, field: MappedField) -> &FieldTemplate {
        &self.fields[field as usize]
    }

    /// The compiled template of `field`.
    pub fn template(&self, field: MappedField) -> &Template {
        &self.slot(field).template
    }

    /// Whether `field` keeps its property exactly as upstream has it.
    pub fn is_identity(&self, field: MappedField) -> bool {
        self.slot(field).identity
    }

    /// Heap memory the compiled mapping holds, for cache budgets.
    pub fn memory_usage(&self) -> usize {
        self.fields
            .iter()
            .map(|f| f.template.memory_usage())
            .sum::<usize>()
            + self.needed.iter().map(String::len).sum::<usize>()
    }

    /// Whether the whole mapping leaves events as they are.
    pub fn is_default(&self) -> bool {
        self.fields.iter().all(|f| f.identity)
    }

    /// Renders one field for one event.
    pub fn render<F: Fields + ?Sized>(&self, field: MappedField, fields: &F) -> String {
        self.slot(field).template.render(fields)
    }

    /// As [`CompiledMapping::render`], stopping with [`Interrupted`] once `interrupt` is
    /// stopped (see [`Template::render_checked`]).
    pub fn render_checked<F: Fields + ?Sized>(
        &self,
        field: MappedField,
        fields: &F,
        interrupt: &Interrupt,
    ) -> Result<String, Interrupted> {
        self.render_with(field, fields, Some(interrupt))
    }

    /// Renders one field, checking `interrupt` when there is one.
    pub(crate) fn render_with<F: Fields + ?Sized>(
        &self,
        field: MappedField,
        fields: &F,
        interrupt: Option<&Interrupt>,
    ) -> Result<String, Interrupted> {
        self.slot(field).template.render_with(fields, interrupt)
    }

    /// Renders all five fields, in the order of `MappedField::ALL`.
    pub fn render_all<F: Fields + ?Sized>(&self, fields: &F) -> Vec<(MappedField, String)> {
        MappedField::ALL
            .into_iter()
            .map(|f| (f, self.render(f, fields)))
            .collect()
    }

    /// As [`CompiledMapping::render_all`], stopping with [`Interrupted`] once `interrupt` is
    /// stopped.
    pub fn render_all_checked<F: Fields + ?Sized>(
        &self,
        fields: &F,
        interrupt: &Interrupt,
    ) -> Result<Vec<(MappedField, String)>, Interrupted> {
        MappedField::ALL
            .into_iter()
            .map(|f| Ok((f, self.render_checked(f, fields, interrupt)?)))
            .collect()
    }
}
