"""Mechanism solvers, the numeric statements, and their agreement with the derivation engine."""

import math

import numpy as np
import pytest
from hand_written import poisson_problem, wor_group_terms, wor_substitution_problem
from published import rr_thm_3_7, rr_thm_g1

from otbound.engine.bundled import load_derivation
from otbound.engine.symbols import N, q, r
from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.numerics.mechanisms import RandomizedResponse, gaussian, laplace
from otbound.numerics.pairs import MixturePair
from otbound.engine.bound import ConstraintMatrix
from otbound.numerics.solvers import relaxed_to_pattern
from otbound.numerics.problems import NumericProblem, stretched_pattern
from otbound.numerics.renyi import log_psi


def derived_problems(name, variant):
    from conftest import report_for
    report = report_for(name)
    bound = report.variants[variant].bound
    return [term for case in bound.cases for term in case.canonical().terms]


def same_problem(numeric: NumericProblem, other: NumericProblem) -> bool:
    return (np.allclose(numeric.left, other.left, rtol=1e-12, atol=0)
            and np.allclose(numeric.right, other.right, rtol=1e-12, atol=0)
            and numeric.closed() == other.closed())


@pytest.mark.parametrize("variant", range(9))
def test_poisson_statement_is_the_engines_bound(variant):
    derivation = load_derivation("003-thm-3.7")
    relation = derivation.variants[variant].relation
    (probability, problem), = derived_problems("003-thm-3.7", variant)
    assert probability == 1
    for rate in (0.3, 1e-4):
        engine = NumericProblem.from_problem(problem, {r: rate})
        assert same_problem(poisson_problem(rate, relation.inserted, relation.removed), engine)


def test_wor_statements_are_the_engines_bounds():
    (probability, problem), = derived_problems("001-thm-3.6", 0)
    engine = NumericProblem.from_problem(problem, {q: 3, N: 50})
    assert same_problem(wor_substitution_problem(3, 50), engine)
    for variant, group in enumerate((1, 2, 3)):
        terms = derived_problems("001-prop-E.5", variant)
        numeric = wor_group_terms(4, 30, group)
        assert len(terms) == len(numeric)
        for (p, problem), (log_p, expected) in zip(terms, numeric):
            assert math.isclose(float(p.subs({q: 4, N: 30})), math.exp(log_p), rel_tol=1e-12)
            assert problem.constraints.closure().relabelled(("L1", "R1")) == expected.closed()


def test_gaussian_solver_builds_collinear_equidistant_means():
    (p,) = gaussian(2.0, sensitivity=0.5).tight_pairs(poisson_problem(0.1, 2, 3))
    assert isinstance(p, MixturePair) and p.scale == 4.0
    assert list(p.p_means) == [0, 1, 2, 3] and list(p.q_means) == [0, -1, -2]


def test_solvers_refuse_patterns_they_cannot_solve():
    with pytest.raises(UnsupportedOperation, match="constraint pattern of 003 Thm. 3.7"):
        gaussian(1.0).tight_pairs(wor_substitution_problem(2, 10))
    with pytest.raises(UnsupportedOperation, match="constraint pattern"):
        laplace(1.0).tight_pairs(wor_substitution_problem(2, 10))


@pytest.mark.parametrize("stretch", [0.5, 2.0, 5.0, 12.0])
def test_any_stretch_of_the_chain_pattern_is_the_pattern_in_other_units(stretch):
    """No list of allowed stretches: the pattern with every distance times ``c`` is the unit
    pattern for a sensitivity ``c`` times larger, for any ``c > 0``."""
    unit = poisson_problem(0.2, 2, 3)
    bounds = stretched_pattern(2, 3, stretch, stretch)
    stretched = NumericProblem(unit.left, unit.right,
                               ConstraintMatrix(unit.closed().labels, bounds))
    (pair,) = gaussian(2.0).tight_pairs(stretched)
    (reference,) = gaussian(2.0, sensitivity=stretch).tight_pairs(unit)
    for alpha in (2.0, 7.5):
        assert log_psi(pair, alpha).value == pytest.approx(log_psi(reference, alpha).value,
                                                          rel=1e-12)


