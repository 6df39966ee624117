"""From scheme, events and coupling to the bound of 001 Thm. 3.4 + Prop. 3.5 + Cor. D.7.

:func:`symbolic_case_bound` emits the canonical form of Cor. D.7 for a ``d_Y``-compatible
coupling: weights ``P(A_i)``, ``P(E_j)`` computed symbolically from the scheme, and the constraint
matrices ``D[1, u] = d_Y(y_1, supp s_u)``, ``D[t, u] = d_Y(supp s_t, supp s_u)``, averaged over the
reference batch ``y_1`` (001 Prop. E.5 needs that average; most derivations have one matrix).
The matrices are read off concrete instances, where they must not change with the instance.

:func:`instance_case_bound` emits the bound of Thm. 3.4 + Prop. 3.5 for *any* valid coupling on one
instance: the coupling's distribution over matrices of actual pairwise distances.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import sympy as sp

from otbound.engine import symbols
from otbound.engine.batches import Content
from otbound.engine.bound import CaseBound, Component, ConstraintMatrix, MixtureProblem
from otbound.engine.compatibility import distance_distribution
from otbound.engine.conditionals import (Case, ConcreteConditionals, SizeReference,
                                         SymbolicConditionals)
from otbound.engine.relations import BatchRelation
from otbound.engine.schemes import Scheme
from otbound.engine.simplify import tidy
from otbound.errors import UnsupportedOperation


def _components(case: Case, weight) -> tuple[tuple[Component, ...], tuple[Component, ...]]:
    left = tuple(Component(label, weight(label)) for label in case.events_x)
    right = tuple(Component(label, weight(label)) for label in case.events_x_prime)
    return left, right


def symbolic_case_bound(case: Case, scheme: Scheme, size_reference: SizeReference,
                        profiles: dict[Content, ConstraintMatrix]) -> CaseBound:
    """001 Cor. D.7 for a ``d_Y``-compatible coupling, symbolic in ``N`` and the scheme.

    ``profiles`` maps each special content of the reference batch to its constraint matrix (as
    observed, identically, on every instance).
    """
    conditionals = SymbolicConditionals(case, scheme)
    to_size = {symbols.n: symbols.N - case.size_offset(size_reference)}
    left, right = _components(
        case, lambda label: tidy(conditionals.probability[label].subs(to_size)))
    ref = case.coupling.reference
    _, on_x_prime = case.event(ref)
    size = conditionals.dataset_size(on_x_prime)
    mass: dict[ConstraintMatrix, sp.Expr] = defaultdict(lambda: sp.Integer(0))
    for content in conditionals.contents(ref):
        if content not in profiles:
            raise UnsupportedOperation(
                f"case {case.pair.name!r}: no instance showed a reference batch with special "
                f"content {content}, so its distances to the supports are unknown")
        mass[profiles[content]] += scheme.content_mass(content, conditionals.n, size)
    total = conditionals.probability[ref]
    terms = tuple((tidy((p / total).subs(to_size)), MixtureProblem(left, right, matrix))
                  for matrix, p in mass.items())
    return CaseBound(case.pair.name, terms)


def instance_case_bound(conditionals: ConcreteConditionals, relation: BatchRelation) -> CaseBound:
    """Thm. 3.4 + Prop. 3.5 for the case's coupling on one concrete instance (exact weights)."""
    case = conditionals.case
    left, right = _components(case, lambda label: _rational(conditionals.probability[label]))
    joint = conditionals.joint()
    terms = tuple((_rational(p), MixtureProblem(left, right, matrix))
                  for matrix, p in distance_distribution(conditionals, relation, joint).items())
    return CaseBound(case.pair.name, terms)


def _rational(value: Fraction) -> sp.Rational:
    return sp.Rational(value.numerator, value.denominator)
