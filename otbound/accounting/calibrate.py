"""Calibration: the smallest noise, or the largest number of steps or sampling rate, whose
accounted guarantee meets a target — ε ≤ ε* at δ, or δ ≤ δ* at ε.

The accounted ε (and δ) never decreases with the number of steps (composition) or the Poisson
rate (a smaller rate is a post-processing of a larger one's batches' privacy, and every bound
here is monotone in it), and never increases with the noise (σ, the Laplace scale). The search
steps from a start until it brackets the boundary (the first step sized by the start's gap,
then doubling or halving), then narrows the bracket by secant steps on a log scale where they
fall inside it, else regula falsi (Illinois rule; bisection where a trial has no number), to a
relative width of ``tolerance`` (a number of steps to the largest that meets it). Only values
whose accounting met the target are ever returned: the *safe* end of the final bracket, with the
guarantee accounted at exactly that value (the verification is the accounting itself, not an
interpolation). A value at which no
accountant gives an answer counts as not meeting the target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from otbound.accounting.accountant import Guarantee, compose
from otbound.accounting.steps import Step
from otbound.choices import (DEFAULT_DISCRETISATION, DEFAULT_TOLERANCE, Accountant,
                             Conversion)
from otbound.errors import InternalError, InvalidSpecification, UnsupportedOperation
from otbound.numerics.limits import MAX_STEPS, NOISE_MULTIPLIER, show

SOLVABLE = ("sigma", "scale", "steps", "rate")
"""The quantities a calibration can solve for."""


@dataclass(frozen=True)
class Calibration:
    """``solved_for`` = ``value`` meets the target; ``guarantee`` is its accounting at ``value``,
    and ``unsafe`` the nearest value tried that did not meet it (``None`` if there is none, e.g.
    a rate of 1 that meets the target)."""

    solved_for: str
    value: float
    guarantee: Guarantee
    unsafe: float | None
    evaluations: int


@dataclass(frozen=True)
class _Search:
    """How one quantity is searched: its start, its range, which way is safe, and roughly how
    the accounted value scales with it (``log measured`` against ``log value``: the first step
    from the start is sized by it)."""

    start: float
    low: float
    high: float
    safe_upwards: bool
    integer: bool = False
    slope: float = -1.0

    @property
    def doubling(self) -> float:
        """The bracketing step towards the safe side."""
        return 2.0 if self.safe_upwards else 0.5


def default_search(solved_for: str, sensitivity: float = 1.0) -> _Search:
    """Start and range of each quantity (noise in :data:`NOISE_MULTIPLIER` units of the
    sensitivity, steps up to :data:`MAX_STEPS`, rates in (1e-9, 1])."""
    if solved_for in ("sigma", "scale"):
        low, high = NOISE_MULTIPLIER
        return _Search(sensitivity, low * sensitivity, high * sensitivity, True)
    if solved_for == "steps":   # ε grows like √T
        return _Search(1, 1, MAX_STEPS, False, integer=True, slope=0.5)
    return _Search(1e-2, 1e-9, 1.0, False, slope=1.0)


def safe_value(measure: Callable[[float], Guarantee], solve_for: str, *,
              target_epsilon: float | None = None, target_delta: float | None = None,
              tolerance: float = DEFAULT_TOLERANCE, sensitivity: float = 1.0,
              progress: Callable[[str], None] | None = None) -> Calibration:
    """The safe value of ``solve_for`` ("sigma", "scale": the smallest; "steps", "rate": the
    largest) whose ``measure(value)`` has ``ε ≤ target_epsilon`` (or ``δ ≤ target_delta``).

    ``measure`` accounts the setting at a value (at the fixed δ, or ε, of the target)."""
    if solve_for not in SOLVABLE:
        raise InvalidSpecification(f"solve_for must be one of {', '.join(SOLVABLE)}, got "
                                   f"{solve_for!r}", parameter="solve_for")
    if (target_epsilon is None) == (target_delta is None):
        raise InvalidSpecification("give exactly one of target_epsilon and target_delta",
                                   parameter="target_epsilon")
    if not 1e-9 <= tolerance <= 0.1:
        raise InvalidSpecification(f"tolerance must be in [1e-9, 0.1], got {show(tolerance)}",
                                   parameter="tolerance")
    trial = _Trials(measure, target_epsilon, target_delta, progress, solve_for)
    return _solve(trial, default_search(solve_for, sensitivity), tolerance)


class _Trials:
    """The accounting at each value tried, and whether it met the target."""

    def __init__(self, measure, target_epsilon, target_delta, progress, solved_for) -> None:
        self.measure, self.progress, self.solved_for = measure, progress, solved_for
        self.target_epsilon, self.target_delta = target_epsilon, target_delta
        self.results: dict[float, Guarantee | str] = {}

    def met(self, value: float) -> bool:
        if value not in self.results:
            if self.progress:
                self.progress(f"[{len(self.results) + 1}] {self.solved_for} = {show(value)}")
            try:
                self.results[value] = self.measure(value)
            except UnsupportedOperation as error:
                self.results[value] = str(error)
        result = self.results[value]
        if isinstance(result, str):
            return False
        if self.target_epsilon is not None:
            return result.epsilon <= self.target_epsilon
        return result.delta <= self.target_delta

    def gap(self, value: float) -> float:
        """``log(measured / target)`` at a value tried (``nan`` where it has no number)."""
        result = self.results[value]
        if isinstance(result, str):
            return math.nan
        measured, target = ((result.epsilon, self.target_epsilon)
                            if self.target_epsilon is not None
                            else (result.delta, self.target_delta))
        return math.log(measured / target) if measured > 0 and target > 0 else math.nan

    def said(self, value: float) -> str:
        result = self.results[value]
        if isinstance(result, str):
            return f"no guarantee ({result})"
        if self.target_epsilon is not None:
            return f"ε = {result.epsilon:.6g} > {show(self.target_epsilon)}"
        return f"δ = {result.delta:.6g} > {show(self.target_delta)}"


def _solve(trials: _Trials, search: _Search, tolerance: float) -> Calibration:
    """Narrows the bracket by the secant through the last two trials' ``log(measured /
    target)`` against ``log value`` (the accounted ε or δ is smooth in the noise, steps and
    rate) where it falls inside the bracket, else by regula falsi with the Illinois rule — an
    end kept twice in a row counts half — so both ends converge; a trial without a number
    bisects. A trial is kept half the tolerance inside the bracket."""
    safe, unsafe = _bracket(trials, search)
    weight, moved = {True: 1.0, False: 1.0}, None
    while unsafe is not None and not _narrow(safe, unsafe, tolerance, search.integer):
        middle = _secant(trials, safe, unsafe) or _interpolated(trials, safe, unsafe,
                                                                weight[True], weight[False])
        # at least half the tolerance from either end: where the estimate is close, one of
        # the two outcomes closes the bracket (regula falsi alone creeps up on the root)
        gap = min(safe, unsafe) * tolerance / 2
        if abs(unsafe - safe) > 2 * gap:
            middle = min(max(middle, min(safe, unsafe) + gap), max(safe, unsafe) - gap)
        if search.integer:
            middle = min(max(round(middle), min(safe, unsafe) + 1), max(safe, unsafe) - 1)
        met = trials.met(middle)
        safe, unsafe = (middle, unsafe) if met else (safe, middle)
        weight[met], weight[not met] = 1.0, (weight[not met] / 2 if moved is met else 1.0)
        moved = met
    found = trials.results[safe]
    if not isinstance(found, Guarantee):   # a value that meets the target has its guarantee
        raise InternalError(f"{trials.solved_for} = {show(safe)} met the target without a "
                            f"guarantee: {found}")
    return Calibration(trials.solved_for, safe, found, unsafe, len(trials.results))


def _secant(trials: _Trials, safe: float, unsafe: float) -> float | None:
    """Where the line through the last two trials' ``log(measured / target)`` against
    ``log value`` crosses zero, if that is inside the bracket (superlinear where the accounting
    is smooth); ``None`` otherwise."""
    if len(trials.results) < 2:
        return None
    *_, before, last = trials.results
    gaps = trials.gap(before), trials.gap(last)
    if not all(math.isfinite(g) for g in gaps) or gaps[0] == gaps[1]:
        return None
    crossing = _log_between(before, last, -gaps[0] / (gaps[1] - gaps[0]))
    return crossing if min(safe, unsafe) < crossing < max(safe, unsafe) else None


def _interpolated(trials: _Trials, safe: float, unsafe: float, safe_weight: float,
                  unsafe_weight: float) -> float:
    """Where the line through the two ends' ``log(measured / target)`` (scaled by their
    Illinois weights) crosses zero, on a log scale, kept a thousandth of the bracket inside it;
    the geometric middle where an end has no finite gap."""
    gaps = trials.gap(safe) * safe_weight, trials.gap(unsafe) * unsafe_weight
    if not all(math.isfinite(g) for g in gaps) or not gaps[0] <= 0 < gaps[1]:
        return math.sqrt(safe * unsafe)
    share = min(max(-gaps[0] / (gaps[1] - gaps[0]), 1e-3), 1 - 1e-3)
    return _log_between(safe, unsafe, share)


def _log_between(start: float, end: float, share: float) -> float:
    """The point ``share`` of the way from ``start`` to ``end`` on a log scale."""
    low = math.log(start)
    return math.exp(low + (math.log(end) - low) * share)


def _narrow(safe: float, unsafe: float | None, tolerance: float, integer: bool) -> bool:
    if unsafe is None:
        return True
    if integer:   # the largest number of steps, not one within the tolerance of it
        return abs(unsafe - safe) <= 1
    return max(safe, unsafe) <= min(safe, unsafe) * (1 + tolerance)


def _bracket(trials: _Trials, search: _Search) -> tuple[float, float | None]:
    """A safe value and an unsafe one (or None when the safe one is the end of the range).
    The first step is sized by the start's gap and the search's slope (:func:`_first_factor`),
    so that it usually brackets the boundary closely; each further one likewise by its own
    gap, but by at least a factor 2 (:func:`_onward_factor`): far from the boundary (σ = 1e6
    for ε = 1e-6) that takes a few trials, not twenty doublings."""
    flag = f"--{trials.solved_for}"
    value = search.start
    met = trials.met(value)
    factor = _first_factor(trials.gap(value), search)
    if met:
        while True:   # towards the unsafe side
            step = _clamp(value / factor, search)
            if step == value:
                if trials.solved_for == "rate":
                    return value, None
                raise UnsupportedOperation(
                    f"the target is met even at {flag} {show(value)}, the end of the range "
                    f"otbound searches ({show(search.low)} to {show(search.high)})")
            if not trials.met(step):
                return value, step
            value, factor = step, _onward_factor(trials.gap(step), search)
    while True:   # towards the safe side
        step = _clamp(value * factor, search)
        if step == value:
            raise UnsupportedOperation(
                f"the target cannot be met: even {flag} {show(value)} (the end of the range "
                f"otbound searches) gives {trials.said(value)}")
        if trials.met(step):
            return step, value
        value, factor = step, _onward_factor(trials.gap(step), search)


def _first_factor(gap: float, search: _Search) -> float:
    """The factor (towards the safe side) that would close ``gap`` = ``log(measured /
    target)`` if the accounted value scaled with the search's slope, 10 % past it; between
    1.01 (2 for integers) and 16; 2 where the gap is unknown."""
    if not math.isfinite(gap) or gap == 0:
        return search.doubling
    smallest = math.log(2 if search.integer else 1.01)
    size = min(max(1.1 * abs(gap / search.slope), smallest), math.log(16))
    return math.exp(size if search.safe_upwards else -size)


def _onward_factor(gap: float, search: _Search) -> float:
    """A further bracketing step: :func:`_first_factor`'s, where it is larger than doubling."""
    factor = _first_factor(gap, search)
    return max(factor, search.doubling) if search.safe_upwards else min(factor, search.doubling)


