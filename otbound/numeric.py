"""Numbers that carry their error, and the safe rounding direction (upwards)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from otbound.errors import UnsupportedOperation


@dataclass(frozen=True, slots=True)
class NumericBound:
    """An upper bound: ``value`` already includes the estimated error ``error`` (≥ 0).

    The underlying estimate is ``value − error``; reporting ``value`` is the safe direction for
    ε and δ.
    """

    value: float
    error: float

    @staticmethod
    def rounded_up(estimate: float, error: float) -> "NumericBound":
        """The estimate moved up by its error and by one more unit in the last place."""
        if math.isnan(estimate) or math.isnan(error) or error < 0 or error == math.inf:
            raise UnsupportedOperation(
                f"no reliable number: estimate {estimate} with error estimate {error}")
        if estimate == math.inf:
            return NumericBound(math.inf, 0.0)
        if error == 0 and estimate == 0:
            return NumericBound(0.0, 0.0)
        return NumericBound(math.nextafter(estimate + error, math.inf), error)


def exact_zero() -> NumericBound:
    """A value known to be exactly zero (e.g. a hockey-stick divergence above sup P/Q)."""
    return NumericBound(0.0, 0.0)
