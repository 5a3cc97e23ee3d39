//! The sync API against the real server: blobs only with their write token, compare-and-swap on
//! the version, the size limit, the count quotas and the storage budget with each client's share
//! and the room kept for newcomers, allowances per vault and per client, creates that can be
//! retried (and may name the id they sealed for), expiry on the server's clock, the sync and publish keys, admission before the body,
//! `--no-sync`, and `hearth backup` carrying the vaults.

mod common;

use std::time::Duration;

use common::{json_error, TestServer};
use hearth::clock::Clock;
use hearth::http::limits::{RateLimit, RateLimits};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, ETAG, IF_MATCH, IF_NONE_MATCH};
use reqwest::StatusCode;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const OCTETS: &str = "application/octet-stream";
const DAY: Duration = Duration::from_secs(24 * 60 * 60);

struct Made {
    id: String,
    token: String,
}

async fn create(server: &TestServer, kind: &str, body: &[u8]) -> reqwest::Response {
    server
        .client
        .post(server.url(&format!("/api/sync/{kind}")))
        .header(CONTENT_TYPE, OCTETS)
        .body(body.to_vec())
        .send()
        .await
        .expect("sent")
}

/// A create from the visitor at `from`, as a reverse proxy on this machine forwards it.
async fn create_from(
    server: &TestServer,
    from: &str,
    kind: &str,
    body: &[u8],
) -> reqwest::Response {
    server
        .client
        .post(server.url(&format!("/api/sync/{kind}")))
        .header(CONTENT_TYPE, OCTETS)
        .header("X-Forwarded-For", from)
        .body(body.to_vec())
        .send()
        .await
        .expect("sent")
}

