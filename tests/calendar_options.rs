//! A calendar's options end to end, on the real server and a loopback upstream: publishing with
//! filters, a window and privacy and reading the hosted feed, the window moving with the server's
//! clock, the editor's preview (counts and decisions), bad configs named by path, calendars
//! without options unchanged, and `hearth remap --config`.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::{error_of, field_error, hearth_bin, TestServer};
use hearth::clock::Clock;
use reqwest::header::ETAG;
use reqwest::StatusCode;
use serde_json::{json, Value};
use upstream::Upstream;

async fn post(server: &TestServer, path: &str, body: &Value) -> reqwest::Response {
    server
        .client
        .post(server.url(path))
        .json(body)
        .send()
        .await
        .expect("sent")
}

async fn hosted(server: &TestServer, id: &str) -> (String, String) {
    let response = server.get(&format!("/cal/{id}.ics")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let etag = response.headers()[ETAG].to_str().expect("ascii").to_owned();
    (response.text().await.expect("text"), etag)
}

fn with_options(id: &str, url: &str, options: Value) -> Value {
    let mut body = json!({ "id": id, "name": "Work", "url": url, "mapping": {} });
    for (key, value) in options.as_object().expect("options object") {
        body[key] = value.clone();
    }
    body
}

#[tokio::test]
async fn a_calendar_published_with_filters_and_privacy_serves_only_what_they_keep() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|_| {}).await;
    let body = with_options(
        "opts",
        &upstream.url("/a.ics"),
        json!({
            "filters": [{"action": "exclude", "field": "SUMMARY", "pattern": "^holiday$", "flags": "i"}],
            "alarms": "strip",
            "privacy": "busy"
        }),
    );
    assert_eq!(
        post(&server, "/api/calendars", &body).await.status(),
        StatusCode::CREATED
    );
    let (feed, _) = hosted(&server, "opts").await;
    assert!(feed.contains("UID:one@hearth.test\r\n"), "{feed}");
    assert!(
        !feed.contains("two@hearth.test"),
        "the filter drops it: {feed}"
    );
    assert!(feed.contains("SUMMARY:Busy\r\n"), "{feed}");
    assert!(
        !feed.contains("Team meeting") && !feed.contains("LOCATION"),
        "{feed}"
    );
    assert!(!feed.contains("BEGIN:VALARM"), "{feed}");
    assert!(
        feed.contains("DTSTART;TZID=Europe/Amsterdam:20261201T090000\r\n"),
        "{feed}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_calendar_without_options_keeps_its_feed_and_stores_the_default_options() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|_| {}).await;
    let body = with_options("plain", &upstream.url("/a.ics"), json!({}));
    assert_eq!(
        post(&server, "/api/calendars", &body).await.status(),
        StatusCode::CREATED
    );
    let (feed, _) = hosted(&server, "plain").await;
    assert!(feed.contains("SUMMARY:Team meeting\r\n"), "{feed}");
    assert!(feed.contains("SUMMARY:Holiday\r\n"), "{feed}");
    assert!(feed.contains("BEGIN:VALARM"), "{feed}");
    let data_dir = server.stop().await;
    let conn = rusqlite::Connection::open(data_dir.path().join("hearth.db")).expect("db");
    let options: String = conn
        .query_row(
            "SELECT options FROM calendars WHERE id = 'plain'",
            [],
            |r| r.get(0),
        )
        .expect("row");
    assert_eq!(options, "{}");
}

/// The civil date `days` after today (UTC) as `YYYYMMDD`.
fn date_in(days: i64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs() as i64;
    // Howard Hinnant's civil_from_days.
    let z = now.div_euclid(86_400) + days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}{month:02}{day:02}")
}

fn dated_feed() -> String {
    let event = |uid: &str, days: i64| {
        format!(
            "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:{}\r\n\
             SUMMARY:{uid}\r\nEND:VEVENT\r\n",
            date_in(days)
        )
    };
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth tests//EN\r\n{}{}END:VCALENDAR\r\n",
        event("soon", 2),
        event("later", 10)
    )
}

#[tokio::test]
async fn the_window_moves_with_the_servers_clock_and_the_etag_with_it() {
    let upstream = Upstream::start().await;
    upstream.set_body(dated_feed());
    let clock = Clock::manual();
    let server = TestServer::calendars(|c| c.clock = clock.clone()).await;
    let body = with_options(
        "window",
        &upstream.url("/dated.ics"),
        json!({"window": {"pastDays": 0, "futureDays": 5}}),
    );
    assert_eq!(
        post(&server, "/api/calendars", &body).await.status(),
        StatusCode::CREATED
    );
    let (today, etag_today) = hosted(&server, "window").await;
    assert!(today.contains("UID:soon\r\n"), "{today}");
    assert!(!today.contains("UID:later"), "{today}");
    // Asked again the same day: the same render.
    assert_eq!(hosted(&server, "window").await.1, etag_today);

    clock.advance(Duration::from_secs(6 * 86_400));
    let (later, etag_later) = hosted(&server, "window").await;
    assert!(!later.contains("UID:soon"), "{later}");
    assert!(later.contains("UID:later\r\n"), "{later}");
    assert_ne!(etag_later, etag_today);
    server.stop().await;
}

