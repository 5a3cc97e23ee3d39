//! The calendar API against a real server on a free port and a real upstream feed server on
//! loopback: fetching safely, rendering, publishing with tokens and keys, and hosted feeds that
//! calendar apps can trust (conditional requests, one shared upstream fetch, stale copies).

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::time::Duration;

use common::{error_of, field_error, json_error, TestServer};
use hearth::calendar::{self, CompiledConfig, CompiledMapping, Limits, Mapping, RemapOptions};
use hearth::clock::Clock;
use reqwest::header::{
    AUTHORIZATION, CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE, ETAG, IF_MODIFIED_SINCE,
    IF_NONE_MATCH, LAST_MODIFIED,
};
use reqwest::StatusCode;
use serde_json::{json, Value};
use upstream::Upstream;

async fn private_server() -> TestServer {
    TestServer::calendars(|_| {}).await
}

fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

async fn feed(server: &TestServer, url: &str) -> reqwest::Response {
    server.get(&format!("/api/feed?url={}", enc(url))).await
}

async fn publish(server: &TestServer, body: Value) -> reqwest::Response {
    server
        .client
        .post(server.url("/api/calendars"))
        .json(&body)
        .send()
        .await
        .expect("sent")
}

fn calendar(id: &str, url: &str, summary: &str) -> Value {
    json!({
        "id": id,
        "name": "Work",
        "url": url,
        "mapping": {
            "SUMMARY": summary,
            "DESCRIPTION": "${DESCRIPTION}",
            "LOCATION": "${LOCATION}",
            "DTSTART": "${DTSTART}",
            "DTEND": "${DTEND}"
        }
    })
}

#[tokio::test]
async fn feed_endpoint_answers_the_parsed_feed_with_true_counts() {
    let upstream = Upstream::start().await;
    let server = private_server().await;
    let response = feed(&server, &upstream.url("/work.ics")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["eventCount"], 2);
    assert_eq!(body["sizeBytes"], upstream::SAMPLE.len());
    assert_eq!(body["events"][0]["SUMMARY"], "Team meeting");
    assert_eq!(body["events"][0]["LOCATION"], "Room 4, Building B");
    assert_eq!(body["events"][0]["TZID"], "Europe/Amsterdam");
    assert_eq!(body["events"][1]["VALUE"], "DATE");
    assert!(body["properties"]
        .as_array()
        .expect("list")
        .iter()
        .any(|p| p["name"] == "X-WR-CALNAME" && p["value"] == "Upstream"));

    // Paging keeps the true count.
    let page: Value = server
        .get(&format!(
            "/api/feed?url={}&offset=1&limit=1",
            enc(&upstream.url("/work.ics"))
        ))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(page["eventCount"], 2);
    assert_eq!(page["events"].as_array().expect("list").len(), 1);
    assert_eq!(page["events"][0]["SUMMARY"], "Holiday");
    // Within a minute the editor's pages come from the same copy.
    assert_eq!(upstream.hits(), 1);
    server.stop().await;
}

#[tokio::test]
async fn refused_addresses_are_400_without_the_flag() {
    let server = TestServer::start(|_| {}).await;
    for url in [
        "http://127.0.0.1:9/x.ics",
        "http://10.0.0.1/x.ics",
        "http://192.168.1.1/x.ics",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/x.ics",
        "http://[::ffff:127.0.0.1]/x.ics",
        "webcal://127.0.0.1/x.ics",
        "webcals://127.0.0.1/x.ics",
        "http://[64:ff9b:1::7f00:1]/x.ics",
        "http://[::ffff:0:7f00:1]/x.ics",
        "http://[2001::1]/x.ics",
    ] {
        let response = feed(&server, url).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{url}");
        let error = error_of(response).await;
        assert!(error.contains("refused address"), "{url}: {error}");
    }
    // A name is refused without saying what it resolves to.
    let response = feed(&server, "http://localhost:9/x.ics").await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let error = error_of(response).await;
    assert!(error.contains("private or local network"), "{error}");
    assert!(
        !error.contains("127.0.0.1") && !error.contains("::1"),
        "{error}"
    );
    server.stop().await;
}

#[tokio::test]
async fn other_schemes_and_garbage_are_400() {
    let server = TestServer::start(|_| {}).await;
    for (url, expected) in [
        ("file:///etc/passwd", "only http, https and webcal"),
        ("gopher://example.org/", "only http, https and webcal"),
        ("not a url", "not a valid address"),
        ("", "empty"),
    ] {
        let response = feed(&server, url).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{url}");
        let error = error_of(response).await;
        assert!(error.contains(expected), "{url}: {error}");
    }
    let response = server.get("/api/feed").await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    server.stop().await;
}

