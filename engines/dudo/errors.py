"""Errors of the Dudo engine: every refusal names the article of the Reglamento it applies."""

from __future__ import annotations

from engines import errors
from engines.errors import LogError

__all__ = ["LogError", "RuleError"]


class RuleError(errors.RuleError):
    """An action the Reglamento does not allow; `article` is the article applied, `message` says why."""

    @staticmethod
    def describe(article: str, message: str) -> str:
        """ "art. N: why"."""
        return f"art. {article}: {message}"