#[tokio::test]
async fn the_preview_counts_what_the_config_keeps_and_says_why_each_event_goes() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|_| {}).await;
    let url = upstream.url("/a.ics");
    let config = json!({
        "mapping": {"SUMMARY": "${SUMMARY}!"},
        "filters": [
            {"action": "exclude", "status": "CANCELLED"},
            {"action": "exclude", "allDay": true}
        ]
    });
    let response = post(
        &server,
        "/api/preview",
        &json!({"url": url, "config": config}),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let answer: Value = response.json().await.expect("json");
    assert_eq!(answer["eventCount"], 2);
    assert_eq!(answer["keptCount"], 1);
    assert_eq!(answer["decisions"][0], json!({"kept": true}));
    assert_eq!(answer["decisions"][1]["kept"], false);
    let reason = answer["decisions"][1]["reason"].as_str().expect("reason");
    assert!(reason.starts_with("filter 2 (exclude"), "{reason}");
    let bytes = answer["outputBytes"].as_u64().expect("bytes");
    assert!(
        bytes > 100 && bytes < upstream::SAMPLE.len() as u64 * 2,
        "{bytes}"
    );

    // Without options everything is kept and the size is the plain remap's.
    let plain = post(
        &server,
        "/api/preview",
        &json!({"url": url, "config": {"mapping": {}}}),
    )
    .await;
    let plain: Value = plain.json().await.expect("json");
    assert_eq!(plain["keptCount"], 2);
    assert_eq!(plain["decisions"], json!([{"kept": true}, {"kept": true}]));
    server.stop().await;
}

