"""One catalogue (kiosk/i18n.py): every text the kiosk's own pages, scripts and messages show has its English, and
the Spanish view shows no English of the catalogue's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from kiosk import i18n
from tests.kiosk.conftest import Coordinator

KIOSK = Path(__file__).resolve().parents[2] / "kiosk"


def texts() -> list[tuple[str, str]]:
    """(where, Spanish text) for every text given to the catalogue: _('...') in the templates, t("...") in the
    Python and the scripts, and the labels the Bolivian and Dudo scripts are handed."""
    from kiosk.bolivia.views import JS_LABELS

    found = [("kiosk.bolivia.views.JS_LABELS", key) for key in JS_LABELS]
    for page in sorted((KIOSK / "templates").rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        found += [(page.name, key) for key in re.findall(r"_\('([^']*)'\)", text) + re.findall(r'_\("([^"]*)"\)', text)]
    for source in sorted([*KIOSK.rglob("*.py"), *(KIOSK / "static").glob("*.js")]):
        text = source.read_text(encoding="utf-8")
        found += [(source.name, key) for key in re.findall(r'\bt\("([^"]*)"\)', text)]
    return found


def test_every_text_has_its_english() -> None:
    found = texts()
    assert len(found) > 300
    assert [(where, key) for where, key in found if key not in i18n.EN] == []


def test_the_english_of_a_text_is_not_its_spanish_by_mistake() -> None:
    same = {key for key, english in i18n.EN.items() if key == english and " " in key}
    assert same <= {"Cacho Companion"}


def test_the_spanish_pages_show_no_english_of_the_catalogue(client: FlaskClient, coordinator: Coordinator) -> None:
    coordinator.new_table()
    english = {value for key, value in i18n.EN.items() if value != key and len(value) > 12}
    for path in ("/", "/dudo/new", "/bolivia/new", "/dudo/1", "/dudo/1/tv"):
        page = coordinator.get(path).get_data(as_text=True)
        shown = re.sub(r"<script\b.*?</script>", " ", page, flags=re.S)
        assert [e for e in english if e in shown] == [], path


def test_plural_and_grammar_in_spanish(coordinator: Coordinator, client: FlaskClient) -> None:
    page = coordinator.get("/").get_data(as_text=True)
    assert "1 eventos" not in page
    assert "El PIN son" not in "".join(i18n.EN)
    assert "Importar (Registro (JSONL))" not in re.sub(r"<[^>]+>", "", page)


def test_the_command_line_speaks_spanish(capsys: pytest.CaptureFixture[str]) -> None:
    from kiosk.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["dudo", "replay"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2
    assert err.startswith("uso: cacho dudo replay") and "faltan estos argumentos: FILE" in err
    assert "usage" not in err and "the following" not in err


def test_a_broken_json_is_told_in_spanish(coordinator: Coordinator) -> None:
    from engines.jsonl import LogError, decode_json_line

    with pytest.raises(LogError, match="falta una coma"):
        decode_json_line('{"event": "roll" "player": "Ana"}')
    page = coordinator.form("/dudo/new", {"players": "Ana\nBeto", "sorteo": "[{"}).get_data(as_text=True)
    assert "el sorteo no es JSON válido: falta un nombre de campo entre comillas dobles" in page
    assert "Expecting" not in page


def test_numbers_and_counts_are_written_as_each_language_writes_them(app: Flask) -> None:
    """Spanish decimals with a comma and the plural that agrees with the count; English with a point."""
    from vision import words

    assert words.number(1.4) == "1,4" and words.number(0.84, 2) == "0,84" and words.number(1240, 0) == "1240"
    assert words.number(1.4, 1, "en") == "1.4"
    assert words.count(1, "dado dudoso", "dados dudosos") == "1 dado dudoso"
    assert words.count(0, "dado dudoso", "dados dudosos") == "0 dados dudosos"
    assert words.count(3, "corrección", "correcciones") == "3 correcciones"
    with app.test_request_context("/?lang=en"):
        assert i18n.number(3.75, 2) == "3.75"
    with app.test_request_context("/"):
        assert i18n.number(3.75, 2) == "3,75" and i18n.count(1, "marcador", "marcadores") == "1 marcador"


def test_the_pages_name_no_developer_file(client: FlaskClient, coordinator: Coordinator) -> None:
    coordinator.new_table()
    for path in ("/", "/dudo/new", "/bolivia/new", "/cacho/new", "/truco/new", "/pifpaf/new", "/cacheta/new"):
        response = coordinator.get(path)
        assert response.status_code == 200, path
        shown = re.sub(
            r"<[^>]+>", " ", re.sub(r"<script\b.*?</script>", " ", response.get_data(as_text=True), flags=re.S)
        )
        assert re.findall(r"\b(?:docs|kiosk|vision)/\S+", shown) == [], path


def test_the_catalogue_is_one_gettext_file_with_plural_entries(client: FlaskClient) -> None:
    from babel.messages.pofile import read_po

    with i18n.CATALOGUE.open("rb") as source:
        catalogue = read_po(source, locale="en")
    assert catalogue.plural_forms == "nplurals=2; plural=(n != 1);"
    assert len(catalogue) >= 400
    assert ("dado dudoso: tóquelo", "dados dudosos: tóquelos") in i18n.PLURALS
    assert not list((KIOSK).rglob("*texts.py"))  # no second catalogue beside it
    with client.application.test_request_context("/?lang=en"):
        assert i18n.count(1, "dado dudoso: tóquelo", "dados dudosos: tóquelos") == "1 doubtful die: tap it"
        assert i18n.count(3, "dado dudoso: tóquelo", "dados dudosos: tóquelos") == "3 doubtful dice: tap them"
    with client.application.test_request_context("/"):
        assert i18n.count(1, "corrección", "correcciones") == "1 corrección"
        assert i18n.count(2, "corrección", "correcciones") == "2 correcciones"
