//! A vault's media against the real server: sealed files written with the vault's token and
//! named by the client, a write of a name already held answered without its body, the list of
//! names a push compares with, the media quota of each vault (`--sync-media-quota`, named when
//! it is reached), one file's size, the storage and each client's share counting media, and
//! media going with their vault. Then noisy neighbours: four IPv4 addresses and sixteen /64s of
//! one /48 fill media as far as they can, and a learner who was there before and a new one
//! still write a deck and a picture.

mod common;

use common::TestServer;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, IF_MATCH};
use reqwest::StatusCode;
use serde_json::Value;

const OCTETS: &str = "application/octet-stream";
const KIB: usize = 1024;

struct Vault {
    id: String,
    token: String,
}

/// A vault made for the visitor `who` (as a proxy on this machine forwards it).
async fn vault_of(server: &TestServer, who: &str, kind: &str) -> Result<Vault, StatusCode> {
    let response = server
        .client
        .post(server.url(&format!("/api/sync/{kind}")))
        .header(CONTENT_TYPE, OCTETS)
        .header("X-Forwarded-For", who)
        .body(vec![1u8; KIB])
        .send()
        .await
        .expect("sent");
    if response.status() != StatusCode::CREATED {
        return Err(response.status());
    }
    let answer: Value = response.json().await.expect("json");
    Ok(Vault {
        id: answer["id"].as_str().expect("id").to_owned(),
        token: answer["token"].as_str().expect("token").to_owned(),
    })
}

fn media_path(kind: &str, vault: &Vault, name: &str) -> String {
    format!("/api/sync/{kind}/{}/media/{name}", vault.id)
}

