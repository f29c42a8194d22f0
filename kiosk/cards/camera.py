"""The camera's card reader behind the kiosk's `CardReader` protocol: every card the vision reader reads on the
still, given the seat it lies in front of.

Seats are told by the seat markers, as for the dice, when every player's marker is on the photo: a card is its
nearest marker's player's (the table config's players by name, else the players in order on the markers' seats,
`vision.seats.seat_players`). Otherwise by direction from the photo's centre (the camera hangs over the middle of the
table): seat 0 at the bottom of the photo, the next ones clockwise as the photo shows them, evenly spaced
(`vision.cards.synth.seat_angle`, as the demo's photos are laid). Either way a card near the middle (the stock, the
discard pile) is no seat's. A card the reader is not sure of, or reads face down, comes doubtful, with its reasons.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from kiosk.cards.reader import SeenCard

if TYPE_CHECKING:
    from vision.cards.reader import CardRead, CardReader
    from vision.seats import TableConfig
    from vision.types import Frame

MIDDLE = 0.45  # a card this close to the centre (as a share of the way to the seats' ring) is no seat's
RING = (0.33, 0.31)  # the seats' ring round the centre, as shares of the photo's width and height
Point = tuple[float, float]


def seat_of(card: CardRead, size: tuple[int, int], seats: int) -> int | None:
    """The seat a card lies in front of, of `seats` spaced evenly round the photo's centre, or None (the middle)."""
    from vision.cards.synth import seat_angle

    width, height = size
    cx, cy = card.box.center
    dx, dy = (cx - width / 2) / (RING[0] * width), (cy - height / 2) / (RING[1] * height)
    if math.hypot(dx, dy) < MIDDLE or seats < 1:
        return None
    angle = math.atan2(cy - height / 2, cx - width / 2)

    def off(seat: int) -> float:
        return abs((angle - seat_angle(seat, seats) + math.pi) % (2 * math.pi) - math.pi)

    return min(range(seats), key=off)


def marker_anchors(frame: Frame, players: Sequence[str], config: TableConfig) -> dict[int, Point] | None:
    """Each player's seat marker centre on the frame (by game seat), or None when any player's marker is not seen."""
    from vision.seats import find_markers, seat_players

    markers, _ = find_markers(frame)
    centres = {m.seat: m.center for m in markers}
    if not config.seats and not config.players:
        config = replace(config, seats=tuple(sorted(centres)))
    seat_of_name = {name: seat for seat, name in seat_players(players, config).items()}
    anchors = {k: centres.get(seat_of_name.get(name, -1)) for k, name in enumerate(players)}
    if not players or any(anchor is None for anchor in anchors.values()):
        return None
    return {k: anchor for k, anchor in anchors.items() if anchor is not None}


def seat_by_markers(card: CardRead, anchors: dict[int, Point]) -> int | None:
    """The seat whose marker is nearest the card, or None for a card in the middle of the markers' ring."""
    cx, cy = card.box.center
    mx = sum(x for x, _ in anchors.values()) / len(anchors)
    my = sum(y for _, y in anchors.values()) / len(anchors)
    ring = sum(math.dist((x, y), (mx, my)) for x, y in anchors.values()) / len(anchors)
    if len(anchors) > 1 and math.dist((cx, cy), (mx, my)) < MIDDLE * ring:
        return None
    return min(anchors, key=lambda k: math.dist(anchors[k], (cx, cy)))


def seen(card: CardRead, seat: int) -> SeenCard:
    """A card read, as the kiosk's readings take it: doubtful when the reader is unsure or it lies face down."""
    reasons = card.reasons if not card.face_down else ("boca abajo: tóquela en el selector",)
    doubted = card.uncertain or card.face_down
    return SeenCard(
        seat,
        card.card,
        card.face_down,
        card.confidence,
        doubted,
        reasons,
        (card.box.x1, card.box.y1, card.box.x2, card.box.y2),
        tuple((b.x1, b.y1, b.x2, b.y2) for b in card.indices),
    )


class CameraCardReader:
    """Reads the cards on the camera's still with the committed card models (loaded at the first reading)."""

    def __init__(self, models: Path | None = None, table_config: Path | None = None) -> None:
        self.models = models  # a models folder whose cards/ it reads with (None: the project's models/)
        self.table_config = table_config  # the table's seats and players (the markers'), read at each reading
        self._reader: CardReader | None = None
        self._lock = threading.Lock()

    def _loaded(self) -> CardReader:
        with self._lock:
            if self._reader is None:
                from vision.cards.reader import MODELS, CardReader

                self._reader = CardReader(self.models / "cards" if self.models else MODELS)
            return self._reader

    @property
    def models_name(self) -> str:
        """The models folder it reads with, as a reading's log line names it: `stock`, or the folder's name."""
        return self.models.name if self.models else "stock"

    def _config(self) -> TableConfig:
        from vision.seats import ConfigError, TableConfig, load_table_config

        try:
            path = self.table_config
            return load_table_config(path) if path is not None and path.exists() else TableConfig()
        except ConfigError:
            return TableConfig()  # the dice's screens say what is wrong with it; the cards go by direction

    def read_cards(self, frame: Frame | None, seats: Sequence[int], players: Sequence[str]) -> list[SeenCard]:
        """The cards in front of the seats asked for (of the `players` round the table), top to bottom."""
        if frame is None:
            return []
        reading = self._loaded().read(frame)
        anchors = marker_anchors(frame, players, self._config())
        out = []
        for card in reading.cards:
            seat = seat_by_markers(card, anchors) if anchors else seat_of(card, reading.size, len(players))
            if seat is not None and seat in seats:
                out.append(seen(card, seat))
        return out
