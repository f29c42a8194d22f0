"""Variations: three cross hatches, partners, and Generala."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engines.bolivia import (
    ART_CROSS_HATCH,
    ART_GENERALA,
    ART_HOW_TO_PLAY,
    ART_PARTNERS,
    ART_THREE_HATCHES,
    BoliviaGame,
    Category,
    Declare,
    Hatch,
    Pick,
    Roll,
    Score,
    SetAside,
    Start,
    Variant,
)

from .play import dice_for, refused, start, turn

THREE = Variant(hatches=3)
TEAMS = Variant(teams=(("Ana", "Beto"), ("Caro", "Dani")))
GENERALA = Variant(generala=True)


def miss(category: Category) -> tuple[int, ...]:
    """A first roll that does not make `category`."""
    face = category.face
    if face is None:
        return (1, 1, 2, 2, 6)
    return tuple(d for d in range(1, 7) if d != face)[:5]


# --- three cross hatches -----------------------------------------------------------------------------------


def test_three_hatches_the_hatch_is_chosen_at_the_end_of_the_turn() -> None:
    game = start(variant=THREE)
    assert len(game.sides[0].hatches) == 3
    game = turn(game, Category.SENAS, (6, 6, 1, 2, 3))
    assert game.phase == "hatch" and game.pending is not None and game.pending.points == 12
    assert "falta elegir en qué pizarra" in refused(game, Roll("Beto", (1, 2, 3, 4, 5))).message
    game = game.apply(Hatch("Ana", 2))
    cell = game.sides[0].hatches[1].cell(Category.SENAS)
    assert cell is not None and cell.points == 12
    assert game.sides[0].hatches[0].is_open(Category.SENAS) and game.sides[0].hatches[2].is_open(Category.SENAS)
    assert game.attempt is not None and game.attempt.player == "Beto"


def test_three_hatches_refusals() -> None:
    game = start(variant=THREE).apply(Roll("Ana", (6, 6, 1, 2, 3)))
    error = refused(game, Hatch("Ana", 1))
    assert error.article == ART_THREE_HATCHES and "final del turno" in error.message
    game = game.apply(Declare("Ana", Category.SENAS)).apply(Score("Ana"))
    assert refused(game, Hatch("Ana", 4)).article == ART_THREE_HATCHES
    assert refused(game, Hatch("Ana", 0)).article == ART_THREE_HATCHES
    assert refused(game, Hatch("Beto", 1)).article == ART_HOW_TO_PLAY
    assert refused(start(), Hatch("Ana", 1)).article == ART_THREE_HATCHES


def test_three_hatches_a_category_is_open_until_it_is_written_on_all_three() -> None:
    game = start(variant=THREE)
    for hatch in (1, 2):
        game = turn(game, Category.SENAS, (6, 6, 1, 2, 3)).apply(Hatch("Ana", hatch))
        game = turn(game, Category.BALAS, (1, 1, 2, 3, 4)).apply(Hatch("Beto", hatch))
    game = turn(game, Category.SENAS, (6, 6, 6, 2, 3))  # still open on hatch 3
    error = refused(game, Hatch("Ana", 1))
    assert error.article == ART_CROSS_HATCH and "la pizarra 1 ya tiene senas" in error.message
    game = game.apply(Hatch("Ana", 3))
    game = turn(game, Category.BALAS, (1, 1, 2, 3, 4)).apply(Hatch("Beto", 3))
    game = game.apply(Roll("Ana", (6, 6, 1, 2, 3)))
    error = refused(game, Declare("Ana", Category.SENAS))
    assert error.article == ART_CROSS_HATCH and "en sus tres pizarras" in error.message
    assert [h.total for h in game.sides[0].hatches] == [12, 12, 18]


def play_hatches(game: BoliviaGame, makes: Callable[[str, int], bool]) -> BoliviaGame:
    """Fill every hatch in order; `makes(player, hatch)` says whether the player makes his categories there."""
    while not game.over:
        assert game.attempt is not None
        player = game.attempt.player
        hatch = next(n for n, h in enumerate(game.side.hatches, start=1) if not h.full)
        category = game.side.hatches[hatch - 1].open_categories()[0]
        if category is Category.GRANDE and makes(player, hatch):
            game = turn(game, category, (3, 3, 3, 3, 1), (3, 3, 3, 3, 3), aside=[(1, 2, 3, 4)])
        else:
            game = turn(game, category, dice_for(category) if makes(player, hatch) else miss(category))
        game = game.apply(Hatch(player, hatch))
    return game


def test_three_hatches_each_hatch_gives_its_game_points_to_its_best_total() -> None:
    # Ana makes everything on hatches 1 and 3; Beto only on hatch 2.
    game = play_hatches(start(variant=THREE), lambda player, hatch: (player == "Ana") == (hatch != 2))
    assert game.turns_played == 60
    result = game.result()
    ana, beto = result.standings
    assert (ana.side, ana.game_points, ana.place) == ("Ana", 4, 1)
    assert (beto.side, beto.game_points, beto.place) == ("Beto", 2, 2)
    assert ana.hatch_totals[1] == 0 and beto.hatch_totals[1] > 0
    assert result.winners == ("Ana",)


def test_three_hatches_the_game_points_decide_not_the_points() -> None:
    # Ana wins hatches 1 and 2 (3 game points), Beto only hatch 3 (3 game points): a tie despite the points.
    game = play_hatches(start(variant=THREE), lambda player, hatch: (player == "Ana") == (hatch != 3))
    result = game.result()
    assert sorted(s.game_points for s in result.standings) == [3, 3]
    assert result.standings[0].total != result.standings[1].total
    assert set(result.winners) == {"Ana", "Beto"}


# --- partners ---------------------------------------------------------------------------------------------------


def test_partners_each_member_rolls_then_the_team_picks_whose_roll_is_scored() -> None:
    game = start("Ana", "Beto", "Caro", "Dani", variant=TEAMS)
    assert [s.name for s in game.sides] == ["Ana y Beto", "Caro y Dani"]
    game = turn(game, Category.SENAS, (6, 6, 1, 2, 3))
    assert game.attempt is not None and game.attempt.player == "Beto"
    assert refused(game, Roll("Caro", (1, 2, 3, 4, 5))).article == ART_HOW_TO_PLAY
    error = refused(game, Pick("Ana"))
    assert error.article == ART_PARTNERS and "le toca a Beto" in error.message
    game = turn(game, Category.FULL, (2, 2, 3, 3, 3))
    assert game.phase == "pick" and len(game.candidates) == 2
    assert "debe elegir" in refused(game, Roll("Caro", (1, 2, 3, 4, 5))).message
    assert refused(game, Pick("Caro")).article == ART_PARTNERS
    game = game.apply(Pick("Beto"))
    team = game.sides[0].hatches[0]
    full = team.cell(Category.FULL)
    assert full is not None and full.points == 35 and team.is_open(Category.SENAS)
    assert game.attempt is not None and game.attempt.player == "Caro"


def test_partners_the_whole_game_ends_with_team_totals() -> None:
    game = start("Ana", "Beto", "Caro", "Dani", variant=TEAMS)
    while not game.over:
        category = game.side.hatches[0].open_categories()[0]
        for _ in game.side.members:
            if category is Category.GRANDE:
                game = turn(game, category, (3, 3, 3, 3, 1), (3, 3, 3, 3, 3), aside=[(1, 2, 3, 4)])
            else:
                game = turn(game, category, dice_for(category))
        game = game.apply(Pick(game.side.members[-1]))
    assert game.turns_played == 20
    assert game.result().winners == ("Ana y Beto", "Caro y Dani")


def test_partners_a_members_grande_de_mano_wins_for_the_team() -> None:
    game = start("Ana", "Beto", "Caro", "Dani", variant=TEAMS)
    game = turn(game, Category.SENAS, (6, 6, 1, 2, 3))
    game = turn(game, Category.GRANDE, (1, 1, 1, 1, 1))
    assert game.over and game.result().winners == ("Ana y Beto",)
    assert game.instant_win is not None and game.instant_win.player == "Beto"


@pytest.mark.parametrize(
    "teams",
    [
        (("Ana", "Beto"), ("Caro",)),
        (("Ana", "Beto", "Caro"), ("Dani",)),
        (("Ana", "Beto", "Caro", "Dani"),),
        (("Ana", "Beto"), ("Caro", "Zoe")),
        (("Ana", "Beto"), ("Beto", "Caro")),
    ],
)
def test_partners_teams_are_every_player_once_in_equal_teams_of_two_or_more(
    teams: tuple[tuple[str, ...], ...],
) -> None:
    players = ("Ana", "Beto", "Caro", "Dani")
    assert refused(BoliviaGame(), Start(players, Variant(teams=teams))).article == ART_PARTNERS


def test_pick_only_with_partners() -> None:
    game = turn(start(), Category.SENAS, (6, 6, 1, 2, 3))
    assert refused(game, Pick("Beto")).article == ART_PARTNERS


def test_partners_with_three_hatches_pick_then_hatch() -> None:
    game = start("Ana", "Beto", "Caro", "Dani", variant=Variant(hatches=3, teams=TEAMS.teams))
    game = turn(game, Category.SENAS, (6, 6, 1, 2, 3))
    game = turn(game, Category.SENAS, (6, 6, 6, 2, 3))
    assert refused(game, Hatch("Ana", 1)).article == ART_PARTNERS
    game = game.apply(Pick("Beto"))
    assert refused(game, Pick("Ana")).article == ART_THREE_HATCHES
    game = game.apply(Hatch("Ana", 3))
    cell = game.sides[0].hatches[2].cell(Category.SENAS)
    assert cell is not None and cell.points == 18


# --- Generala -----------------------------------------------------------------------------------------------------


def test_generala_the_category_is_chosen_after_rolling() -> None:
    game = start(variant=GENERALA).apply(Roll("Ana", (3, 3, 3, 2, 1)))
    error = refused(game, Declare("Ana", Category.FULL))
    assert error.article == ART_GENERALA
    game = game.apply(SetAside("Ana", (1, 2, 3, 4))).apply(Roll("Ana", (3, 3, 3, 2, 2)))
    error = refused(game, Score("Ana"))
    assert error.article == ART_GENERALA and "falta cuál" in error.message
    game = game.apply(Score("Ana", Category.FULL))
    cell = game.sides[0].hatches[0].cell(Category.FULL)
    assert cell is not None and (cell.points, cell.mark) == (30, "O")
    game = turn(game, Category.FULL, (4, 4, 5, 5, 5))
    game = game.apply(Roll("Ana", (2, 2, 5, 5, 5)))
    assert refused(game, Score("Ana", Category.FULL)).article == ART_CROSS_HATCH


def test_generala_a_roll_need_not_be_declared_before_rolling_again() -> None:
    game = start(variant=GENERALA).apply(Roll("Ana", (3, 3, 3, 2, 1))).apply(Roll("Ana", (1, 2, 3, 4, 5)))
    game = game.apply(Score("Ana", Category.ESCALERA))
    cell = game.sides[0].hatches[0].cell(Category.ESCALERA)
    assert cell is not None and (cell.points, cell.mark) == (20, "O")


def test_generala_for_stakes_the_winner_collects_the_difference() -> None:
    game = start("Ana", "Beto", "Caro", variant=GENERALA)
    while not game.over:
        assert game.attempt is not None
        player = game.attempt.player
        category = game.side.hatches[0].open_categories()[0]
        if category is Category.GRANDE:
            game = turn(game, category, (1, 1, 1, 1, 2), (1, 1, 1, 1, 1), aside=[(1, 2, 3, 4)])
        elif player == "Caro" and category is Category.ESCALERA:
            game = turn(game, category, miss(category))
        elif player == "Beto" and category is Category.SENAS:
            game = turn(game, category, (6, 6, 6, 6, 1))
        else:
            game = turn(game, category, dice_for(category))
    result = game.result()
    totals = {s.side: s.total for s in result.standings}
    assert result.winners == ("Beto",)
    assert dict(result.settlement) == {"Ana": totals["Beto"] - totals["Ana"], "Caro": totals["Beto"] - totals["Caro"]}
    # Beto: 6 more in senas; Caro: no escalera (25) and the third grande, five 1s, is worth 5 (45 less).
    assert dict(result.settlement) == {"Ana": 6, "Caro": 6 + 25 + 45}


def test_no_settlement_in_classic_cacho() -> None:
    from .play import fill

    assert fill(start()).result().settlement == ()
