"""Pif Paf dealt face down (seed 001): the table sees the discards and the cards taken from the discard pile, and
the whole hand only when a player goes out."""

from __future__ import annotations

import json

from engines.cards.deck import Card
from engines.cards.pifpaf.game import Call, Claim, Deal, GoOut, PifPafError, PifPafHand
from engines.cards.replay import replay
from engines.cards.table import Discard, Draw
from tests.cards.helpers import cards, refusal, run

OUT = "AS 2S 3S 4H 4D 4C 7C 8C 9C"  # a sequence, a group of three suits, a sequence


def c(text: str) -> Card:
    return cards(text)[0]


def playing() -> PifPafHand:
    """Ana, Beto and Caro ante 1, are dealt nine cards face down each and all call: Ana's turn."""
    return run(PifPafHand.start(["Ana", "Beto", "Caro"], [10, 10, 10], 1), [Deal(), Call(0), Call(1), Call(2)])


def test_a_face_down_deal_and_turns() -> None:
    state = playing()
    assert state.phase == "play" and state.table is not None and state.table.hidden == (9, 9, 9)
    state = run(state, [Draw(0, "stock"), Discard(0, c("KS"))])
    assert state.table is not None and state.table.hidden == (9, 9, 9) and state.table.top == c("KS")
    state = run(state, [Draw(1, "discard"), Discard(1, c("KS"))])  # the card taken is known, then thrown
    assert state.table is not None and state.table.hands[1] == () and state.summary()["hidden"] == [9, 9, 9]
    state = run(state, [Draw(2, "stock"), Discard(2, c("KS"))])
    assert state.table is not None and state.table.discard == cards("KS KS")
    with refusal(PifPafError, "Pif Paf (Cacheta)", "ya están a la vista las dos cartas KS: Ana no puede tener otra"):
        run(state, [Draw(0, "stock")]).check(Discard(0, c("KS")))


def test_going_out_shows_the_nine_cards() -> None:
    state = run(playing(), [Draw(0, "stock")])
    with refusal(PifPafError, "Play of the hand", "para salir se muestran las 9 cartas que quedan"):
        state.check(GoOut(0, c("QH")))
    with refusal(PifPafError, "Play of the hand", "las nueve cartas que quedan no forman todas juegos válidos"):
        state.check(GoOut(0, c("QH"), cards("AS 2S 3S 4H 4D 4C 7C 8C 10H")))
    done = state.apply(GoOut(0, c("QH"), cards(OUT)))
    assert done.phase == "over" and done.winner == 0 and done.chips == (12, 9, 9)
    assert [[str(x) for x in m.cards] for m in done.melds]


def test_a_card_taken_from_the_discards_must_be_shown() -> None:
    state = run(playing(), [Draw(0, "stock"), Discard(0, c("4C")), Draw(1, "discard")])
    with refusal(PifPafError, "Play of the hand", "Beto tiene a la vista 4C: debe mostrarla"):
        state.check(GoOut(1, c("QH"), cards("AS 2S 3S 4H 4D 4S 7C 8C 9C")))
    assert state.apply(GoOut(1, c("QH"), cards(OUT))).winner == 1


def test_a_face_down_claim() -> None:
    state = run(playing(), [Draw(0, "stock"), Discard(0, c("5S"))])
    shown = cards("3S 4S 5S 6H 6D 6C JC QC KC")
    with refusal(PifPafError, "Play of the hand", "Beto tiene a la vista 5S: debe mostrarla"):
        state.check(Claim(1, c("2H"), cards("3S 4S 7S 6H 6D 6C JC QC KC")))
    done = state.apply(Claim(1, c("2H"), shown))
    assert done.winner == 1 and done.table is not None and done.table.top == c("2H")


def test_a_face_down_log_replays() -> None:
    start = {"event": "start", "game": "pifpaf", "players": ["Ana", "Beto", "Caro"], "chips": [5, 5, 5], "ante": 1}
    events = [
        start,
        {"event": "deal"},
        {"event": "call", "player": 0},
        {"event": "call", "player": 1},
        {"event": "call", "player": 2},
        {"event": "draw", "player": 0, "source": "stock"},
        {"event": "discard", "player": 0, "card": "KD"},
        {"event": "draw", "player": 1, "source": "stock"},
        {"event": "out", "player": 1, "discard": "QH", "cards": OUT.split()},
    ]
    result = replay([json.dumps(e) for e in events])
    assert result.error is None and result.summary is not None
    assert result.summary["winner"] == 1 and result.summary["chips"] == [4, 7, 4]
