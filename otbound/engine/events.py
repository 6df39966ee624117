"""Events: predicates on the special content of a batch, and partitions of the batch space.

001 Thm. 3.4 conditions the subsampling distributions of ``x`` and ``x'`` on two partitions
``A_1 … A_I`` and ``E_1 … E_J`` of the batch space. otbound's events look only at which special
elements a batch holds (never at background elements), so their probabilities can be computed
exactly on instances and symbolically for any dataset size.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Iterable

from otbound.engine.batches import Content, check_special_name
from otbound.errors import InvalidSpecification


def _check_count_event(elements: tuple[str, ...], count: int) -> None:
    if not elements:
        raise InvalidSpecification("a counting event needs at least one element")
    for element in elements:
        check_special_name(element)
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise InvalidSpecification(f"count must be an integer >= 0, got {count!r}")


@functools.lru_cache(maxsize=65536)
def _count_in(content: Content, elements: tuple[str, ...]) -> int:
    """How many elements of ``elements`` the content holds (with multiplicity). Cached: the
    events of a count partition ask it of every content once per event."""
    wanted = _as_set(elements)
    return sum(c for e, c in content.items if e in wanted)


@functools.lru_cache(maxsize=1024)
def _as_set(elements: tuple[str, ...]) -> frozenset:
    return frozenset(elements)


class Event(ABC):
    """A set of batches, given by a predicate on their special content."""

    @abstractmethod
    def holds(self, content: Content) -> bool:
        """True when a batch with this special content belongs to the event."""

    @abstractmethod
    def describe(self) -> str:
        """Plain-text definition, e.g. ``|y ∩ {g1, g2}| = 1``."""

    @abstractmethod
    def latex(self) -> str:
        """LaTeX definition."""

    def referenced(self) -> tuple[frozenset, ...] | None:
        """The sets of special elements whose counts decide the event (``None``: unknown, so
        the event cannot be analysed at the level of types)."""
        return None


@dataclass(frozen=True, slots=True)
class Everything(Event):
    """The whole batch space ``Y`` (no conditioning)."""

    def holds(self, content: Content) -> bool:
        return True

    def referenced(self) -> tuple[frozenset, ...]:
        return ()

    def describe(self) -> str:
        return "Y"

    def latex(self) -> str:
        return r"\mathbb{Y}"


@dataclass(frozen=True, slots=True)
class CountIs(Event):
    """Batches holding exactly ``count`` elements of ``elements`` (with multiplicity)."""

    elements: tuple[str, ...]
    count: int

    def __post_init__(self) -> None:
        _check_count_event(self.elements, self.count)

    def holds(self, content: Content) -> bool:
        return _count_in(content, self.elements) == self.count

    def referenced(self) -> tuple[frozenset, ...]:
        return (frozenset(self.elements),)

    def describe(self) -> str:
        return f"|y ∩ {{{', '.join(self.elements)}}}| = {self.count}"

    def latex(self) -> str:
        return rf"|y \cap \{{{', '.join(self.elements)}\}}| = {self.count}"


@dataclass(frozen=True, slots=True)
class CountAtLeast(Event):
    """Batches holding at least ``count`` elements of ``elements`` (with multiplicity)."""

    elements: tuple[str, ...]
    count: int

    def __post_init__(self) -> None:
        _check_count_event(self.elements, self.count)

    def holds(self, content: Content) -> bool:
        return _count_in(content, self.elements) >= self.count

    def referenced(self) -> tuple[frozenset, ...]:
        return (frozenset(self.elements),)

    def describe(self) -> str:
        return f"|y ∩ {{{', '.join(self.elements)}}}| ≥ {self.count}"

    def latex(self) -> str:
        return rf"|y \cap \{{{', '.join(self.elements)}\}}| \ge {self.count}"


@dataclass(frozen=True, slots=True)
class Not(Event):
    """The complement of an event."""

    event: Event

    def holds(self, content: Content) -> bool:
        return not self.event.holds(content)

    def referenced(self) -> tuple[frozenset, ...] | None:
        return self.event.referenced()

    def describe(self) -> str:
        return f"not ({self.event.describe()})"

    def latex(self) -> str:
        return rf"\overline{{{self.event.latex()}}}"


@dataclass(frozen=True, slots=True)
class AllOf(Event):
    """The intersection of events."""

    events: tuple[Event, ...]

    def __post_init__(self) -> None:
        if not self.events:
            raise InvalidSpecification("AllOf needs at least one event")

    def holds(self, content: Content) -> bool:
        return all(event.holds(content) for event in self.events)

    def referenced(self) -> tuple[frozenset, ...] | None:
        parts = [event.referenced() for event in self.events]
        known = [part for part in parts if part is not None]
        return None if len(known) < len(parts) else tuple(s for part in known for s in part)

    def describe(self) -> str:
        return " and ".join(f"({event.describe()})" for event in self.events)

    def latex(self) -> str:
        return r" \wedge ".join(f"({event.latex()})" for event in self.events)


def contains_none(elements: Iterable[str]) -> Event:
    """Batches holding none of ``elements``."""
    return CountIs(tuple(elements), 0)


def contains_some(elements: Iterable[str]) -> Event:
    """Batches holding at least one of ``elements``."""
    return CountAtLeast(tuple(elements), 1)


def count_partition(prefix: str, elements: Iterable[str], start: int = 0) -> dict[str, Event]:
    """Events ``{prefix}{i}`` = "exactly i elements of ``elements``", i = 0 … |elements|.

    Labels are numbered from ``start`` (001 App. G.1 counts from 0, 003 Thm. 3.7 from 1). With no
    elements the partition is the single event ``Y``.
    """
    elements = tuple(elements)
    if not elements:
        return {f"{prefix}{start}": Everything()}
    return {f"{prefix}{i + start}": CountIs(elements, i) for i in range(len(elements) + 1)}


def partition_defect(events: Iterable[Event], contents: Iterable[Content]) -> str | None:
    """Why ``events`` fail to partition the batches with the given contents, or ``None``."""
    events = list(events)
    for content in contents:
        hits = sum(event.holds(content) for event in events)
        if hits != 1:
            problem = "no event" if hits == 0 else f"{hits} events"
            return f"a batch with special content {content} lies in {problem}"
    return None
