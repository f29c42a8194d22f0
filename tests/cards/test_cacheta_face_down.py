"""Cacheta dealt face down (seed 003): the flip in view, discards and cards taken from the pile known, and the hand
shown when a player knocks out or cuts the line."""

from __future__ import annotations

import json

from engines.cards.cacheta.game import CachetaError, CachetaGame, Cut, Deal, GoodOne, Knock
from engines.cards.deck import Card
from engines.cards.replay import replay
from engines.cards.table import Discard, Draw
from tests.cards.helpers import cards, refusal, run

NINE = "AS 2S 3S 4H 4D 4C 7C 8C 9C"  # with the flip 2H the trumps are the 3s of red suits: none here


def c(text: str) -> Card:
    return cards(text)[0]


def dealt() -> CachetaGame:
    return CachetaGame.start(["Ana", "Beto", "Caro"]).apply(Deal((), c("2H")))


def test_a_face_down_round() -> None:
    game = dealt()
    assert game.phase == "play" and game.table is not None and game.table.hidden == (9, 9, 9)
    assert game.summary()["hidden"] == [9, 9, 9]
    game = run(game, [Draw(0, "stock"), Discard(0, c("KS")), Draw(1, "discard")])
    assert game.table is not None and game.table.hands[1] == cards("KS")


def test_knocking_with_nine_shows_the_cards() -> None:
    game = run(dealt(), [Draw(0, "stock")])
    with refusal(CachetaError, "Knock out", "para batir se muestran 9 cartas, no 0"):
        game.check(Knock(0, c("QH")))
    with refusal(CachetaError, "Knock out", "las nueve cartas no forman todas juegos válidos"):
        game.check(Knock(0, c("QH"), cards("AS 2S 3S 4H 4D 4C 7C 8C 10H")))
    after = game.apply(Knock(0, c("QH"), cards(NINE)))
    assert after.points == (10, 9, 9) and after.phase == "deal" and after.last_knock is not None


def test_knocking_with_ten() -> None:
    game = run(dealt(), [Draw(0, "stock")])
    after = game.apply(Knock(0, None, cards(NINE + " 10C")))
    assert after.points == (10, 8, 8)


def test_cutting_the_line_face_down() -> None:
    game = run(dealt(), [GoodOne(2), Draw(0, "stock"), Discard(0, c("5S"))])
    shown = cards("3S 4S 5S 6H 6D 6C JC QC KC")
    burned = game.apply(Cut(2, c("8D"), cards("3S 4S 5S 6H 6D 6C JC QC 10H")))
    assert burned.burned[2] and burned.points == (10, 10, 10)
    with refusal(CachetaError, "Cut the Line", "Caro tiene a la vista 5S: debe mostrarla"):
        game.check(Cut(2, c("8D"), cards("3S 4S 7S 6H 6D 6C JC QC KC")))
    after = game.apply(Cut(2, c("8D"), shown))
    assert after.points == (9, 9, 10)


def test_a_face_down_log_replays() -> None:
    events = [
        {"event": "start", "game": "cacheta", "players": ["Ana", "Beto"]},
        {"event": "deal", "flip": "2H"},
        {"event": "draw", "player": 0, "source": "stock"},
        {"event": "knock", "player": 0, "discard": "QH", "cards": NINE.split()},
    ]
    result = replay([json.dumps(e) for e in events])
    assert result.error is None and result.summary is not None
    assert result.summary["points"] == [10, 9] and result.summary["phase"] == "deal"
