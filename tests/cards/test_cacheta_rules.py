"""Cacheta against the text of seed 003: sets, straights, the flip card's trumps, knocking,
the good one, points and the tournament's VP.

Written from the seed's text; documented decisions (docs/rulings.md, "Juegos de cartas") are followed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engines.cards.cacheta.game import (
    CachetaError,
    CachetaGame,
    CachetaOptions,
    Cut,
    Deal,
    Discard,
    Draw,
    GoodOne,
    Knock,
)
from engines.cards.cacheta.tournament import victory_points
from engines.cards.deck import Card, parse_cards
from engines.cards.melds import cacheta_rules, meld, split, trumps_for
from tests.cards.helpers import refusal, refused

CACHO = Path(sys.executable).parent / "cacho"
NAMES = ("Ana", "Beto", "Caro", "Davi", "Eva", "Fede", "Gabi", "Hugo")


def c(text: str) -> Card:
    return parse_cards(text)[0]


def is_meld(text: str, flip: str | None = None) -> bool:
    return meld(parse_cards(text), cacheta_rules(None if flip is None else c(flip))) is not None


# --- Sets and straights ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        # "5 of Hearts, 5 of Clubs, 5 of Diamonds and another 5 of Diamonds"
        ("5H 5C 5D 5D", True),
        ("5H 5C 5D", True),
        ("5S 5H 5D 5C", True),
        ("5S 5S 5H 5H 5D 5D", True),  # up to two of one suit
        ("5H 5C", False),
        ("5H 5D 5D", False),  # rulings: set_min_suits = 3
        # "The Aces can be used on both ends, before the two or after the King."
        ("AS 2S 3S", True),
        ("QS KS AS", True),
        ("10S JS QS KS AS", True),
        ("KS AS 2S", False),
        ("QS KS AS 2S", False),
        ("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S", True),
        ("4S 5S 7S", False),
        ("4S 5S 6H", False),
    ],
)
def test_sets_and_straights(text: str, valid: bool) -> None:
    assert is_meld(text) is valid


# --- The flip card and trumps ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flip", "trumps"),
    [
        ("8C", "9C 9S"),  # "flip card is an eight of Clubs, the trump cards will be all black nines"
        ("8S", "9C 9S"),
        ("8H", "9H 9D"),
        ("AD", "2H 2D"),
        ("10C", "JC JS"),
        ("QD", "KD KH"),
        ("KS", "AS AC"),  # rulings: king_makes_aces = true
    ],
)
def test_trumps_are_the_next_rank_up_in_the_flips_colour(flip: str, trumps: str) -> None:
    assert trumps_for(c(flip)) == frozenset(parse_cards(trumps))


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("5H 9S 7H", True),  # 9♠ for the 6♥
        ("5H 6H 9C", True),  # for the 4♥ or the 7♥
        ("QH KH 9S", True),  # for the J♥ or the ace after the king
        ("4H 4D 9C", True),  # in a set
        ("KH 2H 9S", False),  # never K-A-2, even with a trump
        ("5H 9S 9C", False),  # "Only 1 trump is allowed per set or straight"
        ("5H 6H 9S 9C", False),
        ("4H 9S 9C", False),
        ("5H 9H 7H", False),  # red nines are not trumps with a black flip
        ("8C 9C 10C", True),  # the 9♣ in its own place
    ],
)
def test_one_trump_stands_for_any_card(text: str, valid: bool) -> None:
    assert is_meld(text, flip="8C") is valid


def test_ten_cards_with_a_trump_split_into_melds() -> None:
    rules = cacheta_rules(c("8C"))
    found = split(parse_cards("AH 2H 3H 9S 5S 5D 5C JC QC KC"), rules)
    assert found is not None
    wild = [m for m in found if m.wild is not None]
    assert len(wild) == 1 and wild[0].wild == c("9S")
    # The A♥ could only meld with both trumps as wild (A♥ 2♥ 3♥): one trump per meld, so no knock.
    assert split(parse_cards("AH 9S 9C 5S 5D 5C 7D 8D 10D"), rules) is None
    assert split(parse_cards("AH 2H 9S 5S 5D 5C 7D 8D 10D"), rules) is None  # 9♠ cannot serve twice
    assert split(parse_cards("AH 2H 9S 5S 5D 5C 7D 8D 9D"), rules) is not None


# --- A table --------------------------------------------------------------------------------------------

W = parse_cards("AH 2H 3H 5S 5D 5C JC QC KC")  # nine cards already in melds
J1 = parse_cards("2S 4D 6H 8S 10D QS 3C 7H 9D")
J2 = parse_cards("2D 4S 6S 8H 10S QH 3D 7C 9H")
J3 = parse_cards("2C 4C 6D 8D 10H QD 3S 7S JD")


def table(n: int, points: int = 10) -> CachetaGame:
    return CachetaGame.start(NAMES[:n], CachetaOptions(start_points=points))


def run(state: CachetaGame, actions: list[object]) -> CachetaGame:
    for action in actions:
        state = state.apply(action)  # type: ignore[arg-type]
    return state


def test_two_to_eight_players_ten_points_each() -> None:
    assert table(2).points == (10, 10)
    assert table(8).points == (10,) * 8
    assert table(3, points=5).points == (5, 5, 5)  # GameVelvet's ranked rooms
    for n in (1, 9):
        with refusal(CachetaError, "Cacheta", f"de 2 a 8 jugadores, no {n}"):
            CachetaGame.start(tuple(f"J{i}" for i in range(n)))


def test_nine_card_knock_each_opponent_loses_one() -> None:
    state = run(table(4), [Deal((W, J1, J2, J3), c("8C")), Draw(0, "stock", c("KD"))])
    # The K♦ does not fit: no ten-card knock.
    refused(state, Knock(0, None), CachetaError, "Knock out", "no forman todas juegos válidos")
    state = state.apply(Knock(0, c("KD")))
    assert state.points == (10, 9, 9, 9)


def test_ten_card_knock_each_opponent_loses_two() -> None:
    state = run(table(3), [Deal((W, J1, J2), c("8C")), Draw(0, "stock", c("AC"))])  # J♣ Q♣ K♣ A♣
    state = state.apply(Knock(0, None))
    assert state.points == (10, 8, 8)


def test_ten_card_knock_with_a_trump() -> None:
    state = run(table(2), [Deal((W, J1), c("8C")), Draw(0, "stock", c("9S"))])  # A♥ 2♥ 3♥ + 9♠ as 4♥
    state = state.apply(Knock(0, None))
    assert state.points == (10, 8)


def test_knock_only_in_turn_after_drawing() -> None:
    state = run(table(2), [Deal((J1, W), c("8C"))])
    refused(state, Knock(1, None), CachetaError, "The Game", "no es su turno")
    state = run(state, [Draw(0, "stock", c("KD")), Discard(0, c("KD"))])
    refused(state, Knock(1, None), CachetaError, "The Game", "primero roba")
    state = run(state, [Draw(1, "discard"), Knock(1, c("KD"))])
    assert state.points == (9, 10)


def test_out_at_zero_last_one_left_wins_vp_by_place_with_ties() -> None:
    state = table(4, points=2)
    state = run(state, [Deal((W, J1, J2, J3), c("8C")), Draw(0, "stock", c("KD")), Knock(0, c("KD"))])
    assert state.points == (2, 1, 1, 1)
    state = run(state, [Deal((J1, W, J2, J3), c("8C")), Draw(1, "stock", c("KD")), Knock(1, c("KD"))])
    assert state.points == (1, 1, 0, 0) and state.phase == "deal"
    refused(state, Deal((J1, W, J2, J3), c("8C")), CachetaError, "Cacheta", "Caro ya salió de la mesa")
    state = run(state, [Deal((J1, W, None, None), c("8C"))])
    assert state.turn == 0
    state = run(state, [Draw(0, "stock", c("KD")), Discard(0, c("KD")), Draw(1, "stock", c("KS"))])
    state = state.apply(Knock(1, c("KS")))
    assert state.phase == "over" and state.winner == 1 and state.points == (0, 1, 0, 0)
    # First 5, second 3, a tie for third: 1 each.
    assert state.summary()["vp"] == [3, 5, 1, 1]


@pytest.mark.parametrize(
    ("places", "vp"),
    [
        ([[3], [2], [1], [0]], {3: 5, 2: 3, 1: 2, 0: 0}),
        ([[3], [2], [0, 1]], {3: 5, 2: 3, 0: 1, 1: 1}),  # "1 point if it's a third-place tie"
        ([[3], [1, 2], [0]], {3: 5, 1: 2, 2: 2, 0: 0}),  # "2 points for a second-place tie"
        ([[0, 3], [1], [2]], {0: 3, 3: 3, 1: 2, 2: 0}),  # "3 points for the first place"
    ],
)
def test_victory_points(places: list[list[int]], vp: dict[int, int]) -> None:
    assert victory_points(places) == vp


# --- The good one, cutting the line, burned ------------------------------------------------------------

ANA = parse_cards("2C 4D 8H 9S JD QS AH 10S 5C")
BETO_K = parse_cards("3S 4S 5S 6H 6D 6S KD KH 2D")  # goes out with the K♣ (set of kings)
BETO_NO = parse_cards("3S 4S 5S 6H 6D 6S 8C 9C 2D")  # needs the 7♣ or 10♣
CARO = parse_cards("3H 4H 5H 7D 7S 7C JC QC AD")  # goes out with the K♣ (J Q K of clubs)


def cut_setup(beto: tuple[Card, ...]) -> CachetaGame:
    state = run(table(3), [Deal((ANA, beto, CARO), c("9H")), GoodOne(1), GoodOne(2)])
    return run(state, [Draw(0, "stock", c("KC")), Discard(0, c("KC"))])


def test_cut_priority_closest_to_act() -> None:
    state = cut_setup(BETO_K)
    with pytest.raises(CachetaError, match="prioridad"):
        state.check(Cut(2, c("AD")))
    state = state.apply(Cut(1, c("2D")))
    assert state.points == (9, 10, 9)


def test_cut_priority_passes_on_when_the_nearer_cannot_knock() -> None:
    state = cut_setup(BETO_NO).apply(Cut(2, c("AD")))
    assert state.points == (9, 9, 10)


def test_cut_only_by_the_good_one_and_a_wrong_cut_burns() -> None:
    state = run(table(3), [Deal((ANA, BETO_NO, CARO), c("9H"))])
    state = run(state, [Draw(0, "stock", c("KC")), Discard(0, c("KC"))])
    refused(state, Cut(2, c("AD")), CachetaError, "Cut the Line", "solo corta la fila quien pidió la buena")
    state = run(state, [GoodOne(1)]).apply(Cut(1, c("2D")))
    assert state.burned[1] and state.points == (10, 10, 10)
    state = run(state, [Draw(1, "discard"), Discard(1, c("KC"))])
    # "burned and can't cut the line anymore"
    refused(state, GoodOne(1), CachetaError, "Burned", "Beto está quemado: ya no puede cortar la fila")


# --- CLI, from outside ----------------------------------------------------------------------------------


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CACHO), "cards", *argv], capture_output=True, text=True, check=False, timeout=60)


def test_cli_melds_cacheta_contract() -> None:
    done = cli("melds", "--game", "cacheta", "--flip", "8C", "5H 5C 5D 5D QS KS AS 2H 9S 4H", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["valid"] is True and data["trumps"] == ["9C", "9S"]
    assert [d["wild"] for d in data["details"] if d["wild"]] == ["9S"]
    done = cli("melds", "--game", "cacheta", "--flip", "KD", "KS AS 2S", "--json")
    data = json.loads(done.stdout)
    assert data["valid"] is False and data["trumps"] == ["AD", "AH"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["melds", "--game", "cacheta", "--flip", "5D", "5D 5D 5H"], "repetida"),
        (["melds", "--game", "cacheta", "--flip", "11C", "AS 2S 3S"], "carta inválida"),
        (["melds", "--game", "cacheta", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS"], "de 1 a 10"),
    ],
)
def test_cli_melds_cacheta_bad_input(argv: list[str], message: str) -> None:
    done = cli(*argv)
    assert done.returncode != 0 and done.stdout == ""
    assert message in done.stderr and "Traceback" not in done.stderr
