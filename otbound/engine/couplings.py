"""Couplings between conditional subsampling distributions, declared as generative processes.

A coupling of 001 Thm. 3.4 is a joint pmf over ``I + J`` batches whose marginals are the
conditional pmfs ``s_x(· | A_i)`` and ``s_{x'}(· | E_j)``. otbound declares it the way the proofs
of 001 App. E–G describe it: draw a *reference* batch from its conditional pmf, then build every
other coordinate from earlier ones by a :class:`CouplingStep` ("insert the group elements in a
uniformly random order", "replace a uniformly random member by a and by a'", …).

Each step has two semantics that must agree: on concrete batches (exact ``Fraction``
probabilities) and on batch types (sympy), the latter being what proves validity for a symbolic
dataset size. Steps treat background elements symmetrically, so the marginal of every coordinate
gives equal probability to batches of equal type (see :mod:`otbound.engine.validity`).
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from collections import defaultdict
from dataclasses import Field, dataclass, field, fields, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Protocol

import sympy as sp

from otbound.engine.batches import Batch, BatchType, Content
from otbound.engine.joint_types import (Atoms, JointState, Members, random_members, random_orders,
                                        random_positions, random_subsets)
from otbound.errors import InvalidSpecification, UnsupportedOperation


class Conditionals(Protocol):
    """Access to the conditional pmfs that a step may draw from."""

    def batches(self, label: str) -> list[tuple[Fraction, Batch]]:
        """The conditional pmf of coordinate ``label`` on a concrete instance."""

    def types(self, label: str) -> list[tuple[sp.Expr, BatchType]]:
        """The conditional pmf of coordinate ``label`` over batch types (symbolic)."""


class CouplingStep(ABC):
    """One stage of a generative process: new coordinates from (at most) one earlier one.

    A step reads the coordinate named by its field ``source`` (if it has one) and creates the
    coordinates :attr:`targets`.
    """

    if TYPE_CHECKING:   # every concrete step is a dataclass (its fields are checked)
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def sources(self) -> tuple[str, ...]:
        """Coordinates this step reads."""
        source = getattr(self, "source", None)
        return (source,) if source is not None else ()

    @property
    @abstractmethod
    def targets(self) -> tuple[str, ...]:
        """Coordinates this step creates."""

    @abstractmethod
    def outcomes(self, source: Batch | None, given: Conditionals) -> list[tuple[Fraction, tuple]]:
        """Joint distribution of the target batches given the source batch."""

    @abstractmethod
    def type_outcomes(self, source: BatchType | None,
                      given: Conditionals) -> list[tuple[sp.Expr, tuple]]:
        """Joint distribution of the target batch types given the source batch type."""

    @abstractmethod
    def joint_outcomes(self, state: JointState, atoms: Atoms) -> list[tuple[sp.Expr, JointState]]:
        """The tuple extended by the targets, one representative per orbit
        (:mod:`otbound.engine.joint_types`), with the probability of each orbit."""

    def referenced(self) -> tuple[frozenset, ...]:
        """The sets of special elements the step treats as units (they split the atoms)."""
        return ()

    @abstractmethod
    def describe(self) -> str:
        """One sentence stating the step."""

    def __post_init__(self) -> None:
        _check_fields(self)


_SHAPES = {
    "str": "a name (str), such as 'A1'",
    "tuple[str, ...]": "a tuple of names (str), such as ('A1', 'A2')",
    "tuple[tuple[str, ...], ...]": "a tuple of tuples of names, such as (('a1', 'a2'),)",
}
"""What each declared field type of a coupling step takes, in words."""


def _conforms(value: object, shape: str) -> bool:
    if shape == "str":
        return isinstance(value, str) and bool(value)
    inner = shape.removeprefix("tuple[").removesuffix(", ...]")
    return isinstance(value, tuple) and all(_conforms(v, inner) for v in value)


def _check_fields(step: CouplingStep) -> None:
    """Every field of ``step`` has its declared shape (lists are taken as tuples), or an
    :class:`InvalidSpecification` names the step, the field, what it takes and what it got."""
    for declared in fields(step):
        shape = str(declared.type)   # a string already: the steps' modules postpone annotations
        value = getattr(step, declared.name)
        if isinstance(value, list):
            value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
            object.__setattr__(step, declared.name, value)
        if not _conforms(value, shape):
            raise InvalidSpecification(
                f"{type(step).__name__}: {declared.name} must be {_SHAPES[shape]}, got "
                f"{value!r}", parameter=declared.name)


def _check_one_target_each(step: CouplingStep, what: str, values: tuple[str, ...]) -> None:
    if not values or len(values) != len(step.targets):
        raise InvalidSpecification(
            f"{type(step).__name__} needs one target per {what}, got {values} and targets "
            f"{step.targets}")


def _require_set(batch: Batch, step: CouplingStep) -> frozenset:
    if not isinstance(batch, frozenset):
        raise UnsupportedOperation(f"{step.describe()}: only set batches are supported")
    return batch


def _set_type(elements: Iterable[str], background: sp.Expr) -> BatchType:
    return BatchType(Content.of(sorted(set(elements))), background)


@dataclass(frozen=True, slots=True)
class Copy(CouplingStep):
    """``target = source`` (e.g. ``y_3 = y_1`` in 001 Prop. E.4)."""

    source: str
    target: str

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target,)

    def outcomes(self, source, given):
        return [(Fraction(1), (source,))]

    def type_outcomes(self, source, given):
        return [(sp.Integer(1), (source,))]

    def joint_outcomes(self, state, atoms):
        return [(sp.Integer(1), state.extended([(self.target, state.get(self.source))]))]

    def describe(self) -> str:
        return f"y_{self.target} = y_{self.source}"


@dataclass(frozen=True, slots=True)
class InsertInRandomOrder(CouplingStep):
    """Insert ``elements`` into the source one by one, in a uniformly random order.

    ``targets[i]`` holds the source plus the first ``i + 1`` inserted elements (001 App. G.1).
    """

    source: str
    elements: tuple[str, ...]
    targets: tuple[str, ...] = field()   # required: not the base class's property

    def __post_init__(self) -> None:
        _check_fields(self)
        _check_one_target_each(self, "inserted element", self.elements)

    def _orders(self) -> Iterable[tuple[str, ...]]:
        return itertools.permutations(self.elements)

    def outcomes(self, source, given):
        batch = _require_set(source, self)
        weight = Fraction(1, math.factorial(len(self.elements)))
        return [(weight, tuple(batch | frozenset(order[:i + 1]) for i in range(len(order))))
                for order in self._orders()]

    def type_outcomes(self, source, given):
        weight = sp.Rational(1, math.factorial(len(self.elements)))
        present = source.content.elements
        return [(weight, tuple(_set_type(present | set(order[:i + 1]), source.background)
                               for i in range(len(order))))
                for order in self._orders()]

    def joint_outcomes(self, state, atoms):
        source = state.get(self.source)
        return [(weight, state.extended(
                    (target, replace(source, specials=source.specials | set(order[:i + 1])))
                    for i, target in enumerate(self.targets)))
                for weight, order in random_orders(state, atoms, self.elements)]

    def referenced(self):
        return (frozenset(self.elements),)

    def describe(self) -> str:
        if len(self.elements) == 1:
            return f"y_{self.targets[0]} = y_{self.source} ∪ {{{self.elements[0]}}}"
        chain = ", ".join(f"y_{t}" for t in self.targets)
        return (f"{chain}: insert {{{', '.join(self.elements)}}} into y_{self.source} "
                "one at a time, in a uniformly random order")


@dataclass(frozen=True, slots=True)
class ReplaceRandomMember(CouplingStep):
    """Pick a uniformly random member ``ã`` of the source; ``targets[k] = source \\ {ã} ∪ {rep_k}``.

    001 Thm. 3.6 (proof in App. E.1) with ``replacements = (a, a')``; 001 Thm. F.3 with ``(a,)``.
    """

    source: str
    replacements: tuple[str, ...]
    targets: tuple[str, ...] = field()   # required: not the base class's property

    def __post_init__(self) -> None:
        _check_fields(self)
        _check_one_target_each(self, "replacement", self.replacements)

    def outcomes(self, source, given):
        batch = _require_set(source, self)
        if not batch:
            raise InvalidSpecification(f"{self.describe()}: the source batch is empty")
        weight = Fraction(1, len(batch))
        return [(weight, tuple((batch - {member}) | {rep} for rep in self.replacements))
                for member in sorted(batch)]

    def type_outcomes(self, source, given):
        present, m = source.content.elements, source.background
        size = len(present) + m
        outcomes = [(m / size, tuple(_set_type(present | {rep}, m - 1)
                                      for rep in self.replacements))]
        for member in sorted(present):
            outcomes.append((1 / size, tuple(_set_type((present - {member}) | {rep}, m)
                                              for rep in self.replacements)))
        return [(weight, types) for weight, types in outcomes if weight != 0]

    def joint_outcomes(self, state, atoms):
        outcomes = []
        for weight, drawn_state, (member,) in random_members(state, atoms, self.source, 1):
            source = drawn_state.get(self.source)
            outcomes.append((weight, drawn_state.extended(
                (target, Members(source.specials - {member} | {rep}, source.tokens - {member}))
                for target, rep in zip(self.targets, self.replacements))))
        return outcomes

    def referenced(self):
        return tuple(frozenset({rep}) for rep in self.replacements)

    def describe(self) -> str:
        made = ", ".join(f"y_{t} = y_{self.source} \\ {{ã}} ∪ {{{rep}}}"
                         for t, rep in zip(self.targets, self.replacements))
        return f"pick a uniformly random member ã of y_{self.source}; {made}"


@dataclass(frozen=True, slots=True)
class SwapInRandomOrder(CouplingStep):
    """Swap members of the source for the elements of paired groups, one at a time.

    Draw distinct uniformly random members ``ã_1 … ã_K`` of the source and a uniformly random
    order ``π`` of the ``K`` positions; ``chains[c][i]`` is the source with ``ã_1 … ã_{i+1}``
    replaced by ``groups[c][π(1)] … groups[c][π(i+1)]``. With ``groups = (g, g')`` it carries
    001 Thm. 3.6's coupling (``K = 1``, :class:`ReplaceRandomMember`) over to K-fold substitution.
    """

    source: str
    groups: tuple[tuple[str, ...], ...]
    chains: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        _check_fields(self)
        sizes = {len(g) for g in self.groups} | {len(c) for c in self.chains}
        if len(self.groups) != len(self.chains) or len(sizes) != 1 or sizes == {0}:
            raise InvalidSpecification(f"{type(self).__name__} needs one chain per group, and "
                                       "every group and chain of the same length >= 1")

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(t for chain in self.chains for t in chain)

    def _swapped(self, specials: frozenset, tokens: frozenset, members, order):
        for group, chain in zip(self.groups, self.chains):
            for i, target in enumerate(chain):
                removed = set(members[:i + 1])
                added = {group[j] for j in order[:i + 1]}
                yield target, (specials - removed) | added, tokens - removed

    def outcomes(self, source, given):
        batch = _require_set(source, self)
        size = len(self.groups[0])
        if len(batch) < size:
            raise InvalidSpecification(f"{self.describe()}: the source batch has fewer than "
                                       f"{size} members")
        draws = list(itertools.permutations(sorted(batch), size))
        orders = list(itertools.permutations(range(size)))
        weight = Fraction(1, len(draws) * len(orders))
        return [(weight, tuple(specials for _, specials, _ in
                               self._swapped(batch, frozenset(), members, order)))
                for members in draws for order in orders]

    def type_outcomes(self, source, given):
        raise UnsupportedOperation(f"{self.describe()}: marginal types are formed by the "
                                   "type-level analysis")

    def joint_outcomes(self, state, atoms):
        outcomes = []
        for p, drawn, members in random_members(state, atoms, self.source, len(self.groups[0])):
            source = drawn.get(self.source)
            for weight, order in random_positions(drawn, atoms, self.groups):
                made = self._swapped(source.specials, source.tokens, members, order)
                outcomes.append((p * weight, drawn.extended(
                    (target, Members(specials, tokens)) for target, specials, tokens in made)))
        return outcomes

    def referenced(self):
        return tuple(frozenset(g) for g in self.groups)

    def describe(self) -> str:
        chains = "; ".join(f"y_{', y_'.join(c)} take {{{', '.join(g)}}}"
                           for g, c in zip(self.groups, self.chains))
        return (f"swap distinct uniformly random members of y_{self.source} for the paired "
                f"elements of each group, one at a time in a uniformly random order ({chains})")


@dataclass(frozen=True, slots=True)
class ReplaceGroup(CouplingStep):
    """Remove every element of ``removed`` and insert as many uniformly random ones of ``inserted``.

    001 Prop. E.5 (App. E.3): ``y_2 = y_1 \\ g ∪ g̃`` with ``g̃ ⊆ g'`` uniform,
    ``|g̃| = |y_1 ∩ g|``.
    """

    source: str
    removed: tuple[str, ...]
    inserted: tuple[str, ...]
    target: str

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target,)

    def _kept(self, present: frozenset) -> tuple[frozenset, int]:
        """The source without the removed elements, and how many were removed."""
        count = len(present & set(self.removed))
        if count > len(self.inserted):
            raise InvalidSpecification(
                f"{self.describe()}: {count} removed elements but only {len(self.inserted)} "
                "to insert")
        return present - set(self.removed), count

    def _choices(self, present: frozenset) -> tuple[frozenset, list[tuple[str, ...]]]:
        kept, count = self._kept(present)
        return kept, list(itertools.combinations(self.inserted, count))

    def outcomes(self, source, given):
        kept, choices = self._choices(_require_set(source, self))
        return [(Fraction(1, len(choices)), (kept | set(chosen),)) for chosen in choices]

    def type_outcomes(self, source, given):
        kept, choices = self._choices(source.content.elements)
        return [(sp.Rational(1, len(choices)), (_set_type(kept | set(chosen), source.background),))
                for chosen in choices]

    def joint_outcomes(self, state, atoms):
        source = state.get(self.source)
        kept, count = self._kept(source.specials)
        return [(weight, state.extended([(self.target, replace(source, specials=kept | chosen))]))
                for weight, chosen in random_subsets(state, atoms, self.inserted, count)]

    def referenced(self):
        return (frozenset(self.removed), frozenset(self.inserted))

    def describe(self) -> str:
        return (f"y_{self.target} = y_{self.source} without {{{', '.join(self.removed)}}}, plus "
                f"as many uniformly random elements of {{{', '.join(self.inserted)}}}")


@dataclass(frozen=True, slots=True)
class DrawIndependently(CouplingStep):
    """Draw the target from its own conditional pmf, independently of everything else."""

    target: str

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target,)

    def outcomes(self, source, given):
        return [(p, (batch,)) for p, batch in given.batches(self.target)]

    def type_outcomes(self, source, given):
        return [(mass, (btype,)) for mass, btype in given.types(self.target)]

    def joint_outcomes(self, state, atoms):
        raise UnsupportedOperation(
            f"{self.describe()}: an independent draw shares an unknown part of the background "
            "with the other coordinates, so its distances depend on the dataset size")

    def describe(self) -> str:
        return f"y_{self.target} is drawn independently from its conditional pmf"


@dataclass(frozen=True)
class Coupling:
    """A generative process: draw ``reference`` from its conditional pmf, then apply ``steps``."""

    reference: str
    steps: tuple[CouplingStep, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.reference, str) or not self.reference:
            raise InvalidSpecification(f"Coupling: reference must be {_SHAPES['str']}, got "
                                       f"{self.reference!r}", parameter="reference")
        if isinstance(self.steps, CouplingStep) or not isinstance(self.steps, (tuple, list)):
            raise InvalidSpecification(f"Coupling: steps must be a tuple of coupling steps, got "
                                       f"{self.steps!r}", parameter="steps")
        object.__setattr__(self, "steps", tuple(self.steps))
        for step in self.steps:
            if not isinstance(step, CouplingStep):
                raise InvalidSpecification(
                    f"Coupling: every step must be a coupling step (Copy, InsertInRandomOrder, "
                    f"…), got {step!r}", parameter="steps")
        made = [self.reference]
        for step in self.steps:
            missing = [s for s in step.sources if s not in made]
            if missing:
                raise InvalidSpecification(
                    f"coupling step '{step.describe()}' reads {missing} before it is generated")
            made.extend(step.targets)
        if len(set(made)) != len(made):
            raise InvalidSpecification(f"coupling generates a coordinate twice: {made}")

    @property
    def coordinates(self) -> tuple[str, ...]:
        """Every coordinate, in generation order."""
        return (self.reference,) + tuple(t for step in self.steps for t in step.targets)

    def describe(self) -> list[str]:
        """The generative process, one line per stage."""
        return ([f"y_{self.reference} is drawn from its conditional pmf"]
                + [step.describe() for step in self.steps])

    def joint(self, reference: list[tuple[Fraction, Batch]],
              given: Conditionals) -> dict[tuple, Fraction]:
        """Exact joint pmf over batch tuples (in :attr:`coordinates` order)."""
        joint: dict[tuple, Fraction] = defaultdict(Fraction)
        for weight, batch in reference:
            joint[(batch,)] += weight
        made = [self.reference]
        for step in self.steps:
            grown: dict[tuple, Fraction] = defaultdict(Fraction)
            for values, weight in joint.items():
                source = values[made.index(step.sources[0])] if step.sources else None
                for p, produced in step.outcomes(source, given):
                    grown[values + produced] += weight * p
            made.extend(step.targets)
            joint = grown
        return dict(joint)

    def marginal_types(self, reference: list[tuple[sp.Expr, BatchType]],
                       given: Conditionals) -> dict[str, list[tuple[sp.Expr, BatchType]]]:
        """Each coordinate's marginal mass over batch types, symbolically.

        Every step reads at most one coordinate, so marginals propagate step by step without the
        joint. Masses are functions of the background count of their own type.
        """
        result = {self.reference: list(reference)}
        for step in self.steps:
            produced: list[defaultdict[BatchType, sp.Expr]] = [
                defaultdict(lambda: sp.Integer(0)) for _ in step.targets]
            sources = result[step.sources[0]] if step.sources else [(sp.Integer(1), None)]
            for mass, source in sources:
                for p, types in step.type_outcomes(source, given):
                    for index, btype in enumerate(types):
                        produced[index][btype] += mass * p
            for target, masses in zip(step.targets, produced):
                result[target] = [(mass, btype) for btype, mass in masses.items()]
        return result
