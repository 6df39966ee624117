"""A rigorous enclosure of the hockey-stick divergence ``δ(ε)`` of a dominating pair in ball
arithmetic (python-flint's arb, issue 14 item 1; the fast path is
:mod:`otbound.numerics.hockey_stick`).

``δ = ∫ (p − γ q)_+`` with ``γ = e^ε``. ``[A, B]`` is bisected until the sign of
``p − γ q`` is certified on each piece by interval evaluation; on a positive piece the integral is
the closed form ``Σ w_i (F_i(b) − F_i(a)) − γ Σ v_j (G_j(b) − G_j(a))`` (normal or Laplace
distribution functions), a negative piece adds nothing, and a piece left uncertain (at a root)
adds between ``max(0, ∫ (p − γ q))`` and ``min(∫ p, width · sup (p − γ q)_+)``. Gaussian tails
add between ``max(0, ∫ (p − γ q))`` and ``∫ p``; Laplace tails add ``max(0, ∫ (p − γ q))``
exactly (beyond every mean ``p − γ q = (a − γ b) e^{∓z/s}`` has one sign). The range is widened
until the tails are below ``2^{8−TARGET_BITS}`` of ``δ``. A :class:`FinitePair`'s privacy losses
are taken anywhere within their declared errors.
"""

from __future__ import annotations

import heapq
import itertools
import math
from typing import cast

from otbound.errors import required
from otbound.numerics.certified_mixture import _Mixture
from otbound.numerics.certified_rounding import (TARGET_BITS, _flint, _interval, _precision,
                                                 _relative_width, double_above)
from otbound.numerics.noise import LineDensity, Shape
from otbound.numerics.pairs import FinitePair, MixturePair

MAX_PIECES = 4000
"""Pieces the hockey-stick bisection examines at most (the rest enter as rigorous bounds)."""


def certified_delta(pair: MixturePair | FinitePair, epsilon: float) -> tuple[float, float]:
    """A rigorous enclosure ``(lower, upper)`` of ``δ(ε) = ∫ (p − e^ε q)_+``."""
    _flint()
    if pair.is_trivial() and epsilon >= 0:
        return 0.0, 0.0
    if isinstance(pair, FinitePair):
        return _finite_delta(pair, epsilon)
    return pair.family.certified_delta(pair, epsilon)


def _finite_delta(pair: FinitePair, epsilon: float) -> tuple[float, float]:
    """``δ = Σ_i p_i (1 − e^{ε − u_i})_+``, increasing in every loss ``u_i``: the lower end
    uses ``u_i − du_i``, the upper ``u_i + du_i``."""
    arb = _flint().arb
    with _precision(256):
        e, low, high = arb(epsilon), arb(0), arb(0)
        for p, u, du in zip(pair.p, pair.log_ratio, pair.log_ratio_error):
            if p == 0 or u + du == -math.inf:
                continue
            if u + du == math.inf:
                low, high = low + arb(p), high + arb(p)
                continue
            for loss, is_low in ((arb(u) - arb(du), True), (arb(u) + arb(du), False)):
                share = -(e - loss).expm1()
                if is_low and loss > e:
                    low += arb(p) * share.lower()
                elif not is_low and not loss < e:
                    high += arb(p) * (share.upper() if share.upper() > 0 else arb(0))
        return _interval(low, high)


def density_certified_delta(pair: MixturePair, epsilon: float) -> tuple[float, float]:
    """``δ(ε)`` of a mixture pair of a :class:`~otbound.numerics.noise.LineDensity` (the
    Gaussian or Laplace) by certified sign bisection."""
    arb = _flint().arb
    family = cast(LineDensity, pair.family)
    spread = 12
    while True:
        with _precision(192):
            p = _Mixture(pair.p_means, pair.p_log_weights, family, pair.scale)
            q = _Mixture(pair.q_means, pair.q_log_weights, family, pair.scale)
            gamma = arb(epsilon).exp()
            means = p.means + q.means
            a, b = min(means) - spread * pair.scale, max(means) + spread * pair.scale
            pieces = [_tail_delta(p, q, gamma, None, a), _tail_delta(p, q, gamma, b, None),
                      _bisected_delta(p, q, gamma, a, b)]
            low = sum((piece[0] for piece in pieces), arb(0))
            high = sum((piece[1] for piece in pieces), arb(0))
            if _relative_width(low, high) < 2.0 ** -(TARGET_BITS - 8) or spread >= 48 \
                    or double_above(high) < 1e-300:
                return _interval(low, high)
        spread *= 2


