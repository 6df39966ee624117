"""Certified numerics: rigorous enclosures of ``log Ψ_α`` and ``δ(ε)`` of dominating pairs.

The fast paths (:mod:`otbound.numerics.renyi`, :mod:`otbound.numerics.hockey_stick`) report an
estimate plus a heuristic error estimate. This module encloses the same quantities with ball
arithmetic (python-flint's arb, issue 14 item 1): every operation returns a ball that contains
the exact result, integrals come from ``acb.integral`` (Petras' algorithm with rigorous error
bounds for analytic integrands) or from closed forms (``erfc``, exponentials), and the parts of
the real line left out are bounded by closed-form tail bounds. The result is an interval
``(lower, upper)`` of doubles, rounded outwards, that contains the true value for the pair *as
given*: means, scale and weights are the doubles the pair holds (the weights normalised to sum to
one), and a :class:`FinitePair`'s privacy losses are taken within their declared errors.

Rényi: ``Ψ_α − 1 = ∫ q φ_α(p/q)`` with ``φ_α(L) = L^α − 1 − α(L − 1) ≥ 0`` (the form the fast
path integrates), integrated on ``[A, B]``; outside, ``0 ≤ q φ_α(p/q) ≤ p^α q^{1−α} + (α − 1) q``
(since ``φ_α(L) ≤ L^α + α − 1`` for ``L ≥ 0``) with the bound of :func:`_gaussian_tail` for
Gaussian pairs. Laplace tails beyond every mean are exact: there ``p = a e^{∓z/s}`` and
``q = b e^{∓z/s}``, so the integrand is ``b e^{∓z/s} φ_α(a/b)``. ``A`` and ``B`` are moved out
until the tails are below ``2^{-TARGET_BITS}`` of the integral (a size hint from the fast path
sets the goal; it never enters the enclosure).

Hockey stick: ``δ = ∫ (p − γ q)_+`` with ``γ = e^ε``. ``[A, B]`` is bisected until the sign of
``p − γ q`` is certified on each piece by interval evaluation; on a positive piece the integral is
the closed form ``Σ w_i (F_i(b) − F_i(a)) − γ Σ v_j (G_j(b) − G_j(a))`` (normal or Laplace
distribution functions), a negative piece adds nothing, and a piece left uncertain (at a root)
adds between ``max(0, ∫ (p − γ q))`` and ``min(∫ p, width · sup (p − γ q)_+)``. Gaussian tails
add between ``max(0, ∫ (p − γ q))`` and ``∫ p``; Laplace tails add ``max(0, ∫ (p − γ q))``
exactly (beyond every mean ``p − γ q = (a − γ b) e^{∓z/s}`` has one sign). The range is widened
until the tails are below ``2^{8−TARGET_BITS}`` of ``δ``.
"""

from __future__ import annotations

import contextlib
import contextvars
import heapq
import itertools
import math
from typing import Iterator

import numpy as np

from otbound.errors import UnsupportedOperation
from otbound.numerics.noise import NoiseFamily, Shape
from otbound.numerics.pairs import FinitePair, MixturePair
from otbound.numerics.rounding import NumericBound

TARGET_BITS = 40
"""Relative width sought for every enclosure (about 1e-12; 2^{8−TARGET_BITS} is accepted)."""
MAX_PRECISION = 4096
"""The largest working precision (bits) tried before an enclosure is returned as it is."""
MAX_PIECES = 4000
"""Pieces the hockey-stick bisection examines at most (the rest enter as rigorous bounds)."""

_CERTIFIED = contextvars.ContextVar("otbound_certified", default=False)


def _flint():
    """python-flint (a core dependency), imported on first use: the CLI's start-up must not
    load it."""
    import flint

    return flint


@contextlib.contextmanager
def certified_mode(enabled: bool = True) -> Iterator[None]:
    """Within this block, dominating pairs are evaluated by the certified functions."""
    token = _CERTIFIED.set(enabled)
    try:
        yield
    finally:
        _CERTIFIED.reset(token)


def certifying() -> bool:
    """True inside :func:`certified_mode`."""
    return _CERTIFIED.get()


@contextlib.contextmanager
def _precision(bits: int) -> Iterator[None]:
    ctx = _flint().ctx
    saved = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = saved


# --- results as doubles ---------------------------------------------------------------------

def double_below(x) -> float:
    """The largest double certainly at or below every point of the ball ``x``."""
    arb = _flint().arb
    value = float(x.lower())
    for _ in range(8):
        if math.isnan(value) or arb(value) <= x:
            break
        value = math.nextafter(value, -math.inf)
    else:
        return -math.inf
    return -math.inf if math.isnan(value) else value


def double_above(x) -> float:
    """The smallest double certainly at or above every point of the ball ``x``."""
    arb = _flint().arb
    value = float(x.upper())
    for _ in range(8):
        if math.isnan(value) or arb(value) >= x:
            break
        value = math.nextafter(value, math.inf)
    else:
        return math.inf
    return math.inf if math.isnan(value) else value


