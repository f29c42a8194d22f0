"""How to play: cross hatch — the marks, the end of the game, totals, ranking and the winner."""

from __future__ import annotations

from engines.bolivia import (
    CATEGORIES,
    BoliviaConfig,
    BoliviaGame,
    Category,
    Empate,
    Pizarra,
    score,
)

from .play import dice_for, fill, start, turn


def test_a_new_pizarra_is_empty_and_open_everywhere() -> None:
    pizarra = Pizarra()
    assert pizarra.open_categories() == CATEGORIES and not pizarra.full and pizarra.total == 0


def test_the_traditional_marks_on_a_full_pizarra() -> None:
    game = fill(start())
    marks = {c.value: cell.mark for c in CATEGORIES if (cell := game.sides[0].hatches[0].cell(c)) is not None}
    assert marks == {
        "balas": "3",
        "tontos": "6",
        "trenes": "9",
        "cuadras": "12",
        "quinas": "15",
        "senas": "18",
        "escalera": "5",
        "full": "5",
        "poker": "5",
        "grande": "$",
    }
    assert game.sides[0].hatches[0].total == 63 + 25 + 35 + 45 + 50


def test_crossed_out_cells_are_x_and_zero() -> None:
    game = fill(start(), miss=True)
    pizarra = game.sides[0].hatches[0]
    for category in (Category.ESCALERA, Category.FULL, Category.POKER):
        cell = pizarra.cell(category)
        assert cell is not None and (cell.mark, cell.points) == ("X", 0)
    assert pizarra.total == 63 + 50


def test_the_game_ends_when_every_cell_of_every_player_is_filled() -> None:
    game = start("Ana", "Beto", "Caro")
    turns = 0
    while not game.over:
        assert game.result().finished is False and game.result().winners == ()
        game = fill_one(game)
        turns += 1
    assert turns == 30 == game.turns_played
    assert all(side.full for side in game.sides)
    assert game.attempt is None and game.phase == "over"


def fill_one(game: BoliviaGame) -> BoliviaGame:
    """One turn of `fill`."""
    category = game.side.hatches[0].open_categories()[0]
    if category is Category.GRANDE:
        return turn(game, category, (2, 2, 2, 2, 3), (2, 2, 2, 2, 2), aside=[(1, 2, 3, 4)])
    return turn(game, category, (1, 1, 1, 1, 6))


def test_totals_ranking_and_the_winner() -> None:
    game = start("Ana", "Beto", "Caro")
    while not game.over:
        player = game.attempt.player if game.attempt else ""
        category = game.side.hatches[0].open_categories()[0]
        # Ana makes everything on the first roll, Beto misses the middle, Caro also misses the numbers.
        if category is Category.GRANDE:
            game = turn(game, category, (2, 2, 2, 2, 3), (2, 2, 2, 2, 2), aside=[(1, 2, 3, 4)])
        elif player == "Ana" or (player == "Beto" and category.face is not None):
            game = turn(game, category, dice_for(category))
        else:
            game = turn(game, category, (1, 1, 2, 2, 6) if category.face is None else _missing(category))
    result = game.result()
    assert result.finished
    assert [(s.side, s.total, s.place) for s in result.standings] == [
        ("Ana", 218, 1),
        ("Beto", 113, 2),
        ("Caro", 10, 3),  # the third grande of the game: its face value, five 2s
    ]
    assert result.winners == ("Ana",) and result.playoff == ()
    for side in game.sides:
        assert side.total == sum(c.points for c in side.hatches[0].cells if c is not None)


def _missing(category: Category) -> tuple[int, ...]:
    face = category.face
    assert face is not None
    return tuple(d for d in range(1, 7) if d != face)[:5]


def test_a_tie_for_first_is_shared_by_default() -> None:
    game = fill(start("Ana", "Beto"))
    result = game.result()
    assert [s.place for s in result.standings] == [1, 1]
    assert result.winners == ("Ana", "Beto") and result.playoff == ()


def test_option_empate_desempate_names_the_play_off() -> None:
    game = fill(start("Ana", "Beto", config=BoliviaConfig(empate=Empate.DESEMPATE)))
    result = game.result()
    assert result.winners == () and result.playoff == ("Ana", "Beto")


def test_a_third_grande_on_the_pizarra_is_written_at_face_value() -> None:
    game = fill(start("Ana", "Beto", "Caro"))
    grandes = [side.hatches[0].cell(Category.GRANDE) for side in game.sides]
    assert [(c.points, c.mark) for c in grandes if c is not None] == [(50, "$"), (50, "$"), (10, "$")]
    assert game.result().winners == ("Ana", "Beto")


def test_pizarra_write_refuses_a_filled_cell() -> None:
    pizarra = Pizarra().write(score((1, 1, 2, 3, 4), Category.BALAS, 1))
    try:
        pizarra.write(score((1, 1, 1, 3, 4), Category.BALAS, 1))
    except ValueError as error:
        assert "ya está llena" in str(error)
    else:
        raise AssertionError("a filled cell was written twice")
