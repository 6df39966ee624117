"""Couplings of the conditional distributions of an epoch-level scheme (issue 28).

The events are the steps that hold the modified record: ``A_S`` on ``x`` ("the record is in
exactly the steps ``S``"), ``E_S`` on ``x'``. A coupling draws one outcome for every event at once
(001 Def. 3.2, with an epoch's sequence of batches as the outcome); :meth:`EpochCoupling.draws`
enumerates it exactly on a concrete dataset, so that its marginals and its per-step distances
can be checked (:mod:`otbound.engine.epoch_derivation`).
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator

from otbound.engine.epoch_patterns import DiagonalSteps, EpochPattern, PinnedProduct, \
    component_label
from otbound.engine.epoch_schemes import EpochScheme, Outcome, Steps, held

RECORD, OTHER_RECORD = "a", "a'"
"""The modified record of ``x``, and the record that replaces it in ``x'`` (substitution)."""


@dataclass(frozen=True)
class EpochComponent:
    """One outcome of the coupling: drawn from ``s_x(· | A_steps)`` (side ``x``) or
    ``s_x'(· | E_steps)`` (side ``x'``); ``steps`` is ``None`` for the unconditioned scheme of a
    dataset without the modified record."""

    label: str
    side: str
    steps: Steps | None


@dataclass(frozen=True)
class EpochCase:
    """One shape of neighbouring datasets: the records ``x`` and ``x'`` have beside the others."""

    name: str
    x: tuple[str, ...]
    x_prime: tuple[str, ...]

    def records(self, side: str, others: tuple[str, ...]) -> tuple[str, ...]:
        return others + (self.x if side == "x" else self.x_prime)

    def special(self, side: str) -> str:
        """The modified record on that side (a component of that side conditions on it)."""
        (found,) = self.x if side == "x" else self.x_prime
        return found


class EpochCoupling(ABC):
    """A coupling for every case of a relation."""

    @abstractmethod
    def cases(self) -> tuple[EpochCase, ...]:
        """The shapes of neighbouring datasets it couples."""

    @abstractmethod
    def components(self, scheme: EpochScheme, case: EpochCase) -> tuple[EpochComponent, ...]:
        """The events it draws an outcome for (``x``'s side first)."""

    @abstractmethod
    def draws(self, scheme: EpochScheme, case: EpochCase,
              others: tuple[str, ...]) -> Iterator[tuple[Fraction, dict[str, Outcome]]]:
        """Every joint draw with its probability: one outcome per component label."""

    @abstractmethod
    def describe(self, case: EpochCase) -> str:
        """How it draws, in words."""

    @abstractmethod
    def pattern(self, scheme: EpochScheme, case: EpochCase) -> EpochPattern:
        """The distance pattern its draws have for every ``T`` (what the checks confirm on the
        instances): it follows from how the outcomes are built."""


def _with(outcome: Outcome, record: str, steps: Steps) -> Outcome:
    """``outcome`` with ``record`` put into the batches of ``steps``."""
    return tuple(batch | {record} if t in steps else batch
                 for t, batch in enumerate(outcome, start=1))


@dataclass(frozen=True)
class InsertIntoSteps(EpochCoupling):
    """Insertion/removal: draw the epoch of the dataset without the record, and put the record
    into the steps ``S`` for the event ``S`` (every event from the same draw)."""

    def cases(self) -> tuple[EpochCase, ...]:
        return EpochCase("removal", (RECORD,), ()), EpochCase("insertion", (), (RECORD,))

    def components(self, scheme: EpochScheme, case: EpochCase) -> tuple[EpochComponent, ...]:
        with_record = "x" if case.x else "x'"
        prefix, plain = ("A", "E") if case.x else ("E", "A")
        events = tuple(EpochComponent(component_label(prefix, s), with_record, s)
                       for s in scheme.events())
        base = EpochComponent(component_label(plain, None), "x'" if case.x else "x", None)
        return events + (base,) if case.x else (base,) + events

    def draws(self, scheme, case, others):
        parts = self.components(scheme, case)
        for outcome, mass in scheme.pmf(others).items():
            yield mass, {c.label: outcome if c.steps is None else _with(outcome, RECORD, c.steps)
                         for c in parts}

    def pattern(self, scheme: EpochScheme, case: EpochCase) -> PinnedProduct:
        """Every outcome is the same epoch of the others with the record added to the batches
        of ``S``: per step, the record is the only difference (the pinned product)."""
        return PinnedProduct(scheme.steps, scheme.weights(), bool(case.x))

    def describe(self, case: EpochCase) -> str:
        without = "x'" if case.x else "x"
        return (f"the epoch of {without} (without the record) is drawn once; the outcome for the "
                f"event 'the record is in exactly the steps S' is that epoch with the record "
                f"put into the batches of S")