def _interval(low, high, floor: float = 0.0) -> tuple[float, float]:
    """``(lower, upper)`` doubles around the balls' hull; quantities ≥ ``floor`` are clamped."""
    return max(double_below(low), floor), max(double_above(high), floor)


def _relative_width(low, high) -> float:
    hi = double_above(high)
    lo = max(double_below(low), 0.0)
    if hi == 0:
        return 0.0
    return (hi - lo) / hi if math.isfinite(hi) else math.inf


def as_bound(interval: tuple[float, float]) -> NumericBound:
    """The certified interval as a reported bound: the upper end, with the width as error."""
    lower, upper = interval
    return NumericBound(upper, upper - lower if math.isfinite(upper) else 0.0)


# --- Rényi ----------------------------------------------------------------------------------

def certified_log_psi(pair: MixturePair | FinitePair, alpha: float) -> tuple[float, float]:
    """A rigorous enclosure ``(lower, upper)`` of ``log Ψ_α(P ‖ Q)``, ``α > 1``."""
    if not alpha > 1:
        raise UnsupportedOperation(f"certified log Ψ_α needs α > 1, got {alpha}")
    _flint()
    if pair.is_trivial():
        return 0.0, 0.0
    if isinstance(pair, FinitePair):
        return _finite_log_psi(pair, alpha)
    return _mixture_log_psi(pair, alpha)


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


class _Mixture:
    """One side of a mixture pair in arb: means, normalised weights and the noise family."""

    def __init__(self, means: np.ndarray, log_weights: np.ndarray, family: NoiseFamily,
                 scale: float):
        arb = _flint().arb
        self.means = [float(m) for m in means]
        weights = [arb(float(w)).exp() for w in log_weights]
        total = sum(weights, arb(0))
        self.weights = [w / total for w in weights]
        self.family, self.s = family, arb(scale)

    def density(self, z, signs=None):
        """``Σ w_i D(z; μ_i)`` at a ball (``acb`` or ``arb``); for a piecewise-linear family
        ``signs`` fixes ``|z − μ_i| = sign_i (z − μ_i)`` (analytic between kinks), else ``abs``
        is used."""
        signs = self._signs(signs)
        total = sum(w * self.family.kernel_ball(z - m, self.s, sign)
                    for m, w, sign in zip(self.means, self.weights, signs))
        return self.family.norm_ball(self.s) * total

    def log_parts(self, z, signs=None, analytic: bool = False) -> tuple:
        """``(A, B, R)`` with ``log Σ w_i D(z; μ_i) = shape(z) + A z + B + R(z)`` (the shape
        ``−z²/2s²`` for the Gaussian, none for Laplace), on a complex ball. The component ``t``
        largest at the ball's centre is factored out: ``R = Log Σ_i w_i D(z; μ_i)/D(z; μ_t)``,
        a sum that stays near the positive reals, so the principal logarithm is analytic on
        the ball (checked when ``analytic``) and agrees with the real logarithm on the real
        line: this is the continuation of ``log p`` that ``acb.integral`` needs. Keeping ``A``
        and ``B`` apart lets callers combine sides before evaluating (no dependency blow-up of
        the balls)."""
        signs = self._signs(signs)
        centre = float(z.real.mid())
        logs = [self._log_component(centre, k, signs) for k in range(len(self.means))]
        top = int(np.argmax(logs))
        family, m_top = self.family, self.means[top]
        slope, intercept = family.linear_part_ball(m_top, self.s, signs[top])
        ratio = sum(w * family.log_kernel_ratio_ball(z, m, m_top, self.s, sign,
                                                     signs[top]).exp()
                    for m, w, sign in zip(self.means, self.weights, signs))
        return slope, intercept, ratio.log(analytic=analytic)

    def _signs(self, signs) -> list:
        """The signs per component, ``None`` each where none are given (``abs``)."""
        return list(signs) if signs is not None else [None] * len(self.means)

    def quadratic(self, z, slope, intercept):
        """``shape(z) + A z + B`` (see :meth:`log_parts`), written so that a ball's width grows
        with its distance from the peak only."""
        return self.family.shape_part_ball(z, slope, intercept, self.s)

    def density_range(self, x: float, y: float) -> tuple:
        """Balls below and above ``Σ w_i D(z; μ_i)`` for ``z`` in ``[x, y]`` (signed weights
        allowed): each kernel falls with ``|z − μ_i|``, so its range on the interval is its
        value at the farthest and at the nearest point (no dependency blow-up of balls)."""
        arb = _flint().arb
        low, high = arb(0), arb(0)
        for m, w in zip(self.means, self.weights):
            near = arb(0) if x <= m <= y else min(abs(arb(x) - m), abs(arb(y) - m))
            far = max(abs(arb(x) - m), abs(arb(y) - m))
            small, large = self._kernel(far), self._kernel(near)
            if w >= 0:
                low, high = low + w * small, high + w * large
            else:
                low, high = low + w * large, high + w * small
        return low.lower(), high.upper()

    def _kernel(self, distance):
        """``D(μ + distance; μ)``."""
        return self.family.kernel_ball(distance, self.s) * self.family.norm_ball(self.s)

    def _log_component(self, x: float, k: int, signs) -> float:
        """``log w_k + log D(x; μ_k)`` in doubles, up to a constant (to pick the largest)."""
        w = float(self.weights[k].mid())
        distance = (x - self.means[k]) / float(self.s.mid())
        return math.log(w) + self.family.log_kernel_float(distance, signs[k]) if w > 0 \
            else -math.inf

    def mass(self, a: float | None, b: float | None):
        """``∫_a^b Σ w_i D(z; μ_i) dz`` for doubles ``a ≤ b`` (``None``: ``∓∞``)."""
        arb = _flint().arb
        a = None if a is None else arb(a)
        b = None if b is None else arb(b)
        return sum((w * self._component_mass(arb(m), a, b)
                    for m, w in zip(self.means, self.weights)), arb(0))

    def _beyond(self, distance):
        """Mass of one component beyond ``distance ≥ 0`` from its mean."""
        return self.family.survival_ball(distance, self.s)

    def _component_mass(self, m, a, b):
        """Mass of one component on ``[a, b]``, from the tail on each end's own side of the
        mean (no cancellation of numbers close to one)."""
        if a is not None and a >= m:
            return self._beyond(a - m) - (self._beyond(b - m) if b is not None else 0)
        if b is not None and b <= m:
            return self._beyond(m - b) - (self._beyond(m - a) if a is not None else 0)
        below = self._beyond(m - a) if a is not None else 0
        above = self._beyond(b - m) if b is not None else 0
        return 1 - below - above


