//! The owner edits the site on /owner (src/site/edit.rs), against the real server: behind the
//! publish key, field errors by name, an upload admitted before its body (key, type, size) with
//! its dimensions bounded from its header, a save shown at once by `/api/site`, the index page and
//! a new avatar address kept a year, and kept across a restart and in a backup.

mod common;

use std::time::Duration;

use common::{client, field_error, TestServer};
use hearth::Config;
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, LOCATION};
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const KEY: &str = "owner-key";

/// A real 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x04, 0x00, 0x00, 0x00, 0xb5, 0x1c, 0x0c,
    0x02, 0x00, 0x00, 0x00, 0x0b, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0x60, 0x00, 0x00,
    0x00, 0x06, 0x00, 0x02, 0x30, 0x81, 0xd0, 0x2f, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44,
    0xae, 0x42, 0x60, 0x82,
];

/// A PNG's signature and header declaring `width`×`height`, and nothing a decoder could use.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    bytes
}

fn flags(c: &mut Config) {
    c.edge.publish_key = Some(KEY.into());
    c.site.owner_name = "Flag Name".into();
    c.site.spotify_url = Some("https://open.spotify.com/user/flag".into());
}

async fn owner_site(server: &TestServer) -> reqwest::Response {
    server
        .client
        .get(server.url("/api/owner/site"))
        .header("x-publish-key", KEY)
        .send()
        .await
        .expect("sent")
}

async fn save(server: &TestServer, body: serde_json::Value) -> reqwest::Response {
    server
        .client
        .put(server.url("/api/owner/site"))
        .header("x-publish-key", KEY)
        .json(&body)
        .send()
        .await
        .expect("sent")
}

async fn upload(server: &TestServer, content_type: &str, bytes: Vec<u8>) -> reqwest::Response {
    server
        .client
        .put(server.url("/api/owner/avatar"))
        .header("x-publish-key", KEY)
        .header(CONTENT_TYPE, content_type)
        .body(bytes)
        .send()
        .await
        .expect("sent")
}

async fn site(server: &TestServer) -> serde_json::Value {
    server.get_json("/api/site", &[]).await
}

