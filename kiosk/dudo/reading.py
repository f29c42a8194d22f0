"""The cups lifted: the camera's reading per player, the coordinator's corrections (they stick), the ruling.

A reading is a JSON object kept in the store until it is confirmed (it survives a restart), typed as
kiosk.records.DudoReading:
{"state": "reading"|"ready"|"failed", "source": "camera"|"manual", "photo": str|None, "message": str,
 "players": {name: [die, ...]}, "problems": [str], "capture": {...}, "corrections": [...]}
with each die a kiosk.records.DieEntry {"id", "face" (1-6 or null: not set yet), "read" (the camera's face or null),
"confidence", "uncertain", "reasons", "box" ([x1, y1, x2, y2] or null), "corrected", "confirmed"}.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from engines.dudo import ChallengeKind, DoubtfulReveal, DudoTable, Reveal, RuleError
from kiosk.dice import (
    ANY_FACES,
    CorrectionError,
    DieRead,
    away_from,
    candidates_of,
    capture_problems,
    change_die,
    check_correction,
    die,
    die_read,
    same_die,
    unsettled,
)
from kiosk.i18n import count, number
from kiosk.records import Correction, DieEntry, DudoReading, Proposal, Unsettled
from kiosk.store import now
from vision.reasons import Reason, ReasonCode


def needed(table: DudoTable) -> list[str]:
    """Whose cups must be shown: the passer's for a doubted paso, every player with dice otherwise."""
    pending = table.pending
    if pending is None:
        return []
    return [pending.target] if pending.kind is ChallengeKind.PASO else list(table.active)


def expected_counts(table: DudoTable) -> dict[str, int]:
    """The coordinator's count for the players who show their dice."""
    return {name: table.dice_of(name) for name in needed(table)}


def manual(table: DudoTable) -> DudoReading:
    """A reading entered by hand: each player's dice, faces not set yet."""
    players = {name: [die(None) for _ in range(count)] for name, count in expected_counts(table).items()}
    return {
        "state": "ready",
        "source": "manual",
        "photo": None,
        "message": "sin cámara: toque cada dado para poner su cara",
        "players": players,
        "problems": [],
        "capture": None,
        "corrections": [],
    }


def reading(state: str, message: str) -> DudoReading:
    """A reading in progress or failed (no dice yet)."""
    return {
        "state": state,
        "source": "camera",
        "photo": None,
        "message": message,
        "players": {},
        "problems": [],
        "capture": None,
        "corrections": [],
    }


# A seat's problems that its dice on screen show as they stand after each correction (the proposal's blockers):
# kept in the reading they would go stale and say twice what the blockers say.
LIVE_PROBLEMS = frozenset({"too_many", "too_few", "uncertain", "cut"})


class SeatProblem(Protocol):
    """A seat's or the table's problem (vision.seats.Problem)."""

    @property
    def kind(self) -> str: ...
    @property
    def message(self) -> str: ...


class PlacedDie(Protocol):
    """A die with where it lies (vision.seats.PlacedDie)."""

    @property
    def die(self) -> DieRead: ...
    @property
    def where(self) -> str: ...


class CheckedSeat(Protocol):
    """A seat's dice and problems (vision.seats.SeatCheck)."""

    @property
    def player(self) -> str | None: ...
    @property
    def label(self) -> str: ...
    @property
    def problems(self) -> Sequence[SeatProblem]: ...
    @property
    def counted(self) -> Sequence[PlacedDie]: ...


class FrameSize(Protocol):
    """The size of the frame the seats were found on (vision.seats.Seating)."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...


class TableCheck(Protocol):
    """The camera's seat check (vision.seats.TableCheck): what `from_check` reads of it."""

    @property
    def seating(self) -> FrameSize: ...
    @property
    def seats(self) -> Sequence[CheckedSeat]: ...
    @property
    def stray(self) -> Sequence[PlacedDie]: ...
    @property
    def problems(self) -> Sequence[SeatProblem]: ...


