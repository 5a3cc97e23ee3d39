//! The event as templates see it (DESIGN.md): upper-case property name to unescaped value,
//! parameter names as extra keys, a property winning over a parameter, repeats joined with ", ".

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

use super::tree::{Component, Document, Property};

/// A source of named values for templates: an event view, or a key/value map from the browser.
pub trait Fields {
    /// The value of `name` (upper-case), or `None` when the event has no such key.
    fn field(&self, name: &str) -> Option<Cow<'_, str>>;
}

fn map_lookup<'m>(
    exact: Option<&'m String>,
    mut all: impl Iterator<Item = (&'m String, &'m String)>,
    name: &str,
) -> Option<Cow<'m, str>> {
    exact
        .or_else(|| {
            all.find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        })
        .map(|v| Cow::Borrowed(v.as_str()))
}

impl<S: std::hash::BuildHasher> Fields for HashMap<String, String, S> {
    fn field(&self, name: &str) -> Option<Cow<'_, str>> {
        map_lookup(self.get(name), self.iter(), name)
    }
}

impl Fields for BTreeMap<String, String> {
    fn field(&self, name: &str) -> Option<Cow<'_, str>> {
        map_lookup(self.get(name), self.iter(), name)
    }
}

impl<F: Fields + ?Sized> Fields for &F {
    fn field(&self, name: &str) -> Option<Cow<'_, str>> {
        (**self).field(name)
    }
}

/// A property as the field rules see it; implemented by parsed properties and by the writer's
/// raw lines, so that both views of an event follow one definition ([`resolve`]).
pub(crate) trait PropertyLike<'a> {
    /// Whether the property is called `name` (upper-case).
    fn is(&self, name: &str) -> bool;
    /// The unescaped value.
    fn value(&self) -> Cow<'a, str>;
    /// The parameters as (name, values joined with ",").
    fn params(&self) -> Vec<(String, String)>;
}

/// The fields `names` (upper-case) of one event, by the rules of DESIGN.md, in one place:
/// the values of the event's properties of that name joined with ", " (`properties`); for a
/// name no property has, the first parameter of that name, its values joined with ","
/// (`parameters`). One pass for the properties, one more only if some name is missing.
pub(crate) struct Resolved<'a> {
    pub properties: Vec<Option<Cow<'a, str>>>,
    pub parameters: Vec<Option<String>>,
}

impl Resolved<'_> {
    /// The field at `i`: its property value, else its parameter value.
    pub fn field(&self, i: usize) -> Option<&str> {
        self.properties[i]
            .as_deref()
            .or(self.parameters[i].as_deref())
    }
}

pub(crate) fn resolve<'a, P, I, N>(props: I, names: &[N]) -> Resolved<'a>
where
    P: PropertyLike<'a>,
    I: Iterator<Item = P> + Clone,
    N: AsRef<str>,
{
    let mut properties: Vec<Option<Cow<'a, str>>> = vec![None; names.len()];
    for p in props.clone() {
        let Some(i) = names.iter().position(|n| p.is(n.as_ref())) else {
            continue;
        };
        let v = p.value();
        properties[i] = Some(match properties[i].take() {
            None => v,
            Some(prev) => Cow::Owned(format!("{prev}, {v}")),
        });
    }
    let mut parameters: Vec<Option<String>> = vec![None; names.len()];
    if properties.iter().any(Option::is_none) {
        for p in props {
            for (pname, values) in p.params() {
                let slot = names.iter().enumerate().position(|(i, n)| {
                    properties[i].is_none()
                        && parameters[i].is_none()
                        && n.as_ref().eq_ignore_ascii_case(&pname)
                });
                if let Some(i) = slot {
                    parameters[i] = Some(values);
                }
            }
        }
    }
    Resolved {
        properties,
        parameters,
    }
}

impl<'a> PropertyLike<'a> for &'a Property {
    fn is(&self, name: &str) -> bool {
        self.name == name
    }

    fn value(&self) -> Cow<'a, str> {
        self.text()
    }

    fn params(&self) -> Vec<(String, String)> {
        self.params
            .iter()
            .map(|p| (p.name.clone(), p.values.join(",")))
            .collect()
    }
}

/// One VEVENT of a parsed `Document`, computed on demand: nothing is built until asked.
#[derive(Debug, Clone, Copy)]
pub struct EventView<'a> {
    component: &'a Component,
}

impl<'a> EventView<'a> {
    pub(crate) fn new(component: &'a Component) -> Self {
        EventView { component }
    }

