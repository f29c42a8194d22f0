"""Reasons a die is uncertain: a code for programs, the Spanish message the contracts print."""

from __future__ import annotations

import json
import pickle

from vision.reasons import CARD_MESSAGES, MESSAGES, CardReasonCode, Reason, ReasonCode, has


def test_every_code_has_a_message() -> None:
    assert set(MESSAGES) == set(ReasonCode)
    assert set(CARD_MESSAGES) == set(CardReasonCode)


def test_a_cards_reason_knows_its_code_and_keeps_its_words() -> None:
    from vision.cards.reader import CardSettings, IndexHit, judge
    from vision.types import Box

    lone = IndexHit("10H", 0.99, Box(0, 0, 30, 40))
    card = judge([lone], CardSettings(alone=None))
    assert card.reasons == ("una sola esquina a la vista: falta la segunda lectura",)
    assert has(card.reasons, CardReasonCode.LONE_CORNER) and not has(card.reasons, ReasonCode.CUT)
    small = judge(
        [IndexHit("10H", 0.99, Box(0, 0, 8, 10)), IndexHit("10H", 0.99, Box(200, 300, 208, 310))], CardSettings()
    )
    assert has(small.reasons, CardReasonCode.INDEX_TOO_SMALL) and "(10 px)" in " ".join(small.reasons)


def test_a_reason_is_its_spanish_message_and_knows_its_code() -> None:
    reason = Reason(ReasonCode.MODEL_DOUBTS, confidence=0.6, threshold=0.9)
    assert reason == "el modelo duda (0,60 < 0,90)" and reason.code is ReasonCode.MODEL_DOUBTS
    assert json.dumps({"reasons": [reason]}) == json.dumps({"reasons": ["el modelo duda (0,60 < 0,90)"]})
    again = pickle.loads(pickle.dumps(reason))
    assert again == reason and again.code is ReasonCode.MODEL_DOUBTS


def test_has_finds_a_code_never_a_word_of_the_text() -> None:
    reasons = [Reason(ReasonCode.CUT), "cortado por el borde de la imagen (escrito a mano)"]
    assert has(reasons, ReasonCode.CUT)
    assert not has(reasons[1:], ReasonCode.CUT)  # a plain message has no code, whatever it says
    assert not has(reasons, ReasonCode.OUTSIDE)


def test_a_reasons_numbers_are_written_as_spanish_writes_them() -> None:
    big = Reason(ReasonCode.TOO_BIG, share=0.104)
    assert big == "demasiado grande para un dado (10\u00a0% de la imagen): ¿es un dado?"
    off = Reason(ReasonCode.OFF_CENTRE, sideways=0.125, outward=0.05)
    assert "(0,12 de lado, +0,05 hacia afuera)" in off or "(0,13 de lado, +0,05 hacia afuera)" in off
    assert "-0,05 hacia afuera" in Reason(ReasonCode.OFF_CENTRE, sideways=0.1, outward=-0.05)
    assert Reason(ReasonCode.ODD_SIZE, ratio=2.5) == "de otro tamaño que los demás dados (2,5 veces): ¿es un dado?"
    assert Reason(ReasonCode.READERS_DISAGREE, model=3, pips=5) == "los dos lectores no coinciden (modelo 3, puntos 5)"
