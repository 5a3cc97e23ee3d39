#!/usr/bin/env python3
"""Writes the committed seeds of the `merge`, `remap` and `render` fuzz targets (small, readable
feeds and the calendar configs the engine's tests use). Run from the repository root:
    python3 fuzz/seeds/make_seeds.py
The shared ICS corpus is added at run time by scripts/fuzz.sh, not here."""
import glob
import json
import os
import re

ROOT = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(ROOT))

HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//fuzz//EN\r\n"
TAIL = "END:VCALENDAR\r\n"
TZ = ("BEGIN:VTIMEZONE\r\nTZID:Europe/Paris\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\n"
      "TZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\n"
      "END:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:19700329T020000\r\nTZOFFSETFROM:+0100\r\n"
      "TZOFFSETTO:+0200\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\n"
      "END:VTIMEZONE\r\n")


def event(uid, lines):
    return (f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20240101T000000Z\r\n{lines}END:VEVENT\r\n")


# Around 2024-01-10 12:00 UTC, the targets' "now".
EVENTS = {
    "one": event("one@hearth.test", "SUMMARY:Canceled: standup\r\nDTSTART:20240108T090000Z\r\n"
                 "DTEND:20240108T093000Z\r\nLOCATION:Room 4\\, floor 2\r\n"
                 "DESCRIPTION:Dr. A. Smith\\nhttps://x.test/a?b=1\r\n"),
    "two": event("two@hearth.test", "SUMMARY:Lunch\r\nDTSTART;VALUE=DATE:20240111\r\n"
                 "DTEND;VALUE=DATE:20240112\r\nSTATUS:TENTATIVE\r\nCLASS:PRIVATE\r\n"),
    "daily": event("daily", "SUMMARY:Daily\r\nDTSTART;TZID=Europe/Paris:20240101T100000\r\n"
                   "DURATION:PT1H\r\nRRULE:FREQ=DAILY;COUNT=14\r\nEXDATE;TZID=Europe/Paris:"
                   "20240103T100000\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\n"
                   "END:VALARM\r\n"),
    "moved": event("daily", "SUMMARY:Daily (moved)\r\nRECURRENCE-ID;TZID=Europe/Paris:"
                   "20240105T100000\r\nDTSTART;TZID=Europe/Paris:20240106T110000\r\n"
                   "DTEND;TZID=Europe/Paris:20240106T120000\r\n"),
    "weekly": event("weekly", "SUMMARY:Weekly\r\nDTSTART:20231204T170000\r\n"
                    "DTEND:20231204T180000\r\nRRULE:FREQ=WEEKLY;BYDAY=MO,WE,SA;UNTIL=20240301T000000Z\r\n"
                    "CATEGORIES:a,b\r\n"),
    "open": event("open", "SUMMARY:Monthly\r\nDTSTART:20230131T080000Z\r\n"
                  "RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;INTERVAL=2\r\n"),
    "past": event("past", "SUMMARY:Past\r\nDTSTART:20231201T090000Z\r\nDTEND:20231201T100000Z\r\n"),
    "nouid": "BEGIN:VEVENT\r\nSUMMARY:No UID\r\nDTSTART:20240112T070000Z\r\nEND:VEVENT\r\n",
    "todo": "BEGIN:VTODO\r\nUID:todo\r\nSUMMARY:Todo\r\nEND:VTODO\r\n",
}


def feed(*names, tz=True, extra=""):
    return HEAD + extra + (TZ if tz else "") + "".join(EVENTS[n] for n in names) + TAIL


FEEDS = {
    "all": feed(*EVENTS),
    "series": feed("daily", "moved", "weekly", "open"),
    "simple": feed("one", "two", "nouid", tz=False, extra="X-WR-TIMEZONE:Europe/Berlin\r\n"),
    "old": feed("one", "past", "weekly", tz=False),
}

# The configs the engine's tests write as raw strings, then the options the tests build by code.
configs = []
for path in sorted(glob.glob(os.path.join(REPO, "crates/engine/tests/*.rs"))):
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r'r#"(\{"mapping".*?)"#', text, re.S):
        try:
            value = json.loads(m.group(1))
        except ValueError:
            continue
        if value not in configs:
            configs.append(value)
