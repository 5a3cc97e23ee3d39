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
    let revoke = remove(
        &server,
        &format!("/api/sync/shares/{}", share.id),
        &share.token,
    )
    .await;
    assert_eq!(revoke.status(), StatusCode::NO_CONTENT);
    made(&server, "shares", b"deck3").await;
    let id = second["id"].as_str().expect("id");
    let token = second["token"].as_str().expect("token");
    let removed = remove(&server, &format!("/api/sync/vaults/{id}"), token).await;
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
    let forbidden = remove(&server, &path, "guess").await;
    assert_eq!(forbidden.status(), StatusCode::FORBIDDEN);
    assert_eq!(bytes_of(&server, &path).await.0, StatusCode::OK);
    let revoked = remove(&server, &path, &share.token).await;
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
    let removed = remove(&server, &format!("/api/sync/vaults/{id}"), token).await;
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

/// `DELETE` of the blob at `path` with the write token `token`.
async fn remove(server: &TestServer, path: &str, token: &str) -> reqwest::Response {
    server
        .client
        .delete(server.url(path))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("sent")
}

/// A body as a write in parts sends it: the manifest, then each part sent (big-endian).
fn framed(manifest: &[u8], parts: &[(&str, &[u8])]) -> Vec<u8> {
    let mut body = (manifest.len() as u32).to_be_bytes().to_vec();
    body.extend_from_slice(manifest);
    for (name, part) in parts {
        body.push(name.len() as u8);
        body.extend_from_slice(name.as_bytes());
        body.extend_from_slice(&(part.len() as u32).to_be_bytes());
        body.extend_from_slice(part);
    }
    body
}

/// A write of `vault` from `base` naming the parts `names` (`Sync-Parts`).
async fn put_parts(
    server: &TestServer,
    vault: &Made,
    base: i64,
    names: &str,
    body: Vec<u8>,
) -> reqwest::Response {
    server
        .client
        .put(server.url(&format!("/api/sync/vaults/{}", vault.id)))
        .header(CONTENT_TYPE, OCTETS)
        .header(AUTHORIZATION, format!("Bearer {}", vault.token))
        .header(IF_MATCH, format!("\"v{base}\""))
        .header("Sync-Parts", names)
        .body(body)
        .send()
        .await
        .expect("sent")
}

fn part_path(vault: &Made, name: &str) -> String {
    format!("/api/sync/vaults/{}/parts/{name}", vault.id)
}

/// The parts stored for blob `id`, by name, read from the database itself.
fn stored_parts(server: &TestServer, id: &str) -> Vec<(String, Vec<u8>)> {
    let db = rusqlite::Connection::open(server.data_dir.path().join("hearth.db")).expect("opens");
    let mut statement = db
        .prepare("SELECT name, body FROM sync_parts WHERE blob_id = ?1 ORDER BY name")
        .expect("prepared");
    let rows = statement
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("read");
    rows.collect::<Result<_, _>>().expect("rows")
}

/// A vault written in parts a, b and c (version 2, manifest `m1`).
async fn vault_in_parts(server: &TestServer) -> Made {
    let vault = made(server, "vaults", b"whole").await;
    let body = framed(
        b"m1",
        &[("a", b"part a"), ("b", b"part b"), ("c", b"part c")],
    );
    let response = put_parts(server, &vault, 1, "a,b,c", body).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[ETAG], "\"v2\"");
    assert_eq!(response.json::<Value>().await.expect("json")["version"], 2);
    vault
}

#[tokio::test]
async fn a_push_in_parts_sends_only_the_parts_that_changed() {
    let server = TestServer::start(|_| {}).await;
    let vault = vault_in_parts(&server).await;
    let path = format!("/api/sync/vaults/{}", vault.id);
    assert_eq!(
        bytes_of(&server, &path).await.1,
        b"m1",
        "the body is the manifest"
    );
    let response = server.get(&part_path(&vault, "b")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[CONTENT_TYPE], OCTETS);
    assert_eq!(response.headers()["cache-control"], "no-store");
    assert_eq!(response.bytes().await.expect("body").to_vec(), b"part b");
    // The next push sends the manifest and b (changed) and d (new); a is kept, c dropped.
    let body = framed(b"m2", &[("b", b"part b, changed"), ("d", b"part d")]);
    let response = put_parts(&server, &vault, 2, " a , b,d ", body).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(bytes_of(&server, &path).await.1, b"m2");
    for (name, body) in [
        ("a", &b"part a"[..]),
        ("b", b"part b, changed"),
        ("d", b"part d"),
    ] {
        assert_eq!(
            bytes_of(&server, &part_path(&vault, name)).await,
            (StatusCode::OK, body.to_vec()),
            "{name}"
        );
    }
    let dropped = server.get(&part_path(&vault, "c")).await;
    assert_eq!(dropped.status(), StatusCode::NOT_FOUND);
    assert_eq!(error_text(dropped).await, "this vault has no part c");
    let names: Vec<String> = stored_parts(&server, &vault.id)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(names, ["a", "b", "d"]);
    // The manifest alone, naming no part, leaves none.
    let response = put_parts(&server, &vault, 3, "", framed(b"m3", &[])).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(stored_parts(&server, &vault.id).is_empty());
}

