"""The bundled demo table: example logs that the demo and the tests replay."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def demo_path(name: str) -> Path:
    """Path of a bundled demo file, e.g. `mesa_dudo.jsonl`."""
    return Path(str(resources.files(__package__).joinpath(name)))
