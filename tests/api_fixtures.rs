//! Keeps the UI's idea of the API in step with the server: the real server's answers are compared,
//! by shape (keys and JSON types, recursively), with the fixtures in ui/test-fixtures/api, which
//! the UI's unit tests read with the schemas the UI uses (ui/src/calendars/api.fixtures.test.ts).

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::TestServer;
use reqwest::StatusCode;
use serde_json::{json, Value};
use upstream::Upstream;

/// Set to rewrite the fixtures from the server's answers instead of checking them.
const WRITE_ENV: &str = "HEARTH_WRITE_FIXTURES";

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/test-fixtures/api")
}

/// The sample feed with one line the parser cannot read, so the answer carries a warning.
fn sample_with_warning() -> String {
    upstream::SAMPLE.replacen(
        "SUMMARY:Holiday\r\n",
        "SUMMARY:Holiday\r\nTHIS LINE HAS NO COLON\r\n",
        1,
    )
}

fn mapping(summary: &str) -> Value {
    json!({
        "SUMMARY": summary,
        "DESCRIPTION": "${DESCRIPTION}",
        "LOCATION": "${LOCATION}",
        "DTSTART": "${DTSTART}",
        "DTEND": "${DTEND}"
    })
}

/// Values that differ from run to run (addresses with ports, dates, tokens) made constant, so a
/// rewrite of the fixtures changes them only when the API changed.
fn normalise(value: Value, addresses: &[(String, &str)]) -> Value {
    match value {
        Value::String(text) => Value::String(
            addresses
                .iter()
                .fold(text, |text, (from, to)| text.replace(from.as_str(), to)),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| normalise(item, addresses))
                .collect(),
        ),
        Value::Object(entries) => Value::Object(
            entries
                .into_iter()
                .map(|(key, value)| {
                    let value = match key.as_str() {
                        "fetchedAt" => json!("Thu, 01 Jan 2026 00:00:00 GMT"),
                        "editToken" => json!("EDIT-TOKEN"),
                        _ => normalise(value, addresses),
                    };
                    (key, value)
                })
                .collect(),
        ),
        other => other,
    }
}

/// A value's shape: its JSON type; for an object the shapes of its keys; for a list the merged
/// shape of its items (an item's key missing from others is still part of it).
fn shape(value: &Value) -> Value {
    match value {
        Value::Null => json!("null"),
        Value::Bool(_) => json!("boolean"),
        Value::Number(_) => json!("number"),
        Value::String(_) => json!("string"),
        Value::Array(items) => {
            let merged = items.iter().map(shape).reduce(merge);
            Value::Array(merged.into_iter().collect())
        }
        Value::Object(entries) => Value::Object(
            entries
                .iter()
                .map(|(key, value)| (key.clone(), shape(value)))
                .collect(),
        ),
    }
}

fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut a), Value::Object(b)) => {
            for (key, b_shape) in b {
                let merged = match a.remove(&key) {
                    Some(a_shape) => merge(a_shape, b_shape),
                    None => b_shape,
                };
                a.insert(key, merged);
            }
            Value::Object(a)
        }
        (Value::Array(a), Value::Array(b)) => {
            let merged = a.into_iter().chain(b).reduce(merge);
            Value::Array(merged.into_iter().collect())
        }
        (a, b) if a == b => a,
        (a, b) => {
            let mut names = vec![type_name(&a), type_name(&b)];
            names.sort();
            names.dedup();
            json!(names.join("|"))
        }
    }
}

fn type_name(shape: &Value) -> String {
    match shape {
        Value::String(name) => name.clone(),
        Value::Array(_) => "list".to_owned(),
        Value::Object(_) => "object".to_owned(),
        other => other.to_string(),
    }
}

/// Where the server's shape differs from the fixture's, one line per difference.
fn differences(path: &str, fixture: &Value, server: &Value) -> Vec<String> {
    match (fixture, server) {
        (Value::Object(fixture), Value::Object(server)) => {
            let mut found = Vec::new();
            for (key, fixture_shape) in fixture {
                let at = format!("{path}.{key}");
                match server.get(key) {
                    Some(server_shape) => {
                        found.extend(differences(&at, fixture_shape, server_shape))
                    }
                    None => found.push(format!(
                        "{at}: in the fixture, missing from the server's answer"
                    )),
                }
            }
            for key in server.keys().filter(|key| !fixture.contains_key(*key)) {
                found.push(format!(
                    "{path}.{key}: in the server's answer, missing from the fixture"
                ));
            }
            found
        }
        // An empty list says nothing about its items.
        (Value::Array(fixture), Value::Array(server)) => match (fixture.first(), server.first()) {
            (Some(fixture_item), Some(server_item)) => {
                differences(&format!("{path}[]"), fixture_item, server_item)
            }
            _ => Vec::new(),
        },
        (fixture, server) if fixture == server => Vec::new(),
        (fixture, server) => vec![format!(
            "{path}: the fixture has {}, the server sends {}",
            type_name(fixture),
            type_name(server)
        )],
    }
}

