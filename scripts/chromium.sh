#!/usr/bin/env bash
# Make sure Debian's chromium is installed for the end-to-end tests (never a downloaded browser).
set -euo pipefail
if [ -x "${CACHO_CHROMIUM:-/usr/bin/chromium}" ]; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "Instalando chromium de Debian para las pruebas de punta a punta..." >&2
    (apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 ||
        { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends chromium >/dev/null; })
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo apt-get install -y --no-install-recommends chromium >/dev/null
else
    echo "Falta chromium: instálelo con 'sudo apt-get install chromium' (las pruebas e2e lo necesitan)." >&2
    exit 1
fi
