"""Measures of privacy losses in ball arithmetic: the certified counterpart of a pessimistic or
optimistic PLD, for :mod:`otbound.numerics.certified_allocation`.

A :class:`LossMeasure` holds the masses of ``P`` at the losses ``i·Δ`` and at ``+∞``, each an
exact arb bounding the true mass from above (an upper measure) or below (a lower one). δ(ε) and
every composition are monotone in each mass and each loss, so an upper measure's δ bounds the
pair's from above after any number of compositions, and a lower measure's from below; both are
composed by exact polynomial products (python-flint's ``arb_poly``) and read in arb, each
answer rounded to a double the safe way.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from otbound.errors import required
from otbound.numerics.certified_rounding import double_above, double_below

if TYPE_CHECKING:
    from flint import arb

WORKING_BITS = 96
"""Working precision (bits) of every ball."""
MEASURE_TAIL = 1e-30
"""Mass cut at either end of a measure: the lowest losses lifted and the highest moved to
infinity (upper), or both dropped (lower)."""


@contextlib.contextmanager
def working_precision() -> Iterator[object]:
    """Within this block arb works at :data:`WORKING_BITS` (and the series length set inside
    is restored after)."""
    import flint

    saved = flint.ctx.prec, flint.ctx.cap
    flint.ctx.prec = WORKING_BITS
    try:
        yield flint
    finally:
        flint.ctx.prec, flint.ctx.cap = saved


@dataclass(frozen=True)
class LossMeasure:
    """Masses of ``P`` at the privacy losses ``i·Δ`` (``i = low, low + 1, …``) and at ``+∞``,
    each an exact arb bounding the true mass from above (``upper``) or below."""

    discretisation: float
    low: int
    masses: tuple
    infinity: arb
    upper: bool

    @staticmethod
    def of(masses: list, low: int, infinity, discretisation: float,
           upper: bool) -> "LossMeasure":
        """Balls' ends taken the measure's way and both ends cut, at most
        :data:`MEASURE_TAIL` of mass each: the lowest losses lifted to the first loss kept and
        the highest moved to infinity (upper), or both dropped (lower)."""
        from flint import arb

        ends = [ball_end(x, upper) for x in masses]
        first, last = _tail_count(ends), len(ends) - _tail_count(ends[::-1])
        if first >= last:
            first, last = 0, len(ends)
        if upper:
            ends[first] = ball_end(sum(ends[:first + 1], arb(0)), True)
            infinity = infinity + sum(ends[last:], arb(0))
        return LossMeasure(discretisation, low + first, tuple(ends[first:last]),
                           ball_end(infinity, upper), upper)

    def compose(self, other: "LossMeasure") -> "LossMeasure":
        """The measure of the two pairs composed: masses convolved, losses added; the mass at
        infinity ``(F + ι)(F' + ι') − F F'`` with ``F`` the finite masses' totals."""
        from flint import arb, arb_poly

        with working_precision():
            product = (arb_poly(list(self.masses)) * arb_poly(list(other.masses))).coeffs()
            finite, other_finite = sum(self.masses, arb(0)), sum(other.masses, arb(0))
            infinity = ((finite + self.infinity) * (other_finite + other.infinity)
                        - finite * other_finite)
            return LossMeasure.of(product, self.low + other.low, infinity,
                                  self.discretisation, self.upper)

    def power(self, count: int) -> "LossMeasure":
        """``count`` copies composed (by doubling)."""
        found, square = None, self
        while count:
            if count & 1:
                found = square if found is None else found.compose(square)
            count >>= 1
            if count:
                square = square.compose(square)
        return required(found, "a power of at least one copy")

    def delta(self, epsilon: float) -> float:
        """``δ(ε) = Σ_{iΔ > ε} m_i (1 − e^{ε − iΔ}) + m_∞``, rounded up for an upper measure,
        down for a lower one (a term whose sign the balls leave open counts in the upper's
        sum only, at its upper end)."""
        from flint import arb

        with working_precision():
            found, step, at = self.infinity, arb(self.discretisation), arb(epsilon)
            for i, mass in enumerate(self.masses):
                gap = (self.low + i) * step - at
                if gap > 0 or (self.upper and not gap <= 0):
                    term = mass * -(-gap).expm1()
                    found += ball_end(term, True) if self.upper else term
            return _double(found, self.upper)

    def epsilon(self, delta: float) -> float:
        """The smallest ε whose δ is at most ``delta`` (upper: rounded up; ``inf`` where the
        mass at infinity is not below ``delta``), or the ε below which δ exceeds ``delta``
        (lower: rounded down); at least 0."""
        from flint import arb

        with working_precision():
            if self.upper and not self.infinity < delta:
                return math.inf
            step, target, size = arb(self.discretisation), arb(delta), len(self.masses)
            # suffix sums A_i = Σ_{i' ≥ i} m_i' and W_i = Σ_{i' ≥ i} m_i' e^{−i'Δ}: for ε in
            # ((low + i − 1)Δ, (low + i)Δ], δ(ε) = A_i − e^{ε − lowΔ} W_i + m_∞
            totals, weighted = [arb(0)] * (size + 1), [arb(0)] * (size + 1)
            factor, grow = (-step).exp() ** (size - 1), step.exp()
            for i in range(size - 1, -1, -1):
                totals[i] = totals[i + 1] + self.masses[i]
                weighted[i] = weighted[i + 1] + self.masses[i] * factor
                factor *= grow
            base = self.low * step

            def at_most(i: int) -> bool:
                """δ at ε = (low + i)Δ is at most the target: certainly (upper), or possibly
                (lower)."""
                value = totals[i + 1] - (i * step).exp() * weighted[i + 1] + self.infinity
                return bool(value <= target) if self.upper else not value > target

            first, last = -1, size - 1   # δ above the target at ``first`` (or none), not at last
            if not at_most(last):
                return math.inf if self.upper else max(double_below(base + last * step), 0.0)
            while last - first > 1:
                middle = (first + last) // 2
                first, last = (first, middle) if at_most(middle) else (middle, last)
            # on ((low + last − 1)Δ, (low + last)Δ]: δ = A_last − e^{ε − lowΔ} W_last + m_∞
            excess = totals[last] + self.infinity - target
            solved = base + (excess / weighted[last]).log() if excess > 0 else None
            if self.upper:
                top = base + last * step
                found = double_above(solved) if solved is not None and solved < top \
                    else double_above(top)
            elif solved is not None:   # the crossing; past ``first``, where δ was above
                found = double_below(solved)
                if last > 0:
                    found = max(found, double_below(base + (last - 1) * step))
            else:
                found = double_below(base + (last - 1) * step) if last > 0 else 0.0
            return max(found, 0.0)


def _tail_count(masses: list) -> int:
    """How many of the first masses hold at most :data:`MEASURE_TAIL` together."""
    count, total = 0, 0.0
    for mass in masses:
        total += float(mass)
        if total > MEASURE_TAIL:
            break
        count += 1
    return count


def ball_end(x, upper: bool):
    """The ball's upper end, or its lower end at least 0."""
    from flint import arb

    return x.upper() if upper else max(x.lower(), arb(0))


def _double(x, upper: bool) -> float:
    return double_above(x) if upper else max(double_below(x), 0.0)


def loss_index(loss, discretisation: float, up: bool) -> int:
    """The grid index at or above (``up``) or at or below the ball ``loss``, certainly."""
    from flint import arb

    scaled = loss / arb(discretisation)
    index = math.ceil(float(scaled.upper())) if up else math.floor(float(scaled.lower()))
    while not (arb(index) >= scaled if up else arb(index) <= scaled):
        index += 1 if up else -1
    return index


def measure_of(pieces: dict, infinity, discretisation: float, upper: bool) -> LossMeasure:
    """A :class:`LossMeasure` from ``{index: [masses]}``."""
    from flint import arb

    low, high = min(pieces), max(pieces)
    masses = [sum(pieces.get(i, ()), arb(0)) for i in range(low, high + 1)]
    return LossMeasure.of(masses, low, infinity, discretisation, upper)
