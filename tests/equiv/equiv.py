"""Checks `hearth remap` against an independent parser (python icalendar).

For every corpus file icalendar can read: (1) the default mapping's output parses to the same
components, properties, values and parameters as the input; (2) with a real mapping, every
property outside SUMMARY/DESCRIPTION/LOCATION/X-ALT-DESC is unchanged, and the mapped values
equal what the template gives when computed from icalendar's own reading of the input.
Usage: equiv.py HEARTH_BIN CORPUS_DIR. Exit status 1 on any mismatch.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import icalendar

MAPPED = {"SUMMARY", "DESCRIPTION", "LOCATION", "X-ALT-DESC"}
MAPPING = {"SUMMARY": "${SUMMARY} @ ${LOCATION}", "LOCATION": "[${LOCATION}]"}


def parse(data: bytes):
    return icalendar.Component.from_ical(data, multiple=True)


def value_of(v):
    if isinstance(v, list):
        return [value_of(x) for x in v]
    to_ical = getattr(v, "to_ical", None)
    raw = to_ical() if to_ical else v
    params = dict(getattr(v, "params", {}) or {})
    return (raw, sorted((k.upper(), str(p)) for k, p in params.items()))


def canon(comp, skip_in_events=frozenset()):
    props = [
        (name, value_of(v))
        for name, v in comp.property_items(recursive=False, sorted=False)
        if not (comp.name == "VEVENT" and name in skip_in_events)
    ]
    return (comp.name, props, [canon(c, skip_in_events) for c in comp.subcomponents])


def text(comp, name):
    v = comp.get(name)
    if v is None:
        return ""
    if isinstance(v, list):
        return ", ".join(str(x) for x in v)
    return str(v)


def events(comps):
    for c in comps:
        for e in c.walk("VEVENT"):
            yield e


def remap(binary, path, mapping=None):
    args = [binary, "remap"]
    if mapping is not None:
        tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(mapping, tmp)
        tmp.close()
        args += ["--mapping", tmp.name]
    args.append(str(path))
    return subprocess.run(args, check=True, capture_output=True).stdout


def main():
    binary, corpus = sys.argv[1], Path(sys.argv[2])
    checked = skipped = 0
    failures = []
    for path in sorted(corpus.glob("*.ics")):
        data = path.read_bytes()
        try:
            before = parse(data)
        except Exception:  # icalendar refuses some malformed files; nothing to compare.
            before = []
        if not before:
            # Refused, or read as empty (an unclosed VCALENDAR): hearth repairs what icalendar drops.
            skipped += 1
            continue
        try:
            after = parse(remap(binary, path))
            if [canon(c) for c in before] != [canon(c) for c in after]:
                failures.append(f"{path.name}: default mapping changed the calendar")
                continue
            mapped = parse(remap(binary, path, MAPPING))
            if [canon(c, MAPPED) for c in before] != [canon(c, MAPPED) for c in mapped]:
                failures.append(f"{path.name}: a real mapping changed unmapped properties")
                continue
            for b, m in zip(events(before), events(mapped)):
                want_summary = f"{text(b, 'SUMMARY')} @ {text(b, 'LOCATION')}".strip()
                want_location = f"[{text(b, 'LOCATION')}]"
                if text(m, "SUMMARY") != want_summary and want_summary != text(b, "SUMMARY").strip():
                    failures.append(f"{path.name}: SUMMARY {text(m, 'SUMMARY')!r} != {want_summary!r}")
                    break
                if text(m, "LOCATION") != want_location:
                    failures.append(f"{path.name}: LOCATION {text(m, 'LOCATION')!r} != {want_location!r}")
                    break
        except Exception as e:  # noqa: BLE001 - any failure is a mismatch to report
            failures.append(f"{path.name}: {type(e).__name__}: {e}")
            continue
        checked += 1
    for f in failures:
        print(f"MISMATCH {f}")
    print(f"icalendar {icalendar.__version__}: {checked} files equivalent, "
          f"{len(failures)} mismatches, {skipped} skipped (icalendar cannot read them)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