def test_relaxation_scales_the_pattern_by_the_smallest_factor_that_covers_the_constraints():
    """A left chain stretched by 2.5 and a unit right chain: covered by the unit pattern times
    2.5 and by no smaller multiple, whatever the old list of stretches (1, 2, 3) held."""
    unit = poisson_problem(0.2, 1, 1)
    labels = unit.closed().labels
    problem = NumericProblem(unit.left, unit.right,
                             ConstraintMatrix(labels, stretched_pattern(1, 1, 2.5, 1)))
    relaxed = np.array(relaxed_to_pattern(problem).closed().bounds)
    assert np.all(np.array(problem.closed().bounds) <= relaxed)
    assert relaxed.tolist() == (2.5 * np.array(unit.closed().bounds)).tolist()
    (exact,) = gaussian(1.0).tight_pairs(problem)     # 002 Thm. 3.3's unequal chains
    assert list(exact.p_means) == [0, 2.5] and list(exact.q_means) == [0, -1]


def test_no_relaxation_to_the_pattern_when_the_shared_components_may_differ():
    """The pattern fixes ``d(L₁, R₁) = 0``: a problem that allows ``d(L₁, R₁) = 1`` is covered
    by no stretch of it (scaling the other bounds does not make it a relaxation)."""
    unit = poisson_problem(0.2, 1, 1)
    bounds = np.array(stretched_pattern(1, 1, 2, 2)) + 1 - np.eye(4)
    problem = NumericProblem(unit.left, unit.right,
                             ConstraintMatrix(unit.closed().labels, tuple(map(tuple, bounds))))
    assert problem.closed().bounds[0][2] == 1
    assert relaxed_to_pattern(problem) is None


@pytest.mark.parametrize("theta, alpha", [(0.6, 2.0), (0.75, 3.5), (0.9, 20.0)])
def test_randomized_response_solver_reproduces_thm_3_7(theta, alpha):
    problem = wor_substitution_problem(5, 100)
    value = max(log_psi(p, alpha).value for p in RandomizedResponse(theta).tight_pairs(problem))
    assert math.isclose(value, rr_thm_3_7(theta, 0.05, alpha), rel_tol=1e-12)


@pytest.mark.parametrize("group", [1, 2, 3])
def test_randomized_response_solver_matches_corrected_thm_g1(group):
    rr, alpha, rate = RandomizedResponse(0.75), 4.0, 0.2
    value = max(log_psi(p, alpha).value for shape in ((group, 0), (0, group))
                for p in rr.tight_pairs(poisson_problem(rate, *shape)))
    assert math.isclose(value, rr_thm_g1(0.75, rate, group, alpha, printed=False), rel_tol=1e-12)


def test_printed_reverse_term_of_g1_is_not_a_divergence_of_distributions():
    # At r = 0 both mixtures are one Bernoulli distribution: every divergence is Ψ = 1. The term
    # as printed gives Σ_z |z − τ1|^{α−1} / |z − τ1|^{α−1} = 2 instead.
    assert math.isclose(rr_thm_g1(0.75, 0.0, 2, 3.0, printed=True), math.log(2))
    assert math.isclose(rr_thm_g1(0.75, 0.0, 2, 3.0, printed=False), 0.0, abs_tol=1e-15)


def test_group_profiles_are_the_divergences_of_the_distance_pairs():
    alphas = np.array([1.5, 2.0, 7.0])
    for mechanism in (gaussian(1.5), laplace(0.7), RandomizedResponse(0.8)):
        direct = [b.value for b in __import__("otbound.numerics.renyi", fromlist=["x"]).log_psi_curve(
            mechanism.distance_pair(2), alphas)]
        assert np.allclose(mechanism.group_log_psi(2, alphas).upper, direct, rtol=1e-12)


@pytest.mark.parametrize("make, message", [
    (lambda: gaussian(0.0), "^sigma must be a finite number > 0, got 0"),
    (lambda: gaussian(1.0, sensitivity=-1), "^sensitivity must be a finite number > 0"),
    (lambda: laplace(float("nan")), "^scale must be a finite number > 0"),
    (lambda: RandomizedResponse(1.0), r"^theta must be in \(0, 1\), got 1"),
])
def test_bad_mechanism_parameters(make, message):
    with pytest.raises(InvalidSpecification, match=message):
        make()
