"""An evening of Pif Paf (seed 001): the chips carried from hand to hand, the winner dealing the next hand, and who
cannot pay the ante sitting a hand out."""

from __future__ import annotations

import json

from engines.cards.deck import Card
from engines.cards.pifpaf.evening import PifPafEvening, StartHand
from engines.cards.pifpaf.game import Call, Deal, GoOut, PifPafError
from engines.cards.replay import replay
from engines.cards.table import Draw
from tests.cards.helpers import cards, refusal, run

OUT = "AS 2S 3S 4H 4D 4C 7C 8C 9C"


def c(text: str) -> Card:
    return cards(text)[0]


def won_by_the_first(night: PifPafEvening, dealer: int) -> PifPafEvening:
    """A hand dealt by `dealer` where everyone calls and the first to play goes out at once."""
    night = night.apply(StartHand(dealer))
    night = run(night, [Deal(), *(Call(s) for s in night.seats)])
    first = night.seats[0]
    return run(night, [Draw(first, "stock"), GoOut(first, c("QH"), cards(OUT))])


def test_the_chips_are_carried_and_the_winner_deals_next() -> None:
    night = PifPafEvening.start(["Ana", "Beto", "Caro", "Dani"], [5, 1, 5, 5], 1)
    night = won_by_the_first(night, dealer=3)
    assert night.phase == "hand" and night.chips == (8, 0, 4, 4)
    summary = night.summary()
    assert summary["last_hand"]["winner"] == 0 and summary["last_hand"]["pot"] == 4
    assert summary["hands_won"] == [1, 0, 0, 0] and night.next_dealer() == 0
    with refusal(PifPafError, "Pif Paf (Cacheta)", "reparte Ana: quien gana la mano reparte la siguiente"):
        night.check(StartHand(1))
    night = night.apply(StartHand(0))
    assert night.seats == (2, 3, 0)  # Beto has no chip for the ante: he sits this hand out
    with refusal(PifPafError, "Play of the hand", "Beto no juega esta mano"):
        night.apply(Deal()).check(Call(1))


def test_fewer_than_three_with_chips_end_the_evening() -> None:
    night = PifPafEvening.start(["Ana", "Beto", "Caro"], [1, 1, 5], 1)
    night = won_by_the_first(night, dealer=2)
    assert night.chips == (3, 0, 4)
    with refusal(PifPafError, "Pif Paf (Cacheta)", "quedan menos de tres jugadores con fichas"):
        night.check(StartHand(0))


def test_an_evening_log_replays_and_undoes() -> None:
    events = [
        {
            "event": "start",
            "game": "pifpaf",
            "players": ["Ana", "Beto", "Caro"],
            "chips": [5, 5, 5],
            "ante": 1,
            "evening": True,
        },
        {"event": "hand", "dealer": 2},
        {"event": "deal"},
        *({"event": "call", "player": s} for s in (0, 1, 2)),
        {"event": "draw", "player": 0, "source": "stock"},
        {"event": "out", "player": 0, "discard": "QH", "cards": OUT.split()},
        {"event": "hand", "dealer": 0},
    ]
    lines = [json.dumps(e) for e in events]
    result = replay(lines)
    assert result.error is None and result.summary is not None
    assert result.summary["chips"] == [6, 3, 3] and result.summary["dealer"] == 0 and result.summary["hand"] == 2
    undone = replay([*lines, '{"event": "undo"}'])
    assert undone.summary is not None and undone.summary["phase"] == "hand"
    wrong = replay([*lines[:-1], '{"event": "hand", "dealer": 1}'])
    assert wrong.error is not None and wrong.error.article == "Pif Paf (Cacheta)"
