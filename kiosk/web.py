"""Shared by the kiosk's blueprints: the app's services, JSON bodies and refusals, live notices, photos and logs."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

from flask import Response, abort, current_app, jsonify, redirect, render_template, request, send_file, url_for
from flask.typing import ResponseReturnValue

from engines.errors import LogError, RuleError
from kiosk import photos
from kiosk.bus import Bus
from kiosk.camera import CameraService
from kiosk.i18n import t
from kiosk.sections import said, section
from kiosk.store import NotFound, StaleError, Store, write_durably

T = TypeVar("T")


def store() -> Store:
    """The app's store."""
    return cast(Store, current_app.extensions["cacho.store"])


def bus() -> Bus:
    """The app's live bus."""
    return cast(Bus, current_app.extensions["cacho.bus"])


def camera() -> CameraService:
    """The app's camera service."""
    return cast(CameraService, current_app.extensions["cacho.camera"])


def publish(table_id: int) -> None:
    """Tell every open page of the table that it changed."""
    bus().publish(f"table:{table_id}", {"table": table_id, "at": time.time()})


def game_or_404(table_id: int, game: str) -> None:
    """Abort with 404 unless the table exists and is one of `game`'s."""
    try:
        row = store().table(table_id)
    except NotFound:
        abort(404)
    if row.game != game:
        abort(404)


# ------------------------------------------------------------------ JSON requests and refusals


def refuse(message: str, status: int, article: str | None = None) -> tuple[Response, int]:
    """A refusal the page shows as it is: what is wrong (and the rule's article or section), nothing changed."""
    return jsonify(error=message, article=article), status


def rule_refusal(error: RuleError) -> tuple[Response, int]:
    """A rule's refusal: 409 with the rule's text ("art. 6: ..." in Dudo, the seed's section in Bolivian Cacho)."""
    return refuse(said(error), 409, section(error.article))


def refuse_json(message: str) -> Response:
    """A 400 response for a malformed request."""
    response = jsonify(error=message, article=None)
    response.status_code = 400
    return response


def json_body() -> dict[str, Any]:
    """The request's JSON object (400 when it is not one)."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        abort(refuse_json("se esperaba un objeto JSON"))
    return data


def json_seq(data: Mapping[str, Any]) -> int:
    """The number of events the page showed (`seq`), which every change carries; 400 when missing or not a number."""
    seq = data.get("seq")
    if seq is None:
        abort(refuse_json("falta 'seq', el número de eventos que mostraba la página: recargue la página"))
    if isinstance(seq, bool) or not isinstance(seq, int):
        abort(refuse_json("'seq' debe ser el número de eventos que mostraba la página"))
    return seq


def answer(table_id: int, change: Callable[[], T], state_of: Callable[[T, str], dict[str, Any]]) -> ResponseReturnValue:
    """Make a change and answer with the coordinator's state after it, or the refusal (a rule, or a stale page)."""
    try:
        after = change()
    except RuleError as error:
        return rule_refusal(error)
    except StaleError as error:
        return refuse(str(error), 409)
    publish(table_id)
    return jsonify(state_of(after, "coordinator"))


# ------------------------------------------------------------------ readings


def camera_refusal() -> tuple[Response, int] | None:
    """The refusal to read when the camera cannot (and why), or None."""
    cam = camera()
    if not cam.can_read:
        return refuse(f"{t('Sin cámara')}: {cam.health().message}. {t('Entrar a mano')}.", 409)
    return None


def pending_reading(table_id: int, seq: int) -> dict[str, Any] | None:
    """The reading awaiting confirmation, if it was taken after event `seq` (the table as it stands)."""
    found = store().pending(table_id)
    if found is None:
        return None
    taken, data = found
    return data if taken == seq else None


def replace_pending(table_id: int, seq: int, data: Mapping[str, object]) -> None:
    """Keep `data` as the reading awaiting confirmation; the photo of the one it replaces is dropped (hold the
    table's lock)."""
    found = store().pending(table_id)
    store().set_pending(table_id, seq, data)
    photos.drop(store(), table_id, None if found is None else found[1])


def discard_pending(table_id: int) -> None:
    """Drop the reading awaiting confirmation and its photo (hold the table's lock)."""
    found = store().pending(table_id)
    store().clear_pending(table_id)
    photos.drop(store(), table_id, None if found is None else found[1])


def save_correction(table_id: int, seq: int, reading: Mapping[str, Any]) -> None:
    """Keep the corrected reading and put its last correction in the audit trail (without the die's box)."""
    store().set_pending(table_id, seq, reading)
    last = reading["corrections"][-1]
    store().audit(table_id, "correction", {k: v for k, v in last.items() if k != "box"})


def in_background(work: Callable[[], None], name: str) -> None:
    """Run `work` in the app's context on a thread (and wait for it under READ_SYNC, as the tests do)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]

    def run() -> None:
        with app.app_context():
            work()

    thread = threading.Thread(target=run, name=name)
    thread.daemon = True
    thread.start()
    if current_app.config.get("READ_SYNC"):
        thread.join()


# ------------------------------------------------------------------ photos and logs


def save_photo(table_id: int, name: str, jpeg: bytes) -> str:
    """Write a table's photo durably; its stored name ("ID/NAME")."""
    write_durably(Path(current_app.config["PHOTOS"]) / str(table_id) / name, jpeg)
    return f"{table_id}/{name}"


def send_photo(table_id: int, name: str) -> Any:
    """A table's photo (404 for a name that is not a plain file name there)."""
    if "/" in name or "\\" in name or name.startswith("."):
        abort(404)
    path = Path(current_app.config["PHOTOS"]) / str(table_id) / name
    if not path.is_file():
        abort(404)
    return send_file(path, mimetype="image/jpeg", max_age=3600)


def export_log(table_id: int, filename: str) -> Response:
    """The table's log as stored, as a JSON Lines download."""
    text = "".join(line + "\n" for line in store().lines(table_id))
    return Response(
        text,
        mimetype="application/jsonl",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def import_log(importer: Callable[[Store, str, str], int], default_name: str, endpoint: str) -> Any:
    """A new table from the uploaded (or pasted) JSONL log: to its page, or the error page when it does not replay."""
    upload = request.files.get("log")
    text = upload.read().decode("utf-8", errors="replace") if upload is not None else request.form.get("text", "")
    name = request.form.get("name", "").strip() or default_name
    try:
        table_id = importer(store(), name, text)
    except LogError as error:
        return render_template("error.html", message=f"{t('Importar')}: {error.message}"), 400
    store().audit(table_id, "import", {"lines": len(store().lines(table_id))})
    return redirect(url_for(endpoint, table_id=table_id))
