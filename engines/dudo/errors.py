"""Errors of the Dudo engine: every refusal names the article of the Reglamento it applies."""

from __future__ import annotations


class RuleError(ValueError):
    """An action the Reglamento does not allow; `article` is the article applied, `message` says why."""

    def __init__(self, article: str, message: str) -> None:
        super().__init__(f"art. {article}: {message}")
        self.article = article
        self.message = message


class LogError(ValueError):
    """A table-log line that cannot be read as an event (bad JSON, a missing or ill-typed field)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
