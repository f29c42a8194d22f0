"""The kiosk's records of the dice read: a die entry, a correction, a reading awaiting confirmation, its proposal.

They are JSON objects (kept in the store until confirmed, sent to the pages as they are): TypedDicts here only name
their keys for mypy, every record stays a plain dict. A key marked NotRequired is one that only some readings carry.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class DieEntry(TypedDict):
    """A die of a reading (kiosk.dice.die)."""

    id: str  # the die's id within the reading
    face: int | None  # 1-6, or None: not set yet
    read: int | None  # the camera's face, or None (entered by hand)
    confidence: float | None  # the reader's, or None (entered by hand)
    uncertain: bool  # the camera doubted it
    reasons: list[str]  # why (vision.reasons.Reason, a str)
    box: list[float] | None  # [x1, y1, x2, y2] on the photo, or None
    corrected: bool  # its face set by hand
    confirmed: bool  # its face, as read, confirmed by hand
    candidates: NotRequired[list[int]]  # the faces it may show (a die the camera read: vision.candidates)
    seen: NotRequired[dict[str, Any]]  # how the models read it, for their evidence (vision.faces.evidence.fields)
    slot: NotRequired[int | None]  # Bolivia: the position of the set-aside die it is, or None
    kept: NotRequired[int | None]  # Bolivia: that set-aside die's face, or None


class DieFields(TypedDict, total=False):
    """The keys of a die entry that its maker may set (kiosk.dice.die's keywords); the others get their default."""

    confidence: float | None
    uncertain: bool
    reasons: list[str]
    box: list[float] | None
    corrected: bool
    confirmed: bool
    candidates: list[int]
    seen: dict[str, Any]
    slot: int | None
    kept: int | None


class Who(TypedDict, total=False):
    """Whose die a correction changed (a Dudo reading's player; the other readings have one list of dice)."""

    player: str


class Correction(TypedDict):
    """A coordinator's correction of a reading, as the reading, the log and the audit trail keep it (these two
    without the box)."""

    player: NotRequired[str]  # a Dudo reading's
    die: str  # the die's id
    read: int | None  # what the camera read (None: a die added by hand)
    set: int | None  # the face set (None: the die removed)
    ts: str  # when (kiosk.store.now)
    box: NotRequired[list[float] | None]  # the die's box: a die removed stays removed on a new frame


class Learn(TypedDict):
    """The frame a camera reading was read from, kept to be learned from once confirmed (kiosk.learned)."""

    frame: str  # its file name
    size: list[int]  # [width, height] of the frame the boxes are on
    found: NotRequired[list[list[float]]]  # the boxes the reader found on it


class GameReading(TypedDict):
    """What every game's reading of dice carries (kiosk.game_views's reading flow reads and writes these keys)."""

    state: str  # "reading" | "ready" | "failed"
    source: str  # "camera" | "manual"
    photo: str | None  # the annotated photo's stored name
    message: str
    problems: list[str]
    capture: dict[str, object] | None  # vision.still.StillCapture.to_dict
    corrections: list[Correction]
    models: NotRequired[str]  # the models that read it (a camera reading)
    learn: NotRequired[Learn]  # its kept frame (a ready camera reading)


# A JSON object as it comes in (a request's body, a stored line or reading decoded by json.loads), before anything
# checks its keys: the JSON edge, where a value may be anything JSON holds.
JsonDict = dict[str, Any]

# A reading as a game writes it: a typed one, or a plain JSON object (the readings not typed here).
AnyReading = JsonDict | GameReading


class Proposal(TypedDict):
    """What confirming a Dudo reading would do (kiosk.dudo.reading.proposal)."""

    ok: bool  # it may be confirmed
    blockers: list[str]  # why not
    ruling: dict[str, object] | None  # the engine's ruling (Ruling.to_dict) with "dice_after" and "winner"
    deciding: list[str]  # the doubtful dice (ids) whose face could change the ruling
    left: list[str]  # the doubtful dice (ids) that cannot, whatever face they show


class DudoReading(GameReading):
    """The cups lifted (kiosk.dudo.reading): each player's dice."""

    players: dict[str, list[DieEntry]]  # the players who show their dice
    size: NotRequired[list[int]]  # [width, height] of the photo (a camera reading)
    photo_url: NotRequired[str | None]  # the page's: the photo's URL (never stored)
    photo_raw_url: NotRequired[str | None]  # the page's: the photo as taken, unannotated (kiosk.photos.raw_name)
    proposal: NotRequired[Proposal]  # the page's: what confirming would do (never stored)


class Unsettled(TypedDict):
    """A doubtful die a confirmed Dudo ruling left as read (the reveal's log line)."""

    player: str
    die: str
    read: int | None
    candidates: list[int]


class KeptDie(TypedDict):
    """A die set aside for the next Bolivian roll (kiosk.bolivia.reading.kept_dice)."""

    position: int  # 1-5
    face: int
    box: list[float] | None  # where it lay on the last roll's photo, or None
    size: list[int] | None  # [width, height] of that photo, or None


class RollArea(TypedDict):
    """Where a Bolivian roll was read: the rolling area inside its markers, or the whole frame."""

    kind: str  # "aruco" | "frame"
    markers: int  # the rolling area's markers seen
    polygon: list[list[float]] | None  # the area's outline on the photo, or None (the whole frame)


class RollProposal(TypedDict):
    """What confirming a Bolivian roll would do (kiosk.bolivia.reading.proposal)."""

    ok: bool  # it may be confirmed
    blockers: list[str]  # why not
    dice: list[int | None] | None  # the faces by position (None: missing), or None before the dice are read
    order: list[str | None]  # the dice (ids) by position
    extra: NotRequired[list[str]]  # the dice (ids) left over
    moved: NotRequired[list[int]]  # the set-aside dice (positions) that show another face


class BoliviaReading(GameReading):
    """A Bolivian roll read (kiosk.bolivia.reading): the five dice, and which of them were set aside."""

    dice: list[DieEntry]
    kept: list[KeptDie]  # the dice set aside before this roll
    area: RollArea | None  # a camera reading's
    size: list[int] | None  # [width, height] of the photo (a camera reading)
    photo_url: NotRequired[str | None]  # the page's: the photo's URL (never stored)
    proposal: NotRequired[RollProposal]  # the page's: what confirming would do (never stored)
