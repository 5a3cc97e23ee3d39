//! The HTTP surface of the foundation against a real server on a free port: SPA fallback and
//! 404s, asset caching and precompression, ETags, security headers, health and readiness.

mod common;

use common::TestServer;
use reqwest::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, IF_NONE_MATCH, VARY,
};
use reqwest::StatusCode;

/// The main script's address, read from the served index page.
async fn main_script(server: &TestServer) -> String {
    let html = server.get("/").await.text().await.expect("body");
    let start = html.find("/assets/").expect("index references an asset");
    let end = html[start..].find('"').expect("attribute ends") + start;
    let path = &html[start..end];
    assert!(path.ends_with(".js"), "first asset is the script: {path}");
    path.to_owned()
}

#[tokio::test]
async fn client_routes_get_the_app_and_unknown_api_routes_get_json_404() {
    let server = TestServer::start(|_| {}).await;
    for path in [
        "/",
        "/flashcards",
        "/flashcards/new",
        "/flashcards/1f0e/edit",
        "/flashcards/1f0e/practice",
        "/calendars",
        "/calendars/new?id=a&url=b&name=c",
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let ct = response.headers()[CONTENT_TYPE]
            .to_str()
            .expect("ascii")
            .to_owned();
        assert!(ct.starts_with("text/html"), "{path}: {ct}");
        assert!(response.text().await.expect("body").contains("id=\"root\""));
    }

    let response = server.get("/api/does-not-exist").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert!(response.headers()[CONTENT_TYPE]
        .to_str()
        .expect("ascii")
        .starts_with("application/json"));
    let body: serde_json::Value = response.json().await.expect("json");
    assert!(body["error"]
        .as_str()
        .expect("error text")
        .contains("/api/does-not-exist"));
    server.stop().await;
}

#[tokio::test]
async fn missing_files_are_404_never_the_app() {
    let server = TestServer::start(|_| {}).await;
    for path in [
        "/assets/missing-abc123.js",
        "/missing.png",
        "/flashcards/x.json",
        "/cal/none.ics",
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body = response.text().await.expect("body");
        assert!(!body.contains("id=\"root\""), "{path} served the app");
    }
    // An unknown page still gets the app (it renders "Page not found") but with status 404.
    let response = server.get("/no-such-page").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert!(response.text().await.expect("body").contains("id=\"root\""));
    server.stop().await;
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_served_precompressed() {
    let server = TestServer::start(|_| {}).await;
    let script = main_script(&server).await;

    let plain = server.get(&script).await;
    assert_eq!(plain.status(), StatusCode::OK);
    assert_eq!(
        plain.headers()[CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert!(plain.headers().get(CONTENT_ENCODING).is_none());
    assert_eq!(plain.headers()[VARY], "Accept-Encoding");
    assert!(plain.headers()[CONTENT_TYPE]
        .to_str()
        .expect("ascii")
        .starts_with("text/javascript"));
    let plain_etag = plain.headers()[ETAG].clone();
    let plain_body = plain.bytes().await.expect("body");

    for (accept, expected) in [
        ("br, gzip", "br"),
        ("gzip, deflate", "gzip"),
        ("gzip, br;q=0", "gzip"),
    ] {
        let response = server
            .client
            .get(server.url(&script))
            .header(ACCEPT_ENCODING, accept)
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[CONTENT_ENCODING], expected, "{accept}");
        assert_ne!(
            response.headers()[ETAG],
            plain_etag,
            "each encoding has its own tag"
        );
        let body = response.bytes().await.expect("body");
        assert!(body.len() < plain_body.len(), "{expected} copy is smaller");
    }
    server.stop().await;
}

/// The binary embeds a compressible file only as its brotli copy (ui/embed): a client that accepts
/// gzip alone still gets gzip, one that accepts neither exactly the bytes Vite wrote, Chromium's
/// header brotli; each with its own tag that answers 304.
#[tokio::test]
async fn assets_embedded_only_compressed_still_answer_every_client() {
    use std::io::Read;
    let server = TestServer::start(|_| {}).await;
    let script = main_script(&server).await;
    let written = std::fs::read(format!("{}/ui/dist{script}", env!("CARGO_MANIFEST_DIR")))
        .expect("ui/dist holds the script");

    let ask = |accept: Option<&'static str>| {
        let mut request = server.client.get(server.url(&script));
        if let Some(accept) = accept {
            request = request.header(ACCEPT_ENCODING, accept);
        }
        request.send()
    };
    let plain = ask(None).await.expect("sent");
    assert_eq!(plain.status(), StatusCode::OK);
    assert!(plain.headers().get(CONTENT_ENCODING).is_none());
    assert_eq!(plain.headers()[VARY], "Accept-Encoding");
    let plain_etag = plain.headers()[ETAG].clone();
    assert_eq!(plain.bytes().await.expect("body").as_ref(), written);

    let gzip = ask(Some("gzip")).await.expect("sent");
    assert_eq!(gzip.headers()[CONTENT_ENCODING], "gzip");
    let gzip_etag = gzip.headers()[ETAG].clone();
    let zipped = gzip.bytes().await.expect("body");
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&zipped[..])
        .read_to_end(&mut unzipped)
        .expect("gunzips");
    assert_eq!(unzipped, written);

    // What Chromium sends, also to http://127.0.0.1 (Lighthouse, the browser tests): brotli.
    let br = ask(Some("gzip, deflate, br, zstd")).await.expect("sent");
    assert_eq!(br.headers()[CONTENT_ENCODING], "br");
    let br_etag = br.headers()[ETAG].clone();
    assert!(br.bytes().await.expect("body").len() < zipped.len());

    assert!(plain_etag != gzip_etag && gzip_etag != br_etag && plain_etag != br_etag);
    for (accept, tag) in [(None, plain_etag), (Some("gzip"), gzip_etag)] {
        let mut request = server
            .client
            .get(server.url(&script))
            .header(IF_NONE_MATCH, tag);
        if let Some(accept) = accept {
            request = request.header(ACCEPT_ENCODING, accept);
        }
        let again = request.send().await.expect("sent");
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{accept:?}");
    }
    server.stop().await;
}

