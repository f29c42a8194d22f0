"""The rummy table shared by Pif Paf and Cacheta: hands, stock and discard pile, turned over unshuffled."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from engines.cards.deck import DOUBLE_DECK, SUITS, Card
from engines.cards.errors import CardRuleError
from engines.cards.log import Event, get_card, get_int, get_optional_card, get_str

_ALL_CARDS = tuple(Card(rank, suit) for rank in sorted(DOUBLE_DECK.ranks) for suit in SUITS)


@dataclass(frozen=True, slots=True)
class Draw:
    """The player in turn draws the top card of the stock (`card` recorded) or of the discard pile."""

    player: int
    source: str
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class Discard:
    """The player in turn discards, ending the turn."""

    player: int
    card: Card


def parse_turn_event(name: str, event: Event) -> Draw | Discard | None:
    """A `draw` or `discard` log event of either rummy game; None for any other event."""
    if name == "draw":
        return Draw(get_int(event, "player"), get_str(event, "source"), get_optional_card(event, "card"))
    if name == "discard":
        return Discard(get_int(event, "player"), get_card(event, "card"))
    return None


@dataclass(frozen=True, slots=True)
class RummyTable:
    """Every card the table knows: hands, the stock (unknown cards, then known ones) and the discards."""

    hands: tuple[tuple[Card, ...], ...]
    stock_count: int  # cards of the original stock not yet drawn (unknown to the table)
    stock_known: tuple[Card, ...] = ()  # the discard pile turned over: next card first
    discard: tuple[Card, ...] = ()  # bottom to top
    out_of_play: tuple[Card, ...] = ()  # folded hands, the flip card: known, not in play

    def known(self) -> Counter[Card]:
        """How many copies of each card the table has seen."""
        counts: Counter[Card] = Counter(c for hand in self.hands for c in hand)
        counts.update(self.stock_known)
        counts.update(self.discard)
        counts.update(self.out_of_play)
        return counts

    @property
    def top(self) -> Card | None:
        """The visible card of the discard pile."""
        return self.discard[-1] if self.discard else None

    def next_stock_card(self) -> Card | None:
        """A card that could come off the stock now (the known one after a turnover), for legality queries."""
        if self.stock_count == 0:
            upcoming = self.stock_known or self.discard
            return upcoming[0] if upcoming else None
        known = self.known()
        return next((card for card in _ALL_CARDS if known[card] < DOUBLE_DECK.copies), None)

    def check_draw(self, player: int, source: str, card: Card | None, error: type[CardRuleError], article: str) -> None:
        """Refuse a draw that is impossible: wrong source, empty piles, or a card that cannot be there."""
        if source == "discard":
            if self.top is None:
                raise error(article, "no hay descarte que robar")
            if card is not None and card != self.top:
                raise error(article, f"la carta del descarte es {self.top}, no {card}")
            return
        if source != "stock":
            raise error(article, f"se roba del mazo («stock») o del descarte («discard»), no de «{source}»")
        if card is None:
            raise error(article, "al robar del mazo hay que anotar la carta robada")
        if self.stock_count == 0:
            upcoming = self.stock_known or self.discard
            if not upcoming:
                raise error(article, "no quedan cartas en el mazo ni en el descarte")
            # "turn over the discard pile to form a new stock without shuffling it"
            if card != upcoming[0]:
                raise error(
                    article,
                    f"el mazo es el descarte dado vuelta sin barajar: la carta que sale es {upcoming[0]}, no {card}",
                )
            return
        if self.known()[card] >= DOUBLE_DECK.copies:
            raise error(DOUBLE_DECK.article, f"ya están a la vista las dos cartas {card}: no puede salir otra")

    def draw(self, player: int, source: str, card: Card | None) -> tuple[RummyTable, Card]:
        """The table after the draw (checked before) and the card drawn."""
        table = self
        if source == "discard":
            drawn = self.discard[-1]
            table = replace(self, discard=self.discard[:-1])
        elif self.stock_count > 0:
            assert card is not None
            drawn = card
            table = replace(self, stock_count=self.stock_count - 1)
        else:
            if not self.stock_known:
                table = replace(self, stock_known=self.discard, discard=())
            drawn = table.stock_known[0]
            table = replace(table, stock_known=table.stock_known[1:])
        hands = list(table.hands)
        hands[player] = (*hands[player], drawn)
        return replace(table, hands=tuple(hands)), drawn

    def throw(self, player: int, card: Card) -> RummyTable:
        """The player puts a card from his hand on the discard pile."""
        hand = list(self.hands[player])
        hand.remove(card)
        hands = list(self.hands)
        hands[player] = tuple(hand)
        return replace(self, hands=tuple(hands), discard=(*self.discard, card))

    def take_top(self, player: int) -> RummyTable:
        """The player takes the top discard into his hand (a claim or a cut)."""
        top = self.discard[-1]
        hands = list(self.hands)
        hands[player] = (*hands[player], top)
        return replace(self, hands=tuple(hands), discard=self.discard[:-1])
