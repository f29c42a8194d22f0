#!/usr/bin/env bash
# Create .venv and install the project into it; a no-op when nothing changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "Cacho Companion necesita Python 3.11 o más nuevo ($PY es $("$PY" --version 2>&1))." >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
stamp=.venv/.cacho-installed
want="$(cat pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    # (the local mirror config makes pip warn about absent extra index folders: noise, filtered)
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-cache-dir -e ".[dev]" 2> >(grep -v "is ignored: it is neither" >&2)
    echo "$want" > "$stamp"
fi
