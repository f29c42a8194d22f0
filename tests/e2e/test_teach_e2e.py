"""«Enseñar los dados» end to end: Debian's chromium (Playwright) at 800x480 on a kiosk served in this process with
the demo camera, a reader that reads whatever dice it is told to, and the real adaptation (vision.faces.adapt, a
few seconds of it) of the project's models to dice collected earlier: blue dice with red pips, which the stock
classifier is never sure of.

The coordinator opens the page from the home page, reads the dice on the felt, confirms a doubtful die by a tap,
confirms the reading (the face still short is filled), teaches the reader (the progress, then what it gained), sees
the adapted models on the badge, and goes back to the stock reader in one tap.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from kiosk.app import create_app
from tests.e2e.conftest import free_port, set_pin, shot
from vision.still import StillSettings
from vision.types import Box, DieReading, FrameReading

PIN = "1357"

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect


class RowReader:
    """Reads `faces` as a row of dice across the middle of whatever frame it gets; `doubtful`: the positions
    read as doubtful."""

    def __init__(self) -> None:
        self.faces: list[int] = []
        self.doubtful: set[int] = set()

    def read(self, frame: Any) -> FrameReading:
        height, width = frame.shape[:2]
        side = width / (2 * len(self.faces) + 2) if self.faces else 1.0
        dice = []
        for k, face in enumerate(self.faces):
            x = side * (1 + 2 * k)
            box = Box(x, height / 2 - side / 2, x + side, height / 2 + side / 2)
            doubtful = k in self.doubtful
            reasons = ("las dos lecturas no coinciden",) if doubtful else ()
            dice.append(DieReading(face, 0.6 if doubtful else 0.98, box, doubtful, reasons))
        return FrameReading(width, height, tuple(dice))


def fill(root: Path, per_face: dict[int, int]) -> None:
    """Labelled dice collected earlier (in play): photos of two drawn blue dice with red pips each."""
    import cv2
    import numpy as np

    from tests.vision.test_faces import draw_die

    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    for face, n in per_face.items():
        for k in range(0, n, 2):
            img = np.full((120, 220, 3), (200, 200, 200), np.uint8)
            lines = []
            for j, x in enumerate((20, 130)[: min(2, n - k)]):
                img[27:92, x : x + 65] = draw_die(face, "azul_rojo", 50, angle=90.0 * ((k + j) % 4), seed=k + j)
                lines.append(f"{face - 1} {(x + 32.5) / 220:.4f} {59.5 / 120:.4f} {50 / 220:.4f} {50 / 120:.4f}\n")
            cv2.imwrite(str(root / "images" / f"antes-{face}-{k:03d}.png"), img)
            (root / "labels" / f"antes-{face}-{k:03d}.txt").write_text("".join(lines))


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, RowReader, Path]]:
    """The kiosk with the demo camera, the row reader and the real adaptation, served on a free port from a thread."""
    reader, loaded = RowReader(), []

    def models_reader(models: Path) -> RowReader:
        loaded.append(models)
        return reader

    app = create_app(
        {
            "DATABASE": str(tmp_path / "kiosk.sqlite3"),
            "CAMERA": "demo",
            "READER_FACTORY": lambda: reader,
            "MODELS_READER_FACTORY": models_reader,
            "TEACH_MINUTES": 0.1,
            "STILL": StillSettings(still_s=0.3, timeout_s=10.0, poll_s=0.05, frames=1, frame_gap_s=0.0),
        }
    )
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}", reader, Path(app.config["LEARNED"])
    finally:
        server.shutdown()
        app.extensions["cacho.camera"].close()


def test_the_table_teaches_its_reader(served: tuple[str, RowReader, Path], page: Any) -> None:
    script_errors: list[str] = []
    page.on("pageerror", lambda error: script_errors.append(str(error)))
    url, reader, learned = served
    fill(learned, {1: 35, 2: 35, 3: 35, 4: 35, 5: 35, 6: 12})  # 187: the 6s are short
    set_pin(page, url, PIN)

    page.get_by_role("link", name="Enseñar los dados", exact=True).click()
    page.wait_for_url(url + "/ensenar")
    expect(page.locator("#total")).to_have_text("187 de 200 dados")
    expect(page.locator("#missing")).to_contain_text("Faltan 13 dados")
    expect(page.locator("#missing")).to_contain_text("Faltan dados con la cara 6")
    expect(page.locator("#teach-adapt")).to_be_disabled()
    expect(page.locator("#models-badge")).to_have_text("Dados: de fábrica")

    # The coordinator rolls the dice on the felt: nine dice read, one of them doubtful.
    reader.faces = [6, 6, 6, 6, 6, 6, 6, 6, 6]
    reader.doubtful = {4}
    expect(page.locator("#teach-read")).to_be_enabled(timeout=20000)
    page.click("#teach-read")
    expect(page.locator("#teach-dice button")).to_have_count(9, timeout=20000)
    expect(page.locator("#teach-photo")).to_be_visible()
    expect(page.locator("#teach-confirm")).to_be_disabled()
    page.click("#teach-dice button.doubtful")
    expect(page.locator("#teach-picker")).to_be_visible()
    shot(page, "teach-reading")
    page.click('#teach-picker button[data-face="6"]')
    expect(page.locator("#teach-confirm")).to_be_enabled()
    page.click("#teach-confirm")
    expect(page.locator("#total")).to_have_text("196 de 200 dados")
    expect(page.locator('.face-count[data-face="6"] strong')).to_have_text("21")

    # Four more dice: enough.
    reader.faces, reader.doubtful = [1, 2, 3, 4], set()
    page.click("#teach-read")
    expect(page.locator("#teach-dice button")).to_have_count(4, timeout=20000)
    page.click("#teach-confirm")
    expect(page.locator("#total")).to_have_text("200 de 200 dados")
    expect(page.locator("#missing")).to_have_text("")
    expect(page.locator("#teach-adapt")).to_be_enabled()

    page.click("#teach-adapt")
    expect(page.locator("#job")).to_be_visible()
    expect(page.locator("#job-message")).to_have_text(
        re.compile(
            r"^antes: (\d+) de (\d+) por confirmar, (ninguno|\d+ de ellos) equivocados?; "
            r"ahora: \d+ de \2, (ninguno|\d+ de ellos) equivocados?$"
        ),
        timeout=120000,
    )
    expect(page.locator("#models-badge")).not_to_have_text("Dados: de fábrica", timeout=20000)
    adapted = page.locator("#models-badge").get_attribute("data-models")
    assert adapted and adapted != "stock"
    # named by when it was adapted, as a coordinator reads it (the folder's own name is its title)
    at = f"{adapted[9:11]}:{adapted[11:13]}"
    said = re.compile(rf"^adaptado (hoy|el \d+ de \w+), {at}$")
    expect(page.locator("#models-active")).to_have_text(said)
    expect(page.locator("#models-active")).to_have_attribute("title", adapted)
    expect(page.locator("#models-badge")).to_have_text(re.compile(rf"^Dados: adaptado (hoy|el \d+ de \w+), {at}$"))
    # its held-out dice are its first evidence at this table, and the page says what they prove
    expect(page.locator("#models-evidence")).to_contain_text("dados de prueba de esta mesa")
    written = learned.parent / "modelos-adaptados" / adapted
    assert (written / "ADAPTED.json").is_file() and (written / "faces" / "face_cnn.onnx").is_file()
    shot(page, "teach-adapted")

    # One tap: back to the stock reader (the adapted one stays, one tap away).
    page.click("#models-stock")
    expect(page.locator("#models-badge")).to_have_text("Dados: de fábrica", timeout=20000)
    expect(page.locator("#models-latest")).to_be_visible()
    assert script_errors == []


def test_without_the_learning_part_the_page_says_so_and_installs_it(tmp_path: Path, page: Any) -> None:
    """A light install (the learning part missing): «Enseñar al lector» is greyed, the page says what is missing
    and what it weighs, and «Instalar la parte de aprendizaje» shows pip's lines until it is installed; all within
    the 7-inch screen's width."""
    import sys

    module = tmp_path / "site" / "cacho_parte_falsa.py"
    module.parent.mkdir()
    script = (
        "import time, pathlib\n"
        "print('Collecting ultralytics>=8.3', flush=True)\n"
        "print('Downloading torch-2.5.0-cp311-none-linux_x86_64.whl (800 MB)', flush=True)\n"
        f"while not pathlib.Path({str(tmp_path / 'gate')!r}).exists():\n"  # the test says when pip may finish
        "    time.sleep(0.02)\n"
        f"pathlib.Path({str(module)!r}).write_text('')\n"
        "print('Successfully installed torch-2.5.0 ultralytics-8.3.0', flush=True)\n"
    )
    sys.path.insert(0, str(module.parent))
    app = create_app(
        {
            "DATABASE": str(tmp_path / "kiosk.sqlite3"),
            "CAMERA": None,
            "LEARN_MODULES": ("cacho_parte_falsa",),
            "LEARN_INSTALL_COMMAND": [sys.executable, "-c", script],
        }
    )
    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{port}"
    try:
        set_pin(page, url, PIN)
        page.goto(url + "/ensenar")
        expect(page.locator("#learn-part")).to_be_visible()
        expect(page.locator("#learn-part-message")).to_contain_text("falta la parte de aprendizaje")
        expect(page.locator("#learn-part-message")).to_contain_text("unos 6 GB")
        expect(page.locator("#teach-adapt")).to_be_disabled()
        box = page.locator("#learn-part-install").bounding_box()
        assert box is not None and box["x"] + box["width"] <= 800
        page.click("#learn-part-install")
        expect(page.locator("#learn-part-install")).to_be_hidden()
        expect(page.locator("#learn-part-message")).to_contain_text("instalando la parte de aprendizaje")
        expect(page.locator("#learn-part-lines")).to_contain_text("Collecting ultralytics", timeout=10000)
        shot(page, "teach-learning-part")
        (tmp_path / "gate").write_text("")
        expect(page.locator("#learn-part-message")).to_contain_text("ya se puede enseñar", timeout=20000)
        expect(page.locator("#learn-part-lines")).to_contain_text("Successfully installed")
        assert page.evaluate("document.documentElement.scrollWidth") <= 800
    finally:
        server.shutdown()
        app.extensions["cacho.camera"].close()
        sys.path.remove(str(module.parent))
        sys.modules.pop("cacho_parte_falsa", None)
