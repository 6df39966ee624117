"""Composed Gaussian steps that are each one Gaussian shift (no subsampling), answered exactly.

The composition of Gaussian mechanisms whose sensitivity-to-noise ratios are ``μ_t`` is the
Gaussian mechanism with ``μ = √(Σ_t μ_t²)`` (Dong, Roth & Su 2022, Cor. 3.3: the pair
``N(μ_t, 1)`` against ``N(0, 1)`` per step, rotated to one axis), whose privacy profile is

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)        (Balle & Wang 2018, Thm. 8),

for every real ε. otbound evaluates it in ball arithmetic (python-flint's arb) and rounds the
ball's upper end up, so neither the PLD's discretisation (1e-5 to 2e-4 relative over 10⁴ steps)
nor its truncated tails (a floor near 1e-14) enter the answer.
"""

from __future__ import annotations

import math

from otbound.accounting.steps import Step
from otbound.errors import UnsupportedOperation
from otbound.numerics.certified import double_above
from otbound.numerics.families import GAUSSIAN
from otbound.numerics.pairs import MixturePair

PRECISION = 256
"""Bits of the ball arithmetic (the two terms of δ(ε) cancel by up to ``e^ε``'s digits)."""
BISECTIONS = 200
"""Halvings of the ε bracket (far more than a double's 52 bits need)."""


def shift_ratio(steps: list[Step]) -> float | None:
    """``μ = √(Σ count · μ_t²)`` of the worst case, rounded up, where every step in every case
    is one Gaussian pair ``N(a, s²)`` against ``N(b, s²)`` (``μ_t = |a − b|/s``); ``None``
    otherwise. δ(ε) grows with μ, so the rounding is the safe way."""
    totals = None
    for step in steps:
        ratios = [_case_ratio(case) for case in step.cases]
        if None in ratios:
            return None
        squares = [step.count * ratio ** 2 for ratio in ratios]
        totals = squares if totals is None else [t + s for t, s in zip(totals, squares)]
    if not totals:
        return None
    return max(double_above(total.sqrt()) for total in totals)


def _case_ratio(case):
    """``|a − b|/s`` of a case that is one Gaussian pair, as an arb ball; ``None`` otherwise."""
    if len(case) != 1 or case[0][0] != 0.0 or len(case[0][1]) != 1:
        return None
    pair = case[0][1][0]
    if (not isinstance(pair, MixturePair) or pair.family is not GAUSSIAN
            or pair.p_means.size != 1 or pair.q_means.size != 1):
        return None
    from flint import arb

    return abs(arb(float(pair.p_means[0])) - arb(float(pair.q_means[0]))) / arb(pair.scale)


def _delta_ball(mu: float, epsilon: float):
    from flint import arb, ctx

    old, ctx.prec = ctx.prec, PRECISION
    try:
        m, e, root2 = arb(mu), arb(epsilon), arb(2).sqrt()

        def phi(x):
            return (-x / root2).erfc() / 2

        return phi(m / 2 - e / m) - e.exp() * phi(-m / 2 - e / m)
    finally:
        ctx.prec = old


def gaussian_delta(mu: float, epsilon: float) -> float:
    """``δ(ε)`` rounded up to a double (the smallest positive double where it is positive but
    smaller; at most 1)."""
    if mu == 0:
        return max(-math.expm1(epsilon), 0.0)
    value = double_above(_delta_ball(mu, epsilon))
    return min(max(value, math.nextafter(0.0, 1.0)), 1.0)   # δ > 0 for μ > 0


def gaussian_epsilon(mu: float, target: float) -> float:
    """The smallest ε ≥ 0, rounded up, with ``δ(ε) ≤ target`` (δ decreases in ε)."""
    if gaussian_delta(mu, 0.0) <= target:
        return 0.0
    low, high = 0.0, max(1.0, mu * mu / 2 + mu * math.sqrt(2 * math.log(1 / target)))
    while gaussian_delta(mu, high) > target:
        low, high = high, 2 * high
        if high > 1e6:
            raise UnsupportedOperation(f"no ε gives δ = {target:g} for μ = {mu:g}")
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        low, high = (low, middle) if gaussian_delta(mu, middle) <= target else (middle, high)
    return high
