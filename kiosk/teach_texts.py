"""The English of «Enseñar los dados» and of the models badge (the Spanish text is the key)."""

from __future__ import annotations

EN: dict[str, str] = {
    "Enseñar los dados": "Teach the dice",
    "Tire todos los dados de la mesa sobre el paño, léalos, corrija tocando y confirme: cada dado confirmado enseña "
    "al lector. También aprende de cada lectura confirmada en juego.": (
        "Roll all the table's dice on the felt, read them, correct by tapping and confirm: every confirmed die "
        "teaches the reader. It also learns from every reading confirmed in play."
    ),
    "Enseñar al lector": "Teach the reader",
    "Instalar la parte de aprendizaje": "Install the learning part",
    "Para aprender los dados de esta mesa falta la parte de aprendizaje (torch y ultralytics, {size}). El lector "
    "lee sin ella.": (
        "To learn this table's dice the learning part is missing (torch and ultralytics, {size}). The reader reads "
        "without it."
    ),
    "Lee con": "Reading with",
    "Volver al lector de fábrica": "Back to the stock reader",
    "Usar el lector adaptado": "Use the adapted reader",
    "Confirmar": "Confirm",
    "Descartar": "Discard",
    "Quitar": "Remove",
    "Dado": "Die",
    "Dados": "Dice",
    "de fábrica": "stock",
    "cargando": "loading",
    "{n} de {m} dados": "{n} of {m} dice",
    "Faltan {n} dados": "{n} dice missing",
    "Faltan dados con la cara": "More dice needed showing",
    "al menos": "at least",
    "esperando a que los dados queden quietos": "waiting for the dice to be still",
}
