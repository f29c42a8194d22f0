#!/usr/bin/env bash
# Install Cacho Companion on a Raspberry Pi (Raspberry Pi OS Bookworm or later, 64-bit, desktop image).
#
#   cd ~/cacho-companion && ./deploy/install-pi.sh
#
# Run it as the user who logs in on the Pi's screen (pi), not as root: it asks sudo for the system steps.
# It installs the camera library and Chromium (apt), makes .venv with the system's packages (picamera2 comes
# from apt, not pip), installs the project in it, installs and starts the cacho-kiosk service, and opens the
# kiosk in Chromium at login. Running it again updates everything in place.
#
#   --no-browser   leave the desktop alone (a Pi without a screen: open the kiosk from another machine)
#   --dry-run      print what would be done, change nothing (also: CACHO_DRY_RUN=1)
#   --render DIR   only write the service unit and the autostart entry, filled in, into DIR (to check them)
# See docs/pi-install.md.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIOSK_USER="${CACHO_USER:-$(id -un)}"
KIOSK_HOME="$(getent passwd "$KIOSK_USER" | cut -d: -f6 || true)"
KIOSK_HOME="${KIOSK_HOME:-$HOME}"
UNIT_NAME="cacho-kiosk.service"
UNIT_DIR="${CACHO_UNIT_DIR:-/etc/systemd/system}"
AUTOSTART_DIR="${CACHO_AUTOSTART_DIR:-$KIOSK_HOME/.config/autostart}"
DRY_RUN="${CACHO_DRY_RUN:-}"
BROWSER=1
RENDER_DIR=""

while [[ $# -gt 0 ]]; do
    arg="$1"
    shift
    case "$arg" in
        --no-browser) BROWSER="" ;;
        --dry-run) DRY_RUN=1 ;;
        --render)
            RENDER_DIR="${1:?--render needs a folder}"
            shift
            ;;
        -h | --help)
            sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "install-pi.sh: unknown option $arg (see --help)" >&2
            exit 2
            ;;
    esac
done

run() {
    if [[ -n "$DRY_RUN" ]]; then
        printf '+ %s\n' "$*"
    else
        "$@"
    fi
}

say() {
    printf '\n== %s\n' "$*"
}

# Fill in the checkout's path and the user (the files in deploy/ are written for /home/pi/cacho-companion).
render() {
    sed -e "s#/home/pi/cacho-companion#${REPO}#g" -e "s#^User=pi\$#User=${KIOSK_USER}#" "$1"
}

if [[ -n "$RENDER_DIR" ]]; then
    mkdir -p "$RENDER_DIR"
    render "$REPO/deploy/$UNIT_NAME" >"$RENDER_DIR/$UNIT_NAME"
    render "$REPO/deploy/kiosk-browser.desktop" >"$RENDER_DIR/kiosk-browser.desktop"
    exit 0
fi

if [[ "$(id -u)" -eq 0 && -z "${CACHO_USER:-}" && -z "$DRY_RUN" ]]; then
    echo "install-pi.sh: run it as the desktop user (pi), not as root; it uses sudo where needed." >&2
    exit 2
fi

say "System packages: camera (picamera2), Chromium, venv"
run sudo apt-get update
packages=(python3-picamera2 python3-venv python3-dev curl)
if [[ -n "$BROWSER" ]]; then
    # Debian and newer Raspberry Pi OS call it chromium; Bookworm's Raspberry Pi OS, chromium-browser.
    if [[ -n "$DRY_RUN" ]] || apt-cache show chromium >/dev/null 2>&1; then
        packages+=(chromium)
    else
        packages+=(chromium-browser)
    fi
fi
run sudo apt-get install -y "${packages[@]}"

say "Python environment: $REPO/.venv (with the system's picamera2)"
if [[ ! -x "$REPO/.venv/bin/python" ]]; then
    run python3 -m venv --system-site-packages "$REPO/.venv"
fi
run "$REPO/.venv/bin/pip" install --upgrade pip
# with the learning part: the table learns its dice while it plays
run "$REPO/.venv/bin/pip" install -e "$REPO[learn]"

say "Service: $UNIT_DIR/$UNIT_NAME (user $KIOSK_USER)"
staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
render "$REPO/deploy/$UNIT_NAME" >"$staging/$UNIT_NAME"
if [[ -n "$DRY_RUN" ]]; then
    cat "$staging/$UNIT_NAME"
fi
run sudo install -m 0644 "$staging/$UNIT_NAME" "$UNIT_DIR/$UNIT_NAME"
run sudo systemctl daemon-reload
run sudo systemctl enable "$UNIT_NAME"
run sudo systemctl restart "$UNIT_NAME"

if [[ -n "$BROWSER" ]]; then
    say "Chromium in kiosk mode at login: $AUTOSTART_DIR/kiosk-browser.desktop"
    render "$REPO/deploy/kiosk-browser.desktop" >"$staging/kiosk-browser.desktop"
    run chmod +x "$REPO/deploy/kiosk-browser.sh"
    run install -d "$AUTOSTART_DIR"
    run install -m 0644 "$staging/kiosk-browser.desktop" "$AUTOSTART_DIR/kiosk-browser.desktop"
fi

say "Done"
echo "The kiosk: http://localhost:8080/ on the Pi, http://$(hostname).local:8080/ from the network."
echo "First start: set the coordinator's PIN on the screen. Logs: journalctl -u $UNIT_NAME -f"
if [[ -n "$BROWSER" ]]; then
    echo "Chromium opens full screen at the next login (or now: $REPO/deploy/kiosk-browser.sh &)."
fi
