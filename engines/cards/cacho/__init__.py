"""Spanish Cacho, the 24-card betting game (seed 000): betting rounds, resto and showdown."""

from __future__ import annotations

from .evening import CachoEvening, StartHand, apply_event
from .game import ROUND_BETS, Action, Bet, CachoHand, CachoOptions, Call, Deal, Pass, Raise, Show
from .showdown import CATEGORY_IDS, CATEGORY_NAMES, HIGH_CARD_TIEBREAKS, CachoError, Category, evaluate, showdown

__all__ = [
    "CATEGORY_IDS",
    "CATEGORY_NAMES",
    "HIGH_CARD_TIEBREAKS",
    "ROUND_BETS",
    "Action",
    "Bet",
    "CachoError",
    "CachoEvening",
    "CachoHand",
    "CachoOptions",
    "Call",
    "Category",
    "Deal",
    "Pass",
    "Raise",
    "Show",
    "StartHand",
    "apply_event",
    "evaluate",
    "showdown",
]
