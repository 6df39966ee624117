"""Neighbouring relations between datasets and between batches, and the distances they induce.

Dataset relations (001 Def. 2.2, 2.3, Eq. 8, Sec. 4; 003 Sec. 3.1) are described by the
neighbouring *pairs* they contain: ``x = B ∪ removed`` and ``x' = B ∪ inserted`` for a shared
background ``B``. A relation whose pairs come in two shapes (insertion *or* removal) yields two
cases, and a derived bound is the maximum over the cases.

Batch relations induce the distance ``d_Y`` (001 Def. 2.9) that the constraints of Prop. 3.5 are
stated in. Distances are taken in the ambient space of all finite sets (or multisets) of elements:
a batch drawn without replacement may be reached by inserting then removing an element, even though
the intermediate batch has another size (this is how 001 App. F.2 and F.3 count distance 2).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from dataclasses import dataclass
from enum import Enum
from typing import Iterable

from otbound.engine.batches import Batch, background, check_special_name
from otbound.errors import InvalidSpecification

UNBOUNDED = math.inf

NULL = "⊥"
"""The null record of zero-out neighbouring (002 Sec. 2): a query gives it the value 0, so a
batch's output is that of its other records."""


class BatchRelation(Enum):
    """Neighbouring relation between batches, with its induced distance ``d_Y``."""

    INSERTION_REMOVAL = "insertion/removal"
    SUBSTITUTION = "substitution"
    ZERO_OUT = "insertion/removal of non-null records"
    """Zero-out neighbouring (002 Thm. 3.3): insertion/removal distance between the batches
    without the null record :data:`NULL` (a pseudometric: ``d(y, y ∪ {⊥}) = 0``)."""

    def distance(self, y: Batch, y2: Batch) -> float:
        """Induced distance ``d_Y(y, y2)`` (001 Def. 2.9).

        Insertion/removal: the size of the (multiset) symmetric difference. Substitution: the
        number of elements to replace, or infinity when the sizes differ. Zero-out: that of
        insertion/removal, the null record not counted.
        """
        if self is BatchRelation.ZERO_OUT:
            return BatchRelation.INSERTION_REMOVAL.distance(self.seen(y), self.seen(y2))
        only_left, only_right = _one_sided_differences(y, y2)
        if self is BatchRelation.INSERTION_REMOVAL:
            return only_left + only_right
        return only_left if only_left == only_right else UNBOUNDED

    def seen(self, batch: Batch) -> Batch:
        """The batch as a query sees it: without the null record under zero-out, else
        itself."""
        if self is not BatchRelation.ZERO_OUT:
            return batch
        if isinstance(batch, frozenset):
            return batch - {NULL}
        return tuple(e for e in batch if e != NULL)

    def unit(self) -> str:
        """One unit of ``d_Y`` in words, the unit of a mechanism's sensitivity ("sensitivity
        L per …")."""
        if self is BatchRelation.INSERTION_REMOVAL:
            return "element inserted into or removed from a batch (a replaced element counts 2)"
        if self is BatchRelation.ZERO_OUT:
            return ("non-null element inserted into or removed from a batch (a replaced element "
                    "counts 2, the null record 0)")
        return "element of a batch replaced by another"

    def symbol(self) -> str:
        """Short subscript used when printing (``±`` or ``Δ``)."""
        return "Δ" if self is BatchRelation.SUBSTITUTION else "±"


def _one_sided_differences(y: Batch, y2: Batch) -> tuple[int, int]:
    if isinstance(y, frozenset) and isinstance(y2, frozenset):
        return len(y - y2), len(y2 - y)
    return _multiset_differences(y, y2)


@functools.lru_cache(maxsize=1 << 16)
def _multiset_differences(y: Batch, y2: Batch) -> tuple[int, int]:
    """The one-sided differences of two multisets (tuples): the instance checks ask the same
    pairs many times over."""
    left, right = Counter(y), Counter(y2)
    return sum((left - right).values()), sum((right - left).values())


def distance_to_support(y: Batch, support: Iterable[Batch], relation: BatchRelation) -> float:
    """``d_Y(y, supp s) = min_{y' ∈ supp s} d_Y(y, y')`` (001 Def. D.2)."""
    return min((relation.distance(y, other) for other in support), default=UNBOUNDED)


def distance_between_supports(support: Iterable[Batch], other: Iterable[Batch],
                              relation: BatchRelation) -> float:
    """``d_Y(supp s, supp s') = min d_Y(y, y')`` over both supports (001 Def. D.3)."""
    other = list(other)
    return min((distance_to_support(y, other, relation) for y in support), default=UNBOUNDED)


