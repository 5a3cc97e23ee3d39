//! The sync API against the real server: blobs only with their write token, compare-and-swap on
//! the version, the size limit, the count quotas and the storage budget, the per-address
//! allowances, the publish key, `--no-sync`, and `hearth backup` carrying the vaults.

mod common;

use std::time::Duration;

use common::{json_error, TestServer};
use hearth::http::limits::{RateLimit, RateLimits};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, ETAG, IF_MATCH, IF_NONE_MATCH};
use reqwest::StatusCode;
use serde_json::Value;

const OCTETS: &str = "application/octet-stream";

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
    let server = TestServer::start(|c| c.max_vault_size = 2048).await;
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
        c.max_vaults = 2;
        c.max_shares = 1;
    })
    .await;
    made(&server, "vaults", b"a").await;
    let second = made(&server, "vaults", b"b").await;
    let third = create(&server, "vaults", b"c").await;
    assert_eq!(third.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert!(json_error(third).await["error"]
        .as_str()
        .unwrap_or_default()
        .contains("--max-vaults"));
    let share = made(&server, "shares", b"deck").await;
    assert_eq!(
        create(&server, "shares", b"deck2").await.status(),
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
    let removed = server
        .client
        .delete(server.url(&format!("/api/sync/vaults/{}", second.id)))
        .header(AUTHORIZATION, format!("Bearer {}", second.token))
        .send()
        .await
        .expect("sent");
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    made(&server, "vaults", b"c").await;
}

#[tokio::test]
async fn the_storage_budget_is_shared_and_refuses_growth_with_a_507() {
    let server = TestServer::start(|c| {
        c.max_vault_size = 8192;
        c.max_sync_storage = 6000;
    })
    .await;
    let vault = made(&server, "vaults", &[0u8; 4000]).await;
    let share = create(&server, "shares", &[0u8; 3000]).await;
    assert_eq!(share.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert!(json_error(share).await["error"]
        .as_str()
        .unwrap_or_default()
        .contains("--max-sync-storage"));
    made(&server, "shares", &[0u8; 1900]).await;
    let path = format!("/api/sync/vaults/{}", vault.id);
    // Growing the vault past the budget is refused; shrinking it is not.
    let grow = put(&server, &path, Some(&vault.token), Some(1), &[1u8; 4200]).await;
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
    let server = TestServer::start(|c| c.sync_enabled = false).await;
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
async fn with_a_publish_key_writes_need_it_and_reads_do_not() {
    let server = TestServer::start(|c| c.publish_key = Some("k3y".into())).await;
    let status: Value = server.get("/api/sync").await.json().await.expect("json");
    assert_eq!(status["keyRequired"], true);
    let refused = create(&server, "vaults", b"x").await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    json_error(refused).await;
    let response = server
        .client
        .post(server.url("/api/sync/shares"))
        .header(CONTENT_TYPE, OCTETS)
        .header("X-Publish-Key", "k3y")
        .body(b"deck".to_vec())
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer: Value = response.json().await.expect("json");
    let id = answer["id"].as_str().expect("id");
    // A recipient of the link has no key and can still read the shared deck.
    let (status, body) = bytes_of(&server, &format!("/api/sync/shares/{id}")).await;
    assert_eq!((status, body.as_slice()), (StatusCode::OK, &b"deck"[..]));
}

#[tokio::test]
async fn sync_reads_and_writes_have_their_own_per_address_allowances() {
    let server = TestServer::start(|c| {
        let ample = RateLimit {
            burst: 1000,
            every: Duration::from_millis(1),
        };
        c.rate_limits = RateLimits {
            sync_write: RateLimit {
                burst: 2,
                every: Duration::from_secs(3600),
            },
            sync_read: RateLimit {
                burst: 3,
                every: Duration::from_secs(3600),
            },
            ..RateLimits::all(ample)
        };
    })
    .await;
    let vault = made(&server, "vaults", b"a").await;
    made(&server, "shares", b"b").await;
    let third = create(&server, "vaults", b"c").await;
    assert_eq!(third.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(third.headers().contains_key("retry-after"));
    json_error(third).await;
    let path = format!("/api/sync/vaults/{}", vault.id);
    for _ in 0..3 {
        assert_eq!(server.get(&path).await.status(), StatusCode::OK);
    }
    assert_eq!(
        server.get(&path).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
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
