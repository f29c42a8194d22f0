"""Cacheta (seed 003): melds with trumps, knocking with nine or ten cards, the good one, points and VP/GP."""

from __future__ import annotations

from .game import (
    CUT,
    GAME,
    HAND_SIZE,
    KNOCK,
    Action,
    CachetaError,
    CachetaGame,
    CachetaOptions,
    Cut,
    Deal,
    GoodOne,
    Knock,
)
from .tournament import game_points, victory_points

__all__ = [
    "CUT",
    "GAME",
    "HAND_SIZE",
    "KNOCK",
    "Action",
    "CachetaError",
    "CachetaGame",
    "CachetaOptions",
    "Cut",
    "Deal",
    "GoodOne",
    "Knock",
    "game_points",
    "victory_points",
]