async fn put_media(
    server: &TestServer,
    who: &str,
    kind: &str,
    vault: &Vault,
    name: &str,
    body: Vec<u8>,
    token: Option<&str>,
) -> reqwest::Response {
    let mut request = server
        .client
        .put(server.url(&media_path(kind, vault, name)))
        .header(CONTENT_TYPE, OCTETS)
        .header("X-Forwarded-For", who)
        .body(body);
    if let Some(token) = token {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    request.send().await.expect("sent")
}

async fn names(server: &TestServer, kind: &str, vault: &Vault) -> Vec<String> {
    let response = server
        .get(&format!("/api/sync/{kind}/{}/media", vault.id))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let answer: Value = response.json().await.expect("json");
    answer["names"]
        .as_array()
        .expect("names")
        .iter()
        .map(|n| n.as_str().expect("a name").to_owned())
        .collect()
}

fn media_rows(server: &TestServer) -> i64 {
    let db = rusqlite::Connection::open(server.data_dir.path().join("hearth.db")).expect("opens");
    db.query_row("SELECT count(*) FROM sync_media", [], |r| r.get(0))
        .expect("counted")
}

/// The error an answer says in words (every refusal is JSON with an `error`).
async fn json_error(response: reqwest::Response) -> String {
    common::json_error(response).await["error"]
        .as_str()
        .expect("an error in words")
        .to_owned()
}

const ME: &str = "198.51.100.7";

#[tokio::test]
async fn a_vaults_media_are_sent_once_read_back_and_held_within_its_media_quota() {
    let server = TestServer::start(|c| {
        c.sync.max_vault_size = 64 * KIB;
        c.sync.media_quota = 100 * KIB as u64;
    })
    .await;
    let vault = vault_of(&server, ME, "vaults").await.expect("made");
    let info: Value = server.get("/api/sync").await.json().await.expect("json");
    assert_eq!(info["mediaQuota"], 100 * KIB);

    // Written with the token only, read back byte for byte by anyone with the id.
    let picture = vec![42u8; 30 * KIB];
    let refused = put_media(&server, ME, "vaults", &vault, "p1", picture.clone(), None).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    json_error(refused).await;
    let stored = put_media(
        &server,
        ME,
        "vaults",
        &vault,
        "p1",
        picture.clone(),
        Some(&vault.token),
    )
    .await;
    assert_eq!(stored.status(), StatusCode::CREATED);
    let read = server.get(&media_path("vaults", &vault, "p1")).await;
    assert_eq!(read.status(), StatusCode::OK);
    assert_eq!(read.bytes().await.expect("body").to_vec(), picture);
    let absent = server.get(&media_path("vaults", &vault, "p9")).await;
    assert_eq!(absent.status(), StatusCode::NOT_FOUND);
    assert!(json_error(absent).await.contains("no media file p9"));

    // The same name again is held already: 200, and nothing new is stored.
    let again = put_media(
        &server,
        ME,
        "vaults",
        &vault,
        "p1",
        vec![9u8; 10],
        Some(&vault.token),
    )
    .await;
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(again.json::<Value>().await.expect("json")["stored"], false);
    assert_eq!(media_rows(&server), 1);

    // Names are checked; one file is at most --max-vault-size.
    let bad = put_media(
        &server,
        ME,
        "vaults",
        &vault,
        "no.dots",
        vec![1],
        Some(&vault.token),
    )
    .await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let huge = put_media(
        &server,
        ME,
        "vaults",
        &vault,
        "huge",
        vec![1u8; 65 * KIB],
        Some(&vault.token),
    )
    .await;
    assert_eq!(huge.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert!(json_error(huge).await.contains("--max-vault-size"));

    // 30 + 30 + 30 KiB fit in 100 KiB; a fourth does not, and the answer names the media quota.
    for name in ["p2", "p3"] {
        let response = put_media(
            &server,
            ME,
            "vaults",
            &vault,
            name,
            vec![7u8; 30 * KIB],
            Some(&vault.token),
        )
        .await;
        assert_eq!(response.status(), StatusCode::CREATED, "{name}");
    }
    let full = put_media(
        &server,
        ME,
        "vaults",
        &vault,
        "p4",
        vec![7u8; 30 * KIB],
        Some(&vault.token),
    )
    .await;
    assert_eq!(full.status(), StatusCode::INSUFFICIENT_STORAGE);
    let text = json_error(full).await;
    assert!(
        text.contains("media quota") && text.contains("--sync-media-quota"),
        "{text}"
    );
    assert_eq!(names(&server, "vaults", &vault).await, ["p1", "p2", "p3"]);
    // A small one still fits; another vault has a quota of its own.
    let small = put_media(
        &server,
        ME,
        "vaults",
        &vault,
        "p4",
        vec![7u8; 5 * KIB],
        Some(&vault.token),
    )
    .await;
    assert_eq!(small.status(), StatusCode::CREATED);
    let other = vault_of(&server, ME, "vaults").await.expect("made");
    let theirs = put_media(
        &server,
        ME,
        "vaults",
        &other,
        "p1",
        vec![7u8; 30 * KIB],
        Some(&other.token),
    )
    .await;
    assert_eq!(theirs.status(), StatusCode::CREATED);

    // Removed one by one with the token, and all together with their vault.
    let removed = server
        .client
        .delete(server.url(&media_path("vaults", &vault, "p4")))
        .header(AUTHORIZATION, format!("Bearer {}", vault.token))
        .send()
        .await
        .expect("sent");
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    assert_eq!(names(&server, "vaults", &vault).await, ["p1", "p2", "p3"]);
    let gone = server
        .client
        .delete(server.url(&format!("/api/sync/vaults/{}", vault.id)))
        .header(AUTHORIZATION, format!("Bearer {}", vault.token))
        .send()
        .await
        .expect("sent");
    assert_eq!(gone.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        media_rows(&server),
        1,
        "only the other vault's file is left"
    );
    server.stop().await;
}

#[tokio::test]
async fn media_count_in_the_sync_storage_and_a_shared_deck_carries_its_own() {
    let server = TestServer::start(|c| {
        c.sync.max_vault_size = 64 * KIB;
        c.sync.max_sync_storage = 1024 * KIB as u64;
        c.sync.media_quota = 1024 * KIB as u64;
    })
    .await;
    // A client's share of the storage is 128 KiB: media fill it like vaults do.
    let share = vault_of(&server, ME, "shares").await.expect("made");
    let mut stored = 0;
    let mut refusal = String::new();
    for n in 0..8 {
        let response = put_media(
            &server,
            ME,
            "shares",
            &share,
            &format!("f{n}"),
            vec![5u8; 40 * KIB],
            Some(&share.token),
        )
        .await;
        if response.status() == StatusCode::CREATED {
            stored += 1;
        } else {
            assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
            refusal = json_error(response).await;
            break;
        }
    }
    assert_eq!(
        stored, 3,
        "1 KiB of deck and 3 × 40 KiB of media within 128 KiB"
    );
    assert!(
        refusal.contains("share of this server's storage"),
        "{refusal}"
    );
    let held: Vec<String> = names(&server, "shares", &share).await;
    assert_eq!(held.len(), 3);
    // The owner's status page counts them too.
    let db = rusqlite::Connection::open(server.data_dir.path().join("hearth.db")).expect("opens");
    let bytes: i64 = db
        .query_row("SELECT sum(length(body)) FROM sync_media", [], |r| r.get(0))
        .expect("summed");
    assert_eq!(bytes, 3 * 40 * KIB as i64);
    server.stop().await;
}

/// Four IPv4 addresses, and sixteen /64s of one /48.
fn attackers() -> Vec<String> {
    let v4 = (11..=14).map(|n| format!("198.51.100.{n}"));
    let v6 = (0..16).map(|n| format!("2001:db8:48:{n:x}::1"));
    v4.chain(v6).collect()
}

#[tokio::test]
async fn attackers_filling_media_leave_a_learner_and_a_newcomer_room_for_a_deck_and_a_picture() {
    let server = TestServer::start(|c| {
        // A client's share of the storage is 128 KiB, each vault's media quota 96 KiB.
        c.sync.max_vaults = 64;
        c.sync.max_vault_size = 64 * KIB;
        c.sync.max_sync_storage = 1024 * KIB as u64;
        c.sync.media_quota = 96 * KIB as u64;
    })
    .await;
    let learner = vault_of(&server, "203.0.113.50", "vaults")
        .await
        .expect("made");
    let mut stored = 0usize;
    for who in attackers() {
        // Each makes vaults and fills their media until refused.
        'vaults: for _ in 0..4 {
            let Ok(vault) = vault_of(&server, &who, "vaults").await else {
                break;
            };
            for n in 0..8 {
                let response = put_media(
                    &server,
                    &who,
                    "vaults",
                    &vault,
                    &format!("m{n}"),
                    vec![3u8; 24 * KIB],
                    Some(&vault.token),
                )
                .await;
                match response.status() {
                    StatusCode::CREATED => stored += 24 * KIB,
                    StatusCode::INSUFFICIENT_STORAGE => {
                        let text = json_error(response).await;
                        if !text.contains("media quota") {
                            break 'vaults;
                        }
                        continue 'vaults;
                    }
                    other => panic!("{who}: {other}"),
                }
            }
        }
    }
    // Four addresses hold at most a share each, the /48 a bounded multiple of one.
    assert!(
        stored <= 4 * 128 * KIB + 2 * 128 * KIB,
        "{stored} bytes of media stored"
    );
    assert!(
        stored >= 4 * 96 * KIB,
        "the attackers filled what they could: {stored}"
    );

    // The learner who was there writes a deck and a picture.
    let deck = server
        .client
        .put(server.url(&format!("/api/sync/vaults/{}", learner.id)))
        .header(CONTENT_TYPE, OCTETS)
        .header(AUTHORIZATION, format!("Bearer {}", learner.token))
        .header(IF_MATCH, "\"v1\"")
        .header("X-Forwarded-For", "203.0.113.50")
        .body(vec![2u8; 4 * KIB])
        .send()
        .await
        .expect("sent");
    assert_eq!(deck.status(), StatusCode::OK);
    let picture = put_media(
        &server,
        "203.0.113.50",
        "vaults",
        &learner,
        "pic",
        vec![8u8; 20 * KIB],
        Some(&learner.token),
    )
    .await;
    assert_eq!(picture.status(), StatusCode::CREATED);
    // A new learner makes a vault and sends a picture.
    let newcomer = vault_of(&server, "203.0.113.51", "vaults")
        .await
        .expect("a newcomer's vault");
    let picture = put_media(
        &server,
        "203.0.113.51",
        "vaults",
        &newcomer,
        "pic",
        vec![8u8; 20 * KIB],
        Some(&newcomer.token),
    )
    .await;
    assert_eq!(picture.status(), StatusCode::CREATED);
    server.stop().await;
}
