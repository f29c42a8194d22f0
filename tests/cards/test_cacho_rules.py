"""Spanish Cacho against the text of seed 000: the three betting rounds, the resto, the showdown.

Written from the seed's text; documented decisions (docs/rulings.md, "Juegos de cartas") are followed.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engines.cards.cacho.game import Bet, CachoHand, Call, Deal, Pass, Raise
from engines.cards.cacho.showdown import CachoError, evaluate, showdown
from engines.cards.deck import SUITS, Card, parse_cards
from tests.cards.helpers import refusal, refused

CACHO = Path(sys.executable).parent / "cacho"
NAMES = ("Ana", "Beto", "Caro", "Davi")  # seat 0 is the eldest (the dealer's left)


def h(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


# --- Showdown: categories -------------------------------------------------------------------------------

# One hand of each category, no card shared, each as strong as possible against the next one down in
# points: the category must decide, never the points.
SIXES = "6S 6H 6D"
CACHO_LOW = "AC 2C 3C"  # 1+2+3+20 = 26, the weakest cacho
FLUSH_HIGH = "5S 4S 3H"  # 5+4+20 = 29 as a two-card flush
HIGH = "6C 5D 4H"  # highest card 6
RANKED = [SIXES, CACHO_LOW, FLUSH_HIGH, HIGH]


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_category_order_whatever_the_seats(order: tuple[int, ...]) -> None:
    # Three sixes > cacho > two-card flush > highest card, in any seating.
    hands = [h(RANKED[i]) for i in order]
    assert order[showdown(hands).winner] == 0
    for a, b in itertools.combinations(range(4), 2):
        pair = [h(RANKED[order[a]]), h(RANKED[order[b]])]
        expected = 0 if order[a] < order[b] else 1
        assert showdown(pair).winner == expected


def test_categories_and_points_as_the_seed_counts_them() -> None:
    assert evaluate(h(SIXES)).category.name == "THREE_SIXES"
    assert evaluate(h(CACHO_LOW)).category.name == "CACHO"
    assert evaluate(h(FLUSH_HIGH)).category.name == "TWO_FLUSH"
    assert evaluate(h(HIGH)).category.name == "HIGH_CARD"
    # "Ace, 4, and 5 of diamonds ... 1+4+5+20=30"
    assert evaluate(h("AD 4D 5D")).points == 30
    # "4 of spades, a 2 of spades, and a 6 of diamonds": only the two spades count (rulings: 26, not 28).
    assert evaluate(h("4S 2S 6D")).points == 26


def test_a_cacho_always_beats_a_two_card_flush_regardless_of_points() -> None:
    # A cacho worth 26 against a two-card flush worth 6+5+20 = 31.
    for hands, winner in (([h("AH 2H 3H"), h("6S 5S 4D")], 0), ([h("6S 5S 4D"), h("AH 2H 3H")], 1)):
        result = showdown(hands)
        assert result.winner == winner and result.decided_by == "category"


def test_three_sixes_beat_the_best_cacho() -> None:
    # The best cacho holds a six: 4+5+6+20 = 35 (clubs), still below three sixes.
    result = showdown([h("4C 5C 6C"), h("6S 6H 6D")])
    assert result.winner == 1 and evaluate(h("4C 5C 6C")).points == 35


def test_a_weak_two_card_flush_beats_a_six_high() -> None:
    result = showdown([h("6D 5C 4H"), h("AS 2S 3H")])
    assert result.winner == 1 and result.decided_by == "category"


def test_two_card_flush_points_count_only_the_two_suited_cards() -> None:
    # A♠ 2♠ + 6♦: 1+2+20 = 23 (all three would make 29); 4♥ 3♥ + A♣: 4+3+20 = 27 (all three 28).
    result = showdown([h("AS 2S 6D"), h("4H 3H AC")])
    assert [v.points for v in result.hands] == [23, 27]
    assert result.winner == 1 and result.decided_by == "points"


def test_ace_counts_one_in_points() -> None:
    # Two-card flushes: A♠ 6♠ = 1+6+20 = 27 against 5♥ 3♥ = 28.
    result = showdown([h("AS 6S 2D"), h("5H 3H 4C")])
    assert [v.points for v in result.hands] == [27, 28] and result.winner == 1
    # Between cachos: A-2-3 (26) loses to 2-3-4 (29).
    assert showdown([h("AD 2D 3D"), h("2H 3H 4H")]).winner == 1


def test_points_between_cachos_all_three_cards() -> None:
    result = showdown([h("AD 4D 5D"), h("AS 2S 6S"), h("2C 3C 4C")])
    assert [v.points for v in result.hands] == [30, 29, 29]
    assert result.winner == 0 and result.decided_by == "points"


def test_equal_points_the_eldest_of_the_tied_wins() -> None:
    # Four players: seats 2 and 3 tie on 30 with cachos; seats 0 and 1 hold weaker hands.
    hands = [h("AS 2H 4C"), h("3S 2D 6C"), h("AD 4D 5D"), h("2C 3C 5C")]
    result = showdown(hands)
    assert result.winner == 2 and result.decided_by == "eldest"
    result = showdown([hands[0], hands[1], hands[3], hands[2]])
    assert result.winner == 2
    # Between two-card flushes: A♠ 5♠ (26) and 2♦ 4♦ (26): the eldest.
    assert showdown([h("3H AS 5S"), h("2D 4D 6C")]).winner == 0
    assert showdown([h("2D 4D 6C"), h("3H AS 5S")]).winner == 0


def test_highest_card_six_high_to_ace_low() -> None:
    assert showdown([h("AS 2H 3D"), h("4C 2S AH")]).winner == 1
    assert showdown([h("5S 4H 3D"), h("6C 2S AH")]).winner == 1
    assert showdown([h("5S 4H 3D"), h("AC 2C 4D"), h("6H 2D 3S")]).winner == 1  # a flush, not a high card


# --- The betting rounds ---------------------------------------------------------------------------------


def start(chips: tuple[int, ...]) -> CachoHand:
    return CachoHand.start(NAMES[: len(chips)], chips)


def run(state: CachoHand, actions: list[object]) -> CachoHand:
    for action in actions:
        state = state.apply(action)  # type: ignore[arg-type]
    return state


def test_first_round_pass_is_out_and_free_bet_is_one_chip_no_raises() -> None:
    state = run(start((10, 10, 10, 10)), [Deal(h("AS 2S 3S 4S"))])
    assert state.next_player == 0  # the eldest speaks first
    for bad in (Raise(0, 1), Call(0)):
        refused(state, bad, CachoError, "The first round", "no hay subidas: se pasa o se apuesta")
    state = run(state, [Pass(0), Bet(1), Bet(2), Pass(3)])
    assert state.chips == (10, 9, 9, 10) and state.pot == 2
    assert state.in_hand == (1, 2) and state.round == 2
    # The second card only to the remaining players.
    refused(state, Deal(h("5S 6S 5H")), CachoError, "Dealing", "a cada jugador que sigue: 2, no 3")
    state = state.apply(Deal(h("5S 6S")))
    assert (state.hands[1], state.hands[2]) == (h("2S 5S"), h("3S 6S"))


def test_all_pass_first_round_cards_gathered_and_dealt_again() -> None:
    state = run(start((5, 5)), [Deal(h("AS 2S")), Pass(0), Pass(1)])
    assert state.round == 1 and state.phase == "deal" and state.chips == (5, 5) and state.pot == 0
    state = run(state, [Deal(h("AS 2S")), Bet(0), Bet(1)])
    assert state.round == 2


def test_second_round_pass_loses_the_first_chip_bet_two_more_no_raises() -> None:
    state = run(start((10, 10, 10)), [Deal(h("AS 2S 3S")), Bet(0), Bet(1), Bet(2), Deal(h("4S 5S 6S"))])
    for bad in (Raise(0, 1), Call(0)):
        refused(state, bad, CachoError, "The Second Round", "no hay subidas: se pasa o se apuesta")
    state = run(state, [Bet(0), Pass(1), Bet(2)])
    # "three chips from each of the remaining players and any single chips from the players [who] bet in
    # the first round but passed in the second"
    assert state.pot == 3 + 3 + 1
    assert state.chips == (7, 9, 7) and state.in_hand == (0, 2) and state.round == 3


def test_everyone_passes_in_the_second_round_all_remain() -> None:
    state = run(start((10, 10, 10)), [Deal(h("AS 2S 3S")), Bet(0), Bet(1), Pass(2), Deal(h("4S 5S"))])
    state = run(state, [Pass(0), Pass(1)])
    assert state.round == 3 and state.in_hand == (0, 1) and state.chips == (9, 9, 10) and state.pot == 2


def to_third(chips: tuple[int, int, int], second: tuple[bool, bool, bool] = (True, True, True)) -> CachoHand:
    state = run(start(chips), [Deal(h("AS 2H 3D")), Bet(0), Bet(1), Bet(2), Deal(h("4C 5S 6H"))])
    for seat, bets in enumerate(second):
        state = state.apply(Bet(seat) if bets else Pass(seat))
    cards = {0: "5D", 1: "6D", 2: "2C"}
    return state.apply(Deal(tuple(h(cards[s])[0] for s in state.in_hand)))


def test_third_round_raise_call_and_show() -> None:
    state = to_third((20, 20, 20))
    state = run(state, [Raise(0, 3), Call(1), Raise(2, 2), Call(0), Pass(1)])
    assert state.phase == "over"
    # Ana A♠ 4♣ 5♦ (high card 5) against Caro 3♦ 6♥ 2♣ (high card 6): Caro.
    assert state.winner == 2
    assert state.chips == (17 - 5, 17 - 3, 17 - 5 + 9 + 5 + 3 + 5)
    assert sum(state.chips) == 60 and state.pot == 0


def test_third_round_everyone_passes_but_one_wins_without_showing() -> None:
    state = run(to_third((20, 20, 20)), [Raise(0, 1), Pass(1), Pass(2)])
    assert state.winner == 0 and state.result is None and state.chips == (17 - 1 + 10, 17, 17)


def test_resto_seed_example_seven_chips() -> None:
    # "if one of the active players only has 7 chips left, the raising of the bids must end at 7"
    state = to_third((20, 10, 20))
    assert state.chips == (17, 7, 17)
    with refusal(CachoError, "Resto - Limit on Raises", "más allá del resto: 7 fichas"):
        state.check(Raise(0, 8))
    state = run(state, [Raise(0, 3), Raise(1, 4)])  # the bids reach 7 in two raises
    refused(state, Raise(2, 1), CachoError, "Resto - Limit on Raises", "más allá del resto: 7 fichas")
    state = run(state, [Call(2), Call(0)])
    assert state.phase == "over" and sum(state.chips) == 50 and min(state.chips) >= 0


def test_resto_counts_only_remaining_players() -> None:
    # Beto passes in the second round with 2 chips left: he is out and does not limit the raises.
    state = to_third((20, 3, 20), second=(True, False, True))
    assert state.in_hand == (0, 2) and state.chips == (17, 2, 17)
    state.check(Raise(0, 17))
    refused(state, Raise(0, 18), CachoError, "Resto - Limit on Raises", "más allá del resto: 17 fichas")


def test_in_game_showdown_equal_points_the_eldest_still_in_wins() -> None:
    # Ana (the eldest) drops out in the second round; Beto and Caro show cachos worth 35 each.
    state = run(start((10, 10, 10)), [Deal(h("AS 4H 4D")), Bet(0), Bet(1), Bet(2), Deal(h("2S 5H 5D"))])
    state = run(state, [Pass(0), Bet(1), Bet(2), Deal(h("6H 6D")), Call(1), Call(2)])
    assert state.phase == "over" and state.winner == 1
    assert state.result is not None and state.result.decided_by == "eldest"
    assert state.chips == (9, 7 + 7, 7) and state.pot == 0


def test_no_one_bets_more_than_he_has_and_chips_are_conserved() -> None:
    deck = [Card(rank, suit) for rank in range(1, 7) for suit in SUITS]
    rnd = random.Random(7)
    for _ in range(150):
        chips = tuple(rnd.randint(0, 9) for _ in range(rnd.randint(2, 4)))
        state = start(chips)
        for _step in range(200):
            if state.phase == "over":
                break
            if state.phase == "deal":
                used = {card for hand in state.hands for card in hand}
                state = state.apply(Deal(tuple(rnd.sample([d for d in deck if d not in used], len(state.in_hand)))))
                continue
            p = state.next_player
            assert p is not None
            options = [Pass(p), Bet(p), Call(p), *(Raise(p, k) for k in (1, 2, 5))]
            legal = []
            for action in options:
                try:
                    state.check(action)
                except CachoError:
                    continue
                legal.append(action)
            state = state.apply(rnd.choice(legal))
            assert sum(state.chips) + state.pot == sum(chips)
            assert min(state.chips) >= 0
        if state.phase == "over":
            assert state.pot == 0 and state.winner is not None


# --- CLI, from outside ----------------------------------------------------------------------------------


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CACHO), "cards", *argv], capture_output=True, text=True, check=False, timeout=60)


def test_cli_showdown_contract_four_hands() -> None:
    done = cli("showdown", "--game", "cacho", "AS 2H 4C", "3S 2D 6C", "AD 4D 5D", "2C 3C 5C", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["winner"] == 2
    assert [(x["category"], x["points"]) for x in data["hands"]] == [
        ("high_card", 4),
        ("high_card", 6),
        ("cacho", 30),
        ("cacho", 30),
    ]
    done = cli("showdown", "--game", "cacho", "as 6s 2d", "5h 3h 4c", "6c 6h 6d", "--json")
    data = json.loads(done.stdout)
    assert data["winner"] == 2 and data["hands"][2]["category"] == "three_sixes"


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        (["AD 4D 5D", "2C 3C 7C"], "7C no está en la baraja"),
        (["AD 4D 5D", "2C 3C 5C", "2S 3S 4S", "2H 3H 4H", "5S 5H 6S"], "de 2 a 4"),
        (["AD 4D 5D 6D", "2C 3C 5C"], "3 cartas"),
        (["AD 4D 5D", "5D 3C 4C"], "repetida"),
        (["AD 4D 5", "2C 3C 4C"], "carta inválida"),
    ],
)
def test_cli_showdown_bad_input(hands: list[str], message: str) -> None:
    done = cli("showdown", "--game", "cacho", *hands)
    assert done.returncode != 0 and done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr
