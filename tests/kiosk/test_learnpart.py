"""The light runtime and the learning part: the kiosk reads and serves without torch and ultralytics, says what is
missing where a table starts to learn, and installs it in the background with pip's progress."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from flask import Flask

from kiosk import learnpart, teach
from tests.kiosk.conftest import become_coordinator, make_app
from tests.kiosk.fakes import wait_until

ROOT = Path(__file__).resolve().parents[2]
ABSENT = "cacho_modulo_que_no_existe"


def test_the_learning_part_is_the_learn_extra_and_the_runtime_has_neither_torch_nor_ultralytics() -> None:
    """pyproject.toml: the reading runtime without them; `learn` brings them, and the test tools bring `learn`."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = " ".join(project["dependencies"])
    assert "ultralytics" not in runtime and "torch" not in runtime and "onnxruntime" in runtime
    assert any(r.startswith("ultralytics") for r in project["optional-dependencies"]["learn"])
    assert "cacho-companion[learn]" in project["optional-dependencies"]["dev"]
    assert learnpart.requirements() == project["optional-dependencies"]["learn"]
    assert learnpart.pip_command()[-len(learnpart.requirements()) :] == learnpart.requirements()


def test_the_kiosk_and_both_readers_run_without_torch_or_ultralytics(tmp_path: Path) -> None:
    """With torch, ultralytics and onnx impossible to import: the app serves, the dice and the cards are read, and
    «Enseñar los dados» says that the learning part is missing."""
    code = (
        "import sys\n"
        "for name in ('torch', 'ultralytics', 'onnx'):\n"
        "    sys.modules[name] = None\n"
        "import cv2\n"
        "from kiosk.app import create_app\n"
        "from tests.kiosk.conftest import become_coordinator\n"
        f"app = create_app({{'TESTING': True, 'DATABASE': {str(tmp_path / 'k.sqlite3')!r}, 'CAMERA': None}})\n"
        "coordinator = become_coordinator(app.test_client())\n"
        "part = coordinator.get('/ensenar/state.json').get_json()['learning_part']\n"
        "assert part['missing'] == ['torch', 'ultralytics', 'onnx'], part\n"
        "assert coordinator.post('/ensenar/adapt').status_code == 409\n"
        "from vision.pipeline import build_reader\n"
        "assert build_reader().read(cv2.imread('kiosk/demo/fotos/00/000.jpg')).dice\n"
        "from vision.cards.reader import CardReader\n"
        "cards = CardReader().read(cv2.imread('tests/fixtures/cards/real-phone-194251.jpg')).cards\n"
        "print(' '.join(sorted(c.card for c in cards if c.card)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["2C", "8D", "AH", "JS"]  # the photo's four cards (its label file)


def app_lacking(tmp_path: Path, command: list[str] | None = None) -> Flask:
    """An app whose learning part is missing (a module that does not exist), installed by `command`."""
    return make_app(tmp_path, LEARN_MODULES=(ABSENT,), LEARN_INSTALL_COMMAND=command)


def test_without_the_learning_part_teaching_is_refused_in_spanish_and_changes_nothing(tmp_path: Path) -> None:
    """«Enseñar al lector» gets a 409 that says what is missing and how to get it; nothing starts."""
    app = app_lacking(tmp_path)
    coordinator = become_coordinator(app.test_client())
    before = coordinator.get("/ensenar/state.json").get_json()
    assert before["learning_part"]["missing"] == [ABSENT] and before["learning_part"]["state"] == "idle"
    refused = coordinator.post("/ensenar/adapt")
    assert refused.status_code == 409
    assert "falta la parte de aprendizaje" in refused.get_json()["error"]
    assert coordinator.get("/ensenar/state.json").get_json()["job"] == before["job"]
    page = coordinator.get("/ensenar").get_data(as_text=True)
    assert 'id="learn-part-install"' in page and "Instalar la parte de aprendizaje" in page
    app.extensions["cacho.camera"].close()


def test_learning_while_playing_waits_for_the_learning_part(tmp_path: Path) -> None:
    """Confirmed dice in play do not start an adaptation that cannot run: they stay counted for later."""
    app = make_app(tmp_path, LEARN_MODULES=(ABSENT,), LEARN_EVERY=1)
    with app.test_request_context():
        assert teach.lacks_learning()
        assert teach.learn_when_due() is False
        assert teach.teaching().job["state"] == "idle"
    app.extensions["cacho.camera"].close()


def test_the_learning_part_is_installed_in_the_background_with_pips_lines(tmp_path: Path) -> None:
    """«Instalar la parte de aprendizaje»: 202, pip's lines on the page while it runs, then done once the modules
    import; a second press while it runs is refused."""
    module = tmp_path / "site" / f"{ABSENT}.py"
    module.parent.mkdir()
    sys.path.insert(0, str(module.parent))
    script = (
        "import sys, time, pathlib\n"
        "print('Collecting ultralytics>=8.3', flush=True)\n"
        "print('Downloading torch-2.5.0-cp311-none-linux_x86_64.whl (800 MB)', flush=True)\n"
        f"while not pathlib.Path({str(tmp_path / 'gate')!r}).exists():\n"  # the test says when pip may finish
        "    time.sleep(0.02)\n"
        f"pathlib.Path({str(module)!r}).write_text('')\n"
        "print('Successfully installed torch-2.5.0 ultralytics-8.3.0', flush=True)\n"
    )
    try:
        app = app_lacking(tmp_path, [sys.executable, "-c", script])
        coordinator = become_coordinator(app.test_client())
        started = coordinator.post("/ensenar/aprendizaje")
        assert started.status_code == 202
        assert started.get_json()["learning_part"]["state"] == "running"
        again = coordinator.post("/ensenar/aprendizaje")  # the fake pip waits for the gate
        assert again.status_code == 409 and "ya se está instalando" in again.get_json()["error"]
        (tmp_path / "gate").write_text("")
        wait_until(lambda: coordinator.get("/ensenar/state.json").get_json()["learning_part"]["state"] != "running")
        part = coordinator.get("/ensenar/state.json").get_json()["learning_part"]
        assert part["state"] == "done" and part["installed"] and part["missing"] == []
        assert "Downloading torch-2.5.0-cp311-none-linux_x86_64.whl (800 MB)" in part["lines"]
        assert "ya se puede enseñar" in part["message"]
        assert coordinator.post("/ensenar/aprendizaje").status_code == 409  # nothing left to install
        app.extensions["cacho.camera"].close()
    finally:
        sys.path.remove(str(module.parent))
        sys.modules.pop(ABSENT, None)


def test_a_failed_installation_says_so_and_keeps_pips_last_lines(tmp_path: Path) -> None:
    """pip exits with an error: «failed», its code, its last lines; the button is offered again."""
    script = "import sys; print('ERROR: No matching distribution found for torch'); sys.exit(1)"
    app = app_lacking(tmp_path, [sys.executable, "-c", script])
    coordinator = become_coordinator(app.test_client())
    assert coordinator.post("/ensenar/aprendizaje").status_code == 202
    wait_until(lambda: coordinator.get("/ensenar/state.json").get_json()["learning_part"]["state"] != "running")
    part = coordinator.get("/ensenar/state.json").get_json()["learning_part"]
    assert part["state"] == "failed" and "código 1" in part["message"]
    assert part["lines"] == ["ERROR: No matching distribution found for torch"]
    assert not part["installed"]
    app.extensions["cacho.camera"].close()


def test_an_installer_that_cannot_run_says_why(tmp_path: Path) -> None:
    """A command that does not exist: failed, in Spanish, nothing raised."""
    installer = learnpart.Installer(command=[str(tmp_path / "no-pip")], modules=(ABSENT,))
    assert installer.start()
    wait_until(lambda: installer.snapshot()["state"] != "running")
    assert installer.snapshot()["state"] == "failed"
    assert installer.snapshot()["message"].startswith("no se pudo ejecutar pip")


def test_setting_up_installs_what_is_asked_and_keeps_what_is_there(tmp_path: Path) -> None:
    """scripts/venv.sh: the kiosk's set-up installs the runtime alone; the tests' adds dev; after that, the kiosk's
    set-up installs nothing (what is installed stays)."""
    fake = tmp_path / "repo"
    (fake / "scripts").mkdir(parents=True)
    (fake / "scripts" / "venv.sh").write_text((ROOT / "scripts" / "venv.sh").read_text())
    (fake / "pyproject.toml").write_text("[project]\nname='x'\n")
    bin_dir = fake / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    log = tmp_path / "pip.log"
    (bin_dir / "python").write_text(f'#!/bin/sh\necho "$@" >> {log}\necho Collecting x\n')
    (bin_dir / "python").chmod(0o755)

    def setup(*extras: str) -> str:
        done = subprocess.run(
            ["bash", str(fake / "scripts" / "venv.sh"), *extras], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    said = setup()
    assert "Instalando el lector y el quiosco" in said and "Collecting x" in said
    assert log.read_text().split()[-1] == "."
    said = setup("dev")
    assert "parte de aprendizaje" in said and log.read_text().split()[-1] == ".[dev]"
    calls = log.read_text().count("install")
    assert setup() == "" and log.read_text().count("install") == calls
    wrong = subprocess.run(["bash", str(fake / "scripts" / "venv.sh"), "todo"], capture_output=True, text=True)
    assert wrong.returncode == 2 and "no es una parte que se instale" in wrong.stderr
    assert log.read_text().count("install") == calls  # nothing installed
