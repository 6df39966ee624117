"""Batch tuples of a coupling at the level of types: one representative per orbit.

Schemes, events and coupling steps treat the background elements alike, and they treat alike the
special elements of one *atom*: a class of special elements that no event or step tells apart
(the group ``g`` of 001 Thm. 4.1 is one atom of ``K`` elements). The joint law of a coupling is
therefore invariant under every permutation of the background and within each atom, and so are
the types of its coordinates and the distances between them. otbound follows one representative
tuple per orbit, with the orbit's total probability:

* the reference batch holds the *first* ``c`` elements of each atom (``c`` per atom is its type)
  and an anonymous *block* of background elements, of symbolic size;
* a step that picks uniformly among elements groups them by atom and by which coordinates hold
  them (permuting elements inside such a group fixes every coordinate built so far), and picks
  the first elements of each group, with the probability of the whole group of choices;
* a background member picked out of the block becomes a named *token* ``~1``, ``~2`` … that every
  earlier coordinate holds.

Every coordinate holds the whole block, so distances between coordinates are counted on named
elements alone, and hold for every dataset size.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Iterable

import sympy as sp

from otbound.engine.batches import Content
from otbound.errors import UnsupportedOperation

MAX_ORBITS = 20_000
"""The largest number of orbits one step may produce (beyond it, the analysis is refused)."""


@dataclass(frozen=True)
class Atoms:
    """The special elements of a pair, split into classes that the case treats alike."""

    classes: tuple[tuple[str, ...], ...]

    def index(self, element: str) -> int:
        for i, members in enumerate(self.classes):
            if element in members:
                return i
        raise UnsupportedOperation(f"{element!r} is not a special element of the pair")

    def counts(self, elements: Iterable[str]) -> tuple[int, ...]:
        """How many elements of each atom are among ``elements`` (tokens are ignored)."""
        result = [0] * len(self.classes)
        for element in elements:
            if not element.startswith("~"):
                result[self.index(element)] += 1
        return tuple(result)

    def representative(self, counts: tuple[int, ...]) -> frozenset:
        """The first ``counts[i]`` elements of every atom ``i``."""
        return frozenset(e for members, c in zip(self.classes, counts) for e in members[:c])

    def describe(self, counts: tuple[int, ...]) -> str:
        return str(Content.of(self.representative(counts)))


def atoms_of(specials: tuple[str, ...], referenced: Iterable[frozenset]) -> Atoms:
    """The coarsest split of ``specials`` that every referenced set is a union of."""
    referenced = [frozenset(s) for s in referenced]
    groups: dict[tuple, list[str]] = {}
    for element in specials:
        groups.setdefault(tuple(element in s for s in referenced), []).append(element)
    return Atoms(tuple(tuple(members) for members in groups.values()))


@dataclass(frozen=True)
class Members:
    """One coordinate: the block, plus named special elements and named background tokens."""

    specials: frozenset = frozenset()
    tokens: frozenset = frozenset()

    @property
    def named(self) -> frozenset:
        return self.specials | self.tokens


@dataclass(frozen=True)
class JointState:
    """A representative batch tuple: each coordinate's members and the block's size."""

    coordinates: tuple[tuple[str, Members], ...]
    block: sp.Expr
    extracted: int = 0
    _index: dict = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._index.update(self.coordinates)

    def get(self, label: str) -> Members:
        return self._index[label]

    def size(self, label: str) -> sp.Expr:
        members = self.get(label)
        return len(members.specials) + len(members.tokens) + self.block

    def background(self, label: str) -> sp.Expr:
        return len(self.get(label).tokens) + self.block

    def extended(self, new: Iterable[tuple[str, Members]]) -> "JointState":
        return replace(self, coordinates=self.coordinates + tuple(new))

    def signature(self, element: str) -> tuple[bool, ...]:
        return tuple(element in members.named for _, members in self.coordinates)

    def groups(self, elements: Iterable[str], atoms: Atoms) -> list[list[str]]:
        """``elements`` grouped by atom (tokens apart) and by the coordinates holding them."""
        grouped: dict[tuple, list[str]] = {}
        for element in sorted(set(elements)):
            kind = -1 if element.startswith("~") else atoms.index(element)
            grouped.setdefault((kind, self.signature(element)), []).append(element)
        return list(grouped.values())

    def extract_token(self) -> tuple["JointState", str]:
        """Name one anonymous background element; every coordinate so far holds it."""
        token = f"~{self.extracted + 1}"
        coordinates = tuple((label, replace(m, tokens=m.tokens | {token}))
                            for label, m in self.coordinates)
        return JointState(coordinates, self.block - 1, self.extracted + 1), token


def random_orders(state: JointState, atoms: Atoms,
                  elements: tuple[str, ...]) -> list[tuple[sp.Rational, tuple[str, ...]]]:
    """A uniformly random order of ``elements``, one representative per orbit."""
    return _orders(state.groups(elements, atoms))


def random_positions(state: JointState, atoms: Atoms, groups: tuple[tuple[str, ...], ...]
                     ) -> list[tuple[sp.Rational, tuple[int, ...]]]:
    """A uniformly random order of the positions of paired groups (``groups[c][j]`` for every
    ``c`` is position ``j``), one representative per orbit."""
    classes: dict[tuple, list[int]] = {}
    for j in range(len(groups[0])):
        key = tuple((atoms.index(g[j]), state.signature(g[j])) for g in groups)
        classes.setdefault(key, []).append(j)
    return _orders(list(classes.values()))


def _orders(classes: list[list]) -> list[tuple[sp.Rational, tuple]]:
    """Uniformly random orders of the items of ``classes``, items of a class being alike: one
    order per sequence of classes, taking each class's items first to last."""
    sizes = [len(c) for c in classes]
    weight = sp.Rational(math.prod(math.factorial(s) for s in sizes),
                         math.factorial(sum(sizes)))
    outcomes = []
    for sequence in _multiset_permutations(sizes):
        used = [0] * len(classes)
        order = []
        for c in sequence:
            order.append(classes[c][used[c]])
            used[c] += 1
        outcomes.append((weight, tuple(order)))
    return outcomes


