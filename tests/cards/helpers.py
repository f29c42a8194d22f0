"""Shared helpers for the card-game tests."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from engines.cards.deck import Card, parse_cards
from engines.cards.errors import CardRuleError


def cards(text: str) -> tuple[Card, ...]:
    """Cards from the notation, e.g. cards("AS 10H QC")."""
    return parse_cards(text)


def run(state: Any, actions: Iterable[Any]) -> Any:
    """Apply actions in order and return the final state."""
    for action in actions:
        state = state.apply(action)
    return state


def assert_reason(error: CardRuleError, error_type: type[CardRuleError], section: str, reason: str) -> None:
    """`error` is the game's own `error_type`, cites the seed's `section` and says why: its message matches `reason`."""
    assert type(error) is error_type, (type(error), error)
    assert error.article == section, error
    assert re.search(reason, error.message), (reason, error.message)


@contextmanager
def refusal(
    error_type: type[CardRuleError], section: str, reason: str
) -> Iterator[pytest.ExceptionInfo[CardRuleError]]:
    """The block must raise `error_type` citing `section`, with a message matching `reason` (a regex)."""
    with pytest.raises(error_type) as caught:
        yield caught
    assert_reason(caught.value, error_type, section, reason)


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
