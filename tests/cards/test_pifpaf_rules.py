"""Pif Paf against the text of seed 001: melds, the capped betting round, play and going out.

Written from the seed's text; documented decisions (docs/rulings.md, "Juegos de cartas") are followed.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from engines.cards.deck import SUITS, Card, parse_cards
from engines.cards.melds import PIFPAF_RULES, meld, split
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
    Raise,
)
from tests.cards.helpers import refusal, refused

CACHO = Path(sys.executable).parent / "cacho"
NAMES = ("Ana", "Beto", "Caro", "Davi", "Eva", "Fede", "Gabi", "Hugo")


def c(text: str) -> Card:
    return parse_cards(text)[0]


def is_meld(text: str) -> bool:
    return meld(parse_cards(text), PIFPAF_RULES) is not None


# --- Melds ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        # "Q♠-Q♥-Q♦ and Q♠-Q♥-Q♦-Q♦ are both groups, but Q♠-Q♦-Q♦ is not, and neither is Q♠-Q♥-Q♦-Q♣."
        ("QS QH QD", True),
        ("QS QH QD QD", True),
        ("QS QD QD", False),
        ("QS QH QD QC", False),
        ("QS QS QH QD QD", True),  # still exactly three suits
        ("QS QS QH QH QD QD", True),
        ("QS QS QH QH QD QC", False),  # four suits
        ("QS QH", False),  # three or more
        ("7C 7D 7H", True),
        # "three or more consecutive cards of the same suit"; "cards rank in their usual order, with aces low"
        ("2D 3D 4D", True),
        ("AD 2D 3D", True),
        ("QD KD AD", False),
        ("KD AD 2D", False),
        ("JD QD KD", True),
        ("AD 2D 3D 4D 5D 6D 7D 8D 9D", True),
        ("2D 3D", False),
        ("2D 3D 5D", False),
        ("2D 3D 4C", False),
        ("2D 3D 3D 4D", False),
    ],
)
def test_seed_meld_examples(text: str, valid: bool) -> None:
    assert is_meld(text) is valid


def test_all_nine_cards_split_into_melds_not_greedily() -> None:
    # The 6♠ is needed in the group, not at the end of the spade run.
    found = split(parse_cards("3S 4S 5S 6S 6H 6D 10C JC QC"), PIFPAF_RULES)
    assert found is not None
    assert sorted(sorted(map(str, m.cards)) for m in found) == [
        ["10C", "JC", "QC"],
        ["3S", "4S", "5S"],
        ["6D", "6H", "6S"],
    ]
    # Two copies of each card: two identical runs are fine.
    assert split(parse_cards("5H 6H 7H 5H 6H 7H 9S 9D 9C"), PIFPAF_RULES) is not None
    # The ace cannot follow the king in Pif Paf.
    assert split(parse_cards("QH KH AH 5S 5D 5C 8S 8D 8H"), PIFPAF_RULES) is None


# --- Ante and the betting round -------------------------------------------------------------------------

HANDS = (
    parse_cards("3H 4H 5H 7D 7S 7C JC QC AD"),  # goes out with K♣ or 10♣, discarding the A♦
    parse_cards("3S 4S 5S 6H 6D 6S KD KH 2D"),  # goes out with K♣ (or K♠), discarding the 2♦
    parse_cards("2C 4D 8H 9S JD QS AH 10H 5C"),
)


def start(chips: tuple[int, ...] = (30, 30, 30), ante: int = 2) -> PifPafHand:
    return PifPafHand.start(NAMES[: len(chips)], chips, ante)


def run(state: PifPafHand, actions: list[object]) -> PifPafHand:
    for action in actions:
        state = state.apply(action)  # type: ignore[arg-type]
    return state


def test_three_to_eight_players() -> None:
    for n in (3, 8):
        start((10,) * n)
    for n in (2, 9):
        with refusal(PifPafError, "Pif Paf (Cacheta)", f"de 3 a 8 jugadores, no {n}"):
            PifPafHand.start(tuple(f"J{i}" for i in range(n)), (10,) * n, 1)


def test_seed_cap_example_four_players_five_ante() -> None:
    # "in a four-player game with a 5¢ ante, the maximum bet allowed is 20¢"
    state = start((100, 100, 100, 100), ante=5)
    assert state.pot == 20 and state.chips == (95, 95, 95, 95)
    state = state.apply(Deal((*HANDS, parse_cards("AS 2S 3C 4C 6C 8C 9C 10S JS"))))
    assert state.cap == 20
    refused(state, Raise(0, 21), PifPafError, "Game play", "más allá de ante × jugadores = 20 fichas")
    state.check(Raise(0, 20))
    state = run(state, [Raise(0, 10), Raise(1, 10)])
    refused(state, Raise(2, 1), PifPafError, "Game play", "más allá de ante × jugadores = 20 fichas")
    state = run(state, [Call(2), Fold(3), Call(0)])
    assert state.phase == "play" and state.pot == 20 + 3 * 20
    assert sum(state.chips) + state.pot == 400


def test_dealers_left_bets_and_plays_first() -> None:
    state = start().apply(Deal(HANDS))
    refused(state, Call(1), PifPafError, "Game play", "no es su turno: le toca a Ana")
    state = run(state, [Call(0), Call(1), Call(2)])
    assert state.phase == "play" and state.turn == 0
    refused(state, Draw(1, "stock", c("9D")), PifPafError, "Play of the hand", "no es su turno: le toca a Ana")
    # "They begin their turn by drawing one card from the stock": there is no discard yet.
    refused(state, Draw(0, "discard"), PifPafError, "Play of the hand", "no hay descarte que robar")


def test_all_fold_but_one_takes_the_pot_without_playing() -> None:
    state = run(start(), [Deal(HANDS), Call(0), Raise(1, 4), Fold(2), Fold(0)])
    assert state.phase == "over" and state.winner == 1
    assert state.chips == (28, 28 - 4 + 6 + 4, 28) and state.pot == 0
    refused(state, Draw(1, "stock", c("9D")), PifPafError, "Object of Pif Paf", "la mano ya terminó")


# --- Play and going out ---------------------------------------------------------------------------------


def playing() -> PifPafHand:
    return run(start(), [Deal(HANDS), Call(0), Call(1), Call(2)])


def test_going_out_discard_then_nine_cards_in_melds_winner_takes_the_pot() -> None:
    state = run(playing(), [Draw(0, "stock", c("KC"))])
    # The A♦ would be left over.
    refused(state, GoOut(0, c("KC")), PifPafError, "Play of the hand", "no forman todas juegos válidos")
    state = state.apply(GoOut(0, c("AD")))
    assert state.phase == "over" and state.winner == 0
    assert state.chips == (28 + 6, 28, 28) and state.pot == 0
    assert sorted(sorted(map(str, m.cards)) for m in state.melds) == [
        ["3H", "4H", "5H"],
        ["7C", "7D", "7S"],
        ["JC", "KC", "QC"],
    ]


def test_no_going_out_before_drawing() -> None:
    state = playing()
    refused(state, GoOut(0, c("AD")), PifPafError, "Play of the hand", "primero roba")


def test_claim_priority_is_next_in_turn_from_the_discarder_wrapping_round() -> None:
    # Caro (2) discards the K♣: both Ana (0) and Beto (1) go out with it; Ana is next after Caro.
    state = run(
        playing(),
        [
            Draw(0, "stock", c("2H")),
            Discard(0, c("2H")),
            Draw(1, "stock", c("8D")),
            Discard(1, c("8D")),
            Draw(2, "stock", c("KC")),
            Discard(2, c("KC")),
        ],
    )
    with pytest.raises(PifPafError, match="prioridad"):
        state.check(Claim(1, c("2D")))
    refused(state, Claim(2, c("AH")), PifPafError, "Play of the hand", "no puede reclamar su propio descarte")
    state = state.apply(Claim(0, c("AD")))
    assert state.winner == 0 and sum(state.chips) == 90


def test_claim_only_with_the_last_card_needed() -> None:
    state = run(playing(), [Draw(0, "stock", c("9H")), Discard(0, c("9H"))])
    for seat, discard in ((1, "2D"), (2, "AH")):
        refused(state, Claim(seat, c(discard)), PifPafError, "Play of the hand", "con 9H no completa juegos")


def test_stock_exhausted_discard_pile_turned_over_unshuffled() -> None:
    state = playing()
    assert state.table is not None
    full = Counter({Card(rank, suit): 2 for rank in range(1, 14) for suit in SUITS})
    stock = list((full - Counter(card for hand in HANDS for card in hand)).elements())
    random.Random(3).shuffle(stock)
    assert len(stock) == 104 - 27
    discarded: list[Card] = []
    for k, card in enumerate(stock):
        seat = k % 3
        state = run(state, [Draw(seat, "stock", card), Discard(seat, card)])
        discarded.append(card)
    seat = len(stock) % 3
    wrong = next(card for card in discarded if card != discarded[0])
    turned = f"el descarte dado vuelta sin barajar: la carta que sale es {discarded[0]}, no {wrong}"
    refused(state, Draw(seat, "stock", wrong), PifPafError, "Play of the hand", turned)
    # The first card discarded (the bottom of the pile) is the first to come off the new stock.
    state = state.apply(Draw(seat, "stock", discarded[0]))
    assert state.table is not None and state.table.top is None
    refused(state, Draw(seat, "discard"), PifPafError, "Play of the hand", "ya robó: ahora descarta")
    state = run(state, [Discard(seat, discarded[0]), Draw((seat + 1) % 3, "stock", discarded[1])])
    assert state.table is not None and state.table.hands[(seat + 1) % 3][-1] == discarded[1]


def test_chips_conserved_over_random_betting_and_play() -> None:
    rnd = random.Random(11)
    full = [Card(rank, suit) for rank in range(1, 14) for suit in SUITS] * 2
    for _ in range(60):
        n = rnd.randint(3, 6)
        chips = tuple(rnd.randint(1, 25) for _ in range(n))
        ante = rnd.randint(1, min(chips))
        deck = full[:]
        rnd.shuffle(deck)
        state = PifPafHand.start(NAMES[:n], chips, ante).apply(
            Deal(tuple(tuple(deck[9 * i : 9 * i + 9]) for i in range(n)))
        )
        while state.phase == "bet":
            p = state.to_act[0]
            options = [Fold(p), Call(p), Raise(p, rnd.randint(1, state.cap))]
            legal = []
            for action in options:
                try:
                    state.check(action)
                except PifPafError:
                    continue
                legal.append(action)
            state = state.apply(rnd.choice(legal))
            assert sum(state.chips) + state.pot == sum(chips)
            assert state.level <= ante * n and min(state.chips) >= 0
        if state.phase == "over":
            assert state.pot == 0 and len(state.in_hand) == 1


# --- CLI, from outside ----------------------------------------------------------------------------------


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CACHO), "cards", *argv], capture_output=True, text=True, check=False, timeout=60)


def test_cli_melds_contract() -> None:
    done = cli("melds", "--game", "pifpaf", "QS QH QD QD 2C 3C 4C AS 2S 3S", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["valid"] is True
    assert sorted(sorted(m) for m in data["melds"]) == [
        ["2C", "3C", "4C"],
        ["2S", "3S", "AS"],
        ["QD", "QD", "QH", "QS"],
    ]
    done = cli("melds", "--game", "pifpaf", "QS QH QD QC", "--json")
    assert json.loads(done.stdout)["valid"] is False and json.loads(done.stdout)["melds"] == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["melds", "--game", "pifpaf", "QS QS QS"], "repetida"),
        (["melds", "--game", "pifpaf", "QS QH 1D"], "carta inválida"),
        (["melds", "--game", "pif-paf-x", "QS QH QD"], "juego desconocido"),
        (["melds", "--game", "pifpaf", "--flip", "8C", "QS QH QD"], "Cacheta"),
    ],
)
def test_cli_melds_bad_input(argv: list[str], message: str) -> None:
    done = cli(*argv)
    assert done.returncode != 0 and done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr
