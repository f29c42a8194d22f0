"""Card notation and the decks of each game."""

from __future__ import annotations

import pytest

from engines.cards.deck import CACHO_DECK, DOUBLE_DECK, TRUCO_DECK, Card, parse_card, parse_cards, show
from engines.cards.errors import CardRuleError
from tests.cards.helpers import refusal


def test_rank_and_suit_notation() -> None:
    assert parse_card("AS") == Card(1, "S")
    assert parse_card("10h") == Card(10, "H")
    assert parse_card("QC") == Card(12, "C")
    assert parse_card(" kd ") == Card(13, "D")
    assert show(parse_cards("AS, 10H QC")) == "AS 10H QC"


@pytest.mark.parametrize("text", ["1S", "11H", "AX", "", "Q", "10", "ZZ", "AS5"])
def test_bad_notation_is_refused(text: str) -> None:
    with refusal(CardRuleError, "Notación de cartas", "se escribe rango"):
        parse_card(text)


def test_deck_sizes() -> None:
    assert CACHO_DECK.size == 24
    assert DOUBLE_DECK.size == 104
    assert TRUCO_DECK.size == 40


def test_cacho_deck_is_ace_to_six_once() -> None:
    CACHO_DECK.check(parse_cards("AS 6C 3D"))
    with pytest.raises(CardRuleError, match="no está en la baraja"):
        CACHO_DECK.check(parse_cards("7S"))
    with pytest.raises(CardRuleError, match="repetida"):
        CACHO_DECK.check(parse_cards("AS AS"))


def test_two_decks_allow_two_copies_not_three() -> None:
    DOUBLE_DECK.check(parse_cards("QD QD KS"))
    with pytest.raises(CardRuleError, match="repetida"):
        DOUBLE_DECK.check(parse_cards("QD QD QD"))


@pytest.mark.parametrize("text", ["8S", "9H", "10D"])
def test_truco_deck_has_no_eights_nines_or_tens(text: str) -> None:
    with pytest.raises(CardRuleError, match="no está en la baraja de Truco"):
        TRUCO_DECK.check(parse_cards(text))


def test_colours() -> None:
    assert parse_card("8C").black and parse_card("9S").black
    assert not parse_card("9H").black and not parse_card("2D").black
