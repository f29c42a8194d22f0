#!/usr/bin/env bash
# Set up .venv (first time only) and run the main job: the demo table.
set -euo pipefail
cd "$(dirname "$0")"
scripts/venv.sh
exec .venv/bin/cacho demo "$@"
