//! The agenda (`/cal/{id}` and `/cal/{id}.json`) and a calendar's second address for Google,
//! against a real server and a real upstream on loopback: the coming events in order in the
//! feed's time zone, what the hosted feed holds (filters, overrides, privacy, window), past
//! events absent, series expanded; nothing without `"agenda": true`; framing allowed on the page
//! alone; ETag and 304; a view costing what a poll does, within the same allowance; an alias
//! served as the feed, kept through a republish, 410 after the delete, bounded, and listed
//! (newest first) in the calendar's status to the holder of its edit token alone.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::net::SocketAddr;
use std::time::Duration;

use common::{field_error, TestServer};
use hearth::http::limits::{RateLimit, RateLimits};
use reqwest::header::{
    AUTHORIZATION, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG, IF_NONE_MATCH, USER_AGENT,
    X_FRAME_OPTIONS,
};
use reqwest::StatusCode;
use serde_json::{json, Value};
use upstream::Upstream;

/// `YYYYMMDD` of the day `offset` days from today in Berlin.
fn day(offset: i64) -> String {
    let tz = jiff::tz::TimeZone::get("Europe/Berlin").expect("zone");
    let today = tz.to_datetime(jiff::Timestamp::now()).date();
    today
        .checked_add(jiff::Span::new().days(offset))
        .expect("date")
        .strftime("%Y%m%d")
        .to_string()
}

fn event(uid: &str, summary: &str, start: &str, end: &str, extra: &str) -> String {
    format!(
        "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:{summary}\r\n\
         DTSTART;TZID=Europe/Berlin:{start}\r\nDTEND;TZID=Europe/Berlin:{end}\r\n{extra}END:VEVENT\r\n"
    )
}

/// A feed in Berlin time: a past event, two coming ones, one a filter drops, one an override
/// renames, a weekly series begun three weeks ago, and one past the window.
fn feed() -> String {
    let events = [
        event(
            "past",
            "Past talk",
            &format!("{}T100000", day(-1)),
            &format!("{}T110000", day(-1)),
            "",
        ),
        event(
            "dentist",
            "Dentist",
            &format!("{}T100000", day(1)),
            &format!("{}T110000", day(1)),
            "LOCATION:Main St <1>\r\nDESCRIPTION:Bring <b>card</b>\\nand coins\r\n",
        ),
        event(
            "skip",
            "Skip me",
            &format!("{}T120000", day(1)),
            &format!("{}T130000", day(1)),
            "",
        ),
        event(
            "review",
            "Review",
            &format!("{}T090000", day(2)),
            &format!("{}T093000", day(2)),
            "",
        ),
        event(
            "choir",
            "Choir",
            &format!("{}T190000", day(-21)),
            &format!("{}T210000", day(-21)),
            "RRULE:FREQ=WEEKLY\r\n",
        ),
        event(
            "far",
            "Far away",
            &format!("{}T100000", day(60)),
            &format!("{}T110000", day(60)),
            "",
        ),
    ]
    .concat();
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Hearth tests//EN\r\n\
         X-WR-TIMEZONE:Europe/Berlin\r\n{events}END:VCALENDAR\r\n"
    )
}

