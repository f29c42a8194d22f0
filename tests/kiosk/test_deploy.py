"""deploy/: the systemd unit, the browser's autostart entry and the Pi install script, checked as far as a
machine that is not a Pi allows (systemd-analyze, desktop-file-validate and shellcheck when installed)."""

from __future__ import annotations

import configparser
import getpass
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from kiosk.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "cacho-kiosk.service"
DESKTOP = DEPLOY / "kiosk-browser.desktop"
INSTALL = DEPLOY / "install-pi.sh"
BROWSER = DEPLOY / "kiosk-browser.sh"
CHECKOUT = "/home/pi/cacho-companion"  # where the files in deploy/ expect the checkout; install-pi.sh fills it in


def parse_ini(path: Path) -> configparser.ConfigParser:
    """A unit or desktop file as sections and keys (case kept; systemd and XDG keys are case-sensitive)."""
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text(encoding="utf-8"))
    return parser


def render(tmp_path: Path, user: str) -> Path:
    """The unit and desktop entry as install-pi.sh installs them for this checkout and `user`."""
    out = tmp_path / "rendered"
    done = subprocess.run(
        ["bash", str(INSTALL), "--render", str(out)],
        env={**os.environ, "CACHO_USER": user},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return out


def test_unit_runs_the_kiosk_as_pi_and_restarts() -> None:
    unit = parse_ini(UNIT)
    service = unit["Service"]
    assert service["User"] == "pi"
    assert service["WorkingDirectory"] == CHECKOUT
    assert service["ExecStart"].startswith(f"{CHECKOUT}/.venv/bin/cacho ")
    assert service["Restart"] == "always"
    assert service["RestartSec"] == "2"
    assert service.get("Type", "simple") == "simple"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert "network-online.target" in unit["Unit"]["After"]


def test_exec_start_is_a_valid_cacho_kiosk_command() -> None:
    argv = shlex.split(parse_ini(UNIT)["Service"]["ExecStart"])
    assert Path(argv[0]).name == "cacho"
    args = build_parser().parse_args(argv[1:])
    assert args.command == "kiosk"
    assert (args.camera, args.host, args.port, args.db) == ("pi", "0.0.0.0", 8080, None)
    assert args.func.__name__ == "run_kiosk"


def test_rendered_unit_names_this_checkout_and_user(tmp_path: Path) -> None:
    out = render(tmp_path, "cacho")
    service = parse_ini(out / UNIT.name)["Service"]
    assert service["User"] == "cacho"
    assert service["WorkingDirectory"] == str(ROOT)
    assert shlex.split(service["ExecStart"])[0] == str(ROOT / ".venv" / "bin" / "cacho")
    assert CHECKOUT not in (out / UNIT.name).read_text()
    entry = parse_ini(out / DESKTOP.name)["Desktop Entry"]
    assert entry["Exec"] == str(BROWSER)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    cacho = ROOT / ".venv" / "bin" / "cacho"
    if not os.access(cacho, os.X_OK):
        pytest.skip(f"no {cacho} to point the unit at (pip install -e . in .venv)")
    unit = render(tmp_path, getpass.getuser()) / UNIT.name
    done = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    about_ours = [line for line in (done.stdout + done.stderr).splitlines() if UNIT.name in line]
    assert done.returncode == 0 and not about_ours, done.stdout + done.stderr


def test_browser_autostart_opens_the_kiosk_full_screen() -> None:
    entry = parse_ini(DESKTOP)["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Exec"] == f"{CHECKOUT}/deploy/{BROWSER.name}"
    assert os.access(BROWSER, os.X_OK), f"{BROWSER} must be executable"
    script = BROWSER.read_text()
    assert "--kiosk --noerrdialogs --disable-infobars" in script
    assert "http://localhost:8080/" in script  # the unit's port
    if shutil.which("desktop-file-validate"):
        done = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True, timeout=30)
        assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


@pytest.mark.parametrize("script", [INSTALL, BROWSER], ids=lambda p: p.name)
def test_scripts_are_valid_bash(script: Path) -> None:
    done = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    if shutil.which("shellcheck"):
        done = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout


def test_install_dry_run_does_the_steps_and_changes_nothing(tmp_path: Path) -> None:
    autostart = tmp_path / "autostart"
    done = subprocess.run(
        ["bash", str(INSTALL), "--dry-run"],
        env={**os.environ, "CACHO_USER": "pi", "CACHO_AUTOSTART_DIR": str(autostart)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    steps = [line[2:] for line in done.stdout.splitlines() if line.startswith("+ ")]
    assert "sudo apt-get install -y python3-picamera2 python3-venv python3-dev curl chromium" in steps
    if not (ROOT / ".venv" / "bin" / "python").exists():
        assert f"python3 -m venv --system-site-packages {ROOT}/.venv" in steps
    assert f"{ROOT}/.venv/bin/pip install -e {ROOT}[learn]" in steps  # the Pi learns its table's dice
    assert any(
        s.startswith("sudo install -m 0644 ") and s.endswith("/etc/systemd/system/cacho-kiosk.service") for s in steps
    )
    assert steps.index("sudo systemctl daemon-reload") < steps.index("sudo systemctl enable cacho-kiosk.service")
    assert any(s.endswith(f"{autostart}/kiosk-browser.desktop") for s in steps)
    assert "User=pi" in done.stdout and f"ExecStart={ROOT}/.venv/bin/cacho kiosk" in done.stdout
    assert not autostart.exists()


def test_install_refuses_an_unknown_option() -> None:
    done = subprocess.run(["bash", str(INSTALL), "--bogus"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and "--bogus" in done.stderr
