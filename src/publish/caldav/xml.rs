//! A WebDAV multistatus answer read within bounds: roxmltree, which refuses any DTD (so no
//! entity, external or internal, is ever expanded), at most `MAX_NODES` nodes, elements at most
//! `MAX_DEPTH` deep, at most `MAX_RESPONSES` responses; walked without recursion. Only what a
//! `200` propstat holds is read: for each response its `href` and its properties, each with its
//! text, the `href`s inside it, the names of its child elements and the `name` attributes of its
//! `comp` children (a calendar's supported components).

use roxmltree::{Document, Node, ParsingOptions};

pub const DAV: &str = "DAV:";
pub const CALDAV: &str = "urn:ietf:params:xml:ns:caldav";

/// Nodes (elements, texts, attributes' owners) a multistatus may hold.
pub const MAX_NODES: u32 = 400_000;
/// How deep its elements may nest.
pub const MAX_DEPTH: usize = 32;
/// Responses (resources) it may name.
pub const MAX_RESPONSES: usize = 20_000;

/// Why an answer is not a multistatus we read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum XmlError {
    #[error("the server's answer is not UTF-8 text")]
    NotText,
    #[error("the server's answer is not well-formed XML: {0}")]
    NotXml(String),
    #[error("the server's answer nests deeper than {MAX_DEPTH} elements")]
    TooDeep,
    #[error("the server's answer names more than {MAX_RESPONSES} resources")]
    TooManyResponses,
    #[error("the server's answer is not a WebDAV multistatus: is this a CalDAV address?")]
    NotMultistatus,
}

/// A property as found: its name, text, the `href`s inside it, its child elements' names, and
/// the `name` of each `comp` child.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prop {
    pub namespace: String,
    pub name: String,
    pub text: String,
    pub hrefs: Vec<String>,
    pub children: Vec<(String, String)>,
    pub comps: Vec<String>,
}

impl Prop {
    pub fn is(&self, namespace: &str, name: &str) -> bool {
        self.namespace == namespace && self.name == name
    }

    pub fn has_child(&self, namespace: &str, name: &str) -> bool {
        self.children
            .iter()
            .any(|(ns, n)| ns == namespace && n == name)
    }
}

/// One response of a multistatus: the resource's `href` and its properties found (status 200).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Response {
    pub href: String,
    pub props: Vec<Prop>,
}

impl Response {
    pub fn prop(&self, namespace: &str, name: &str) -> Option<&Prop> {
        self.props.iter().find(|p| p.is(namespace, name))
    }
}

/// Reads a multistatus answer.
pub fn multistatus(body: &[u8]) -> Result<Vec<Response>, XmlError> {
    let text = std::str::from_utf8(body).map_err(|_| XmlError::NotText)?;
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    let doc =
        Document::parse_with_options(text, options).map_err(|e| XmlError::NotXml(e.to_string()))?;
    check_depth(&doc)?;
    let root = doc.root_element();
    if !is(root, DAV, "multistatus") {
        return Err(XmlError::NotMultistatus);
    }
    let mut responses = Vec::new();
    for response in root.children().filter(|n| is(*n, DAV, "response")) {
        if responses.len() == MAX_RESPONSES {
            return Err(XmlError::TooManyResponses);
        }
        let href = child(response, DAV, "href")
            .map(|h| text_of(h).trim().to_owned())
            .unwrap_or_default();
        let mut props = Vec::new();
        for propstat in response.children().filter(|n| is(*n, DAV, "propstat")) {
            let ok = child(propstat, DAV, "status").is_none_or(|s| is_ok(&text_of(s)));
            if !ok {
                continue;
            }
            let Some(prop) = child(propstat, DAV, "prop") else {
                continue;
            };
            props.extend(prop.children().filter(Node::is_element).map(read_prop));
        }
        responses.push(Response { href, props });
    }
    Ok(responses)
}

/// `HTTP/1.1 200 OK` and the like.
fn is_ok(status: &str) -> bool {
    status.split_whitespace().nth(1) == Some("200")
}

fn read_prop(node: Node<'_, '_>) -> Prop {
    let name = node.tag_name();
    Prop {
        namespace: name.namespace().unwrap_or_default().to_owned(),
        name: name.name().to_owned(),
        text: text_of(node),
        hrefs: node
            .descendants()
            .filter(|n| is(*n, DAV, "href"))
            .map(|h| text_of(h).trim().to_owned())
            .collect(),
        children: node
            .children()
            .filter(Node::is_element)
            .map(|c| {
                let n = c.tag_name();
                (
                    n.namespace().unwrap_or_default().to_owned(),
                    n.name().to_owned(),
                )
            })
            .collect(),
        comps: node
            .children()
            .filter(|c| is(*c, CALDAV, "comp"))
            .filter_map(|c| c.attribute("name").map(str::to_owned))
            .collect(),
    }
}