async fn made(server: &TestServer, kind: &str, body: &[u8]) -> Made {
    let response = create(server, kind, body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer: Value = response.json().await.expect("json");
    assert_eq!(answer["version"], 1);
    Made {
        id: answer["id"].as_str().expect("id").to_owned(),
        token: answer["token"].as_str().expect("token").to_owned(),
    }
}

async fn put(
    server: &TestServer,
    path: &str,
    token: Option<&str>,
    base: Option<i64>,
    body: &[u8],
) -> reqwest::Response {
    let mut request = server
        .client
        .put(server.url(path))
        .header(CONTENT_TYPE, OCTETS)
        .body(body.to_vec());
    if let Some(token) = token {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    if let Some(base) = base {
        request = request.header(IF_MATCH, format!("\"v{base}\""));
    }
    request.send().await.expect("sent")
}

async fn bytes_of(server: &TestServer, path: &str) -> (StatusCode, Vec<u8>) {
    let response = server.get(path).await;
    let status = response.status();
    (status, response.bytes().await.expect("body").to_vec())
}

#[tokio::test]
async fn a_vault_is_read_back_byte_for_byte_and_polled_with_a_304() {
    let server = TestServer::start(|_| {}).await;
    let status: Value = server.get("/api/sync").await.json().await.expect("json");
    assert!(status["maxBytes"].as_u64().is_some(), "{status}");
    let body: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    let vault = made(&server, "vaults", &body).await;
    assert_eq!(vault.id.len(), 32);
    let path = format!("/api/sync/vaults/{}", vault.id);
    let response = server.get(&path).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[ETAG], "\"v1\"");
    assert_eq!(response.headers()[CONTENT_TYPE], OCTETS);
    assert_eq!(response.bytes().await.expect("body").to_vec(), body);
    let polled = server
        .client
        .get(server.url(&path))
        .header(IF_NONE_MATCH, "\"v1\"")
        .send()
        .await
        .expect("sent");
    assert_eq!(polled.status(), StatusCode::NOT_MODIFIED);
    // Unknown and malformed ids are the same 404.
    for other in [
        "/api/sync/vaults/0123456789abcdef0123456789abcdef",
        "/api/sync/vaults/x",
    ] {
        let response = server.get(other).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{other}");
        json_error(response).await;
    }
}

#[tokio::test]
async fn updates_need_the_write_token() {
    let server = TestServer::start(|_| {}).await;
    let vault = made(&server, "vaults", b"first").await;
    let path = format!("/api/sync/vaults/{}", vault.id);
    let other = made(&server, "vaults", b"other").await;
    for token in [None, Some("wrong"), Some(other.token.as_str())] {
        let response = put(&server, &path, token, Some(1), b"stolen").await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{token:?}");
        json_error(response).await;
    }
    let response = put(&server, &path, Some(&vault.token), Some(1), b"second").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(bytes_of(&server, &path).await.1, b"second");
}

#[tokio::test]
async fn a_write_from_a_stale_version_is_a_409_naming_the_current_one() {
    let server = TestServer::start(|_| {}).await;
    let vault = made(&server, "vaults", b"v1").await;
    let path = format!("/api/sync/vaults/{}", vault.id);
    // Two devices start from version 1; the first write wins, the second is told to merge.
    let first = put(&server, &path, Some(&vault.token), Some(1), b"laptop").await;
    assert_eq!(first.status(), StatusCode::OK);
    let answer: Value = first.json().await.expect("json");
    assert_eq!(answer["version"], 2);
    let second = put(&server, &path, Some(&vault.token), Some(1), b"phone").await;
    assert_eq!(second.status(), StatusCode::CONFLICT);
    let body = json_error(second).await;
    assert_eq!(body["version"], 2);
    assert_eq!(bytes_of(&server, &path).await.1, b"laptop");
    // After merging, the phone writes from version 2.
    let retry = put(&server, &path, Some(&vault.token), Some(2), b"merged").await;
    assert_eq!(retry.status(), StatusCode::OK);
    assert_eq!(bytes_of(&server, &path).await.1, b"merged");
    // A write must say which version it starts from.
    let blind = put(&server, &path, Some(&vault.token), None, b"blind").await;
    assert_eq!(blind.status(), StatusCode::BAD_REQUEST);
    assert!(json_error(blind).await["error"]
        .as_str()
        .unwrap_or_default()
        .contains("If-Match"));
}

#[tokio::test]
async fn uploads_larger_than_the_limit_are_refused_with_a_413() {
    let server = TestServer::start(|c| c.sync.max_vault_size = 2048).await;
    let response = create(&server, "vaults", &vec![7u8; 2049]).await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let body = json_error(response).await;
    assert!(body["error"]
        .as_str()
        .unwrap_or_default()
        .contains("--max-vault-size"));
    let vault = made(&server, "vaults", &[1u8; 2048]).await;
    let path = format!("/api/sync/vaults/{}", vault.id);
    let response = put(&server, &path, Some(&vault.token), Some(1), &[2u8; 4096]).await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let response = create(&server, "vaults", b"").await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn vaults_and_shares_have_their_own_count_quotas() {
    let server = TestServer::start(|c| {
        c.sync.max_vaults = 2;
        c.sync.max_shares = 1;
    })
    .await;
    // Each from its own visitor: one visitor's share of two vaults is one.
    assert_eq!(
        create_from(&server, "198.51.100.1", "vaults", b"a")
            .await
            .status(),
        StatusCode::CREATED
    );
    let second = create_from(&server, "198.51.100.2", "vaults", b"b").await;
    assert_eq!(second.status(), StatusCode::CREATED);
    let second: Value = second.json().await.expect("json");
    let third = create_from(&server, "198.51.100.3", "vaults", b"c").await;
    assert_eq!(third.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert!(json_error(third).await["error"]
        .as_str()
        .unwrap_or_default()
        .contains("--max-vaults"));
    let share = made(&server, "shares", b"deck").await;
    assert_eq!(
        create_from(&server, "198.51.100.9", "shares", b"deck2")
            .await
            .status(),
        StatusCode::INSUFFICIENT_STORAGE
    );
    // Revoking a share makes room for another; removing a vault likewise.
    let revoke = server
        .client
        .delete(server.url(&format!("/api/sync/shares/{}", share.id)))
        .header(AUTHORIZATION, format!("Bearer {}", share.token))
        .send()
        .await
        .expect("sent");
    assert_eq!(revoke.status(), StatusCode::NO_CONTENT);
    made(&server, "shares", b"deck3").await;
    let id = second["id"].as_str().expect("id");
    let token = second["token"].as_str().expect("token");
    let removed = server
        .client
        .delete(server.url(&format!("/api/sync/vaults/{id}")))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("sent");
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        create_from(&server, "198.51.100.3", "vaults", b"c")
            .await
            .status(),
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn the_storage_budget_is_shared_and_refuses_growth_with_a_507() {
    let server = TestServer::start(|c| {
        c.sync.max_vault_size = 8192;
        c.sync.max_sync_storage = 6000;
    })
    .await;
    let vault = made(&server, "vaults", &[0u8; 4000]).await;
    let share = create(&server, "shares", &[0u8; 3000]).await;
    assert_eq!(share.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert!(json_error(share).await["error"]
        .as_str()
        .unwrap_or_default()
        .contains("--max-sync-storage"));
    // Within the seven eighths that holders may fill (the last eighth is kept for newcomers).
    made(&server, "shares", &[0u8; 1000]).await;
    let path = format!("/api/sync/vaults/{}", vault.id);
    // Growing the vault past the budget is refused; shrinking it is not.
    let grow = put(&server, &path, Some(&vault.token), Some(1), &[1u8; 5500]).await;
    assert_eq!(grow.status(), StatusCode::INSUFFICIENT_STORAGE);
    let shrink = put(&server, &path, Some(&vault.token), Some(1), &[1u8; 100]).await;
    assert_eq!(shrink.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_revoked_share_is_gone_and_only_its_token_revokes_it() {
    let server = TestServer::start(|_| {}).await;
    let share = made(&server, "shares", b"cipher").await;
    let path = format!("/api/sync/shares/{}", share.id);
    // A share is not readable as a vault, nor the other way round.
    assert_eq!(
        server
            .get(&format!("/api/sync/vaults/{}", share.id))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    let forbidden = server
        .client
        .delete(server.url(&path))
        .header(AUTHORIZATION, "Bearer guess")
        .send()
        .await
        .expect("sent");
    assert_eq!(forbidden.status(), StatusCode::FORBIDDEN);
    assert_eq!(bytes_of(&server, &path).await.0, StatusCode::OK);
    let revoked = server
        .client
        .delete(server.url(&path))
        .header(AUTHORIZATION, format!("Bearer {}", share.token))
        .send()
        .await
        .expect("sent");
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    let gone = server.get(&path).await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    json_error(gone).await;
}

#[tokio::test]
async fn with_no_sync_every_sync_route_is_a_json_404() {
    let server = TestServer::start(|c| c.sync.enabled = false).await;
    for path in [
        "/api/sync",
        "/api/sync/vaults/0123456789abcdef0123456789abcdef",
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(json_error(response).await["error"]
            .as_str()
            .unwrap_or_default()
            .contains("turned off"));
    }
    let response = create(&server, "vaults", b"x").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    json_error(response).await;
}

#[tokio::test]
async fn with_a_publish_key_making_needs_it_and_using_with_the_token_does_not() {
    let server = TestServer::start(|c| c.edge.publish_key = Some("k3y".into())).await;
    let status: Value = server.get("/api/sync").await.json().await.expect("json");
    assert_eq!(status["keyRequired"], true);
    let refused = create(&server, "vaults", b"x").await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    json_error(refused).await;
    let response = server
        .client
        .post(server.url("/api/sync/shares"))
        .header(CONTENT_TYPE, OCTETS)
        .header("X-Sync-Key", "k3y")
        .body(b"deck".to_vec())
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer: Value = response.json().await.expect("json");
    let id = answer["id"].as_str().expect("id");
    let token = answer["token"].as_str().expect("token");
    // A recipient of the link has no key and can still read the shared deck.
    let path = format!("/api/sync/shares/{id}");
    let (status, body) = bytes_of(&server, &path).await;
    assert_eq!((status, body.as_slice()), (StatusCode::OK, &b"deck"[..]));
    // Its maker changes it with the write token alone.
    let changed = put(&server, &path, Some(token), Some(1), b"deck v2").await;
    assert_eq!(changed.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_sync_key_invites_learners_without_the_publish_key() {
    let server = TestServer::start(|c| {
        c.edge.publish_key = Some("owner".into());
        c.edge.sync_key = Some("learners".into());
    })
    .await;
    let with = |key: &'static str| {
        server
            .client
            .post(server.url("/api/sync/vaults"))
            .header(CONTENT_TYPE, OCTETS)
            .header("X-Sync-Key", key)
            .body(b"v".to_vec())
            .send()
    };
    assert_eq!(
        with("learners").await.expect("sent").status(),
        StatusCode::CREATED
    );
    assert_eq!(
        with("owner").await.expect("sent").status(),
        StatusCode::CREATED
    );
    assert_eq!(
        with("guess").await.expect("sent").status(),
        StatusCode::UNAUTHORIZED
    );
    // The sync key opens nothing of the calendar editor.
    let editor = server
        .client
        .get(server.url("/api/feed?url=https://example.org/a.ics"))
        .header("X-Publish-Key", "learners")
        .send()
        .await
        .expect("sent");
    assert_eq!(editor.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn only_the_apps_content_type_makes_a_vault() {
    let server = TestServer::start(|_| {}).await;
    for kind in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let response = server
            .client
            .post(server.url("/api/sync/vaults"))
            .header(CONTENT_TYPE, kind)
            .body(b"v".to_vec())
            .send()
            .await
            .expect("sent");
        assert_eq!(
            response.status(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{kind}"
        );
        json_error(response).await;
    }
    let vault = made(&server, "vaults", b"v").await;
    let plain = server
        .client
        .put(server.url(&format!("/api/sync/vaults/{}", vault.id)))
        .header(CONTENT_TYPE, "text/plain")
        .header(AUTHORIZATION, format!("Bearer {}", vault.token))
        .header(IF_MATCH, "\"v1\"")
        .body(b"w".to_vec())
        .send()
        .await
        .expect("sent");
    assert_eq!(plain.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
}

#[tokio::test]
async fn a_create_retried_with_its_token_finds_the_vault_instead_of_making_another() {
    let server = TestServer::start(|c| c.sync.max_vaults = 8).await;
    let token = "q3Tz-0_aB1c2D3e4F5g6H7i8J9k0L1m2N3o4P5q6R7s";
    let send = || {
        server
            .client
            .post(server.url("/api/sync/vaults"))
            .header(CONTENT_TYPE, OCTETS)
            .header(AUTHORIZATION, format!("Bearer {token}"))
            .body(b"first".to_vec())
            .send()
    };
    let first = send().await.expect("sent");
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.expect("json");
    assert_eq!(first["token"], token);
    // The answer was lost; the app sends the same create again.
    let again = send().await.expect("sent");
    assert_eq!(again.status(), StatusCode::OK);
    let again: Value = again.json().await.expect("json");
    assert_eq!(again["id"], first["id"]);
    // The vault is the client's to remove: nothing is left that nobody can delete.
    let id = first["id"].as_str().expect("id");
    let removed = server
        .client
        .delete(server.url(&format!("/api/sync/vaults/{id}")))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("sent");
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    let short = server
        .client
        .post(server.url("/api/sync/vaults"))
        .header(CONTENT_TYPE, OCTETS)
        .header(AUTHORIZATION, "Bearer short")
        .body(b"x".to_vec())
        .send()
        .await
        .expect("sent");
    assert_eq!(short.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_create_may_name_the_id_it_sealed_for_and_only_one_blob_gets_it() {
    let server = TestServer::start(|c| c.sync.max_vaults = 8).await;
    let id = "0123456789abcdef0123456789abcdef";
    let send = |kind: &'static str, token: &'static str, id: &'static str| {
        server
            .client
            .post(server.url(&format!("/api/sync/{kind}")))
            .header(CONTENT_TYPE, OCTETS)
            .header(AUTHORIZATION, format!("Bearer {token}"))
            .header("X-Blob-Id", id)
            .body(b"sealed for this id".to_vec())
            .send()
    };
    let mine = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let first = send("vaults", mine, id).await.expect("sent");
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.expect("json");
    assert_eq!(
        (first["id"].as_str(), first["version"].as_i64()),
        (Some(id), Some(1))
    );
    let (status, body) = bytes_of(&server, &format!("/api/sync/vaults/{id}")).await;
    assert_eq!(
        (status, body.as_slice()),
        (StatusCode::OK, &b"sealed for this id"[..])
    );
    // The same create again (its answer was lost) finds it.
    let again = send("vaults", mine, id).await.expect("sent");
    assert_eq!(again.status(), StatusCode::OK);
    // Another token cannot take the id, in either kind, and nothing is made.
    let other = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    for kind in ["vaults", "shares"] {
        let taken = send(kind, other, id).await.expect("sent");
        assert_eq!(taken.status(), StatusCode::CONFLICT, "{kind}");
        assert!(error_text(taken).await.contains("exists already"));
    }
    // Upper case, short or not hex: refused in words.
    for bad in [
        "0123456789ABCDEF0123456789ABCDEF",
        "0123",
        "0123456789abcdef0123456789abcdeg",
    ] {
        let refused = send("vaults", other, bad).await.expect("sent");
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        assert!(error_text(refused).await.contains("X-Blob-Id"));
    }
    let (status, _) = bytes_of(&server, "/api/sync/vaults/0123456789ABCDEF0123456789ABCDEF").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_client_holds_its_share_and_the_last_room_is_kept_for_newcomers() {
    // 16 vaults: two per client, and the last two for clients that hold none.
    let server = TestServer::start(|c| c.sync.max_vaults = 16).await;
    for n in 1..=7 {
        for _ in 0..2 {
            let from = format!("203.0.113.{n}");
            let response = create_from(&server, &from, "vaults", b"v").await;
            assert_eq!(response.status(), StatusCode::CREATED, "client {n}");
        }
    }
    let greedy = create_from(&server, "203.0.113.1", "vaults", b"v").await;
    assert_eq!(greedy.status(), StatusCode::INSUFFICIENT_STORAGE);
    let message = error_text(greedy).await;
    assert!(message.contains("share"), "{message}");
    // A client holding one already may not take the room kept for newcomers.
    assert_eq!(
        create_from(&server, "203.0.113.8", "vaults", b"v")
            .await
            .status(),
        StatusCode::CREATED
    );
    let second = create_from(&server, "203.0.113.8", "vaults", b"v").await;
    assert_eq!(second.status(), StatusCode::INSUFFICIENT_STORAGE);
    let message = error_text(second).await;
    assert!(message.contains("kept for learners"), "{message}");
    assert!(
        !message.chars().any(|c| c.is_ascii_digit()),
        "no totals: {message}"
    );
    // A new learner still starts.
    assert_eq!(
        create_from(&server, "203.0.113.9", "vaults", b"v")
            .await
            .status(),
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn holders_cannot_fill_the_storage_kept_for_new_learners() {
    // 8,000 bytes: a client's share is 1,000 and the last 1,000 are kept for newcomers.
    let server = TestServer::start(|c| {
        c.sync.max_vault_size = 1000;
        c.sync.max_sync_storage = 8000;
    })
    .await;
    for n in 1..=7 {
        for _ in 0..2 {
            let from = format!("203.0.113.{n}");
            let response = create_from(&server, &from, "shares", &[0u8; 500]).await;
            assert_eq!(response.status(), StatusCode::CREATED, "client {n}");
        }
    }
    // A client that holds nothing yet may use the kept room; once it holds something, not.
    let newcomer = create_from(&server, "203.0.113.8", "shares", &[0u8; 500]).await;
    assert_eq!(newcomer.status(), StatusCode::CREATED);
    let more = create_from(&server, "203.0.113.8", "shares", &[0u8; 500]).await;
    assert_eq!(more.status(), StatusCode::INSUFFICIENT_STORAGE);
    let message = error_text(more).await;
    assert!(message.contains("kept for learners"), "{message}");
    assert!(
        !message.chars().any(|c| c.is_ascii_digit()),
        "no totals: {message}"
    );
    // A new learner still starts.
    assert_eq!(
        create_from(&server, "203.0.113.9", "vaults", &[0u8; 500])
            .await
            .status(),
        StatusCode::CREATED
    );
}

async fn error_text(response: reqwest::Response) -> String {
    json_error(response).await["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn vaults_nobody_reads_expire_on_the_servers_clock_and_reading_keeps_them() {
    let clock = Clock::manual();
    let server = TestServer::start({
        let clock = clock.clone();
        move |c| {
            c.clock = clock;
            c.sync.vault_expiry = 10 * DAY;
        }
    })
    .await;
    let read = made(&server, "vaults", b"read").await;
    let unread = made(&server, "vaults", b"unread").await;
    let status: Value = server.get("/api/sync").await.json().await.expect("json");
    assert_eq!(status["vaultExpiryDays"], 10);
    clock.advance(6 * DAY);
    let path = |m: &Made| format!("/api/sync/vaults/{}", m.id);
    let polled = server
        .client
        .get(server.url(&path(&read)))
        .header(IF_NONE_MATCH, "\"v1\"")
        .send()
        .await
        .expect("sent");
    assert_eq!(
        polled.status(),
        StatusCode::NOT_MODIFIED,
        "a poll keeps it too"
    );
    clock.advance(6 * DAY);
    assert_eq!(bytes_of(&server, &path(&read)).await.0, StatusCode::OK);
    let gone = server.get(&path(&unread)).await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    assert!(error_text(gone).await.contains("expired"));
    let write = put(
        &server,
        &path(&unread),
        Some(&unread.token),
        Some(1),
        b"late",
    )
    .await;
    assert_eq!(write.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn each_vault_has_its_own_allowance_and_making_them_a_daily_one() {
    let server = TestServer::start(|c| {
        let ample = RateLimit {
            burst: 1000,
            every: Duration::from_millis(1),
        };
        c.edge.rate_limits = RateLimits {
            sync_write: RateLimit {
                burst: 2,
                every: Duration::from_secs(3600),
            },
            sync_read: RateLimit {
                burst: 3,
                every: Duration::from_secs(3600),
            },
            vault_create: RateLimit {
                burst: 2,
                every: Duration::from_secs(12 * 3600),
            },
            ..RateLimits::all(ample)
        };
    })
    .await;
    let first = made(&server, "vaults", b"a").await;
    let second = made(&server, "vaults", b"b").await;
    let third = create(&server, "vaults", b"c").await;
    assert_eq!(third.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(third.headers().contains_key("retry-after"));
    json_error(third).await;
    // Shared decks have their own allowance.
    made(&server, "shares", b"deck").await;
    let path = |m: &Made| format!("/api/sync/vaults/{}", m.id);
    for _ in 0..3 {
        assert_eq!(server.get(&path(&first)).await.status(), StatusCode::OK);
    }
    assert_eq!(
        server.get(&path(&first)).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // Another vault of the same address is not held back by the first one's readers.
    assert_eq!(server.get(&path(&second)).await.status(), StatusCode::OK);
    for base in 1..=2 {
        let response = put(&server, &path(&first), Some(&first.token), Some(base), b"x").await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    let throttled = put(&server, &path(&first), Some(&first.token), Some(3), b"x").await;
    assert_eq!(throttled.status(), StatusCode::TOO_MANY_REQUESTS);
    let other = put(&server, &path(&second), Some(&second.token), Some(1), b"y").await;
    assert_eq!(other.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_household_of_ten_learners_behind_one_router_is_never_refused() {
    // The shipped allowances, not the tests' unlimited ones.
    let server = TestServer::start(|c| c.edge.rate_limits = RateLimits::default()).await;
    let router = "198.51.100.77";
    let mut vaults = Vec::new();
    for _ in 0..10 {
        let response = create_from(&server, router, "vaults", b"decks").await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let answer: Value = response.json().await.expect("json");
        vaults.push((
            answer["id"].as_str().expect("id").to_owned(),
            answer["token"].as_str().expect("token").to_owned(),
        ));
    }
    // Each learner grades 20 cards in a row (a push each) and polls in between.
    for round in 1..=20 {
        for (id, token) in &vaults {
            let path = format!("/api/sync/vaults/{id}");
            let pushed = server
                .client
                .put(server.url(&path))
                .header(CONTENT_TYPE, OCTETS)
                .header("X-Forwarded-For", router)
                .header(AUTHORIZATION, format!("Bearer {token}"))
                .header(IF_MATCH, format!("\"v{round}\""))
                .body(b"decks".to_vec())
                .send()
                .await
                .expect("sent");
            assert_eq!(pushed.status(), StatusCode::OK, "round {round}");
            let polled = server
                .client
                .get(server.url(&path))
                .header("X-Forwarded-For", router)
                .header(IF_NONE_MATCH, format!("\"v{}\"", round + 1))
                .send()
                .await
                .expect("sent");
            assert_eq!(polled.status(), StatusCode::NOT_MODIFIED, "round {round}");
        }
    }
}

#[tokio::test]
async fn a_refused_create_is_answered_before_its_body_is_sent() {
    let server = TestServer::start(|c| c.edge.publish_key = Some("k3y".into())).await;
    // Headers promise 8 MiB that never come: the refusal must not wait for them.
    let mut stream = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    stream
        .write_all(
            b"POST /api/sync/vaults HTTP/1.1\r\nHost: localhost\r\n\
              Content-Type: application/octet-stream\r\nContent-Length: 8388608\r\n\r\n",
        )
        .await
        .expect("write");
    let mut answer = vec![0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer))
        .await
        .expect("answered at once")
        .expect("read");
    let head = String::from_utf8_lossy(&answer[..n]);
    assert!(head.starts_with("HTTP/1.1 401"), "{head}");
}

#[tokio::test]
async fn a_backup_carries_the_vaults_and_shares() {
    let server = TestServer::start(|_| {}).await;
    let vault = made(&server, "vaults", b"vault-ciphertext").await;
    let share = made(&server, "shares", b"share-ciphertext").await;
    let target = server.data_dir.path().join("backup.db");
    hearth::store::backup_to(server.data_dir.path(), &target).expect("backed up");
    let copy = rusqlite::Connection::open(&target).expect("opens");
    for (id, body) in [
        (&vault.id, &b"vault-ciphertext"[..]),
        (&share.id, &b"share-ciphertext"[..]),
    ] {
        let stored: Vec<u8> = copy
            .query_row("SELECT body FROM sync_blobs WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .expect("in the backup");
        assert_eq!(stored, body);
    }
    // Restored, the server serves them and still knows their tokens.
    drop(copy);
    let restored = tempfile::tempdir().expect("tempdir");
    std::fs::copy(&target, restored.path().join("hearth.db")).expect("restore");
    let server = TestServer::start_in(restored, |_| {}).await;
    let path = format!("/api/sync/vaults/{}", vault.id);
    assert_eq!(bytes_of(&server, &path).await.1, b"vault-ciphertext");
    let response = put(&server, &path, Some(&vault.token), Some(1), b"next").await;
    assert_eq!(response.status(), StatusCode::OK);
}
