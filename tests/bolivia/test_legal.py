"""What may the player on turn do now: each option allowed, or refused with its section and reason."""

from __future__ import annotations

from engines.bolivia import (
    ART_HOW_TO_PLAY,
    ART_PARTNERS,
    BoliviaGame,
    Category,
    Declare,
    Hatch,
    LegalActions,
    Roll,
    Score,
    Variant,
)

from .play import start, turn


def allowed(legal: LegalActions) -> set[tuple[str, str | None]]:
    """The (action, detail) pairs allowed."""
    return {(o.action, o.detail) for o in legal.allowed()}


def test_nothing_before_the_start_or_after_the_end() -> None:
    assert BoliviaGame().legal_actions() == LegalActions(None, None, ())
    assert turn(start(), Category.GRANDE, (1, 1, 1, 1, 1)).legal_actions().options == ()


def test_at_the_start_of_a_turn_only_rolling() -> None:
    legal = start().legal_actions()
    assert (legal.player, legal.side) == ("Ana", "Ana")
    assert allowed(legal) == {("roll", None)}
    for option in legal.options:
        if not option.allowed:
            assert option.article == ART_HOW_TO_PLAY and option.reason


def test_after_the_first_roll_declare_any_open_category() -> None:
    game = start().apply(Roll("Ana", (6, 6, 1, 2, 3)))
    legal = game.legal_actions()
    assert allowed(legal) == {("declare", c.value) for c in Category}
    roll = next(o for o in legal.options if o.action == "roll")
    assert roll.reason is not None and "declarar" in roll.reason


def test_after_declaring_roll_set_aside_score_or_change() -> None:
    game = start().apply(Roll("Ana", (6, 6, 1, 2, 3))).apply(Declare("Ana", Category.SENAS))
    legal = allowed(game.legal_actions())
    assert {("roll", None), ("set_aside", None), ("score", None)} <= legal
    assert ("declare", "senas") not in legal and ("declare", "full") in legal


def test_generala_offers_a_score_per_open_category() -> None:
    game = turn(start(variant=Variant(generala=True)), Category.FULL, (2, 2, 3, 3, 3))
    game = game.apply(Roll("Beto", (1, 2, 3, 4, 5)))
    legal = game.legal_actions()
    assert not any(o.action == "declare" for o in legal.options)
    scores = {o.detail: o.allowed for o in legal.options if o.action == "score"}
    assert scores["escalera"] and scores["full"]  # Beto's pizarra is his own
    game = game.apply(Score("Beto", Category.ESCALERA)).apply(Roll("Ana", (2, 2, 3, 3, 3)))
    scores = {o.detail: o.allowed for o in game.legal_actions().options if o.action == "score"}
    assert not scores["full"] and scores["escalera"]


def test_partners_pick_phase() -> None:
    game = start("Ana", "Beto", "Caro", "Dani", variant=Variant(teams=(("Ana", "Beto"), ("Caro", "Dani"))))
    game = turn(turn(game, Category.SENAS, (6, 6, 1, 2, 3)), Category.BALAS, (1, 2, 3, 4, 5))
    legal = game.legal_actions()
    assert legal.side == "Ana y Beto"
    assert allowed(legal) == {("pick", "Ana"), ("pick", "Beto")}
    roll = next(o for o in legal.options if o.action == "roll")
    assert roll.article == ART_PARTNERS


def test_three_hatches_hatch_phase() -> None:
    game = turn(start(variant=Variant(hatches=3)), Category.SENAS, (6, 6, 1, 2, 3)).apply(Hatch("Ana", 2))
    game = turn(game, Category.SENAS, (6, 6, 1, 2, 3)).apply(Hatch("Beto", 1))
    game = turn(game, Category.SENAS, (6, 6, 6, 2, 3))
    assert allowed(game.legal_actions()) == {("hatch", "1"), ("hatch", "3")}


def test_the_options_agree_with_check() -> None:
    game = start().apply(Roll("Ana", (6, 6, 1, 2, 3))).apply(Declare("Ana", Category.SENAS))
    for option in game.legal_actions().options:
        if option.action == "declare":
            assert option.detail is not None
            action = Declare("Ana", Category(option.detail))
            try:
                game.check(action)
            except ValueError:
                assert not option.allowed
            else:
                assert option.allowed