class Capture(Protocol):
    """The still capture (vision.still.StillCapture): what `from_check` reads of it (its `tilt` and `disagreeing`
    where it has them)."""

    @property
    def message(self) -> str: ...
    def to_dict(self) -> dict[str, object]:
        """Its JSON form."""
        ...


def from_check(check: TableCheck, capture: Capture, photo: str | None, shown: Collection[str]) -> DudoReading:
    """A reading from the camera's seat check (vision.seats.TableCheck) and capture (vision.still); `shown`: the
    players who had to lift their cups (the others' seats are not read: a doubted paso shows one cup, art. 8)."""
    players: dict[str, list[DieEntry]] = {}
    problems: list[str] = [p.message for p in check.problems]
    for seat in check.seats:
        if seat.player is not None and seat.player not in shown:
            continue
        for problem in seat.problems:
            if seat.player is None or problem.kind not in LIVE_PROBLEMS:
                problems.append(f"{seat.label}: {problem.message}")
        if seat.player is None:
            continue
        entries = []
        for placed in seat.counted:
            reasons = list(placed.die.reasons)
            if placed.where == "borde":
                reasons.insert(0, Reason(ReasonCode.CUT))
            uncertain = bool(placed.die.uncertain or placed.where != "mesa")
            entry = die_read(placed.die, uncertain=uncertain, reasons=reasons)
            if placed.where != "mesa":  # doubted for where it lies, not its face: it may be any face
                entry["candidates"] = list(ANY_FACES)
            entries.append(entry)
        players[seat.player] = entries
    for placed in check.stray:
        problems.append(f"un dado sin asiento (lee {placed.die.face})")
    problems.extend(capture_problems(capture))
    message = capture.message
    tilt = getattr(capture, "tilt", None)
    if tilt is not None:  # where the dice were read from (vision.seats.TiltedReader): the coordinator can check it
        markers = count(tilt.markers, "marcador", "marcadores")
        message += f"; cámara inclinada {number(tilt.tilt_deg)}° (nadir medido con {markers})"
    return {
        "state": "ready",
        "source": "camera",
        "photo": photo,
        "message": message,
        "players": players,
        "problems": problems,
        "capture": capture.to_dict(),
        "corrections": [],
        "size": [check.seating.width, check.seating.height],
    }


def keep_corrections(old: DudoReading, new: DudoReading) -> DudoReading:
    """The new frame's reading with every earlier correction still applied: a later frame never overwrites one."""
    new["corrections"] = list(old.get("corrections", []))
    removed = [c for c in new["corrections"] if c.get("set") is None and c.get("box") is not None]
    for name, dice in old.get("players", {}).items():
        fresh = new["players"].setdefault(name, [])
        for entry in [d for d in dice if d["corrected"] or d["confirmed"]]:
            match = None if entry["box"] is None else same_die(entry["box"], fresh)
            if match is not None:
                fresh.remove(match)
            fresh.append(entry)
        for correction in removed:
            box = correction.get("box")  # never None here (`removed`): said again for mypy
            if correction["player"] == name and box is not None:
                fresh[:] = away_from(fresh, box)
    return new


def correct(data: DudoReading, player: str, die_id: str | None, face: int | None) -> DudoReading:
    """Set a die's face (confirming it when it is the same), remove it (face None) or add one (die_id None).

    The correction is logged with what was read, what was set and when.
    """
    check_correction(data, face)
    dice = data["players"].get(player)
    if dice is None:
        raise CorrectionError(f"{player} no muestra dados en esta lectura")
    if die_id is None:
        if face is None:
            raise CorrectionError("para añadir un dado hace falta su cara")
        added = die(face, None, corrected=True)
        dice.append(added)
        correction: Correction = {"player": player, "die": added["id"], "read": None, "set": face, "ts": now()}
        data["corrections"].append(correction)
        return data
    entry = next((d for d in dice if d["id"] == die_id), None)
    if entry is None:
        raise CorrectionError(f"{player} no tiene ese dado en la lectura")
    change_die(data["corrections"], dice, entry, face, player=player)
    return data


