"""The search off the line for the Gaussian worst case (issue 14): its rule reproduces the
solver on the line, it finds the line from random starts, and it would expose a solver that
under-reports the maximum."""

import numpy as np
import pytest

from otbound.verify.configurations import (Divergence, LaplaceDivergence, Pattern, box_upper,
                                           certify, search, search_laplace)


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


# --- Laplace (issue 14): the product rule, the search, the certified branch-and-bound --------

def _mpmath_laplace(pattern, points, scale, alpha):
    """``log Ψ_α`` by mpmath.quad, split at the means (an independent reference)."""
    import mpmath
    left, right = pattern.weights
    right_index = [0] + list(range(pattern.removed + 1, pattern.dimension + 1))

    def density(z, weights, indices):
        return sum(w * mpmath.exp(-sum(abs(z[k] - points[i][k]) for k in range(len(z)))
                                  / scale) / (2 * scale) ** len(z)
                   for w, i in zip(weights, indices))

    def f(*z):
        p = density(z, left, range(pattern.removed + 1))
        return p ** alpha * density(z, right, right_index) ** (1 - alpha)
    d = len(points[0])
    cuts = [sorted({-mpmath.inf, mpmath.inf} | {points[i][k] for i in range(len(points))})
            for k in range(d)]
    with mpmath.workdps(20):
        return float(mpmath.log(mpmath.quad(f, *cuts)))


@pytest.mark.parametrize("shape, points, dimension", [
    ((1, 1), [[0.0], [-0.7], [0.4]], 1),
    ((0, 2), [[0.0], [0.9], [-0.3]], 1),
    ((2, 1), [[0.0], [0.5], [0.2], [-0.6]], 1),
    # a 2-D mpmath reference takes ≈ 40 s
    pytest.param((1, 1), [[0.0, 0.0], [-0.3, 0.5], [0.6, 0.2]], 2, marks=pytest.mark.slow),
])
def test_the_laplace_rule_matches_mpmath(shape, points, dimension):
    pattern = Pattern(*shape, 0.3)
    for alpha in (2.0, 5.0):
        rule = LaplaceDivergence(pattern, 0.8, alpha, {1: 24, 2: 16}[dimension], dimension)
        reference = _mpmath_laplace(pattern, points, 0.8, alpha)
        assert abs(rule(np.array(points)) - reference) <= 1e-10 * abs(reference)


@pytest.mark.parametrize("shape", [(0, 1), (1, 1), (2, 2)])
def test_the_laplace_rule_reproduces_the_solver_on_the_line(shape):
    pattern = Pattern(*shape, 0.2)
    for alpha, dimension in ((2.0, 1), (8.0, 1), (4.0, 2)):
        rule = LaplaceDivergence(pattern, 1.0, alpha, 16, dimension)
        solver = pattern.laplace_log_psi(1.0, alpha)
        assert abs(rule(pattern.collinear(dimension)) - solver) <= 1e-12 * abs(solver)


@pytest.mark.parametrize("dimension", [1, 2])
def test_the_laplace_search_finds_the_solver_configuration(dimension):
    result = search_laplace(Pattern(2, 1, 0.2), 1.0, 4.0, 2, dimension)
    assert result.confirmed and result.spread < 1e-6
    assert abs(result.found - result.solver) <= 1e-10 * result.solver


def test_the_laplace_search_exposes_a_solver_one_percent_low(monkeypatch):
    true = Pattern.laplace_log_psi
    monkeypatch.setattr(Pattern, "laplace_log_psi",
                        lambda self, scale, alpha: 0.99 * true(self, scale, alpha))
    for dimension in (1, 2):
        result = search_laplace(Pattern(1, 1, 0.2), 1.0, 4.0, 2, dimension)
        assert not result.confirmed and result.excess > 0.005 * result.solver


def test_a_laplace_arrangement_out_of_order_is_below_the_solver():
    pattern = Pattern(1, 1, 0.2)
    rule = LaplaceDivergence(pattern, 1.0, 4.0, 24)
    same_side = np.array([[0.0], [0.5], [1.0]])   # removed and inserted points on one side
    assert rule(same_side) < pattern.laplace_log_psi(1.0, 4.0) - 1e-3


@pytest.mark.parametrize("family, shape", [("laplace", (1, 1)), ("laplace", (0, 1)),
                                           ("gaussian", (1, 0))])
def test_the_branch_and_bound_certifies_the_solver(family, shape):
    pattern = Pattern(*shape, 0.2)
    certificate = certify(pattern, family, 1.0, 4.0, 1e-3)
    assert certificate.certified and certificate.witness is None
    assert certificate.target <= certificate.largest_upper <= certificate.limit


def test_a_box_bound_is_above_every_configuration_in_the_box():
    pattern = Pattern(1, 1, 0.2)
    box = np.array([[0.3, 0.5], [-0.9, -0.6]])
    rule = LaplaceDivergence(pattern, 1.0, 4.0, 24)
    upper = box_upper(pattern, "laplace", 1.0, 4.0, box)
    values = [rule(np.array([[0.0], [x], [y]])) for x in np.linspace(*box[0], 5)
              for y in np.linspace(*box[1], 5)]
    assert max(values) <= upper <= max(values) + 0.2


@pytest.mark.parametrize("family, shape", [("laplace", (1, 1)), ("gaussian", (0, 1))])
def test_the_branch_and_bound_refuses_a_value_one_percent_low(family, shape):
    pattern = Pattern(*shape, 0.2)
    solver = (pattern.laplace_log_psi if family == "laplace" else pattern.solver_log_psi)
    certificate = certify(pattern, family, 1.0, 4.0, 1e-3, target=0.99 * solver(1.0, 4.0),
                          max_boxes=500)
    assert not certificate.certified and certificate.witness is not None


@pytest.mark.slow
def test_the_branch_and_bound_certifies_three_points():
    certificate = certify(Pattern(2, 1, 0.2), "laplace", 1.0, 4.0, 1e-3)
    assert certificate.certified