#[tokio::test]
async fn etags_answer_304_for_assets_and_the_index_page() {
    let server = TestServer::start(|_| {}).await;
    let script = main_script(&server).await;
    for path in [script.as_str(), "/", "/flashcards", "/favicon.svg"] {
        let first = server.get(path).await;
        assert_eq!(first.status(), StatusCode::OK, "{path}");
        let etag = first.headers()[ETAG].clone();
        let again = server
            .client
            .get(server.url(path))
            .header(IF_NONE_MATCH, etag.clone())
            .send()
            .await
            .expect("sent");
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(again.headers()[ETAG], etag);
        assert!(again.bytes().await.expect("body").is_empty());
    }
    let index = server.get("/").await;
    assert_eq!(index.headers()[CACHE_CONTROL], "no-cache");
    server.stop().await;
}

#[tokio::test]
async fn every_response_carries_the_security_headers_and_a_request_id() {
    let server = TestServer::start(|_| {}).await;
    let mut ids = Vec::new();
    for path in [
        "/",
        "/api/site",
        "/healthz",
        "/api/nope",
        "/missing.png",
        "/avatar",
    ] {
        let response = server.get(path).await;
        let h = response.headers();
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert!(h.contains_key("referrer-policy"), "{path}");
        let id = h["x-request-id"].to_str().expect("ascii").to_owned();
        assert!(!id.is_empty(), "{path}");
        ids.push(id);
        let csp = h["content-security-policy"].to_str().expect("ascii");
        if path != "/avatar" {
            assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
            let script_src = csp
                .split(';')
                .find(|d| d.trim().starts_with("script-src"))
                .expect("script-src");
            assert!(!script_src.contains("unsafe-inline"), "{path}: {csp}");
            // WebAssembly may be compiled ('wasm-unsafe-eval'), JavaScript never evaluated.
            assert!(!script_src.contains("'unsafe-eval'"), "{path}: {csp}");
            // A card's pictures and sounds are blob: URLs; no other directive allows blob:.
            for directive in csp.split(';').map(str::trim) {
                let name = directive.split_whitespace().next().unwrap_or("");
                let allows_blob = directive.split_whitespace().any(|s| s == "blob:");
                assert_eq!(
                    allows_blob,
                    name == "img-src" || name == "media-src",
                    "{path}: {directive}"
                );
            }
            assert!(csp.contains("img-src 'self' data: blob:"), "{csp}");
            assert!(csp.contains("media-src 'self' blob:"), "{csp}");
        } else {
            assert!(csp.contains("sandbox"), "{csp}");
        }
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 6, "request ids are unique");
    server.stop().await;
}

