"""The equidistant star (a problem whose components but one sit at one distance from the other
side's single component) is solved exactly, and ``verify`` uses it to show that 001 Thm. 4.1 at
K = 2 with the constraint d(y1, y3) ≤ 2 lowered to ≤ 1 is unsound (issue 12)."""

import itertools
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from otbound.engine.bound import ConstraintMatrix, problem, statement
from otbound.engine.bundled import load_derivation
from otbound.engine.symbols import r
from otbound.numerics.mechanisms import equidistant_star, gaussian, laplace
from otbound.numerics.pairs import MixturePair
from otbound.numerics.problems import NumericProblem
from otbound.numerics.renyi import log_psi
from otbound.verify.verification import verify_derivation

RATE = 0.3


def star(distance_13: int = 1) -> NumericProblem:
    """001 Thm. 4.1, K = 2, removal: y1 = y4, d(y1, y2) ≤ 1, d(y2, y3) ≤ 1, d(y1, y3) ≤ …"""
    weights = np.log([(1 - RATE) ** 2, 2 * RATE * (1 - RATE), RATE ** 2])
    bounds = {("y1", "y4"): 0, ("y1", "y2"): 1, ("y2", "y3"): 1, ("y1", "y3"): distance_13}
    return NumericProblem(weights, np.array([0.0]),
                          ConstraintMatrix.from_pairs(["y1", "y2", "y3", "y4"], bounds))


def test_only_an_equidistant_star_is_merged():
    merged = equidistant_star(star())
    assert merged is not None and merged.removal and merged.distance == 1
    assert np.allclose(np.exp(merged.weights), [(1 - RATE) ** 2, 1 - (1 - RATE) ** 2])
    assert list(merged.positions) == [0, 1, 1, 0]
    assert equidistant_star(star(2)) is None          # 003 Thm. 3.7's pattern: not a star


@pytest.mark.parametrize("mechanism", [gaussian(1.0), laplace(1.0)], ids=["gaussian", "laplace"])
def test_the_star_value_is_attained_and_no_configuration_exceeds_it(mechanism):
    ((pair, positions),) = mechanism.worst_components(star())
    alpha = 4.0
    solved = log_psi(pair, alpha).value
    family, scale = pair.family, mechanism.scale
    weights = np.array([(1 - RATE) ** 2, 2 * RATE * (1 - RATE), RATE ** 2])
    # every feasible 1-D configuration on a grid (y1 = y4 = 0, |y2|, |y3|, |y2 − y3| ≤ 1)
    grid = np.linspace(-1, 1, 21)
    values = []
    for a, b in itertools.product(grid, repeat=2):
        if abs(a - b) <= 1 + 1e-12:
            other = MixturePair(family, scale, [0.0, a, b], np.log(weights), [0.0], [0.0])
            values.append(log_psi(other, alpha).value)
    assert max(values) <= solved * (1 + 1e-9)
    assert max(values) >= solved * (1 - 1e-9)    # attained: y2 = y3 at distance 1
    assert list(positions) == [0, 1, 1, 0]


def lowered_derivation():
    """001 Thm. 4.1 at K = 2 whose published statement says d(y1, y3) ≤ 1 instead of 2."""
    weights = [(f"y{i}", sp.binomial(2, i - 1) * r ** (i - 1) * (1 - r) ** (3 - i))
               for i in (1, 2, 3)]
    constraints = {("y4", "y1"): 0, ("y1", "y2"): 1, ("y2", "y3"): 1, ("y1", "y3"): 1}
    printed = statement(removal=problem(weights, [("y4", 1)], constraints),
                        insertion=problem([("y4", 1)], weights, constraints))
    base = load_derivation("001-thm-4.1").at({"K": 2})
    return replace(base, variants=(replace(base.variants[0], published=printed),))


def test_verify_reports_a_constraint_lowered_by_one_unsound_with_a_witness():
    report = verify_derivation(lowered_derivation(), max_n=4, samples=40, seed=0)
    assert not report.passed
    unsound = [f for f in report.findings
               if f.check == "published statement RDP" and f.verdict == "UNSOUND"
               and f.parameters["mechanism"] == "gaussian"]
    assert unsound and all(f.observed > f.bound for f in unsound)
    assert "exact" in unsound[0].witness and "x = {" in unsound[0].witness
    (comparison,) = report.published
    assert "UNSOUND" in comparison.summary()