#[tokio::test]
async fn filters_on_occurrences_remove_the_days_they_drop_and_the_preview_counts_occurrences() {
    // Any fourteen days in a row hold two Saturdays and two Sundays.
    let feed = format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth tests//EN\r\nBEGIN:VEVENT\r\n\
         UID:daily\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:{}\r\nSUMMARY:Daily\r\n\
         RRULE:FREQ=DAILY;COUNT=14\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        date_in(-3)
    );
    let upstream = Upstream::start().await;
    upstream.set_body(feed);
    let server = TestServer::calendars(|_| {}).await;
    let url = upstream.url("/daily.ics");
    let options = json!({
        "occurrences": "each",
        "filters": [{"action": "include", "weekdays": ["MO", "TU", "WE", "TH", "FR"]}],
        "window": {"pastDays": 30, "futureDays": 30}
    });
    let mut config = options.clone();
    config["mapping"] = json!({});
    let answer: Value = post(
        &server,
        "/api/preview",
        &json!({"url": url, "config": config}),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(answer["keptCount"], 1, "{answer}");
    assert_eq!(
        answer["decisions"][0],
        json!({"kept": true, "droppedOccurrences": 4})
    );
    assert_eq!(answer["occurrences"]["count"], 10, "{answer}");
    assert_eq!(answer["occurrences"]["atLeast"], false);
    assert_eq!(
        answer["occurrences"]["from"].as_str().map(str::len),
        Some(10)
    );

    // Judged by its first occurrence (no key), the series is kept whole: 14 occurrences.
    let plain: Value = post(
        &server,
        "/api/preview",
        &json!({"url": url, "config": {"mapping": {}, "filters": options["filters"]}}),
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(plain["occurrences"]["count"], 14, "{plain}");
    assert_eq!(plain["decisions"][0], json!({"kept": true}));

    // Published, the hosted feed removes the four weekend days.
    let body = with_options("weekdays", &url, options);
    assert_eq!(
        post(&server, "/api/calendars", &body).await.status(),
        StatusCode::CREATED
    );
    let (hosted_feed, _) = hosted(&server, "weekdays").await;
    assert_eq!(
        hosted_feed.matches("EXDATE;VALUE=DATE:").count(),
        4,
        "{hosted_feed}"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_preview_says_why_a_series_is_kept_whole_a_yearly_one_that_never_ends_until_a_window_ends_it(
) {
    // A birthday every year from a Saturday, for ever: a weekend rule drops some of its days.
    let feed = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth tests//EN\r\nBEGIN:VEVENT\r\n\
         UID:birthday\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20240106\r\n\
         SUMMARY:Birthday\r\nRRULE:FREQ=YEARLY\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let upstream = Upstream::start().await;
    upstream.set_body(feed);
    let server = TestServer::calendars(|_| {}).await;
    let url = upstream.url("/birthday.ics");
    let preview = |window: Option<Value>| {
        let mut config = json!({
            "mapping": {},
            "occurrences": "each",
            "filters": [{"action": "exclude", "weekdays": ["SA", "SU"]}]
        });
        if let Some(window) = window {
            config["window"] = window;
        }
        let server = &server;
        let url = url.clone();
        async move {
            post(
                server,
                "/api/preview",
                &json!({"url": url, "config": config}),
            )
            .await
            .json::<Value>()
            .await
            .expect("json")
        }
    };
    let answer = preview(None).await;
    assert_eq!(
        answer["decisions"][0],
        json!({"kept": true, "droppedOccurrences": answer["decisions"][0]["droppedOccurrences"], "keptWhole": true, "keptWholeBecause": "endless"}),
        "{answer}"
    );
    // "Days ahead" ends it: its weekend occurrences go one by one.
    let answer = preview(Some(json!({"futureDays": 3650}))).await;
    assert!(
        answer["decisions"][0].get("keptWhole").is_none(),
        "{answer}"
    );
    assert!(
        answer["decisions"][0]["droppedOccurrences"].as_u64() > Some(0),
        "{answer}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_bad_config_is_400_naming_its_path_in_publish_and_preview() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|_| {}).await;
    let url = upstream.url("/a.ics");

    let bad_pattern = with_options(
        "bad",
        &url,
        json!({"filters": [{"action": "exclude", "status": "CANCELLED"}, {"action": "exclude", "field": "SUMMARY", "pattern": "("}]}),
    );
    let response = post(&server, "/api/calendars", &bad_pattern).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let (field, error) = field_error(response).await;
    assert_eq!(field, "filters[1].pattern", "{error}");

    let unknown = with_options("bad", &url, json!({"colour": "red"}));
    let response = post(&server, "/api/calendars", &unknown).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert!(error_of(response).await.contains("colour"));

    let far = with_options("bad", &url, json!({"window": {"futureDays": 40000}}));
    let (field, error) = field_error(post(&server, "/api/calendars", &far).await).await;
    assert_eq!(field, "window.futureDays", "{error}");

    let two_matchers = json!({"url": url, "config": {"mapping": {}, "filters": [
        {"action": "exclude", "status": "CANCELLED", "allDay": true}
    ]}});
    let response = post(&server, "/api/preview", &two_matchers).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let (field, error) = field_error(response).await;
    assert!(field.starts_with("filters[0]"), "{field}: {error}");

    let bad_alarm =
        json!({"url": url, "config": {"mapping": {}, "alarms": {"addMinutesBefore": 99999}}});
    let (field, error) = field_error(post(&server, "/api/preview", &bad_alarm).await).await;
    assert_eq!(field, "alarms.addMinutesBefore", "{error}");

    let bad_template =
        json!({"url": url, "config": {"mapping": {"SUMMARY": "${SUMMARY|re:s/(/x/}"}}});
    let (field, error) = field_error(post(&server, "/api/preview", &bad_template).await).await;
    assert_eq!(field, "mapping.SUMMARY", "{error}");

    // Nothing was published.
    assert_eq!(
        server.get("/cal/bad.ics").await.status(),
        StatusCode::NOT_FOUND
    );
    server.stop().await;
}

fn remap_cli(args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = hearth_bin()
        .arg("remap")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("hearth runs");
    // A refused config ends the process before it reads stdin: a broken pipe is not a failure.
    if let Err(e) = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
    {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "input written: {e}"
        );
    }
    child.wait_with_output().expect("exits")
}

#[test]
fn remap_with_a_config_applies_its_options_and_refuses_a_bad_one_by_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("calendar.json");
    std::fs::write(
        &config,
        json!({
            "mapping": {"LOCATION": "at ${LOCATION}"},
            "filters": [{"action": "exclude", "allDay": true}],
            "alarms": {"addMinutesBefore": 10}
        })
        .to_string(),
    )
    .expect("config written");
    let config = config.to_str().expect("utf8 path");
    let out = remap_cli(&["--config", config], upstream::SAMPLE);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let feed = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        feed.contains("LOCATION:at Room 4\\, Building B\r\n"),
        "{feed}"
    );
    assert!(!feed.contains("Holiday"), "{feed}");
    assert!(feed.contains("TRIGGER:-PT10M\r\n"), "{feed}");

    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"mapping": {}, "filters": [{"action": "exclude", "weekdays": ["XX"]}]}"#,
    )
    .expect("written");
    let out = remap_cli(&["--config", bad.to_str().expect("utf8")], upstream::SAMPLE);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("filters[0].weekdays"), "{stderr}");
    assert!(out.stdout.is_empty());

    let unknown = dir.path().join("unknown.json");
    std::fs::write(&unknown, r#"{"mapping": {}, "filter": []}"#).expect("written");
    let out = remap_cli(
        &["--config", unknown.to_str().expect("utf8")],
        upstream::SAMPLE,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("filter"));

    let mapping = dir.path().join("mapping.json");
    std::fs::write(&mapping, "{}").expect("written");
    let out = remap_cli(
        &[
            "--config",
            config,
            "--mapping",
            mapping.to_str().expect("utf8"),
        ],
        upstream::SAMPLE,
    );
    assert_eq!(out.status.code(), Some(2), "config and mapping together");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--mapping") || stderr.contains("--config"),
        "{stderr}"
    );
}
