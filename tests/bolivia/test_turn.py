"""How to play — the turn: at most three rolls, the declaration, dice set aside, changing the category."""

from __future__ import annotations

import pytest

from engines.bolivia import (
    ART_CROSS_HATCH,
    ART_EQUIPMENT,
    ART_HOW_TO_PLAY,
    ART_PLAYERS,
    AlcanceGrandes,
    BoliviaConfig,
    BoliviaGame,
    Category,
    Declare,
    GrandeDeMano,
    Roll,
    Score,
    SetAside,
    Start,
)

from .play import refused, start, turn

# --- players ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [("Ana",), ("A", "B", "C", "D", "E", "F", "G"), ()])
def test_two_to_six_players(players: tuple[str, ...]) -> None:
    error = refused(BoliviaGame(), Start(players))
    assert error.article == ART_PLAYERS and "de 2 a 6" in error.message


def test_names_are_unique_and_not_empty() -> None:
    assert refused(BoliviaGame(), Start(("Ana", "Ana"))).article == ART_PLAYERS
    assert refused(BoliviaGame(), Start(("Ana", " "))).article == ART_PLAYERS


def test_a_game_starts_once_and_nothing_happens_before_it() -> None:
    assert refused(start(), Start(("Ana", "Beto"))).article == ART_PLAYERS
    assert refused(BoliviaGame(), Roll("Ana", (1, 2, 3, 4, 5))).article == ART_PLAYERS


def test_players_take_turns_in_order() -> None:
    game = start("Ana", "Beto", "Caro")
    error = refused(game, Roll("Beto", (1, 2, 3, 4, 5)))
    assert error.article == ART_HOW_TO_PLAY and "le toca a Ana" in error.message
    assert refused(game, Roll("Zoe", (1, 2, 3, 4, 5))).article == ART_PLAYERS
    game = turn(game, Category.BALAS, (1, 1, 2, 3, 4))
    assert game.attempt is not None and game.attempt.player == "Beto"
    game = turn(game, Category.BALAS, (1, 1, 2, 3, 4))
    game = turn(game, Category.BALAS, (1, 1, 2, 3, 4))
    assert game.attempt is not None and game.attempt.player == "Ana"


def test_a_roll_is_five_dice_of_one_to_six() -> None:
    game = start()
    assert refused(game, Roll("Ana", (1, 2, 3))).article == ART_EQUIPMENT
    assert refused(game, Roll("Ana", (1, 2, 3, 4, 9))).article == ART_EQUIPMENT


# --- the declaration -------------------------------------------------------------------------------------


def test_the_category_is_declared_after_the_first_roll_not_before() -> None:
    game = start()
    error = refused(game, Declare("Ana", Category.SENAS))
    assert error.article == ART_HOW_TO_PLAY and "primera tirada" in error.message
    game = game.apply(Roll("Ana", (6, 6, 1, 2, 3)))
    for action in (Roll("Ana", (6, 6, 1, 2, 3)), SetAside("Ana", (1, 2)), Score("Ana")):
        error = refused(game, action)
        assert error.article == ART_HOW_TO_PLAY and "declarar" in error.message
    game = game.apply(Declare("Ana", Category.SENAS))
    assert game.attempt is not None and game.attempt.declared is Category.SENAS


def test_a_category_already_scored_cannot_be_declared() -> None:
    game = turn(start(), Category.SENAS, (6, 6, 1, 2, 3))
    game = turn(game, Category.BALAS, (1, 1, 2, 3, 4))
    game = game.apply(Roll("Ana", (6, 6, 6, 2, 3)))
    error = refused(game, Declare("Ana", Category.SENAS))
    assert error.article == ART_CROSS_HATCH and "ya anotó senas" in error.message


def test_declaring_the_same_category_twice_is_refused() -> None:
    game = start().apply(Roll("Ana", (6, 6, 1, 2, 3))).apply(Declare("Ana", Category.SENAS))
    assert "ya declaró" in refused(game, Declare("Ana", Category.SENAS)).message


def test_nothing_to_set_aside_or_score_before_rolling() -> None:
    game = start()
    assert "aún no tiró" in refused(game, SetAside("Ana", (1,))).message
    assert "aún no tiró" in refused(game, Score("Ana")).message


# --- at most three rolls ----------------------------------------------------------------------------------


def test_at_most_three_rolls_then_only_scoring() -> None:
    game = start().apply(Roll("Ana", (1, 2, 3, 4, 6))).apply(Declare("Ana", Category.ESCALERA))
    game = game.apply(SetAside("Ana", (1, 2, 3, 4))).apply(Roll("Ana", (1, 2, 3, 4, 6)))
    game = game.apply(Roll("Ana", (1, 2, 3, 4, 6)))
    assert game.attempt is not None and game.attempt.rolls == 3
    error = refused(game, Roll("Ana", (1, 2, 3, 4, 5)))
    assert error.article == ART_HOW_TO_PLAY and "tres tiradas" in error.message
    assert "tres tiradas" in refused(game, SetAside("Ana", (1, 2, 3, 4))).message
    game = game.apply(Score("Ana"))
    cell = game.sides[0].hatches[0].cell(Category.ESCALERA)
    assert cell is not None and (cell.points, cell.mark) == (0, "X")


