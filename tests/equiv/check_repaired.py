"""Checks feeds repaired with "timezones": "repair" in independent tools.

Usage: check_repaired.py REPAIRED_DIR ORIGINAL_DIR

REPAIRED_DIR holds what crates/engine/tests/tz_corpus.rs writes with HEARTH_REPAIRED_OUT set:
the repaired corpus feeds (same file names as ORIGINAL_DIR) and synthetic-zones.ics (one event
in each of many zones, every VTIMEZONE synthesised). For each repaired feed:
  - python icalendar parses it and recurring-ical-events expands it (2000..2030) without error,
    to as many occurrences as the original gives (when the original expands at all);
  - every VTIMEZONE the repair added (a TZID the original had no VTIMEZONE for), read by
    icalendar on its own (not looked up by name), gives the same UTC offsets as the tz database
    (zoneinfo) on the 1st and 15th of every month from its first year to 2040.
Exits non-zero on any failure.
"""

import datetime
import sys
import zoneinfo
from pathlib import Path

import icalendar
import recurring_ical_events

START = datetime.datetime(2000, 1, 1)
END = datetime.datetime(2030, 1, 1)


def calendars(data):
    return icalendar.Calendar.from_ical(data, multiple=True)


def occurrences(cals):
    return sum(len(list(recurring_ical_events.of(c).between(START, END))) for c in cals)


def vtimezones(cals):
    for cal in cals:
        for comp in cal.walk("VTIMEZONE"):
            if "TZID" in comp:
                yield str(comp["TZID"]), comp


def signature(vtz):
    """What a VTIMEZONE says, without its TZID: the same for an upstream one the repair renamed."""
    keys = ("DTSTART", "TZOFFSETFROM", "TZOFFSETTO", "RRULE", "RDATE")
    return tuple(
        sorted(
            (sub.name,) + tuple(sub.content_line(k, sub[k]) if k in sub else "" for k in keys)
            for sub in vtz.subcomponents
        )
    )


def first_year(vtz):
    years = [sub["DTSTART"].dt.year for sub in vtz.subcomponents if "DTSTART" in sub]
    return max(min(years), 1970) if years else 1970


def check_zone(name, tzid, vtz, problems):
    try:
        reference = zoneinfo.ZoneInfo(tzid)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        problems.append(f"{name}: {tzid}: not in zoneinfo")
        return 0
    tz = vtz.to_tz(lookup_tzid=False)
    checked = 0
    for year in range(first_year(vtz) + 1, 2041):
        for month in range(1, 13):
            for day in (1, 15):
                utc = datetime.datetime(year, month, day, 12, tzinfo=datetime.timezone.utc)
                want = utc.astimezone(reference).utcoffset()
                got = utc.astimezone(tz).utcoffset()
                checked += 1
                if want != got:
                    problems.append(f"{name}: {tzid} at {utc:%Y-%m-%d}: {got} != {want}")
                    return checked
    return checked


def main():
    repaired_dir, original_dir = Path(sys.argv[1]), Path(sys.argv[2])
    problems = []
    files = zones = instants = beyond = 0
    for path in sorted(repaired_dir.glob("*.ics")):
        files += 1
        original = original_dir / path.name
        before = set()
        original_count = None
        original_error = None
        if original.exists():
            try:
                original_cals = calendars(original.read_bytes())
                before = {signature(vtz) for _, vtz in vtimezones(original_cals)}
                original_count = occurrences(original_cals)
                if not original_cals:
                    # Nothing the checkers read (no END:VCALENDAR, say): nothing to compare.
                    original_error = "no calendar read"
            except Exception as e:  # noqa: BLE001 - the original may be beyond the checkers
                original_error = f"{type(e).__name__}: {e}"
        try:
            cals = calendars(path.read_bytes())
            count = occurrences(cals)
        except Exception as e:  # noqa: BLE001 - any failure of the checkers is a finding
            if original_error is None:
                problems.append(f"{path.name}: repaired feed fails: {type(e).__name__}: {e}")
            else:
                beyond += 1
            continue
        if original_count is not None and original_count != count:
            problems.append(f"{path.name}: {count} occurrences, the original has {original_count}")
        for tzid, vtz in vtimezones(cals):
            if signature(vtz) in before:
                continue
            zones += 1
            instants += check_zone(path.name, tzid, vtz, problems)
    print(
        f"{files} feeds ({beyond} beyond the checkers before and after the repair), "
        f"{zones} added VTIMEZONEs compared with zoneinfo at {instants} instants"
    )
    for p in problems:
        print("FAIL", p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