async fn publish(server: &TestServer, body: Value, token: Option<&str>) -> Value {
    let mut request = server.client.post(server.url("/api/calendars")).json(&body);
    if let Some(token) = token {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    let response = request.send().await.expect("sent");
    assert!(response.status().is_success(), "{}", response.status());
    response.json().await.expect("json")
}

fn calendar(id: &str, url: &str, options: Value) -> Value {
    let mut body = json!({
        "id": id, "name": "Work <club>", "url": url, "mapping": {},
        "agenda": true,
        "window": {"futureDays": 30},
        "filters": [{"action": "exclude", "field": "SUMMARY", "pattern": "^skip", "flags": "i"}],
        "overrides": [{"uid": "review", "summary": "Team review"}]
    });
    if let (Some(body), Some(options)) = (body.as_object_mut(), options.as_object()) {
        for (k, v) in options {
            body.insert(k.clone(), v.clone());
        }
    }
    body
}

fn header(response: &reqwest::Response, name: reqwest::header::HeaderName) -> String {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn the_agenda_lists_what_the_hosted_feed_holds_from_now_on_in_the_feeds_zone() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed());
    let server = TestServer::calendars(|_| {}).await;
    publish(
        &server,
        calendar("work", &upstream.url("/work.ics"), json!({})),
        None,
    )
    .await;

    let answer = server.get("/cal/work.json").await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(header(&answer, CONTENT_TYPE), "application/json");
    let agenda: Value = answer.json().await.expect("json");
    assert_eq!(agenda["timeZone"], "Europe/Berlin");
    let events = agenda["events"].as_array().expect("events");
    let summaries: Vec<&str> = events
        .iter()
        .map(|e| e["summary"].as_str().unwrap_or_default())
        .collect();
    // Filters, overrides and the window as the feed has them; past events not shown.
    assert!(!summaries.contains(&"Past talk"), "{summaries:?}");
    assert!(!summaries.contains(&"Skip me"), "{summaries:?}");
    assert!(!summaries.contains(&"Far away"), "{summaries:?}");
    assert!(!summaries.contains(&"Review"), "{summaries:?}");
    assert!(summaries.contains(&"Team review"), "{summaries:?}");
    // In order of start.
    let starts: Vec<jiff::Timestamp> = events
        .iter()
        .map(|e| {
            let start = e["start"].as_str().expect("start");
            start.parse().expect("RFC 3339 with its offset")
        })
        .collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "{starts:?}");
    let dentist = events
        .iter()
        .find(|e| e["summary"] == "Dentist")
        .expect("dentist");
    let start = dentist["start"].as_str().expect("start");
    assert!(start.starts_with(&{
        let d = day(1);
        format!("{}-{}-{}T10:00:00+0", &d[..4], &d[4..6], &d[6..])
    }));
    assert_eq!(dentist["allDay"], false);
    assert_eq!(dentist["location"], "Main St <1>");
    assert_eq!(dentist["description"], "Bring <b>card</b>\nand coins");
    assert_eq!(dentist["uid"], "dentist");
    // The weekly series: its coming occurrences within the window, a week apart, at 19:00.
    let choir: Vec<jiff::Timestamp> = events
        .iter()
        .filter(|e| e["summary"] == "Choir")
        .map(|e| e["start"].as_str().expect("start").parse().expect("time"))
        .collect();
    assert!((4..=5).contains(&choir.len()), "{choir:?}");
    assert!(
        choir
            .windows(2)
            .all(|w| (167..=169).contains(&(w[1] - w[0]).as_hours())),
        "{choir:?}"
    );
    assert!(choir[0] > jiff::Timestamp::now() - jiff::SignedDuration::from_hours(2));

    // The page: the same events, grouped by day, every text escaped, framed by any site.
    let page = server.get("/cal/work").await;
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(header(&page, CONTENT_TYPE), "text/html; charset=utf-8");
    let policy = header(&page, CONTENT_SECURITY_POLICY);
    assert!(policy.ends_with("frame-ancestors *"), "{policy}");
    assert!(!policy.contains("unsafe-inline"), "{policy}");
    assert!(page.headers().get(X_FRAME_OPTIONS).is_none());
    let html = page.text().await.expect("text");
    assert!(html.contains("<h1>Work &lt;club&gt;</h1>"), "{html}");
    assert!(html.contains("Bring &lt;b&gt;card&lt;/b&gt;"), "{html}");
    assert!(html.contains("Team review") && !html.contains("Past talk"));
    assert!(html.find("Dentist") < html.find("Team review"));
    assert!(html.contains(&format!("href=\"webcal://{}/cal/work.ics\"", server.addr)));
    assert!(html.contains("Times in Europe/Berlin."));

    // Everything else still may not be framed.
    for path in ["/cal/work.ics", "/", "/api/site"] {
        let other = server.get(path).await;
        assert_eq!(header(&other, X_FRAME_OPTIONS), "DENY", "{path}");
        assert!(
            header(&other, CONTENT_SECURITY_POLICY).contains("frame-ancestors 'none'"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_busy_calendars_agenda_says_busy_and_nothing_more() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed());
    let server = TestServer::calendars(|_| {}).await;
    publish(
        &server,
        calendar(
            "busy",
            &upstream.url("/work.ics"),
            json!({"privacy": "busy", "overrides": []}),
        ),
        None,
    )
    .await;
    let agenda = server.get_json("/cal/busy.json", &[]).await;
    let events = agenda["events"].as_array().expect("events");
    assert!(!events.is_empty());
    for e in events {
        assert_eq!(e["summary"], "Busy", "{e}");
        assert!(e["location"].is_null() && e["description"].is_null(), "{e}");
    }
    let html = server.get("/cal/busy").await.text().await.expect("text");
    assert!(
        !html.contains("Dentist") && !html.contains("Main St"),
        "{html}"
    );
}

#[tokio::test]
async fn without_agenda_true_there_is_nothing_at_its_addresses() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed());
    let server = TestServer::calendars(|_| {}).await;
    server
        .publish_feed("plain", &upstream.url("/work.ics"), None)
        .await;
    assert_eq!(server.get("/cal/plain.ics").await.status(), StatusCode::OK);
    assert_eq!(
        server.get("/cal/plain").await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        server.get("/cal/plain.json").await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        server.get("/cal/nobody").await.status(),
        StatusCode::NOT_FOUND
    );
}

