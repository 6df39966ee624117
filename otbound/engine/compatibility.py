"""Distances to supports, ``d_Y``-compatibility, and the constraint profiles of a coupling.

001 Def. D.4: a coupling is ``d_Y``-compatible when every tuple in its support has
``d_Y(y_1, y_u) = d_Y(y_1, supp s_u)`` and ``d_Y(y_t, y_u) = d_Y(supp s_t, supp s_u)``.
Supports are invariant under permutations of background elements, so the distance from a batch
to a support depends only on the batch's type; :class:`SupportGeometry` computes it once per type.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from otbound.engine.batches import Batch, Content
from otbound.engine.bound import ConstraintMatrix
from otbound.engine.conditionals import ConcreteConditionals
from otbound.engine.relations import BatchRelation, distance_to_support
from otbound.engine.validity import format_batch


class SupportGeometry:
    """Distances between batches and the supports of a case's conditional pmfs (one instance)."""

    def __init__(self, conditionals: ConcreteConditionals, relation: BatchRelation) -> None:
        self.conditionals, self.relation = conditionals, relation
        self.specials = conditionals.case.pair.specials
        self._supports = {label: list(conditionals.conditional(label))
                          for label in conditionals.case.labels}
        self._to_support: dict[tuple, float] = {}
        self._between: dict[tuple[str, str], float] = {}

    def batch_type(self, batch: Batch) -> tuple[Content, int]:
        content = Content.in_batch(batch, self.specials)
        return content, len(batch) - content.size

    def to_support(self, batch: Batch, label: str) -> float:
        """``d_Y(y, supp s_label)`` (001 Def. D.2)."""
        key = (self.batch_type(batch), label)
        if key not in self._to_support:
            self._to_support[key] = distance_to_support(batch, self._supports[label], self.relation)
        return self._to_support[key]

    def between(self, t: str, u: str) -> float:
        """``d_Y(supp s_t, supp s_u)`` (001 Def. D.3)."""
        key = (t, u) if t <= u else (u, t)
        if key not in self._between:
            representatives = {self.batch_type(y): y for y in self._supports[t]}
            self._between[key] = min(self.to_support(y, u) for y in representatives.values())
        return self._between[key]

    def profile(self, reference: Batch, labels: tuple[str, ...],
                ref_label: str) -> ConstraintMatrix:
        """The constraint matrix of 001 Cor. D.7 for reference batch ``y_1 = reference``."""
        bounds = {}
        for t, u in itertools.combinations(labels, 2):
            if ref_label in (t, u):
                other = u if t == ref_label else t
                bounds[(t, u)] = self.to_support(reference, other)
            else:
                bounds[(t, u)] = self.between(t, u)
        return ConstraintMatrix.from_pairs(labels, bounds)


@dataclass(frozen=True, slots=True)
class CompatibilityViolation:
    """A tuple in the coupling's support whose distance is not the smallest possible."""

    batches: tuple[tuple[str, Batch], ...]
    first: str
    second: str
    distance: float
    smallest: float

    def describe(self) -> str:
        shown = ", ".join(f"y_{label} = {format_batch(b)}" for label, b in self.batches)
        return (f"tuple ({shown}) has d_Y(y_{self.first}, y_{self.second}) = {self.distance}, "
                f"but the smallest possible distance is {self.smallest}")


def tuple_distances(values: tuple, order: tuple[str, ...], labels: tuple[str, ...],
                    relation: BatchRelation) -> ConstraintMatrix:
    """The matrix of actual pairwise distances of one batch tuple (Prop. 3.5's constraints)."""
    batch = dict(zip(order, values))
    return ConstraintMatrix.from_pairs(
        labels, {(t, u): relation.distance(batch[t], batch[u])
                 for t, u in itertools.combinations(labels, 2)})


def find_compatibility_violation(conditionals: ConcreteConditionals, relation: BatchRelation,
                                 joint: dict[tuple, Fraction]) -> CompatibilityViolation | None:
    """The first tuple of the coupling's support violating 001 Def. D.4, or ``None``."""
    geometry = SupportGeometry(conditionals, relation)
    coupling = conditionals.case.coupling
    order, ref = coupling.coordinates, coupling.reference
    for values in sorted(joint, key=lambda v: [sorted(b) for b in v]):
        if joint[values] == 0:
            continue
        batch = dict(zip(order, values))
        for t, u in itertools.combinations(order, 2):
            actual = relation.distance(batch[t], batch[u])
            if ref in (t, u):
                smallest = geometry.to_support(batch[ref], u if t == ref else t)
            else:
                smallest = geometry.between(t, u)
            if actual != smallest:
                return CompatibilityViolation(tuple(batch.items()), t, u, actual, smallest)
    return None


def distance_distribution(conditionals: ConcreteConditionals, relation: BatchRelation,
                          joint: dict[tuple, Fraction]) -> dict[ConstraintMatrix, Fraction]:
    """How the coupling distributes its mass over matrices of pairwise distances.

    ``Σ_D P(D) · κ(D)`` is the bound of 001 Thm. 3.4 + Prop. 3.5 for *any* valid coupling.
    """
    labels, order = conditionals.case.labels, conditionals.case.coupling.coordinates
    result: dict[ConstraintMatrix, Fraction] = defaultdict(Fraction)
    for values, p in joint.items():
        if p:
            result[tuple_distances(values, order, labels, relation)] += p
    return dict(result)


def profiles_by_content(conditionals: ConcreteConditionals,
                        relation: BatchRelation) -> dict[Content, set[ConstraintMatrix]]:
    """For each special content of the reference batch, the Cor. D.7 constraint matrices seen."""
    geometry = SupportGeometry(conditionals, relation)
    case = conditionals.case
    ref = case.reference
    seen: dict[Content, set[ConstraintMatrix]] = defaultdict(set)
    for batch in conditionals.conditional(ref):
        content, _ = geometry.batch_type(batch)
        seen[content].add(geometry.profile(batch, case.labels, ref))
    return dict(seen)
