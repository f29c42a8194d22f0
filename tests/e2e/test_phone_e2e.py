"""The spectators' view of a Dudo table on a phone (390x844): no sideways scroll, nothing run together (issue 63)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Server, serving, set_pin

PIN = "5713"


@pytest.fixture
def kiosk(tmp_path: Path, page: Any) -> Iterator[Server]:
    with serving(tmp_path, "none") as server:
        set_pin(page, server.url, PIN)
        yield server


def test_the_spectators_view_fits_a_phone(kiosk: Server, page: Any, browser: Any) -> None:
    """The demo table's log imported, halfway: its counts, its last ruling and the header on a 390 px screen."""
    demo = Path(__file__).resolve().parents[2] / "kiosk" / "demo" / "mesa_dudo.jsonl"
    text = "\n".join(demo.read_text(encoding="utf-8").splitlines()[:30]) + "\n"
    page.goto(kiosk.url + "/")
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    response = page.request.post(kiosk.url + "/dudo/import", form={"text": text, "csrf_token": token})
    assert response.ok, response.text()
    table = response.url
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="es-CL")
    try:
        view = phone.new_page()
        view.goto(table + "/tv")
        view.wait_for_selector("#last-ruling")
        wide = view.evaluate(
            """() => [...document.querySelectorAll('body *')]
                 .filter((e) => e.getBoundingClientRect().right > innerWidth + 1)
                 .map((e) => e.tagName + '#' + e.id + '.' + e.className).slice(0, 12)"""
        )
        width = view.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (width, wide)
        cut = view.evaluate(
            "() => [...document.querySelectorAll('header .badge:not([hidden])')]"
            ".filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent)"
        )
        assert cut == [], cut  # a badge cut short to «C…» says nothing
        blocks = view.evaluate(
            """() => [...document.querySelectorAll('main .card')].filter((e) => e.offsetParent !== null)
                 .map((e) => { const r = e.getBoundingClientRect(); return [e.id || e.className, r.left, r.top,
                               r.right, r.bottom]; })"""
        )
        for i, (name, left, top, right, bottom) in enumerate(blocks):
            for other, left2, top2, right2, bottom2 in blocks[i + 1 :]:
                apart = right <= left2 + 1 or right2 <= left + 1 or bottom <= top2 + 1 or bottom2 <= top + 1
                assert apart, (name, other, blocks)  # nothing drawn over another
        assert len({round(b[1]) for b in blocks}) == 1, blocks  # one column: each card the phone's width
    finally:
        phone.close()


def test_the_coordinators_pintas_fit_a_phone(kiosk: Server, page: Any) -> None:
    """The coordinator on a phone: each pinta's button shows its whole name, none run into the next
    («trenescuadras»)."""
    from tests.e2e.test_dudo_e2e import new_table

    page.set_viewport_size({"width": 390, "height": 844})
    new_table(page, kiosk)
    page.wait_for_selector(".row.faces .face")
    boxes = page.locator(".row.faces .face").evaluate_all(
        "els => els.map(e => [e.textContent, e.scrollWidth <= e.clientWidth + 1, e.getBoundingClientRect().toJSON()])"
    )
    assert len(boxes) == 6 and all(fits for _, fits, _ in boxes), boxes
    for i, (_, _, a) in enumerate(boxes):
        for _, _, b in boxes[i + 1 :]:
            apart = a["right"] <= b["left"] + 1 or b["right"] <= a["left"] + 1
            apart = apart or a["bottom"] <= b["top"] + 1 or b["bottom"] <= a["top"] + 1
            assert apart, boxes
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