def test_scoring_early_after_the_first_roll_gets_the_first_roll_value() -> None:
    game = turn(start(), Category.FULL, (2, 2, 5, 5, 5))
    cell = game.sides[0].hatches[0].cell(Category.FULL)
    assert cell is not None and (cell.points, cell.mark, cell.roll) == (35, "5", 1)


def test_made_on_a_re_roll_gets_the_re_roll_value() -> None:
    game = turn(start(), Category.FULL, (2, 2, 5, 5, 1), (2, 2, 5, 5, 5), aside=[(1, 2, 3, 4)])
    cell = game.sides[0].hatches[0].cell(Category.FULL)
    assert cell is not None and (cell.points, cell.mark, cell.roll) == (30, "O", 2)


# --- dice set aside ------------------------------------------------------------------------------------------


def test_a_roll_whose_set_aside_dice_moved_is_refused_naming_the_die() -> None:
    game = start().apply(Roll("Ana", (6, 2, 6, 3, 1))).apply(Declare("Ana", Category.SENAS))
    game = game.apply(SetAside("Ana", (1, 3)))
    error = refused(game, Roll("Ana", (6, 4, 5, 3, 1)))
    assert error.article == ART_HOW_TO_PLAY
    assert "el dado 3 estaba apartado con 6 y ahora muestra 5" in error.message
    game = game.apply(Roll("Ana", (6, 6, 6, 6, 1)))
    assert game.attempt is not None and game.attempt.dice == (6, 6, 6, 6, 1)


def test_set_aside_dice_stay_aside_for_the_rest_of_the_turn() -> None:
    game = start().apply(Roll("Ana", (6, 2, 6, 3, 1))).apply(Declare("Ana", Category.SENAS))
    game = game.apply(SetAside("Ana", (1, 3))).apply(Roll("Ana", (6, 6, 6, 2, 2)))
    error = refused(game, SetAside("Ana", (1, 2)))
    assert error.article == ART_HOW_TO_PLAY and "el dado 3 ya quedó apartado" in error.message
    game = game.apply(SetAside("Ana", (1, 2, 3)))
    assert "el dado 2 estaba apartado" in refused(game, Roll("Ana", (6, 1, 6, 6, 6))).message
    # A roll with no new set-aside still keeps the earlier ones where they were.
    game2 = start().apply(Roll("Ana", (6, 2, 6, 3, 1))).apply(Declare("Ana", Category.SENAS))
    game2 = game2.apply(SetAside("Ana", (1,))).apply(Roll("Ana", (6, 1, 1, 1, 1)))
    assert "el dado 1 estaba apartado" in refused(game2, Roll("Ana", (5, 6, 6, 6, 6))).message


def test_option_retomar_apartados_lets_a_die_back_into_the_cup() -> None:
    game = start(config=BoliviaConfig(retomar_apartados=True))
    game = game.apply(Roll("Ana", (6, 2, 6, 3, 1))).apply(Declare("Ana", Category.SENAS))
    game = game.apply(SetAside("Ana", (1, 3))).apply(Roll("Ana", (6, 6, 6, 2, 2)))
    game = game.apply(SetAside("Ana", (2,))).apply(Roll("Ana", (1, 6, 1, 1, 1)))
    assert game.attempt is not None and game.attempt.dice == (1, 6, 1, 1, 1)


@pytest.mark.parametrize(
    ("positions", "article", "text"),
    [
        ((1, 2, 3, 4, 5), ART_HOW_TO_PLAY, "cinco"),
        ((0,), ART_EQUIPMENT, "posición 0"),
        ((6,), ART_EQUIPMENT, "posición 6"),
        ((2, 2), ART_EQUIPMENT, "dos veces"),
    ],
)
def test_set_aside_positions_are_one_to_five_and_at_least_one_die_is_rolled(
    positions: tuple[int, ...], article: str, text: str
) -> None:
    game = start().apply(Roll("Ana", (6, 2, 6, 3, 1))).apply(Declare("Ana", Category.SENAS))
    error = refused(game, SetAside("Ana", positions))
    assert error.article == article and text in error.message


def test_setting_aside_again_before_rolling_replaces_the_choice() -> None:
    game = start().apply(Roll("Ana", (6, 2, 6, 3, 1))).apply(Declare("Ana", Category.SENAS))
    game = game.apply(SetAside("Ana", (1, 2))).apply(SetAside("Ana", (1, 3)))
    game = game.apply(Roll("Ana", (6, 5, 6, 5, 5)))  # die 2 moved: it was not set aside in the end
    assert game.attempt is not None and game.attempt.dice == (6, 5, 6, 5, 5)


# --- changing the category: all five dice again -----------------------------------------------------------


