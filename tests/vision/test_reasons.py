"""Reasons a die is uncertain: a code for programs, the Spanish message the contracts print."""

from __future__ import annotations

import json
import pickle

from vision.reasons import MESSAGES, Reason, ReasonCode, has


def test_every_code_has_a_message() -> None:
    assert set(MESSAGES) == set(ReasonCode)


def test_a_reason_is_its_spanish_message_and_knows_its_code() -> None:
    reason = Reason(ReasonCode.MODEL_DOUBTS, confidence=0.6, threshold=0.9)
    assert reason == "el modelo duda (0.60 < 0.90)" and reason.code is ReasonCode.MODEL_DOUBTS
    assert json.dumps({"reasons": [reason]}) == json.dumps({"reasons": ["el modelo duda (0.60 < 0.90)"]})
    again = pickle.loads(pickle.dumps(reason))
    assert again == reason and again.code is ReasonCode.MODEL_DOUBTS


def test_has_finds_a_code_never_a_word_of_the_text() -> None:
    reasons = [Reason(ReasonCode.CUT), "cortado por el borde de la imagen (escrito a mano)"]
    assert has(reasons, ReasonCode.CUT)
    assert not has(reasons[1:], ReasonCode.CUT)  # a plain message has no code, whatever it says
    assert not has(reasons, ReasonCode.OUTSIDE)
