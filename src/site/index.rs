//! `index.html` with the owner's profile and whether the server syncs written in, as JSON data
//! blocks (not scripts, so the strict Content-Security-Policy holds), and the owner's name as the
//! page title. Both are known before the app's first render: nothing on screen moves when they
//! would otherwise arrive. Made again whenever the owner saves the profile (`super::Site`).

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use sha2::{Digest, Sha256};

use super::assets::CACHE_REVALIDATE;
use super::Profile;
use crate::http::conditional::{etag_for, respond};

#[derive(Debug)]
pub struct IndexPage {
    body: Vec<u8>,
    etag: String,
}

impl IndexPage {
    /// `sync` is `GET /api/sync`'s answer, `None` when sync is turned off (written as `null`).
    pub fn new(html: &[u8], profile: &Profile, sync: Option<&serde_json::Value>) -> IndexPage {
        let html = String::from_utf8_lossy(html);
        let profile_json = serde_json::to_string(profile).unwrap_or_else(|_| "{}".to_owned());
        let sync_json = serde_json::to_string(&sync).unwrap_or_else(|_| "null".to_owned());
        let data = format!(
            "{}\n  {}",
            data_block("hearth-profile", &profile_json),
            data_block("hearth-sync", &sync_json)
        );
        let title = format!("<title>{}</title>", escape_html(&profile.name));
        let with_title = replace_title(&html, &title);
        let body = match with_title.find("</head>") {
            Some(at) => format!("{}{}\n  {}", &with_title[..at], data, &with_title[at..]),
            None => format!("{data}{with_title}"),
        };
        let etag = etag_for(&Sha256::digest(body.as_bytes()), None);
        IndexPage {
            body: body.into_bytes(),
            etag,
        }
    }

    /// The page with `status` (200 for client routes, 404 for unknown ones).
    pub fn response(&self, request: &HeaderMap, status: StatusCode) -> Response {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        headers.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_REVALIDATE),
        );
        respond(request, headers, &self.etag, status, self.body.clone())
    }
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
        let body = String::from_utf8(page.body).expect("utf8");
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
        let body = String::from_utf8(page.body).expect("utf8");
        assert!(body.contains(
            "<script type=\"application/json\" id=\"hearth-sync\">{\"keyRequired\":false,\"maxBytes\":8}</script>"
        ));
        assert!(body.find("hearth-sync").expect("present") < body.find("</head>").expect("head"));
    }
}
