"""Checks the engine's output with calendar options against independent readers.

Reads the files `engine_corpus`'s realistic-config test wrote (HEARTH_OPTIONS_OUT): for every
corpus file that python icalendar reads and recurring-ical-events expands, the options output
must read too, hold exactly the number of events the engine says it kept, and expand.
Usage: options.py CORPUS_DIR OUTPUT_DIR. Exit status 1 on any mismatch.
"""

import datetime
import sys
from pathlib import Path

import icalendar
import recurring_ical_events

SPAN = (datetime.date(2000, 1, 1), datetime.date(2030, 1, 1))


def expand(data: bytes) -> int:
    """Reads `data` and expands every VCALENDAR in it; returns its VEVENT count."""
    comps = icalendar.Component.from_ical(data, multiple=True)
    events = 0
    for c in comps:
        events += sum(1 for _ in c.walk("VEVENT"))
        if c.name == "VCALENDAR":
            list(recurring_ical_events.of(c).between(*SPAN))
    return events


def main() -> int:
    corpus, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    checked = failed = skipped = 0
    for out in sorted(out_dir.glob("*.ics")):
        source = corpus / out.name.split("__", 1)[1]
        try:
            expand(source.read_bytes())
        except Exception:  # the independent readers cannot take the input itself
            skipped += 1
            continue
        kept = int(out.with_suffix(".kept").read_text())
        data = out.read_bytes()
        try:
            if not data:
                assert kept == 0, "empty output, but events kept"
            else:
                events = expand(data)
                assert events == kept, f"{events} events read, the engine kept {kept}"
            checked += 1
        except Exception as e:
            # An input event without DTSTART cannot be expanded either way: not the options' fault.
            if isinstance(e, KeyError) and "DTSTART" in str(e) and b"DTSTART" not in source.read_bytes():
                skipped += 1
                continue
            failed += 1
            print(f"FAIL {out.name}: {type(e).__name__}: {str(e)[:200]}")
    print(f"options output: {checked} checked, {failed} failed, {skipped} inputs the readers cannot take")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
