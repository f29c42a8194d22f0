"""The pip counter on real crops: a die whose colour region spills past it, and a cocked die it must not count."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.faces import pips
from vision.faces.pips import WORK, PipCounter

FIXTURES = Path(__file__).parent / "fixtures" / "pips"


def load(name: str) -> np.ndarray:
    image = cv2.imread(str(FIXTURES / name), cv2.IMREAD_COLOR)
    assert image is not None, name
    return image


@pytest.mark.parametrize(("name", "face"), [("roundcam_grey_4.png", 4), ("roundcam_grey_5.png", 5)])
def test_a_grey_die_on_a_grey_pad_is_counted(name: str, face: int) -> None:
    guess = PipCounter().read(load(name))
    assert guess.face == face
    assert guess.confidence >= pips.MIN_BOXED_CONFIDENCE


def test_a_cocked_die_leaning_on_a_die_of_its_colour_is_not_counted() -> None:
    assert PipCounter().read(load("rendered_cocked_red.png")).face is None


def test_the_part_in_the_box_leaves_out_the_crops_margin() -> None:
    region = np.ones((WORK, WORK), bool)
    inner = pips._in_box(region)
    assert inner[WORK // 2, WORK // 2] and not inner[0, 0] and not inner[WORK - 1, WORK // 2]
    assert pips._centroid(inner) == pytest.approx((WORK / 2 - 0.5, WORK / 2 - 0.5), abs=1.0)
    margin_only = np.zeros((WORK, WORK), bool)
    margin_only[:5, :5] = True
    assert np.array_equal(pips._in_box(margin_only), margin_only)  # nothing in the box: the whole region
