"""The public draw (art. 3): the same seed gives the same tables; placings and who advances (art. 10, 11)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kiosk.championship.draw import DrawError, Placing, advancing, draw, placings, table_sizes
from kiosk.cli import main

NAMES = [f"J{n}" for n in range(1, 13)]


def test_same_seed_same_tables_and_another_seed_others() -> None:
    assert draw(NAMES, "4821", 4) == draw(NAMES, "4821", 4)
    assert draw(NAMES, "4821", 4) != draw(NAMES, "4822", 4)


@given(st.integers(min_value=2, max_value=80), st.integers(min_value=2, max_value=10))
def test_tables_hold_everyone_once_and_differ_by_one_at_most(players: int, size: int) -> None:
    names = [f"P{n}" for n in range(players)]
    if size == 2 and players % 2:
        with pytest.raises(DrawError, match="uno solo"):
            draw(names, "semilla", size)
        return
    tables = draw(names, "semilla", size)
    assert sorted(n for t in tables for n in t) == sorted(names)
    lengths = [len(t) for t in tables]
    assert max(lengths) <= size and max(lengths) - min(lengths) <= 1 and min(lengths) >= 2


def test_twelve_players_by_four_make_three_tables() -> None:
    assert table_sizes(12, 4) == [4, 4, 4]
    assert table_sizes(14, 5) == [5, 5, 4]


@pytest.mark.parametrize(
    ("names", "size", "message"),
    [
        (["Ana"], 4, "al menos 2 jugadores"),
        (NAMES, 1, "el tamaño va de 2 a 10"),
        (["Ana", "ana", "Beto"], 4, "nombres repetidos"),
    ],
)
def test_refusals_say_what_is_wrong(names: list[str], size: int, message: str) -> None:
    with pytest.raises(DrawError, match=message):
        draw(names, "1", size)


def test_empty_seed_is_refused() -> None:
    with pytest.raises(DrawError, match="semilla"):
        draw(NAMES, "  ", 4)


def test_placings_champion_first_then_last_out() -> None:
    got = placings(["Ana", "Beto", "Caro", "Dani"], ["Caro", "Ana", "Dani"], "Beto")
    assert got == [Placing("Beto", 1), Placing("Dani", 2), Placing("Ana", 3), Placing("Caro", 4)]
    playing = placings(["Ana", "Beto", "Caro"], ["Caro"], None)
    assert playing == [Placing("Caro", 3), Placing("Ana", None), Placing("Beto", None)]


def test_advancing_skips_the_disqualified() -> None:
    table = placings(["Ana", "Beto", "Caro"], ["Caro", "Ana"], "Beto")
    assert advancing([table], 1, set()) == ["Beto"]
    assert advancing([table], 2, set()) == ["Beto", "Ana"]
    assert advancing([table], 1, {"Beto"}) == ["Ana"]  # art. 11: out of the whole championship


def test_command_repeats_the_draw(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "jugadores.txt"
    path.write_text("".join(f"{n}, Club {n}\n" for n in NAMES), encoding="utf-8")
    assert main(["campeonato", "sorteo", str(path), "--semilla", "4821", "--hasta", "4"]) == 0
    out = capsys.readouterr().out
    for number, table in enumerate(draw(NAMES, "4821", 4), start=1):
        assert f"Mesa {number}: {', '.join(table)}" in out
    assert main(["campeonato", "sorteo", str(path), "--semilla", "4821", "--hasta", "1"]) == 2
    assert "el tamaño va de 2 a 10" in capsys.readouterr().err
