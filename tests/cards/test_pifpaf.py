"""A hand of Pif Paf (seed 001): ante, capped betting, draw/discard, turnover, claims and going out."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.cards.deck import SUITS, Card
from engines.cards.pifpaf.game import (
    Call,
    Claim,
    Deal,
    Discard,
    Draw,
    Fold,
    GoOut,
    PifPafError,
    PifPafHand,
    PifPafOptions,
    Raise,
)
from tests.cards.helpers import cards, refusal, refused, run

HANDS = (
    cards("AS 2H 9D JD QH KS 4H 10C 5C"),
    cards("3S 4S 5S 6H 6D 6C 7C 8C KD"),  # goes out with the 9♣, discarding the K♦
    cards("2C 3D 8H 9H JS QS AD 7S 10D"),
)


def hand(chips: tuple[int, ...] = (50, 50, 50), ante: int = 2, **options: object) -> PifPafHand:
    names = ("Ana", "Beto", "Caro", "Davi", "Eva", "Fede", "Gabi", "Hugo")[: len(chips)]
    return PifPafHand.start(names, chips, ante, PifPafOptions(**options))  # type: ignore[arg-type]


def playing(**options: object) -> PifPafHand:
    return run(hand(**options), [Deal(HANDS), Call(0), Call(1), Call(2)])


def test_everyone_antes() -> None:
    state = hand()
    assert state.chips == (48, 48, 48) and state.pot == 6


def test_betting_cap_is_ante_times_players() -> None:
    # "in a four-player game with a 5¢ ante, the maximum bet allowed is 20¢"
    state = run(hand((100, 100, 100, 100), ante=5), [Deal((*HANDS, cards("AH 2D 3C 4S 5H 6S 7D 8S 9S")))])
    assert state.cap == 20
    with refusal(PifPafError, "Game play", "más allá de ante × jugadores = 20 fichas"):
        state.check(Raise(0, 21))
    state = run(state, [Raise(0, 15)])
    with refusal(PifPafError, "Game play", "más allá de ante × jugadores = 20 fichas"):
        state.check(Raise(1, 6))
    state = run(state, [Raise(1, 5), Call(2), Call(3), Call(0)])
    assert state.phase == "play" and state.pot == 20 + 4 * 20


def test_per_raise_cap_option() -> None:
    state = run(hand((100, 100, 100), ante=2, bet_cap="raise"), [Deal(HANDS), Raise(0, 6)])
    state = state.apply(Raise(1, 6))
    assert state.level == 12
    refused(state, Raise(2, 7), PifPafError, "Game play", "más allá de ante × jugadores = 6 fichas")


def test_all_fold_but_one_takes_the_pot_and_the_hand_is_not_played() -> None:
    state = run(hand(), [Deal(HANDS), Raise(0, 3), Fold(1), Fold(2)])
    assert state.phase == "over" and state.winner == 0
    assert state.chips == (48 - 3 + 9, 48, 48)


def test_turns_draw_discard_and_going_out() -> None:
    state = playing()
    assert state.turn == 0 and state.must_draw
    with pytest.raises(PifPafError, match="no hay descarte"):
        state.check(Draw(0, "discard"))
    state = run(state, [Draw(0, "stock", cards("7D")[0]), Discard(0, cards("7D")[0])])
    assert state.turn == 1
    state = run(state, [Draw(1, "stock", cards("9C")[0]), GoOut(1, cards("KD")[0])])
    assert state.phase == "over" and state.winner == 1
    assert state.chips == (48, 54, 48)
    assert len(state.melds) == 3


def test_going_out_with_a_bad_hand_is_refused() -> None:
    state = run(playing(), [Draw(0, "stock", cards("7D")[0])])
    with refusal(PifPafError, "Play of the hand", "no forman todas juegos válidos"):
        state.check(GoOut(0, cards("7D")[0]))


def test_claiming_the_discard_out_of_turn() -> None:
    state = run(playing(), [Draw(0, "stock", cards("9C")[0]), Discard(0, cards("9C")[0])])
    # Ana's 9♣ completes Beto's 7♣8♣; he claims it, discards the K♦ and goes out.
    state = state.apply(Claim(1, cards("KD")[0]))
    assert state.winner == 1 and state.phase == "over"


def test_claim_priority_goes_to_the_next_in_turn_from_the_discarder() -> None:
    hands = (
        cards("AS 2H 9D JD QH KS 4H 10C 5C"),
        cards("3S 4S 5S 6H 6D 6C 7C 8C KD"),
        cards("3H 4H 5H 7H 7D 7S JC QC KS"),  # goes out with the 10♣ (or K♣), discarding the K♠
    )
    base = run(hand(), [Deal(hands), Call(0), Call(1), Call(2)])
    # Ana discards 9♣: only Beto goes out with it.
    state = run(base, [Draw(0, "stock", cards("9C")[0]), Discard(0, cards("9C")[0])])
    with pytest.raises(PifPafError, match="no completa"):
        state.check(Claim(2, cards("KS")[0]))
    # Ana discards 10♣: Caro goes out out of turn (Beto, who is next, cannot use it).
    state = run(base, [Draw(0, "stock", cards("10C")[0]), Discard(0, cards("10C")[0])])
    state.check(Claim(2, cards("KS")[0]))


def test_two_claimants_the_nearer_one_has_priority() -> None:
    hands = (
        cards("AS 2H 9D JD QH KS 4H 10C 5C"),
        cards("3S 4S 5S 6H 6D 6S 7C 8C KD"),  # goes out with the 9♣
        cards("3H 4H 5H 7H 7D 7S 10C JC KS"),  # goes out with 9♣ too (9-10-J of clubs)
    )
    base = run(hand(), [Deal(hands), Call(0), Call(1), Call(2)])
    state = run(base, [Draw(0, "stock", cards("9C")[0]), Discard(0, cards("9C")[0])])
    with pytest.raises(PifPafError, match="Beto también sale con 9C y tiene prioridad"):
        state.check(Claim(2, cards("KS")[0]))
    state.check(Claim(1, cards("KD")[0]))
    # Without the priority option either may claim.
    free = run(hand(claim_priority=False), [Deal(hands), Call(0), Call(1), Call(2)])
    free = run(free, [Draw(0, "stock", cards("9C")[0]), Discard(0, cards("9C")[0])])
    free.check(Claim(2, cards("KS")[0]))
    # Once the next player draws, the discard can no longer be claimed.
    drawn = state.apply(Draw(1, "stock", cards("2S")[0]))
    with pytest.raises(PifPafError, match="no hay descarte recién tirado"):
        drawn.check(Claim(2, cards("KS")[0]))


def test_stock_is_turned_over_without_shuffling() -> None:
    state = playing()
    assert state.table is not None and state.table.stock_count == 104 - 27
    state = replace(state, table=replace(state.table, stock_count=2))  # two cards left in the stock
    state = run(
        state,
        [
            Draw(0, "stock", cards("2D")[0]),
            Discard(0, cards("AS")[0]),
            Draw(1, "stock", cards("3D")[0]),
            Discard(1, cards("KD")[0]),
        ],
    )
    assert state.table is not None and state.table.stock_count == 0
    # "turn over the discard pile to form a new stock without shuffling it": A♠ (bottom) comes first.
    with pytest.raises(PifPafError, match="sin barajar: la carta que sale es AS, no KD"):
        state.check(Draw(2, "stock", cards("KD")[0]))
    state = state.apply(Draw(2, "stock", cards("AS")[0]))
    assert state.table is not None and state.table.discard == () and state.table.stock_known == cards("KD")
    state = run(state, [Discard(2, cards("2C")[0]), Draw(0, "stock", cards("KD")[0])])
    assert state.table is not None and state.table.stock_known == () and state.table.discard == cards("2C")


def test_refusals() -> None:
    with pytest.raises(PifPafError, match="de 3 a 8"):
        hand((50, 50))
    with pytest.raises(PifPafError, match="apuesta inicial"):
        hand((50, 1, 50))
    state = hand()
    with pytest.raises(PifPafError, match="primero se reparten"):
        state.check(Call(0))
    with pytest.raises(PifPafError, match="9 cartas"):
        state.check(Deal((HANDS[0], HANDS[1], HANDS[2][:8])))
    with pytest.raises(PifPafError, match="repetida"):
        state.check(Deal((HANDS[0], HANDS[0], HANDS[0])))
    state = state.apply(Deal(HANDS))
    with pytest.raises(PifPafError, match="no es su turno"):
        state.check(Call(1))
    with pytest.raises(PifPafError, match="primero se termina"):
        state.check(Draw(0, "stock", cards("7D")[0]))
    with pytest.raises(PifPafError, match="fichas suficientes"):
        run(hand((50, 50, 3), ante=2), [Deal(HANDS), Raise(0, 2), Call(1)]).check(Call(2))
    play = playing()
    with pytest.raises(PifPafError, match="no es su turno"):
        play.check(Draw(1, "stock", cards("7D")[0]))
    with pytest.raises(PifPafError, match="anotar la carta"):
        play.check(Draw(0, "stock", None))
    with pytest.raises(PifPafError, match="primero roba"):
        play.check(Discard(0, cards("AS")[0]))
    with pytest.raises(PifPafError, match="ya están a la vista las dos"):
        run(play, [Draw(0, "stock", cards("6D")[0]), Discard(0, cards("6D")[0])]).check(
            Draw(1, "stock", cards("6D")[0])
        )
    drawn = play.apply(Draw(0, "stock", cards("7D")[0]))
    with pytest.raises(PifPafError, match="ya robó"):
        drawn.check(Draw(0, "stock", cards("8D")[0]))
    with pytest.raises(PifPafError, match="no tiene la carta"):
        drawn.check(Discard(0, cards("KD")[0]))
    with pytest.raises(PifPafError, match="propio descarte"):
        drawn.apply(Discard(0, cards("7D")[0])).check(Claim(0, cards("AS")[0]))
    folded = run(hand(), [Deal(HANDS), Call(0), Call(1), Fold(2)])
    with pytest.raises(PifPafError, match="se retiró"):
        folded.check(Claim(2, cards("2C")[0]))
    legal = {item.action: item for item in drawn.legal_actions(0)}
    assert legal["discard 7D"].allowed and not legal["draw stock"].allowed


@given(st.integers(0, 2**32), st.integers(3, 6))
def test_chips_are_conserved_in_betting(seed: int, players: int) -> None:
    rnd = random.Random(seed)
    deck = [Card(rank, suit) for rank in range(1, 14) for suit in SUITS]
    deck = deck * 2
    rnd.shuffle(deck)
    chips = tuple(rnd.randint(2, 40) for _ in range(players))
    state = hand(chips, ante=2)
    state = state.apply(Deal(tuple(tuple(deck[9 * i : 9 * i + 9]) for i in range(players))))
    total = sum(chips)
    while state.phase == "bet":
        p = state.to_act[0]
        options = [Fold(p), Call(p), Raise(p, rnd.randint(1, state.cap))]
        legal = [a for a in options if _ok(state, a)]
        state = state.apply(rnd.choice(legal))
        assert sum(state.chips) + state.pot == total
        assert state.level <= state.cap
    assert state.phase in ("play", "over")


def _ok(state: PifPafHand, action: object) -> bool:
    try:
        state.check(action)  # type: ignore[arg-type]
    except PifPafError:
        return False
    return True