#[tokio::test]
async fn upstream_failures_are_named() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.calendars.feed_max_size = 4096;
    })
    .await;

    upstream.set_body(vec![b'x'; 10_000]);
    let response = feed(&server, &upstream.url("/big.ics")).await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert!(error_of(response).await.contains("larger than the limit"));

    upstream.set_body("<html><body>Sign in</body></html>");
    let response = feed(&server, &upstream.url("/page.html")).await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert!(error_of(response).await.contains("not a calendar"));

    upstream.set_status(404);
    let response = feed(&server, &upstream.url("/gone.ics")).await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert!(error_of(response).await.contains("HTTP 404"));
    server.stop().await;
}

#[tokio::test]
async fn compressed_feeds_are_read_and_limited_by_their_decompressed_size() {
    use std::sync::atomic::Ordering;
    let upstream = Upstream::start().await;
    upstream.state.gzip.store(true, Ordering::SeqCst);
    let server = TestServer::calendars(|c| {
        c.calendars.feed_max_size = 64 * 1024;
    })
    .await;
    let response = feed(&server, &upstream.url("/zipped.ics")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["eventCount"], 2);

    // A small download that inflates past the limit is refused.
    let mut bomb = upstream::SAMPLE.as_bytes().to_vec();
    bomb.extend(std::iter::repeat_n(b' ', 1024 * 1024));
    upstream.set_body(bomb);
    let response = feed(&server, &upstream.url("/bomb.ics")).await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert!(error_of(response).await.contains("larger than the limit"));
    server.stop().await;
}

#[tokio::test]
async fn a_slow_upstream_times_out_with_a_clear_error() {
    use hearth::publish::fetch::{FetchError, FetchOptions, Fetcher, Validators};
    let upstream = Upstream::start().await;
    // The upstream never answers.
    upstream.close_gate();
    let mut options = FetchOptions::new(true, 1 << 20);
    options.total_timeout = Duration::from_millis(300);
    let fetcher = Fetcher::with_options(options).expect("fetcher");
    let url = reqwest::Url::parse(&upstream.url("/slow.ics")).expect("url");
    let err = fetcher
        .fetch(&url, &Validators::default())
        .await
        .expect_err("times out");
    assert!(matches!(err, FetchError::Timeout(_)), "{err:?}");
    assert!(err.to_string().contains("seconds to answer"));
}

#[tokio::test]
async fn redirects_to_refused_addresses_are_refused_on_every_hop() {
    use hearth::publish::fetch::{FetchError, FetchOptions, Fetcher, Validators};
    use std::net::{IpAddr, Ipv4Addr};
    use std::sync::Arc;
    // 127.0.0.1 stands in for a public host; 127.0.0.2 for a private one.
    let public = Upstream::start_on("127.0.0.1:0").await;
    let private = Upstream::start_on("127.0.0.2:0").await;
    let blocked = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
    let mut options = FetchOptions::new(false, 1 << 20);
    options.refuse = Arc::new(move |ip| ip == blocked);
    options.hosts.insert(
        "feeds.example".into(),
        vec![IpAddr::V4(Ipv4Addr::LOCALHOST)],
    );
    options
        .hosts
        .insert("internal.example".into(), vec![blocked]);
    let fetcher = Fetcher::with_options(options).expect("fetcher");
    let start = reqwest::Url::parse(&format!(
        "http://feeds.example:{}/cal.ics",
        public.addr.port()
    ))
    .expect("url");

    // The allowed host itself works.
    fetcher
        .fetch(&start, &Validators::default())
        .await
        .expect("allowed host fetches");

    // A redirect to a literal refused address.
    public.redirect_to(&private.url("/secret"));
    let err = fetcher
        .fetch(&start, &Validators::default())
        .await
        .expect_err("refused");
    assert!(matches!(err, FetchError::RefusedAddress(_)), "{err:?}");

    // A redirect to a host name that resolves to a refused address.
    public.redirect_to(&format!(
        "http://internal.example:{}/secret",
        private.addr.port()
    ));
    let err = fetcher
        .fetch(&start, &Validators::default())
        .await
        .expect_err("refused");
    assert_eq!(err, FetchError::RefusedHost);
    assert!(!err.to_string().contains("127.0.0.2"), "{err}");
    assert_eq!(private.hits(), 0, "the refused server was never contacted");
}

