"""Property tests: a roll scores a category one way only; totals are the sum of cells; a game always ends."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.bolivia import (
    CATEGORIES,
    Action,
    AlcanceGrandes,
    BoliviaConfig,
    BoliviaGame,
    Category,
    Declare,
    GrandeDeMano,
    GrandeTardia,
    Hatch,
    Pick,
    Roll,
    Score,
    SetAside,
    Start,
    Variant,
    dumps,
    is_escalera,
    is_full,
    is_grande,
    is_poker,
    replay_lines,
    score,
)

NAMES = ("Ana", "Beto", "Caro", "Dani", "Eva", "Fede")
dice_st = st.lists(st.integers(1, 6), min_size=5, max_size=5).map(tuple)
configs = st.builds(
    BoliviaConfig,
    escalera_as_alto=st.booleans(),
    grande_como_poker=st.booleans(),
    grande_como_full=st.booleans(),
    alcance_grandes=st.sampled_from(AlcanceGrandes),
    grande_tardia=st.sampled_from(GrandeTardia),
    grande_de_mano=st.sampled_from(GrandeDeMano),
    grande_de_mano_tras_limite=st.booleans(),
    retomar_apartados=st.booleans(),
)
# Whole games are slow to play: fewer of them than the profile's examples, never more.
GAMES = settings(settings.default, max_examples=min(settings.default.max_examples, 40))

_VALUES = {Category.ESCALERA: (25, 20), Category.FULL: (35, 30), Category.POKER: (45, 40)}


@given(dice_st, st.sampled_from(CATEGORIES), st.integers(1, 3), configs, st.integers(0, 4))
def test_a_roll_scores_a_category_in_exactly_one_way(
    dice: tuple[int, ...], category: Category, roll: int, config: BoliviaConfig, grandes: int
) -> None:
    result = score(dice, category, roll, config, grandes)
    # The same dice in any order score the same.
    for order in (tuple(sorted(dice)), tuple(reversed(dice))):
        again = score(order, category, roll, config, grandes)
        assert (again.points, again.mark, again.made, again.instant_win) == (
            result.points,
            result.mark,
            result.made,
            result.instant_win,
        )
    assert result.made == (result.points > 0) == (result.mark != "X")
    face = category.face
    if face is not None:
        assert result.points == face * dice.count(face)
        assert result.mark == (str(result.points) if result.points else "X")
    elif category is Category.GRANDE:
        late = 5 * dice[0] if config.grande_tardia is GrandeTardia.SUMA else dice[0]
        assert result.points in ((50 if grandes < 2 else late) if is_grande(dice) else 0,)
        assert result.mark == ("$" if is_grande(dice) else "X")
    else:
        first, later = _VALUES[category]
        assert result.points in (0, first if roll == 1 else later)
        assert result.mark in ("X", "5" if roll == 1 else "O")
    assert result.instant_win == (
        category is Category.GRANDE
        and roll == 1
        and is_grande(dice)
        and (grandes < 2 or config.grande_de_mano_tras_limite)
    )


@given(dice_st)
def test_by_default_the_shapes_escalera_full_poker_grande_exclude_each_other(dice: tuple[int, ...]) -> None:
    exact = BoliviaConfig(grande_como_poker=False)
    shapes = [is_escalera(dice, exact), is_full(dice, exact), is_poker(dice, exact), is_grande(dice)]
    assert sum(shapes) <= 1
    assert is_poker(dice, BoliviaConfig()) == (max(Counter(dice).values()) >= 4)


# --- whole games played at random by the legal actions -------------------------------------------------------


def random_action(game: BoliviaGame, rng: random.Random, acted: set[str]) -> Action:
    """A random allowed action; declaring and setting aside at most once between rolls (so turns end)."""
    options = [o for o in game.legal_actions().allowed() if o.action not in acted]
    assert options, "the player on turn can always do something"
    option = rng.choice(options)
    player = game.legal_actions().player
    assert player is not None
    attempt = game.attempt
    if option.action == "roll":
        assert attempt is not None
        # Five alike now and then, so that grandes (and grandes de mano) happen.
        fresh = [rng.randint(1, 6)] * 5 if rng.random() < 0.03 else [rng.randint(1, 6) for _ in range(5)]
        if attempt.dice is not None:
            fresh = [attempt.dice[i] if i in attempt.kept else fresh[i] for i in range(5)]
        return Roll(player, tuple(fresh))
    if option.action == "declare":
        assert option.detail is not None
        return Declare(player, Category(option.detail))
    if option.action == "set_aside":
        assert attempt is not None
        positions = set(attempt.locked) if not game.config.retomar_apartados else set()
        positions |= {i for i in range(5) if rng.random() < 0.4}
        while len(positions) > 4:
            positions.discard(rng.choice(sorted(positions - set(attempt.locked)) or sorted(positions)))
        return SetAside(player, tuple(sorted(p + 1 for p in positions)))
    if option.action == "score":
        return Score(player, Category(option.detail) if option.detail else None)
    if option.action == "pick":
        assert option.detail is not None
        return Pick(option.detail)
    assert option.detail is not None
    return Hatch(player, int(option.detail))


def variants(n: int) -> st.SearchStrategy[Variant]:
    """The variations for `n` players (partners when they make equal teams)."""
    team_options = [()]
    if n in (4, 6):
        team_options.append(tuple(tuple(NAMES[i : i + 2]) for i in range(0, n, 2)))
    return st.builds(
        Variant,
        hatches=st.sampled_from((1, 3)),
        teams=st.sampled_from(team_options),
        generala=st.booleans(),
    )


@st.composite
def tables(draw: st.DrawFn) -> tuple[Start, random.Random]:
    """A start event and the dice/choices source."""
    n = draw(st.integers(2, 4))
    variant = draw(variants(n))
    start = Start(NAMES[:n], variant, draw(configs))
    # A seeded generator rather than st.randoms(): hypothesis' own randoms favour edge values (0.0), which
    # would end nearly every game with an early grande de mano.
    return start, random.Random(draw(st.integers(0, 2**32 - 1)))


@GAMES
@given(tables())
def test_a_game_always_ends_and_totals_are_the_sum_of_the_cells(table: tuple[Start, random.Random]) -> None:
    start, rng = table
    game = BoliviaGame().apply(start)
    events: list[Action] = [start]
    cells = 10 * start.variant.hatches * len(game.sides)
    steps, acted, turns = 0, set(), 0
    while not game.over:
        action = random_action(game, rng, acted)
        game = game.apply(action)
        events.append(action)
        steps += 1
        # Each attempt is at most 3 rolls, 3 declarations, 2 set-asides and a score; then a pick and a hatch.
        assert steps <= cells * (9 * max(1, len(game.sides[0].members)) + 2)
        if isinstance(action, Roll):
            acted = set()
        elif isinstance(action, (Declare, SetAside)):
            acted.add("declare" if isinstance(action, Declare) else "set_aside")
        if game.turns_played != turns:
            turns, acted = game.turns_played, set()
        for side in game.sides:
            assert side.total == sum(c.points for h in side.hatches for c in h.cells if c is not None)
        assert sum(s.total for s in game.result().standings) == sum(s.total for s in game.sides)
    result = game.result()
    assert result.finished
    if game.instant_win is None:
        assert game.turns_played == cells
        assert all(side.full for side in game.sides)
        assert result.winners or result.playoff
    else:
        assert result.winners == (game.instant_win.side,)
    # The log is the history: replaying it rebuilds the same game.
    assert replay_lines(dumps(events).splitlines()).game == game
