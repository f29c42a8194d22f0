"""What every game's blueprint serves alike: its tables loaded, changed and drawn, the reading flow, and the routes
written once.

A game's blueprint makes one `GameViews` from its desk module's functions, its `state_of` and its current reading,
then `add_routes` adds state.json, the photos, the export, the import and the undo under the blueprint's own names.

The reading flow is the same for every game, each reading its own way (a `Look`): `read` starts a camera reading in
the background (capture when the table is still, read, store the annotated photo, carry the corrections over, keep
it and tell the table's pages); `by_hand` puts dice entered by hand in its place and `corrected` corrects one die,
both under the table's lock, one at a time with a camera reading that ends.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from flask import Blueprint, Response, current_app, jsonify, render_template, url_for
from flask.typing import ResponseReturnValue

from kiosk import learned, photos, teach, web
from kiosk.auth import coordinator_required, page_view
from kiosk.camera import encode_jpeg
from kiosk.dice import CorrectionError
from kiosk.records import GameReading
from kiosk.store import Store
from kiosk.tables import Loaded, table_lock
from kiosk.web import json_body, json_seq, publish, refuse, store

Reading = dict[str, Any]  # a reading as a plain JSON object (a game whose reading kiosk.records does not type)
Refusal = tuple[Response, int]


class Desk(Loaded, Protocol):
    """A game's table as loaded, with its id."""

    @property
    def table_id(self) -> int:
        """The table's id."""
        ...


D = TypeVar("D", bound=Desk)
# A reading awaiting confirmation, as the game's reading module writes it: typed (kiosk.records) or plain JSON.
R = TypeVar("R", bound=Reading | GameReading)


class Look(Protocol[R]):
    """How a game reads its table with the camera: one for each reading."""

    @property
    def waiting(self) -> str:
        """What the pages say while the reading waits for the table to be still."""
        ...

    def empty(self, state: str, message: str) -> R:
        """A reading with no dice yet: under way ("reading") or "failed", and why."""
        ...

    def capture(self) -> Any:
        """The still capture (vision.still.StillCapture), taken once the table is still."""
        ...

    def read(self, capture: Any, keep_photo: Callable[[Any], str]) -> R:
        """The reading of a capture with a frame and its reading; `keep_photo` stores the annotated photo (a BGR
        image) and gives its stored name."""
        ...

    def carry(self, old: R, new: R) -> R:
        """The new reading with the corrections made to `old`, the ready reading it replaces, still applied."""
        ...


def learned_root() -> Path:
    """The folder of the labelled dice (kiosk.learned)."""
    return Path(current_app.config["LEARNED"])


def photo_name(seq: int, at: float) -> str:
    """The file name of a reading's photo: the event the table was at, then the time in milliseconds (two readings
    in the same second keep two photos)."""
    return f"{seq:04d}-{int(at * 1000)}.jpg"


