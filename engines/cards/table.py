"""The rummy table shared by Pif Paf and Cacheta: hands, stock and discard pile, turned over unshuffled."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
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
    hidden: tuple[int, ...] = ()  # cards each seat holds that the table has not seen (empty: every card is known)

    def unseen(self, seat: int) -> int:
        """How many cards the seat holds that the table has not seen."""
        return self.hidden[seat] if self.hidden else 0

    def held(self, seat: int) -> int:
        """How many cards the seat holds, seen or not."""
        return len(self.hands[seat]) + self.unseen(seat)

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
        if card is None and not self.hidden:
            raise error(article, "al robar del mazo hay que anotar la carta robada")
        if self.stock_count == 0:
            upcoming = self.stock_known or self.discard
            if not upcoming:
                raise error(article, "no quedan cartas en el mazo ni en el descarte")
            # "turn over the discard pile to form a new stock without shuffling it"
            if card is not None and card != upcoming[0]:
                raise error(
                    article,
                    f"el mazo es el descarte dado vuelta sin barajar: la carta que sale es {upcoming[0]}, no {card}",
                )
            return
        if card is not None and self.known()[card] >= DOUBLE_DECK.copies:
            raise error(DOUBLE_DECK.article, f"ya están a la vista las dos cartas {card}: no puede salir otra")

    def draw(self, player: int, source: str, card: Card | None) -> tuple[RummyTable, Card | None]:
        """The table after the draw (checked before) and the card drawn (None: drawn face down, not seen)."""
        table = self
        if source == "discard":
            drawn = self.discard[-1]
            table = replace(self, discard=self.discard[:-1])
        elif self.stock_count > 0:
            table = replace(self, stock_count=self.stock_count - 1)
            if card is None:
                return replace(table, hidden=_plus(self.hidden, player, 1)), None
            drawn = card
        else:
            if not self.stock_known:
                table = replace(self, stock_known=self.discard, discard=())
            drawn = table.stock_known[0]
            table = replace(table, stock_known=table.stock_known[1:])
        hands = list(table.hands)
        hands[player] = (*hands[player], drawn)
        return replace(table, hands=tuple(hands)), drawn

    def check_holds(self, player: int, card: Card, error: type[CardRuleError], article: str, name: str) -> None:
        """Refuse a card the player cannot have: not among his known cards, and none unseen that could be it."""
        if card in self.hands[player]:
            return
        if not self.unseen(player):
            raise error(article, f"{name} no tiene la carta {card}")
        DOUBLE_DECK.check([card], error)
        if self.known()[card] >= DOUBLE_DECK.copies:
            raise error(DOUBLE_DECK.article, f"ya están a la vista las dos cartas {card}: {name} no puede tener otra")

    def throw(self, player: int, card: Card) -> RummyTable:
        """The player puts a card from his hand (known, or one unseen till now) on the discard pile."""
        hand = list(self.hands[player])
        table = self
        if card in hand:
            hand.remove(card)
        else:
            table = replace(self, hidden=_plus(self.hidden, player, -1))
        hands = list(self.hands)
        hands[player] = tuple(hand)
        return replace(table, hands=tuple(hands), discard=(*self.discard, card))

    def check_shown(
        self, player: int, cards: Sequence[Card], error: type[CardRuleError], article: str, name: str
    ) -> None:
        """Refuse the cards a player shows as his whole hand: not as many as he holds, without his known cards, or
        more copies than the decks hold."""
        if len(cards) != self.held(player):
            raise error(article, f"{name} tiene {self.held(player)} cartas, no {len(cards)}")
        rest = Counter(cards)
        rest.subtract(self.hands[player])
        if any(n < 0 for n in rest.values()):
            missing = [str(c) for c, n in rest.items() if n < 0]
            raise error(article, f"{name} tiene a la vista {' '.join(missing)}: debe mostrarla")
        counts = self.known()
        counts.update(rest)
        over = [str(c) for c, n in counts.items() if n > DOUBLE_DECK.copies]
        if over:
            raise error(DOUBLE_DECK.article, f"las dos cartas {over[0]} ya están a la vista: no puede tener otra")
        DOUBLE_DECK.check(cards, error)

    def reveal(self, player: int, cards: Sequence[Card]) -> RummyTable:
        """The table with the player's whole hand shown (checked before): every card of it now known."""
        hands = list(self.hands)
        hands[player] = tuple(cards)
        if not self.hidden:
            return replace(self, hands=tuple(hands))
        return replace(self, hands=tuple(hands), hidden=_plus(self.hidden, player, -self.unseen(player)))

    def take_top(self, player: int) -> RummyTable:
        """The player takes the top discard into his hand (a claim or a cut)."""
        top = self.discard[-1]
        hands = list(self.hands)
        hands[player] = (*hands[player], top)
        return replace(self, hands=tuple(hands), discard=self.discard[:-1])


def _plus(hidden: tuple[int, ...], seat: int, n: int) -> tuple[int, ...]:
    return (*hidden[:seat], hidden[seat] + n, *hidden[seat + 1 :])
