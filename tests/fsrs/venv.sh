#!/usr/bin/env bash
# fsrs-rs-python from PyPI (fsrs-rs-python==0.9.3: FSRS's Rust optimiser, fsrs-rs, for Python) in a
# venv under target/ (made once, checked every time): the reference the browser's optimiser is
# checked against (ui/src/flashcards/srs/fsrsReference.check.ts). Prints the path of its Python;
# fails when it cannot be installed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${HEARTH_FSRS_VENV:-$root/target/fsrs-venv}"
version="0.9.3"
installed() { "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('fsrs-rs-python') != '$version')" 2>/dev/null; }
if ! installed; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "fsrs-rs-python==$version" >&2
fi
installed || { echo "fsrs: no fsrs-rs-python $version in $venv" >&2; exit 1; }
echo "$venv/bin/python"
