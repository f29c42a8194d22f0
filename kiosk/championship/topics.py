"""The MQTT topics of a championship (documented in docs/championship.md): one tree per championship code."""

from __future__ import annotations

import re

CODE_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")
ROOT = "cacho"

EVENT = "event"  # table → organizer: every event of the log, QoS 1, with its sequence number
STATE = "state"  # table → everyone: the table now, retained
LINK = "link"  # table → everyone: "up" / "down" (the broker's last will), retained
PHOTO = "photo"  # table → everyone: the last ruling's annotated photo (JPEG bytes), retained
RESEND = "resend"  # organizer → table: send again from this sequence number
RULINGS = "rulings"  # organizer → table: the organizer's rulings (art. 11)
SEATING = "seating"  # organizer → table: the players the draw sat there (art. 3), retained
SAMPLE = "sample"  # table → organizer: a confirmed sample of the table's dice, QoS 1 (kiosk.championship.pool)
SAMPLED = "sampled"  # organizer → table: the samples it kept
MODEL = "model"  # organizer → every table: the reader adapted on the pooled dice, retained (championship_topic)
LEVELS = "levels"  # organizer → every table: the levels every table's evidence sets for that reader, retained

FROM_TABLE = (EVENT, STATE, LINK, PHOTO, SAMPLE)  # what a table may publish (its own only)
TO_TABLE = (RESEND, RULINGS, SEATING, SAMPLED)  # what a table reads (its own only)
TO_EVERY_TABLE = (MODEL, LEVELS)  # what every table reads (championship_topic)


def check_code(code: str) -> str:
    """The championship code, or ValueError saying what a code may be."""
    if not CODE_RE.match(code):
        raise ValueError(
            f"código de campeonato {code!r}: de 1 a 32 letras minúsculas sin tilde, cifras o guiones, sin espacios"
        )
    return code


def table_topic(code: str, table: int, kind: str) -> str:
    """One table's topic of a kind (`event`, `state`, `link`, `resend`, `rulings`)."""
    return f"{ROOT}/{code}/table/{table}/{kind}"


def championship_topic(code: str, kind: str) -> str:
    """A topic of the whole championship (`model`, `levels`)."""
    return f"{ROOT}/{code}/{kind}"


def every_table(code: str, kind: str) -> str:
    """The subscription to one kind of topic of every table."""
    return f"{ROOT}/{code}/table/+/{kind}"


def parse_table_topic(code: str, topic: str) -> tuple[int, str] | None:
    """(table number, kind) of a topic of this championship, or None."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[1] != code or parts[2] != "table" or not parts[3].isdigit():
        return None
    return int(parts[3]), parts[4]
