#!/usr/bin/env bash
# Create .venv-render (bpy pins Python 3.11 and numpy<2, so it lives apart from .venv) and render the sprites.
# Usage: scripts/render-venv.sh [--out vision/synth/assets] [--size 160] [--samples 24] [--limit N] ...
# Set RENDER_VENV_ONLY=1 to only set up the venv.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null || PY=python3
if ! "$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    echo "bpy 5.0.1 needs Python 3.11 exactly ($PY is $("$PY" --version 2>&1)); set PYTHON=..." >&2
    exit 1
fi
if [ ! -x .venv-render/bin/python ]; then
    "$PY" -m venv .venv-render
fi
if ! .venv-render/bin/python -c 'import bpy' 2>/dev/null; then
    # bpy 5.0.1 requires numpy>=1.26,<2 (plus cython, requests, zstandard): let pip resolve them.
    .venv-render/bin/python -m pip install --quiet --disable-pip-version-check "bpy==5.0.1" "numpy>=1.26,<2" \
        2> >(grep -v "is ignored: it is neither" >&2)
fi
if [ "${RENDER_VENV_ONLY:-0}" = "1" ]; then
    exit 0
fi
# One core, low priority: the machine is shared with training and other jobs.
exec nice -n 10 .venv-render/bin/python -m vision.synth.render_sprites "$@"
