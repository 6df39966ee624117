"""Composed steps that are each one shift of a rotation-invariant noise (the Gaussian without
subsampling), answered exactly.

Steps whose pairs are ``D(g_t)`` against ``D(0)`` for a rotation-invariant product noise compose
to ``D(g)`` against ``D(0)`` in ``T`` dimensions, which a rotation takes to one axis: the shift
``μ = √(Σ_t g_t²)`` (for the Gaussian: Dong, Roth & Su 2022, Cor. 3.3). Its privacy profile is
the family's closed form (:meth:`~otbound.numerics.noise.NoiseFamily.shift_delta_ball`; the
Gaussian's is Balle & Wang 2018, Thm. 8), for every real ε. It is evaluated in ball arithmetic
(python-flint's arb) and the ball's upper end rounded up, so neither the PLD's discretisation
(1e-5 to 2e-4 relative over 10⁴ steps) nor its truncated tails (a floor near 1e-14) enter it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from otbound.accounting.steps import Step
from otbound.errors import Refusal
from otbound.numerics.certified_rounding import double_above
from otbound.numerics.noise import NoiseFamily
from otbound.numerics.pairs import MixturePair

PRECISION = 256
"""Bits of the ball arithmetic (the two terms of δ(ε) cancel by up to ``e^ε``'s digits)."""
BISECTIONS = 200
"""Halvings of the ε bracket (far more than a double's 52 bits need)."""


@dataclass(frozen=True)
class Shift:
    """The composition: ``D(μ)`` against ``D(0)`` of ``family`` in scale units."""

    family: NoiseFamily
    mu: float

    def delta(self, epsilon: float) -> float:
        """``δ(ε)`` rounded up to a double (the smallest positive double where it is positive
        but smaller; at most 1)."""
        if self.mu == 0:
            return max(-math.expm1(epsilon), 0.0)
        from flint import arb, ctx

        with ctx.workprec(PRECISION):
            ball = self.family.shift_delta_ball(arb(self.mu), arb(epsilon))
        return min(max(double_above(ball), math.nextafter(0.0, 1.0)), 1.0)   # δ > 0 for μ > 0

    def epsilon(self, target: float) -> float | Refusal:
        """The smallest ε ≥ 0, rounded up, with ``δ(ε) ≤ target`` (δ decreases in ε), or a
        refusal where no ε up to 1e6 has it."""
        if self.delta(0.0) <= target:
            return 0.0
        reach = self.mu ** 2 / 2 + self.mu * math.sqrt(2 * math.log(1 / target))
        low, high = 0.0, max(1.0, reach)
        while self.delta(high) > target:
            low, high = high, 2 * high
            if high > 1e6:
                return Refusal(f"no ε gives δ = {target:g} for μ = {self.mu:g}")
        for _ in range(BISECTIONS):
            middle = (low + high) / 2
            if middle in (low, high):
                break
            low, high = (low, middle) if self.delta(middle) <= target else (middle, high)
        return high


def composed_shift(steps: list[Step]) -> Shift | None:
    """The worst case's :class:`Shift`, ``μ`` rounded up (δ grows with μ), where every step in
    every case is one pair ``D(a, s)`` against ``D(b, s)`` of one rotation-invariant family with
    a closed-form profile (``g_t = |a − b|/s``); ``None`` otherwise."""
    totals, families = None, set()
    for step in steps:
        shifts = [_case_shift(case) for case in step.cases]
        if None in shifts:
            return None
        families |= {family for family, _ in shifts}
        squares = [step.count * gap ** 2 for _, gap in shifts]
        totals = squares if totals is None else [t + s for t, s in zip(totals, squares)]
    if not totals or len(families) != 1:
        return None
    return Shift(families.pop(), max(double_above(total.sqrt()) for total in totals))


def _case_shift(case):
    """``(family, |a − b|/s as an arb ball)`` of a case that is one such pair; else ``None``."""
    if len(case) != 1 or case[0][0] != 0.0 or len(case[0][1]) != 1:
        return None
    pair = case[0][1][0]
    if (not isinstance(pair, MixturePair) or not pair.family.rotation_invariant
            or type(pair.family).shift_delta_ball is NoiseFamily.shift_delta_ball
            or pair.p_means.size != 1 or pair.q_means.size != 1):
        return None
    from flint import arb

    gap = abs(arb(float(pair.p_means[0])) - arb(float(pair.q_means[0]))) / arb(pair.scale)
    return pair.family, gap
