"""An accountant you step: a training run's privacy, asked for at any point while it grows.

``step`` records steps of any setting (per-step, epoch-level, a group, a derivation's) with any
mechanism, as they happen — a σ schedule, a change of batch size or sampler; ``epsilon`` and
``delta`` answer for the run so far. The answer is :func:`~otbound.accounting.accountant.compose`
of the recorded steps, to the last bit: the accountant keeps the compositions of what it has
already answered for (:mod:`.prefixes`) and composes only the steps taken since. Consecutive
steps of one setting and mechanism between two questions are one repeated step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from otbound.accounting.accountant import Guarantee, check_target, compose
from otbound.accounting.prefixes import Prefixes
from otbound.accounting.steps import Step, subsampled_step
from otbound.choices import DEFAULT_DISCRETISATION, Accountant, Conversion
from otbound.errors import InvalidSpecification, as_choice, required
from otbound.numerics.derived import as_setting
from otbound.numerics.limits import show
from otbound.numerics.mechanisms import Mechanism, describe
from otbound.numerics.settings import Setting


TPR_EPSILONS = tuple(float(e) for e in (0.0, *np.geomspace(1e-3, 40.0, 48)))
"""The ε at which :meth:`RunningAccountant.true_positive_rate` reads the run's δ(ε)."""
TRADE_OFF_ROUNDING = 1e-12
"""Relative margin for the few floating-point operations of the trade-off bound."""


@dataclass(frozen=True)
class Entry:
    """``count`` steps (epochs, for an epoch-level setting) of ``setting`` with ``mechanism``,
    each ``step`` (one step of them, or for :meth:`RunningAccountant.record` the step recorded,
    whose setting and mechanism are then ``None``)."""

    setting: Setting | None
    mechanism: Mechanism | None
    count: int
    step: Step

    @property
    def steps(self) -> int:
        """Steps (epochs, for an epoch-level setting) this entry stands for."""
        return self.count if self.setting is not None else self.count * self.step.count

    def to_json(self) -> dict:
        if self.setting is None:
            return {"setting": self.step.setting, "steps": self.steps}
        unit = "epochs" if self.setting.epoch_level else "steps"
        mechanism = required(self.mechanism, "the mechanism of an entry with a setting")
        return {"setting": self.setting.describe(), **describe(mechanism),
                unit: self.count}


