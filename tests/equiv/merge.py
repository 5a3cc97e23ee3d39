"""Checks merged calendars against the merge rules, read by independent tools.

For every merge listed in OUT/manifest.tsv (output file, then its inputs in order, the i-th
with the prefix "[i] "), python icalendar reads the inputs and works out what the merge must
keep: all components with one UID in a source form its series; when several sources hold a
UID, one source's series is kept whole, the one holding the master first, then the highest
SEQUENCE, then the later LAST-MODIFIED (else DTSTAMP), then the earlier source; events without
a UID are all kept. The output must read as one VCALENDAR holding exactly those events in source
order (UID, RECURRENCE-ID and the prefixed SUMMARY), and recurring-ical-events must expand it
to as many occurrences of each UID as the winning source's calendar gives.
Usage: merge.py OUT_DIR. Exit status 1 on any mismatch.
"""

import datetime
import sys
from collections import Counter
from pathlib import Path

import icalendar
import recurring_ical_events

SPAN = (datetime.date(2000, 1, 1), datetime.date(2030, 1, 1))


def stamp(value) -> str:
    """A DATE or DATE-TIME as 14 digits, comparable as text (the engine's rule)."""
    if value is None:
        return ""
    digits = "".join(ch for ch in value.to_ical().decode() if ch.isdigit())
    return digits.ljust(14, "0")


def events_of(data: bytes):
    """The VEVENTs directly inside each VCALENDAR (or bare), in order."""
    out = []
    for comp in icalendar.Component.from_ical(data, multiple=True):
        if comp.name == "VCALENDAR":
            out.extend(c for c in comp.subcomponents if c.name == "VEVENT")
        elif comp.name == "VEVENT":
            out.append(comp)
    return out


def rid(event) -> str:
    r = event.get("RECURRENCE-ID")
    return "" if r is None else stamp(r)


def rank(event):
    modified = event.get("LAST-MODIFIED") or event.get("DTSTAMP")
    try:
        sequence = int(event.get("SEQUENCE", 0))
    except (TypeError, ValueError):
        sequence = 0
    return ("RECURRENCE-ID" not in event, sequence, stamp(modified))


def expected(inputs):
    """(uid, rid, summary) of every event the merge keeps, in order, and the winners."""
    sources = []
    for p in inputs:
        data = Path(p).read_bytes()
        events = events_of(data)
        # A reader that loses events of a broken input (a VCALENDAR without its END) cannot say
        # what the merge must keep.
        if len(events) != data.upper().count(b"BEGIN:VEVENT"):
            raise ValueError(f"{p}: the reader found {len(events)} events")
        sources.append(events)
    best = {}  # uid -> (rank, -source)
    for s, events in enumerate(sources):
        ranks = {}
        for e in events:
            uid = e.get("UID")
            if uid is None:
                continue
            r = rank(e)
            if uid not in ranks or (not ranks[uid][0] and r > ranks[uid]):
                ranks[uid] = r
        for uid, r in ranks.items():
            if uid not in best or (r, -s) > best[uid]:
                best[uid] = (r, -s)
    kept = []
    for s, events in enumerate(sources):
        for e in events:
            uid = e.get("UID")
            if uid is not None and -best[uid][1] != s:
                continue
            summary = f"[{s + 1}] {e.get('SUMMARY', '')}".strip()
            kept.append((str(uid), rid(e), summary))
    winners = {str(uid): -b[1] for uid, b in best.items()}
    return kept, winners


def occurrences(data: bytes, only=None) -> Counter:
    counts = Counter()
    for comp in icalendar.Component.from_ical(data, multiple=True):
        if comp.name == "VEVENT":
            # A bare event, which the merge puts inside its calendar.
            wrapper = icalendar.Calendar()
            wrapper.add_component(comp)
            comp = wrapper
        if comp.name != "VCALENDAR":
            continue
        for occ in recurring_ical_events.of(comp).between(*SPAN):
            uid = str(occ.get("UID"))
            if only is None or uid in only:
                counts[uid] += 1
    return counts


def main() -> int:
    out_dir = Path(sys.argv[1])
    checked = failed = skipped = 0
    for line in (out_dir / "manifest.tsv").read_text().splitlines():
        name, *inputs = line.split("\t")
        try:
            want, winners = expected(inputs)
        except Exception:  # an input the independent reader cannot take
            skipped += 1
            continue
        data = (out_dir / name).read_bytes()
        try:
            calendars = icalendar.Component.from_ical(data, multiple=True)
            assert [c.name for c in calendars] == ["VCALENDAR"], "not one VCALENDAR"
            got = [(str(e.get("UID")), rid(e), str(e.get("SUMMARY", "")).strip()) for e in events_of(data)]
            assert got == want, f"events differ: {sorted(set(got) ^ set(want))[:3]}"
            try:
                per_source = [occurrences(Path(p).read_bytes()) for p in inputs]
            except Exception:
                per_source = None  # an input recurring-ical-events cannot expand alone
            if per_source is not None:
                merged = occurrences(data)
                for uid, source in winners.items():
                    assert merged[uid] == per_source[source][uid], (
                        f"{uid}: {merged[uid]} occurrences, its source gives {per_source[source][uid]}"
                    )
            checked += 1
        except Exception as e:
            failed += 1
            print(f"FAIL {name} ({', '.join(Path(p).name for p in inputs)}): {type(e).__name__}: {str(e)[:300]}")
    print(f"merged calendars: {checked} checked, {failed} failed, {skipped} with inputs the readers cannot take")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
