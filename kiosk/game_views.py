"""What every game's blueprint serves alike: its tables loaded, changed and drawn, and the routes written once.

A game's blueprint makes one `GameViews` from its desk module's functions and its `state_of`, then
`add_routes` adds state.json, the photos, the export, the import and the undo under the blueprint's own names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from flask import Blueprint, jsonify, render_template, url_for

from kiosk import web
from kiosk.auth import coordinator_required, page_view
from kiosk.dice import CorrectionError
from kiosk.store import Store
from kiosk.tables import Loaded, table_lock
from kiosk.web import json_body, json_seq, publish, refuse, store

D = TypeVar("D", bound=Loaded)


@dataclass(frozen=True)
class GameViews(Generic[D]):
    """One game's tables as its blueprint serves them, by the game's own load, act and state_of."""

    game: str
    load: Callable[[Store, int], D]
    act: Callable[[Store, int, Any, int | None, Mapping[str, object] | None], D]
    state_of: Callable[[D, str], dict[str, Any]]

    def load_or_404(self, table_id: int) -> D:
        """The table, or 404 (also for another game's table)."""
        web.game_or_404(table_id, self.game)
        return self.load(store(), table_id)

    def apply(self, table_id: int, event: Any, seq: int | None, meta: Mapping[str, object] | None = None) -> Any:
        """Check and log the event: the coordinator's state after it, or the refusal (a rule, or a stale page)."""
        return web.answer(table_id, lambda: self.act(store(), table_id, event, seq, meta), self.state_of)

    def redrawn(self, table_id: int) -> Any:
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

    def corrected(
        self,
        table_id: int,
        seq: int,
        current: Callable[[], dict[str, Any] | None],
        fix: Callable[[dict[str, Any]], dict[str, Any]],
        nothing: str,
    ) -> Any:
        """Correct the reading awaiting confirmation by `fix` (CorrectionError: 400) and keep it; 409 `nothing`
        when there is none. One at a time with a camera reading that ends now."""
        with table_lock(table_id):
            reading = current()
            if reading is None:
                return refuse(nothing, 409)
            try:
                reading = fix(reading)
            except CorrectionError as error:
                return refuse(str(error), 400)
            web.save_correction(table_id, seq, reading)
        return self.redrawn(table_id)

    def keep_reading(self, table_id: int, seq: int, data: dict[str, Any]) -> None:
        """Keep a reading made in the background if the table is still at event `seq` and the reading it started
        is still under way (dice entered by hand meanwhile are never overwritten); tell the table's pages."""
        with table_lock(table_id):
            current = store().pending(table_id)
            under_way = current is not None and current[1].get("state") == "reading"
            if self.load(store(), table_id).seq == seq and under_way:
                store().set_pending(table_id, seq, data)
        publish(table_id)

    def page(self, template: str, table_id: int, **extra: Any) -> str:
        """A page of the table (`GAME/TEMPLATE.html`) with the game, its id and its name."""
        name = store().table(table_id).name
        return render_template(f"{self.game}/{template}.html", game=self.game, table_id=table_id, name=name, **extra)

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