#[tokio::test]
async fn render_answers_fields_and_per_field_errors() {
    let server = TestServer::start(|_| {}).await;
    let event = json!({"SUMMARY": "Team meeting", "LOCATION": "Room 4", "DESCRIPTION": "a/b"});
    let response = server
        .client
        .post(server.url("/api/render"))
        .json(&json!({
            "event": event,
            "mapping": {
                "SUMMARY": "${SUMMARY} @ ${LOCATION}",
                "DESCRIPTION": "${DESCRIPTION|re:s/\\//-/g}",
                "LOCATION": "${LOCATION|re:s/(/x/}"
            }
        }))
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["fields"]["SUMMARY"], "Team meeting @ Room 4");
    assert_eq!(body["fields"]["DESCRIPTION"], "a-b");
    // A bad pattern leaves the value unchanged and reports where it is.
    assert_eq!(body["fields"]["LOCATION"], "Room 4");
    let errors = body["errors"].as_array().expect("list");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["field"], "LOCATION");
    assert!(errors[0]["position"].is_u64());

    let response = server
        .client
        .post(server.url("/api/render"))
        .json(&json!({"event": event, "template": "${SUMMARY|re:s/meeting/call/i}!"}))
        .send()
        .await
        .expect("sent");
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["result"], "Team call!");
    assert_eq!(body["errors"], json!([]));
    server.stop().await;
}

#[tokio::test]
async fn malformed_wrong_and_huge_bodies_are_4xx_with_json() {
    let server = TestServer::start(|_| {}).await;
    let cases: Vec<(&str, reqwest::RequestBuilder)> = vec![
        (
            "malformed",
            server
                .client
                .post(server.url("/api/calendars"))
                .header(CONTENT_TYPE, "application/json")
                .body("{\"id\": "),
        ),
        (
            "wrong type",
            server.client.post(server.url("/api/calendars")).json(
                &json!({"id": 5, "name": "x", "url": "https://example.org/a.ics", "mapping": {}}),
            ),
        ),
        (
            "not json",
            server
                .client
                .post(server.url("/api/render"))
                .header(CONTENT_TYPE, "text/plain")
                .body("hello"),
        ),
        (
            "huge publish",
            server
                .client
                .post(server.url("/api/calendars"))
                .header(CONTENT_TYPE, "application/json")
                .body(format!("{{\"id\":\"{}\"}}", "a".repeat(100_000))),
        ),
        (
            "huge render",
            server
                .client
                .post(server.url("/api/render"))
                .header(CONTENT_TYPE, "application/json")
                .body(vec![b' '; 3 * 1024 * 1024]),
        ),
        (
            "render with neither",
            server
                .client
                .post(server.url("/api/render"))
                .json(&json!({"event": {}})),
        ),
    ];
    for (what, request) in cases {
        let response = request.send().await.expect("sent");
        let status = response.status();
        assert!(status.is_client_error(), "{what}: {status}");
        let body = json_error(response).await;
        assert!(
            body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{what}"
        );
        if what == "wrong type" {
            assert_eq!(body["field"], "id", "{body}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn publish_validates_each_field_by_name() {
    let upstream = Upstream::start().await;
    let server = private_server().await;
    let good = calendar("cal-1", &upstream.url("/a.ics"), "${SUMMARY}");
    let cases = [
        ("id", json!("has space")),
        ("id", json!("x".repeat(65))),
        ("name", json!("n".repeat(201))),
        ("name", json!("   ")),
        ("url", json!("ftp://example.org/a.ics")),
        ("mapping", json!({"TITLE": "x"})),
        ("mapping.SUMMARY", json!({"SUMMARY": 7})),
        (
            "mapping.DESCRIPTION",
            json!({"DESCRIPTION": "${DESCRIPTION|re:s/[/x/}"}),
        ),
        ("mapping.LOCATION", json!({"LOCATION": "y".repeat(4097)})),
    ];
    for (field, value) in cases {
        let key = field.split('.').next().expect("key");
        let mut body = good.clone();
        body[key] = value;
        let response = publish(&server, body).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{field}");
        let (named, error) = field_error(response).await;
        assert_eq!(named, field, "{error}");
    }
    assert_eq!(upstream.hits(), 0, "nothing invalid reached upstream");
    server.stop().await;
}

#[tokio::test]
async fn republishing_needs_the_edit_token_and_raises_the_revision() {
    let upstream = Upstream::start().await;
    let server = private_server().await;
    let body = calendar("work", &upstream.url("/a.ics"), "${SUMMARY}");
    let first = publish(&server, body.clone()).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.expect("json");
    let token = first["editToken"].as_str().expect("token").to_owned();
    assert_eq!(
        first["hostedUrl"],
        format!("http://{}/cal/work.ics", server.addr)
    );

    let without = publish(&server, body.clone()).await;
    assert_eq!(without.status(), StatusCode::FORBIDDEN);
    assert!(error_of(without).await.contains("edit token"));

    let mut wrong = body.clone();
    wrong["editToken"] = json!("nope");
    assert_eq!(
        publish(&server, wrong).await.status(),
        StatusCode::FORBIDDEN
    );

    let with_header = server
        .client
        .post(server.url("/api/calendars"))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .json(&body)
        .send()
        .await
        .expect("sent");
    assert_eq!(with_header.status(), StatusCode::OK);
    let with_header: Value = with_header.json().await.expect("json");
    assert_eq!(with_header["revision"], 1);
    assert!(
        with_header.get("editToken").is_none(),
        "token shown only once"
    );

    let mut with_field = body.clone();
    with_field["editToken"] = json!(token);
    let response = publish(&server, with_field).await;
    assert_eq!(response.status(), StatusCode::OK);
    let response: Value = response.json().await.expect("json");
    assert_eq!(response["revision"], 2);
    server.stop().await;
}

#[tokio::test]
async fn publish_key_is_required_when_configured() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.edge.publish_key = Some("letmein".into());
    })
    .await;
    let body = calendar("keyed", &upstream.url("/a.ics"), "${SUMMARY}");
    let response = publish(&server, body.clone()).await;
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(error_of(response).await.contains("publish key"));
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .header("x-publish-key", "wrong")
        .json(&body)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .header("x-publish-key", "letmein")
        .json(&body)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    server.stop().await;
}

