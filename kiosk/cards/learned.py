"""The cards the coordinator confirmed, kept as labelled corner indices that teach the reader the table's own deck.

As the dice are (kiosk.learned): a camera reading of cards keeps its frame (pendientes/) until it is confirmed or
dropped, and a confirmed reading becomes a sample that `cacho cards adapt` learns from: images/NAME.jpg and
labels/NAME.txt, one line per corner index the reader found of each card the coordinator confirmed as read (`class
cx cy w h`, normalised; the class is the card's place among the 52 codes, vision.cards.notation). A card corrected
to another card, one face down and one tapped in keep no corner: the boxes the reader found may not be that card's (a
chip's print, a neighbour's corner), and a wrong label would teach the reader a wrong card. The photo is kept within
MARGIN index sides of each corner, the rest painted with the felt's colour.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
from flask.typing import ResponseReturnValue

from kiosk import learned
from kiosk.records import JsonDict
from vision.cards.notation import CLASS_OF

if TYPE_CHECKING:
    from kiosk.game_views import Reading
    from vision.types import Frame

FOLDER = "cartas-aprendidas"  # beside the database
MARGIN = 2.0  # index sides of the photo kept around each corner (the index classifiers read 1.3 of them)


def folder(data_dir: Path | str) -> Path:
    """The labelled corners' folder in the kiosk's data folder."""
    return Path(data_dir) / FOLDER


def keep_frame(root: Path, owner: str, data: Reading, frame: Frame | None) -> None:
    """Keep the frame a ready camera reading of cards was read from (data["learn"] names it)."""
    learned.keep(root, owner, data, frame)


def entries(data: Mapping[str, Any]) -> list[JsonDict]:
    """Every card of a reading: each seat's hand (`cards`), or each seat's one card of a trick."""
    out: list[JsonDict] = []
    for seat in data.get("seats") or []:
        hand = seat.get("cards")
        out.extend(hand if isinstance(hand, list) else [seat])
    return out


def labelled(data: Mapping[str, Any]) -> list[tuple[int, list[float]]]:
    """(class, box) of each corner index the reader found of each card confirmed as read, face up."""
    out = []
    for entry in entries(data):
        card = entry.get("card")
        if entry.get("down") or not isinstance(card, str) or card not in CLASS_OF:
            continue
        if entry.get("corrected") and entry.get("read") != card:
            continue
        for box in entry.get("indices") or []:
            if isinstance(box, list | tuple) and len(box) == 4 and all(isinstance(v, int | float) for v in box):
                out.append((CLASS_OF[card], [float(v) for v in box]))
    return out


def write_sample(root: Path, data: Mapping[str, Any]) -> str | None:
    """Write the confirmed reading's corners as a sample (label first, then image, both durably); its name, or None
    when the reading kept no frame or has no card confirmed as read with its corners."""
    name = learned.frame_name(data)
    if name is None or not (root / learned.PENDING / name).is_file():
        return None
    corners = labelled(data)
    frame = cv2.imread(str(root / learned.PENDING / name), cv2.IMREAD_COLOR) if corners else None
    if frame is None:
        return None
    sx, sy = learned.scale(data, frame)
    corners = [(cls, [box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy]) for cls, box in corners]
    felt = learned.felt_of(frame)
    kept = learned.kept_near(frame, [box for _, box in corners], felt, MARGIN)
    image, corners = learned.cropped(kept, corners, MARGIN)
    return learned.write_labelled(root, name, image, corners) if corners else None


def confirming(root: Path, reading: Reading, change: Callable[[], ResponseReturnValue]) -> ResponseReturnValue:
    """Confirm a card reading by `change` (the event logged, or its refusal): its corners written as a sample first,
    taken back when it is refused (kiosk.learned.confirming)."""
    return learned.confirming(root, write_sample, reading, change)
