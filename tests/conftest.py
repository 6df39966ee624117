"""Shared test configuration: a deterministic Hypothesis profile and cached derivation reports."""

import os
from functools import lru_cache

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, max_examples=60, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("slow", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@lru_cache(maxsize=None)
def report_for(name: str):
    """Run a bundled derivation once per test session."""
    from otbound.engine.bundled import load_derivation
    from otbound.engine.derivation import run
    return run(load_derivation(name))


@pytest.fixture
def derivation_report():
    return report_for
