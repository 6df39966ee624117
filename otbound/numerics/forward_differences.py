"""Forward differences of a mechanism's Rényi moments, for Wang et al. 2019 Thm. 27.

``B(l) = Σ_{i=0}^{l} C(l, i) (−1)^{l−i} Ψ_i`` with ``Ψ_i = e^{(i−1)ε(i)}`` is the ``l``-th
forward difference of the moments at 0; for even ``l`` and a mechanism with one worst-case pair
of neighbours at every order whose divergence is its RDP curve (the Gaussian), it is the
Pearson–Vajda ``χ^l`` divergence of that pair (Wang, Balle & Kasiviswanathan 2019, App. B.5).
The alternating sum cancels badly, so it is enclosed in ball arithmetic.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable

import numpy as np

MARGIN_BITS = 128


@lru_cache(maxsize=16)
def _float_moments(log_moment_ball: Callable, size: int) -> np.ndarray:
    """The moments' midpoints ``(i − 1)ε(i)`` for ``i < size``, and ``log i!``: two rows."""
    moments = [float(log_moment_ball(i).mid()) for i in range(size)]
    factorials = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, size)))])
    return np.array([moments, factorials])


@lru_cache(maxsize=4096)
def can_win(log_moment_ball: Callable, order: int) -> bool:
    """Whether ``B(l)`` may be below half its last term (otherwise ``4 √(B(l−1) B(l+1))``
    cannot beat Thm. 9's ``2 Ψ_l`` and the enclosure is not worth computing); a float
    estimate, used only to skip work (the moments are computed once per power of two of
    orders, so that every even order up to 10⁴ costs milliseconds, not minutes)."""
    moments, factorials = _float_moments(log_moment_ball, 1 << order.bit_length())
    i = np.arange(order)
    rest = (factorials[order] - factorials[i] - factorials[order - i]
            + moments[i] - moments[order])
    return float(np.exp(rest[rest > -745]).sum()) >= 0.5


@lru_cache(maxsize=4096)
def log_forward_difference(log_moment_ball: Callable, order: int) -> float:
    """An upper bound on ``log B(order)`` (``inf`` where the enclosure of ``B`` is not
    positive, so that no bound is claimed); ``log_moment_ball(i)`` encloses ``(i − 1)ε(i)``
    exactly and must be hashable."""
    from flint import arb, ctx

    top = float(log_moment_ball(order).upper())
    bits = int((top + order * math.log(2)) / math.log(2)) + MARGIN_BITS
    with ctx.workprec(bits):
        total = arb(0)
        for i in range(order + 1):
            sign = 1 if (order - i) % 2 == 0 else -1
            total += sign * arb(math.comb(order, i)) * log_moment_ball(i).exp()
        if not total > 0:
            return math.inf
        return math.nextafter(float(total.log().upper()), math.inf)
