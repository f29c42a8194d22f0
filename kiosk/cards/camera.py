"""The camera's card reader behind the kiosk's `CardReader` protocol: every card the vision reader reads on the
still, given the seat it lies in front of.

Seats are told by direction from the photo's centre (the camera hangs over the middle of the table): seat 0 at the
bottom of the photo, the next ones clockwise as the photo shows them, evenly spaced (`vision.cards.synth.seat_angle`,
as the demo's photos are laid). A card near the middle (the stock, the discard pile) is no seat's. A card the reader
is not sure of, or reads face down, comes doubtful, with its reasons.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiosk.cards.reader import SeenCard

if TYPE_CHECKING:
    from vision.cards.reader import CardRead, CardReader

MIDDLE = 0.45  # a card this close to the centre (as a share of the way to the seats' ring) is no seat's
RING = (0.33, 0.31)  # the seats' ring round the centre, as shares of the photo's width and height


def seat_of(card: CardRead, size: tuple[int, int], seats: int) -> int | None:
    """The seat a card lies in front of, of `seats` spaced evenly round the photo's centre, or None (the middle)."""
    from vision.cards.synth import seat_angle

    width, height = size
    cx, cy = card.box.center
    dx, dy = (cx - width / 2) / (RING[0] * width), (cy - height / 2) / (RING[1] * height)
    if math.hypot(dx, dy) < MIDDLE or seats < 1:
        return None
    angle = math.atan2(dy * RING[1] * height, dx * RING[0] * width)

    def off(seat: int) -> float:
        return abs((angle - seat_angle(seat, seats) + math.pi) % (2 * math.pi) - math.pi)

    return min(range(seats), key=off)


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
    )


class CameraCardReader:
    """Reads the cards on the camera's still with the committed card models (loaded at the first reading)."""

    def __init__(self, models: Path | None = None) -> None:
        self.models = models
        self._reader: CardReader | None = None
        self._lock = threading.Lock()

    def _loaded(self) -> CardReader:
        with self._lock:
            if self._reader is None:
                from vision.cards.reader import MODELS, CardReader

                self._reader = CardReader(self.models or MODELS)
            return self._reader

    def read_cards(self, frame: Any, seats: Sequence[int], players: int = 4) -> list[SeenCard]:
        """The cards in front of the seats asked for (of `players` round the table), top to bottom."""
        if frame is None:
            return []
        reading = self._loaded().read(frame)
        out = []
        for card in reading.cards:
            seat = seat_of(card, reading.size, players)
            if seat is not None and seat in seats:
                out.append(seen(card, seat))
        return out
