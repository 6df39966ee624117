"""A rigorous enclosure of ``log Ψ_α`` of a dominating pair in ball arithmetic (python-flint's
arb, issue 14 item 1; the fast path is :mod:`otbound.numerics.renyi`).

``Ψ_α − 1 = ∫ q φ_α(p/q)`` with ``φ_α(L) = L^α − 1 − α(L − 1) ≥ 0`` (the form the fast
path integrates), integrated on ``[A, B]``; outside, ``0 ≤ q φ_α(p/q) ≤ p^α q^{1−α} + (α − 1) q``
(since ``φ_α(L) ≤ L^α + α − 1`` for ``L ≥ 0``) with the bound of :func:`_gaussian_tail` for
Gaussian pairs. Laplace tails beyond every mean are exact: there ``p = a e^{∓z/s}`` and
``q = b e^{∓z/s}``, so the integrand is ``b e^{∓z/s} φ_α(a/b)``. ``A`` and ``B`` are moved out
until the tails are below ``2^{-TARGET_BITS}`` of the integral (a size hint from the fast path
sets the goal; it never enters the enclosure). A :class:`FinitePair`'s privacy losses are taken
anywhere within their declared errors.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np

from otbound.errors import UnsupportedOperation
from otbound.numerics.certified_mixture import _Mixture
from otbound.numerics.certified_rounding import (MAX_PRECISION, TARGET_BITS, _flint, _interval,
                                                 _precision, _relative_width, double_above,
                                                 double_below)
from otbound.numerics.noise import LineDensity, Shape
from otbound.numerics.pairs import FinitePair, MixturePair


def certified_log_psi(pair: MixturePair | FinitePair, alpha: float) -> tuple[float, float]:
    """A rigorous enclosure ``(lower, upper)`` of ``log Ψ_α(P ‖ Q)``, ``α > 1``."""
    if not alpha > 1:
        raise UnsupportedOperation(f"certified log Ψ_α needs α > 1, got {alpha}")
    _flint()
    if pair.is_trivial():
        return 0.0, 0.0
    if isinstance(pair, FinitePair):
        return _finite_log_psi(pair, alpha)
    return pair.family.certified_log_psi(pair, alpha)


def _phi(alpha, u):
    """``φ_α(e^u) = expm1(αu) − α expm1(u)`` on a ball ``u``."""
    return (alpha * u).expm1() - alpha * u.expm1()


def _phi_range(alpha, low, high) -> tuple:
    """Balls below and above ``φ_α(e^u)`` for ``u`` in ``[low, high]``: ``φ_α(e^u)`` falls for
    ``u < 0`` and rises for ``u > 0`` (it is convex in ``u`` with its minimum 0 at 0)."""
    arb = _flint().arb
    ends = [_phi(alpha, low), _phi(alpha, high)]
    top = ends[0].upper() if ends[0].upper() >= ends[1].upper() else ends[1].upper()
    if low > 0:
        bottom = ends[0].lower()
    elif high < 0:
        bottom = ends[1].lower()
    else:
        bottom = arb(0)
    return (bottom if bottom > 0 else arb(0)), top


def _finite_log_psi(pair: FinitePair, alpha: float) -> tuple[float, float]:
    """``Ψ_α − 1 = Σ_i q_i φ_α(e^{u_i})`` with each loss ``u_i`` anywhere in its declared
    interval ``[u_i − du_i, u_i + du_i]`` (an infinite divergence where ``q_i = 0 < p_i``)."""
    if np.any((pair.p > 0) & (pair.q == 0)):
        return math.inf, math.inf
    arb = _flint().arb
    bits = 128
    while True:
        with _precision(bits):
            a, low, high = arb(alpha), arb(0), arb(0)
            for p, q, u, du in zip(pair.p, pair.q, pair.log_ratio, pair.log_ratio_error):
                if q > 0 and p == 0:   # φ_α(0) = α − 1
                    low, high = low + arb(q) * (a - 1), high + arb(q) * (a - 1)
                elif q > 0:
                    bottom, top = _phi_range(a, arb(u) - arb(du), arb(u) + arb(du))
                    low, high = low + arb(q) * bottom, high + arb(q) * top
            low, high = low.log1p(), high.log1p()
            if bits >= MAX_PRECISION or _relative_width(low, high) < 2.0 ** -TARGET_BITS \
                    or (double_above(high) - max(double_below(low), 0)
                        <= 1e-3 * _spread(pair, alpha)):
                return _interval(low, high)
        bits *= 2


def _spread(pair: FinitePair, alpha: float) -> float:
    """What the declared loss errors alone leave open (no precision removes it)."""
    return float(alpha * np.max(pair.log_ratio_error, initial=0.0))


def density_certified_log_psi(pair: MixturePair, alpha: float) -> tuple[float, float]:
    """``log Ψ_α`` of a mixture pair of a :class:`~otbound.numerics.noise.LineDensity`, the
    Gaussian or Laplace (see the module docstring)."""
    arb = _flint().arb
    family = cast(LineDensity, pair.family)
    log_hint, log_psi_hint = _excess_hint(pair, alpha)
    bits = 64 + TARGET_BITS + max(0, math.ceil(-log_hint / math.log(2))) + math.ceil(
        math.log2(max(1.0, log_psi_hint)))
    bits = min(max(bits, 128), MAX_PRECISION)
    while True:
        with _precision(bits):
            p = _Mixture(pair.p_means, pair.p_log_weights, family, pair.scale)
            q = _Mixture(pair.q_means, pair.q_log_weights, family, pair.scale)
            a = arb(alpha)
            goal = (arb(log_hint) - TARGET_BITS * arb(2).log()).exp()
            large = log_psi_hint > 1
            inner, tails = _PIECES[family.shape](p, q, a, pair.scale, goal, large)
            low = inner.lower() if inner.lower() > 0 else arb(0)
            low, high = low.log1p(), (inner + tails).upper().log1p()
            if bits >= MAX_PRECISION or _relative_width(low, high) < 2.0 ** -(TARGET_BITS - 8):
                return _interval(low, high)
        bits *= 2


def _excess_hint(pair: MixturePair, alpha: float) -> tuple[float, float]:
    """``log(Ψ_α − 1)`` and ``log Ψ_α`` from the fast path: sizes for tolerances and working
    precision only (they never enter an enclosure)."""
    from otbound.errors import OtboundError
    from otbound.numerics.renyi import log_psi_curve

    try:
        value = log_psi_curve(pair, [alpha], limit=False)[0].value
    except OtboundError:
        value = math.nan
    if math.isnan(value):
        return -200 * math.log(2), 1.0
    if not value > 0:
        return -1000 * math.log(2), 0.0
    if not math.isfinite(value):
        return 1e6, 1e6
    log_excess = value + math.log1p(-math.exp(-value)) if value > 1 else math.log(
        math.expm1(value))
    return max(log_excess, -1000 * math.log(2)), value


def _integrand(p: _Mixture, q: _Mixture, alpha, large: bool, signs: tuple | None = None):
    """``q φ_α(p/q)`` on complex balls, non-finite where a logarithm is not certified analytic
    (``acb.integral``'s contract). Two forms of one analytic function: for small divergences
    ``q (expm1(α log L) − α expm1(log L))`` with ``log L = log p − log q`` formed from the
    parts of :meth:`_Mixture.log_parts` (the squares cancel exactly: no cancellation of
    ``Ψ − 1``); for ``large`` ones ``e^{α log p + (1−α) log q} − (1 − α) q − α p`` with the
    square of the first exponent completed (its peak far out at large α stays narrow)."""
    signs_p, signs_q = signs if signs is not None else (None, None)

    def f(z, analytic):
        a_p, b_p, r_p = p.log_parts(z, signs_p, analytic)
        a_q, b_q, r_q = q.log_parts(z, signs_q, analytic)
        q_z = (q.quadratic(z, a_q, b_q) + r_q).exp()
        if not large:
            log_ratio = (a_p - a_q) * z + (b_p - b_q) + r_p - r_q
            return q_z * ((alpha * log_ratio).expm1() - alpha * log_ratio.expm1())
        mixed = p.quadratic(z, alpha * a_p + (1 - alpha) * a_q, alpha * b_p + (1 - alpha) * b_q)
        p_z = (p.quadratic(z, a_p, b_p) + r_p).exp()
        return (mixed + alpha * r_p + (1 - alpha) * r_q).exp() - (1 - alpha) * q_z - alpha * p_z
    return f


def _integrate(f, a, b, goal):
    """``∫_a^b f`` by ``acb.integral`` with absolute tolerance ``goal``; the real part's ball."""
    flint = _flint()
    result = flint.acb.integral(f, a, b, rel_tol=flint.arb(2) ** -TARGET_BITS, abs_tol=goal,
                                eval_limit=10 ** 7, depth_limit=4000)
    return result.real


def _gaussian_pieces(p: _Mixture, q: _Mixture, alpha, scale: float, goal,
                     large: bool):
    """The integral of ``q φ_α(p/q)`` on ``[A, B]`` and a bound on the two tails."""
    arb = _flint().arb
    low = _gaussian_edge(p, q, alpha, scale, goal, -1)
    high = _gaussian_edge(p, q, alpha, scale, goal, 1)
    tails = _gaussian_tail(p, q, alpha, high, 1) + _gaussian_tail(p, q, alpha, low, -1)
    cuts = sorted({low, high} | {m for m in p.means + q.means + _peaks(p, q, alpha, 1)
                                 + _peaks(p, q, alpha, -1) if low < m < high})
    inner = sum((_integrate(_integrand(p, q, alpha, large), arb(x), arb(y), goal)
                 for x, y in zip(cuts, cuts[1:])), arb(0))
    return inner, tails


def _peaks(p: _Mixture, q: _Mixture, alpha, side: int) -> list[float]:
    """Centres ``c_k = αa + (1 − α)ν_k`` of the tail bounds' Gaussians on one side (where
    ``p^α q^{1−α}`` peaks far out at large α)."""
    a = side * max(side * m for m in p.means)
    order = float(alpha.mid())
    return [order * a + (1 - order) * v for v in q.means]


def _gaussian_edge(p: _Mixture, q: _Mixture, alpha, scale: float, goal, side: int) -> float:
    """An end ``B`` (``side = 1``) or ``A`` (``side = −1``) whose tail bound is below ``goal``."""
    start = max(side * m for m in p.means + q.means) + 8 * scale
    step, edge = 8 * scale, start
    while not (_gaussian_tail(p, q, alpha, side * edge, side) < goal) and step < 1e12:
        step *= 2
        edge = start + step
    return side * edge


def _gaussian_tail(p: _Mixture, q: _Mixture, alpha, edge: float, side: int):
    """A rigorous upper bound on ``∫ q φ_α(p/q)`` beyond ``edge`` (right for ``side = 1``).

    For ``z ≥ B ≥ a = max_i μ_i`` every ``z − μ_i ≥ z − a ≥ 0``, so ``p(z) ≤ φ_s(z − a)`` (the
    weights sum to one), and ``q(z) ≥ v_k φ_s(z − ν_k)`` for every ``k``; as ``1 − α < 0``,
    ``p^α q^{1−α} ≤ v_k^{1−α} φ_s(z − a)^α φ_s(z − ν_k)^{1−α}``. Completing the square,
    ``α(z − a)² + (1 − α)(z − ν)² = (z − c)² − α(α − 1)(a − ν)²`` with ``c = αa + (1 − α)ν``,
    so the bound is ``v_k^{1−α} e^{α(α−1)(a−ν_k)²/2s²} φ_s(z − c_k)``, whose integral beyond
    ``B`` is ``v_k^{1−α} e^{α(α−1)(a−ν_k)²/2s²} erfc((B − c_k)/(s√2))/2``; the smallest over
    ``k`` is used. With ``φ_α(L) ≤ L^α + α − 1``, the tail of the integrand is at most that plus
    ``(α − 1) Q(Z > B)``. The left tail is the right tail of the mirrored pair."""
    arb = _flint().arb
    if side * edge < max(side * m for m in p.means):
        return arb("inf")
    s = p.s
    a = max(side * m for m in p.means)
    x = arb(side * edge)
    best = arb("inf")
    for nu, v in zip(q.means, q.weights):
        nu = side * nu
        c = alpha * a + (1 - alpha) * nu
        log_factor = (1 - alpha) * v.log() + alpha * (alpha - 1) * (a - nu) ** 2 / (2 * s * s)
        bound = log_factor.exp() * ((x - c) / (s * arb(2).sqrt())).erfc() / 2
        if bound < best:
            best = bound
    mirrored = [side * m for m in q.means]
    q_tail = sum((v * ((x - m) / (s * arb(2).sqrt())).erfc() / 2
                  for m, v in zip(mirrored, q.weights)), arb(0))
    return best + (alpha - 1) * q_tail


def _laplace_pieces(p: _Mixture, q: _Mixture, alpha, scale: float, goal, large: bool):
    """The integral of ``q φ_α(p/q)`` between the outermost means (pieces between kinks, where
    the integrand is analytic) and the exact tails beyond them."""
    arb = _flint().arb
    kinks = sorted(set(p.means + q.means))
    inner = arb(0)
    for x, y in zip(kinks, kinks[1:]):
        middle = (x + y) / 2
        signs_p = [1 if middle > m else -1 for m in p.means]
        signs_q = [1 if middle > m else -1 for m in q.means]
        f = _integrand(p, q, alpha, large, (signs_p, signs_q))
        inner += _integrate(f, arb(x), arb(y), goal)
    return inner + _laplace_tail(p, q, alpha, kinks[-1], 1) + _laplace_tail(
        p, q, alpha, kinks[0], -1), arb(0)


def _laplace_tail(p: _Mixture, q: _Mixture, alpha, edge: float, side: int):
    """Exact ``∫ q φ_α(p/q)`` beyond the outermost mean ``edge``: there ``p = A e^{−side·z/s}``,
    ``q = B e^{−side·z/s}`` with ``A = Σ w_i e^{side·μ_i/s}/2s``, so the integral is
    ``B s e^{−side·edge/s} φ_α(A/B)``."""
    arb = _flint().arb
    s = p.s

    def coefficient(side_mixture: _Mixture):
        return sum((w * (side * arb(m) / s).exp() for m, w in zip(side_mixture.means,
                                                                  side_mixture.weights)),
                   arb(0)) / (2 * s)

    big_a, big_b = coefficient(p), coefficient(q)
    u = (big_a / big_b).log()
    return big_b * s * (-side * arb(edge) / s).exp() * _phi(alpha, u)


_PIECES = {Shape.QUADRATIC: _gaussian_pieces, Shape.PIECEWISE_LINEAR: _laplace_pieces}
"""Per log-density shape: the integral of ``q φ_α(p/q)`` over the inner pieces and a bound on
the tails left out."""
