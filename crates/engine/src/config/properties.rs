//! `properties`: templates in the mapping's syntax setting `TRANSP`, `CATEGORIES`, `CLASS`,
//! `URL` and `COLOR` (RFC 7986) on every kept event, compiled within the mapping's regex
//! budget. What a value must be is stated once here: a constant template whose value is not
//! valid is refused when the config is compiled; a computed value that is not valid is dropped
//! when an event is written (the event keeps its own property, with a warning), as a date
//! template's unusable result is. An empty result removes the property.

use std::collections::BTreeMap;

use crate::ics::line::escape_text;
use crate::template::{RegexBudget, Template, MAX_TEMPLATE_BYTES};

/// Longest `URL` value, in bytes.
pub const MAX_URL_BYTES: usize = 2048;
/// Most categories one event is given.
pub const MAX_CATEGORIES: usize = 32;

/// A property `properties` may set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventProperty {
    Transp,
    Categories,
    Class,
    Url,
    Color,
}

impl EventProperty {
    pub const ALL: [EventProperty; 5] = [
        EventProperty::Transp,
        EventProperty::Categories,
        EventProperty::Class,
        EventProperty::Url,
        EventProperty::Color,
    ];

    /// The property name, which is also the key of `properties`.
    pub fn name(self) -> &'static str {
        match self {
            EventProperty::Transp => "TRANSP",
            EventProperty::Categories => "CATEGORIES",
            EventProperty::Class => "CLASS",
            EventProperty::Url => "URL",
            EventProperty::Color => "COLOR",
        }
    }

    /// The property called `name` (any case).
    pub fn from_name(name: &str) -> Option<EventProperty> {
        EventProperty::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The value as written after the colon (escaped where the property is text), or why the
    /// rendered `value` cannot be one. `value` is trimmed and not empty.
    pub fn line_value(self, value: &str) -> Result<String, String> {
        match self {
            EventProperty::Transp => one_of(value, &["OPAQUE", "TRANSPARENT"]),
            EventProperty::Class => one_of(value, &["PUBLIC", "PRIVATE", "CONFIDENTIAL"]),
            EventProperty::Color => {
                let lower = value.to_ascii_lowercase();
                if CSS_COLOURS.binary_search(&lower.as_str()).is_ok() {
                    Ok(lower)
                } else {
                    Err("a CSS colour name such as teal, crimson or royalblue".to_owned())
                }
            }
            EventProperty::Url => {
                let scheme_end = value.find(':').unwrap_or(0);
                let scheme_ok = scheme_end > 0
                    && value[..scheme_end]
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
                    && value.as_bytes()[0].is_ascii_alphabetic();
                if !scheme_ok
                    || value.len() > MAX_URL_BYTES
                    || value.chars().any(|c| c.is_whitespace() || c.is_control())
                {
                    Err(format!(
                        "an address such as https://example.org/event, without spaces, at most {MAX_URL_BYTES} bytes"
                    ))
                } else {
                    Ok(value.to_owned())
                }
            }
            EventProperty::Categories => {
                let mut seen: Vec<&str> = Vec::new();
                for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    if !seen.iter().any(|s| s.eq_ignore_ascii_case(part)) {
                        seen.push(part);
                    }
                }
                if seen.len() > MAX_CATEGORIES {
                    return Err(format!("at most {MAX_CATEGORIES} categories"));
                }
                let escaped: Vec<String> =
                    seen.iter().map(|c| escape_text(c).into_owned()).collect();
                Ok(escaped.join(","))
            }
        }
    }
}

fn one_of(value: &str, allowed: &[&str]) -> Result<String, String> {
    let upper = value.to_ascii_uppercase();
    if allowed.contains(&upper.as_str()) {
        Ok(upper)
    } else {
        Err(format!("one of {}", allowed.join(", ")))
    }
}

/// The properties of a config, compiled: each with its template, in the order of
/// [`EventProperty::ALL`]. Templates that are `${NAME}` itself change nothing and are left out.
#[derive(Debug, Clone, Default)]
pub struct CompiledProperties {
    pub(crate) list: Vec<(EventProperty, Template)>,
}

impl CompiledProperties {
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Upper-case names the templates read.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.list.iter().flat_map(|(_, t)| t.names())
    }

    pub fn memory_usage(&self) -> usize {
        self.list.iter().map(|(_, t)| t.memory_usage()).sum()
    }
}

