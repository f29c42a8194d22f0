"""Shared helpers for the card-game tests."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from engines.cards.deck import Card, parse_cards
from engines.cards.errors import CardRuleError
from tests.refusals import assert_reason, refusal

__all__ = ["assert_reason", "cards", "refusal", "refused", "run"]


def cards(text: str) -> tuple[Card, ...]:
    """Cards from the notation, e.g. cards("AS 10H QC")."""
    return parse_cards(text)


def run(state: Any, actions: Iterable[Any]) -> Any:
    """Apply actions in order and return the final state."""
    for action in actions:
        state = state.apply(action)
    return state


def refused(state: Any, action: Any, error_type: type[CardRuleError], section: str, reason: str) -> CardRuleError:
    """`action` is refused alike by check and by apply (as `refusal` says), and `state` is left unchanged."""
    before = copy.deepcopy(state)
    with refusal(error_type, section, reason) as caught:
        state.check(action)
    with refusal(error_type, section, reason) as again:
        state.apply(action)
    assert again.value.message == caught.value.message
    assert state == before
    error: CardRuleError = caught.value
    return error
