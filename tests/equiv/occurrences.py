"""Checks filters that judge each occurrence against recurring-ical-events.

Reads what `engine_occurrences`'s corpus test wrote (HEARTH_OCCURRENCES_OUT): for each recurring
corpus file and each config (`weekdays`: weekdays only; `window`: weekends excluded with a window
of 60 days back and 400 ahead at 2019-06-01), the output and the series the engine kept whole.
Both input and output are expanded; in the span compared, the output's occurrences must be
exactly the input's that the rules keep (all of them for a series kept whole).
Usage: occurrences.py CORPUS_DIR OUTPUT_DIR. Exit status 1 on any mismatch.
"""

import datetime
import sys
import zoneinfo
from pathlib import Path

import icalendar
import recurring_ical_events

NOW = datetime.date(2019, 6, 1)
# The window's edges are fuzzy by up to 14 hours for zoned times: compare inside them.
SPANS = {
    "weekdays": (datetime.date(2000, 1, 1), datetime.date(2030, 1, 1)),
    "window": (NOW - datetime.timedelta(days=58), NOW + datetime.timedelta(days=398)),
}


def weekday_kept(start) -> bool:
    return start.weekday() < 5


def occurrences(cal, span):
    found = set()
    for occ in recurring_ical_events.of(cal).between(*span):
        uid = str(occ.get("UID", ""))
        start = occ["DTSTART"].dt
        found.add((uid, start.isoformat()))
    return found


def events_in_order(cal):
    return [e for e in cal.walk("VEVENT")]


ZONES = zoneinfo.available_timezones()


def zone_unsure(event) -> bool:
    """A TZID that is not an IANA name as written (`Europe/lisbon`): the engine reads the IANA
    zone of that name whatever the case, python icalendar the file's VTIMEZONE or none; they may
    differ by hours, so the occurrences of such an event are not compared."""
    start = event.get("DTSTART")
    tzid = start.params.get("TZID") if start is not None else None
    return tzid is not None and str(tzid) not in ZONES and "/" in str(tzid)


def main() -> int:
    corpus, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    checked = failed = skipped = 0
    compared = dropped = whole_series = 0
    for out in sorted(out_dir.glob("*.ics")):
        name, source_name = out.stem.split("__", 1)
        source = corpus / f"{source_name}.ics" if not source_name.endswith(".ics") else corpus / source_name
        span = SPANS[name]
        try:
            cal = icalendar.Calendar.from_ical(source.read_bytes())
            everything = occurrences(cal, span)
        except Exception:  # the independent readers cannot take the input itself
            skipped += 1
            continue
        events = events_in_order(cal)
        whole_text = out.with_suffix(".whole").read_text().strip()
        whole = {str(events[int(i)].get("UID", "")) for i in whole_text.split("\n") if i}
        unsure = {str(e.get("UID", "")) for e in events if zone_unsure(e)}
        expected = set()
        for uid, start in everything:
            if uid in unsure:
                continue
            when = datetime.datetime.fromisoformat(start) if "T" in start else datetime.date.fromisoformat(start)
            if uid in whole or weekday_kept(when):
                expected.add((uid, start))
        data = out.read_bytes()
        try:
            got = occurrences(icalendar.Calendar.from_ical(data), span) if data else set()
            got = {o for o in got if o[0] not in unsure}
            missing, extra = expected - got, got - expected
            assert not missing and not extra, (
                f"{len(missing)} missing (e.g. {sorted(missing)[:3]}), {len(extra)} extra (e.g. {sorted(extra)[:3]})"
            )
            checked += 1
            compared += len(expected)
            dropped += len(everything) - len(expected) - sum(1 for o in everything if o[0] in unsure)
            whole_series += len(whole)
        except Exception as e:
            failed += 1
            print(f"FAIL {out.name}: {type(e).__name__}: {str(e)[:400]}")
    print(
        f"occurrence filters: {checked} checked, {failed} failed, {skipped} inputs the readers cannot take; "
        f"{compared} occurrences kept and {dropped} dropped as the rules say, {whole_series} series kept whole"
    )
    return 1 if failed or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
