"""A whole hand of Spanish Cacho: the three betting rounds, resto, redeal and showdown (seed 000)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.cards.cacho.game import Bet, CachoHand, CachoOptions, Call, Deal, Pass, Raise
from engines.cards.cacho.showdown import CachoError
from engines.cards.deck import CACHO_DECK, SUITS, Card
from tests.cards.helpers import cards, refusal, run


def hand(chips: tuple[int, ...] = (20, 20, 20), **options: object) -> CachoHand:
    names = ("Ana", "Beto", "Caro", "Davi")[: len(chips)]
    return CachoHand.start(names, chips, CachoOptions(**options))  # type: ignore[arg-type]


def test_first_round_pass_is_out_and_loses_nothing_bet_is_one_chip() -> None:
    state = run(hand(), [Deal(cards("AD 3S 6C")), Bet(0), Pass(1), Bet(2)])
    assert state.chips == (19, 20, 19)
    assert state.pot == 2
    assert state.in_hand == (0, 2)
    assert state.round == 2 and state.phase == "deal"


def test_all_pass_in_the_first_round_gathers_and_deals_again() -> None:
    state = run(hand(), [Deal(cards("AD 3S 6C")), Pass(0), Pass(1), Pass(2)])
    assert state.round == 1 and state.phase == "deal"
    assert state.redeals == 1
    assert state.hands == ((), (), ())
    assert state.chips == (20, 20, 20) and state.pot == 0
    # The same cards may come again after the new shuffle.
    state = state.apply(Deal(cards("AD 3S 6C")))
    assert state.phase == "bet"


def test_second_round_pass_loses_the_chip_bet_puts_two_more() -> None:
    state = run(
        hand(),
        [Deal(cards("AD 3S 6C")), Bet(0), Bet(1), Bet(2), Deal(cards("4D 2S 5C")), Bet(0), Pass(1), Bet(2)],
    )
    assert state.chips == (17, 19, 17)
    assert state.pot == 7  # three from each player still in and the single chip of the one who passed
    assert state.in_hand == (0, 2)
    assert state.round == 3


def test_everyone_passing_in_the_second_round_all_stay_for_the_third() -> None:
    state = run(
        hand(),
        [Deal(cards("AD 3S 6C")), Bet(0), Bet(1), Pass(2), Deal(cards("4D 2S")), Pass(0), Pass(1)],
    )
    assert state.round == 3 and state.in_hand == (0, 1)
    assert state.pot == 2


def test_lone_bettor_takes_the_pot() -> None:
    state = run(hand(), [Deal(cards("AD 3S 6C")), Pass(0), Bet(1), Pass(2)])
    assert state.phase == "over" and state.winner == 1
    assert state.chips == (20, 20, 20)
    second = run(hand(), [Deal(cards("AD 3S 6C")), Bet(0), Bet(1), Pass(2), Deal(cards("4D 2S")), Bet(0), Pass(1)])
    assert second.winner == 0 and second.chips == (21, 19, 20) and second.pot == 0


def third_round(chips: tuple[int, ...] = (20, 20, 20)) -> CachoHand:
    return run(
        hand(chips),
        [
            Deal(cards("AD 3S 6C")),
            Bet(0),
            Bet(1),
            Bet(2),
            Deal(cards("4D 2S 5C")),
            Bet(0),
            Bet(1),
            Bet(2),
            Deal(cards("5D 6H 2H")),
        ],
    )


def test_third_round_poker_style_and_showdown() -> None:
    state = run(third_round(), [Raise(0, 2), Raise(1, 3), Pass(2), Call(0)])
    # Ana: A-4-5 of diamonds (cacho, 30) beats Beto's 3-2 of spades (two-card flush).
    assert state.phase == "over" and state.winner == 0
    assert state.result is not None and state.result.decided_by == "category"
    assert state.chips == (17 - 5 + 9 + 10, 17 - 5, 17)
    assert sum(state.chips) + state.pot == 60


def test_third_round_last_one_standing_wins_without_showdown() -> None:
    state = run(third_round(), [Raise(0, 1), Pass(1), Pass(2)])
    assert state.winner == 0 and state.result is None
    assert state.chips == (17 - 1 + 10, 17, 17)


def test_calls_without_raise_show_the_hands() -> None:
    state = run(third_round(), [Call(0), Call(1), Call(2)])
    assert state.phase == "over" and state.result is not None
    assert state.pot == 0 and sum(state.chips) == 60


def test_call_without_bet_can_be_forbidden() -> None:
    state = run(
        hand((20, 20), call_without_bet=False),
        [Deal(cards("AD 3S")), Bet(0), Bet(1), Deal(cards("4D 2S")), Bet(0), Bet(1), Deal(cards("5D 6H"))],
    )
    with pytest.raises(CachoError, match="nadie ha apostado"):
        state.check(Call(0))


def test_resto_no_raise_beyond_the_poorest_player_still_in() -> None:
    state = third_round((20, 10, 20))  # Beto has 7 chips left after the first two rounds
    # "if one of the active players only has 7 chips left, the raising of the bids must end at 7"
    assert state.resto == 7
    with refusal(CachoError, "Resto - Limit on Raises", "más allá del resto: 7 fichas"):
        state.check(Raise(0, 8))
    raised = run(state, [Raise(0, 4)])
    with refusal(CachoError, "Resto - Limit on Raises", "más allá del resto: 7 fichas"):
        raised.check(Raise(1, 4))
    state = run(state, [Raise(0, 7), Call(1), Call(2)])
    assert state.phase == "over"
    assert sum(state.chips) == 50


def test_refusals() -> None:
    with pytest.raises(CachoError, match="de 2 a 4"):
        hand((20,))
    with pytest.raises(CachoError, match="de 2 a 4"):
        CachoHand.start(("A", "B", "C", "D", "E"), (20,) * 5)
    state = hand()
    with pytest.raises(CachoError, match="primero se reparte"):
        state.check(Bet(0))
    with pytest.raises(CachoError, match="una carta a cada jugador"):
        state.check(Deal(cards("AD 3S")))
    with pytest.raises(CachoError, match="no está en la baraja"):
        state.check(Deal(cards("AD 3S 9C")))
    state = state.apply(Deal(cards("AD 3S 6C")))
    with pytest.raises(CachoError, match="no es su turno"):
        state.check(Bet(1))
    with pytest.raises(CachoError, match="no hay subidas"):
        state.check(Raise(0, 1))
    with pytest.raises(CachoError, match="no hay subidas"):
        state.check(Call(0))
    with pytest.raises(CachoError, match="no toca repartir"):
        state.check(Deal(cards("2D 3D 4D")))
    state = run(state, [Bet(0), Bet(1), Bet(2)])
    with pytest.raises(CachoError, match="repetida"):
        state.check(Deal(cards("AD 2C 3C")))
    broke = run(hand((0, 20)), [Deal(cards("AD 3S"))])
    with pytest.raises(CachoError, match="no tiene fichas"):
        broke.check(Bet(0))
    final = run(third_round(), [Raise(0, 1), Pass(1), Pass(2)])
    with pytest.raises(CachoError, match="ya terminó"):
        final.check(Bet(0))
    third = third_round()
    with pytest.raises(CachoError, match="se pasa, se iguala o se sube"):
        third.check(Bet(0))
    with pytest.raises(CachoError, match="al menos una ficha"):
        third.check(Raise(0, 0))


def test_legal_actions_use_the_same_checks() -> None:
    state = run(hand(), [Deal(cards("AD 3S 6C"))])
    legal = {item.action: item for item in state.legal_actions()}
    assert legal["pass"].allowed and legal["bet"].allowed
    assert not legal["raise"].allowed and legal["raise"].article == "The first round"


ALL = [Card(rank, suit) for rank in range(1, 7) for suit in SUITS]


@given(
    st.lists(st.integers(0, 12), min_size=2, max_size=4),
    st.integers(0, 2**32),
)
def test_chips_are_conserved_and_every_hand_ends(chips: list[int], seed: int) -> None:
    # A seeded generator, not hypothesis' own choices: passing forever is legal, just never random.
    rnd = random.Random(seed)
    state = hand(tuple(chips))
    total = sum(chips)
    for _ in range(300):
        if state.phase == "over":
            break
        if state.phase == "deal":
            used = {c for h in state.hands for c in h}
            free = [c for c in ALL if c not in used]
            state = state.apply(Deal(tuple(rnd.sample(free, len(state.in_hand)))))
            continue
        allowed = [item for item in state.legal_actions() if item.allowed]
        assert allowed, state.summary()
        choice = rnd.choice(allowed).action
        p = state.next_player
        assert p is not None
        action = {"pass": Pass(p), "bet": Bet(p), "call": Call(p), "raise": Raise(p, 1)}[choice]
        state = state.apply(action)
        assert sum(state.chips) + state.pot == total
        assert all(c >= 0 for c in state.chips)
        CACHO_DECK.check(c for h in state.hands for c in h)
    # With nobody able to bet the cards are gathered forever; otherwise the hand ends.
    assert state.phase == "over" or not any(chips)
    if state.phase == "over":
        assert state.pot == 0 and state.winner is not None