#[tokio::test]
async fn a_write_naming_a_part_it_neither_sends_nor_has_changes_nothing() {
    let server = TestServer::start(|_| {}).await;
    let vault = vault_in_parts(&server).await;
    let before = stored_parts(&server, &vault.id);
    let body = framed(b"m2", &[("b", b"part b, changed")]);
    let response = put_parts(&server, &vault, 2, "a,b,x", body).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert!(error_text(response).await.contains("missing part x"));
    let path = format!("/api/sync/vaults/{}", vault.id);
    let read = server.get(&path).await;
    assert_eq!(read.headers()[ETAG], "\"v2\"", "the version is unchanged");
    assert_eq!(read.bytes().await.expect("body").to_vec(), b"m1");
    assert_eq!(stored_parts(&server, &vault.id), before, "the parts too");
    // A stale write in parts is the same 409 as a whole one, and changes nothing either.
    let stale = put_parts(&server, &vault, 1, "a", framed(b"m", &[])).await;
    assert_eq!(stale.status(), StatusCode::CONFLICT);
    assert_eq!(json_error(stale).await["version"], 2);
    assert_eq!(stored_parts(&server, &vault.id), before);
}

#[tokio::test]
async fn a_whole_write_drops_the_parts_and_removing_the_vault_removes_them() {
    let server = TestServer::start(|_| {}).await;
    let vault = vault_in_parts(&server).await;
    let path = format!("/api/sync/vaults/{}", vault.id);
    let response = put(&server, &path, Some(&vault.token), Some(2), b"whole again").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(stored_parts(&server, &vault.id).is_empty());
    assert_eq!(
        server.get(&part_path(&vault, "a")).await.status(),
        StatusCode::NOT_FOUND
    );
    let other = vault_in_parts(&server).await;
    let removed = remove(
        &server,
        &format!("/api/sync/vaults/{}", other.id),
        &other.token,
    )
    .await;
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    assert!(stored_parts(&server, &other.id).is_empty());
    // The vault is gone: its parts answer as the vault does.
    let gone = server.get(&part_path(&other, "a")).await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    assert!(error_text(gone).await.contains("expired"));
}

