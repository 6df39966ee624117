"""Epoch-level subsampling schemes (issue 28): one outcome is the sequence of the ``T`` batches
of an epoch, not one batch.

* :class:`BallsInBinsEpoch` — every record is put in one of the ``T`` steps, uniformly and
  independently (Chua et al. 2025, "balls-and-bins sampling");
* :class:`ShuffledEpoch` — a uniform permutation of the ``N = T·b`` records cut into ``T``
  batches of ``b``, as most DP-SGD code runs;
* :class:`PoissonEpoch` — every record is in every step independently with probability ``r``:
  the per-step scheme ``T`` times, for comparison.

Each gives the exact pmf of the outcomes of a small concrete dataset (``Fraction``), and the
probability that the modified record is in exactly the steps ``S`` in closed form
(:meth:`EpochScheme.event_weight`); the derivations (:mod:`otbound.engine.epoch_derivation`)
check the closed forms against the pmfs. Steps are numbered from 1.
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from otbound.engine.derivation_spec import StructuralParameter
from otbound.engine.relations import BatchRelation
from otbound.engine.schemes import as_fraction, as_parameter
from otbound.errors import InvalidSpecification

Outcome = tuple[frozenset, ...]
"""The batches of the steps ``1 … T``, in order."""
Steps = frozenset
"""A set of step numbers (in ``1 … T``): the steps that hold a record."""

EPOCH_STEPS = StructuralParameter("T", "steps per epoch", minimum=1, maximum=4)
"""The structural parameter of every epoch-level derivation; at most 4 steps, as the checks
enumerate ``T^N`` outcomes and more."""


def held(outcome: Outcome, record: str) -> Steps:
    """The steps whose batch holds ``record``."""
    return frozenset(t for t, batch in enumerate(outcome, start=1) if record in batch)


def step_distances(first: Outcome, second: Outcome, relation: BatchRelation
                   ) -> tuple[float, ...]:
    """The distance ``d_Y`` between the two outcomes' batches, step by step (a vector)."""
    return tuple(relation.distance(a, b) for a, b in zip(first, second))


@dataclass(frozen=True)
class EpochScheme(ABC):
    """An epoch of ``steps`` batches."""

    steps: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", EPOCH_STEPS.check(self.steps))

    @abstractmethod
    def pmf(self, records: tuple[str, ...]) -> dict[Outcome, Fraction]:
        """The exact probability of every outcome of the dataset ``records``."""

    @abstractmethod
    def events(self) -> tuple[Steps, ...]:
        """The sets of steps a record can be in (with positive probability)."""

    @abstractmethod
    def event_weight(self, steps: Steps) -> sp.Expr:
        """The probability that a given record is in exactly ``steps``, in closed form."""

    @abstractmethod
    def describe(self) -> str:
        """The scheme in words."""

    def defined_for(self, size: int) -> bool:
        """Whether the scheme samples a dataset of ``size`` records."""
        return size >= 0

    def substitute(self, values: dict) -> "EpochScheme":
        """The scheme with its symbolic parameters given values (none by default)."""
        return self


@dataclass(frozen=True)
class OncePerEpoch(EpochScheme, ABC):
    """A scheme that puts every record in exactly one step, each step with probability 1/T."""

    def events(self) -> tuple[Steps, ...]:
        return tuple(frozenset({t}) for t in range(1, self.steps + 1))

    def event_weight(self, steps: Steps) -> sp.Expr:
        return sp.Rational(1, self.steps) if len(steps) == 1 else sp.Integer(0)


@dataclass(frozen=True)
class BallsInBinsEpoch(OncePerEpoch):
    """Each record in one uniformly random step, independently (Chua et al. 2025)."""

    def pmf(self, records: tuple[str, ...]) -> dict[Outcome, Fraction]:
        mass = Fraction(1, self.steps ** len(records))
        found: dict[Outcome, Fraction] = {}
        for assignment in itertools.product(range(1, self.steps + 1), repeat=len(records)):
            outcome = tuple(frozenset(r for r, t in zip(records, assignment) if t == step)
                            for step in range(1, self.steps + 1))
            found[outcome] = found.get(outcome, Fraction(0)) + mass
        return found

    def describe(self) -> str:
        return (f"balls-in-bins over an epoch of T = {self.steps} steps (each record in one "
                "uniformly random step)")


@dataclass(frozen=True)
class ShuffledEpoch(OncePerEpoch):
    """A uniform permutation of the ``N = T·b`` records cut into ``T`` batches of ``b``."""

    def defined_for(self, size: int) -> bool:
        return size > 0 and size % self.steps == 0

    def pmf(self, records: tuple[str, ...]) -> dict[Outcome, Fraction]:
        if not self.defined_for(len(records)):
            raise InvalidSpecification(f"shuffling cuts N = T·b records into T = {self.steps} "
                                       f"batches; got N = {len(records)}")
        size = len(records) // self.steps
        outcomes = list(_cut(frozenset(records), self.steps, size))
        return {outcome: Fraction(1, len(outcomes)) for outcome in outcomes}

    def describe(self) -> str:
        return (f"shuffling: a uniform permutation of N = T·b records cut into T = {self.steps} "
                "batches of b")


def _cut(records: frozenset, parts: int, size: int):
    """Every sequence of ``parts`` disjoint batches of ``size`` covering ``records``."""
    if parts == 0:
        yield ()
        return
    for first in itertools.combinations(sorted(records), size):
        for rest in _cut(records - set(first), parts - 1, size):
            yield (frozenset(first),) + rest


@dataclass(frozen=True)
class PoissonEpoch(EpochScheme):
    """Each record in each step independently with probability ``rate``."""

    rate: sp.Expr = sp.Symbol("r", positive=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "rate", as_parameter(self.rate, "rate"))

    def pmf(self, records: tuple[str, ...]) -> dict[Outcome, Fraction]:
        rate = as_fraction(self.rate)
        if not 0 <= rate <= 1:
            raise InvalidSpecification(f"rate r must be in [0, 1], got {rate}")
        subsets = [frozenset(s) for k in range(self.steps + 1)
                   for s in itertools.combinations(range(1, self.steps + 1), k)]
        found: dict[Outcome, Fraction] = {}
        for chosen in itertools.product(subsets, repeat=len(records)):
            mass = math.prod((rate ** len(s) * (1 - rate) ** (self.steps - len(s))
                              for s in chosen), start=Fraction(1))
            outcome = tuple(frozenset(r for r, s in zip(records, chosen) if t in s)
                            for t in range(1, self.steps + 1))
            found[outcome] = found.get(outcome, Fraction(0)) + mass
        return found

    def events(self) -> tuple[Steps, ...]:
        return tuple(frozenset(s) for k in range(self.steps + 1)
                     for s in itertools.combinations(range(1, self.steps + 1), k))

    def event_weight(self, steps: Steps) -> sp.Expr:
        return self.rate ** len(steps) * (1 - self.rate) ** (self.steps - len(steps))

    def describe(self) -> str:
        return (f"Poisson subsampling with rate {self.rate} in each of T = {self.steps} steps "
                "(independently)")

    def substitute(self, values: dict) -> "PoissonEpoch":
        return PoissonEpoch(self.steps, self.rate.subs(values))
