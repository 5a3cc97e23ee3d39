//! `index.html` with the owner's profile and whether the server syncs written in, as JSON data
//! blocks (not scripts, so the strict Content-Security-Policy holds), and the owner's name as the
//! page title. Both are known before the app's first render: nothing on screen moves when they
//! would otherwise arrive. Made again whenever the owner saves the profile (`super::Site`).
//!
//! Each address gets the page for its screen: the files its screen needs beyond the entry script
//! named in the head (`<link rel="modulepreload">`, its CSS `preload`ed; the build lists them
//! per address in a data block, `ui/scripts/routePreloads.ts`, which is taken out here), so they
//! download beside the entry instead of after it has run; and the app's frame (the header of
//! `ui/src/layout/Layout.tsx`, with an empty main) already in `#root`, so the first paint does
//! not wait for any script. React's first render replaces it with the same frame, filled.
//! A page depends on the address only through its rule and the header's current tool, so each
//! such page (and its ETag) is made on its first request and kept until the profile changes.

use std::sync::OnceLock;

use axum::body::Bytes;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::assets::CACHE_REVALIDATE;
use super::Profile;
use crate::http::conditional::{etag_for, respond};

/// The build's data block naming each address's files (`ui/scripts/routePreloads.ts`).
const ROUTE_PARTS_ID: &str = "hearth-route-parts";
/// Where the app mounts; its frame is written inside.
const ROOT: &str = "<div id=\"root\"></div>";

/// One rule of `ui/src/routeParts.ts` with its files; the first that matches an address wins.
#[derive(Debug, Default, Deserialize)]
struct Rule {
    path: String,
    under: bool,
    files: Vec<String>,
    /// The screen's top, HTML for inside main (empty when it is drawn by the app alone).
    #[serde(default)]
    top: String,
}

#[derive(Debug, Default, Deserialize)]
struct RouteParts {
    rules: Vec<Rule>,
    /// An address no rule matches (the router's "page not found").
    other: Vec<String>,
    /// Its screen, whole.
    #[serde(default, rename = "otherTop")]
    other_top: String,
}

impl Rule {
    /// As `ruleMatches` in routeParts.ts: letter case and a trailing slash aside.
    fn matches(&self, path: &str) -> bool {
        let lower = path.to_ascii_lowercase();
        let rest = lower.strip_prefix(self.path.as_str());
        match rest {
            Some("") | Some("/") => true,
            Some(rest) => self.under && rest.starts_with('/'),
            None => false,
        }
    }
}

/// The header's tools (`ui/src/layout/Layout.tsx`): address and label.
const TOOLS: [(&str, &str); 2] = [("/flashcards", "Flashcards"), ("/calendars", "Calendars")];

/// What one rule (or the other addresses) puts in a page, and its pages once made: one for no
/// current tool, then one per tool of `TOOLS`.
#[derive(Debug)]
struct Screen {
    links: String,
    top: String,
    made: [OnceLock<Made>; TOOLS.len() + 1],
}

#[derive(Debug)]
struct Made {
    body: Bytes,
    etag: String,
}

impl Screen {
    fn new(
        files: &[String],
        top: &str,
        profile: &Profile,
        sync: Option<&serde_json::Value>,
    ) -> Screen {
        Screen {
            links: links_for(files),
            top: top_for(top, profile, sync),
            made: Default::default(),
        }
    }
}

#[derive(Debug)]
pub struct IndexPage {
    /// The page up to `</head>`, data blocks included.
    head: String,
    /// From `</head>` to inside `#root`, and from there to the end.
    body_start: String,
    body_end: String,
    rules: Vec<Rule>,
    /// Each rule's screen (in `ROUTE_RULES` order), and the other addresses'.
    screens: Vec<Screen>,
    other: Screen,
    /// The owner's name, escaped, for the frame's header.
    name: String,
}

