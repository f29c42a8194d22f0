"""One card game's kiosk endpoints as its tests tap them: the state, a tap, a tap that must pass or be refused."""

from __future__ import annotations

from typing import Any

from kiosk.sections import section
from tests.kiosk.conftest import Coordinator


class CardKiosk:
    """The endpoints under /`game`/ID/ (truco, cacho, pifpaf, cacheta)."""

    def __init__(self, game: str) -> None:
        self.game = game

    def state(self, co: Coordinator, gid: int) -> dict[str, Any]:
        """The table's state.json."""
        response = co.get(f"/{self.game}/{gid}/state.json")
        assert response.status_code == 200
        return dict(response.get_json())

    def post(self, co: Coordinator, gid: int, **body: Any) -> Any:
        """One tap, with the event number on screen."""
        body.setdefault("seq", self.state(co, gid)["seq"])
        return co.post(f"/{self.game}/{gid}/action", body)

    def ok(self, co: Coordinator, gid: int, **body: Any) -> dict[str, Any]:
        """One tap the engine accepts; the answer."""
        response = self.post(co, gid, **body)
        assert response.status_code == 200, response.get_json()
        return dict(response.get_json())

    def refused(self, co: Coordinator, gid: int, article: str, text: str, **body: Any) -> None:
        """The tap is refused with the seed's section and reason, and nothing is stored."""
        before = self.state(co, gid)["seq"]
        response = self.post(co, gid, **body)
        assert response.status_code == 409, response.get_json()
        data = response.get_json()
        assert data["article"] == section(article) and text in data["error"], data
        assert data["error"].startswith(str(section(article)) + ": ")
        assert self.state(co, gid)["seq"] == before
