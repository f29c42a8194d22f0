"""Shared helpers for the card-game tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engines.cards.deck import Card, parse_cards


def cards(text: str) -> tuple[Card, ...]:
    """Cards from the notation, e.g. cards("AS 10H QC")."""
    return parse_cards(text)


def run(state: Any, actions: Iterable[Any]) -> Any:
    """Apply actions in order and return the final state."""
    for action in actions:
        state = state.apply(action)
    return state