#[tokio::test]
async fn hosted_url_follows_public_url_or_forwarded_headers() {
    let upstream = Upstream::start().await;
    let server = private_server().await;
    let response = server
        .client
        .post(server.url("/api/calendars"))
        .header("host", "cal.example.org")
        .header("x-forwarded-proto", "https")
        .json(&calendar("fwd", &upstream.url("/a.ics"), "${SUMMARY}"))
        .send()
        .await
        .expect("sent");
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["hostedUrl"], "https://cal.example.org/cal/fwd.ics");
    server.stop().await;

    let server = TestServer::calendars(|c| {
        c.public_url = Some("https://me.example".into());
    })
    .await;
    let body: Value = publish(&server, calendar("pub", &upstream.url("/a.ics"), "x"))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(body["hostedUrl"], "https://me.example/cal/pub.ics");
    server.stop().await;
}

#[tokio::test]
async fn the_hosted_feed_is_the_engines_remap_with_name_refresh_and_revision() {
    let upstream = Upstream::start().await;
    let server = private_server().await;
    let summary = "${SUMMARY} @ ${LOCATION}";
    let created: Value = publish(&server, calendar("feed", &upstream.url("/a.ics"), summary))
        .await
        .json()
        .await
        .expect("json");
    let token = created["editToken"].as_str().expect("token").to_owned();
    let mut republish = calendar("feed", &upstream.url("/a.ics"), summary);
    republish["editToken"] = json!(token);
    assert_eq!(publish(&server, republish).await.status(), StatusCode::OK);

    let response = server.get("/cal/feed.ics").await;
    assert_eq!(response.status(), StatusCode::OK);
    let h = response.headers().clone();
    assert_eq!(h[CONTENT_TYPE], "text/calendar; charset=utf-8");
    assert_eq!(h[CACHE_CONTROL], "private, max-age=900");
    assert!(h[CONTENT_DISPOSITION]
        .to_str()
        .expect("ascii")
        .starts_with("inline; filename=\"Work.ics\""));
    assert!(h.contains_key(LAST_MODIFIED));
    assert!(h.get("x-hearth-stale").is_none());
    let body = response.bytes().await.expect("body");

    let mapping = Mapping {
        summary: summary.into(),
        ..Mapping::default()
    };
    let expected = calendar::remap(
        upstream::SAMPLE.as_bytes(),
        &CompiledConfig::from(CompiledMapping::compile(&mapping).expect("compiles")),
        &RemapOptions {
            calendar_name: Some("Work".into()),
            refresh_interval: Some(Duration::from_secs(900)),
            sequence_offset: 1,
            max_output_bytes: None,
            now: None,
            interrupt: None,
        },
        &Limits::default(),
    )
    .expect("remaps");
    assert_eq!(body.as_ref(), expected.bytes.as_slice());
    let text = String::from_utf8(body.to_vec()).expect("utf8");
    assert!(
        text.contains("SUMMARY:Team meeting @ Room 4\\, Building B\r\n"),
        "{text}"
    );
    assert!(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Amsterdam\r\n"));
    assert!(text.contains("DTSTAMP:20260101T000000Z\r\n"));
    assert!(text.contains("X-WR-CALNAME:Work\r\n"));
    assert_eq!(
        server.get("/cal/unknown.ics").await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        server.get("/cal/feed").await.status(),
        StatusCode::NOT_FOUND
    );
    server.stop().await;
}

#[tokio::test]
async fn hosted_feeds_answer_304_and_head() {
    let upstream = Upstream::start().await;
    let server = private_server().await;
    publish(
        &server,
        calendar("etag", &upstream.url("/a.ics"), "${SUMMARY}"),
    )
    .await;
    let first = server.get("/cal/etag.ics").await;
    let etag = first.headers()[ETAG].clone();
    let last_modified = first.headers()[LAST_MODIFIED].clone();
    let length = first.bytes().await.expect("body").len();

    let again = server
        .client
        .get(server.url("/cal/etag.ics"))
        .header(IF_NONE_MATCH, etag.clone())
        .send()
        .await
        .expect("sent");
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(again.headers()[ETAG], etag);

    let since = server
        .client
        .get(server.url("/cal/etag.ics"))
        .header(IF_MODIFIED_SINCE, last_modified)
        .send()
        .await
        .expect("sent");
    assert_eq!(since.status(), StatusCode::NOT_MODIFIED);

    let head = server
        .client
        .head(server.url("/cal/etag.ics"))
        .send()
        .await
        .expect("sent");
    assert_eq!(head.status(), StatusCode::OK);
    assert_eq!(head.headers()[ETAG], etag);
    assert_eq!(
        head.headers()["content-length"],
        length.to_string().as_str()
    );
    assert!(head.bytes().await.expect("body").is_empty());
    server.stop().await;
}

#[tokio::test]
async fn a_hundred_subscribers_of_a_stale_feed_cause_one_upstream_request() {
    let upstream = Upstream::start().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, Duration::from_secs(60), |_| {}).await;
    publish(
        &server,
        calendar("busy", &upstream.url("/a.ics"), "${SUMMARY}!"),
    )
    .await;
    assert_eq!(server.get("/cal/busy.ics").await.status(), StatusCode::OK);
    clock.advance(Duration::from_secs(61));
    // The refresh waits at the upstream's gate while the hundred subscribers are answered.
    upstream.close_gate();
    let before = upstream.hits();

    let mut tasks = Vec::new();
    for _ in 0..100 {
        let client = server.client.clone();
        let url = server.url("/cal/busy.ics");
        tasks.push(tokio::spawn(async move {
            client.get(url).send().await.expect("sent").status()
        }));
    }
    for task in tasks {
        assert_eq!(task.await.expect("joins"), StatusCode::OK);
    }
    upstream.until_waiting(1).await;
    upstream.open_gate();
    // The refresh runs in the background; wait (bounded) until it is done.
    common::until("the refresh", || async {
        !server
            .get("/cal/busy.ics")
            .await
            .headers()
            .contains_key("x-hearth-stale")
    })
    .await;
    assert_eq!(upstream.hits() - before, 1, "exactly one upstream request");
    server.stop().await;
}

