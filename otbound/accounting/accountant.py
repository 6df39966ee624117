"""The privacy of a training run: steps composed by one accountant, converted to (ε, δ)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

from otbound.accounting import pld, rdp
from otbound.accounting.conversion import Conversion
from otbound.accounting.steps import Step
from otbound.errors import InvalidSpecification, UnsupportedOperation


class Accountant(Enum):
    RDP = "rdp"
    PLD = "pld"


@dataclass(frozen=True)
class Guarantee:
    """``(ε, δ)``-DP after ``steps`` steps; ``details`` say how it was obtained."""

    epsilon: float
    delta: float
    steps: int
    accountant: Accountant
    details: dict = field(default_factory=dict)


def account(steps: list[Step], accountant: Accountant, *, delta: float | None = None,
            epsilon: float | None = None, conversion: Conversion = Conversion.OPTIMAL,
            discretisation: float = pld.DISCRETISATION) -> Guarantee:
    """ε at the given δ, or δ at the given ε, after composing ``steps`` (upper bounds)."""
    _check_target(delta, epsilon)
    total = sum(step.count for step in steps)
    if accountant is Accountant.PLD:
        plds = pld.compose(steps, discretisation)
        if delta is not None:
            epsilon = pld.epsilon_for_delta(plds, delta)
        else:
            delta = pld.delta_for_epsilon(plds, epsilon)
        details = {"discretisation": discretisation}
    else:
        curve = rdp.compose(steps)
        converted = (rdp.epsilon_for_delta(curve, delta, conversion) if delta is not None
                     else rdp.delta_for_epsilon(curve, epsilon, conversion))
        epsilon, delta = converted.epsilon, converted.delta
        details = {"conversion": conversion.value, "order": converted.order}
    if not (math.isfinite(epsilon) and 0 <= delta <= 1):
        raise UnsupportedOperation(
            f"no finite guarantee: ε = {epsilon}, δ = {delta} after {total} steps")
    return Guarantee(float(epsilon), float(delta), total, accountant, details)


def _check_target(delta: float | None, epsilon: float | None) -> None:
    if (delta is None) == (epsilon is None):
        raise InvalidSpecification("give exactly one of --delta and --epsilon")
    if delta is not None and not 0 < delta < 1:
        raise InvalidSpecification(f"--delta must be in (0, 1), got {delta}")
    if epsilon is not None and not (0 <= epsilon < math.inf):
        raise InvalidSpecification(f"--epsilon must be a finite number >= 0, got {epsilon}")
