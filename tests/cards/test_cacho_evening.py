"""Spanish Cacho dealt face down and shown at the end, and an evening of hands with the chips carried over (000)."""

from __future__ import annotations

import json

from engines.cards.cacho.evening import CachoEvening, StartHand
from engines.cards.cacho.game import Bet, CachoHand, Call, Deal, Pass, Raise, Show
from engines.cards.cacho.showdown import CachoError
from engines.cards.replay import replay
from tests.cards.helpers import cards, refusal, run


def face_down_to_showdown() -> CachoHand:
    """Ana and Beto bet in every round, face down, and call in the third: the hands must be shown."""
    hand = CachoHand.start(["Ana", "Beto"], [10, 10])
    return run(hand, [Deal(), Bet(0), Bet(1), Deal(), Bet(0), Bet(1), Deal(), Raise(0, 2), Call(1)])


def test_a_face_down_hand_waits_for_the_hands_shown() -> None:
    hand = face_down_to_showdown()
    assert hand.phase == "show" and hand.pot == 10 and hand.unseen == (3, 3)
    assert hand.summary()["unseen"] == [3, 3]
    with refusal(CachoError, "Winning", "terminaron las apuestas: se muestran las manos"):
        hand.check(Pass(0))
    done = hand.apply(Show((cards("AD 4D 5D"), cards("4S 2S 6D"))))
    assert done.phase == "over" and done.winner == 0 and done.chips == (15, 5) and done.won == 10
    assert done.summary()["showdown"]["hands"][0] == {"category": "cacho", "points": 30}


def test_what_is_shown_is_checked() -> None:
    hand = face_down_to_showdown()
    for shown, article, text in (
        ((cards("AD 4D"), cards("4S 2S 6D")), "Winning", "Ana muestra tres cartas, no 2"),
        ((cards("AD 4D 5D"),), "Winning", "las manos de los 2 jugadores"),
        ((cards("AD 4D 5D"), cards("AD 2S 6D")), "Background", "la carta AD está repetida"),
        ((cards("AD 4D 5D"), cards("4S 2S 7D")), "Background", "la carta 7D no está en la baraja"),
    ):
        with refusal(CachoError, article, text):
            hand.check(Show(shown))
    before = CachoHand.start(["Ana", "Beto"], [10, 10]).apply(Deal())
    with refusal(CachoError, "Winning", "las manos se muestran al terminar las apuestas de la tercera ronda"):
        before.check(Show((cards("AD 4D 5D"), cards("4S 2S 6D"))))


def test_a_card_dealt_face_up_must_be_shown() -> None:
    hand = CachoHand.start(["Ana", "Beto"], [10, 10])
    hand = run(hand, [Deal(cards("AD 2S")), Bet(0), Bet(1), Deal(), Bet(0), Bet(1), Deal(), Call(0), Call(1)])
    assert hand.phase == "show"
    with refusal(CachoError, "Winning", "Ana recibió AD a la vista: debe mostrarla"):
        hand.check(Show((cards("3D 4D 5D"), cards("2S 4S 6D"))))
    assert hand.apply(Show((cards("AD 4D 5D"), cards("2S 4S 6D")))).winner == 0


def test_a_hand_won_without_showing_needs_no_cards() -> None:
    hand = CachoHand.start(["Ana", "Beto"], [10, 10])
    hand = run(hand, [Deal(), Bet(0), Pass(1)])
    assert hand.phase == "over" and hand.winner == 0 and hand.chips == (10, 10) and hand.won == 1


def evening() -> CachoEvening:
    return CachoEvening.start(["Ana", "Beto", "Caro"], [10, 10, 10])


def test_an_evening_carries_the_chips_and_passes_the_deal_left() -> None:
    night = evening().apply(StartHand(1))
    assert night.hand is not None and night.hand.players == ("Beto", "Caro", "Ana")
    night = run(night, [Deal(), Bet(1), Pass(2), Bet(0), Deal(), Bet(1), Bet(0), Deal(), Raise(1, 2), Call(0)])
    assert night.phase == "show" and night.chips == (5, 5, 10)
    summary = night.summary()
    assert summary["in_hand"] == [1, 0] and summary["pot"] == 10
    shown = (cards("4S 2S 6D"), cards("AD 4D 5D"))  # Beto's (the eldest's) first, then Ana's
    night = night.apply(Show(shown))
    assert night.phase == "hand" and night.chips == (15, 5, 10)
    last = night.summary()["last_hand"]
    assert last["winner"] == 0 and last["pot"] == 10
    assert last["showdown"]["hands"][1] == {"seat": 0, "cards": ["AD", "4D", "5D"], "category": "cacho", "points": 30}
    with refusal(CachoError, "Dealing", "el mano de esta mano es Caro"):
        night.check(StartHand(0))
    night = night.apply(StartHand(2))
    assert night.hand is not None and night.hand.chips == (10, 15, 5)
    with refusal(CachoError, "The first round", "no es su turno: le toca a Caro"):
        night.apply(Deal()).check(Bet(0))


def test_an_evening_log_replays_and_undoes() -> None:
    start = {"event": "start", "game": "cacho", "players": ["Ana", "Beto"], "chips": [6, 6], "evening": True}
    events = [
        start,
        {"event": "hand", "eldest": 0},
        {"event": "deal"},
        {"event": "bet", "player": 0},
        {"event": "bet", "player": 1},
        {"event": "deal"},
        {"event": "bet", "player": 0},
        {"event": "pass", "player": 1},
        {"event": "hand", "eldest": 1},
        {"event": "deal"},
        {"event": "bet", "player": 1},
        {"event": "bet", "player": 0},
        {"event": "deal"},
        {"event": "bet", "player": 1},
        {"event": "bet", "player": 0},
        {"event": "deal"},
        {"event": "call", "player": 1},
        {"event": "call", "player": 0},
        {"event": "show", "hands": [["6S", "6H", "6D"], ["AD", "4D", "5D"]]},
    ]
    lines = [json.dumps(e) for e in events]
    result = replay(lines)
    assert result.error is None and result.summary is not None
    assert result.summary["chips"] == [10, 2] and result.summary["hands_won"] == [2, 0]
    assert result.summary["last_hand"]["showdown"]["decided_by"] == "category"
    undone = replay([*lines, '{"event": "undo"}'])
    assert undone.summary is not None and undone.summary["phase"] == "show"
    bad = replay([*lines[:-1], json.dumps({"event": "show", "hands": [["6S", "6H", "6D"], None]})])
    assert bad.error is not None and bad.error.article == "Winning"
    malformed = replay([*lines[:-1], json.dumps({"event": "show", "hands": [["6S", "6H", "6D"]]})])
    assert malformed.error is not None and malformed.error.article is None


def test_without_rotation_any_seat_may_be_the_eldest() -> None:
    night = CachoEvening.start(["Ana", "Beto"], [5, 5], deal_rotates=False).apply(StartHand(1))
    night = run(night, [Deal(), Bet(1), Pass(0)])
    assert night.apply(StartHand(1)).eldest == 1
    start = '{"event": "start", "game": "cacho", "players": ["A", "B"], "chips": [5, 5], "evening": true, '
    result = replay([start + '"options": {"deal_rotates": false}}'])
    assert result.error is None
