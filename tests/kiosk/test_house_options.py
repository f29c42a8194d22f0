"""The house options on the setup forms: each a Spanish sentence with its article (and its English), never the
option's code name or a bare path to the docs."""

from __future__ import annotations

import html
import re
from dataclasses import fields
from enum import StrEnum

import pytest

from engines.bolivia.config import BoliviaConfig
from engines.dudo.config import DudoConfig
from kiosk.cards import cacheta, cacho, pifpaf, truco
from kiosk.house_options import BOLIVIA, CARDS, DUDO
from kiosk.i18n import EN
from tests.kiosk.conftest import Coordinator

GAMES = [("dudo", DudoConfig, DUDO), ("bolivia", BoliviaConfig, BOLIVIA)]


def text_of(page: str) -> str:
    """What the page shows: the tags and scripts left out."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


@pytest.mark.parametrize(("game", "config", "house"), GAMES)
def test_every_option_and_choice_has_its_sentence_and_english(game: str, config: type, house: dict) -> None:
    assert set(house) == {f.name for f in fields(config)}
    for f in fields(config):
        option, default = house[f.name], getattr(config(), f.name)
        assert option.text in EN and (option.article in EN or option.article.startswith("art. "))
        if isinstance(default, StrEnum):
            assert set(option.choices) == {m.value for m in type(default)}
            assert all(sentence in EN for sentence in option.choices.values())
        else:
            assert not option.choices


@pytest.mark.parametrize(("game", "config", "house"), GAMES)
def test_the_setup_form_shows_sentences_not_code_names(
    coordinator: Coordinator, game: str, config: type, house: dict
) -> None:
    page = coordinator.get(f"/{game}/new").get_data(as_text=True)
    shown = " ".join(text_of(page).split())
    assert "rulings.md" not in shown
    for name, option in house.items():
        assert "_" not in name or name not in shown  # "subir", "empate" are words of the sentences too
        assert f"{option.text} ({option.article})" in shown
        for value, sentence in option.choices.items():
            assert sentence in shown and f">{value}</option>" not in page
    english = " ".join(text_of(coordinator.get(f"/{game}/new?lang=en").get_data(as_text=True)).split())
    for option in house.values():
        assert EN[option.text] in english and option.text not in english


CARD_GAMES = [("truco", truco), ("cacho", cacho), ("pifpaf", pifpaf), ("cacheta", cacheta)]


@pytest.mark.parametrize(("game", "module"), CARD_GAMES)
def test_the_card_games_forms_show_sentences_in_both_languages(
    coordinator: Coordinator, game: str, module: object
) -> None:
    defaults = module.DEFAULTS  # type: ignore[attr-defined]
    assert set(defaults) <= set(CARDS)
    page = coordinator.get(f"/{game}/new").get_data(as_text=True)
    shown = " ".join(text_of(page).split())
    english = " ".join(text_of(coordinator.get(f"/{game}/new?lang=en").get_data(as_text=True)).split())
    for name in defaults:
        option = CARDS[name]
        assert name not in shown and f"{option.text} ({option.article})" in shown
        assert f"{EN[option.text]} ({EN[option.article]})" in english
        for value, sentence in option.choices.items():
            assert sentence in shown and EN[sentence] in english and f">{value}</option>" not in page
