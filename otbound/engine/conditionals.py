"""One case of a derivation, and its conditional pmfs on instances and for symbolic sizes.

A :class:`Case` fixes a neighbouring-pair shape, the events ``A_1 … A_I`` (on ``x``) and
``E_1 … E_J`` (on ``x'``) of 001 Thm. 3.4, and a coupling between the conditional pmfs.
:class:`ConcreteConditionals` computes ``P(A_i)`` and ``s_x(· | A_i)`` exactly for a concrete
background size; :class:`SymbolicConditionals` computes them over batch types for a symbolic one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Mapping

import sympy as sp

from otbound.engine import symbols
from otbound.engine.auto_coupling import SearchedCoupling, resolve
from otbound.engine.batches import Batch, BatchType, Content
from otbound.engine.couplings import Coupling
from otbound.engine.events import Event, partition_defect
from otbound.engine.relations import NeighbourPair
from otbound.engine.schemes import Scheme
from otbound.errors import InternalError, InvalidSpecification


class SizeReference(Enum):
    """Which dataset of the pair the size symbol ``N`` denotes."""

    X = "|x|"
    X_PRIME = "|x'|"
    LARGER = "max(|x|, |x'|)"


@dataclass(frozen=True)
class Case:
    """A neighbouring pair with its two event partitions and a coupling (001 Thm. 3.4).

    The coupling is a generative :class:`Coupling`, or ``"auto"`` / ``otbound.engine.AUTO`` (a
    :class:`SearchedCoupling`) to have one found by linear programming on each instance."""

    pair: NeighbourPair
    events_x: Mapping[str, Event]
    events_x_prime: Mapping[str, Event]
    coupling: Coupling | SearchedCoupling

    def __post_init__(self) -> None:
        object.__setattr__(self, "events_x", dict(self.events_x))
        object.__setattr__(self, "events_x_prime", dict(self.events_x_prime))
        labels = self.labels
        if not self.events_x or not self.events_x_prime:
            raise InvalidSpecification(f"case {self.pair.name!r}: both partitions need an event")
        if len(set(labels)) != len(labels):
            raise InvalidSpecification(f"case {self.pair.name!r}: event labels repeat: {labels}")
        object.__setattr__(self, "coupling", resolve(self.coupling, labels, self.pair.name))
        if sorted(self.coupling.coordinates) != sorted(labels):
            raise InvalidSpecification(
                f"case {self.pair.name!r}: the coupling generates {list(self.coupling.coordinates)}"
                f" but the events are {list(labels)}")

    @property
    def reference(self) -> str:
        """The coupling's reference coordinate (a searched coupling's is bound to the case's
        labels when the case is made)."""
        reference = self.coupling.reference
        if reference is None:
            raise InternalError(f"case {self.pair.name!r}: the coupling has no reference")
        return reference

    @property
    def labels(self) -> tuple[str, ...]:
        """Coordinate labels: the events on ``x`` first, then those on ``x'``."""
        return tuple(self.events_x) + tuple(self.events_x_prime)

    def event(self, label: str) -> tuple[Event, bool]:
        """The event of ``label`` and whether it lives on ``x'``."""
        if label in self.events_x:
            return self.events_x[label], False
        return self.events_x_prime[label], True

    def special_count(self, on_x_prime: bool) -> int:
        """Number of special elements in ``x`` (or ``x'``)."""
        return len(self.pair.inserted if on_x_prime else self.pair.removed)

    def size_offset(self, reference: SizeReference) -> int:
        """``k`` such that ``N = n + k`` for background size ``n``."""
        removed, inserted = len(self.pair.removed), len(self.pair.inserted)
        return {SizeReference.X: removed, SizeReference.X_PRIME: inserted,
                SizeReference.LARGER: max(removed, inserted)}[reference]

    def partition_defects(self, scheme: Scheme) -> list[str]:
        """Why either family of events fails to partition the batch space (empty if none)."""
        contents = list(scheme.contents(frozenset(self.pair.specials)))
        defects = []
        for side, events in (("x", self.events_x), ("x'", self.events_x_prime)):
            defect = partition_defect(events.values(), contents)
            if defect:
                defects.append(f"events on {side} do not partition the batch space: {defect}")
        return defects


