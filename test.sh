#!/usr/bin/env bash
# Set up .venv (first time only) and Debian's chromium, lint, type-check and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")"
scripts/venv.sh
scripts/chromium.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
exec .venv/bin/pytest "$@"
