"""The emitted bound: computed from the ingredients, consistent across symbolic and exact paths."""

from dataclasses import replace
from fractions import Fraction

import pytest
import sympy as sp

from otbound.engine import (AllOf, Case, Copy, CountIs, Coupling, InsertInRandomOrder,
                            instance_case_bound)
from otbound.engine.bundled import load_derivation
from otbound.engine.conditionals import ConcreteConditionals
from otbound.engine.derivation import check_case
from otbound.engine.simplify import is_identically_zero
from otbound.engine.symbols import N, q, r


def weights(bound):
    (_, problem), = bound.terms
    return [c.weight for c in problem.left], [c.weight for c in problem.right]


def test_changing_the_events_changes_the_emitted_weights():
    derivation = load_derivation("001-thm-4.1")
    removal = derivation.variants[1].cases[0]          # K = 2: x' = x \ {g1, g2}
    coarse = check_case(derivation, removal)
    def only(present, absent):
        return AllOf((CountIs((present,), 1), CountIs((absent,), 0)))

    finer = Case(
        removal.pair,
        events_x={"B0": CountIs(("g1", "g2"), 0), "B1": only("g1", "g2"),
                  "B2": only("g2", "g1"), "B3": CountIs(("g1", "g2"), 2)},
        events_x_prime={"E0": removal.events_x_prime["E0"]},
        coupling=Coupling("B0", (Copy("B0", "E0"), InsertInRandomOrder("B0", ("g1",), ("B1",)),
                                 InsertInRandomOrder("B0", ("g2",), ("B2",)),
                                 InsertInRandomOrder("B1", ("g2",), ("B3",)))))
    fine = check_case(derivation, finer)
    assert coarse.valid and fine.valid and fine.validity == "symbolic" and fine.d_compatible
    coarse_left, _ = weights(coarse.bound)
    fine_left, _ = weights(fine.bound)
    expected_coarse = [(1 - r) ** 2, 2 * r * (1 - r), r ** 2]
    expected_fine = [(1 - r) ** 2, r * (1 - r), r * (1 - r), r ** 2]
    assert all(is_identically_zero(a - b) for a, b in zip(coarse_left, expected_coarse))
    assert len(fine_left) == 4
    assert all(is_identically_zero(a - b) for a, b in zip(fine_left, expected_fine))
    (_, problem), = fine.bound.terms
    assert problem.constraints.closure().bound("B1", "B2") == 2


def test_weights_follow_the_size_convention():
    derivation = load_derivation("001-thm-F.3")
    removal = derivation.variants[0].cases[0]
    larger = check_case(derivation, removal)
    smaller = check_case(replace(derivation, size_reference=type(derivation.size_reference).X_PRIME),
                         removal)
    assert is_identically_zero(weights(larger.bound)[0][1] - q / N)
    assert is_identically_zero(weights(smaller.bound)[0][1] - q / (N + 1))


@pytest.mark.parametrize("name, variant, values, background", [
    ("001-prop-E.4", 0, {r: Fraction(1, 3)}, 4),
    ("001-thm-3.6", 0, {q: 3}, 5),
    ("001-prop-E.5", 2, {q: 3}, 4),
    ("001-thm-4.1", 2, {r: Fraction(2, 7)}, 3),
    ("003-thm-3.7", 7, {r: Fraction(1, 2)}, 3),
])
def test_symbolic_bound_at_an_instance_equals_the_exact_bound(name, variant, values, background):
    derivation = load_derivation(name)
    for case in derivation.variants[variant].cases:
        symbolic = check_case(derivation, case).bound
        size = background + case.size_offset(derivation.size_reference)
        scheme = derivation.scheme.substitute(values)
        exact = instance_case_bound(ConcreteConditionals(case, scheme, background),
                                    derivation.batch_relation)
        point = {**values, N: size}
        evaluated = replace(symbolic, terms=tuple(
            (sp.nsimplify(p.subs(point)), replace(problem, left=_at(problem.left, point),
                                                   right=_at(problem.right, point)))
            for p, problem in symbolic.terms))
        assert not evaluated.difference(exact), evaluated.difference(exact)


def _at(components, point):
    return tuple(replace(c, weight=sp.nsimplify(c.weight.subs(point))) for c in components)
