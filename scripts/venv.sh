#!/usr/bin/env bash
# Create .venv and install the project into it: `scripts/venv.sh` the reading runtime (the kiosk), `scripts/venv.sh
# learn` adds the learning part (torch, ultralytics), `scripts/venv.sh dev` that and the test tools. A no-op when
# what is asked is already installed and pyproject.toml has not changed since.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
want_extras="${1:-}"
case "$want_extras" in
    "" | learn | dev) ;;
    *) echo "scripts/venv.sh: «$want_extras» no es una parte que se instale; use learn o dev (o nada: solo el lector)." >&2; exit 2 ;;
esac
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "Cacho Companion necesita Python 3.11 o más nuevo ($PY es $("$PY" --version 2>&1))." >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    echo "Creando el entorno .venv ..."
    "$PY" -m venv .venv
fi
stamp=.venv/.cacho-installed
hash="$(sha256sum pyproject.toml | cut -d' ' -f1)"
have_hash="" have_extras=""
if [ -f "$stamp" ]; then
    read -r have_hash have_extras < "$stamp" || true
fi
# what is installed stays installed: the extras asked now are added to those already there
extras="$(printf '%s\n' ${have_extras//,/ } ${want_extras//,/ } | awk 'NF' | sort -u | paste -sd, -)"
if [ "$have_hash" = "$hash" ] && [ "$extras" = "$have_extras" ]; then
    exit 0
fi
case ",$extras," in
    *,dev,* | *,learn,*) echo "Instalando Cacho Companion con la parte de aprendizaje (torch y ultralytics: unos 6 GB, varios minutos) ..." ;;
    *) echo "Instalando el lector y el quiosco (Flask, OpenCV, ONNX Runtime: unos 500 MB) ..." ;;
esac
target="."
[ -n "$extras" ] && target=".[$extras]"
# pip says what it fetches as it goes; (the local mirror config makes it warn about absent extra index folders:
# noise, filtered)
.venv/bin/python -m pip install --disable-pip-version-check --no-cache-dir --progress-bar on -e "$target" \
    2> >(grep -v "is ignored: it is neither" >&2) | { grep -v "^Requirement already satisfied" || true; }
echo "$hash $extras" > "$stamp"
echo "Entorno listo (.venv)."