impl IndexPage {
    /// `sync` is `GET /api/sync`'s answer, `None` when sync is turned off (written as `null`).
    pub fn new(html: &[u8], profile: &Profile, sync: Option<&serde_json::Value>) -> IndexPage {
        let html = String::from_utf8_lossy(html);
        let (html, parts) = take_route_parts(&html);
        let profile_json = serde_json::to_string(profile).unwrap_or_else(|_| "{}".to_owned());
        let sync_json = serde_json::to_string(&sync).unwrap_or_else(|_| "null".to_owned());
        let data = format!(
            "{}\n  {}",
            data_block("hearth-profile", &profile_json),
            data_block("hearth-sync", &sync_json)
        );
        let name = escape_html(&profile.name);
        let with_title = replace_title(&html, &format!("<title>{name}</title>"));
        let (head, body) = match with_title.find("</head>") {
            Some(at) => (
                format!("{}{}\n  ", &with_title[..at], data),
                &with_title[at..],
            ),
            None => (data, with_title.as_str()),
        };
        let (body_start, body_end) = match body.find(ROOT) {
            Some(at) => {
                let inside = at + ROOT.len() - "</div>".len();
                (body[..inside].to_owned(), body[inside..].to_owned())
            }
            None => (body.to_owned(), String::new()),
        };
        let screens = parts
            .rules
            .iter()
            .map(|r| Screen::new(&r.files, &r.top, profile, sync))
            .collect();
        IndexPage {
            head,
            body_start,
            body_end,
            screens,
            other: Screen::new(&parts.other, &parts.other_top, profile, sync),
            rules: parts.rules,
            name,
        }
    }

    /// The page for the address `path`, with `status` (200 for client routes, 404 for unknown ones).
    pub fn response(&self, path: &str, request: &HeaderMap, status: StatusCode) -> Response {
        let made = self.made(path);
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_REVALIDATE),
        );
        respond(request, headers, &made.etag, status, made.body.clone())
    }

    /// The page for `path`: its rule's screen with the header's current tool, made once.
    fn made(&self, path: &str) -> &Made {
        let screen = self
            .rules
            .iter()
            .position(|r| r.matches(path))
            .and_then(|at| self.screens.get(at))
            .unwrap_or(&self.other);
        let tool = TOOLS.iter().position(|(to, _)| is_under(path, to));
        let slot = tool.map_or(0, |at| at + 1);
        screen.made[slot].get_or_init(|| {
            let frame = if self.body_end.is_empty() {
                String::new()
            } else {
                frame(&self.name, tool, &screen.top)
            };
            let body = format!(
                "{}{}{}{frame}{}",
                self.head, screen.links, self.body_start, self.body_end
            );
            Made {
                etag: etag_for(&Sha256::digest(body.as_bytes()), None),
                body: Bytes::from(body),
            }
        })
    }

    #[cfg(test)]
    fn body(&self, path: &str) -> &str {
        std::str::from_utf8(&self.made(path).body).unwrap_or_default()
    }
}

/// As the app's links mark their tool current (AppLink): the address itself or one under it,
/// letter case counting.
fn is_under(path: &str, to: &str) -> bool {
    path == to || path.strip_prefix(to).is_some_and(|r| r.starts_with('/'))
}

/// The build's block of files per address, taken out of the page (empty when there is none).
fn take_route_parts(html: &str) -> (String, RouteParts) {
    let open = format!("<script type=\"application/json\" id=\"{ROUTE_PARTS_ID}\">");
    let Some(start) = html.find(&open) else {
        return (html.to_owned(), RouteParts::default());
    };
    let Some(len) = html[start..].find("</script>") else {
        return (html.to_owned(), RouteParts::default());
    };
    let json = &html[start + open.len()..start + len];
    let parts = serde_json::from_str(json).unwrap_or_default();
    let mut end = start + len + "</script>".len();
    // The line the block stood on goes with it.
    end += html[end..].len() - html[end..].trim_start().len();
    (format!("{}{}", &html[..start], &html[end..]), parts)
}

/// The links naming `files`, all fetched beside the entry: the scripts as modules, the CSS as
/// styles that do not hold the first paint back (the screen's loader adds them as stylesheets,
/// from the cache, before it renders).
fn links_for(files: &[String]) -> String {
    files
        .iter()
        .map(|file| {
            let href = escape_html(file);
            if file.ends_with(".css") {
                format!("<link rel=\"preload\" as=\"style\" crossorigin href=\"{href}\">\n  ")
            } else {
                format!("<link rel=\"modulepreload\" crossorigin href=\"{href}\">\n  ")
            }
        })
        .collect()
}

