"""A bound for a valid coupling that is not ``d_Y``-compatible, where the type-level analysis
does not apply: 001 Thm. 3.4 + Prop. 3.5 with the largest distances of the coupling's support.

For any valid coupling, joint convexity gives ``Ψ(m_x ‖ m_x') ≤ E_π Ψ(Σ_i w_i b_{y_i} ‖ Σ_j
v_j b_{y'_j})`` (001 Thm. 3.4), and each tuple is bounded by the worst case over outputs whose
distances are at most the tuple's (Prop. 3.5). A tuple's distances are at most the largest the
coupling's support has for each pair of coordinates, so one problem with those largest
distances bounds every tuple (looser than Cor. D.7's, which a compatible coupling allows). Its
weights are the events' probabilities, symbolic in ``N`` as in
:func:`~otbound.engine.case_bounds.symbolic_case_bound`; the largest distances are read off the
instances of the grid and kept only where the two largest dataset sizes agree on them (an
unbounded distance, such as an independently drawn batch's, grows with ``N``).
"""

from __future__ import annotations

from typing import Iterable

import sympy as sp

from otbound.engine import symbols
from otbound.engine.bound import CaseBound, Component, ConstraintMatrix, MixtureProblem
from otbound.engine.compatibility import tuple_distances
from otbound.engine.conditionals import (Case, ConcreteConditionals, SizeReference,
                                         SymbolicConditionals)
from otbound.engine.relations import BatchRelation
from otbound.engine.schemes import Scheme
from otbound.engine.simplify import tidy
from otbound.errors import Refusal

WHERE = ("001 Thm. 3.4 + Prop. 3.5 with the largest distances of the coupling's support "
         "(the same at the two largest dataset sizes of the grid)")
"""How the bound of a valid coupling that is not ``d_Y``-compatible is formed (said in notes)."""


def largest_distances(conditionals: ConcreteConditionals,
                      relation: BatchRelation) -> ConstraintMatrix:
    """For each pair of coordinates, the largest ``d_Y`` between them over the support of the
    coupling on one instance."""
    case = conditionals.case
    labels, order = case.labels, case.coupling.coordinates
    largest: dict[tuple[str, str], float] = {}
    for values, p in conditionals.joint().items():
        if not p:
            continue
        matrix = tuple_distances(values, order, labels, relation)
        for i, t in enumerate(labels):
            for u in labels[i + 1:]:
                largest[(t, u)] = max(largest.get((t, u), 0.0), matrix.bound(t, u))
    return ConstraintMatrix.from_pairs(labels, largest)


def largest_distances_bound(case: Case, scheme: Scheme, size_reference: SizeReference,
                            relation: BatchRelation,
                            instances: Iterable[tuple[int, ConcreteConditionals]]
                            ) -> CaseBound | Refusal:
    """The case's bound by :data:`WHERE`, from its instances (``(N, conditionals)``), or why
    there is none."""
    by_size: dict[int, list[ConstraintMatrix]] = {}
    for size, conditionals in instances:
        by_size.setdefault(size, []).append(largest_distances(conditionals, relation))
    sizes = sorted(by_size)
    if len(sizes) < 2:
        return Refusal("the largest distances of the coupling's support are seen at fewer than "
                       "two dataset sizes of the grid")
    last, before = _largest(by_size[sizes[-1]]), _largest(by_size[sizes[-2]])
    if last != before:
        return Refusal(f"the largest distances of the coupling's support change with the "
                       f"dataset size (N = {sizes[-2]} and N = {sizes[-1]} differ), so no "
                       "size-independent bound of 001 Thm. 3.4 is read off the instances")
    matrix = _largest([m for found in by_size.values() for m in found])
    symbolic = SymbolicConditionals(case, scheme)
    to_size = {symbols.n: symbols.N - case.size_offset(size_reference)}

    def component(label: str) -> Component:
        return Component(label, tidy(symbolic.probability[label].subs(to_size)))

    problem = MixtureProblem(tuple(component(label) for label in case.events_x),
                             tuple(component(label) for label in case.events_x_prime), matrix)
    return CaseBound(case.pair.name, ((sp.Integer(1), problem),))


def _largest(matrices: list[ConstraintMatrix]) -> ConstraintMatrix:
    """The entrywise largest of matrices over the same labels."""
    labels = matrices[0].labels
    return ConstraintMatrix(labels, tuple(
        tuple(max(m.bounds[i][j] for m in matrices) for j in range(len(labels)))
        for i in range(len(labels))))