#[tokio::test]
async fn upstream_down_serves_the_last_good_copy_even_after_a_restart() {
    let upstream = Upstream::start().await;
    let clock = Clock::manual();
    let server = TestServer::calendars_on(&clock, Duration::from_secs(60), |_| {}).await;
    publish(
        &server,
        calendar("keep", &upstream.url("/a.ics"), "${SUMMARY}"),
    )
    .await;
    let good = server
        .get("/cal/keep.ics")
        .await
        .bytes()
        .await
        .expect("body");

    upstream.set_status(503);
    clock.advance(Duration::from_secs(61));
    let stale = server.get("/cal/keep.ics").await;
    assert_eq!(stale.status(), StatusCode::OK);
    assert!(stale.headers().contains_key("x-hearth-stale"));
    assert_eq!(stale.bytes().await.expect("body"), good);

    // The copy lives in SQLite: a new process serves it too.
    let data_dir = server.stop().await;
    let server =
        TestServer::start_in(data_dir, common::on_clock(&clock, Duration::from_secs(60))).await;
    clock.advance(Duration::from_secs(61));
    let after = server.get("/cal/keep.ics").await;
    assert_eq!(after.status(), StatusCode::OK);
    assert!(after.headers().contains_key("x-hearth-stale"));
    assert_eq!(after.bytes().await.expect("body"), good);

    // A broken body (an error page with status 200) never replaces the copy.
    upstream.set_status(200);
    upstream.set_body("<html>maintenance</html>");
    let hits = upstream.hits();
    // Each round moves past the retry pause of the failure before, until upstream is asked.
    common::until("a refresh", || async {
        clock.advance(Duration::from_secs(61));
        let kept = server.get("/cal/keep.ics").await;
        assert_eq!(kept.status(), StatusCode::OK);
        assert_eq!(kept.bytes().await.expect("body"), good);
        upstream.hits() > hits
    })
    .await;
    let kept = server.get("/cal/keep.ics").await;
    assert_eq!(kept.status(), StatusCode::OK);
    assert_eq!(kept.bytes().await.expect("body"), good);
    server.stop().await;
}