configs += [
    {"mapping": {}, "overrides": [
        {"uid": "one@hearth.test", "summary": "Budget meeting", "shiftMinutes": 30},
        {"uid": "two@hearth.test", "hide": True},
        {"uid": "daily", "recurrenceId": "20240105T100000", "note": "moved"},
        {"uid": "weekly", "recurrenceId": "20231206T170000", "shiftMinutes": -1440}]},
    {"mapping": {}, "history": {"keepDays": 30}},
    {"mapping": {}, "history": {"keepDays": 366}, "uids": "content"},
    {"mapping": {"SUMMARY": "${SUMMARY|re:s/^(\\w+):\\s*//i} (${LOCATION})"},
     "sources": [{"url": "https://a.test/a.ics", "prefix": "[Work] ", "label": "Work"},
                 {"url": "https://b.test/b.ics", "prefix": "Ü;\\,\"x\" "}]},
    {"mapping": {"DESCRIPTION": "${DESCRIPTION|re:s/(https?:\\S+)/<$1>/g}"},
     "occurrences": "each", "window": {"pastDays": 3, "futureDays": 10},
     "filters": [{"action": "exclude", "weekdays": ["SA", "SU"]},
                 {"action": "exclude", "field": "SUMMARY", "pattern": "^canceled", "flags": "i"}],
     "privacy": "busy", "alarms": {"addMinutesBefore": 10}},
    {"mapping": {}, "timezones": "repair", "alarms": "strip", "agenda": True,
     "properties": {"TRANSP": "TRANSPARENT", "COLOR": "teal", "CATEGORIES": "${CATEGORIES},x",
                    "URL": "https://x.test/${UID}"}},
]


def write(target, name, data):
    os.makedirs(os.path.join(ROOT, target), exist_ok=True)
    with open(os.path.join(ROOT, target, name), "wb") as f:
        f.write(data)


names = list(FEEDS)
for i, config in enumerate(configs):
    parts = [json.dumps(config).encode()]
    parts.append(FEEDS[names[i % len(names)]].encode())
    if "sources" in config or i % 3 == 0:
        parts.append(FEEDS["simple"].encode())
    if "history" in config:
        parts.append(FEEDS["old"].encode())
    write("remap", f"config-{i:02}", b"\0".join(parts))

# merge: control byte (bits 0-3: which feeds take a prefix; bit 4: UIDs from content), the
# prefixes one per line, then the feeds.
merges = [
    (0x03, "[A] \n[B] ", ["all", "series"]),
    (0x1F, "x\ny;z\n\\,\n\"q\"", ["simple", "old", "all", "series"]),
    (0x00, "", ["series", "series"]),
    (0x12, "\nÜber ", ["old", "simple", "old"]),
    (0x01, "solo ", ["all"]),
]
for i, (control, prefixes, feeds) in enumerate(merges):
    body = b"\0".join([prefixes.encode()] + [FEEDS[f].encode() for f in feeds])
    write("merge", f"merge-{i}", bytes([control]) + body)
write("merge", "empty-source", bytes([0x01]) + b"p \0\0" + FEEDS["simple"].encode())

# render: templates (one per mapped field, split by \x01), a NUL, a feed.
templates = [
    "${SUMMARY|re:s/^(\\w+):\\s*//i}\x01${LOCATION|re:s/,.*//s}",
    "${DESCRIPTION|re:s/(\\w+) (\\w+)/$2 $1\\n/gi} @ ${DTSTART}",
    "${SUMMARY}\x01${SUMMARY}\x01${DESCRIPTION|re:s/\\\\n/ /g}\x01${UID}\x01${CATEGORIES}",
    "${X-ALT-DESC|re:s/<[^>]*>//g}${ATTENDEE}${CN}",
    "${DTSTART|re:s/(\\d{4})(\\d{2})(\\d{2}).*/$3.$2.$1/}",
]
for i, t in enumerate(templates):
    write("render", f"template-{i}", t.encode() + b"\0" + FEEDS[names[i % len(names)]].encode())
for path in sorted(glob.glob(os.path.join(ROOT, "template", "*"))):
    write("render", "t-" + os.path.basename(path), open(path, "rb").read())