@dataclass(frozen=True)
class GameViews(Generic[D, R]):
    """One game's tables as its blueprint serves them, by the game's own load, act, state_of and current reading."""

    game: str
    load: Callable[[Store, int], D]
    act: Callable[[Store, int, Any, int | None, Mapping[str, object] | None], D]
    state_of: Callable[[D, str], dict[str, Any]]
    current: Callable[[D], R | None]  # the reading awaiting confirmation, if it is for the table as it stands

    def load_or_404(self, table_id: int) -> D:
        """The table, or 404 (also for another game's table)."""
        web.game_or_404(table_id, self.game)
        return self.load(store(), table_id)

    def apply(
        self, table_id: int, event: Any, seq: int | None, meta: Mapping[str, object] | None = None
    ) -> ResponseReturnValue:
        """Check and log the event: the coordinator's state after it, or the refusal (a rule, or a stale page)."""
        return web.answer(table_id, lambda: self.act(store(), table_id, event, seq, meta), self.state_of)

    def redrawn(self, table_id: int) -> ResponseReturnValue:
        """Tell the table's pages that it changed; the coordinator's state."""
        publish(table_id)
        return jsonify(self.coordinator_state(table_id))

    def coordinator_state(self, table_id: int) -> dict[str, Any]:
        """The coordinator's state of the table as stored now."""
        return self.state_of(self.load(store(), table_id), "coordinator")

    def photo_url(self, table_id: int, photo: object) -> str | None:
        """The URL of a stored photo ("ID/NAME.jpg"), or None."""
        if not isinstance(photo, str) or not photo:
            return None
        return url_for(f"{self.game}.photo", table_id=table_id, name=Path(photo).name)

    def page(self, template: str, table_id: int, **extra: Any) -> str:
        """A page of the table (`GAME/TEMPLATE.html`) with the game, its id and its name."""
        name = store().table(table_id).name
        return render_template(f"{self.game}/{template}.html", game=self.game, table_id=table_id, name=name, **extra)

    # ------------------------------------------------------------------ the reading flow

    def read(self, desk: D, look: Look[R], refused: Refusal | None = None) -> ResponseReturnValue:
        """The camera reads the table in the background: 202 with the coordinator's state, or the refusal (the
        game's `refused`, no camera, a reading already under way)."""
        refused = refused or web.camera_refusal() or self.start_reading(desk, look)
        if refused is not None:
            return refused
        return jsonify(self.coordinator_state(desk.table_id)), 202

    def start_reading(self, desk: D, look: Look[R]) -> Refusal | None:
        """Mark the reading as under way, tell the table's pages, and read on a thread (synchronously under
        READ_SYNC); the reading is kept if still wanted (`keep_reading`). 409 when one is under way already (checked
        and marked under the table's lock: two taps start one reading)."""
        with table_lock(desk.table_id):
            old = self.current(desk)
            if old is not None and old.get("state") == "reading":
                return refuse("ya se está leyendo la mesa: espere la lectura", 409)
            web.replace_pending(desk.table_id, desk.seq, look.empty("reading", look.waiting))
        publish(desk.table_id)

        def work() -> None:
            self.keep_reading(desk.table_id, desk.seq, self._camera_reading(desk, old, look))

        web.in_background(work, f"lectura-{self.game}-{desk.table_id}")
        return None

    def _camera_reading(self, desk: D, old: R | None, look: Look[R]) -> R:
        """Capture, read and store the photo; the corrections of the ready reading it replaces carried over. A failed
        reading when the camera, the frame or the table's seats cannot be used."""
        from hardware.camera import CameraError
        from vision.frames import FrameError
        from vision.seats import ConfigError

        def keep_photo(image: Any) -> str:
            return web.save_photo(desk.table_id, photo_name(desk.seq, time.time()), encode_jpeg(image))

        try:
            capture = look.capture()
            if capture.reading is None or capture.frame is None:
                return look.empty("failed", capture.message)
            data = look.read(capture, keep_photo)
            data["models"] = web.camera().last_models
            with contextlib.suppress(OSError):  # a full disk costs a labelled sample, never the reading
                learned.keep_frame(learned_root(), str(desk.table_id), data, capture.frame, capture.reading)
        except (CameraError, FrameError, ConfigError) as error:
            return look.empty("failed", f"no se pudo leer: {error}")
        if old is not None and old.get("state") == "ready":
            data = look.carry(old, data)
        return data

    def keep_reading(self, table_id: int, seq: int, data: R) -> None:
        """Keep a reading made in the background if the table is still at event `seq` and the reading it started
        is still under way (dice entered by hand meanwhile are never overwritten); tell the table's pages."""
        with table_lock(table_id):
            current = store().pending(table_id)
            under_way = current is not None and current[1].get("state") == "reading"
            if self.load(store(), table_id).seq == seq and under_way:
                store().set_pending(table_id, seq, data)
            else:
                photos.drop(store(), table_id, data)  # a reading no longer wanted keeps no photo
        publish(table_id)

    def confirming(self, table_id: int, reading: R, change: Callable[[], ResponseReturnValue]) -> ResponseReturnValue:
        """Confirm a reading by `change` (the event logged, or its refusal): the reading's dice are written as a
        labelled sample before the event (kiosk.learned), taken back when it is refused."""
        written: list[str | None] = []

        def write(root: Path, data: Mapping[str, Any]) -> str | None:
            # its evidence is written first: a linked table sends the two together (kiosk.championship.pool)
            written.append(learned.write_sample(root, data, lambda name: teach.write_sample_evidence(root, name, data)))
            return written[-1]

        answered = learned.confirming(learned_root(), write, reading, change)
        if not isinstance(answered, tuple):
            teach.add_evidence(reading, written[0] if written else None)
            teach.learn_when_due()  # the table goes back to play: a pause for the reader to learn its dice
        return answered

    def by_hand(self, desk: D, reading: R) -> ResponseReturnValue:
        """Dice entered by hand (`reading`) in place of any reading awaiting confirmation, one at a time with a camera
        reading that ends now; the coordinator's state."""
        with table_lock(desk.table_id):
            web.replace_pending(desk.table_id, desk.seq, reading)
        return self.redrawn(desk.table_id)

    def corrected(self, desk: D, fix: Callable[[R], R], nothing: str) -> ResponseReturnValue:
        """Correct the reading awaiting confirmation by `fix` (CorrectionError: 400) and keep it; 409 `nothing`
        when there is none. One at a time with a camera reading that ends now."""
        with table_lock(desk.table_id):
            reading = self.current(desk)
            if reading is None:
                return refuse(nothing, 409)
            try:
                reading = fix(reading)
            except CorrectionError as error:
                return refuse(str(error), 400)
            web.save_correction(desk.table_id, desk.seq, reading)
        return self.redrawn(desk.table_id)

    def add_routes(
        self,
        bp: Blueprint,
        *,
        undo: object,
        import_log: Callable[[Store, str, str], int],
        imported_name: str,
        export_name: Callable[[int], str],
    ) -> None:
        """Add the routes every game has: state.json, photo/NAME, export.jsonl, import and undo (the game's `undo`)."""

        def state(table_id: int) -> Any:
            """Everything a page draws; `?view=tv` for the spectators' (always so without the PIN)."""
            return jsonify(self.state_of(self.load_or_404(table_id), page_view()))

        def photo(table_id: int, name: str) -> Any:
            """A photo of the table's readings."""
            return web.send_photo(table_id, name)

        def export(table_id: int) -> Any:
            """The table's log as stored (JSON Lines; the game's `replay` command and the import read it)."""
            self.load_or_404(table_id)
            return web.export_log(table_id, export_name(table_id))

        def import_table() -> Any:
            """A table from a JSONL log (an exported one, or begun on paper); the whole log must replay, or none."""
            return web.import_log(import_log, imported_name, f"{bp.name}.table")

        def take_back(table_id: int) -> Any:
            """Take back the last action; the log records the undo (it never rewrites history)."""
            self.load_or_404(table_id)
            data = json_body()
            return self.apply(table_id, undo, json_seq(data), {"by": "coordinador"})

        bp.add_url_rule("/import", "import_log", coordinator_required(import_table), methods=["POST"])
        bp.add_url_rule("/<int:table_id>/state.json", "state", state)
        bp.add_url_rule("/<int:table_id>/photo/<name>", "photo", photo)
        bp.add_url_rule("/<int:table_id>/export.jsonl", "export", coordinator_required(export))
        bp.add_url_rule("/<int:table_id>/undo", "undo", coordinator_required(take_back), methods=["POST"])
