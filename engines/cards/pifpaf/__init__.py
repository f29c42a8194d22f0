"""Pif Paf (seed 001): ante, one betting round, draw and discard until someone goes out with nine melded cards."""

from __future__ import annotations

from .evening import PifPafEvening, StartHand
from .game import (
    BET_CAPS,
    HAND_SIZE,
    PLAY,
    Action,
    Call,
    Claim,
    Deal,
    Fold,
    GoOut,
    PifPafError,
    PifPafHand,
    PifPafOptions,
    Raise,
)

__all__ = [
    "BET_CAPS",
    "HAND_SIZE",
    "PLAY",
    "Action",
    "Call",
    "Claim",
    "Deal",
    "Fold",
    "GoOut",
    "PifPafError",
    "PifPafEvening",
    "PifPafHand",
    "PifPafOptions",
    "Raise",
    "StartHand",
]