#[tokio::test]
async fn upstream_down_with_no_copy_is_502_with_text() {
    let upstream = Upstream::start().await;
    let server = private_server().await;
    upstream.set_status(500);
    let response = publish(&server, calendar("none", &upstream.url("/a.ics"), "x")).await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert!(error_of(response).await.contains("HTTP 500"));
    server.stop().await;

    // A published calendar whose copy is gone (fresh data dir with the record only).
    let upstream = Upstream::start().await;
    let server = private_server().await;
    publish(&server, calendar("lost", &upstream.url("/a.ics"), "x")).await;
    let db = rusqlite::Connection::open(server.data_dir.path().join("hearth.db")).expect("db");
    db.execute("DELETE FROM feed_copies", []).expect("delete");
    drop(db);
    let data_dir = server.stop().await;
    upstream.set_status(500);
    let server = TestServer::start_in(data_dir, |c| c.calendars.allow_private_feeds = true).await;
    let response = server.get("/cal/lost.ics").await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert!(response.headers()[CONTENT_TYPE]
        .to_str()
        .expect("ascii")
        .starts_with("text/plain"));
    server.stop().await;
}

#[tokio::test]
async fn unpublish_needs_the_token_and_removes_the_feed() {
    let upstream = Upstream::start().await;
    let server = private_server().await;
    let created: Value = publish(&server, calendar("gone", &upstream.url("/a.ics"), "x"))
        .await
        .json()
        .await
        .expect("json");
    let token = created["editToken"].as_str().expect("token");
    assert_eq!(server.get("/cal/gone.ics").await.status(), StatusCode::OK);
    let denied = server
        .client
        .delete(server.url("/api/calendars/gone"))
        .send()
        .await
        .expect("sent");
    assert_eq!(denied.status(), StatusCode::FORBIDDEN);
    let deleted = server
        .client
        .delete(server.url("/api/calendars/gone"))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("sent");
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    // Calendar apps still polling it are told it is gone for good.
    assert_eq!(server.get("/cal/gone.ics").await.status(), StatusCode::GONE);
    let again = server
        .client
        .delete(server.url("/api/calendars/gone"))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("sent");
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
    server.stop().await;
}

/// Addresses of the feed copies stored in the server's database.
fn stored_copies(server: &TestServer) -> Vec<String> {
    let conn = rusqlite::Connection::open_with_flags(
        server.data_dir.path().join(hearth::store::DB_FILE),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("opens");
    let mut statement = conn
        .prepare("SELECT url FROM feed_copies ORDER BY url")
        .expect("prepare");
    let urls = statement
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    urls
}

async fn unpublish(server: &TestServer, id: &str, token: &str) -> StatusCode {
    server
        .client
        .delete(server.url(&format!("/api/calendars/{id}")))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("sent")
        .status()
}

/// A valid feed of about `bytes` bytes.
fn feed_of_size(bytes: usize) -> Vec<u8> {
    let mut feed = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n");
    let mut i = 0;
    while feed.len() < bytes {
        feed.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:{i}@t\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20261201T090000Z\r\nSUMMARY:Event {i}\r\nDESCRIPTION:{}\r\nEND:VEVENT\r\n",
            "x".repeat(60)
        ));
        i += 1;
    }
    feed.push_str("END:VCALENDAR\r\n");
    feed.into_bytes()
}

#[tokio::test]
async fn a_new_calendar_beyond_max_calendars_is_507_before_any_fetch() {
    let upstream = Upstream::start().await;
    let server = TestServer::calendars(|c| {
        c.calendars.max_calendars = 2;
    })
    .await;
    // Two visitors (one visitor's share of two calendars is one).
    for (n, id) in ["one", "two"].into_iter().enumerate() {
        let response = server
            .client
            .post(server.url("/api/calendars"))
            .header("X-Forwarded-For", format!("198.51.100.{n}"))
            .json(&calendar(id, &upstream.url(&format!("/{id}.ics")), "x"))
            .send()
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::CREATED, "{id}");
    }
    let hits = upstream.hits();
    let response = publish(&server, calendar("three", &upstream.url("/three.ics"), "x")).await;
    assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
    let error = error_of(response).await;
    assert!(error.contains("--max-calendars"), "{error}");
    assert_eq!(upstream.hits(), hits, "the refused feed was fetched");
    assert_eq!(
        server.get("/cal/three.ics").await.status(),
        StatusCode::NOT_FOUND
    );
    server.stop().await;
}