/// `ui/src/layout/Layout.tsx` as React writes it with the tool at `current` (of `TOOLS`) current,
/// and the screen's `top` (the build's, HTML; empty for a screen the app alone draws) in main
/// (checked against the rendered app by ui/e2e/first-frame.e2e.ts).
fn frame(name: &str, current: Option<usize>, top: &str) -> String {
    let nav: String = TOOLS
        .iter()
        .enumerate()
        .map(|(at, (to, label))| {
            let mark = if current == Some(at) {
                " class=\"active\" aria-current=\"page\""
            } else {
                ""
            };
            format!("<a href=\"{to}\"{mark}>{label}</a>")
        })
        .collect();
    format!(
        "<div class=\"app\"><a class=\"skip-link\" href=\"#main\">Skip to content</a>\
         <header class=\"site-header\"><div class=\"site-header__inner\">\
         <a href=\"/\" class=\"site-header__home\">{name}</a>\
         <nav aria-label=\"Tools\" class=\"site-header__nav\">{nav}</nav></div></header>\
         <main id=\"main\" class=\"site-main\" tabindex=\"-1\">{top}</main></div>"
    )
}

/// Where a top has the sync page's note on what the server keeps (`ui/src/routeParts.ts`).
const VAULT_EXPIRY_MARK: &str = "<!--vault-expiry-->";

/// Where a top has the owner's name and their picture's address (`ui/src/routeParts.ts`).
const PROFILE_NAME_MARK: &str = "<!--profile-name-->";
const AVATAR_URL_MARK: &str = "<!--avatar-url-->";

/// `top` with the owner's name and picture's address written in (escaped, as React writes them),
/// and the server's sync note (`vaultExpiryText` of ui/src/sync/words.ts, after a space); a top
/// with that note is none at all on a server that does not sync, whose sync page says so instead.
fn top_for(top: &str, profile: &Profile, sync: Option<&serde_json::Value>) -> String {
    let top = top
        .replace(PROFILE_NAME_MARK, &escape_html(&profile.name))
        .replace(AVATAR_URL_MARK, &escape_html(&profile.avatar_url));
    if !top.contains(VAULT_EXPIRY_MARK) {
        return top;
    }
    let Some(sync) = sync else {
        return String::new();
    };
    let note = match sync
        .get("vaultExpiryDays")
        .and_then(serde_json::Value::as_u64)
    {
        Some(1) => " A vault nobody opens for 1 day is removed from this server.".to_owned(),
        Some(days) if days > 1 => {
            format!(" A vault nobody opens for {days} days is removed from this server.")
        }
        _ => String::new(),
    };
    top.replace(VAULT_EXPIRY_MARK, &note)
}

/// A JSON data block; inside one only `</script` could end it early, and escaping `<` rules that out.
fn data_block(id: &str, json: &str) -> String {
    format!(
        "<script type=\"application/json\" id=\"{id}\">{}</script>",
        json.replace('<', "\\u003c")
    )
}