#[tokio::test]
async fn healthz_is_static_and_answers_head() {
    let server = TestServer::start(|_| {}).await;
    let response = server.get("/healthz").await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.text().await.expect("body");
    assert!(body.contains(hearth::config::VERSION), "{body}");
    let head = server
        .client
        .head(server.url("/healthz"))
        .send()
        .await
        .expect("sent");
    assert_eq!(head.status(), StatusCode::OK);
    let head = server
        .client
        .head(server.url("/readyz"))
        .send()
        .await
        .expect("sent");
    assert_eq!(head.status(), StatusCode::OK);
    server.stop().await;
}

#[tokio::test]
async fn readyz_is_503_when_the_database_file_is_unreadable() {
    let server = TestServer::start(|_| {}).await;
    assert_eq!(server.get("/readyz").await.status(), StatusCode::OK);
    // Root ignores file permissions, so make the file unreadable as a database instead.
    let db_path = server.data_dir.path().join(hearth::store::DB_FILE);
    std::fs::write(&db_path, vec![0xA5u8; 16 * 1024]).expect("clobber");
    let _ = std::fs::remove_file(server.data_dir.path().join("hearth.db-wal"));
    let response = server.get("/readyz").await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    // Liveness does not depend on the database.
    assert_eq!(server.get("/healthz").await.status(), StatusCode::OK);
}

#[tokio::test]
async fn api_site_reflects_the_configuration() {
    let server = TestServer::start(|c| {
        c.site.owner_name = "Grace Hopper".into();
        c.site.spotify_url = Some("https://open.spotify.com/user/grace".into());
    })
    .await;
    let profile: serde_json::Value = server.get("/api/site").await.json().await.expect("json");
    assert_eq!(profile["name"], "Grace Hopper");
    assert_eq!(profile["spotifyUrl"], "https://open.spotify.com/user/grace");
    assert!(profile["beehiveUrl"].is_null());
    let avatar_url = profile["avatarUrl"].as_str().expect("avatar url");
    let avatar = server.get(avatar_url).await;
    assert_eq!(avatar.status(), StatusCode::OK);
    assert_eq!(avatar.headers()[CONTENT_TYPE], "image/svg+xml");

    let html = server.get("/").await.text().await.expect("body");
    assert!(html.contains("<title>Grace Hopper</title>"));
    assert!(html.contains("\"name\":\"Grace Hopper\""));
    server.stop().await;
}

#[tokio::test]
async fn a_configured_avatar_file_is_served_with_its_type() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let server = TestServer::start(|c| {
        c.site.avatar = Some(hearth::config::Avatar {
            bytes: png.clone(),
            content_type: "image/png",
        })
    })
    .await;
    let profile: serde_json::Value = server.get("/api/site").await.json().await.expect("json");
    let response = server
        .get(profile["avatarUrl"].as_str().expect("url"))
        .await;
    assert_eq!(response.headers()[CONTENT_TYPE], "image/png");
    assert_eq!(
        response.bytes().await.expect("body").as_ref(),
        png.as_slice()
    );
    server.stop().await;
}

#[tokio::test]
async fn other_methods_on_pages_are_refused_with_json() {
    let server = TestServer::start(|_| {}).await;
    let response = server
        .client
        .post(server.url("/flashcards"))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    let body: serde_json::Value = response.json().await.expect("json");
    assert!(body["error"].is_string());
    server.stop().await;
}