def test_changing_the_category_requires_rolling_all_five_again() -> None:
    game = start().apply(Roll("Ana", (6, 6, 6, 2, 3))).apply(Declare("Ana", Category.SENAS))
    game = game.apply(SetAside("Ana", (1, 2, 3))).apply(Roll("Ana", (6, 6, 6, 3, 3)))
    game = game.apply(Declare("Ana", Category.FULL))
    assert game.attempt is not None and game.attempt.must_roll_all
    assert "cinco dados" in refused(game, Score("Ana")).message
    assert "cinco dados" in refused(game, SetAside("Ana", (1, 2, 3))).message
    # The dice set aside go back into the cup: any value may show anywhere now.
    game = game.apply(Roll("Ana", (2, 2, 4, 4, 4))).apply(Score("Ana"))
    cell = game.sides[0].hatches[0].cell(Category.FULL)
    assert cell is not None and (cell.points, cell.mark) == (30, "O")  # a re-roll, not a first roll
    assert game.sides[0].hatches[0].is_open(Category.SENAS)


def test_changing_the_category_with_no_roll_left_is_refused() -> None:
    game = start().apply(Roll("Ana", (6, 6, 6, 2, 3))).apply(Declare("Ana", Category.SENAS))
    game = game.apply(Roll("Ana", (6, 6, 6, 3, 3))).apply(Roll("Ana", (6, 6, 6, 3, 3)))
    error = refused(game, Declare("Ana", Category.FULL))
    assert error.article == ART_HOW_TO_PLAY and "no le quedan tiradas" in error.message


def test_scoring_another_category_than_the_declared_one_is_refused() -> None:
    game = start().apply(Roll("Ana", (6, 6, 6, 3, 3))).apply(Declare("Ana", Category.SENAS))
    error = refused(game, Score("Ana", Category.FULL))
    assert error.article == ART_HOW_TO_PLAY and "declaró senas" in error.message
    assert game.apply(Score("Ana", Category.SENAS)).last is not None


# --- grande de mano and the two grandes ---------------------------------------------------------------------


def test_grande_de_mano_ends_the_game_at_once() -> None:
    game = turn(start(), Category.GRANDE, (5, 5, 5, 5, 5))
    assert game.over and game.instant_win is not None
    assert (game.instant_win.player, game.instant_win.side) == ("Ana", "Ana")
    assert game.result().winners == ("Ana",)
    error = refused(game, Roll("Beto", (1, 2, 3, 4, 5)))
    assert error.article == ART_CROSS_HATCH and "terminó" in error.message
    assert game.legal_actions().options == ()


def test_grande_de_mano_ranks_its_side_first_whatever_the_points() -> None:
    game = turn(start(), Category.SENAS, (6, 6, 6, 6, 1))
    game = turn(game, Category.GRANDE, (2, 2, 2, 2, 2))
    standings = game.result().standings
    assert [(s.side, s.total, s.place) for s in standings] == [("Beto", 0, 1), ("Ana", 24, 2)]


def test_five_alike_on_the_first_roll_declared_as_a_number_is_no_grande_de_mano_by_default() -> None:
    game = turn(start(), Category.SENAS, (6, 6, 6, 6, 6))
    assert not game.over
    cell = game.sides[0].hatches[0].cell(Category.SENAS)
    assert cell is not None and cell.points == 30


def test_option_grande_de_mano_tirada_wins_as_soon_as_it_shows() -> None:
    game = start(config=BoliviaConfig(grande_de_mano=GrandeDeMano.TIRADA))
    game = turn(game, Category.GRANDE, (2, 2, 2, 3, 2), (2, 2, 2, 2, 2), aside=[(1, 2, 3, 5)])
    assert not game.over  # a grande after a re-roll is 50, not a win
    game = game.apply(Roll("Beto", (6, 6, 6, 6, 6)))
    assert game.over and game.instant_win is not None and game.instant_win.player == "Beto"


def test_only_two_grandes_of_the_game_are_worth_fifty() -> None:
    game = start("Ana", "Beto", "Caro")
    for _ in range(3):
        game = turn(game, Category.GRANDE, (4, 4, 4, 4, 1), (4, 4, 4, 4, 4), aside=[(1, 2, 3, 4)])
    points = [side.hatches[0].cell(Category.GRANDE) for side in game.sides]
    assert [(c.points, c.mark) for c in points if c is not None] == [(50, "$"), (50, "$"), (20, "$")]


def test_option_alcance_grandes_jugador_counts_each_players_own() -> None:
    game = start("Ana", "Beto", "Caro", config=BoliviaConfig(alcance_grandes=AlcanceGrandes.JUGADOR))
    for _ in range(3):
        game = turn(game, Category.GRANDE, (4, 4, 4, 4, 1), (4, 4, 4, 4, 4), aside=[(1, 2, 3, 4)])
    assert [s.hatches[0].total for s in game.sides] == [50, 50, 50]


def test_check_and_apply_leave_the_state_unchanged() -> None:
    game = start().apply(Roll("Ana", (6, 6, 1, 2, 3)))
    copy = game
    after = game.apply(Declare("Ana", Category.SENAS))
    assert game == copy and game.attempt is not None and game.attempt.declared is None
    assert after != game
