"""A derived bound as data: the cases of the engine's :class:`~otbound.engine.bound.MixtureBound`
with their closed forms as :mod:`~otbound.numerics.closed_forms` trees, and how the bound was
established — what :mod:`otbound.numerics.derived` evaluates, whether the engine derived it in
this process, the table of bundled bounds holds it, or :mod:`otbound.numerics.group_bounds`
writes it down.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from otbound.choices import SchemeKind
from otbound.engine.bound import ConstraintMatrix
from otbound.engine.relations import BatchRelation
from otbound.numerics.closed_forms import Tree, from_sympy, symbols_of

if TYPE_CHECKING:
    from otbound.engine.bound import MixtureBound


@dataclass(frozen=True)
class CompiledProblem:
    """A :class:`~otbound.engine.bound.MixtureProblem` as data: each side's components
    (label, weight as a :mod:`~otbound.numerics.closed_forms` tree) and the closure of its
    constraints."""

    left: tuple[tuple[str, Tree], ...]
    right: tuple[tuple[str, Tree], ...]
    constraints: ConstraintMatrix

    def swapped(self) -> "CompiledProblem":
        """The problem in the other direction (:meth:`~otbound.engine.bound.MixtureProblem.
        swapped`): the sides exchanged, the constraints reordered."""
        labels = tuple(label for label, _ in self.right + self.left)
        order = [self.constraints.labels.index(label) for label in labels]
        bounds = tuple(tuple(self.constraints.bounds[i][j] for j in order) for i in order)
        return CompiledProblem(self.right, self.left, ConstraintMatrix(labels, bounds))


@dataclass(frozen=True)
class CompiledCase:
    """One case of a derived bound as data: ``Σ_p P(p) · κ_p`` with ``P(p)`` a tree."""

    name: str
    terms: tuple[tuple[Tree, CompiledProblem], ...]


def compiled(bound: "MixtureBound") -> tuple[CompiledCase, ...]:
    """The cases of the engine's bound as data (what evaluating it needs)."""
    def problem(mixture) -> CompiledProblem:
        left, right = (tuple((c.label, from_sympy(c.weight)) for c in side)
                       for side in (mixture.left, mixture.right))
        return CompiledProblem(left, right, mixture.constraints.closure())

    return tuple(CompiledCase(case.name, tuple((from_sympy(p), problem(mixture))
                                               for p, mixture in case.terms))
                 for case in bound.cases)


@dataclass(frozen=True)
class DerivedBound:
    """A derivation's bound for fixed structural parameters, and how it was established."""

    name: str
    label: str
    cases: tuple[CompiledCase, ...]
    """The bound, as data that evaluates without sympy."""
    loose: bool
    proof: str
    """Where validity was shown: ``"every N (type level)"`` or ``"instances"``."""
    batch_relation: BatchRelation
    """The induced distance ``d_Y`` of the constraints: its unit is that of the sensitivity."""
    shapes: tuple[tuple[int, int], ...]
    """``(K₊, K₋)`` of each case: how many elements its pair of datasets inserts and removes."""
    scheme_kind: SchemeKind | None
    """The scheme, where published baselines know it (Poisson, without replacement)."""
    bound: "MixtureBound | None" = field(default=None, compare=False, repr=False)
    """The engine's bound (sympy), where it was derived in this process; ``None`` when read
    from the table of bundled bounds (:mod:`otbound.numerics.bound_table`)."""
    draws: int | None = field(default=None, compare=False)
    """The number ``q`` of draws, where the scheme is sampling with replacement (whose K = 1
    bound, ``wr-substitution``, post-hoc group privacy starts from); else ``None``."""

    @functools.cached_property
    def symbols(self) -> frozenset[str]:
        """The names of the symbols the bound depends on (computed once)."""
        return frozenset().union(*(symbols_of(tree) for case in self.cases
                                   for p, problem in case.terms
                                   for tree in (p, *(w for _, w in problem.left + problem.right))))

    def mirrored(self, label: str) -> "DerivedBound":
        """The bound of the mirrored variant ``label``: every case read in the other direction
        (:meth:`otbound.engine.bound.CaseBound.swapped`)."""
        from otbound.engine.bound import MixtureBound

        cases = tuple(CompiledCase(case.name, tuple((p, problem.swapped())
                                                    for p, problem in case.terms))
                      for case in self.cases)
        bound = (None if self.bound is None
                 else MixtureBound(tuple(case.swapped(case.name) for case in self.bound.cases)))
        return replace(self, label=label, cases=cases,
                       shapes=tuple((r, i) for i, r in self.shapes), bound=bound)

    def describe(self) -> dict:
        from otbound.engine.report import LOOSE

        return {"derivation": self.name, "variant": self.label,
                "bound": LOOSE if self.loose else "d_Y-compatible (001 Cor. D.7)",
                "valid_for": self.proof, "distance_unit": self.batch_relation.unit()}
