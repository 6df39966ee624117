"""Shared test configuration: a deterministic Hypothesis profile and cached derivation reports
(tests/derivation_reports.py)."""

import os
import pytest
from derivation_reports import report_for
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, max_examples=60, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("slow", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def derivation_report():
    """:func:`derivation_reports.report_for`: a bundled derivation's report, derived once per
    worker."""
    return report_for
