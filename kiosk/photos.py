"""The photos of a table's readings: kept while a stored event or the reading awaiting confirmation names them.

A reading's photo is written before the event that confirms it names it (store.write_durably); a reading replaced
by a new read, by dice entered by hand, or discarded (cancelled, undone, made stale by the next event) drops its
photo, unless an event names it. At start-up the photos nothing names (a crash between a read and its
confirmation) are swept. Every drop holds the table's lock, as every change of the log or of the pending reading does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from flask import current_app, has_app_context

from kiosk import learned
from kiosk.store import Store

RAW = "-crudo"  # a reading's photo as the camera took it, beside the annotated one: "ID/NAME-crudo.jpg"


def raw_name(photo: str) -> str:
    """The name of the photo as taken beside an annotated one ("ID/NAME.jpg" -> "ID/NAME-crudo.jpg")."""
    path = Path(photo)
    return str(path.with_name(f"{path.stem}{RAW}{path.suffix}"))


def named(store: Store, table_id: int) -> set[str]:
    """The photos ("ID/NAME") the table's stored events and its reading awaiting confirmation name."""
    names: set[str] = set()
    for line in store.lines(table_id):
        photo = json.loads(line).get("photo")
        if isinstance(photo, str):
            names.add(photo)
    found = store.pending(table_id)
    if found is not None and isinstance(found[1].get("photo"), str):
        names.add(str(found[1]["photo"]))
    return names


def drop(store: Store, table_id: int, reading: Mapping[str, object] | None) -> None:
    """Delete the photo of a reading that was replaced or discarded, unless an event or the pending reading names
    it (hold the table's lock)."""
    photo = None if reading is None else reading.get("photo")
    if not isinstance(photo, str) or not photo or not has_app_context():
        return
    if photo in named(store, table_id):
        return
    folder = Path(current_app.config["PHOTOS"]) / str(table_id)
    path = folder / Path(photo).name
    if photo == f"{table_id}/{path.name}":
        path.unlink(missing_ok=True)
        (folder / Path(raw_name(photo)).name).unlink(missing_ok=True)
    for kept in ("LEARNED", "CARD_LEARNED"):  # the dice's kept frames, the cards'
        learned.forget(Path(current_app.config[kept]), reading)


def missing(table_id: int, line: str) -> bool:
    """The event line names a photo of the table that is not on disk (its reading was dropped meanwhile)."""
    photo = json.loads(line).get("photo")
    if not isinstance(photo, str) or not photo or not has_app_context():
        return False
    return not (Path(current_app.config["PHOTOS"]) / str(table_id) / Path(photo).name).is_file()


def sweep(store: Store, photos: Path) -> None:
    """At start-up: delete each table's photos (and half-written files) that nothing names."""
    if not photos.is_dir():
        return
    tables = {row.id for row in store.tables()}
    for folder in photos.iterdir():
        if not folder.is_dir() or not folder.name.isdigit() or int(folder.name) not in tables:
            continue
        table_id = int(folder.name)
        keep = named(store, table_id)
        keep |= {raw_name(photo) for photo in keep}  # a photo as taken goes with its annotated one
        for path in folder.iterdir():
            if path.is_file() and f"{table_id}/{path.name}" not in keep:
                path.unlink(missing_ok=True)


RULED = "-fallo"  # the ruling's photo: the reading's photo as taken, with the dice as confirmed


def confirmed_photo(table_id: int, reading: Mapping[str, object], dice: Sequence[Mapping[str, object]]) -> str | None:
    """Draw the dice as confirmed (final faces, removed dice gone, no doubt) on the reading's photo as taken and
    keep it beside it ("ID/NAME-fallo.jpg"): the photo the ruling names; None where there is no photo as taken."""
    import cv2
    import numpy as np

    from kiosk.camera import encode_jpeg
    from kiosk.store import write_durably
    from vision.annotate import annotate_confirmed
    from vision.types import Box

    photo = reading.get("photo")
    if not isinstance(photo, str) or not photo or not has_app_context():
        return None
    folder = Path(current_app.config["PHOTOS"])
    frame = cv2.imread(str(folder / raw_name(photo)), cv2.IMREAD_COLOR)
    if frame is None:
        return None
    drawn = []
    for d in dice:
        box, face = d.get("box"), d.get("face")
        if isinstance(box, list) and len(box) == 4 and isinstance(face, int):
            drawn.append((Box(*(float(v) for v in box)), face))
    path = Path(photo)
    ruled = str(path.with_name(f"{path.stem}{RULED}{path.suffix}"))
    try:
        write_durably(folder / ruled, encode_jpeg(annotate_confirmed(np.asarray(frame, np.uint8), drawn)))
    except OSError:  # a full disk: the ruling names the reading's photo, as read
        return None
    return ruled


def discard(table_id: int, photo: str) -> None:
    """Delete a photo written for a ruling that was refused (hold the table's lock)."""
    if has_app_context() and photo.startswith(f"{table_id}/"):
        (Path(current_app.config["PHOTOS"]) / photo).unlink(missing_ok=True)
