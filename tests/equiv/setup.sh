# Sourced by the equivalence scripts: the project root, the shared ICS corpus, and one virtualenv
# (HEARTH_EQUIV_VENV, default target/equiv-venv) holding the pinned python icalendar and
# recurring-ical-events, set up once and reused.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

venv="${HEARTH_EQUIV_VENV:-$root/target/equiv-venv}"
corpus="${HEARTH_ICS_CORPUS:-$root/../shared/ics-corpus/files}"
icalendar_version="7.3.0"
recurring_version="3.8.2"

if ! "$venv/bin/python" -c "import icalendar, recurring_ical_events, sys; sys.exit(icalendar.__version__ != '$icalendar_version')" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "icalendar==$icalendar_version" "recurring-ical-events==$recurring_version"
fi
