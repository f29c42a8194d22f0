"""A tiny builder for Dudo tables in tests: seat players, play moves written as at the table, check refusals."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence

from engines.dudo import (
    Action,
    Bid,
    Calzo,
    Descalificacion,
    Dudo,
    DudoConfig,
    DudoTable,
    Hand,
    Paso,
    Reveal,
    RuleError,
    Ruling,
    Start,
)
from tests.refusals import refusal

__all__ = [
    "action",
    "allowed",
    "assert_legal_agrees",
    "blanks",
    "cups",
    "dice",
    "last_ruling",
    "lost",
    "play",
    "refusal",
    "refused",
    "seat",
]

Move = str | Mapping[str, Sequence[int]] | Action


def seat(
    names: str,
    opener: str | None = None,
    dice: Mapping[str, int] | None = None,
    table_start_dice: int | None = None,
    **options: object,
) -> DudoTable:
    """Seat `names` (space separated, clockwise); `dice` resumes a table; `options` are DudoConfig's."""
    players = tuple(names.split())
    counts = None if dice is None else tuple(dice.get(name, 5) for name in players)
    config = DudoConfig.from_mapping(options)
    return DudoTable.start(Start(players, opener or players[0], counts, table_start_dice, config))


def action(move: Move) -> Action:
    """A move as an action: "Ana bid 4 5", "Ana bid 2 1 desestima", "Beto dudo", "Caro calzo",
    "Dani paso full", or a {player: dice} mapping for the cups lifted."""
    if isinstance(move, Bid | Dudo | Calzo | Paso | Reveal | Descalificacion):
        return move
    if isinstance(move, Mapping):
        return Reveal.of(move)
    words = move.split()
    player, verb, rest = words[0], words[1], words[2:]
    if verb == "bid":
        return Bid(player, int(rest[0]), int(rest[1]), desestima=rest[2:] == ["desestima"])
    if verb == "dudo":
        return Dudo(player)
    if verb == "calzo":
        return Calzo(player)
    if verb == "paso":
        return Paso(player, Hand(rest[0]))
    raise AssertionError(f"unknown move {move!r}")


def play(table: DudoTable, *moves: Move) -> DudoTable:
    """Apply every move in order; each must be legal."""
    for move in moves:
        table = table.apply(action(move))
    return table


def refused(table: DudoTable, move: Move, article: str, reason: str = ".") -> RuleError:
    """`move` is refused now with `article` and a message matching `reason` (a regex; any message by default), by
    check and by apply alike, and the table is left exactly as it was."""
    before = copy.deepcopy(table)
    act = action(move)
    with refusal(RuleError, article, reason) as caught:
        table.check(act)
    with refusal(RuleError, article, reason) as again:
        table.apply(act)
    assert again.value.message == caught.value.message
    assert table == before
    assert table.history == before.history
    said = table.refusal(act)
    assert said is not None and (said.article, said.message) == (article, caught.value.message)
    return caught.value


def allowed(table: DudoTable, move: Move) -> DudoTable:
    """`move` passes `check`; the table after it."""
    act = action(move)
    table.check(act)
    return table.apply(act)


def last_ruling(table: DudoTable) -> Ruling:
    """The ruling of the round just resolved."""
    assert table.rulings
    return table.rulings[-1]


def lost(table: DudoTable) -> dict[str, int]:
    """The last ruling's dice changes, {player: +gained / -lost}."""
    return dict(last_ruling(table).changes)


def dice(table: DudoTable) -> dict[str, int]:
    """Dice per player now."""
    return {name: table.dice_of(name) for name in table.players}


def cups(table: DudoTable, *groups: Sequence[int]) -> dict[str, list[int]]:
    """Reveal for the active players in seat order, from one list of faces per player."""
    active = table.active
    assert len(groups) == len(active), (groups, active)
    return {name: list(faces) for name, faces in zip(active, groups, strict=True)}


def blanks(n: int, *avoid: int) -> list[int]:
    """`n` dice that are none of `avoid` (and never an As unless the As is not avoided), cycling upward."""
    pool = [face for face in (2, 3, 4, 5, 6) if face not in avoid]
    return [pool[i % len(pool)] for i in range(n)]


def assert_legal_agrees(table: DudoTable) -> None:
    """`legal_actions` lists exactly what `check` accepts for the player to act, with the same refusals."""
    legal = table.legal_actions()
    assert legal is not None and legal.player is not None
    player = legal.player
    top = 2 * table.in_play + 3
    accepted = {(q, f) for q in range(0, top) for f in range(0, 8) if table.refusal(Bid(player, q, f)) is None}
    assert accepted == set(legal.bids)
    assert legal.bid.allowed == bool(legal.bids)
    if not legal.bid.allowed:
        assert legal.bid.article and legal.bid.reason
    checks: dict[str, Action] = {
        "dudo": Dudo(player),
        "calzo": Calzo(player),
        "paso": Paso(player, Hand.FULL),
        "desestima": Bid(player, 1, 2, desestima=True),
    }
    for name, act in checks.items():
        option = getattr(legal, name)
        error = table.refusal(act)
        assert option.allowed == (error is None), (name, error)
        if error is not None:
            assert (option.article, option.reason) == (error.article, error.message), name
    if legal.paso.allowed:
        for hand in Hand:
            assert table.refusal(Paso(player, hand)) is None
    for act in table.legal_player_actions():
        table.check(act)
    for other in table.active:
        if other != player:
            error = table.refusal(Dudo(other))
            assert error is not None and error.article == "3"