    /// The VEVENT itself.
    pub fn component(&self) -> &'a Component {
        self.component
    }

    fn properties(&self) -> impl Iterator<Item = &'a Property> + Clone + 'a {
        self.component.properties()
    }

    /// The value of `name` (upper-case) by the rules of DESIGN.md.
    pub fn get(&self, name: &str) -> Option<Cow<'a, str>> {
        let mut resolved = resolve(self.properties(), &[name]);
        match resolved.properties.pop().flatten() {
            Some(value) => Some(value),
            None => resolved.parameters.pop().flatten().map(Cow::Owned),
        }
    }

    /// The whole view as an ordered map, for the browser.
    pub fn to_map(&self) -> BTreeMap<String, String> {
        let mut map: BTreeMap<String, String> = BTreeMap::new();
        let mut from_props: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for p in self.properties() {
            let v = p.text();
            if from_props.insert(p.name.as_str()) {
                map.insert(p.name.clone(), v.into_owned());
            } else if let Some(existing) = map.get_mut(&p.name) {
                existing.push_str(", ");
                existing.push_str(&v);
            }
        }
        for p in self.properties() {
            for param in &p.params {
                map.entry(param.name.clone())
                    .or_insert_with(|| param.values.join(","));
            }
        }
        map
    }
}

impl Fields for EventView<'_> {
    fn field(&self, name: &str) -> Option<Cow<'_, str>> {
        self.get(name)
    }
}

/// The events of a parsed feed as views: here rather than in `tree`, so that the tree does not
/// import its own views.
impl Document {
    /// The events in input order, as lazy key/value views.
    pub fn events(&self) -> impl Iterator<Item = EventView<'_>> {
        fn collect<'d>(c: &'d Component, out: &mut Vec<&'d Component>) {
            if c.name == "VEVENT" {
                out.push(c);
                return;
            }
            for child in c.children() {
                collect(child, out);
            }
        }
        let mut found = Vec::with_capacity(self.event_count());
        for c in &self.components {
            collect(c, &mut found);
        }
        found.into_iter().map(EventView::new)
    }

    /// Event `index` (0-based) as a lazy key/value view.
    pub fn event(&self, index: usize) -> Option<EventView<'_>> {
        self.events().nth(index)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse, Limits};
    use super::*;

    const FEED: &[u8] = b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Tea\\, cake\\nand more\r\n\
DTSTART;TZID=Europe/Paris:20240101T100000\r\nATTENDEE;CN=Ann:mailto:a@x\r\n\
ATTENDEE;CN=Bob:mailto:b@x\r\nX-CN;CN=Param:prop\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n\
END:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

    #[test]
    fn event_view_unescapes_values_and_adds_parameters() {
        let (doc, _) = parse(FEED, &Limits::default()).expect("parses");
        let ev = doc.event(0).expect("one event");
        assert_eq!(ev.get("SUMMARY").as_deref(), Some("Tea, cake\nand more"));
        assert_eq!(ev.get("TZID").as_deref(), Some("Europe/Paris"));
        assert_eq!(ev.get("CN").as_deref(), Some("Ann"));
        assert_eq!(ev.get("NOPE"), None);
    }

    #[test]
    fn repeated_properties_join_with_comma_space() {
        let (doc, _) = parse(FEED, &Limits::default()).expect("parses");
        let ev = doc.event(0).expect("one event");
        assert_eq!(
            ev.get("ATTENDEE").as_deref(),
            Some("mailto:a@x, mailto:b@x")
        );
        assert_eq!(ev.to_map()["ATTENDEE"], "mailto:a@x, mailto:b@x");
    }

    #[test]
    fn property_wins_over_parameter_of_the_same_name() {
        let raw = b"BEGIN:VEVENT\nX;SUMMARY=param:v\nSUMMARY:prop\nEND:VEVENT\n";
        let (doc, _) = parse(raw, &Limits::default()).expect("parses");
        let ev = doc.event(0).expect("one event");
        assert_eq!(ev.get("SUMMARY").as_deref(), Some("prop"));
        assert_eq!(ev.to_map()["SUMMARY"], "prop");
    }

    #[test]
    fn view_skips_properties_of_sub_components() {
        let (doc, _) = parse(FEED, &Limits::default()).expect("parses");
        let map = doc.event(0).expect("one event").to_map();
        assert!(!map.contains_key("ACTION"));
        assert_eq!(map["CN"], "Ann");
    }

    #[test]
    fn maps_answer_fields_case_insensitively() {
        let mut m = HashMap::new();
        m.insert("summary".to_owned(), "x".to_owned());
        assert_eq!(m.field("SUMMARY").as_deref(), Some("x"));
        let b: BTreeMap<String, String> = [("A".to_owned(), "1".to_owned())].into();
        assert_eq!(b.field("A").as_deref(), Some("1"));
        assert_eq!(b.field("B"), None);
    }
}