@dataclass(frozen=True)
class SwapIntoSteps(EpochCoupling):
    """Substitution (``x`` holds ``a``, ``x'`` holds ``a'``): draw the epoch of ``x'`` with
    ``a'`` in step 1; for step ``t ≠ 1`` swap ``a'`` with a uniformly random record of batch
    ``t``; the outcome for ``A_t`` is that for ``E_t`` with ``a'`` replaced by ``a``. (The swap
    maps the epochs with ``a'`` in step 1 onto those with ``a'`` in step ``t``, each hit ``b``
    times: uniform again.)"""

    def cases(self) -> tuple[EpochCase, ...]:
        return (EpochCase("substitution", (RECORD,), (OTHER_RECORD,)),)

    def components(self, scheme: EpochScheme, case: EpochCase) -> tuple[EpochComponent, ...]:
        return (tuple(EpochComponent(component_label("A", s), "x", s) for s in scheme.events())
                + tuple(EpochComponent(component_label("E", s), "x'", s) for s in scheme.events()))

    def draws(self, scheme, case, others):
        records = case.records("x'", others)
        base = {o: p for o, p in scheme.pmf(records).items() if held(o, OTHER_RECORD) == {1}}
        total = sum(base.values(), Fraction(0))
        for outcome, mass in base.items():
            choices = [sorted(outcome[t - 1]) for t in range(2, scheme.steps + 1)]
            share = mass / total / math.prod(len(c) for c in choices)
            for picked in itertools.product(*choices):
                drawn = {}
                for t in range(1, scheme.steps + 1):
                    swapped = outcome if t == 1 else _swap(outcome, OTHER_RECORD, picked[t - 2])
                    drawn[component_label("E", frozenset({t}))] = swapped
                    drawn[component_label("A", frozenset({t}))] = _swap(swapped, OTHER_RECORD,
                                                                         RECORD)
                yield share, drawn

    def pattern(self, scheme: EpochScheme, case: EpochCase) -> DiagonalSteps:
        """``ŷ_At`` and ``ŷ_Et`` differ in step ``t`` only, by ``a`` for ``a'``."""
        return DiagonalSteps(scheme.steps)

    def describe(self, case: EpochCase) -> str:
        return ("the epoch of x' is drawn with a' in step 1; for step t, a' is swapped with a "
                "uniformly random record of batch t; the outcome for A_t is that for E_t with a' "
                "replaced by a")


HOLE = "_hole"
"""The empty slot of :class:`SwapThroughHole`'s arrangement (not a record)."""


@dataclass(frozen=True)
class SwapThroughHole(EpochCoupling):
    """Substitution, the hub coupling of shuffled batches (docs/shuffling.md): arrange the other
    records and one hole uniformly; for step ``t``, the record fills the hole if it is in batch
    ``t``, else it takes a uniformly random member's place in batch ``t`` and that member fills
    the hole (each cut with the record in batch ``t`` is reached with probability
    ``(1 + (N − b)/b)/N! = T/N!``: uniform). ``ŷ_At`` is ``ŷ_Et`` with ``a'`` replaced by
    ``a``. Per arrangement, two components differ only in their own steps and the hole's
    (:func:`otbound.engine.shuffle_certificate.hole_steps_only`); the pattern stated is the
    diagonal one, which that implies."""

    def cases(self) -> tuple[EpochCase, ...]:
        return SwapIntoSteps().cases()

    def components(self, scheme: EpochScheme, case: EpochCase) -> tuple[EpochComponent, ...]:
        return SwapIntoSteps().components(scheme, case)

    def draws(self, scheme, case, others):
        for mass, (_, drawn) in self.arranged_draws(scheme, others):
            yield mass, drawn

    def arranged_draws(self, scheme: EpochScheme, others: tuple[str, ...]
                       ) -> Iterator[tuple[Fraction, tuple[int, dict[str, Outcome]]]]:
        """Every joint draw with its probability and the hole's step."""
        for arrangement, mass in scheme.pmf(others + (HOLE,)).items():
            (hole,) = held(arrangement, HOLE)
            members = [sorted(batch) if t != hole else [HOLE]
                       for t, batch in enumerate(arrangement, start=1)]
            share = mass / math.prod(len(m) for m in members)
            for picked in itertools.product(*members):
                drawn = {}
                for t, member in enumerate(picked, start=1):
                    moved = _swap(arrangement, member, HOLE)   # the member into the hole
                    drawn[component_label("E", frozenset({t}))] = _swap(moved, HOLE,
                                                                         OTHER_RECORD)
                    drawn[component_label("A", frozenset({t}))] = _swap(moved, HOLE, RECORD)
                yield share, (hole, drawn)

    def pattern(self, scheme: EpochScheme, case: EpochCase) -> DiagonalSteps:
        """``ŷ_At`` and ``ŷ_Et`` differ in step ``t`` only, by ``a`` for ``a'``."""
        return DiagonalSteps(scheme.steps)

    def describe(self, case: EpochCase) -> str:
        return ("the other records and one hole are arranged uniformly; for step t, a' fills "
                "the hole if it is in batch t, else takes a uniformly random member's place in "
                "batch t and that member fills the hole; the outcome for A_t is that for E_t with "
                "a' replaced by a")


def _swap(outcome: Outcome, one: str, other: str) -> Outcome:
    """``outcome`` with the records ``one`` and ``other`` exchanged."""
    def moved(record: str) -> str:
        return other if record == one else one if record == other else record

    return tuple(frozenset(map(moved, batch)) for batch in outcome)
