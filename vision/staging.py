"""A models folder written whole: a copy of another, changed in a staging folder beside the target, then put in its
place at once, so that a reader never finds it half written."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


def write_copy(source: Path, out: Path, change: Callable[[Path], None]) -> None:
    """`out` becomes a copy of `source` with `change` applied to the copy (given its path); replaced at once."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".adapt-", dir=out.parent))
    try:
        shutil.copytree(source, staging, dirs_exist_ok=True)
        change(staging)
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