/// A counter of the metrics listener (0 when absent).
async fn counter(metrics: SocketAddr, name: &str) -> f64 {
    let text = reqwest::get(format!("http://{metrics}/metrics"))
        .await
        .expect("sent")
        .text()
        .await
        .expect("text");
    text.lines()
        .find(|l| l.starts_with(&format!("hearth_{name}_total ")))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn a_view_costs_what_a_poll_does_with_etags_304s_and_the_same_allowance() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed());
    let metrics = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port");
    let server = TestServer::calendars(|c| {
        c.metrics_listen = Some(metrics);
        c.edge.rate_limits = RateLimits {
            poll: RateLimit {
                burst: 29,
                every: Duration::from_secs(3600),
            },
            ..RateLimits::all(RateLimit {
                burst: 100_000,
                every: Duration::from_millis(1),
            })
        };
    })
    .await;
    publish(
        &server,
        calendar("work", &upstream.url("/work.ics"), json!({})),
        None,
    )
    .await;
    let fetched = upstream.hits();
    let first = server.get("/cal/work").await;
    assert_eq!(first.status(), StatusCode::OK);
    let etag = header(&first, ETAG);
    assert!(etag.starts_with('"'), "{etag}");
    let (renders, made) = (
        counter(metrics, "feed_renders").await,
        counter(metrics, "agendas_made").await,
    );
    assert_eq!(made, 1.0);
    // Views, their JSON and polls: nothing is fetched, rendered or made again.
    for _ in 0..8 {
        let again = server.get("/cal/work").await;
        assert_eq!(header(&again, ETAG), etag);
        let json = server.get("/cal/work.json").await;
        assert_eq!(json.status(), StatusCode::OK);
        assert_eq!(server.get("/cal/work.ics").await.status(), StatusCode::OK);
    }
    assert_eq!(counter(metrics, "agendas_made").await, made);
    assert_eq!(counter(metrics, "feed_renders").await, renders);
    assert_eq!(upstream.hits(), fetched);
    // A reader that has the page is told so.
    let same = server
        .client
        .get(server.url("/cal/work"))
        .header(IF_NONE_MATCH, &etag)
        .send()
        .await
        .expect("sent");
    assert_eq!(same.status(), StatusCode::NOT_MODIFIED);
    let json_etag = header(&server.get("/cal/work.json").await, ETAG);
    assert_ne!(json_etag, etag);
    let same = server
        .client
        .get(server.url("/cal/work.json"))
        .header(IF_NONE_MATCH, &json_etag)
        .send()
        .await
        .expect("sent");
    assert_eq!(same.status(), StatusCode::NOT_MODIFIED);
    // 1 + 24 + 2 + 1 = 28 of the 29 polls allowed: views and polls draw on one allowance.
    assert_eq!(server.get("/cal/work").await.status(), StatusCode::OK);
    assert_eq!(
        server.get("/cal/work").await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(
        server.get("/cal/work.ics").await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
}

async fn new_alias(server: &TestServer, id: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = server
        .client
        .post(server.url(&format!("/api/calendars/{id}/aliases")));
    if let Some(token) = token {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    request.send().await.expect("sent")
}

#[tokio::test]
async fn a_new_address_for_google_is_served_as_the_feed_until_the_calendar_is_deleted() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed());
    let server = TestServer::calendars(|_| {}).await;
    let body = calendar("work", &upstream.url("/work.ics"), json!({}));
    let made = publish(&server, body.clone(), None).await;
    let token = made["editToken"].as_str().expect("token").to_owned();

    // Only with the calendar's edit token.
    assert_eq!(
        new_alias(&server, "work", None).await.status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        new_alias(&server, "work", Some("wrong-token-0000000000000000"))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        new_alias(&server, "nobody", Some(&token)).await.status(),
        StatusCode::NOT_FOUND
    );
    let answer = new_alias(&server, "work", Some(&token)).await;
    assert_eq!(answer.status(), StatusCode::CREATED);
    let answer: Value = answer.json().await.expect("json");
    let url = answer["url"].as_str().expect("url").to_owned();
    let prefix = format!("http://{}/cal/work~", server.addr);
    assert!(url.starts_with(&prefix) && url.ends_with(".ics"), "{url}");
    let path = url
        .trim_start_matches(&format!("http://{}", server.addr))
        .to_owned();

    // The same render as the calendar's own address, counted as its polls.
    let own = server.get("/cal/work.ics").await;
    let own_etag = header(&own, ETAG);
    let own_body = own.text().await.expect("text");
    let aliased = server
        .client
        .get(server.url(&path))
        .header(USER_AGENT, "Google-Calendar-Importer")
        .send()
        .await
        .expect("sent");
    assert_eq!(aliased.status(), StatusCode::OK);
    assert_eq!(header(&aliased, ETAG), own_etag);
    assert_eq!(aliased.text().await.expect("text"), own_body);
    let status = server
        .get_json(
            "/api/calendars/work/status",
            &[("authorization", &format!("Bearer {token}"))],
        )
        .await;
    let families: Vec<&str> = status["subscribers"]
        .as_array()
        .expect("subscribers")
        .iter()
        .filter_map(|s| s["family"].as_str())
        .collect();
    assert!(families.contains(&"google"), "{status}");
    // An address nobody made is not there.
    assert_eq!(
        server.get("/cal/work~0123456789.ics").await.status(),
        StatusCode::NOT_FOUND
    );

    // Kept through a republish.
    publish(&server, body, Some(&token)).await;
    assert_eq!(server.get(&path).await.status(), StatusCode::OK);

    // Bounded: five per calendar, the sixth refused in words at its field.
    for _ in 0..4 {
        assert_eq!(
            new_alias(&server, "work", Some(&token)).await.status(),
            StatusCode::CREATED
        );
    }
    let refused = new_alias(&server, "work", Some(&token)).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let (field, message) = field_error(refused).await;
    assert_eq!(field, "alias");
    assert!(message.contains("5 addresses"), "{message}");

    // Deleted with the calendar: 410 like its own address.
    let deleted = server
        .client
        .delete(server.url("/api/calendars/work"))
        .header(AUTHORIZATION, format!("Bearer {token}"))
        .send()
        .await
        .expect("sent");
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert_eq!(server.get("/cal/work.ics").await.status(), StatusCode::GONE);
    assert_eq!(server.get(&path).await.status(), StatusCode::GONE);
    assert_eq!(server.get("/cal/work").await.status(), StatusCode::GONE);
}

