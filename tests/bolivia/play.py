"""Helpers that build Bolivian Cacho games for the tests: start a table, play a turn, fill a game."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engines.bolivia import (
    Action,
    BoliviaConfig,
    BoliviaGame,
    Category,
    Declare,
    Roll,
    RuleError,
    Score,
    SetAside,
    Start,
    Variant,
)
from tests.refusals import refusal

__all__ = ["dice_for", "fill", "refusal", "refused", "start", "turn"]


def start(*players: str, variant: Variant | None = None, config: BoliviaConfig | None = None) -> BoliviaGame:
    """A started game (Ana and Beto by default)."""
    names = players or ("Ana", "Beto")
    return BoliviaGame().apply(Start(names, variant or Variant(), config or BoliviaConfig()))


def turn(
    game: BoliviaGame,
    category: Category,
    *rolls: Sequence[int],
    aside: Sequence[Sequence[int]] = (),
) -> BoliviaGame:
    """The player on turn rolls, declares `category`, sets `aside[i]` before roll i+2, and scores."""
    assert game.attempt is not None
    player = game.attempt.player
    game = game.apply(Roll(player, tuple(rolls[0])))
    if not game.variant.generala:
        game = game.apply(Declare(player, category))
    for positions, dice in zip(aside, rolls[1:], strict=True):
        game = game.apply(SetAside(player, tuple(positions)))
        game = game.apply(Roll(player, tuple(dice)))
    return game.apply(Score(player, category if game.variant.generala else None))


def dice_for(category: Category) -> tuple[int, ...]:
    """A first roll that makes `category` (a grande made of 2s)."""
    face = category.face
    if face is not None:
        return (face, face, face, (face % 6) + 1, (face % 6) + 1)
    return {
        Category.ESCALERA: (1, 2, 3, 4, 5),
        Category.FULL: (3, 3, 3, 4, 4),
        Category.POKER: (5, 5, 5, 5, 1),
        Category.GRANDE: (2, 2, 2, 2, 2),
    }[category]


def fill(game: BoliviaGame, miss: bool = False) -> BoliviaGame:
    """Play every remaining turn in classic play: each player scores his first open category.

    Made on the first roll unless `miss` (then every middle category and the grande are crossed out).
    A grande is rolled after a re-roll so that no grande de mano ends the game.
    """
    while not game.over:
        assert game.attempt is not None
        category = game.side.hatches[0].open_categories()[0]
        dice = dice_for(category)
        if category is Category.GRANDE:
            game = turn(game, category, (2, 2, 2, 2, 3), dice, aside=[(1, 2, 3, 4)])
        elif miss and category.face is None:
            game = turn(game, category, (1, 1, 2, 2, 6))
        else:
            game = turn(game, category, dice)
    return game


def refused(game: BoliviaGame, action: Action) -> RuleError:
    """The RuleError `action` raises; check() and apply() agree and the state is untouched."""
    before = game
    with pytest.raises(RuleError) as error:
        game.check(action)
    with pytest.raises(RuleError) as again:
        game.apply(action)
    assert (again.value.article, again.value.message) == (error.value.article, error.value.message)
    assert game == before
    return error.value
