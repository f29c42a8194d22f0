"""The card reader behind a protocol: the cards the camera sees in front of each seat. The app's `CARD_READER`
config names one (with a camera, the camera's: kiosk.cards.camera), the tests a fake, and without one every screen
works by tapping the cards."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Protocol

from kiosk.dice import CorrectionError
from kiosk.store import now

if TYPE_CHECKING:
    from kiosk.game_views import Reading
    from vision.types import Frame

DOUBTFUL_BELOW = 0.8  # a card read with less confidence is shown as doubtful and must be confirmed by a tap


@dataclass(frozen=True, slots=True)
class SeenCard:
    """One card read in front of a seat: its notation (None: unreadable), face down or not, how sure, and whether
    the reader doubts it (and why)."""

    seat: int
    card: str | None
    down: bool = False
    confidence: float = 1.0
    doubted: bool = False
    reasons: tuple[str, ...] = ()
    box: tuple[float, float, float, float] | None = None  # where on the frame, in its pixels (a camera's reading)
    indices: tuple[tuple[float, float, float, float], ...] = ()  # its corner indices' boxes on the frame (the same)


class CardReader(Protocol):
    """Reads the cards played in front of the seats asked for (the frame may be None: no camera)."""

    def read_cards(self, frame: Frame | None, seats: Sequence[int], players: Sequence[str]) -> list[SeenCard]:
        """What lies in front of each seat asked for (game seats: indices of `players`, seated round the table)."""
        ...


def doubtful(card: SeenCard | None) -> bool:
    """Whether the coordinator must confirm the card: none read, the reader doubts it, or it is not sure enough."""
    return card is None or card.card is None or card.doubted or card.confidence < DOUBTFUL_BELOW


def reading(
    seen: Sequence[SeenCard], seats: Sequence[int], played: Mapping[int, Collection[str]] | None = None
) -> Reading:
    """A reading awaiting confirmation: one entry per seat asked for, in that order (a seat not seen: no card); a
    card the seat has `played` already (an earlier trick's, left face up in front of it) is not this trick's; a card
    the reader is sure of comes before one it doubts, and two sure cards in front of one seat are both in doubt."""
    played = played or {}
    by_seat: dict[int, SeenCard] = {}
    sure: dict[int, int] = {}
    for one in sorted(seen, key=doubtful):
        earlier = one.card is not None and one.card in played.get(one.seat, ())
        if one.seat not in seats or earlier:
            continue
        sure[one.seat] = sure.get(one.seat, 0) + (not doubtful(one))
        by_seat.setdefault(one.seat, one)
    entries = []
    for seat in seats:
        card = by_seat.get(seat)
        entry = asdict(card) if card is not None else asdict(SeenCard(seat, None, confidence=0.0))
        entry["reasons"] = list(entry["reasons"])
        entry["doubtful"] = doubtful(card)
        if sure.get(seat, 0) > 1:  # which one is this trick's the camera cannot tell
            entry["doubtful"] = True
            entry["reasons"].append(f"{sure[seat]} cartas delante de este asiento: ¿cuál es la de esta baza?")
        entry["corrected"] = False
        entries.append(entry)
    return {"state": "ready", "source": "camera", "seats": entries, "corrections": []}


def correct(data: Reading, seat: object, card: object, down: object) -> Reading:
    """The reading with one seat's card set by the coordinator (the same card confirms a doubtful one)."""
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise CorrectionError("falta 'seat', el asiento de la carta")
    if not isinstance(card, str) or not isinstance(down, bool):
        raise CorrectionError("se esperaba {seat, card, down}: la carta (p. ej. 4C) y si va tapada")
    entries = [dict(e) for e in data["seats"]]
    entry = next((e for e in entries if e["seat"] == seat), None)
    if entry is None:
        raise CorrectionError(f"el asiento {seat} no juega en esta lectura")
    fix = {"seat": seat, "read": entry["card"], "set": card.upper(), "down": down, "ts": now()}
    entry.update(read=entry.get("read", entry["card"]), card=card.upper(), down=down, doubtful=False, corrected=True)
    return {**data, "seats": entries, "corrections": [*data.get("corrections", []), fix]}


def blockers(data: Reading, names: Sequence[str]) -> list[str]:
    """Why the reading cannot be confirmed yet: a seat with no card, or a doubtful card not confirmed."""
    out = []
    for entry in data["seats"]:
        name = names[entry["seat"]]
        if entry["card"] is None:
            out.append(f"falta la carta de {name}: tóquela en el selector")
        elif entry["doubtful"]:
            out.append(f"la carta de {name} es dudosa: confírmela o corríjala")
    return out


def hands_reading(seen: Sequence[SeenCard], seats: Sequence[int], size: int) -> Reading:
    """A reading of the hands shown: up to `size` cards per seat asked for, in that order, each with how sure (the
    cards the reader is sure of first); more than `size` sure cards in front of one seat puts all of them in doubt."""
    entries = []
    for seat in seats:
        mine = sorted((s for s in seen if s.seat == seat), key=doubtful)
        extra = sum(not doubtful(s) for s in mine) > size
        too_many = [f"más de {size} cartas delante de este asiento: ¿cuáles muestra?"] if extra else []
        cards = [
            {"card": s.card, "confidence": s.confidence, "doubtful": doubtful(s) or extra}
            | {"reasons": list(s.reasons) + too_many, "indices": [list(b) for b in s.indices]}
            for s in mine
        ][:size]
        entries.append({"seat": seat, "cards": [c | {"corrected": False} for c in cards]})
    return {"state": "ready", "source": "camera", "size": size, "seats": entries, "corrections": []}


def correct_hand(data: Reading, seat: object, index: object, card: object) -> Reading:
    """The reading with one card of a seat's hand set (the same card confirms it; index past the end adds one)."""
    if isinstance(seat, bool) or not isinstance(seat, int) or isinstance(index, bool) or not isinstance(index, int):
        raise CorrectionError("se esperaba {seat, index, card}: el asiento, la carta (0, 1, 2…) y cuál es")
    if not isinstance(card, str):
        raise CorrectionError("falta 'card': la carta, p. ej. 4D")
    entries = [{"seat": e["seat"], "cards": [dict(c) for c in e["cards"]]} for e in data["seats"]]
    entry = next((e for e in entries if e["seat"] == seat), None)
    if entry is None:
        raise CorrectionError(f"el asiento {seat} no muestra mano en esta lectura")
    cards = entry["cards"]
    if not 0 <= index <= len(cards) or index >= int(data["size"]):
        raise CorrectionError(f"la mano tiene {data['size']} cartas: no hay carta {index}")
    read = cards[index]["card"] if index < len(cards) else None
    fixed = {"card": card.upper(), "confidence": 1.0, "doubtful": False, "corrected": True}
    if index < len(cards):  # the card the reader saw there: what it read, and its corners (kiosk.cards.learned)
        was = cards[index]
        cards[index] = fixed | {"read": was.get("read", was["card"]), "indices": was.get("indices", [])}
    else:
        cards.append(fixed)
    fix = {"seat": seat, "index": index, "read": read, "set": card.upper(), "ts": now()}
    return {**data, "seats": entries, "corrections": [*data.get("corrections", []), fix]}


def correct_discard(data: Reading, card: object) -> Reading:
    """The reading with the card the player discards as he goes out, set by the coordinator."""
    if "discard" not in data:
        raise CorrectionError("esta lectura no lleva descarte")
    if not isinstance(card, str):
        raise CorrectionError("falta 'discard': la carta que descarta, p. ej. QH")
    fix = {"discard": card.upper(), "read": data.get("discard"), "set": card.upper(), "ts": now()}
    return {**data, "discard": card.upper(), "corrections": [*data.get("corrections", []), fix]}


def hands_blockers(data: Reading, names: Sequence[str]) -> list[str]:
    """Why the hands read cannot be confirmed yet: a hand short of cards, a doubtful card not confirmed, or the
    discard of a player going out not yet tapped."""
    out = []
    if data.get("needs_discard") and not data.get("discard"):
        out.append("falta la carta que descarta: tóquela en el selector")
    for entry in data["seats"]:
        name = names[entry["seat"]]
        if len(entry["cards"]) < int(data["size"]):
            out.append(f"a la mano de {name} le faltan cartas: tóquelas en el selector")
        if any(c["doubtful"] for c in entry["cards"]):
            out.append(f"la mano de {name} tiene cartas dudosas: confírmelas o corríjalas")
    return out
