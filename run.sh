#!/usr/bin/env bash
# Set up .venv (first time only) and run the main job: the kiosk, on the bundled demo table when no camera is present.
set -euo pipefail
cd "$(dirname "$0")"
scripts/venv.sh
exec .venv/bin/cacho kiosk "$@"
