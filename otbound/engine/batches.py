"""Batches, their special content, and batch types.

A neighbouring pair of datasets shares a *background* of interchangeable elements ``b1 … bn`` and
differs in a few named *special* elements (``a``, ``a'``, ``g1`` …). Every scheme otbound handles
treats background elements symmetrically, so a batch matters only through its **type**: which
special elements it holds (its *content*) and how many background elements it holds.

Batches drawn without replacement are ``frozenset``\\ s of element names; batches drawn with
replacement are sorted tuples (multisets).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Union

from otbound.errors import InvalidSpecification

if TYPE_CHECKING:   # the numerics use the relations without loading sympy
    import sympy as sp

Batch = Union[frozenset, tuple]
"""A set batch (``frozenset`` of names) or a multiset batch (sorted ``tuple`` of names)."""

_BACKGROUND_NAME = re.compile(r"b\d+")


def background(size: int) -> tuple[str, ...]:
    """The names ``b1 … b{size}`` of a background of ``size`` elements."""
    if size < 0:
        raise InvalidSpecification(f"background size must be >= 0, got {size}")
    return tuple(f"b{i}" for i in range(1, size + 1))


def is_background(name: str) -> bool:
    """Whether ``name`` is a background element (``b1``, ``b2`` …)."""
    return bool(_BACKGROUND_NAME.fullmatch(name))


def check_special_name(name: str) -> None:
    """Reject special-element names that could collide with background names."""
    if not isinstance(name, str) or not name or _BACKGROUND_NAME.fullmatch(name):
        raise InvalidSpecification(
            f"special element name {name!r} must be a non-empty string not of the form b<digits>")


def counts(batch: Batch) -> Counter:
    """Multiplicity of every element of a set or multiset batch."""
    return Counter(batch)


@dataclass(frozen=True, slots=True)
class Content:
    """The special part of a batch: each special element present, with its multiplicity.

    For set batches every multiplicity is 1.
    """

    items: tuple[tuple[str, int], ...] = ()

    @staticmethod
    def of(elements: Iterable[str]) -> "Content":
        """Content holding the given elements (repeat an element to raise its multiplicity)."""
        return Content(tuple(sorted(Counter(elements).items())))

    @staticmethod
    def in_batch(batch: Batch, specials: Iterable[str]) -> "Content":
        """The special content of ``batch`` with respect to the special elements ``specials``."""
        wanted = set(specials)
        return Content.of(e for e in batch if e in wanted)

    @property
    def size(self) -> int:
        """Number of special elements, with multiplicity."""
        return sum(c for _, c in self.items)

    @property
    def elements(self) -> frozenset:
        """The distinct special elements present."""
        return frozenset(e for e, _ in self.items)

    def count(self, element: str) -> int:
        """Multiplicity of ``element``."""
        return dict(self.items).get(element, 0)

    def multiplicities(self) -> tuple[int, ...]:
        """The multiplicities, in element order."""
        return tuple(c for _, c in self.items)

    def __str__(self) -> str:
        if not self.items:
            return "{}"
        return "{" + ", ".join(e if c == 1 else f"{e}^{c}" for e, c in self.items) + "}"


@dataclass(frozen=True, slots=True)
class BatchType:
    """All batches with the same special content and the same number of background elements.

    ``background`` is an integer on a concrete instance, or a sympy expression (e.g. ``m`` or
    ``q - 1``) when the dataset size is symbolic.
    """

    content: Content
    background: sp.Expr

    def __str__(self) -> str:
        return f"({self.content}, {self.background} background)"
