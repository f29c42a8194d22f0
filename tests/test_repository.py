"""The repository speaks of the product: no development-session labels, short front pages, no doc citing /tmp."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SESSION_LABEL = re.compile(r"session ?[0-9]|sessions? [0-9]", re.IGNORECASE)
SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}


def _tracked_files() -> list[Path]:
    """The files git tracks, or every file outside build and cache folders where there is no git."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
        ).stdout.split("\0")
        return [ROOT / name for name in listed if name and (ROOT / name).is_file()]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in ROOT.rglob("*") if p.is_file() and not SKIPPED_DIRS & set(p.relative_to(ROOT).parts)]


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary file."""
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def test_no_file_names_a_development_session() -> None:
    found = []
    for path in _tracked_files():
        name = str(path.relative_to(ROOT))
        if SESSION_LABEL.search(name):
            found.append(name)
            continue
        text = _text(path)
        if text is None:
            continue
        found += [f"{name}:{n}" for n, line in enumerate(text.splitlines(), 1) if SESSION_LABEL.search(line)]
    assert not found, "name an experiment by its date and what it tested, not by a session: " + ", ".join(found[:20])


def test_no_doc_cites_a_path_under_tmp() -> None:
    docs = [p for p in _tracked_files() if p.suffix == ".md"]
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in docs
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"(?<![\w.])/tmp/", line)
    ]
    assert not found, "a figure's command must run from a clone: " + ", ".join(found[:20])


@pytest.mark.parametrize(
    ("page", "most"),
    [
        ("README.md", 300),
        ("models/dice/README.md", 250),
        ("models/faces/README.md", 250),
        ("models/cards/README.md", 201),
    ],
)
def test_front_pages_stay_short(page: str, most: int) -> None:
    lines = len((ROOT / page).read_text(encoding="utf-8").splitlines())
    assert lines < most, f"{page} has {lines} lines: reference detail belongs in docs/"


def test_the_kiosk_uses_the_card_engines_through_their_packages() -> None:
    """Each card game's package names its API in `__all__` (as engines.dudo does): the kiosk imports from
    engines.cards, engines.cards.GAME or engines.cards.replay, never from a game's own modules."""
    import ast
    import importlib

    allowed = {"engines.cards", "engines.cards.replay"} | {f"engines.cards.{g}" for g in GAMES_OF_CARDS}
    for path in sorted((ROOT / "kiosk").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("engines.cards"):
                assert node.module in allowed, f"{path.relative_to(ROOT)}: from {node.module} import ..."
                package = importlib.import_module(str(node.module))
                if node.module != "engines.cards.replay":
                    assert {a.name for a in node.names} <= set(package.__all__), (path, node.module)


GAMES_OF_CARDS = ("truco", "cacho", "pifpaf", "cacheta")
