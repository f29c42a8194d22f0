"""The legal-actions query shared by the card engines: the same checks as `check`, never a second copy."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from engines.cards.errors import CardRuleError

A = TypeVar("A")


@dataclass(frozen=True, slots=True)
class Legality:
    """Whether one action is allowed now and, if not, the article and the reason."""

    action: str
    allowed: bool
    article: str | None = None
    reason: str | None = None


def legality(check: Callable[[A], None], candidates: Sequence[tuple[str, A]]) -> list[Legality]:
    """Run `check` on each named candidate action and report what is allowed and why not."""
    out: list[Legality] = []
    for name, action in candidates:
        try:
            check(action)
        except CardRuleError as error:
            out.append(Legality(name, False, error.article, error.message))
        else:
            out.append(Legality(name, True))
    return out
