"""Errors shared by the card engines: refused actions and malformed log lines."""

from __future__ import annotations

from engines.errors import LogError, RuleError

CardRuleError = RuleError  # a refused action or bad card: the seed's section and a Spanish message
LogFormatError = LogError  # a log line that is not a well-formed event (its article is None)

__all__ = ["CardRuleError", "LogFormatError"]
