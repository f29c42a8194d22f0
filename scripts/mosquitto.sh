#!/usr/bin/env bash
# Make sure Debian's mosquitto is installed for the championship's tests (they start their own broker; no service).
set -euo pipefail
if command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ]; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "Instalando mosquitto de Debian para las pruebas del campeonato..." >&2
    (apt-get install -y --no-install-recommends mosquitto >/dev/null 2>&1 ||
        { apt-get update >/dev/null 2>&1 && apt-get install -y --no-install-recommends mosquitto >/dev/null; })
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo apt-get install -y --no-install-recommends mosquitto >/dev/null
else
    echo "Falta mosquitto: instálelo con 'sudo apt-get install mosquitto' (las pruebas del campeonato lo necesitan)." >&2
    exit 1
fi
