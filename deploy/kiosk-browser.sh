#!/usr/bin/env bash
# Open the kiosk full screen on the Pi's display: wait until `cacho kiosk` answers, then Chromium in kiosk mode.
# Started at login by ~/.config/autostart/kiosk-browser.desktop (deploy/install-pi.sh puts it there).
set -euo pipefail

URL="${CACHO_URL:-http://localhost:8080/}"
WAIT_S="${CACHO_WAIT_S:-120}"

browser=""
for candidate in chromium chromium-browser; do
    if command -v "$candidate" >/dev/null 2>&1; then
        browser="$candidate"
        break
    fi
done
if [[ -z "$browser" ]]; then
    echo "kiosk-browser: no Chromium (apt install chromium)" >&2
    exit 1
fi

# The service may still be starting (or loading the camera) at login: show the page once it answers.
for ((i = 0; i < WAIT_S; i++)); do
    if curl --silent --fail --max-time 2 --output /dev/null "${URL%/}/camera/health"; then
        break
    fi
    sleep 1
done

exec "$browser" --kiosk --noerrdialogs --disable-infobars --no-first-run \
    --disable-session-crashed-bubble --disable-features=Translate --check-for-update-interval=31536000 \
    "$URL"
