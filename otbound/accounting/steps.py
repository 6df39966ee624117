"""One step of a training run, as the dominating pairs that describe it.

A step's privacy is a maximum over *cases* (e.g. the ``(K₊, K₋)`` of 003 Thm. 3.7, or the two
directions of an add/remove relation), and each case is a public mixture of *branches* (the terms
of a group bound, or the truncated/untruncated branches of seed 002), each with its dominating
pairs. A pair of datasets stays in one case for the whole run, so composition is per case.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from otbound.choices import Quantity
from otbound.errors import InvalidSpecification
from otbound.numerics.limits import MAX_STEPS, show
from otbound.numerics.mechanisms import Mechanism, describe
from otbound.numerics.one_step import Branch, RenyiBranch, solved, tight_branches
from otbound.numerics.solvers import Basis
from otbound.numerics.three_point import enclosed

StepCase = tuple[Branch, ...]
RenyiCase = tuple[RenyiBranch, ...]


@dataclass(frozen=True)
class Step:
    """``count`` repetitions of one mechanism whose privacy is ``max_case profile(case)``.

    ``relation`` names the neighbouring relation; steps are composed only when it agrees, so
    that case ``i`` of every step refers to the same pair of datasets.
    """

    cases: tuple[StepCase, ...]
    count: int
    relation: tuple
    setting: dict
    tight: bool = False
    """Whether the cases are the mechanism's exact worst case (not a relaxation)."""
    renyi_cases: tuple[RenyiCase, ...] | None = None
    """Tighter cases for Rényi divergences only, at a cost of seconds per order: 001 Thm.
    3.6's certified three-point maximum where ``cases`` are a relaxation of it. The RDP
    accountant uses them at the orders where they can decide its answer
    (:func:`otbound.accounting.rdp.sharpened`)."""

    def __post_init__(self) -> None:
        count = self.count
        if (isinstance(count, bool) or not math.isfinite(float(count))
                or not float(count).is_integer() or not 1 <= count <= MAX_STEPS):
            raise InvalidSpecification(
                f"count must be an integer in [1, {MAX_STEPS:.0e}], got {show(count)}",
                parameter="count")
        object.__setattr__(self, "count", int(count))


def subsampled_step(setting, mechanism: Mechanism, count: int) -> Step:
    """``count`` steps of a setting (built-in or a derivation's) with the dominating pairs of its
    bound: the mechanism's exact solver where it applies, else a sound relaxation or the
    product coupling (:func:`otbound.numerics.one_step.solved`), said in ``"pairs"``. An
    epoch-level setting counts epochs: its epoch's pairs (:func:`epoch_step`)."""
    if setting.epoch_level:
        return epoch_step(setting, mechanism, count)
    branches, how = solved(setting, mechanism)
    described = setting.describe() | describe(mechanism) | {"pairs": how.text}
    cases = tuple(tuple(case) for case in branches)
    return Step(cases, count, setting.relation_key(), described, how.basis is Basis.TIGHT,
                _renyi_cases(setting, mechanism) if how.basis is Basis.RELAXED else None)


def _renyi_cases(setting, mechanism: Mechanism) -> tuple[RenyiCase, ...] | None:
    """The cases of the setting's Rényi solvers, where one of their pairs is a certified
    three-point maximum (known only by its Rényi divergence)."""
    branches, _ = solved(setting, mechanism, Quantity.RDP)
    return tuple(tuple(case) for case in branches) if enclosed(branches) else None


def epoch_step(setting, mechanism: Mechanism, epochs: int) -> Step:
    """``epochs`` epochs of an epoch-level setting: the worst case of each of its cases for the
    mechanism (:mod:`otbound.numerics.epoch_solver`), its step repeated as often per epoch as
    the worst case says (once for an epoch's pair, ``T`` times for independent steps)."""
    cases, repeats, how, tight = setting.solved(mechanism)
    described = setting.describe() | describe(mechanism) | {"pairs": how}
    return Step(tuple(tuple(case) for case in cases), epochs * repeats, setting.relation_key(),
                described, tight)


def alternative_steps(setting, mechanism: Mechanism, count: int) -> dict[str, Step]:
    """The setting's other sound bounds of ``tight`` (e.g. 001 Prop. E.5's dominating pairs
    without replacement: the labelled mixture over the number of substituted elements
    sampled, each at its worst distance; sound for any mechanism, not tight), by name."""
    return {name: Step(tuple(tuple(tight_branches(terms, mechanism)) for terms in cases), count,
                       setting.relation_key(),
                       setting.describe() | describe(mechanism) | {"pairs": name})
            for name, cases in setting.alternative_cases().items()}


def check_composable(steps: list[Step]) -> None:
    if not steps:
        raise InvalidSpecification("nothing to compose: give at least one step")
    if len({step.relation for step in steps}) > 1:
        raise InvalidSpecification(
            "steps can only be composed under one neighbouring relation; got "
            + ", ".join(sorted({str(step.relation) for step in steps})))