def _clamp(value: float, search: _Search) -> float:
    value = min(max(value, search.low), search.high)
    return int(round(value)) if search.integer else value


def calibrate_steps(make_steps: Callable[[float], list[Step]], solve_for: str, *,
                    target_epsilon: float | None = None, delta: float | None = None,
                    target_delta: float | None = None, epsilon: float | None = None,
                    accountant: Accountant | str = Accountant.BEST,
                    conversion: Conversion | str = Conversion.OPTIMAL,
                    discretisation: float = DEFAULT_DISCRETISATION,
                    tolerance: float = DEFAULT_TOLERANCE,
                    sensitivity: float = 1.0) -> Calibration:
    """:func:`safe_value` with :func:`~otbound.accounting.accountant.compose` of
    ``make_steps(value)``: e.g. ``calibrate_steps(lambda s: [subsampled_step(setting,
    gaussian(s), 1000)], "sigma", target_epsilon=2, delta=1e-6)``."""
    if (target_epsilon is None) != (delta is None) or (target_delta is None) != (epsilon is None):
        raise InvalidSpecification("give target_epsilon with delta, or target_delta with "
                                   "epsilon", parameter="target_epsilon")

    def measure(value: float) -> Guarantee:
        return compose(make_steps(value), accountant, delta=delta, epsilon=epsilon,
                       conversion=conversion, discretisation=discretisation)

    return safe_value(measure, solve_for, target_epsilon=target_epsilon,
                     target_delta=target_delta, tolerance=tolerance, sensitivity=sensitivity)