def _mixture_log_psi(pair: MixturePair, alpha: float) -> tuple[float, float]:
    """``log Ψ_α`` of a Gaussian or Laplace mixture pair (see the module docstring)."""
    arb = _flint().arb
    log_hint, log_psi_hint = _excess_hint(pair, alpha)
    bits = 64 + TARGET_BITS + max(0, math.ceil(-log_hint / math.log(2))) + math.ceil(
        math.log2(max(1.0, log_psi_hint)))
    bits = min(max(bits, 128), MAX_PRECISION)
    while True:
        with _precision(bits):
            p = _Mixture(pair.p_means, pair.p_log_weights, pair.family, pair.scale)
            q = _Mixture(pair.q_means, pair.q_log_weights, pair.family, pair.scale)
            a = arb(alpha)
            goal = (arb(log_hint) - TARGET_BITS * arb(2).log()).exp()
            large = log_psi_hint > 1
            inner, tails = _PIECES[pair.family.shape](p, q, a, pair.scale, goal, large)
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


# --- hockey stick ---------------------------------------------------------------------------

def certified_delta(pair: MixturePair | FinitePair, epsilon: float) -> tuple[float, float]:
    """A rigorous enclosure ``(lower, upper)`` of ``δ(ε) = ∫ (p − e^ε q)_+``."""
    _flint()
    if pair.is_trivial() and epsilon >= 0:
        return 0.0, 0.0
    if isinstance(pair, FinitePair):
        return _finite_delta(pair, epsilon)
    return _mixture_delta(pair, epsilon)


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


def _mixture_delta(pair: MixturePair, epsilon: float) -> tuple[float, float]:
    """``δ(ε)`` of a Gaussian or Laplace mixture pair by certified sign bisection."""
    arb = _flint().arb
    spread = 12
    while True:
        with _precision(192):
            p = _Mixture(pair.p_means, pair.p_log_weights, pair.family, pair.scale)
            q = _Mixture(pair.q_means, pair.q_log_weights, pair.family, pair.scale)
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
    if p.family.shape is Shape.PIECEWISE_LINEAR and (a is None and b <= min(means)
                                                      or b is None and a >= max(means)):
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


# --- curves, as the evaluation path uses them -----------------------------------------------

def certified_log_psi_curve(pair: MixturePair | FinitePair, alphas,
                            limit: bool = True) -> list[NumericBound]:
    """:func:`~otbound.numerics.renyi.log_psi_curve` in certified mode: each order's upper end,
    with the enclosure's width as the error."""
    from otbound.numerics.renyi import check_orders

    alphas = check_orders(alphas, limit)
    if not isinstance(pair, (FinitePair, MixturePair)):   # an epoch's pair: its own arb series
        return pair.log_psi_curve(alphas)
    cache: dict[float, NumericBound] = {}
    for alpha in alphas:
        if float(alpha) not in cache:
            cache[float(alpha)] = as_bound(certified_log_psi(pair, float(alpha)))
    return [cache[float(alpha)] for alpha in alphas]


def certified_delta_curve(pair: MixturePair | FinitePair, epsilons) -> list[NumericBound]:
    """:func:`~otbound.numerics.hockey_stick.hockey_stick_curve` in certified mode."""
    epsilons = np.atleast_1d(np.asarray(epsilons, dtype=float))
    cache: dict[float, NumericBound] = {}
    for epsilon in epsilons:
        if float(epsilon) not in cache:
            cache[float(epsilon)] = as_bound(certified_delta(pair, float(epsilon)))
    return [cache[float(epsilon)] for epsilon in epsilons]
