"""The solver registry: one answer per problem, which records whether it is the problem's own
worst case or a named sound relaxation, for every route (numbers, truncated Poisson, verifier)."""

import math
import pickle

import numpy as np
import pytest
from hand_written import poisson_problem, wor_substitution_problem

from otbound.accounting import truncated
from otbound.choices import Neighbouring, Quantity
from otbound.engine.bound import ConstraintMatrix
from otbound.numerics.derived import bundled, evaluate
from otbound.numerics.mechanisms import gaussian, laplace
from otbound.numerics.problems import NumericProblem, PatternMatrix, stretched_pattern
from otbound.numerics.solvers import RELAXATIONS, solve


@pytest.mark.parametrize("inserted, removed, a, b", [(0, 1, 1, 1), (3, 2, 1, 1), (1, 1, 2, 1),
                                                     (4, 0, 2.5, 2.5), (2, 5, 1, 3)])
def test_a_pattern_is_its_own_closure_and_equals_its_bounds(inserted, removed, a, b):
    """003 Thm. 3.7's pattern is stored as four numbers and claims to be closed already."""
    pattern = PatternMatrix(inserted, removed, a, b)
    plain = ConstraintMatrix(pattern.labels, pattern.bounds)
    assert pattern.closure() is pattern and plain.closure() == pattern == plain
    assert hash(pattern) == hash(plain) and pattern.array.shape == (inserted + removed + 2,) * 2
    assert PatternMatrix(inserted, removed, a, b + 1) != pattern
    copy = pickle.loads(pickle.dumps(pattern))
    assert copy == pattern and copy.labels == pattern.labels and "array" not in vars(copy)


def test_a_recognised_pattern_is_solved_as_it_is():
    problem = poisson_problem(0.1, 2, 1)
    found = solve(problem, gaussian(1.0))
    assert found.relaxation is None and found.problem is problem


def test_one_substitution_without_replacement_is_relaxed_by_name_or_solved_exactly_for_rdp():
    problem = wor_substitution_problem(10, 1000)
    relaxed = solve(problem, gaussian(2.0))
    assert relaxed.relaxation == RELAXATIONS[0][0]
    assert np.all(np.array(problem.closed().bounds) <= np.array(relaxed.problem.closed().bounds))
    assert solve(problem, gaussian(2.0), Quantity.RDP).relaxation is None   # three points


def test_unequal_chains_fall_back_to_one_stretch_where_the_family_has_no_worst_case():
    """002 Thm. 3.3's unequal chains are solved for the Gaussian only: Laplace noise takes the
    next relaxation, the pattern scaled by the larger stretch, which is looser."""
    unit = poisson_problem(0.3, 1, 1)
    problem = NumericProblem(unit.left, unit.right,
                             ConstraintMatrix(unit.closed().labels, stretched_pattern(1, 1, 2, 1)))
    assert solve(problem, gaussian(1.0)).relaxation is None
    found = solve(problem, laplace(1.0))
    assert found.relaxation == RELAXATIONS[1][0]
    assert found.problem.closed().bounds == stretched_pattern(1, 1, 2, 2)


def test_unbounded_components_have_no_solver():
    unit = poisson_problem(0.3, 1, 1)
    bounds = [list(row) for row in unit.closed().bounds]
    for i, j in ((1, 3), (3, 1), (0, 3), (3, 0), (2, 3), (3, 2)):
        bounds[i][j] = math.inf
    problem = NumericProblem(unit.left, unit.right,
                             ConstraintMatrix(unit.closed().labels, tuple(map(tuple, bounds))))
    found = solve(problem, gaussian(1.0))
    assert found.pairs is None and found.problem is problem
    assert "constraint pattern" in found.refusal


def _without_inserted_pair(problem) -> np.ndarray:
    """The closed constraints with ``d(A2, E2)`` (the two inserted components) dropped."""
    closed = problem.constraints.closure()
    bounds = np.array(closed.bounds, dtype=float)
    i, j = closed.labels.index("A2"), closed.labels.index("E2")
    bounds[i, j] = bounds[j, i] = math.inf
    for k in range(len(bounds)):
        bounds = np.minimum(bounds, bounds[:, [k]] + bounds[[k], :])
    return bounds


@pytest.mark.parametrize("neighbouring", [Neighbouring.ZERO_OUT, Neighbouring.REPLACE_ONE])
def test_truncated_poisson_branches_relax_as_seed_002_does(neighbouring):
    """The registry's relaxation of each truncated-Poisson branch is the constraint matrix of
    002 Thm. 3.3/3.4's proof (the inserted components' mutual constraint dropped); zero-out's
    untruncated branch, whose ⊥ leaves the batch's output as it is, is solved exactly once its
    coinciding components are merged."""
    values = {"r": 0.05, "w": 0.3, "q_trunc": 0.07}
    for terms in evaluate(bundled(truncated.DERIVATIONS[neighbouring]), values):
        for term in terms:
            found = solve(term.problem, gaussian(1.0))
            if found.problem.left.size + found.problem.right.size < 4:
                assert found.relaxation is None
                continue
            assert np.array_equal(np.array(found.problem.closed().bounds),
                                  _without_inserted_pair(term.problem))
