"""Epoch-level subsampling schemes (issue 28): one outcome is the sequence of the ``T`` batches
of an epoch, not one batch.

* :class:`RandomAllocationEpoch` — every record is put in ``k`` of the ``T`` steps, chosen
  uniformly and independently of the other records (Feldman & Shenfeld 2025, "random
  allocation"); :class:`BallsInBinsEpoch` is ``k = 1`` (Chua et al. 2025, "balls-and-bins
  sampling");
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

import functools
import itertools
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from otbound.engine.derivation_spec import StructuralParameter
from otbound.engine.epoch_patterns import AllocationWeights, IndependentWeights
from otbound.engine.relations import BatchRelation
from otbound.engine.schemes import as_fraction, as_parameter
from otbound.errors import InvalidSpecification

Outcome = tuple[frozenset, ...]
"""The batches of the steps ``1 … T``, in order."""
Steps = frozenset
"""A set of step numbers (in ``1 … T``): the steps that hold a record."""

EPOCH_STEPS = StructuralParameter("T", "steps per epoch", minimum=1, maximum=8)
"""The structural parameter of every epoch-level derivation, as checked: the checks enumerate
every outcome (``C(T, k)^N`` and more), so they stop at 8 steps; the bound itself is stated for
every ``T`` up to :data:`MAX_EPOCH_STEPS` (:mod:`otbound.engine.epoch_patterns`)."""
SELECTED = StructuralParameter("k", "steps per record (random allocation)", minimum=1, maximum=8)
"""How many steps of an epoch hold each record under random allocation (as checked)."""
MAX_EPOCH_STEPS = 10 ** 7
"""The most steps per epoch a scheme (and its bound) is built for."""


def _count(name: str, value, largest: int) -> int:
    """An integer in ``[1, largest]``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= largest:
        raise InvalidSpecification(f"{name} must be an integer in [1, {largest}], got "
                                   f"{value!r}", parameter=name.split()[0])
    return value


def held(outcome: Outcome, record: str) -> Steps:
    """The steps whose batch holds ``record``."""
    return frozenset(t for t, batch in enumerate(outcome, start=1) if record in batch)


def step_distances(first: Outcome, second: Outcome, relation: BatchRelation
                   ) -> tuple[float, ...]:
    """The distance ``d_Y`` between the two outcomes' batches, step by step (a vector; equal
    batches are at distance 0 under every relation)."""
    return tuple(0 if a == b else relation.distance(a, b) for a, b in zip(first, second))


@dataclass(frozen=True)
class EpochScheme(ABC):
    """An epoch of ``steps`` batches."""

    steps: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", _count("T (steps per epoch)", self.steps,
                                                 MAX_EPOCH_STEPS))

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

    def outcomes(self, size: int) -> int:
        """How many outcomes :meth:`pmf` enumerates for ``size`` records (every record's set of
        steps independently, by default)."""
        return len(self.events()) ** size

    def substitute(self, values: dict) -> "EpochScheme":
        """The scheme with its symbolic parameters given values (none by default)."""
        return self

    def symbols(self) -> set[str]:
        """The names of its symbolic parameters (none by default)."""
        return set()

    def weights(self):
        """The law of the record's steps as a weight rule of the patterns
        (:mod:`otbound.engine.epoch_patterns`)."""
        raise InvalidSpecification(f"{self.describe()}: the record's steps have no weight rule "
                                   "of the patterns (random allocation or independent steps)")


@dataclass(frozen=True)
class OncePerEpoch(EpochScheme, ABC):
    """A scheme that puts every record in exactly one step, each step with probability 1/T."""

    def events(self) -> tuple[Steps, ...]:
        return tuple(frozenset({t}) for t in range(1, self.steps + 1))

    def event_weight(self, steps: Steps) -> sp.Expr:
        return sp.Rational(1, self.steps) if len(steps) == 1 else sp.Integer(0)


