"""The errors every game's engine shares: an action the rules refuse, and a log line that is malformed."""

from __future__ import annotations


class RuleError(ValueError):
    """An action the rules do not allow; `article` names the rule applied, `message` says why (Spanish)."""

    def __init__(self, article: str, message: str) -> None:
        super().__init__(self.describe(article, message))
        self.article = article
        self.message = message

    @staticmethod
    def describe(article: str, message: str) -> str:
        """The error's text: the rule, then why."""
        return f"{article}: {message}"


class LogError(ValueError):
    """A log line that cannot be read as an event (bad JSON, a missing or ill-typed field): no article."""

    article = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
