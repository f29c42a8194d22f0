"""Errors shared by the card engines: refused actions and malformed log lines."""

from __future__ import annotations


class CardRuleError(ValueError):
    """A refused action or bad card, carrying the seed's section (`article`) and a Spanish `message`."""

    def __init__(self, article: str, message: str) -> None:
        super().__init__(f"{article}: {message}")
        self.article = article
        self.message = message


class LogFormatError(ValueError):
    """A log line that is not a well-formed event (no rule applies: its article is None)."""

    article = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