#[tokio::test]
async fn malformed_part_lists_frames_and_names_are_400s() {
    let server = TestServer::start(|_| {}).await;
    let vault = vault_in_parts(&server).await;
    let ok = framed(b"m", &[("a", b"x")]);
    let mut truncated = ok.clone();
    truncated.pop();
    let mut overlong = ok.clone();
    overlong[..4].copy_from_slice(&1000u32.to_be_bytes());
    let sixty_five: Vec<String> = (0..65).map(|n| format!("p{n}")).collect();
    let cases: Vec<(String, Vec<u8>, &str)> = vec![
        ("a".into(), truncated, "ends inside"),
        ("a".into(), overlong, "ends inside"),
        ("a".into(), framed(b"", &[]), "manifest is empty"),
        ("a".into(), framed(b"m", &[("a", b"")]), "part a is empty"),
        ("a".into(), framed(b"m", &[("z", b"x")]), "does not name"),
        (
            "a".into(),
            framed(b"m", &[("a", b"x"), ("a", b"x")]),
            "twice",
        ),
        ("a,,b".into(), ok.clone(), "letters, digits"),
        ("a/b".into(), ok.clone(), "letters, digits"),
        ("a,b,a".into(), ok.clone(), "twice"),
        (sixty_five.join(","), ok.clone(), "at most 64"),
    ];
    for (names, body, says) in cases {
        let response = put_parts(&server, &vault, 2, &names, body).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{names} {says}");
        let text = error_text(response).await;
        assert!(text.contains(says), "{names}: {text}");
    }
    let path = format!("/api/sync/vaults/{}", vault.id);
    assert_eq!(server.get(&path).await.headers()[ETAG], "\"v2\"");
    // Shared decks have no parts, and a new vault is sent whole.
    let share = made(&server, "shares", b"deck").await;
    let response = server
        .client
        .put(server.url(&format!("/api/sync/shares/{}", share.id)))
        .header(CONTENT_TYPE, OCTETS)
        .header(AUTHORIZATION, format!("Bearer {}", share.token))
        .header(IF_MATCH, "\"v1\"")
        .header("Sync-Parts", "a")
        .body(framed(b"m", &[("a", b"x")]))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert!(error_text(response)
        .await
        .contains("shared decks have no parts"));
    let response = server
        .client
        .post(server.url("/api/sync/vaults"))
        .header(CONTENT_TYPE, OCTETS)
        .header("Sync-Parts", "a")
        .body(framed(b"m", &[("a", b"x")]))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    json_error(response).await;
    // Reading a part: a bad name is a 400; shares and unknown vaults are 404s.
    let bad = server.get(&part_path(&vault, "a.b")).await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    json_error(bad).await;
    let long = server.get(&part_path(&vault, &"x".repeat(44))).await;
    assert_eq!(long.status(), StatusCode::BAD_REQUEST);
    for path in [
        format!("/api/sync/shares/{}/parts/a", share.id),
        "/api/sync/vaults/0123456789abcdef0123456789abcdef/parts/a".to_owned(),
        "/api/sync/vaults/x/parts/a".to_owned(),
    ] {
        let response = server.get(&path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        json_error(response).await;
    }
}

#[tokio::test]
async fn parts_count_toward_the_vault_size_and_the_storage() {
    let server = TestServer::start(|c| {
        c.sync.max_vault_size = 2048;
        c.sync.max_sync_storage = 6000;
    })
    .await;
    let vault = made(&server, "vaults", b"v").await;
    let response = put_parts(
        &server,
        &vault,
        1,
        "a",
        framed(b"m", &[("a", &[1u8; 1500])]),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    // Each upload is within --max-vault-size; the vault with both parts would not be.
    let body = framed(b"m", &[("b", &[2u8; 1000])]);
    let response = put_parts(&server, &vault, 2, "a,b", body).await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let text = error_text(response).await;
    assert!(
        text.contains("with its parts") && text.contains("--max-vault-size"),
        "{text}"
    );
    assert_eq!(stored_parts(&server, &vault.id).len(), 1);
    // The storage counts the parts: this address's share is 2,048 bytes (the vault size, more
    // than an eighth of 6,000), and its vault holds 1,501 of them.
    let refused = create(&server, "shares", &[0u8; 600]).await;
    assert_eq!(refused.status(), StatusCode::INSUFFICIENT_STORAGE);
    assert!(error_text(refused)
        .await
        .contains("share of this server's storage"));
    // Without the parts it fits.
    let path = format!("/api/sync/vaults/{}", vault.id);
    let response = put(&server, &path, Some(&vault.token), Some(2), b"small").await;
    assert_eq!(response.status(), StatusCode::OK);
    made(&server, "shares", &[0u8; 600]).await;
}

#[tokio::test]
async fn reading_a_part_counts_as_reading_the_vault_and_keeps_it_alive() {
    let clock = Clock::manual();
    let server = TestServer::start({
        let clock = clock.clone();
        move |c| {
            c.clock = clock;
            c.sync.vault_expiry = 10 * DAY;
            c.edge.rate_limits = RateLimits {
                sync_read: RateLimit {
                    burst: 3,
                    every: Duration::from_secs(3600),
                },
                ..RateLimits::all(RateLimit {
                    burst: 1000,
                    every: Duration::from_millis(1),
                })
            };
        }
    })
    .await;
    let vault = vault_in_parts(&server).await;
    let left = vault_in_parts(&server).await;
    clock.advance(6 * DAY);
    assert_eq!(
        server.get(&part_path(&vault, "a")).await.status(),
        StatusCode::OK
    );
    clock.advance(6 * DAY);
    let path = format!("/api/sync/vaults/{}", vault.id);
    assert_eq!(server.get(&path).await.status(), StatusCode::OK);
    assert_eq!(
        server.get(&part_path(&vault, "b")).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        server.get(&part_path(&vault, "c")).await.status(),
        StatusCode::OK
    );
    // Parts share the vault's allowance of reads (three, since the clock moved on).
    let throttled = server.get(&part_path(&vault, "a")).await;
    assert_eq!(throttled.status(), StatusCode::TOO_MANY_REQUESTS);
    // The vault nobody read expired, and the next create swept it with its parts.
    let gone = server.get(&part_path(&left, "a")).await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    assert!(error_text(gone).await.contains("expired"));
    assert_eq!(stored_parts(&server, &left.id).len(), 3);
    made(&server, "vaults", b"new").await;
    assert!(stored_parts(&server, &left.id).is_empty());
    assert_eq!(stored_parts(&server, &vault.id).len(), 3);
    // The throttled vault's reader holds only its own vault back: another vault is answered.
    let other = vault_in_parts(&server).await;
    assert_eq!(
        server.get(&part_path(&other, "a")).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        server.get(&part_path(&vault, "b")).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn a_backup_carries_the_parts() {
    let server = TestServer::start(|_| {}).await;
    let vault = vault_in_parts(&server).await;
    let target = server.data_dir.path().join("backup.db");
    hearth::store::backup_to(server.data_dir.path(), &target).expect("backed up");
    let restored = tempfile::tempdir().expect("tempdir");
    std::fs::copy(&target, restored.path().join("hearth.db")).expect("restore");
    let server = TestServer::start_in(restored, |_| {}).await;
    assert_eq!(
        bytes_of(&server, &part_path(&vault, "c")).await,
        (StatusCode::OK, b"part c".to_vec())
    );
    let response = put_parts(&server, &vault, 2, "a,b,c", framed(b"m2", &[])).await;
    assert_eq!(response.status(), StatusCode::OK);
}