/// The answers the UI reads, by fixture name, each after the status it must come with.
async fn answers(server: &TestServer, upstream: &Upstream) -> BTreeMap<&'static str, Value> {
    async fn json_of(response: reqwest::Response, status: StatusCode, what: &str) -> Value {
        assert_eq!(response.status(), status, "{what}");
        response.json().await.expect("a JSON answer")
    }
    let feed_url = upstream.url("/work.ics");
    let mut answers = BTreeMap::new();

    let query = query_pair("url", &feed_url);
    let feed = json_of(
        server.get(&format!("/api/feed?{query}&limit=100")).await,
        StatusCode::OK,
        "GET /api/feed",
    )
    .await;
    let event = feed["events"][0].clone();
    answers.insert("feed", feed);

    // A merged calendar's feeds as the editor reads them: the second cannot be reached, so its
    // state carries an error while the first's events are shown.
    let sources = server
        .client
        .post(server.url("/api/feed"))
        .json(&json!({ "sources": [
            {"url": feed_url, "prefix": "[Work] ", "label": "Work"},
            {"url": "http://127.0.0.1:9/closed.ics"}
        ]}))
        .send()
        .await
        .expect("sent");
    answers.insert(
        "feed-merged",
        json_of(sources, StatusCode::OK, "POST /api/feed").await,
    );

    let post = |path: &str, body: Value| server.client.post(server.url(path)).json(&body).send();
    // Broken templates, so the answer lists errors.
    let mut bad_mapping = mapping("${SUMMARY|upper} in ${LOCATION}");
    bad_mapping["DTEND"] = json!("${DTEND|re:s/(/x/}");
    answers.insert(
        "render-mapping",
        json_of(
            post(
                "/api/render",
                json!({ "event": event, "mapping": bad_mapping }),
            )
            .await
            .expect("sent"),
            StatusCode::OK,
            "POST /api/render with a mapping",
        )
        .await,
    );
    answers.insert(
        "render-template",
        json_of(
            post(
                "/api/render",
                json!({ "event": event, "template": "${SUMMARY|re:s/a/b/q} at ${LOCATION}" }),
            )
            .await
            .expect("sent"),
            StatusCode::OK,
            "POST /api/render with a template",
        )
        .await,
    );

    // The whole feed through a config: one event dropped, so a decision carries its reason.
    let config = json!({
        "mapping": mapping("${SUMMARY}"),
        "filters": [{"action": "exclude", "field": "SUMMARY", "pattern": "^holiday", "flags": "i"}],
        "timezones": "repair",
        "privacy": "busy"
    });
    answers.insert(
        "preview",
        json_of(
            post("/api/preview", json!({ "url": feed_url, "config": config }))
                .await
                .expect("sent"),
            StatusCode::OK,
            "POST /api/preview",
        )
        .await,
    );
    answers.insert(
        "preview-error",
        json_of(
            post(
                "/api/preview",
                json!({ "url": feed_url, "config": {
                    "mapping": {},
                    "filters": [{"action": "exclude", "field": "SUMMARY", "pattern": "("}]
                } }),
            )
            .await
            .expect("sent"),
            StatusCode::BAD_REQUEST,
            "POST /api/preview with a bad pattern",
        )
        .await,
    );

    let calendar = json!({ "id": "fixture", "name": "Work", "url": feed_url, "mapping": mapping("${SUMMARY}") });
    let created = json_of(
        post("/api/calendars", calendar.clone())
            .await
            .expect("sent"),
        StatusCode::CREATED,
        "first POST /api/calendars",
    )
    .await;
    // The republish carries options beside the mapping, as the editor sends them.
    let mut again = calendar;
    again["editToken"] = created["editToken"].clone();
    again["filters"] = json!([{"action": "exclude", "status": "CANCELLED"}]);
    again["window"] = json!({"pastDays": 30, "futureDays": 365});
    again["timezones"] = json!("repair");
    again["alarms"] = json!({"addMinutesBefore": 15});
    again["privacy"] = json!("full");
    answers.insert("publish-created", created);
    answers.insert(
        "publish-updated",
        json_of(
            post("/api/calendars", again).await.expect("sent"),
            StatusCode::OK,
            "POST /api/calendars with the edit token",
        )
        .await,
    );

    answers.insert(
        "error",
        json_of(
            server.get("/api/feed").await,
            StatusCode::BAD_REQUEST,
            "GET /api/feed without an address",
        )
        .await,
    );
    answers
}

