"""Shared pytest fixtures."""

from __future__ import annotations

import os

from hypothesis import settings

# CI gets more random games than a developer's quick run; both are deterministic per test.
settings.register_profile("ci", max_examples=2000, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=300, deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))