#[tokio::test]
async fn feed_storage_beyond_its_cap_is_507_and_unpublishing_frees_it() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed_of_size(400 * 1024));
    // The site's owner has no share of the feed storage to keep to, only the whole (a visitor's
    // eighth has tests of its own in tests/feed_storage.rs).
    let server = TestServer::calendars(|c| {
        c.calendars.max_feed_storage = 1024 * 1024;
        c.edge.publish_key = Some("owner".into());
    })
    .await;
    let as_owner = |body: Value| {
        server
            .client
            .post(server.url("/api/calendars"))
            .header("X-Publish-Key", "owner")
            .json(&body)
            .send()
    };
    let mut tokens = Vec::new();
    for id in ["a", "b"] {
        let response = as_owner(calendar(id, &upstream.url(&format!("/{id}.ics")), "x"))
            .await
            .expect("sent");
        assert_eq!(response.status(), StatusCode::CREATED, "{id}");
        let body: Value = response.json().await.expect("json");
        tokens.push(body["editToken"].as_str().expect("token").to_owned());
    }
    // The room left is less than the feed: the fetch stops there and nothing is stored.
    let response = as_owner(calendar("c", &upstream.url("/c.ics"), "x"))
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::INSUFFICIENT_STORAGE);
    let error = error_of(response).await;
    assert!(
        error.starts_with("the server's storage for calendar feeds is full"),
        "{error}"
    );
    assert_eq!(stored_copies(&server).len(), 2);

    // Unpublishing removes the copy, which makes room again.
    let removed = server
        .client
        .delete(server.url("/api/calendars/a"))
        .header(AUTHORIZATION, format!("Bearer {}", tokens[0]))
        .header("X-Publish-Key", "owner")
        .send()
        .await
        .expect("sent");
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    assert_eq!(stored_copies(&server), [upstream.url("/b.ics")]);
    let response = as_owner(calendar("c", &upstream.url("/c.ics"), "x"))
        .await
        .expect("sent");
    assert_eq!(response.status(), StatusCode::CREATED);
    server.stop().await;
}

#[tokio::test]
async fn republishing_with_another_address_removes_the_old_copy() {
    let upstream = Upstream::start().await;
    let server = private_server().await;
    let created: Value = publish(&server, calendar("moving", &upstream.url("/old.ics"), "x"))
        .await
        .json()
        .await
        .expect("json");
    let token = created["editToken"].as_str().expect("token").to_owned();
    assert_eq!(stored_copies(&server), [upstream.url("/old.ics")]);
    let mut body = calendar("moving", &upstream.url("/new.ics"), "x");
    body["editToken"] = Value::from(token.clone());
    assert_eq!(publish(&server, body).await.status(), StatusCode::OK);
    assert_eq!(stored_copies(&server), [upstream.url("/new.ics")]);

    // A republish with a wrong token leaves no copy of the address it tried.
    let mut body = calendar("moving", &upstream.url("/other.ics"), "x");
    body["editToken"] = Value::from("wrong");
    assert_eq!(publish(&server, body).await.status(), StatusCode::FORBIDDEN);
    assert_eq!(stored_copies(&server), [upstream.url("/new.ics")]);

    assert_eq!(
        unpublish(&server, "moving", &token).await,
        StatusCode::NO_CONTENT
    );
    assert!(stored_copies(&server).is_empty());
    server.stop().await;
}

#[tokio::test]
async fn a_name_with_a_public_and_a_private_address_is_reached_on_the_public_one_only() {
    use hearth::publish::fetch::{FetchOptions, Fetcher, Validators};
    use std::net::{IpAddr, Ipv4Addr};
    use std::sync::Arc;
    // 127.0.0.1 stands in for the public address, 127.0.0.2 (same port) for the private one.
    let public = Upstream::start_on("127.0.0.1:0").await;
    let port = public.addr.port();
    let private = Upstream::start_on(&format!("127.0.0.2:{port}")).await;
    let blocked = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
    let mut options = FetchOptions::new(false, 1 << 20);
    options.refuse = Arc::new(move |ip| ip == blocked);
    // The private address first, where a connector would try it first.
    options.hosts.insert(
        "mixed.example".into(),
        vec![blocked, IpAddr::V4(Ipv4Addr::LOCALHOST)],
    );
    let fetcher = Fetcher::with_options(options).expect("fetcher");
    let url = reqwest::Url::parse(&format!("http://mixed.example:{port}/cal.ics")).expect("url");
    for _ in 0..3 {
        fetcher
            .fetch(&url, &Validators::default())
            .await
            .expect("fetched from the public address");
    }
    assert_eq!(public.hits(), 3);
    assert_eq!(private.hits(), 0, "the private address was contacted");
}

