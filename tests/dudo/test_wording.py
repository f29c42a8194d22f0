"""The engine's Spanish agrees with whoever it names: a player out of the game is not «eliminado» (issue 63, 9)."""

from __future__ import annotations

from .helpers import play, refused, seat


def test_a_player_out_of_the_game_is_named_without_a_gender() -> None:
    table = seat("Ana Beto Caro", dice={"Beto": 0})
    acting = refused(table, "Beto bid 2 5", "10")
    assert acting.message == "Beto ya quedó fuera del juego: no tiene dados"
    table = play(table, "Ana bid 2 5", "Caro dudo")
    showing = refused(table, {"Ana": [2] * 5, "Beto": [5], "Caro": [2] * 5}, "10")
    assert showing.message == "Beto quedó fuera del juego: no tiene cacho que levantar"