@dataclass(frozen=True, slots=True)
class NeighbourPair:
    """One shape of neighbouring datasets: ``x = B ∪ removed`` and ``x' = B ∪ inserted``.

    ``B`` is a background of interchangeable elements shared by both datasets; ``removed`` and
    ``inserted`` are named special elements, disjoint from each other.
    """

    name: str
    removed: tuple[str, ...]
    inserted: tuple[str, ...]

    def __post_init__(self) -> None:
        for element in self.removed + self.inserted:
            check_special_name(element)
        if len(set(self.removed + self.inserted)) != len(self.removed) + len(self.inserted):
            raise InvalidSpecification(
                f"pair {self.name!r}: removed {self.removed} and inserted {self.inserted} "
                "must be distinct elements")

    @property
    def specials(self) -> tuple[str, ...]:
        """Every special element of the pair (removed first)."""
        return self.removed + self.inserted

    def datasets(self, background_size: int) -> tuple[frozenset, frozenset]:
        """The concrete pair ``(x, x')`` over a background of ``background_size`` elements."""
        base = frozenset(background(background_size))
        return base | frozenset(self.removed), base | frozenset(self.inserted)

    def describe(self) -> str:
        """E.g. ``x' = x \\ {a}`` or ``x' = x \\ {a} ∪ {a'}``."""
        parts = ["x' = x"]
        if self.removed:
            parts.append("\\ {" + ", ".join(self.removed) + "}")
        if self.inserted:
            parts.append("∪ {" + ", ".join(self.inserted) + "}")
        return " ".join(parts)


def _check_count(name: str, value: int, minimum: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise InvalidSpecification(f"{name} must be an integer >= {minimum}, got {value!r}")


def _names(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))


@dataclass(frozen=True, slots=True)
class InsertionRemoval:
    """Insertion or removal of one element (001 Def. 2.2): two cases."""

    def pairs(self) -> tuple[NeighbourPair, ...]:
        return (NeighbourPair("removal", ("a",), ()), NeighbourPair("insertion", (), ("a",)))

    def describe(self) -> str:
        return "insertion/removal of one element (≃±)"


@dataclass(frozen=True, slots=True)
class ZeroOut:
    """Zero-out (002 Sec. 2): an element ``a`` replaced by the null record :data:`NULL`, or the
    other way round: two cases."""

    def pairs(self) -> tuple[NeighbourPair, ...]:
        return (NeighbourPair("zero-out", ("a",), (NULL,)),
                NeighbourPair("zero-in", (NULL,), ("a",)))

    def describe(self) -> str:
        return f"zero-out: one element replaced by the null record {NULL} or back (≃0)"


@dataclass(frozen=True, slots=True)
class Substitution:
    """Substitution of one element ``a`` by ``a'`` (001 Def. 2.3)."""

    def pairs(self) -> tuple[NeighbourPair, ...]:
        return (NeighbourPair("substitution", ("a",), ("a'",)),)

    def describe(self) -> str:
        return "substitution of one element (≃Δ)"


@dataclass(frozen=True, slots=True)
class GroupInsertionRemoval:
    """Insertion or removal of a group ``g`` of ``size`` elements (001 Sec. 4, ``≃±K``)."""

    size: int

    def __post_init__(self) -> None:
        _check_count("group size K", self.size, 1)

    def pairs(self) -> tuple[NeighbourPair, ...]:
        group = _names("g", self.size)
        return (NeighbourPair("removal", group, ()), NeighbourPair("insertion", (), group))

    def describe(self) -> str:
        return f"insertion/removal of a group of {self.size} (≃±{self.size})"


@dataclass(frozen=True, slots=True)
class InsertRemove:
    """Insertion of ``inserted`` and removal of ``removed`` elements (003 Sec. 3.1, ``≃K₊,K₋``).

    The removed elements are ``g1 …``, the inserted ones ``h1 …``.
    """

    inserted: int
    removed: int

    def __post_init__(self) -> None:
        _check_count("number of insertions K+", self.inserted, 0)
        _check_count("number of removals K-", self.removed, 0)
        if self.inserted + self.removed == 0:
            raise InvalidSpecification("K+ + K- must be >= 1, got K+ = K- = 0")

    def pairs(self) -> tuple[NeighbourPair, ...]:
        return (NeighbourPair("insert-remove", _names("g", self.removed),
                              _names("h", self.inserted)),)

    def describe(self) -> str:
        return f"insertion of {self.inserted} and removal of {self.removed} elements (≃K+,K-)"


@dataclass(frozen=True, slots=True)
class KFoldSubstitution:
    """Substitution of a group ``g`` by a group ``g'`` of the same size (001 Eq. 8, ``≃KΔ``)."""

    size: int

    def __post_init__(self) -> None:
        _check_count("group size K", self.size, 1)

    def pairs(self) -> tuple[NeighbourPair, ...]:
        return (NeighbourPair("substitution", _names("g", self.size), _names("g'", self.size)),)

    def describe(self) -> str:
        return f"substitution of a group of {self.size} (≃{self.size}Δ)"


DatasetRelation = (InsertionRemoval | Substitution | GroupInsertionRemoval | InsertRemove
                   | KFoldSubstitution | ZeroOut)