#[tokio::test]
async fn redirects_to_ipv6_and_mapped_addresses_are_refused() {
    use hearth::publish::fetch::{is_refused, FetchError, FetchOptions, Fetcher, Validators};
    use std::net::{IpAddr, Ipv4Addr};
    use std::sync::Arc;
    let public = Upstream::start_on("127.0.0.1:0").await;
    let private = Upstream::start_on("127.0.0.2:0").await;
    let port = private.addr.port();
    let mut options = FetchOptions::new(false, 1 << 20);
    // The production policy, except that 127.0.0.1 stands in for a public host.
    options.refuse = Arc::new(|ip| ip != IpAddr::V4(Ipv4Addr::LOCALHOST) && is_refused(ip));
    let fetcher = Fetcher::with_options(options).expect("fetcher");
    let start = reqwest::Url::parse(&public.url("/cal.ics")).expect("url");
    for target in [
        format!("http://[::ffff:127.0.0.2]:{port}/secret"),
        format!("http://[::ffff:7f00:2]:{port}/secret"),
        format!("http://[::ffff:0:7f00:2]:{port}/secret"),
        format!("http://[64:ff9b::7f00:2]:{port}/secret"),
        format!("http://[64:ff9b:1::7f00:2]:{port}/secret"),
        format!("http://[::1]:{port}/secret"),
        format!("http://[2001::7f00:2]:{port}/secret"),
        format!("http://[fe80::1]:{port}/secret"),
    ] {
        public.redirect_to(&target);
        let err = fetcher
            .fetch(&start, &Validators::default())
            .await
            .expect_err("refused");
        assert!(
            matches!(err, FetchError::RefusedAddress(_)),
            "{target}: {err:?}"
        );
    }
    assert_eq!(private.hits(), 0, "a refused server was contacted");
}

#[tokio::test]
async fn publishing_a_private_feed_is_refused_without_contacting_it() {
    let upstream = Upstream::start().await;
    let port = upstream.addr.port();
    let server = TestServer::start(|_| {}).await;
    for url in [
        upstream.url("/cal.ics"),
        format!("webcals://127.0.0.1:{port}/cal.ics"),
        format!("http://[::ffff:127.0.0.1]:{port}/cal.ics"),
        format!("http://localhost:{port}/cal.ics"),
    ] {
        let response = publish(&server, calendar("lan", &url, "${SUMMARY}")).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{url}");
        let (field, error) = field_error(response).await;
        assert_eq!(field, "url", "{url}: {error}");
        if url.contains("localhost") {
            assert!(!error.contains("127.0.0.1"), "{url}: {error}");
        }
    }
    assert_eq!(upstream.hits(), 0, "the private feed was contacted");
    assert_eq!(
        server.get("/cal/lan.ics").await.status(),
        StatusCode::NOT_FOUND
    );
    server.stop().await;
}

#[tokio::test]
async fn control_characters_from_upstream_never_reach_the_hosted_feed() {
    let upstream = Upstream::start().await;
    upstream.set_body(
        upstream::SAMPLE
            .replace("SUMMARY:Team meeting", "SUMMARY:Team\0 meet\u{1}ing\u{7f}")
            .into_bytes(),
    );
    let server = private_server().await;
    let response = publish(
        &server,
        calendar("clean", &upstream.url("/a.ics"), "${SUMMARY}"),
    )
    .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let hosted = server.get("/cal/clean.ics").await;
    assert_eq!(hosted.status(), StatusCode::OK);
    let body = hosted.bytes().await.expect("body");
    assert!(
        !body
            .iter()
            .any(|&b| (b < 0x20 && !b"\t\r\n".contains(&b)) || b == 0x7f),
        "control characters in the hosted feed"
    );
    let text = String::from_utf8(body.to_vec()).expect("utf8");
    assert!(text.contains("SUMMARY:Team meeting\r\n"), "{text}");

    let page: Value = feed(&server, &upstream.url("/a.ics"))
        .await
        .json()
        .await
        .expect("json");
    assert_eq!(page["events"][0]["SUMMARY"], "Team meeting");
    server.stop().await;
}
