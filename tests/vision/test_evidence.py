"""A table's evidence: which confirmed dice count, the levels they set, and the readings judged at those levels."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision import evening as ev
from vision.evaluate import TruthDie
from vision.faces import evidence as evd
from vision.faces.adapt import MIN_ALONE_SUPPORT
from vision.reasons import Reason, ReasonCode, has
from vision.types import Box, DieReading, FaceGuess, FrameReading

BOX = Box(10, 10, 40, 40)
OWN = evd.Levels(0.9, None, None)


def reading(face: int, confidence: float, pips: int | None, *extra: Reason, box: Box = BOX) -> DieReading:
    """A die as the stock rule reads it: the classifier's guess and the pip count's, flagged where it doubts."""
    rest = (1 - confidence) / 5
    faces = tuple(confidence if f == face else rest for f in range(1, 7))
    model = FaceGuess(face, confidence, "cnn", faces=faces)
    counted = FaceGuess(pips, 0.9 if pips else 0.0, "pips")
    from vision.faces.reader import combine

    verdict = combine(model, counted, OWN.threshold, OWN.alone)
    reasons = (*extra, *verdict.reasons)
    return DieReading(face, confidence, box, bool(reasons), reasons, (model, counted))


def test_a_reading_is_judged_again_at_the_tables_levels() -> None:
    uncounted = reading(3, 0.96, None)
    cut = reading(3, 0.96, None, Reason(ReasonCode.CUT))
    assert has(uncounted.reasons, ReasonCode.NOT_COUNTED)
    frame = FrameReading(100, 100, (uncounted, cut))
    again = evd.judged(frame, evd.Levels(0.9, 0.95, 0.02))
    assert not again.dice[0].uncertain and again.dice[0].level == 0.02
    # the cut stays; the count is no longer its reason
    assert again.dice[1].reasons == (Reason(ReasonCode.CUT),) and again.dice[1].uncertain
    stricter = evd.judged(frame, evd.Levels(0.97, 0.99, None))
    assert has(stricter.dice[0].reasons, ReasonCode.MODEL_DOUBTS) and has(
        stricter.dice[0].reasons, ReasonCode.NOT_COUNTED
    )
    unguessed = DieReading(2, 0.5, BOX, True, ("a mano",))
    assert evd.judged(FrameReading(100, 100, (unguessed,)), OWN).dice[0].reasons == ("a mano",)


def test_only_dice_the_reader_did_not_answer_for_itself_are_evidence() -> None:
    accepted = reading(4, 0.97, 4)
    flagged = reading(4, 0.95, None)
    assert not accepted.uncertain and flagged.uncertain
    assert evd.is_evidence(accepted, 4, held_out=True)  # a held-out photo, the two readers agreeing
    alone = evd.judged(FrameReading(100, 100, (flagged,)), evd.Levels(0.9, 0.9, None)).dice[0]
    assert not alone.uncertain and not evd.is_evidence(alone, 4, held_out=True)  # the classifier's own answer
    assert not evd.is_evidence(accepted, 4, held_out=False)  # accepted and left as read: the reader's own answer
    assert evd.is_evidence(accepted, 5, held_out=False)  # corrected
    assert evd.is_evidence(flagged, 4, held_out=False)  # the coordinator set it
    cocked = reading(4, 0.95, None, Reason(ReasonCode.TILTED, squash=0.6, limit=0.8))
    assert not evd.is_evidence(cocked, 4, held_out=True)  # outside the rule the face levels set
    one = evd.seen(flagged, 4)
    assert one is not None and (one.face, one.model, one.pips) == (4, 4, 0) and abs(sum(one.faces) - 1) < 1e-6


def many(n: int, confidence: float, right: bool = True) -> list[evd.Seen]:
    faces = tuple(confidence if f == 2 else (1 - confidence) / 5 for f in range(1, 7))
    return [evd.Seen(2 if right else 5, 2, confidence, 0, faces) for _ in range(n)]


def test_the_alone_level_needs_enough_evidence_and_none_wrong() -> None:
    assert evd.set_levels([], OWN) == OWN
    short = evd.set_levels(many(MIN_ALONE_SUPPORT - 1, 0.97), OWN)
    assert short.alone is None and short.dice == MIN_ALONE_SUPPORT - 1
    enough = evd.set_levels(many(MIN_ALONE_SUPPORT, 0.97), OWN)
    assert enough.alone is not None and enough.alone <= 0.97 and enough.threshold >= OWN.threshold
    # one die read sure and wrong at 0.97 among them: no level under it is safe, and none over it takes 100 off
    wrong = evd.set_levels(many(MIN_ALONE_SUPPORT, 0.97) + many(1, 0.97, right=False), OWN)
    assert wrong.alone is None


def test_the_candidate_level_comes_from_enough_doubtful_evidence() -> None:
    rng = np.random.default_rng(0)
    rows = []
    for _ in range(1200):
        p = rng.uniform(0.3, 0.85)
        faces = tuple(p if f == 3 else (1 - p) / 5 for f in range(1, 7))
        rows.append(evd.Seen(3, 3, p, 0, faces))
    levels = evd.set_levels(rows, evd.Levels(0.9, None, 0.5))
    assert levels.candidate is not None and levels.candidate < 0.31  # the true face's least probability, nearly
    assert evd.set_levels(rows[:500], evd.Levels(0.9, None, 0.5)).candidate == 0.5  # too few: the models' own


def test_a_ledger_starts_from_the_models_held_out_dice_and_grows(tmp_path: Path) -> None:
    faces = tmp_path / "models" / "faces"
    faces.mkdir(parents=True)
    probs = np.array([[0.0, 0.9, 0.02, 0.02, 0.02, 0.02, 0.02], [0.9, 0.1, 0, 0, 0, 0, 0]], np.float32)
    assert evd.write_held_out(faces, probs, np.array([1, 0]), np.array([1, 0])) == 1  # no die: not evidence
    ledger = evd.Ledger(tmp_path / "mesa" / "m.jsonl", seed=faces)
    assert [(s.face, s.model, s.pips) for s in ledger.read()] == [(1, 1, 1)]
    assert ledger.add(many(2, 0.8)) == 2
    again = evd.Ledger(tmp_path / "mesa" / "m.jsonl", seed=faces)  # an existing ledger is kept, not seeded again
    assert len(again.read()) == 3 and again.read()[1].to_dict() == many(1, 0.8)[0].to_dict()  # rounded alike


class Steady:
    """Reads one die, a 2 the classifier is 0.97 sure of and whose pips it cannot count."""

    def __init__(self, models: Path) -> None:
        self.models = models

    def read(self, frame: object) -> FrameReading:
        return FrameReading(100, 100, (reading(2, 0.97, None),))


def test_a_table_trusts_its_classifier_alone_once_its_flagged_dice_prove_it(tmp_path: Path) -> None:
    table = ev.Table(tmp_path / "stock", "de fábrica", tmp_path / "pruebas", Steady(tmp_path), lambda faces: OWN)
    truth = [TruthDie(BOX, 2)]
    for k in range(MIN_ALONE_SUPPORT):
        die = table.read(np.zeros((100, 100, 3), np.uint8)).dice[0]
        assert die.uncertain, k  # every one goes to the coordinator, and each is evidence
        table.confirmed(FrameReading(100, 100, (die,)), truth, held_out=False)
    assert not table.read(np.zeros((100, 100, 3), np.uint8)).dice[0].uncertain
    assert table.levels.dice == MIN_ALONE_SUPPORT and table.levels.alone is not None
    # an accepted die on a taught photo adds nothing; off, the levels are the models' own for good
    sure = table.read(np.zeros((100, 100, 3), np.uint8))
    table.confirmed(sure, truth, held_out=False)
    assert table.levels.dice == MIN_ALONE_SUPPORT
    off = ev.Table(tmp_path / "stock", "otra", tmp_path / "pruebas", Steady(tmp_path), None)
    off.confirmed(FrameReading(100, 100, (reading(2, 0.97, None),)), truth, held_out=False)
    assert (
        off.read(np.zeros((100, 100, 3), np.uint8)).dice[0].uncertain
        and not (tmp_path / "pruebas" / "otra.jsonl").read_text()
    )


def test_judged_at_the_models_own_levels_a_reading_is_unchanged() -> None:
    """The committed reader's readings, judged again at its own levels: every die's doubt and reasons, in order."""
    import cv2

    from vision.pipeline import MODELS, build_reader

    root = Path(__file__).resolve().parents[2]
    reader, own = build_reader(), evd.models_levels(MODELS / "faces")
    for photo in (root / "models" / "dice" / "bench_table.jpg", root / "kiosk" / "demo" / "fotos" / "00" / "004.jpg"):
        reading = reader.read(cv2.imread(str(photo)))
        again = evd.judged(reading, own)
        assert [(d.uncertain, d.reasons) for d in again.dice] == [(d.uncertain, d.reasons) for d in reading.dice]
        assert any(d.uncertain for d in reading.dice) and any(not d.uncertain for d in reading.dice)


def steady_evening(folder: Path, frames: int) -> Path:
    """`frames` photos of one die, a 2 at BOX (what Steady reads), as a YOLO folder."""
    import cv2

    for sub in ("images", "labels"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for k in range(frames):
        cv2.imwrite(str(folder / "images" / f"f{k:04d}.png"), np.full((100, 100, 3), 90, np.uint8))
        (folder / "labels" / f"f{k:04d}.txt").write_text("1 0.25 0.25 0.3 0.3\n")
    return folder


def test_a_championship_pooling_its_evidence_proves_its_reader_on_every_tables_dice(tmp_path: Path) -> None:
    frames = MIN_ALONE_SUPPORT + 8
    folder = steady_evening(tmp_path / "noche", frames)
    never = ev.Learning(every=100_000, crops=1)

    def replay(pooled: bool) -> list[ev.FrameScore]:
        work = tmp_path / ("juntas" if pooled else "cada-una")
        steps = ev.evening(
            folder, tmp_path, work, Steady, lambda *a, **k: None, never, lambda f: OWN, 4, pooled_evidence=pooled
        )
        return [s for s in steps if isinstance(s, ev.FrameScore)]

    apart, pooled = replay(False), replay(True)
    assert [s.table for s in pooled] == [s.table for s in apart] == [1, 2, 3, 4] * (frames // 4)
    # each table alone has a quarter of the evidence: short of the gate, every die goes to the coordinator
    assert all(s.load == 1 for s in apart)
    # pooled, the gate is passed once the tables together have confirmed MIN_ALONE_SUPPORT dice: then none is asked
    assert all(s.load == 1 for s in pooled[:MIN_ALONE_SUPPORT]) and all(s.load == 0 for s in pooled[MIN_ALONE_SUPPORT:])
    assert all(s.wrong == 0 for s in pooled)
    (ledger,) = (tmp_path / "juntas" / "pruebas" / "campeonato").iterdir()  # the organizer's one ledger
    # every table's flagged dice are in it; a die accepted on the classifier alone never is
    assert len(ledger.read_text().splitlines()) == MIN_ALONE_SUPPORT
