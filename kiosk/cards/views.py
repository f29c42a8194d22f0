"""`/cards`: the card games the kiosk plays, with their tables."""

from __future__ import annotations

from flask import Blueprint, render_template
from flask.typing import ResponseReturnValue

from kiosk.web import store

bp = Blueprint("cards", __name__, url_prefix="/cards")

GAMES = (
    ("truco", "Truco", "truco.new"),
    ("cacho", "Cacho español", "cacho.new"),
    ("pifpaf", "Pif Paf", "pifpaf.new"),
    ("cacheta", "Cacheta", "cacheta.new"),
)


@bp.route("/")
def index() -> ResponseReturnValue:
    """Each card game the kiosk plays and its tables, newest first."""
    tables = {game: store().tables(game) for game, _, _ in GAMES}
    return render_template("cards/index.html", games=GAMES, tables=tables)