@dataclass(frozen=True)
class RandomAllocationEpoch(EpochScheme):
    """Each record in ``selected`` steps chosen uniformly among the ``T``, independently of the
    other records (Feldman & Shenfeld 2025)."""

    selected: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        selected = _count("k (steps per record)", self.selected, MAX_EPOCH_STEPS)
        if selected > self.steps:
            raise InvalidSpecification(f"k (steps per record) must be at most T = {self.steps}, "
                                       f"got {selected}", parameter="k")
        object.__setattr__(self, "selected", selected)

    def pmf(self, records: tuple[str, ...]) -> dict[Outcome, Fraction]:
        choices = self.events()
        mass = Fraction(1, len(choices) ** len(records))
        found: dict[Outcome, Fraction] = {}
        for assignment in itertools.product(choices, repeat=len(records)):
            outcome = tuple(frozenset(r for r, s in zip(records, assignment) if step in s)
                            for step in range(1, self.steps + 1))
            found[outcome] = found.get(outcome, Fraction(0)) + mass
        return found

    def events(self) -> tuple[Steps, ...]:
        return tuple(frozenset(s) for s in itertools.combinations(range(1, self.steps + 1),
                                                                  self.selected))

    def event_weight(self, steps: Steps) -> sp.Expr:
        return (sp.Rational(1, math.comb(self.steps, self.selected))
                if len(steps) == self.selected else sp.Integer(0))

    def weights(self) -> AllocationWeights:
        return AllocationWeights(self.selected)

    def describe(self) -> str:
        return (f"random allocation over an epoch of T = {self.steps} steps (each record in "
                f"k = {self.selected} of them, chosen uniformly and independently)")


@dataclass(frozen=True)
class BallsInBinsEpoch(RandomAllocationEpoch):
    """Each record in one uniformly random step, independently (Chua et al. 2025): random
    allocation with ``k = 1``."""

    def __post_init__(self) -> None:
        if self.selected != 1:
            raise InvalidSpecification("balls-in-bins puts each record in one step (k = 1); use "
                                       "RandomAllocationEpoch for k > 1", parameter="k")
        super().__post_init__()

    def describe(self) -> str:
        return (f"balls-in-bins over an epoch of T = {self.steps} steps (each record in one "
                "uniformly random step)")


@dataclass(frozen=True)
class ShuffledEpoch(OncePerEpoch):
    """A uniform permutation of the ``N = T·b`` records cut into ``T`` batches of ``b``."""

    def defined_for(self, size: int) -> bool:
        return size > 0 and size % self.steps == 0

    def outcomes(self, size: int) -> int:
        return math.factorial(size) // math.factorial(size // self.steps) ** self.steps

    def pmf(self, records: tuple[str, ...]) -> dict[Outcome, Fraction]:
        if not self.defined_for(len(records)):
            raise InvalidSpecification(f"shuffling cuts N = T·b records into T = {self.steps} "
                                       f"batches; got N = {len(records)}")
        return dict(_shuffled(self.steps, tuple(records)))

    def describe(self) -> str:
        return (f"shuffling: a uniform permutation of N = T·b records cut into T = {self.steps} "
                "batches of b")


@functools.lru_cache(maxsize=8)
def _shuffled(steps: int, records: tuple[str, ...]) -> tuple[tuple[Outcome, Fraction], ...]:
    """Every cut of the records into ``steps`` batches, equally likely (computed once: the
    checks ask for the same instance several times)."""
    outcomes = list(_cut(frozenset(records), steps, len(records) // steps))
    return tuple((outcome, Fraction(1, len(outcomes))) for outcome in outcomes)


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

    def weights(self) -> IndependentWeights:
        return IndependentWeights(self.rate)

    def symbols(self) -> set[str]:
        return {str(symbol) for symbol in self.rate.free_symbols}

    def describe(self) -> str:
        return (f"Poisson subsampling with rate {self.rate} in each of T = {self.steps} steps "
                "(independently)")

    def substitute(self, values: dict) -> "PoissonEpoch":
        return PoissonEpoch(self.steps, self.rate.subs(values))
