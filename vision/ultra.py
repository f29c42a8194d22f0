"""Ultralytics imported with its log on standard error, so that a command's standard output holds only its own lines."""

from __future__ import annotations

import contextlib
import sys


def quiet_import() -> None:
    """Import ultralytics (once) with its log handler bound to standard error, not to standard output."""
    # ultralytics binds its log handler to sys.stdout when first imported, and on a machine without its settings file
    # it then writes three lines of greeting there: `cacho cards read --json` would not be JSON lines
    with contextlib.redirect_stdout(sys.stderr):
        import ultralytics  # noqa: F401
