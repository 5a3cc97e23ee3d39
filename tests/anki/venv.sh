#!/usr/bin/env bash
# The official Anki library from PyPI (anki==26.9.3, the version that made the committed .apkg
# fixtures) in a venv under target/ (made once, checked every time): what the .apkg export's
# browser test imports Hearth's packages with. Prints the path of its Python; fails, never skips,
# when it cannot be installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${HEARTH_ANKI_VENV:-$root/target/anki-venv}"
version="26.9.3"
installed() { "$venv/bin/python" -c "import anki.buildinfo, sys; sys.exit(anki.buildinfo.version != '26.09.3')" 2>/dev/null; }
if ! installed; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "anki==$version" >&2
fi
installed || { echo "anki: no Anki $version in $venv" >&2; exit 1; }
echo "$venv/bin/python"
