"""The learning part (torch, ultralytics, onnx: the `learn` extra): whether it is installed, and its installation
in the background, with pip's progress, where a table starts to learn without it.

The reading runtime reads without it; teaching the dice, learning while playing and the championship's pooled
learning need it. The kiosk offers to install it (pip into the interpreter it runs in) and says what pip is doing.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MODULES = ("torch", "ultralytics", "onnx")  # what learning imports (vision.faces.adapt, the ONNX export)
DISTRIBUTION = "cacho-companion"
EXTRA = "learn"
FALLBACK = ("ultralytics>=8.3", "onnx>=1.16", "onnxslim>=0.1.30", "tqdm>=4.66")  # pyproject's, where unreadable
SIZE = "unos 6 GB"
LINES = 12  # pip's last lines kept for the page


def missing(modules: Sequence[str] = MODULES) -> list[str]:
    """The learning part's modules this interpreter cannot import."""
    return [name for name in modules if importlib.util.find_spec(name) is None]


def requirements() -> list[str]:
    """The `learn` extra's requirements as the installed project declares them."""
    try:
        declared = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:
        return list(FALLBACK)
    marker = re.compile(rf"""extra\s*==\s*["']{EXTRA}["']""")
    found = [r.split(";")[0].strip() for r in declared if marker.search(r)]
    return found or list(FALLBACK)


def pip_command() -> list[str]:
    """pip, in the interpreter the kiosk runs in, installing the learning part."""
    return [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--progress-bar",
        "off",
        *requirements(),
    ]


MESSAGE = (
    f"falta la parte de aprendizaje (torch y ultralytics, {SIZE}): el lector lee sin ella, pero para aprender los "
    "dados de la mesa hay que instalarla («Instalar la parte de aprendizaje» en Enseñar los dados, o "
    "scripts/venv.sh learn)"
)


@dataclass
class Installer:
    """One installation at a time, in a thread: its state (idle, running, done, failed) and pip's last lines."""

    command: Sequence[str] | None = None  # None: pip_command()
    modules: Sequence[str] = MODULES
    lock: threading.Lock = field(default_factory=threading.Lock)
    state: str = "idle"
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=LINES))
    started: float | None = None
    finished: float | None = None
    message: str = ""

    def missing(self) -> list[str]:
        """The modules still missing."""
        return missing(self.modules)

    def start(self) -> bool:
        """Start installing, unless already under way or nothing is missing; whether it started."""
        with self.lock:
            if self.state == "running" or not self.missing():
                return False
            self.state, self.started, self.finished = "running", time.time(), None
            self.lines.clear()
            self.message = f"instalando la parte de aprendizaje ({SIZE}): puede tardar varios minutos…"
        threading.Thread(target=self._run, name="instalar-aprendizaje", daemon=True).start()
        return True

    def _run(self) -> None:
        command = list(self.command) if self.command is not None else pip_command()
        try:
            process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, errors="replace"
            )
        except OSError as error:
            self._finish("failed", f"no se pudo ejecutar pip: {error.strerror or error}")
            return
        with process:
            assert process.stdout is not None
            for line in process.stdout:
                line = line.rstrip()
                if line and "is ignored: it is neither" not in line:
                    with self.lock:
                        self.lines.append(line)
            code = process.wait()
        importlib.invalidate_caches()
        still = self.missing()
        if code == 0 and not still:
            self._finish("done", "parte de aprendizaje instalada: ya se puede enseñar al lector")
        elif code == 0:
            self._finish("failed", f"pip terminó, pero siguen faltando {', '.join(still)}")
        else:
            self._finish(
                "failed", f"pip no pudo instalar la parte de aprendizaje (código {code}); vea sus últimas líneas"
            )

    def _finish(self, state: str, message: str) -> None:
        with self.lock:
            self.state, self.message, self.finished = state, message, time.time()

    def snapshot(self) -> dict[str, Any]:
        """What the page shows: missing modules, state, message and pip's last lines."""
        lacking = self.missing()
        with self.lock:
            return {
                "missing": lacking,
                "installed": not lacking,
                "state": self.state,
                "message": self.message,
                "lines": list(self.lines),
                "size": SIZE,
            }
