"""Truco dealt face down (seed 001, Dealing procedure): the table learns each card only when it is played."""

from __future__ import annotations

from engines.cards.replay import replay
from engines.cards.truco.game import (
    DealTo,
    ElevenDecision,
    Keep,
    Offer,
    PassToPartner,
    PlayCard,
    Reject,
    StartHand,
    TrucoGame,
    parse_action,
)
from engines.cards.truco.trick import TrucoError
from tests.cards.helpers import cards, refused, run
from tests.cards.test_truco import NAMES, c, game


def hidden_deal(state: TrucoGame | None = None, dealer: int = 3) -> TrucoGame:
    """A hand dealt face down: the mão keeps, the others get three cards each, none known."""
    state = (state or game()).apply(StartHand(dealer))
    if state.kind == "normal":
        mao = (dealer + 1) % 4
        state = run(state, [Offer(), Keep(mao)])
    while state.deal_queue:
        state = state.apply(DealTo(state.deal_queue[0]))
    return state


def test_a_face_down_deal_reaches_play_with_three_unknown_cards_each() -> None:
    state = hidden_deal()
    assert state.phase == "play"
    assert state.hidden == (3, 3, 3, 3)
    assert [state.cards_left(s) for s in range(4)] == [3, 3, 3, 3]
    assert state.summary()["hidden"] == [3, 3, 3, 3]


def test_cards_played_from_a_face_down_hand_are_checked_against_what_was_seen() -> None:
    state = run(hidden_deal(), [PlayCard(0, c("AS")), PlayCard(1, c("7H"))])
    assert state.hidden == (2, 2, 3, 3)
    refused(state, PlayCard(2, c("AS")), TrucoError, "Juego de la mano", "la carta AS ya se vio")
    refused(state, PlayCard(2, c("8S")), TrucoError, "Truco", "no está en la baraja")
    state = run(state, [PlayCard(2, c("4C")), PlayCard(3, c("3S"))])
    assert state.tricks[0].team == 0 and state.tricks[0].winner == 2


def test_a_face_down_hand_is_won_by_its_tricks() -> None:
    state = hidden_deal()
    plays = ["AS 7H 4C 3S", "2C JS 3H 2H", "QH 5C KD 6C"]
    for trick in plays:
        for card in trick.split():
            state = state.apply(PlayCard(state.turn, c(card)))
        if state.phase != "play":
            break
    assert state.phase == "hand"
    assert state.scores == (1, 0)


def test_pass_and_reject_with_unknown_cards() -> None:
    state = game().apply(StartHand(3))
    state = run(state, [Offer(), Reject(0), Offer(), PassToPartner(0), Offer(), Keep(0)])
    assert state.hidden[2] == 3 and state.hidden[0] == 3
    assert state.deal_queue == (1, 3)
    state = run(state, [DealTo(1), DealTo(3)])
    assert state.phase == "play"


def test_known_and_face_down_hands_mix() -> None:
    state = game().apply(StartHand(3))
    state = run(state, [Offer(cards("AS 2C QH")), Keep(0), DealTo(1), DealTo(2, cards("4C 3H KD")), DealTo(3)])
    refused(state, PlayCard(0, c("4C")), TrucoError, "Juego de la mano", "Ana no tiene la carta 4C")  # known cards
    state = state.apply(PlayCard(0, c("AS")))
    refused(state, PlayCard(1, c("4C")), TrucoError, "Juego de la mano", "la carta 4C ya se vio")  # seat 2 holds it


def test_iron_hand_face_down() -> None:
    state = hidden_deal(game((11, 11)))
    assert state.kind == "iron" and state.phase == "play"
    state = run(state, [PlayCard(0, c("4C")), PlayCard(1, c("4S")), PlayCard(2, c("5S")), PlayCard(3, c("6S"))])
    refused(state, PlayCard(0, c("AS"), down=True), TrucoError, "La mano de once", "no hay tapadas")


def test_eleven_hand_face_down() -> None:
    state = hidden_deal(game((11, 4)))
    assert state.phase == "eleven"
    state = state.apply(ElevenDecision(0, True))
    assert state.stake == 3 and state.hidden == (3, 3, 3, 3)


def test_log_events_without_cards_are_face_down() -> None:
    assert parse_action({"event": "offer"}) == Offer()
    assert parse_action({"event": "deal", "seat": 2}) == DealTo(2)
    lines = [
        '{"event": "start", "game": "truco", "players": ["Ana", "Beto", "Caro", "Davi"]}',
        '{"event": "hand", "dealer": 3}',
        '{"event": "offer"}',
        '{"event": "keep", "player": 0}',
        '{"event": "deal", "seat": 1}',
        '{"event": "deal", "seat": 2}',
        '{"event": "deal", "seat": 3}',
        '{"event": "play", "player": 0, "card": "AS"}',
    ]
    result = replay(lines)
    assert result.error is None and result.summary is not None
    assert result.summary["hidden"] == [2, 3, 3, 3]
    assert result.summary["players"] == list(NAMES)


def test_a_short_known_deal_is_still_refused() -> None:
    state = game().apply(StartHand(3))
    refused(state, Offer(cards("AS 2C")), TrucoError, "El reparto", "se reparten tres cartas, no 2")