class RunningAccountant:
    """The privacy of a run, stepped as it happens (the tight method's steps: each setting's
    exact worst case where it has one, else its sound relaxation, as
    :func:`~otbound.accounting.steps.subsampled_step` says), composed by ``accountant``
    (``best`` of RDP and PLD, or the one named) with ``conversion`` and ``discretisation`` as
    in :func:`~otbound.accounting.accountant.compose`.
    """

    def __init__(self, accountant: Accountant | str = Accountant.BEST, *,
                 conversion: Conversion | str = Conversion.OPTIMAL,
                 discretisation: float = DEFAULT_DISCRETISATION) -> None:
        from otbound.accounting.pld import check_discretisation

        self.accountant = as_choice(Accountant, accountant, "accountant")
        self.conversion = as_choice(Conversion, conversion, "conversion")
        check_discretisation(discretisation)
        self.discretisation = discretisation
        self._entries: list[Entry] = []
        self._composed: list[Step] = []        # the entries answered for, as steps
        self._templates: list[tuple[object, Mechanism, Step]] = []
        self._prefixes = Prefixes()
        self._answers: dict[tuple, Guarantee] = {}

    def step(self, setting, mechanism: Mechanism, count: int = 1) -> None:
        """Record ``count`` more steps (epochs, for an epoch-level setting) of ``setting`` with
        ``mechanism``."""
        _check_count(count)
        setting = as_setting(setting)
        self._append(Entry(setting, mechanism, count, self._template(setting, mechanism)))

    def record(self, step: Step, count: int = 1) -> None:
        """Record ``count`` times a step given by its dominating pairs (``step.count``
        repetitions each), such as one built from another library's description of a
        mechanism (:mod:`otbound.accounting.dp_events`). Recording the same object again
        between two questions repeats it."""
        _check_count(count)
        if not isinstance(step, Step):
            raise InvalidSpecification(f"step must be an otbound Step, got {type(step).__name__}",
                                       parameter="step")
        self._check_relation(step, lambda: str(step.setting))
        self._append(Entry(None, None, count, step))

    def _append(self, entry: Entry) -> None:
        """Add ``entry``, merged into the last one when that repeats the same step and has not
        been answered for."""
        last = self._entries[-1] if self._entries else None
        if (last is not None and len(self._entries) > len(self._composed)
                and last.step is entry.step):
            entry = replace(last, count=last.count + entry.count)
            self._entries[-1] = entry
        else:
            self._entries.append(entry)
        replace(entry.step, count=entry.count * entry.step.count)   # checks the count

    @property
    def history(self) -> tuple[Entry, ...]:
        """What was recorded, in order."""
        return tuple(self._entries)

    @property
    def steps(self) -> int:
        """Steps (epochs, for an epoch-level setting) recorded."""
        return sum(entry.steps for entry in self._entries)

    def as_steps(self) -> list[Step]:
        """The recorded run as the steps :func:`~otbound.accounting.accountant.compose` takes:
        composing them gives this accountant's answers."""
        for entry in self._entries[len(self._composed):]:
            self._composed.append(replace(entry.step, count=entry.count * entry.step.count))
        return list(self._composed)

    def guarantee(self, *, delta: float | None = None,
                  epsilon: float | None = None) -> Guarantee:
        """The run's ``(ε, δ)``: ε at ``delta`` or δ at ``epsilon`` (upper bounds)."""
        check_target(delta, epsilon)
        if not self._entries:
            raise InvalidSpecification("nothing to account yet: call step() first",
                                       parameter="steps")
        steps = self.as_steps()
        key = (len(steps), delta, epsilon)
        if key not in self._answers:
            self._answers[key] = compose(steps, self.accountant, delta=delta, epsilon=epsilon,
                                         conversion=self.conversion,
                                         discretisation=self.discretisation,
                                         prefixes=self._prefixes)
        return self._answers[key]

    def epsilon(self, delta: float) -> float:
        """ε of the run so far at ``delta``."""
        return self.guarantee(delta=delta).epsilon

    def delta(self, epsilon: float) -> float:
        """δ of the run so far at ``epsilon``."""
        return self.guarantee(epsilon=epsilon).delta

    def true_positive_rate(self, false_positive_rate: float,
                           epsilons: Sequence[float] = TPR_EPSILONS) -> float:
        """An upper bound on the true-positive rate of any membership test (any test telling
        the two datasets of a pair apart) at ``false_positive_rate`` α, from the run's
        ``(ε, δ(ε))`` at each of ``epsilons``: every one bounds the trade-off curve,
        ``TPR ≤ min(δ + e^ε α, 1 − e^{−ε}(1 − δ − α))`` (Kairouz et al. 2015; the trade-off
        f_{ε,δ} of Dong, Roth & Su 2022), so the least over them is a bound; rounded up."""
        alpha = float(false_positive_rate)
        if not 0 <= alpha <= 1:
            raise InvalidSpecification(f"false_positive_rate must be in [0, 1], got "
                                       f"{show(false_positive_rate)}",
                                       parameter="false_positive_rate")
        found = 1.0
        for epsilon in epsilons:
            delta = self.delta(float(epsilon))
            above = (delta + math.exp(epsilon) * alpha) * (1 + TRADE_OFF_ROUNDING)
            below = 1 - math.exp(-epsilon) * max(1 - delta - alpha, 0.0) * (1 - TRADE_OFF_ROUNDING)
            found = min(found, above, below)
        return max(found, alpha)    # a test's TPR can always reach its FPR: never below it

    def to_json(self, *, delta: float | None = None, epsilon: float | None = None) -> dict:
        """The history (settings, mechanisms, counts) and, at ``delta`` or ``epsilon``, the
        guarantee: what a training run records of what was accounted."""
        found: dict[str, object] = {
            "accountant": self.accountant.value, "conversion": self.conversion.value,
            "discretisation": self.discretisation,
            "history": [entry.to_json() for entry in self._entries]}
        if delta is not None or epsilon is not None:
            found["guarantee"] = self.guarantee(delta=delta, epsilon=epsilon).to_json()
        return found

    def _template(self, setting, mechanism: Mechanism) -> Step:
        """One step of ``setting`` with ``mechanism`` (built once; its repetitions share its
        cases, which the kept compositions are keyed by)."""
        for known, noise, template in self._templates:
            if known == setting and noise == mechanism:
                return template
        template = subsampled_step(setting, mechanism, 1)
        self._check_relation(template, setting.summary)
        self._templates.append((setting, mechanism, template))
        return template

    def _check_relation(self, step: Step, summary) -> None:
        """Refuse a step under another relation than the first one recorded."""
        first = self._entries[0].step if self._entries else None
        if first is not None and step.relation != first.relation:
            named = (self._entries[0].setting.summary() if self._entries[0].setting is not None
                     else str(first.setting))
            raise InvalidSpecification(
                f"steps of {summary()} are under another neighbouring relation than the steps "
                f"recorded ({named}): a run is accounted under one relation",
                parameter="setting")


def _check_count(count) -> None:
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidSpecification(f"count must be a positive integer, got {show(count)}",
                                   parameter="count")
