"""Numbers that carry their error, and the safe rounding direction (upwards).

Every number otbound reports is an upper bound: the computed estimate moved up by its error
estimate and one more unit in the last place. A computed value is never reported as exactly zero —
a positive truth below the smallest double becomes the smallest positive double, which is still an
upper bound — unless the zero is structural (the two distributions are identical, or ``e^ε`` is
above the largest likelihood ratio); such zeros are built with :func:`exact_zero`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

import numpy as np

from otbound.errors import UnsupportedOperation

EPS = 2.0 ** -52
"""Machine epsilon of doubles: the relative spacing of floating-point numbers near one."""
SMALLEST = math.nextafter(0.0, 1.0)
"""The smallest positive double (5e-324): the upper bound reported for a positive underflow."""


@dataclass(frozen=True, slots=True)
class NumericBound:
    """An upper bound: ``value`` already includes the estimated error ``error`` (≥ 0).

    The underlying estimate is ``value − error``; reporting ``value`` is the safe direction for
    ε and δ.
    """

    value: float
    error: float
    source: str = ""
    """Which of the sound bounds this value is, where several were compared (else empty)."""

    @staticmethod
    def rounded_up(estimate: float, error: float) -> "NumericBound":
        """The estimate moved up by its error and by one more unit in the last place.

        A negative estimate of a non-negative quantity is raised to zero first (the error still
        applies), so the result is never below zero and never exactly zero.
        """
        if math.isnan(estimate) or math.isnan(error) or error < 0 or error == math.inf:
            raise UnsupportedOperation(
                f"no reliable number: estimate {estimate} with error estimate {error}")
        if estimate == math.inf:
            return NumericBound(math.inf, 0.0)
        estimate = max(estimate, 0.0)
        return NumericBound(math.nextafter(estimate + error, math.inf), error)


def exact_zero() -> NumericBound:
    """A value known to be exactly zero (e.g. a hockey-stick divergence above sup P/Q)."""
    return NumericBound(0.0, 0.0)


@dataclass(frozen=True, eq=False)
class Bounds:
    """Arrays of upper bounds and of the estimates they were rounded up from."""

    upper: np.ndarray
    estimate: np.ndarray
    sources: np.ndarray | None = None
    """The name of the bound each entry is (where known): kept by :func:`minimum` and
    :func:`maximum`, so that the best of several sound bounds says which one it is."""

    @staticmethod
    def rounded_up(estimates: np.ndarray, errors: np.ndarray) -> "Bounds":
        """:meth:`NumericBound.rounded_up` of every entry, at once."""
        estimates, errors = np.asarray(estimates, float), np.asarray(errors, float)
        unreliable = np.flatnonzero(np.isnan(estimates) | np.isnan(errors) | (errors < 0)
                                    | (errors == math.inf))
        if unreliable.size:
            bad = unreliable[0]
            NumericBound.rounded_up(float(estimates[bad]), float(errors[bad]))   # raises
        infinite = estimates == math.inf
        errors = np.where(infinite, 0.0, errors)
        upper = np.where(infinite, math.inf,
                         np.nextafter(np.maximum(estimates, 0.0) + errors, math.inf))
        return Bounds(upper, upper - errors)

    @staticmethod
    def of(bounds: list[NumericBound]) -> "Bounds":
        upper = np.array([b.value for b in bounds])
        return Bounds(upper, upper - np.array([b.error for b in bounds]))

    def named(self, source: str) -> "Bounds":
        """The same bounds, every entry named ``source``."""
        return Bounds(self.upper, self.estimate, np.full(np.shape(self.upper), source, object))

    def as_list(self) -> list[NumericBound]:
        """One :class:`NumericBound` per entry (the error is ``upper − estimate``)."""
        sources = self.sources if self.sources is not None else [""] * len(self.upper)
        return [NumericBound(float(u), float(max(u - e, 0.0)), str(source))
                for u, e, source in zip(self.upper, self.estimate, sources)]

    def __getitem__(self, index) -> "Bounds":
        return Bounds(self.upper[index], self.estimate[index],
                      None if self.sources is None else self.sources[index])


def maximum(bounds: list[Bounds]) -> Bounds:
    """The elementwise maximum of upper bounds and of estimates (named by the largest)."""
    uppers = np.array([b.upper for b in bounds])
    return Bounds(np.max(uppers, axis=0), np.max([b.estimate for b in bounds], axis=0),
                  _chosen(bounds, np.argmax(uppers, axis=0)))


def minimum(bounds: list[Bounds]) -> Bounds:
    """The elementwise best (smallest) of several valid upper bounds, with its own estimate
    and name."""
    uppers = np.array([b.upper for b in bounds])
    best = np.argmin(uppers, axis=0)
    columns = np.arange(uppers.shape[1])
    return Bounds(uppers[best, columns], np.array([b.estimate for b in bounds])[best, columns],
                  _chosen(bounds, best))


def _chosen(bounds: list[Bounds], rows: np.ndarray) -> np.ndarray | None:
    """The name of the chosen bound at every entry (``None`` unless every bound is named)."""
    if any(b.sources is None for b in bounds):
        return None
    return np.array([b.sources for b in bounds], dtype=object)[rows, np.arange(rows.size)]


TEXT_DIGITS = 8
"""Significant digits of every bound printed as text (JSON carries the full double)."""


def upper_text(value: float, digits: int = TEXT_DIGITS, rounding: str = ROUND_CEILING) -> str:
    """``value`` with ``digits`` significant digits, rounded up (``rounding``): printed bounds
    stay bounds."""
    if value == 0 or not math.isfinite(value):
        return repr(float(value))
    exact = Decimal(value)
    rounded = exact.quantize(Decimal(1).scaleb(exact.adjusted() - digits + 1),
                             rounding=rounding)
    adjusted = rounded.adjusted()   # a carry (9.99… → 10.0…) may have moved it
    if -5 <= adjusted < digits:
        return f"{rounded:.{max(digits - 1 - adjusted, 0)}f}"
    return f"{rounded:.{digits - 1}e}"


def lower_text(value: float, digits: int = TEXT_DIGITS) -> str:
    """``value`` with ``digits`` significant digits, rounded down (a largest safe rate)."""
    return upper_text(value, digits, ROUND_FLOOR)
