"""How every engine's tests check a refusal: the error's own type, the rule it cites and why, so that an action
refused for another reason fails the test (the Dudo, Bolivian Cacho and card tests share these)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

import pytest

from engines.errors import RuleError

E = TypeVar("E", bound=RuleError)


def assert_reason(error: RuleError, error_type: type[RuleError], article: str, reason: str) -> None:
    """`error` is exactly `error_type`, cites `article` (a Dudo article, a seed's section) and its message matches
    `reason` (a regex)."""
    assert type(error) is error_type, (type(error), error)
    assert error.article == article, error
    assert re.search(reason, error.message), (reason, error.message)


@contextmanager
def refusal(error_type: type[E], article: str, reason: str) -> Iterator[pytest.ExceptionInfo[E]]:
    """The block must raise `error_type` citing `article`, with a message matching `reason` (a regex)."""
    with pytest.raises(error_type) as caught:
        yield caught
    assert_reason(caught.value, error_type, article, reason)
