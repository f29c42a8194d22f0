"""A reading drawn on its frame: as read (doubtful dice orange, "?"), and as confirmed (every die sure, its face)."""

from __future__ import annotations

import numpy as np

from vision.annotate import DOUBTFUL, SURE, annotate, annotate_confirmed
from vision.types import Box, DieReading, FrameReading

BOX = Box(40, 60, 80, 100)


def test_a_confirmed_die_is_drawn_sure_where_the_reading_doubted_it() -> None:
    frame = np.zeros((200, 200, 3), np.uint8)
    doubted = annotate(frame, FrameReading(200, 200, (DieReading(3, 0.6, BOX, True, ("dudoso",)),)))
    confirmed = annotate_confirmed(frame, [(BOX, 5)])
    assert tuple(doubted[100, 60]) == DOUBTFUL and tuple(confirmed[100, 60]) == SURE  # the box's bottom edge
    assert not frame.any()  # drawn on copies
    assert not annotate_confirmed(frame, []).any()  # a die removed is not drawn
