"""The demo camera: rendered photos of the demo table's lifted cups, one folder per showing, played as if live; and
the card tables' cards, rendered when a demo reading asks for them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from hardware.camera import PREVIEW_WIDTH, BaseCamera, CameraError, Frame, downscale
from hardware.replay import ReplayCamera

PHOTOS = Path(__file__).parent / "fotos"
ROLLS = Path(__file__).parent / "bolivia_fotos"  # the Bolivian demo game's rolls (kiosk.bolivia.demo)


class DemoCamera(BaseCamera):
    """Plays `fotos/NN/` (a hand leaving, then the still table); `cue(n)` switches to the n-th showing.

    When a folder's frames are over it keeps showing the last one, as a table left alone would.
    """

    def __init__(self, root: Path = PHOTOS, fps: float = 8.0, rolls: Path = ROLLS) -> None:
        super().__init__()
        self.spec = "demo"
        self.root = root
        self.rolls = rolls
        self.fps = fps
        self._folders: list[Path] = []
        self._showing: int | None = None
        self._replay: ReplayCamera | None = None
        self._held: Frame | None = None
        self._ended = False

    def _open(self) -> None:
        if not self.root.is_dir():
            raise CameraError(f"no están las fotos de la demostración en {self.root}")
        self._folders = sorted(p for p in self.root.iterdir() if p.is_dir())
        if not self._folders:
            raise CameraError(f"no hay fotos de la demostración en {self.root}")
        self._play(0)
        self._showing = None  # the first cue plays its showing from the hand on

    def _play(self, number: int) -> None:
        if self._replay is not None:
            self._replay.close()
        folder = self._folders[number % len(self._folders)]
        self._replay = ReplayCamera(folder, fps=self.fps)
        self._replay.start()
        self.hfov_deg = _rendered_hfov(folder)
        self._held = None
        self._ended = False
        self._showing = number

    def cue(self, number: int) -> None:
        """Play the photos of the `number`-th showing of the cups (0-based; the folders repeat); the showing on
        already stays as it is, as a table read again is left alone."""
        if self._folders and number != self._showing:
            self._play(number)

    def cue_roll(self, number: int) -> None:
        """Show the `number`-th roll of the Bolivian demo game (0-based; the rolls repeat), still, in the tray."""
        import cv2
        import numpy as np

        from kiosk.bolivia.demo import photos

        try:
            shown = photos(self.rolls)
        except (OSError, ValueError, KeyError) as error:
            raise CameraError(f"no están las tiradas de la demostración en {self.rolls}: {error}") from None
        if not shown:
            raise CameraError(f"no hay tiradas de la demostración en {self.rolls}")
        frame = cv2.imread(shown[number % len(shown)]["path"])
        if frame is None:
            raise CameraError(f"no se pudo leer la tirada de la demostración {shown[number % len(shown)]['file']}")
        self._held, self._ended = np.asarray(frame, np.uint8), True  # a roll at rest: the same frame until the next cue
        self._showing = None  # the next cups' showing plays from the hand on
        self.hfov_deg = None

    def lay_cards(self, game: str, laid: Sequence[Sequence[tuple[str, bool]]], seed: int) -> None:
        """Show a still of a card table with `laid` in front of each seat (vision.cards.synth), until the next cue."""
        import numpy as np

        from vision.cards.synth import STILL, render

        self._held = np.asarray(render(seed, game, STILL, negative=0.0, laid=laid).image, np.uint8)
        self._ended = True
        self._showing = None  # the next cups' showing plays from the hand on
        self.hfov_deg = None

    def _full(self) -> Frame:
        assert self._replay is not None
        if self._ended:
            assert self._held is not None
            return self._held
        try:
            self._held = self._replay.capture()
        except CameraError:
            # The showing is over: the still table stays, as the folder's last frame.
            self._held = self._replay.last_frame()
            self._ended = True
        return self._held

    def _preview(self) -> Frame:
        return downscale(self._full(), PREVIEW_WIDTH)

    def _capture(self) -> Frame:
        return self._full().copy()

    def _release(self) -> None:
        if self._replay is not None:
            self._replay.close()
            self._replay = None


def _rendered_hfov(folder: Path) -> float | None:
    """The lens the showing was rendered with (its scene.json), as a real camera would know its own."""
    try:
        value = json.loads((folder / "scene.json").read_text(encoding="utf-8"))["meta"]["camera"]["hfov_deg"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return float(value) if isinstance(value, int | float) else None