def _multiset_permutations(sizes: list[int]) -> list[tuple[int, ...]]:
    count = math.factorial(sum(sizes)) // math.prod(math.factorial(s) for s in sizes)
    if count > MAX_ORBITS:
        raise UnsupportedOperation(f"a random order has {count} orbits (more than {MAX_ORBITS})")
    labels = [g for g, size in enumerate(sizes) for _ in range(size)]
    return sorted(set(itertools.permutations(labels))) if count > 1 else [tuple(labels)]


def random_subsets(state: JointState, atoms: Atoms, elements: tuple[str, ...],
                   size: int) -> list[tuple[sp.Rational, frozenset]]:
    """A uniformly random ``size``-subset of ``elements``, one representative per orbit."""
    groups = state.groups(elements, atoms)
    total = math.comb(len(set(elements)), size)
    outcomes = []
    for picks in itertools.product(*[range(len(g) + 1) for g in groups]):
        if sum(picks) != size:
            continue
        ways = math.prod(math.comb(len(g), k) for g, k in zip(groups, picks))
        outcomes.append((sp.Rational(ways, total),
                         frozenset(e for g, k in zip(groups, picks) for e in g[:k])))
    if len(outcomes) > MAX_ORBITS:
        raise UnsupportedOperation(f"a random subset has {len(outcomes)} orbits")
    return outcomes


def random_members(state: JointState, atoms: Atoms, label: str,
                   count: int) -> list[tuple[sp.Expr, JointState, tuple[str, ...]]]:
    """``count`` distinct uniformly random members of coordinate ``label``, in order of drawing.

    Returns the probability of each orbit, the state (with any background element drawn from
    the block now a named token) and the members drawn."""
    outcomes: list[tuple[sp.Expr, JointState, tuple[str, ...]]] = [(sp.Integer(1), state, ())]
    for step in range(count):
        grown: list[tuple[sp.Expr, JointState, tuple[str, ...]]] = []
        for probability, current, drawn in outcomes:
            members = current.get(label)
            remaining = current.size(label) - step
            for group in current.groups(members.named - set(drawn), atoms):
                grown.append((probability * len(group) / remaining, current,
                              drawn + (group[0],)))
            if current.block != 0:
                named, token = current.extract_token()
                grown.append((probability * current.block / remaining, named, drawn + (token,)))
        outcomes = grown
        if len(outcomes) > MAX_ORBITS:
            raise UnsupportedOperation(f"drawing {count} members has over {MAX_ORBITS} orbits")
    return outcomes