def _tail_delta(p: _Mixture, q: _Mixture, gamma, a: float | None, b: float | None):
    """Bounds on ``∫_a^b (p − γ q)_+`` over a tail: ``max(0, ∫ (p − γ q))`` and ``∫ p``
    (Gaussian), ``max(0, ∫ (p − γ q))`` exactly (Laplace, beyond every mean)."""
    arb = _flint().arb
    total = _difference(p, q, gamma).mass(a, b)
    bottom = total.lower() if total.lower() > 0 else arb(0)
    means = p.means + q.means
    if p.family.shape is Shape.PIECEWISE_LINEAR and (
            a is None and required(b, "a tail's finite end") <= min(means)
            or b is None and required(a, "a tail's finite end") >= max(means)):
        # Beyond every mean p − γq = (A − γB) e^{∓z/s} has one sign: the integral is exact.
        return bottom, (total.upper() if total.upper() > 0 else arb(0))
    return bottom, p.mass(a, b).upper()


def _difference(p: _Mixture, q: _Mixture, gamma) -> _Mixture:
    """``p − γ q`` as one signed mixture with a coefficient per distinct mean: components
    shared by ``P`` and ``Q`` cancel in the coefficients, not in evaluations at wide balls."""
    arb = _flint().arb
    coefficients: dict[float, object] = {}
    for means, weights, factor in ((p.means, p.weights, arb(1)), (q.means, q.weights, -gamma)):
        for m, w in zip(means, weights):
            coefficients[m] = coefficients.get(m, arb(0)) + factor * w
    difference = object.__new__(_Mixture)
    difference.means = list(coefficients)
    difference.weights = list(coefficients.values())
    difference.family, difference.s = p.family, p.s
    return difference


def _bisected_delta(p: _Mixture, q: _Mixture, gamma, a: float, b: float):
    """Balls below and above ``∫_a^b (p − γ q)_+``: pieces of certified sign are integrated in
    closed form; the most uncertain pieces are bisected first, up to ``MAX_PIECES`` of them,
    until what they leave open is below ``2^{-TARGET_BITS}`` of the total."""
    arb = _flint().arb
    low, high = arb(0), arb(0)
    queue: list = []
    order = itertools.count()
    gaps = _difference(p, q, gamma)

    def examine(x: float, y: float) -> None:
        nonlocal low, high
        gap = gaps.density_range(x, y)
        if gap[1] < 0:
            return
        if gap[0] > 0:
            exact = gaps.mass(x, y)
            low, high = low + exact, high + exact
            return
        bottom, top = _uncertain(p, gaps, gap, x, y)
        heapq.heappush(queue, (-float(top.mid()), next(order), x, y, bottom, top))

    examine(a, b)
    seen = 1
    while queue and seen < MAX_PIECES:
        open_ = math.fsum(-item[0] for item in queue)   # only decides when to stop
        if open_ < 2.0 ** -TARGET_BITS * float(low.mid()):
            break
        _, _, x, y, bottom, top = heapq.heappop(queue)
        middle = (x + y) / 2
        if not x < middle < y:
            low, high = low + bottom, high + top
            continue
        examine(x, middle)
        examine(middle, y)
        seen += 2
    for *_, bottom, top in queue:
        low, high = low + bottom, high + top
    return low.lower(), high.upper()


def _uncertain(p: _Mixture, gaps: _Mixture, gap, x: float, y: float):
    """Bounds on ``∫_x^y (p − γ q)_+`` on a piece whose sign is not certified: at least
    ``max(0, ∫ (p − γ q))``, at most ``min(∫ p, width · sup (p − γ q)_+)``."""
    arb = _flint().arb
    exact = gaps.mass(x, y)
    bottom = exact.lower() if exact.lower() > 0 else arb(0)
    top = (arb(y) - arb(x)) * (gap[1] if gap[1] > 0 else arb(0))
    mass = p.mass(x, y).upper()
    return bottom, (top.upper() if top.upper() < mass else mass)