/// `name=value` for a query string.
fn query_pair(name: &str, value: &str) -> String {
    let encoded: String = value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("{name}={encoded}")
}

#[tokio::test]
async fn api_answers_have_the_shapes_of_the_ui_fixtures() {
    let upstream = Upstream::start().await;
    upstream.set_body(sample_with_warning());
    let server = TestServer::start(|config| config.calendars.allow_private_feeds = true).await;
    let addresses = [
        (format!("http://{}", server.addr), "http://hearth.test"),
        (format!("http://{}", upstream.addr), "http://upstream.test"),
    ];
    let answers = answers(&server, &upstream).await;
    server.stop().await;

    let dir = fixtures_dir();
    let write = std::env::var_os(WRITE_ENV).is_some();
    let mut problems = Vec::new();
    for (name, answer) in answers {
        let answer = normalise(answer, &addresses);
        let path = dir.join(format!("{name}.json"));
        if write {
            std::fs::create_dir_all(&dir).expect("fixture directory");
            let text = serde_json::to_string_pretty(&answer).expect("serialises");
            std::fs::write(&path, format!("{text}\n")).expect("fixture written");
            continue;
        }
        let fixture: Value = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).expect("a fixture is JSON"),
            Err(e) => {
                problems.push(format!("{}: cannot be read: {e}", path.display()));
                continue;
            }
        };
        for difference in differences("$", &shape(&fixture), &shape(&answer)) {
            problems.push(format!("{name}.json: {difference}"));
        }
    }
    assert!(
        problems.is_empty(),
        "the API answers no longer have the shapes the UI was written for:\n  {}\n\
         If the change is intended, rewrite the fixtures with\n  \
         {WRITE_ENV}=1 cargo test --locked --test api_fixtures\n\
         then run the UI's unit tests (cd ui && npm run test): they read the fixtures with the \
         UI's own schemas (ui/src/calendars/api.ts), which may need the change too.",
        problems.join("\n  ")
    );
}

#[test]
fn a_renamed_key_is_reported_with_its_path() {
    let fixture = shape(&json!({ "events": [{ "SUMMARY": "a" }], "eventCount": 2 }));
    let server = shape(&json!({ "events": [{ "SUMMARY": "a" }], "event_count": 2 }));
    assert_eq!(
        differences("$", &fixture, &server),
        vec![
            "$.eventCount: in the fixture, missing from the server's answer",
            "$.event_count: in the server's answer, missing from the fixture",
        ]
    );
}

#[test]
fn a_changed_type_is_reported_inside_lists() {
    let fixture = shape(&json!({ "errors": [{ "position": 3 }] }));
    let server = shape(&json!({ "errors": [{ "position": "3" }] }));
    assert_eq!(
        differences("$", &fixture, &server),
        vec!["$.errors[].position: the fixture has number, the server sends string"]
    );
}

#[test]
fn list_items_are_merged_and_values_do_not_matter() {
    let fixture = shape(&json!({ "events": [{ "A": "1" }, { "B": "2" }], "n": 1 }));
    let server = shape(&json!({ "events": [{ "B": "x", "A": "y" }], "n": 7 }));
    assert!(differences("$", &fixture, &server).is_empty());
    let server = shape(&json!({ "events": [{ "A": "y" }], "n": 7 }));
    assert_eq!(
        differences("$", &fixture, &server),
        vec!["$.events[].B: in the fixture, missing from the server's answer"]
    );
}

#[test]
fn normalising_removes_ports_dates_and_tokens() {
    let addresses = [("http://127.0.0.1:4321".to_owned(), "http://hearth.test")];
    let value = json!({
        "hostedUrl": "http://127.0.0.1:4321/cal/a.ics",
        "editToken": "secret",
        "fetchedAt": "Mon, 23 Nov 2026 12:00:00 GMT",
        "list": [{ "url": "http://127.0.0.1:4321/x" }]
    });
    assert_eq!(
        normalise(value, &addresses),
        json!({
            "hostedUrl": "http://hearth.test/cal/a.ics",
            "editToken": "EDIT-TOKEN",
            "fetchedAt": "Thu, 01 Jan 2026 00:00:00 GMT",
            "list": [{ "url": "http://hearth.test/x" }]
        })
    );
}
