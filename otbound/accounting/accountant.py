"""The privacy of a training run: steps composed by an accountant, converted to (ε, δ).

Both accountants give sound upper bounds, and neither dominates the other: the PLD accountant is
close to exact for many steps at moderate ε, the RDP accountant (with the optimal conversion) wins
at tiny δ, for very many steps, or when the PLD grid would be too coarse or too large. ``best``
runs both and reports the smaller answer, with both results (or why one was unavailable).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable

from otbound.accounting import pld, rdp
from otbound.accounting.steps import Step
from otbound.choices import Accountant, Conversion
from otbound.errors import InvalidSpecification, UnsupportedOperation, as_choice
from otbound.numerics.limits import MAX_EPSILON, show


@dataclass(frozen=True)
class Guarantee:
    """``(ε, δ)``-DP after ``steps`` steps; ``accountant`` is the one whose answer this is, and
    ``details`` say how it was obtained."""

    epsilon: float
    delta: float
    steps: int
    accountant: Accountant
    details: dict = field(default_factory=dict)


def compose(steps: list[Step], accountant: Accountant = Accountant.BEST, *,
            delta: float | None = None, epsilon: float | None = None,
            conversion: Conversion = Conversion.OPTIMAL,
            discretisation: float = pld.DEFAULT_DISCRETISATION) -> Guarantee:
    """ε at the given δ, or δ at the given ε, after composing ``steps`` (upper bounds)."""
    check_target(delta, epsilon)
    accountant = as_choice(Accountant, accountant, "accountant")
    conversion = as_choice(Conversion, conversion, "conversion")
    _check_steps(steps)
    pld.check_discretisation(discretisation)
    if accountant is not Accountant.BEST:
        return _account_with(accountant, steps, delta, epsilon, conversion, discretisation)
    return best_guarantee({each.value: partial(_account_with, each, steps, delta, epsilon,
                                               conversion, discretisation)
                           for each in (Accountant.RDP, Accountant.PLD)}, delta)


def best_guarantee(attempts: dict[str, Callable[[], Guarantee]], delta: float | None,
                   what: str = "accountant") -> Guarantee:
    """The smallest of several sound answers (ε at ``delta``, else δ), with all of them (or why
    one was unavailable) in ``details["compared"]``, keyed by the names of ``attempts`` (each
    an ``accountant``, or ``what`` is said instead)."""
    results, skipped = {}, {}
    for name, attempt in attempts.items():
        try:
            results[name] = attempt()
        except UnsupportedOperation as error:
            skipped[name] = str(error)
    if not results:
        raise UnsupportedOperation(f"no {what} gives a guarantee: " + "; ".join(
            f"{name}: {reason}" for name, reason in skipped.items()))
    best = min(results.values(), key=lambda g: g.epsilon if delta is not None else g.delta)
    compared = {name: {"epsilon": g.epsilon, "delta": g.delta}
                | {k: v for k, v in g.details.items() if k == "at_floor"}
                for name, g in results.items()}
    compared |= {name: {"unavailable": reason} for name, reason in skipped.items()}
    return replace(best, details=best.details | {"compared": compared})


def _account_with(accountant: Accountant, steps: list[Step], delta: float | None,
                  epsilon: float | None, conversion: Conversion,
                  discretisation: float) -> Guarantee:
    total = sum(step.count for step in steps)
    composed = (pld.compose_plds(steps, discretisation) if accountant is Accountant.PLD
                else rdp.compose_rdp(steps))
    return finish_guarantee(accountant, composed, total, delta, epsilon, conversion,
                            discretisation)


def finish_guarantee(accountant: Accountant, composed, total: int, delta: float | None,
                     epsilon: float | None, conversion: Conversion = Conversion.OPTIMAL,
                     discretisation: float = pld.DEFAULT_DISCRETISATION) -> Guarantee:
    """ε at ``delta`` (or δ at ``epsilon``) of composed PLDs (one per case, the worst case is
    reported) or of a composed RDP curve (converted by ``conversion``)."""
    if accountant is Accountant.PLD:
        plds = composed
        if delta is not None:
            epsilon = pld.pld_epsilon(plds, delta)
            if not math.isfinite(epsilon):
                raise UnsupportedOperation(
                    f"the PLD accountant cannot certify δ = {show(delta)}: after composition "
                    f"more than that mass sits at infinite loss (tails of mass "
                    f"{pld.TRUNCATION:g} are cut per composition), or is within the "
                    "floating-point noise of the composition; use a larger delta or "
                    "accountant='rdp'")
        else:
            delta = min(pld.pld_delta(plds, epsilon), 1.0)   # δ ≤ 1 always holds
        details = {"discretisation": discretisation}
        if epsilon is not None and pld.at_floor(delta):
            details["at_floor"] = pld.RESOLUTION
    else:
        curve = composed
        converted = (rdp.rdp_epsilon(curve, delta, conversion) if delta is not None
                     else rdp.rdp_delta(curve, epsilon, conversion))
        epsilon, delta = converted.epsilon, min(converted.delta, 1.0)
        details = {"conversion": conversion.value, "order": converted.order}
        if not math.isfinite(epsilon):
            raise UnsupportedOperation(f"the RDP curve gives no finite ε at δ = {show(delta)}; "
                                       "accountant='pld' may")
    return Guarantee(float(epsilon), float(delta), total, accountant, details)


def _check_steps(steps: list[Step]) -> None:
    if (isinstance(steps, Step) or not isinstance(steps, (list, tuple)) or not steps
            or not all(isinstance(step, Step) for step in steps)):
        raise InvalidSpecification(
            "steps must be a non-empty list of Step (e.g. [subsampled_step(setting, mechanism, "
            f"count)]), got {steps!r:.80}", parameter="steps")


def check_target(delta: float | None, epsilon: float | None) -> None:
    if (delta is None) == (epsilon is None):
        raise InvalidSpecification("give exactly one of delta and epsilon", parameter="delta")
    if delta is not None and not 0 < delta < 1:
        raise InvalidSpecification(f"delta must be in (0, 1), got {show(delta)}",
                                   parameter="delta")
    if epsilon is not None and not (0 <= epsilon <= MAX_EPSILON):
        raise InvalidSpecification(
            f"epsilon must be in [0, {MAX_EPSILON:g}], got {show(epsilon)}", parameter="epsilon")