#[tokio::test]
async fn only_the_owner_edits_and_a_site_without_a_key_has_no_editor() {
    let server = TestServer::start(flags).await;
    let bare = server
        .client
        .get(server.url("/api/owner/site"))
        .send()
        .await
        .expect("sent");
    assert_eq!(bare.status(), StatusCode::UNAUTHORIZED);
    let wrong = server
        .client
        .put(server.url("/api/owner/site"))
        .header("x-publish-key", "guess")
        .json(&json!({ "name": "Mallory" }))
        .send()
        .await
        .expect("sent");
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let removing = server
        .client
        .delete(server.url("/api/owner/avatar"))
        .send()
        .await
        .expect("sent");
    assert_eq!(removing.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(site(&server).await["name"], "Flag Name", "nothing changed");

    let answer: serde_json::Value = owner_site(&server).await.json().await.expect("json");
    assert_eq!(answer["name"], "Flag Name");
    assert_eq!(answer["customTexts"], false);
    assert_eq!(
        answer["defaults"]["spotifyUrl"],
        "https://open.spotify.com/user/flag"
    );
    assert_eq!(answer["maxAboutChars"], 4000);
    server.stop().await;

    let keyless = TestServer::start(|_| {}).await;
    let response = owner_site(&keyless).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    keyless.stop().await;
}

#[tokio::test]
async fn wrong_fields_are_named_and_nothing_is_saved() {
    let server = TestServer::start(flags).await;
    let long_about = "a".repeat(4001);
    for (body, field) in [
        (json!({ "name": "  " }), "name"),
        (json!({ "name": "A\nB" }), "name"),
        (json!({ "name": "Ada", "about": long_about }), "about"),
        (
            json!({ "name": "Ada", "spotifyUrl": "javascript:alert(1)" }),
            "spotifyUrl",
        ),
        (
            json!({ "name": "Ada", "beehiveUrl": "example.org" }),
            "beehiveUrl",
        ),
        (json!({ "name": 7 }), "name"),
    ] {
        let response = save(&server, body.clone()).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{body}");
        let (named, message) = field_error(response).await;
        assert_eq!(named, field, "{body}: {message}");
    }
    let unknown = save(&server, json!({ "name": "Ada", "html": "<b>" })).await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    assert_eq!(site(&server).await["name"], "Flag Name");
    server.stop().await;
}

#[tokio::test]
async fn an_upload_is_refused_by_key_type_and_size_before_it_is_decoded() {
    let server = TestServer::start(flags).await;
    // The key first: a body that would be far too large is not even looked at without it.
    let keyless = server
        .client
        .put(server.url("/api/owner/avatar"))
        .header(CONTENT_TYPE, "image/png")
        .body(vec![0u8; 600 * 1024])
        .send()
        .await
        .expect("sent");
    assert_eq!(keyless.status(), StatusCode::UNAUTHORIZED);

    let svg = b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>".to_vec();
    let refused = upload(&server, "image/svg+xml", svg.clone()).await;
    assert_eq!(refused.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let disguised = upload(&server, "image/png", svg).await;
    assert_eq!(disguised.status(), StatusCode::BAD_REQUEST);
    assert_eq!(field_error(disguised).await.0, "avatar");

    // A 20000×20000 PNG header: refused from its header, never decoded.
    let huge = upload(&server, "image/png", png_header(20_000, 20_000)).await;
    assert_eq!(huge.status(), StatusCode::BAD_REQUEST);
    let (field, message) = field_error(huge).await;
    assert_eq!(field, "avatar");
    assert!(message.contains("20000"), "{message}");

    // Declared too large: refused before a byte is read.
    let declared = upload(&server, "image/png", vec![0u8; 512 * 1024 + 1]).await;
    assert_eq!(declared.status(), StatusCode::PAYLOAD_TOO_LARGE);

    // Sent in chunks with no length: stopped while it arrives.
    let mut stream = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connects");
    let head = format!(
        "PUT /api/owner/avatar HTTP/1.1\r\nHost: localhost\r\nX-Publish-Key: {KEY}\r\n\
         Content-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    let chunk = vec![0u8; 64 * 1024];
    let mut frame = format!("{:x}\r\n", chunk.len()).into_bytes();
    frame.extend_from_slice(&chunk);
    frame.extend_from_slice(b"\r\n");
    for _ in 0..12 {
        // The server may answer and close before all of it is sent.
        if stream.write_all(&frame).await.is_err() {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let mut answer = vec![0u8; 1024];
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut answer))
        .await
        .expect("answers in time")
        .expect("reads");
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

    assert_eq!(
        owner_site(&server)
            .await
            .json::<serde_json::Value>()
            .await
            .expect("json")["customAvatar"],
        false
    );
    server.stop().await;
}

#[tokio::test]
async fn a_save_shows_at_once_and_is_kept_across_a_restart_and_in_a_backup() {
    let server = TestServer::start(flags).await;
    let before = site(&server).await;
    let first_avatar = before["avatarUrl"].as_str().expect("url").to_owned();

    let saved = save(
        &server,
        json!({
            "name": "Ada <Lovelace>",
            "about": "I write.\r\n\r\nSee https://example.org/ada",
            "spotifyUrl": "",
            "beehiveUrl": "https://ada.beehiiv.com"
        }),
    )
    .await;
    assert_eq!(saved.status(), StatusCode::OK);
    let answer: serde_json::Value = saved.json().await.expect("json");
    assert_eq!(answer["customTexts"], true);

    let profile = site(&server).await;
    assert_eq!(profile["name"], "Ada <Lovelace>");
    assert_eq!(profile["about"], "I write.\n\nSee https://example.org/ada");
    assert!(profile["spotifyUrl"].is_null(), "a cleared link is hidden");
    assert_eq!(profile["beehiveUrl"], "https://ada.beehiiv.com");
    let html = server.get("/").await.text().await.expect("page");
    assert!(
        html.contains("<title>Ada &lt;Lovelace&gt;</title>"),
        "{html}"
    );
    assert!(html.contains("\"name\":\"Ada \\u003cLovelace>\""), "{html}");
    assert!(!html.contains("Flag Name"));

    let uploaded = upload(&server, "image/png", PNG.to_vec()).await;
    assert_eq!(uploaded.status(), StatusCode::OK);
    let profile = site(&server).await;
    let new_avatar = profile["avatarUrl"].as_str().expect("url").to_owned();
    assert_ne!(new_avatar, first_avatar, "a new picture, a new address");
    let picture = server.get(&new_avatar).await;
    assert_eq!(picture.status(), StatusCode::OK);
    assert_eq!(picture.headers()[CONTENT_TYPE], "image/png");
    assert_eq!(
        picture.headers()[CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert!(picture.headers()["content-security-policy"]
        .to_str()
        .expect("ascii")
        .contains("sandbox"));
    assert_eq!(picture.bytes().await.expect("body").as_ref(), PNG);
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let old = no_redirects
        .get(server.url(&first_avatar))
        .send()
        .await
        .expect("sent");
    assert_eq!(old.status(), StatusCode::FOUND, "the old address sends on");
    assert_eq!(old.headers()[LOCATION], new_avatar.as_str());
    let html = server.get("/").await.text().await.expect("page");
    assert!(html.contains(&new_avatar));

    // A restart with the same flags keeps what the owner saved.
    let data_dir = server.stop().await;
    let server = TestServer::start_in(data_dir, flags).await;
    let profile = site(&server).await;
    assert_eq!(profile["name"], "Ada <Lovelace>");
    assert_eq!(profile["avatarUrl"], new_avatar.as_str());

    // A backup carries it to another machine, whatever its flags.
    let data_dir = server.stop().await;
    let backup = data_dir.path().join("copy.db");
    hearth::store::backup_to(data_dir.path(), &backup).expect("backs up");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    std::fs::copy(&backup, elsewhere.path().join("hearth.db")).expect("copied");
    let server = TestServer::start_in(elsewhere, |c| {
        c.edge.publish_key = Some(KEY.into());
        c.site.owner_name = "Someone Else".into();
    })
    .await;
    let profile = site(&server).await;
    assert_eq!(profile["name"], "Ada <Lovelace>");
    assert_eq!(profile["about"], "I write.\n\nSee https://example.org/ada");
    let picture = server.get(&new_avatar).await;
    assert_eq!(picture.bytes().await.expect("body").as_ref(), PNG);

    // Removing the picture, then using the defaults: the flags' values again.
    let removed = server
        .client
        .delete(server.url("/api/owner/avatar"))
        .header("x-publish-key", KEY)
        .send()
        .await
        .expect("sent");
    assert_eq!(removed.status(), StatusCode::OK);
    let profile = site(&server).await;
    assert_eq!(profile["name"], "Ada <Lovelace>", "only the picture went");
    let avatar = server
        .get(profile["avatarUrl"].as_str().expect("url"))
        .await;
    assert_eq!(avatar.headers()[CONTENT_TYPE], "image/svg+xml");
    let reset = server
        .client
        .delete(server.url("/api/owner/site"))
        .header("x-publish-key", KEY)
        .send()
        .await
        .expect("sent");
    assert_eq!(reset.status(), StatusCode::OK);
    let profile = site(&server).await;
    assert_eq!(profile["name"], "Someone Else");
    assert!(profile["about"].is_null());
    let html = client()
        .get(server.url("/"))
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .expect("page");
    assert!(html.contains("<title>Someone Else</title>"));
    server.stop().await;
}