fn replace_title(html: &str, title: &str) -> String {
    match (html.find("<title>"), html.find("</title>")) {
        (Some(start), Some(end)) if end > start => {
            format!(
                "{}{}{}",
                &html[..start],
                title,
                &html[end + "</title>".len()..]
            )
        }
        _ => html.to_owned(),
    }
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(name: &str) -> Profile {
        Profile {
            name: name.to_owned(),
            avatar_url: "/avatar".to_owned(),
            about: Some("Hi </script> & <b>".to_owned()),
            spotify_url: None,
            beehive_url: None,
            version: "test",
        }
    }

    #[test]
    fn the_profile_is_a_data_block_before_the_head_ends() {
        let page = IndexPage::new(
            b"<html><head><title>Hearth</title></head><body></body></html>",
            &profile("Ada </script><b>"),
            None,
        );
        let body = page.body("/");
        assert!(body.contains("<title>Ada &lt;/script&gt;&lt;b&gt;</title>"));
        assert!(body.contains("id=\"hearth-profile\">{\"name\":\"Ada \\u003c/script>\\u003cb>\""));
        assert!(body.contains("\"about\":\"Hi \\u003c/script> & \\u003cb>\""));
        assert_eq!(
            body.matches("</script>").count(),
            2,
            "only the two blocks end"
        );
        assert!(
            body.find("hearth-profile").expect("present") < body.find("</head>").expect("head")
        );
        assert!(body.contains("<script type=\"application/json\" id=\"hearth-sync\">null</script>"));
    }

    #[test]
    fn sync_info_is_a_data_block_when_sync_is_on() {
        let info = serde_json::json!({"maxBytes": 8, "keyRequired": false});
        let page = IndexPage::new(
            b"<html><head><title>Hearth</title></head><body></body></html>",
            &profile("Ada"),
            Some(&info),
        );
        let body = page.body("/");
        assert!(body.contains(
            "<script type=\"application/json\" id=\"hearth-sync\">{\"keyRequired\":false,\"maxBytes\":8}</script>"
        ));
        assert!(body.find("hearth-sync").expect("present") < body.find("</head>").expect("head"));
    }

    const BUILT: &[u8] = b"<html><head><title>Hearth</title>\n  <script type=\"application/json\" id=\"hearth-route-parts\">{\"rules\":[{\"path\":\"/\",\"under\":false,\"files\":[]},{\"path\":\"/calendars/new\",\"under\":false,\"files\":[\"/assets/r.js\",\"/assets/c.css\",\"/assets/e.js\"]},{\"path\":\"/calendars\",\"under\":true,\"files\":[\"/assets/r.js\",\"/assets/c.js\"]}],\"other\":[\"/assets/r.js\"]}</script>\n  </head><body><div id=\"root\"></div></body></html>";

    #[test]
    fn each_address_names_its_screens_files_and_the_block_is_gone() {
        let page = IndexPage::new(BUILT, &profile("Ada"), None);
        let editor = page.body("/Calendars/new/");
        assert!(!editor.contains("hearth-route-parts"));
        let links: Vec<&str> = editor.lines().filter(|l| l.contains("<link")).collect();
        assert_eq!(
            links,
            [
                "  <link rel=\"modulepreload\" crossorigin href=\"/assets/r.js\">",
                "  <link rel=\"preload\" as=\"style\" crossorigin href=\"/assets/c.css\">",
                "  <link rel=\"modulepreload\" crossorigin href=\"/assets/e.js\">",
            ]
        );
        assert!(page
            .body("/calendars/work")
            .contains("href=\"/assets/c.js\""));
        assert!(!page.body("/calendars/work").contains("e.js"));
        assert!(!page.body("/calendarsx").contains("c.js"));
        assert!(page.body("/calendarsx").contains("href=\"/assets/r.js\""));
        assert!(!page.body("/").contains("<link"));
        for path in ["/", "/calendars", "/nowhere"] {
            let body = page.body(path);
            assert!(body.find("hearth-sync").expect("data") < body.find("</head>").expect("head"));
        }
    }

    #[test]
    fn the_frame_is_the_layouts_with_its_tool_current() {
        let page = IndexPage::new(BUILT, &profile("Ada & Bo"), None);
        let body = page.body("/calendars/new");
        let frame = &body[body.find("<div id=\"root\">").expect("root")..];
        assert!(frame.starts_with("<div id=\"root\"><div class=\"app\"><a class=\"skip-link\" href=\"#main\">Skip to content</a>"));
        assert!(frame.contains("<a href=\"/\" class=\"site-header__home\">Ada &amp; Bo</a>"));
        assert!(frame.contains("<a href=\"/flashcards\">Flashcards</a><a href=\"/calendars\" class=\"active\" aria-current=\"page\">Calendars</a>"));
        assert!(frame.contains(
            "<main id=\"main\" class=\"site-main\" tabindex=\"-1\"></main></div></div></body>"
        ));
        // As AppLink: a prefix of a segment is not the tool, and letter case counts.
        assert!(!page.body("/calendarsx").contains("class=\"active\""));
        assert!(!page.body("/Calendars").contains("class=\"active\""));
        assert!(!page.body("/").contains("class=\"active\""));
    }

    #[test]
    fn a_page_is_made_once_per_rule_and_current_tool() {
        let page = IndexPage::new(BUILT, &profile("Ada"), None);
        let work = page.made("/calendars/work");
        assert!(std::ptr::eq(work, page.made("/calendars/home")));
        assert!(std::ptr::eq(work, page.made("/calendars")));
        // The same rule (letter case aside), but no tool current: another page.
        let other_case = page.made("/CALENDARS/work");
        assert!(!std::ptr::eq(work, other_case));
        assert!(!other_case.body.windows(6).any(|w| w == b"active"));
        assert_ne!(work.etag, other_case.etag);
        assert!(std::ptr::eq(page.made("/nowhere"), page.made("/elsewhere")));
    }

    #[test]
    fn a_screen_with_a_top_has_it_in_main_and_names_no_files() {
        let built = b"<html><head><title>Hearth</title>\n  <script type=\"application/json\" id=\"hearth-route-parts\">{\"rules\":[{\"path\":\"/\",\"under\":false,\"files\":[\"/assets/m.js\"],\"top\":\"\"},{\"path\":\"/calendars\",\"under\":false,\"files\":[],\"top\":\"\\u003ch1>Calendars\\u003c/h1>\"}],\"other\":[],\"otherTop\":\"\\u003ch1>Page not found\\u003c/h1>\"}</script>\n  </head><body><div id=\"root\"></div></body></html>";
        let page = IndexPage::new(built, &profile("Ada"), None);
        let main = |path: &str| {
            let body = page.body(path);
            let start = body.find("<main").expect("main");
            let end = body.find("</main>").expect("main's end");
            body[start..end].to_owned()
        };
        assert!(main("/Calendars/").ends_with("tabindex=\"-1\"><h1>Calendars</h1>"));
        assert!(!page.body("/calendars").contains("<link"));
        assert!(main("/nowhere").ends_with("tabindex=\"-1\"><h1>Page not found</h1>"));
        assert!(main("/").ends_with("tabindex=\"-1\">"));
        assert!(page.body("/").contains("href=\"/assets/m.js\""));
    }

    #[test]
    fn the_sync_note_is_the_servers_and_no_sync_means_no_top() {
        let top = "<p>Lead.<!--vault-expiry--></p>";
        let days = |n: u64| serde_json::json!({ "vaultExpiryDays": n });
        fn top_for(top: &str, sync: Option<&serde_json::Value>) -> String {
            super::top_for(top, &profile("Ada"), sync)
        }
        assert_eq!(
            top_for(top, Some(&days(180))),
            "<p>Lead. A vault nobody opens for 180 days is removed from this server.</p>"
        );
        assert_eq!(
            top_for(top, Some(&days(1))),
            "<p>Lead. A vault nobody opens for 1 day is removed from this server.</p>"
        );
        assert_eq!(top_for(top, Some(&days(0))), "<p>Lead.</p>");
        assert_eq!(top_for(top, Some(&serde_json::json!({}))), "<p>Lead.</p>");
        assert_eq!(top_for(top, None), "");
        assert_eq!(top_for("<h1>Calendars</h1>", None), "<h1>Calendars</h1>");
    }

    #[test]
    fn the_owners_name_and_picture_are_written_in_escaped() {
        let top = "<img src=\"<!--avatar-url-->\"><h1><!--profile-name--></h1>";
        let mut owner = profile("Ada <& \"Lovelace\">");
        owner.avatar_url = "/avatar?v=1&x=\"2\"".to_owned();
        assert_eq!(
            top_for(top, &owner, None),
            "<img src=\"/avatar?v=1&amp;x=&quot;2&quot;\"><h1>Ada &lt;&amp; &quot;Lovelace&quot;&gt;</h1>"
        );
        // Written in every page that has it, as the page is made for the profile.
        let built = b"<html><head><title>Hearth</title>\n  <script type=\"application/json\" id=\"hearth-route-parts\">{\"rules\":[{\"path\":\"/\",\"under\":false,\"files\":[],\"top\":\"\\u003ch1><!--profile-name-->\\u003c/h1>\"}],\"other\":[],\"otherTop\":\"\"}</script>\n  </head><body><div id=\"root\"></div></body></html>";
        let page = IndexPage::new(built, &profile("Grace"), None);
        assert!(page
            .body("/")
            .contains("tabindex=\"-1\"><h1>Grace</h1></main>"));
    }
}
