#!/usr/bin/env bash
# Set up .venv (first time only), Debian's chromium and mosquitto, lint, type-check and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")"
scripts/venv.sh dev
scripts/chromium.sh
scripts/mosquitto.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
exec .venv/bin/pytest "$@"