async fn status_with(server: &TestServer, token: Option<&str>) -> reqwest::Response {
    let mut request = server.client.get(server.url("/api/calendars/work/status"));
    if let Some(token) = token {
        request = request.header(AUTHORIZATION, format!("Bearer {token}"));
    }
    request.send().await.expect("sent")
}

async fn google_addresses(server: &TestServer, token: &str) -> Vec<String> {
    let answer = status_with(server, Some(token)).await;
    assert_eq!(answer.status(), StatusCode::OK);
    let status: Value = answer.json().await.expect("json");
    // Still the status the health section reads.
    assert!(status["subscribers"].is_array(), "{status}");
    status["googleAddresses"]
        .as_array()
        .unwrap_or_else(|| panic!("googleAddresses in {status}"))
        .iter()
        .map(|a| a.as_str().expect("an address").to_owned())
        .collect()
}

#[tokio::test]
async fn the_status_lists_the_addresses_made_for_google_newest_first_to_the_token_holder_only() {
    let upstream = Upstream::start().await;
    upstream.set_body(feed());
    let server = TestServer::calendars(|_| {}).await;
    let made = publish(
        &server,
        calendar("work", &upstream.url("/work.ics"), json!({})),
        None,
    )
    .await;
    let token = made["editToken"].as_str().expect("token").to_owned();
    assert_eq!(
        google_addresses(&server, &token).await,
        Vec::<String>::new()
    );

    let first: Value = new_alias(&server, "work", Some(&token))
        .await
        .json()
        .await
        .expect("json");
    let first = first["url"].as_str().expect("url").to_owned();
    // Listed as made: the address the editor showed, so it can show it again after a reload.
    assert_eq!(google_addresses(&server, &token).await, vec![first.clone()]);

    let second: Value = new_alias(&server, "work", Some(&token))
        .await
        .json()
        .await
        .expect("json");
    let second = second["url"].as_str().expect("url").to_owned();
    assert_ne!(first, second);
    assert_eq!(
        google_addresses(&server, &token).await,
        vec![second.clone(), first.clone()]
    );

    // Not without the calendar's edit token: nothing of the status, the addresses included.
    for token in [None, Some("wrong-token-0000000000000000")] {
        let refused = status_with(&server, token).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        let body = refused.text().await.expect("text");
        assert!(!body.contains("work~"), "{body}");
    }
}