def proposal(table: DudoTable, data: DudoReading) -> Proposal:
    """What confirming would do: the ruling (engine's), or what blocks it (faces missing, counts, doubtful dice
    whose face could change the ruling). `deciding`: the ids of the doubtful dice that could change it; `left`: those
    that cannot, whatever face they show (art. 6-8 over every face each may show: DudoTable.settle)."""
    blockers: list[str] = []
    if data.get("state") != "ready":
        return {
            "ok": False,
            "blockers": [str(data.get("message", "esperando la lectura"))],
            "ruling": None,
            "deciding": [],
            "left": [],
        }
    shown: dict[str, list[int]] = {}
    cups: dict[str, list[frozenset[int]]] = {}
    shaped = True
    for name in needed(table):
        dice = data["players"].get(name, [])
        if len(dice) != table.dice_of(name):
            blockers.append(f"{name}: {count_off(len(dice), table.dice_of(name))}")
            shaped = False
        unset, _ = unsettled(dice)
        if unset:
            blockers.append(f"{name}: {count(unset, 'dado sin cara', 'dados sin cara')}")
            shaped = False
        shown[name] = [d["face"] for d in dice if d["face"] is not None]
        cups[name] = [candidates_of(d) for d in dice]
    doubtful = {
        (name, k): d["id"]
        for name in needed(table)
        for k, d in enumerate(data["players"].get(name, []))
        if d["face"] is not None and d["uncertain"] and not (d["corrected"] or d["confirmed"])
    }
    deciding: list[str] = []
    if shaped and doubtful:
        try:
            settled = table.settle(DoubtfulReveal.of(cups))
        except RuleError as error:
            blockers.append(f"art. {error.article}: {error.message}")
        else:
            if not settled.settled:
                deciding = [doubtful[place] for place in settled.deciding if place in doubtful]
                deciding = deciding or list(doubtful.values())
                for name in needed(table):
                    n = sum(1 for (who, _), die_id in doubtful.items() if who == name and die_id in deciding)
                    if n:
                        doubted = count(n, "dado dudoso que decide el fallo", "dados dudosos que deciden el fallo")
                        blockers.append(f"{name}: {doubted}, por confirmar o corregir")
    elif doubtful:
        deciding = list(doubtful.values())
        for name in needed(table):
            n = sum(1 for who, _ in doubtful if who == name)
            if n:
                blockers.append(f"{name}: {count(n, 'dado dudoso', 'dados dudosos')} por confirmar o corregir")
    left = [die_id for die_id in doubtful.values() if die_id not in deciding]
    ruling = None
    if not blockers:
        try:
            after = table.apply(Reveal.of(shown))
            ruling = after.rulings[-1].to_dict()
            ruling["dice_after"] = dict(zip(after.players, after.dice, strict=True))
            ruling["winner"] = after.winner
        except RuleError as error:
            blockers.append(f"art. {error.article}: {error.message}")
    return {"ok": not blockers, "blockers": blockers, "ruling": ruling, "deciding": deciding, "left": left}


def left_unsettled(data: DudoReading, left: Collection[str]) -> list[Unsettled]:
    """The doubtful dice a confirmed ruling leaves as read, because no face they may show could change it: for the
    log (player, die, face read, candidates)."""
    return [
        {"player": name, "die": d["id"], "read": d["read"], "candidates": sorted(candidates_of(d))}
        for name, dice in data.get("players", {}).items()
        for d in dice
        if d["id"] in left
    ]


def count_off(found: int, want: int) -> str:
    """ "sobra 1 dado: 6 de 5", "faltan 2 dados: 3 de 5" (the coordinator's count, art. 11)."""
    off = abs(found - want)
    verb = "sobra" if found > want else "falta"
    return f"{verb}{'n' if off > 1 else ''} {off} dado{'s' if off > 1 else ''}: {found} de {want}"


def reveal_of(table: DudoTable, data: DudoReading) -> Reveal:
    """The Reveal the confirmed reading stands for (only the players who must show): the faces the proposal ruled
    on (a reading is confirmed only when every die has one)."""
    return Reveal.of(
        {name: [d["face"] for d in data["players"].get(name, []) if d["face"] is not None] for name in needed(table)}
    )