/// Checks and compiles `properties` within `budget`: (the JSON path, the message) of the
/// first problem.
pub(crate) fn compile_properties(
    properties: &BTreeMap<String, String>,
    budget: &mut RegexBudget,
) -> Result<CompiledProperties, (String, String)> {
    let mut list = Vec::new();
    for (key, source) in properties {
        let path = format!("properties.{key}");
        let Some(property) = EventProperty::from_name(key) else {
            return Err((
                path,
                "not a property Hearth can set: use TRANSP, CATEGORIES, CLASS, URL or COLOR"
                    .to_owned(),
            ));
        };
        if list.iter().any(|(p, _)| *p == property) {
            return Err((path, "given twice (in another case)".to_owned()));
        }
        if source.len() > MAX_TEMPLATE_BYTES {
            return Err((path, format!("longer than {MAX_TEMPLATE_BYTES} bytes")));
        }
        let (template, errors) = Template::compile_within(source, budget);
        if let Some(e) = errors.into_iter().next() {
            return Err((
                path,
                format!("at character {}: {}", e.position + 1, e.message),
            ));
        }
        if template.is_identity(property.name()) {
            continue;
        }
        if template.names().next().is_none() {
            let value = source.trim();
            if !value.is_empty() {
                if let Err(message) = property.line_value(value) {
                    return Err((path, format!("{value:?} is not {message}")));
                }
            }
        }
        list.push((property, template));
    }
    list.sort_by_key(|(p, _)| *p);
    Ok(CompiledProperties { list })
}

/// The CSS Color Module Level 3 extended colour keywords RFC 7986 names for `COLOR`, sorted.
pub const CSS_COLOURS: [&str; 147] = [
    "aliceblue",
    "antiquewhite",
    "aqua",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanchedalmond",
    "blue",
    "blueviolet",
    "brown",
    "burlywood",
    "cadetblue",
    "chartreuse",
    "chocolate",
    "coral",
    "cornflowerblue",
    "cornsilk",
    "crimson",
    "cyan",
    "darkblue",
    "darkcyan",
    "darkgoldenrod",
    "darkgray",
    "darkgreen",
    "darkgrey",
    "darkkhaki",
    "darkmagenta",
    "darkolivegreen",
    "darkorange",
    "darkorchid",
    "darkred",
    "darksalmon",
    "darkseagreen",
    "darkslateblue",
    "darkslategray",
    "darkslategrey",
    "darkturquoise",
    "darkviolet",
    "deeppink",
    "deepskyblue",
    "dimgray",
    "dimgrey",
    "dodgerblue",
    "firebrick",
    "floralwhite",
    "forestgreen",
    "fuchsia",
    "gainsboro",
    "ghostwhite",
    "gold",
    "goldenrod",
    "gray",
    "green",
    "greenyellow",
    "grey",
    "honeydew",
    "hotpink",
    "indianred",
    "indigo",
    "ivory",
    "khaki",
    "lavender",
    "lavenderblush",
    "lawngreen",
    "lemonchiffon",
    "lightblue",
    "lightcoral",
    "lightcyan",
    "lightgoldenrodyellow",
    "lightgray",
    "lightgreen",
    "lightgrey",
    "lightpink",
    "lightsalmon",
    "lightseagreen",
    "lightskyblue",
    "lightslategray",
    "lightslategrey",
    "lightsteelblue",
    "lightyellow",
    "lime",
    "limegreen",
    "linen",
    "magenta",
    "maroon",
    "mediumaquamarine",
    "mediumblue",
    "mediumorchid",
    "mediumpurple",
    "mediumseagreen",
    "mediumslateblue",
    "mediumspringgreen",
    "mediumturquoise",
    "mediumvioletred",
    "midnightblue",
    "mintcream",
    "mistyrose",
    "moccasin",
    "navajowhite",
    "navy",
    "oldlace",
    "olive",
    "olivedrab",
    "orange",
    "orangered",
    "orchid",
    "palegoldenrod",
    "palegreen",
    "paleturquoise",
    "palevioletred",
    "papayawhip",
    "peachpuff",
    "peru",
    "pink",
    "plum",
    "powderblue",
    "purple",
    "red",
    "rosybrown",
    "royalblue",
    "saddlebrown",
    "salmon",
    "sandybrown",
    "seagreen",
    "seashell",
    "sienna",
    "silver",
    "skyblue",
    "slateblue",
    "slategray",
    "slategrey",
    "snow",
    "springgreen",
    "steelblue",
    "tan",
    "teal",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "whitesmoke",
    "yellow",
    "yellowgreen",
];
