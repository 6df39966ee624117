"""The search off the line for the Gaussian worst case (issue 14): its rule reproduces the
solver on the line, it finds the line from random starts, and it would expose a solver that
under-reports the maximum."""

import numpy as np
import pytest

from otbound.verify.configurations import Divergence, Pattern, search


@pytest.mark.parametrize("shape", [(0, 1), (1, 0), (1, 1), (0, 2), (2, 1)])
def test_the_rule_reproduces_the_solver_on_the_line(shape):
    pattern = Pattern(*shape, 0.2)
    for alpha in (2.0, 4.0):
        rule = Divergence(pattern, 2.0, alpha, {1: 60, 2: 40, 3: 20}[pattern.dimension])
        solver = pattern.solver_log_psi(2.0, alpha)
        assert abs(rule(pattern.collinear()) - solver) <= 1e-9 * abs(solver)


def test_a_configuration_off_the_line_is_below_the_solver():
    pattern = Pattern(1, 1, 0.2)
    rule = Divergence(pattern, 2.0, 4.0, 40)
    bent = pattern.collinear().copy()
    bent[2] = [0.0, 1.0]   # the inserted point at a right angle: still feasible
    assert rule(bent) < pattern.solver_log_psi(2.0, 4.0) - 1e-3


@pytest.mark.parametrize("shape", [(1, 1), (0, 2)])
def test_the_search_finds_the_line_and_confirms_the_solver(shape):
    result = search(Pattern(*shape, 0.2), 2.0, 4.0, starts=2)
    assert result.confirmed and result.spread < 1e-4 and result.line_gap < 1e-9
    assert abs(result.found - result.solver) <= 1e-8 * abs(result.solver)


def test_the_search_exposes_a_solver_one_percent_low(monkeypatch):
    true = Pattern.solver_log_psi
    monkeypatch.setattr(Pattern, "solver_log_psi",
                        lambda self, sigma, alpha: 0.99 * true(self, sigma, alpha))
    result = search(Pattern(1, 1, 0.2), 2.0, 4.0, starts=2)
    assert not result.confirmed and result.excess > 0.005 * result.solver
    assert np.isfinite(result.found)