class ConcreteConditionals:
    """Exact event probabilities and conditional pmfs of a case on one concrete instance."""

    def __init__(self, case: Case, scheme: Scheme, background_size: int) -> None:
        self.case, self.scheme, self.background_size = case, scheme, background_size
        self.x, self.x_prime = case.pair.datasets(background_size)
        pmfs = {False: scheme.pmf(self.x), True: scheme.pmf(self.x_prime)}
        self.probability: dict[str, Fraction] = {}
        self._conditional: dict[str, dict[Batch, Fraction]] = {}
        for label in case.labels:
            event, on_x_prime = case.event(label)
            inside = {y: p for y, p in pmfs[on_x_prime].items()
                      if event.holds(Content.in_batch(y, case.pair.specials))}
            total = sum(inside.values(), Fraction(0))
            self.probability[label] = total
            self._conditional[label] = ({y: p / total for y, p in inside.items()} if total else {})

    def zero_events(self) -> list[str]:
        """Labels of events with probability zero (Thm. 3.4 needs non-zero measure)."""
        return [label for label, p in self.probability.items() if p == 0]

    def conditional(self, label: str) -> dict[Batch, Fraction]:
        """``s_x(· | A)`` or ``s_{x'}(· | E)`` as an exact pmf."""
        return self._conditional[label]

    def batches(self, label: str) -> list[tuple[Fraction, Batch]]:
        return [(p, y) for y, p in self._conditional[label].items()]

    def types(self, label: str):
        raise InvalidSpecification("concrete conditionals have no symbolic type masses")

    def joint(self) -> dict[tuple, Fraction]:
        """The coupling's exact joint pmf (coordinates in the coupling's order)."""
        coupling = self.case.coupling
        return coupling.joint(self.batches(self.case.reference), self)


class SymbolicConditionals:
    """Event probabilities and conditional type masses of a case for a symbolic background size.

    The background has ``n`` elements (:data:`otbound.engine.symbols.n`); a batch type with free
    background count uses :data:`otbound.engine.symbols.m`.
    """

    def __init__(self, case: Case, scheme: Scheme) -> None:
        self.case, self.scheme = case, scheme
        self.n = symbols.n
        self.probability = {label: self._event_probability(label) for label in case.labels}

    def dataset_size(self, on_x_prime: bool) -> sp.Expr:
        return self.n + self.case.special_count(on_x_prime)

    def contents(self, label: str) -> list[Content]:
        """The special contents in the event of ``label`` (on its own dataset)."""
        event, on_x_prime = self.case.event(label)
        specials = self.case.pair.inserted if on_x_prime else self.case.pair.removed
        return [c for c in self.scheme.contents(frozenset(specials)) if event.holds(c)]

    def _event_probability(self, label: str) -> sp.Expr:
        _, on_x_prime = self.case.event(label)
        size = self.dataset_size(on_x_prime)
        return sp.Add(*[self.scheme.content_mass(c, self.n, size) for c in self.contents(label)])

    def background(self, content: Content) -> sp.Expr:
        """Background count of a type with this content: fixed by the scheme, or the symbol m."""
        fixed = self.scheme.background_count(content)
        return symbols.m if fixed is None else fixed

    def types(self, label: str) -> list[tuple[sp.Expr, BatchType]]:
        """Conditional mass of each batch type in the event (``m`` free where not fixed)."""
        _, on_x_prime = self.case.event(label)
        size, total = self.dataset_size(on_x_prime), self.probability[label]
        result = []
        for content in self.contents(label):
            m = self.background(content)
            result.append((self.scheme.type_mass(content, m, self.n, size) / total,
                           BatchType(content, m)))
        return result

    def batches(self, label: str):
        raise InvalidSpecification("symbolic conditionals have no concrete batches")

    def marginal_types(self) -> dict[str, list[tuple[sp.Expr, BatchType]]]:
        """Each coordinate's marginal mass over batch types under the coupling."""
        coupling = self.case.coupling
        return coupling.marginal_types(self.types(self.case.reference), self)
