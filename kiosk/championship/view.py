"""A Dudo table rebuilt from its events one at a time: what the organizer and the retained state show of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.dudo import DudoTable, parse_event, step
from engines.errors import LogError, RuleError


class TableView:
    """The table after the events added so far (in order, from the start); a bad event stops it, as a replay does."""

    def __init__(self) -> None:
        self.table: DudoTable | None = None
        self.seq = 0
        self.error: str | None = None
        self._photos: list[str | None] = []  # each standing event's photo, popped with its undo

    def add(self, event: Mapping[str, Any]) -> None:
        """Apply the next event (the `seq + 1`-th); after a refused one nothing more is applied."""
        self.seq += 1
        if self.error is not None:
            return
        try:
            self.table = step(self.table, parse_event(dict(event)))
        except (LogError, RuleError) as error:
            self.error = f"evento {self.seq}: {error}"
            return
        if event.get("event") == "undo":
            if self._photos:
                self._photos.pop()
        else:
            photo = event.get("photo")
            self._photos.append(photo if isinstance(photo, str) else None)

    def summary(self) -> dict[str, Any]:
        """Players and dice, the standing bid, who acts, the eliminated in order, the champion, the last ruling."""
        table = self.table
        out: dict[str, Any] = {"seq": self.seq, "error": self.error}
        if table is None:
            empty: dict[str, Any] = {
                "players": [],
                "bid": None,
                "to_act": None,
                "eliminated": [],
                "disqualified": [],
                "winner": None,
            }
            return out | empty | {"ruling": None}
        eliminated = [name for ruling in table.rulings for name in ruling.eliminated]
        last = table.rulings[-1] if table.rulings else None
        photo = next((p for p in reversed(self._photos) if p), None)
        rnd = table.round
        return out | {
            "players": [{"name": name, "dice": table.dice_of(name)} for name in table.players],
            "in_play": table.in_play,
            "round": None if rnd is None else rnd.number,
            "mode": None if rnd is None else rnd.mode,
            "bid": None if rnd is None or rnd.bid is None else rnd.bid.to_dict(),
            "to_act": None if rnd is None or table.winner is not None else rnd.to_act,
            "eliminated": eliminated,
            "disqualified": list(table.disqualified),
            "winner": table.winner,
            "ruling": None
            if last is None
            else {"round": last.round, "article": last.article, "message": last.message, "photo": photo},
        }