fn is(node: Node<'_, '_>, namespace: &str, name: &str) -> bool {
    node.is_element()
        && node.tag_name().name() == name
        && node.tag_name().namespace() == Some(namespace)
}

fn child<'a, 'i>(node: Node<'a, 'i>, namespace: &str, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|n| is(*n, namespace, name))
}

/// The text of a node and its descendants, in order (CDATA included).
fn text_of(node: Node<'_, '_>) -> String {
    node.descendants()
        .filter(Node::is_text)
        .filter_map(|n| n.text())
        .collect()
}

/// Refuses elements nested deeper than `MAX_DEPTH`, in one walk in document order (a parent
/// before its children) without recursion.
fn check_depth(doc: &Document<'_>) -> Result<(), XmlError> {
    let mut depths: Vec<u8> = Vec::new();
    for node in doc.descendants() {
        let depth = node
            .parent()
            .and_then(|p| depths.get(p.id().get_usize()).copied())
            .map_or(0, |d| d.saturating_add(1));
        if usize::from(depth) > MAX_DEPTH {
            return Err(XmlError::TooDeep);
        }
        let index = node.id().get_usize();
        if depths.len() <= index {
            depths.resize(index + 1, 0);
        }
        depths[index] = depth;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANSWER: &str = r#"<?xml version="1.0"?>
<d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:a="http://apple.com/ns/ical/">
  <d:response>
    <d:href>/bob/work/</d:href>
    <d:propstat>
      <d:prop>
        <d:resourcetype><d:collection/><c:calendar/></d:resourcetype>
        <d:displayname>Work</d:displayname>
        <a:calendar-color>#ff0000ff</a:calendar-color>
        <c:supported-calendar-component-set><c:comp name="VEVENT"/><c:comp name="VTODO"/></c:supported-calendar-component-set>
      </d:prop>
      <d:status>HTTP/1.1 200 OK</d:status>
    </d:propstat>
    <d:propstat>
      <d:prop><d:current-user-principal/></d:prop>
      <d:status>HTTP/1.1 404 Not Found</d:status>
    </d:propstat>
  </d:response>
  <d:response>
    <d:href>/bob/</d:href>
    <d:propstat><d:prop><c:calendar-data><![CDATA[BEGIN:VCALENDAR
END:VCALENDAR
]]></c:calendar-data><d:current-user-principal><d:href>/bob/</d:href></d:current-user-principal></d:prop></d:propstat>
  </d:response>
</d:multistatus>"#;

    #[test]
    fn responses_are_read_with_their_found_properties_only() {
        let responses = multistatus(ANSWER.as_bytes()).expect("reads");
        assert_eq!(responses.len(), 2);
        let work = &responses[0];
        assert_eq!(work.href, "/bob/work/");
        let kind = work.prop(DAV, "resourcetype").expect("resourcetype");
        assert!(kind.has_child(CALDAV, "calendar"));
        assert_eq!(work.prop(DAV, "displayname").expect("name").text, "Work");
        let set = work
            .prop(CALDAV, "supported-calendar-component-set")
            .expect("set");
        assert_eq!(set.comps, ["VEVENT", "VTODO"]);
        assert!(work.prop(DAV, "current-user-principal").is_none());
        let bob = &responses[1];
        let data = bob.prop(CALDAV, "calendar-data").expect("data");
        assert!(data.text.starts_with("BEGIN:VCALENDAR\n"));
        let principal = bob.prop(DAV, "current-user-principal").expect("principal");
        assert_eq!(principal.hrefs, ["/bob/"]);
    }

    #[test]
    fn entities_deep_nesting_and_other_documents_are_refused() {
        let dtd = r#"<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><d:multistatus xmlns:d="DAV:">&x;</d:multistatus>"#;
        assert!(matches!(
            multistatus(dtd.as_bytes()),
            Err(XmlError::NotXml(_))
        ));
        let deep = format!(
            "<d:multistatus xmlns:d=\"DAV:\">{}{}</d:multistatus>",
            "<x>".repeat(40),
            "</x>".repeat(40)
        );
        assert_eq!(multistatus(deep.as_bytes()), Err(XmlError::TooDeep));
        assert_eq!(
            multistatus(b"<html><body>hello</body></html>"),
            Err(XmlError::NotMultistatus)
        );
        assert_eq!(multistatus(b"\xff\xfe"), Err(XmlError::NotText));
        assert!(matches!(
            multistatus(b"BEGIN:VCALENDAR"),
            Err(XmlError::NotXml(_))
        ));
    }

    #[test]
    fn too_many_responses_are_refused() {
        let many = format!(
            "<d:multistatus xmlns:d=\"DAV:\">{}</d:multistatus>",
            "<d:response/>".repeat(MAX_RESPONSES + 1)
        );
        assert_eq!(
            multistatus(many.as_bytes()),
            Err(XmlError::TooManyResponses)
        );
    }
}
