"""d_Y-compatibility (001 Def. D.4): detection, and the price of an incompatible coupling."""

import itertools
import math
from dataclasses import replace
from fractions import Fraction

import pytest

from otbound import run
from otbound.engine import BatchRelation, Copy, Coupling, DrawIndependently, instance_case_bound
from otbound.engine.bundled import load_derivation
from otbound.engine.compatibility import SupportGeometry, find_compatibility_violation
from otbound.engine.conditionals import ConcreteConditionals
from otbound.engine.relations import distance_between_supports, distance_to_support
from otbound.engine.symbols import q, r

RATE = Fraction(1, 3)


def poisson_removal(coupling=None):
    derivation = load_derivation("001-prop-E.4")
    case = derivation.variants[0].cases[0]
    if coupling is not None:
        case = replace(case, coupling=coupling)
    return derivation, case


INDEPENDENT = Coupling("A1", (Copy("A1", "E1"), DrawIndependently("A2")))


def test_independent_draw_is_valid_but_not_d_compatible():
    derivation, case = poisson_removal(INDEPENDENT)
    variant = replace(derivation.variants[0],
                      cases=(case, derivation.variants[0].cases[1]))
    report = run(replace(derivation, variants=(variant,)))
    removal = report.variants[0].cases[0]
    assert removal.valid and removal.validity == "symbolic"
    assert not removal.d_compatible and not report.d_compatible
    assert removal.violation.describe() == (
        "at N = 2, r = 1/2: tuple (y_A1 = {}, y_E1 = {}, y_A2 = {a, b1}) has d_Y(y_A1, y_A2) = 2, "
        "but the smallest possible distance is 1")
    assert report.variants[0].bound is None and not report.matches_published


def gaussian_kappa(k: float, alpha: int, sigma: float) -> float:
    """Ψ_α((1−r) N(0, σ²) + r N(k, σ²) ‖ N(0, σ²)): the Gaussian worst case of the removal problem
    with ŷ_A1 = ŷ_E1 and d(ŷ_A1, ŷ_A2) ≤ k (unit ℓ2 sensitivity), by binomial expansion."""
    r = float(RATE)
    return sum(math.comb(alpha, l) * r ** l * (1 - r) ** (alpha - l)
               * math.exp(l * (l - 1) * k ** 2 / (2 * sigma ** 2)) for l in range(alpha + 1))


def evaluate(bound, alpha=4, sigma=1.0) -> float:
    total = 0.0
    for probability, problem in bound.terms:
        closed = problem.constraints.closure()
        assert closed.bound("A1", "E1") == 0
        total += float(probability) * gaussian_kappa(closed.bound("A1", "A2"), alpha, sigma)
    return total


def test_incompatible_coupling_gives_a_strictly_looser_bound():
    relation = BatchRelation.INSERTION_REMOVAL
    derivation, compatible_case = poisson_removal()
    _, independent_case = poisson_removal(INDEPENDENT)
    scheme = derivation.scheme.substitute({r: RATE})
    tight = instance_case_bound(ConcreteConditionals(compatible_case, scheme, 4), relation)
    loose = instance_case_bound(ConcreteConditionals(independent_case, scheme, 4), relation)
    (only_matrix,) = [problem.constraints.closure() for _, problem in tight.terms]
    strictly_larger = Fraction(0)
    for probability, problem in loose.terms:
        matrix = problem.constraints.closure()
        assert all(a >= b for row, other in zip(matrix.bounds, only_matrix.bounds)
                   for a, b in zip(row, other))
        if matrix != only_matrix:
            strictly_larger += Fraction(str(probability))
    assert strictly_larger > 0
    assert sum(Fraction(str(p)) for p, _ in loose.terms) == 1
    assert evaluate(loose) > evaluate(tight) * 1.01


@pytest.mark.parametrize("name, values", [("001-thm-3.6", {q: 2}), ("001-prop-E.5", {q: 2}),
                                          ("001-thm-4.1", {r: RATE}), ("001-thm-F.3", {q: 2})])
def test_type_shortcut_matches_brute_force_support_distances(name, values):
    derivation = load_derivation(name)
    case = derivation.variants[-1].cases[0]
    conditionals = ConcreteConditionals(case, derivation.scheme.substitute(values), 3)
    geometry = SupportGeometry(conditionals, derivation.batch_relation)
    supports = {label: list(conditionals.conditional(label)) for label in case.labels}
    for t, u in itertools.combinations(case.labels, 2):
        assert geometry.between(t, u) == distance_between_supports(
            supports[t], supports[u], derivation.batch_relation)
        for y in supports[t]:
            assert geometry.to_support(y, u) == distance_to_support(
                y, supports[u], derivation.batch_relation)


def test_bundled_couplings_have_no_violation():
    derivation, case = poisson_removal()
    conditionals = ConcreteConditionals(case, derivation.scheme.substitute({r: RATE}), 3)
    assert find_compatibility_violation(conditionals, derivation.batch_relation,
                                        conditionals.joint()) is None
