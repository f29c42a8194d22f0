"""A local Mosquitto broker started by us: for a one-machine trial, the soak and the tests (never a system service)."""

from __future__ import annotations

import contextlib
import ctypes
import getpass
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType


class BrokerError(RuntimeError):
    """The broker could not be started (missing, or it did not open its port)."""


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def mosquitto_binary() -> str:
    """Where Debian's `mosquitto` is; BrokerError when it is not installed."""
    found = shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()), None
    )
    if found is None:
        raise BrokerError("falta mosquitto: instálelo con 'sudo apt-get install mosquitto' (o scripts/mosquitto.sh)")
    return found


_prctl: Callable[..., int] | None
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl  # found now: the child between fork and exec only calls it
except (OSError, AttributeError):  # not Linux
    _prctl = None


def _die_with_parent() -> None:
    """In the child, before exec: Linux ends it when the thread that started it dies (even by kill -9)."""
    if _prctl is not None:
        _prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def port_open(host: str, port: int) -> bool:
    """Something accepts TCP connections there."""
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.2):
        return True
    return False


class Mosquitto:
    """One `mosquitto` process on a loopback port, its config and persistence in a folder of its own; it ends with
    the thread that started it."""

    def __init__(
        self,
        port: int | None = None,
        folder: Path | None = None,
        host: str = "127.0.0.1",
        password_file: Path | None = None,
        acl_file: Path | None = None,
    ) -> None:
        self.host = host
        self.port = port or free_port()
        self._tmp = None if folder is not None else tempfile.TemporaryDirectory(prefix="cacho-mosquitto-")
        self.folder = Path(folder) if folder is not None else Path(self._tmp.name)  # type: ignore[union-attr]
        self.folder.mkdir(parents=True, exist_ok=True)
        self.password_file = password_file
        self.acl_file = acl_file
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def config_path(self) -> Path:
        """The config file this broker runs with."""
        return self.folder / "mosquitto.conf"

    @property
    def log_path(self) -> Path:
        """Where the broker writes what it says."""
        return self.folder / "mosquitto.log"

    def config(self) -> str:
        """The config: one loopback listener, persistence in the folder, queues big enough for a championship."""
        lines = [
            f"listener {self.port} {self.host}",
            f"persistence true\npersistence_location {self.folder}/",
            "autosave_interval 5",
            # An organizer away for a while must find every table's events waiting (the default is 1000).
            "max_queued_messages 200000",
            "max_inflight_messages 100",
            f"user {getpass.getuser()}",  # as root it would drop to the `mosquitto` user, who cannot read our folder
        ]
        if self.password_file is not None:
            lines.append(f"password_file {self.password_file}")
        lines.append("allow_anonymous true")  # without a password: only what the ACL gives spectators (reading)
        if self.acl_file is not None:
            lines.append(f"acl_file {self.acl_file}")
        return "\n".join(lines) + "\n"

    def start(self, timeout_s: float = 10.0) -> Mosquitto:
        """Start it and wait until its port answers; BrokerError when it does not."""
        if self.process is not None and self.process.poll() is None:
            return self
        self.config_path.write_text(self.config(), encoding="utf-8")
        log = open(self.log_path, "ab")  # noqa: SIM115 (the broker keeps writing to it)
        try:
            self.process = subprocess.Popen(
                [mosquitto_binary(), "-c", str(self.config_path)],
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent,
            )
        finally:
            log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrokerError(f"mosquitto terminó al arrancar: {self.log_tail()}")
            if port_open(self.host, self.port):
                return self
            time.sleep(0.02)
        self.stop()
        raise BrokerError(f"mosquitto no abrió el puerto {self.port} en {timeout_s:.0f} s: {self.log_tail()}")

    def log_tail(self, lines: int = 5) -> str:
        """The last lines the broker wrote."""
        if not self.log_path.exists():
            return ""
        return " | ".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])

    def kill(self) -> None:
        """Kill it at once (kill -9), as a power cut would: what it had not saved is lost."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        """Stop it cleanly (it saves its sessions and retained messages)."""
        self._end(signal.SIGTERM)

    def _end(self, sig: signal.Signals) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(sig)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def close(self) -> None:
        """Stop it and remove its folder when it was a temporary one."""
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
