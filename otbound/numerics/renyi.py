"""The scaled Rényi divergence ``Ψ_α(P ‖ Q) = ∫ P^α Q^{1−α}`` of dominating pairs, in log space.

``Ψ_α − 1 = ∫ Q φ_α(P/Q)`` with ``φ_α(L) = L^α − 1 − α (L − 1) ≥ 0``, because ``∫ Q = ∫ P = 1``.
otbound integrates this non-negative form, which keeps tiny divergences (``Ψ_α − 1 ≈ 10^{-10}``)
accurate to many digits, and works with its logarithm, which keeps astronomically large ones
finite. Closed forms are used where they exist: finite pairs, the binomial expansion of the
Poisson subsampled Gaussian with one removed element and integer α (001 Prop. E.4; the sum runs
over non-negative terms only), and for Gaussian pairs the far peak of ``P^α Q^{1−α}`` where each
side is one component to within 1e-11 (at large α). Everything else is integrated by
:mod:`otbound.numerics.quadrature`, for all requested orders at once: Laplace pairs between their
kinks; Gaussian pairs on cells that a branch and bound keeps (bounds from the convexity of the
log-densities), the cells it drops and the tails entering the error as bounds, not estimates.
Cells are shared between orders, so the densities are evaluated once per node.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from otbound.errors import InvalidSpecification
from otbound.numerics.limits import MAX_ALPHA, show
from otbound.numerics.noise import Shape
from otbound.numerics.pairs import FinitePair, MixturePair, Side, log_sum_exp
from otbound.numerics.quadrature import ROUNDING, integrate_exp
from otbound.numerics.rounding import EPS, NumericBound, exact_zero

_SERIES = np.arange(2, 24)
_LOG_FACTORIAL = np.array([math.lgamma(k + 1) for k in _SERIES])



@functools.cache
def _log_factorials(size: int) -> np.ndarray:
    return np.array([math.lgamma(n + 1) for n in range(size)])


def log_factorial(n) -> np.ndarray:
    """``log n!`` for non-negative integers ``n`` (as floats), from ``math.lgamma``: within 2 ulps
    of ``max(log n!, 1)`` against 50-digit mpmath, like scipy's ``gammaln``, without loading scipy
    for one Rényi point. Tables grow in powers of two."""
    n = np.asarray(n, dtype=float).astype(int)
    size = 1 << max(int(n.max(initial=0)), 1024).bit_length()
    return _log_factorials(size)[n]

def check_orders(alphas, limit: bool = True) -> np.ndarray:
    """Validate Rényi orders: real numbers in (1, 10⁴] (any finite order > 1 without limit)."""
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    top = MAX_ALPHA if limit else math.inf
    for alpha in alphas:
        if not (1 < alpha <= top) or not math.isfinite(alpha):
            raise InvalidSpecification(
                f"alpha (the Rényi order) must be in (1, {MAX_ALPHA:g}], got {show(alpha)}",
                parameter="alphas")
    return alphas


def log_phi(alpha, u: np.ndarray) -> np.ndarray:
    """``log φ_α(e^u) = log(e^{αu} − 1 − α(e^u − 1))``, accurate for tiny and huge ``|u|``.

    ``alpha`` is a number or an array shaped like ``u``.
    """
    u = np.asarray(u, dtype=float)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), u.shape)
    au = alpha * u
    out = np.full(u.shape, -np.inf)
    small = np.abs(au) <= 0.5
    if small.any():
        values, which = np.unique(alpha[small], return_inverse=True)
        a = values[:, None]
        # (α^k − α)/k! = α (α^{k−1} − 1)/k!, exact even for α close to 1.
        coefficients = (a * np.expm1((_SERIES - 1) * np.log(a)) * np.exp(-_LOG_FACTORIAL))[which]
        us = u[small]
        total = np.zeros(us.size)
        for k in range(_SERIES.size - 1, -1, -1):   # Horner: Σ_k c_k u^k = u²(c₂ + u(c₃ + …))
            total = total * us + coefficients[:, k]
        with np.errstate(divide="ignore"):
            out[small] = np.log(total * us * us)
    middle = ~small & (au <= 700)
    if middle.any():
        b, um = alpha[middle] - 1, u[middle]
        # e^{αu} − 1 − α(e^u − 1) = e^u (e^{βu} − 1) − β (e^u − 1) with β = α − 1: no
        # cancellation of order 1/β when α is close to 1.
        with np.errstate(divide="ignore"):
            out[middle] = np.log(np.exp(um) * np.expm1(b * um) - b * np.expm1(um))
    large = au > 700
    if large.any():
        a, ul = alpha[large], u[large]
        # log(1 + α (e^u − 1)) = u + log(α − (α − 1) e^{−u}) for u > 0
        second = ul + np.log(a - (a - 1) * np.exp(-ul))
        out[large] = a * ul + np.log1p(-np.exp(second - a * ul))
    return out


def _log_psi_from_excess(log_excess: np.ndarray, relative_error: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
    """``log Ψ = log(1 + I)`` and its absolute error, from ``log I`` and ``I``'s relative error."""
    log_excess = np.asarray(log_excess, dtype=float)
    with np.errstate(over="ignore"):
        value = np.where(log_excess > 0, log_excess + np.log1p(np.exp(-np.abs(log_excess))),
                         np.log1p(np.exp(np.minimum(log_excess, 0.0))))
        share = np.where(log_excess > 0, 1 / (1 + np.exp(-np.abs(log_excess))),
                         np.exp(np.minimum(log_excess, 0.0))
                         / (1 + np.exp(np.minimum(log_excess, 0.0))))
    return value, relative_error * share


def log_expm1(x) -> np.ndarray:
    """``log(e^x − 1)`` for ``x ≥ 0`` (``−inf`` at zero), accurate for tiny and huge ``x``.

    ``x`` is a logarithm of ``Ψ ≥ 1``: a negative ``x`` can only be rounding, and counts as 0."""
    x = np.maximum(np.asarray(x, dtype=float), 0.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        return np.where(x > 1, x + np.log1p(-np.exp(-x)), np.log(np.expm1(np.minimum(x, 1))))


def log_mixture_psi(log_weights, log_psis, log_weight_errors=None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``log Σ_b w_b Ψ_b`` for weights summing to one, and the absolute error of its rounding.

    Formed as ``log1p(Σ_b w_b (Ψ_b − 1))``: weights that sum to one only up to rounding cannot
    push a tiny divergence below its truth (or below zero). ``log_weights`` has shape ``(B,)``,
    ``log_psis`` shape ``(B, A)``; the result has shape ``(A,)``. The log-weights are taken to be
    correctly rounded unless ``log_weight_errors`` bounds their absolute errors.
    """
    log_weights = np.asarray(log_weights, dtype=float)[:, None]
    excess = log_expm1(np.asarray(log_psis, dtype=float))
    keep = np.isfinite(log_weights) & np.isfinite(excess)
    with np.errstate(invalid="ignore"):
        terms = log_weights + excess
        magnitude = np.where(keep, np.abs(log_weights) + np.abs(excess), 0.0).max(axis=0)
    log_excess = log_sum_exp(terms, axis=0)
    relative = 8 * EPS * (log_weights.size + magnitude)
    if log_weight_errors is not None:
        with np.errstate(invalid="ignore", over="ignore"):
            shares = np.where(keep, np.exp(terms - log_excess[None, :]), 0.0)
        relative = relative + (shares * np.asarray(log_weight_errors, dtype=float)[:, None]).sum(0)
    return _log_psi_from_excess(log_excess, relative)


def log_psi(pair: MixturePair | FinitePair, alpha: float) -> NumericBound:
    """``log Ψ_α(P ‖ Q)`` as an upper bound (estimate plus its error estimate)."""
    return log_psi_curve(pair, [alpha])[0]


def log_psi_curve(pair: MixturePair | FinitePair, alphas,
                  limit: bool = True) -> list[NumericBound]:
    """``log Ψ_α(P ‖ Q)`` for every order in ``alphas``, each rounded up by its error.

    Orders above 10⁴ are refused unless ``limit`` is false (post-hoc group bounds need them).
    """
    alphas = check_orders(alphas, limit)
    if not isinstance(pair, (FinitePair, MixturePair)):   # an epoch's pair
        return pair.log_psi_curve(alphas)
    if pair.is_trivial():
        return [exact_zero() for _ in alphas]
    orders, inverse = np.unique(alphas, return_inverse=True)
    if isinstance(pair, FinitePair):
        values, errors = _finite(pair, orders)
    else:
        values, errors = np.empty(orders.size), np.empty(orders.size)
        integer = (orders == np.floor(orders)) & _is_binomial_removal(pair)
        if integer.any():
            values[integer], errors[integer] = _binomial(pair, orders[integer].astype(int))
        if (~integer).any():
            values[~integer], errors[~integer] = _integrated(pair, orders[~integer])
    bounds = [NumericBound.rounded_up(float(v), float(e)) for v, e in zip(values, errors)]
    return [bounds[k] for k in inverse]


def _finite(pair: FinitePair, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Ψ_α − 1 = Σ_i q_i φ_α(e^{u_i})`` over the privacy losses ``u_i`` of a finite pair.

    The error bound evaluates the same sum with every loss moved away from zero by its error
    (``φ_α(e^u)`` grows with ``|u|`` on either side of zero), plus the rounding of ``log φ``.
    """
    support = pair.q > 0
    if np.any((pair.p > 0) & ~support):
        return np.full(alphas.size, math.inf), np.zeros(alphas.size)
    u, du = pair.log_ratio[support], pair.log_ratio_error[support]
    log_q = np.log(pair.q[support])
    away = u + np.where(u < 0, -du, du)
    shape = (alphas.size, u.size)
    a = alphas[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = log_q + log_phi(a * np.ones(shape), np.broadcast_to(u, shape))
        # log φ is within about one ulp of its magnitude (≤ α|u| + 1) for every branch of log_phi;
        # a loss of −inf (p_i = 0) gives φ = α − 1 exactly.
        size = np.where(np.isfinite(away), np.abs(away), 0.0)
        rounding = np.log1p(4 * EPS * (2 + a * size + np.abs(log_q) + u.size))
        upper = log_q + log_phi(a * np.ones(shape), np.broadcast_to(away, shape)) + rounding
    value, _ = _log_psi_from_excess(log_sum_exp(estimate, axis=1), np.zeros(alphas.size))
    high, _ = _log_psi_from_excess(log_sum_exp(upper, axis=1), np.zeros(alphas.size))
    return value, (high - value) + 2 * EPS * high


def _is_binomial_removal(pair: MixturePair) -> bool:
    return (pair.family.binomial_expansion and pair.q_means.size == 1 and pair.p_means.size == 2
            and pair.q_means[0] == 0 and 0 in pair.p_means)


def _binomial(pair: MixturePair, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Ψ_α((1−r) N(0) + r N(d) ‖ N(0)) − 1 = Σ_{k≥2} C(α,k) r^k (1−r)^{α−k} expm1(k(k−1)d²/2s²)``.

    001 Prop. E.4 (binomial expansion of Zhu & Wang 2019); every term is non-negative.
    """
    top = int(np.argmax(pair.p_means != 0))
    distance, log_r = pair.p_means[top], pair.p_log_weights[top]
    log_keep = pair.p_log_weights[1 - top]
    counts = alphas - 1
    owner = np.repeat(np.arange(alphas.size), counts)
    alpha = alphas[owner].astype(float)
    k = (np.arange(owner.size) - np.repeat(np.cumsum(counts) - counts, counts) + 2).astype(float)
    exponent = k * (k - 1) * distance ** 2 / (2 * pair.scale ** 2)
    log_expm1 = np.where(exponent > 30, exponent + np.log1p(-np.exp(-np.maximum(exponent, 30))),
                         np.log(np.expm1(np.minimum(exponent, 30))))
    parts = (log_factorial(alpha), -log_factorial(k), -log_factorial(alpha - k), k * log_r,
             (alpha - k) * log_keep, log_expm1)
    terms = sum(parts)
    starts = np.cumsum(counts) - counts
    top_term = np.maximum.reduceat(terms, starts)
    shares = np.exp(terms - top_term[owner])
    totals = np.add.reduceat(shares, starts)
    log_excess = np.log(totals) + top_term
    # Each term's exponent is off by a few ulps of the sum of the magnitudes of its parts.
    magnitude = np.add.reduceat(shares * sum(np.abs(part) for part in parts), starts) / totals
    return _log_psi_from_excess(log_excess, 8 * EPS * (magnitude + counts))


def _integrated(pair: MixturePair, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log Ψ_α`` and its error by quadrature of ``Q φ_α(P/Q)``, plus closed-form pieces."""
    edges, group, pieces, piece_error, neglected = _PANELS[pair.family.shape](pair, alphas)

    def log_integrand(x: np.ndarray, owner: np.ndarray) -> np.ndarray:
        return x[0] + log_phi(alphas[owner], x[1])

    def log_sensitivity(x: np.ndarray, owner: np.ndarray) -> np.ndarray:
        """The relative error of the integrand from the rounding of the privacy loss."""
        with np.errstate(divide="ignore"):
            return np.log(_phi_sensitivity(alphas[owner], x[1], x[2]))

    result = integrate_exp(log_integrand, edges, group, alphas.size,
                           log_sensitivity=log_sensitivity, features=pair.loss_features)
    log_excess = np.logaddexp(result.log_values, pieces)
    with np.errstate(invalid="ignore", over="ignore"):
        share = np.where(np.isfinite(log_excess), np.exp(result.log_values - log_excess), 0.0)
        left_out = np.where(np.isfinite(log_excess), np.exp(neglected - log_excess), 0.0)
    error = (result.relative_errors * share + piece_error * (1 - share) + left_out
             + 4 * ROUNDING)
    return _log_psi_from_excess(log_excess, error)


def _loss_error(pair: MixturePair, z: np.ndarray) -> np.ndarray:
    """Absolute error of the privacy loss ``log(P/D₀) − log(Q/D₀)`` (its parts may cancel)."""
    return pair.log_relative_density_error(Side.P, z) + pair.log_relative_density_error(Side.Q, z)


def _phi_sensitivity(alpha, loss: np.ndarray, loss_error: np.ndarray) -> np.ndarray:
    """Relative change of ``φ_α(e^u)`` when ``u`` moves by ``loss_error``: at most
    ``(2/|u| + α + 1)·du`` (``φ ≈ α(α−1)u²/2`` near zero, ``≈ e^{αu}`` far out), capped at 1e300."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # capped below
        change = np.where(loss_error > 0, (2 / np.abs(loss) + alpha + 1) * loss_error, 0.0)
    return np.minimum(change, 1e300)


# --- Gaussian pairs: the far peak in closed form, the rest on cells found by bounds ----------
#
# With ``t_i(z) = log(w_i D(z; μ_i)/D(z; 0)) = log w_i + (μ_i z − μ_i²/2)/σ²``, linear in ``z``,
# ``log(P/D₀) = log Σ_i e^{t_i}`` is convex (so is ``log(Q/D₀)``). This gives cheap bounds: a chord
# of ``log(P/D₀)`` lies above it and a tangent of ``log(Q/D₀)`` below it, and on any interval
# ``log(P/D₀)`` exceeds a single ``t_i`` by at most ``log(1 + S(a) + S(b))``, ``S`` the sum of the
# (monotone) ratios ``e^{t_k − t_i}`` at its ends.

_PANEL = 2.0
"""Width of the quadrature cells, in standard deviations."""
_REACH = math.sqrt(200.0)
"""Margin (in standard deviations) beyond the critical points of ``P^α Q^{1−α}`` and the means of
``Q``: the integrand's tails beyond it fall below ``e^{−100}`` of its values there."""
_MAIN = 12.0
"""Half-width (in standard deviations) of the far peak given in closed form."""
_CERTIFIED = 1e-11
"""Largest error of the far peak's closed form (in ``log``) for which it is used."""
_DEPTH = 64.0
"""Cells whose mass is below ``e^{−64}`` of the estimated integral are left out (their bounds are
added to the error)."""
_LOG_ROOT_2PI = 0.5 * math.log(2 * math.pi)


@dataclass(frozen=True)
class _FarPeak:
    """Per order, ``∫ P^α Q^{1−α}`` over ``[m − 12σ, m + 12σ]`` in closed form (``m = α μ + (1 − α)
    ν`` for the components ``μ``, ``ν`` with the largest means): its centre, ``log`` value and
    relative error, and whether it is used."""

    center: np.ndarray
    log_value: np.ndarray
    error: np.ndarray
    used: np.ndarray


def _log_ratio_sum(means: np.ndarray, log_weights: np.ndarray, top: int, s: float,
                   z: np.ndarray) -> np.ndarray:
    """``log S(z) = log Σ_{k≠top} e^{t_k(z) − t_top(z)}`` (Gaussian components), any shape of z."""
    others = np.arange(means.size) != top
    if not others.any():
        return np.full(np.shape(z), -np.inf)
    gap, middle = means[others] - means[top], (means[others] + means[top]) / 2
    logs = (log_weights[others] - log_weights[top]) + gap * (z[..., None] - middle) / s ** 2
    return log_sum_exp(logs, axis=-1)


def _far_peak(pair: MixturePair, alphas: np.ndarray) -> _FarPeak:
    """On ``[m − 12σ, m + 12σ]``: ``P = w D(z; μ) e^{c_P}`` and ``Q = v D(z; ν) e^{c_Q}`` with
    ``0 ≤ c ≤ log(1 + S(a) + S(b))``, and ``(w D(z; μ))^α (v D(z; ν))^{1−α} = C N(z; m, σ²)`` with
    ``log C = α log w + (1 − α) log v + α(α − 1)(μ − ν)²/2σ²``. So ``∫ P^α Q^{1−α}`` over the piece
    lies in ``[C e^{−(α−1) c_Q}(1 − 2Φ(−12)), C e^{α c_P}]``, and the piece's part of ``Ψ − 1``,
    ``∫ Q φ_α(P/Q) = ∫ P^α Q^{1−α} − αP + (α − 1)Q``, differs from it by at most ``α``. Used where
    ``α c_P`` and ``(α − 1) c_Q`` are below 1e-11 and ``C ≥ α e^{40}``; the error adds a few ulps
    of the parts of ``log C``."""
    s = pair.scale
    i, j = int(np.argmax(pair.p_means)), int(np.argmax(pair.q_means))
    mu, nu = pair.p_means[i], pair.q_means[j]
    center = alphas * mu + (1 - alphas) * nu
    parts = (alphas * pair.p_log_weights[i], (1 - alphas) * pair.q_log_weights[j],
             alphas * (alphas - 1) * (mu - nu) ** 2 / (2 * s * s))
    log_value = sum(parts)
    ends = center[:, None] + np.array([-_MAIN, _MAIN]) * s
    bump = []
    for means, log_weights, top in ((pair.p_means, pair.p_log_weights, i),
                                    (pair.q_means, pair.q_log_weights, j)):
        with np.errstate(over="ignore"):
            ratios = np.exp(_log_ratio_sum(means, log_weights, top, s, ends))
        bump.append(np.log1p(ratios.sum(axis=1)) * (1 + 1e-6))   # ratios carry rounding
    shape = np.maximum(alphas * bump[0], (alphas - 1) * bump[1])
    used = (shape <= _CERTIFIED) & (log_value >= np.log(alphas) + 40)
    with np.errstate(over="ignore"):
        error = (shape + 8 * EPS * sum(np.abs(part) for part in parts)
                 + np.exp(np.log(alphas) - log_value) + 1e-32)
    return _FarPeak(center, log_value, error, used)


@dataclass
class _Points:
    """Points with ``log(P/D₀)``, ``log(Q/D₀)`` and the mean of Q's posterior over components
    (plain log-sum-exp: they only steer the quadrature and bound what it leaves out)."""

    z: np.ndarray
    log_p: np.ndarray
    log_q: np.ndarray
    mean_q: np.ndarray

    @staticmethod
    def at(pair: MixturePair, z: np.ndarray) -> "_Points":
        log_p, _ = _log_mixture(pair, Side.P, z)
        log_q, mean_q = _log_mixture(pair, Side.Q, z)
        return _Points(z, log_p, log_q, mean_q)

    def add(self, pair: MixturePair, z: np.ndarray) -> np.ndarray:
        """Append the points ``z``; returns their indices."""
        new = _Points.at(pair, z)
        start = self.z.size
        for name in ("z", "log_p", "log_q", "mean_q"):
            setattr(self, name, np.concatenate([getattr(self, name), getattr(new, name)]))
        return np.arange(start, self.z.size)


def _log_mixture(pair: MixturePair, side: Side, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log(M/D₀)`` of one side ``M`` of a Gaussian pair and the posterior mean of its
    components, whose ratio to σ² is the derivative of ``log(M/D₀)``."""
    means, log_weights = pair.components(side)
    logs = log_weights[:, None] + pair.relative_log(means, z)
    top = logs.max(axis=0)
    shares = np.exp(logs - top)
    total = shares.sum(axis=0)
    return top + np.log(total), (shares * means[:, None]).sum(axis=0) / total


def _log_gaussian_factor(s: float, width: np.ndarray) -> np.ndarray:
    """``log min(width, σ√(2π))``: ``∫ e^{q}`` over a cell of this width, ``q`` a quadratic with
    curvature ``−1/σ²``, is at most ``e^{max q}`` times this."""
    return np.log(np.minimum(width, s * math.sqrt(2 * math.pi)))


def _quadratic_max(constant: np.ndarray, slope: np.ndarray, a: np.ndarray, b: np.ndarray,
                   s: float) -> np.ndarray:
    """``max_{z∈[a,b]} constant + slope·(z − a) − (z² − a²)/2σ²``."""
    z = np.clip(s * s * slope, a, b)
    return constant + slope * (z - a) - (z - a) * (z + a) / (2 * s * s)


def _cell_bounds(pair: MixturePair, alpha: np.ndarray, points: _Points, ia: np.ndarray,
                 ib: np.ndarray, log_phi_ends: np.ndarray, monotone: bool) -> np.ndarray:
    """Upper bounds on ``log ∫ Q φ_α(P/Q)`` over the cells ``[z[ia], z[ib]]``.

    ``Q φ_α(P/Q) = P^α Q^{1−α} − αP + (α − 1)Q ≤ P^α Q^{1−α} + (α − 1)Q``; on the cell ``log P`` is
    below its chord and ``log Q`` above its tangents and below its chord, which bounds both terms by
    Gaussians. Where the privacy loss is monotone, also ``Q φ ≤ max Q · max(φ at the ends)``.
    """
    s = pair.scale
    a, b = points.z[ia], points.z[ib]
    width = b - a
    reference = -a * a / (2 * s * s) - math.log(s) - _LOG_ROOT_2PI
    chord_p = (points.log_p[ib] - points.log_p[ia]) / width
    chord_q = (points.log_q[ib] - points.log_q[ia]) / width
    power = np.full(a.shape, np.inf)
    for end in (ia, ib):
        slope_q = points.mean_q[end] / (s * s)   # the tangent of log Q at this end
        tangent_at_a = points.log_q[end] + slope_q * (a - points.z[end])
        constant = alpha * points.log_p[ia] + (1 - alpha) * tangent_at_a + reference
        slope = alpha * chord_p + (1 - alpha) * slope_q
        power = np.minimum(power, _quadratic_max(constant, slope, a, b, s))
    top_q = _quadratic_max(points.log_q[ia] + reference, chord_q, a, b, s)
    with np.errstate(divide="ignore"):
        bound = np.logaddexp(power, np.log(alpha - 1) + top_q)
    if monotone:
        bound = np.minimum(bound, top_q + log_phi_ends.max(axis=0))
    return bound + _log_gaussian_factor(s, width)


def _initial_edges(center: float, low: float, high: float, s: float) -> np.ndarray:
    """Cell edges covering ``[low, high]``: cells of width 2σ at ``center``, doubling outwards."""
    steps = _PANEL * s * (2.0 ** np.arange(64) - 1)
    right = center + steps[: int(np.searchsorted(center + steps, high)) + 1]
    left = center - steps[1: int(np.searchsorted(steps - center, -low)) + 1]
    return np.concatenate([left[::-1], right])


def _log_tail(x: np.ndarray) -> np.ndarray:
    """``log Φ(−x)`` bounded above by Mills' ratio, ``φ(x)/x``, for ``x > 0``."""
    return -x * x / 2 - np.log(x) - _LOG_ROOT_2PI


def _log_tails(pair: MixturePair, alphas: np.ndarray, points: _Points, left: np.ndarray,
               right: np.ndarray) -> np.ndarray:
    """A bound on ``log`` of ``∫ Q φ_α(P/Q)`` outside ``[z[left], z[right]]``, which contains every
    critical point of ``g = log(P^α Q^{1−α})`` and the means of Q widened by 14σ.

    ``g′(z) = (α m_P(z) + (1 − α) m_Q(z) − z)/σ²`` with posterior means ``m`` between the extreme
    means, so beyond the critical points ``g`` falls at least like a Gaussian of variance σ²
    from its value at the edge: each tail of ``P^α Q^{1−α}`` is at most ``e^{g(edge)} σ√(π/2)``, and
    each tail of ``(α − 1)Q`` at most ``(α − 1) Φ(−distance/σ)``."""
    s = pair.scale
    total = np.full(alphas.size, -np.inf)
    for end, distance in ((left, pair.q_means.min() - points.z[left]),
                          (right, points.z[right] - pair.q_means.max())):
        z = points.z[end]
        g = (alphas * points.log_p[end] + (1 - alphas) * points.log_q[end]
             - z * z / (2 * s * s) - math.log(s) - _LOG_ROOT_2PI)
        with np.errstate(divide="ignore"):
            q_part = np.log(alphas - 1) + _log_tail(distance / s)
        total = np.logaddexp(total, np.logaddexp(g + math.log(s) + 0.5 * math.log(math.pi / 2),
                                                 q_part))
    return total


@dataclass
class _Search:
    """The branch and bound over cells ``[z[start], z[stop]]``: each pair ``(order, cell)`` is
    still open; ``best`` holds, per order, ``log`` of an estimate of the integral, ``left_out``
    ``log`` of the bounds of what was dropped."""

    start: np.ndarray
    stop: np.ndarray
    order: np.ndarray
    cell: np.ndarray
    best: np.ndarray
    left_out: np.ndarray


def _quadratic_panels(pair: MixturePair, alphas: np.ndarray) -> tuple:
    """Panels of a quadratic log-density (the Gaussian's): the cells of
    :func:`_gaussian_cells` and, where used, the closed-form far peak as a piece."""
    far = _far_peak(pair, alphas)
    edges, group, neglected = _gaussian_cells(pair, alphas, far)
    pieces = np.where(far.used, far.log_value, -np.inf)
    piece_error = np.where(far.used, far.error, 0.0)
    return edges, group, pieces, piece_error, neglected


def _gaussian_cells(pair: MixturePair, alphas: np.ndarray, far: _FarPeak
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells (at most 2σ wide, with their order) where ``∫ Q φ_α(P/Q)`` may matter, and per order
    ``log`` of a bound on everything else (cells whose bound is below ``e^{−64}`` times the
    estimate, and the tails). The far peak, where used, is excluded.

    Branch and bound: starting from cells that double in width away from the means of Q, every
    cell whose bound (:func:`_cell_bounds`) reaches the threshold is cut into cells of 2σ (at most
    64 at a time), the others are dropped."""
    s = pair.scale
    points, search = _start_search(pair, alphas, far)
    monotone = pair.ratio_increases
    found = [(np.empty(0, dtype=int), np.empty(0, dtype=int), np.empty(0))]
    while search.order.size:
        bound = _search_round(pair, alphas, points, search, monotone)
        keep = bound >= search.best[search.order] - _DEPTH
        _leave_out(search.left_out, search.order[~keep], bound[~keep])
        width = points.z[search.stop[search.cell]] - points.z[search.start[search.cell]]
        done = keep & (width <= _PANEL * s * (1 + 1e-9))
        found.append((search.order[done], search.cell[done], bound[done]))
        _split(pair, points, search, keep & ~done, s)
    order, cell, bound = (np.concatenate(part) for part in zip(*found))
    keep = bound >= search.best[order] - _DEPTH   # the estimates have grown meanwhile
    _leave_out(search.left_out, order[~keep], bound[~keep])
    edges = np.column_stack([points.z[search.start[cell[keep]]],
                             points.z[search.stop[cell[keep]]]])
    return edges, order[keep], search.left_out


def _start_search(pair: MixturePair, alphas: np.ndarray, far: _FarPeak
                  ) -> tuple[_Points, _Search]:
    """The initial cells of every order: those meeting ``[lo − 14σ, hi + 14σ]`` (``lo``, ``hi``
    bounding the critical points of ``P^α Q^{1−α}`` and the means of Q), less the far peak; the
    tails beyond them are left out from the start."""
    s = pair.scale
    nu_lo, nu_hi = pair.q_means.min(), pair.q_means.max()
    low = np.minimum(alphas * pair.p_means.min() + (1 - alphas) * nu_hi, nu_lo) - _REACH * s
    high = np.maximum(alphas * pair.p_means.max() + (1 - alphas) * nu_lo, nu_hi) + _REACH * s
    points = _Points.at(pair, _initial_edges((nu_lo + nu_hi) / 2, low.min(), high.max(), s))
    start, stop = np.arange(points.z.size - 1), np.arange(1, points.z.size)
    order, cell = np.nonzero((points.z[start][None, :] < high[:, None])
                             & (points.z[stop][None, :] > low[:, None]))
    left, right = np.full(alphas.size, start.size), np.zeros(alphas.size, dtype=int)
    np.minimum.at(left, order, start[cell])
    np.maximum.at(right, order, stop[cell])
    search = _Search(start, stop, order, cell, np.where(far.used, far.log_value, -np.inf),
                     _log_tails(pair, alphas, points, left, right))
    _cut_out_far_peak(pair, points, search, far, s)
    return points, search


def _cut_out_far_peak(pair: MixturePair, points: _Points, search: _Search, far: _FarPeak,
                      s: float) -> None:
    """Replaces each open pair whose cell overlaps its order's closed-form far peak by the parts
    of the cell on either side of it."""
    a, b = points.z[search.start[search.cell]], points.z[search.stop[search.cell]]
    low, high = (far.center - _MAIN * s)[search.order], (far.center + _MAIN * s)[search.order]
    over = far.used[search.order] & (a < high) & (b > low)
    if not over.any():
        return
    owner, cell = search.order[over], search.cell[over]
    ends = points.add(pair, np.concatenate([low[over], high[over]])).reshape(2, -1)
    left, right = a[over] < low[over], b[over] > high[over]
    base = search.start.size
    search.start = np.concatenate([search.start, search.start[cell[left]], ends[1][right]])
    search.stop = np.concatenate([search.stop, ends[0][left], search.stop[cell[right]]])
    search.order = np.concatenate([search.order[~over], owner[left], owner[right]])
    search.cell = np.concatenate([search.cell[~over],
                                  base + np.arange(left.sum() + right.sum())])


def _search_round(pair: MixturePair, alphas: np.ndarray, points: _Points, search: _Search,
                  monotone: bool) -> np.ndarray:
    """Bounds of the open pairs; raises ``best`` by the integrand's values at their ends."""
    s = pair.scale
    alpha = alphas[search.order]
    ends = np.stack([search.start[search.cell], search.stop[search.cell]])
    log_phi_ends = log_phi(np.broadcast_to(alpha, ends.shape),
                           points.log_p[ends] - points.log_q[ends])
    z = points.z[ends]
    values = log_phi_ends + points.log_q[ends] - z * z / (2 * s * s) - math.log(s) - _LOG_ROOT_2PI
    np.maximum.at(search.best, search.order, values.max(axis=0) + math.log(s))
    return _cell_bounds(pair, alpha, points, ends[0], ends[1], log_phi_ends, monotone)


def _leave_out(left_out: np.ndarray, order: np.ndarray, bound: np.ndarray) -> None:
    """Adds the bounds of dropped cells to their orders' ``left_out`` (in place, in logs)."""
    if order.size:
        top = np.full(left_out.size, -np.inf)
        np.maximum.at(top, order, bound)
        total = np.zeros(left_out.size)
        with np.errstate(invalid="ignore"):
            np.add.at(total, order, np.exp(bound - top[order]))
        with np.errstate(divide="ignore"):
            left_out[:] = np.logaddexp(left_out, top + np.log(total))


def _split(pair: MixturePair, points: _Points, search: _Search, wide: np.ndarray,
           s: float) -> None:
    """Cuts the cells of the ``wide`` open pairs into pieces of 2σ (at most 64); the pieces
    replace them as the open pairs."""
    parents, inverse = np.unique(search.cell[wide], return_inverse=True)
    a, b = points.z[search.start[parents]], points.z[search.stop[parents]]
    pieces = np.minimum(np.ceil((b - a) / (_PANEL * s)), 64).astype(int)
    owner = np.repeat(np.arange(parents.size), pieces - 1)
    step = np.arange(owner.size) - _starts(pieces - 1)[owner] + 1
    new = points.add(pair, a[owner] + (b - a)[owner] * step / pieces[owner])
    # each parent's edges: its start, its new points, its stop
    first = _starts(pieces + 1)
    last = first + pieces
    edge = np.empty(int((pieces + 1).sum()), dtype=int)
    inner = np.ones(edge.size, dtype=bool)
    inner[first], inner[last] = False, False
    edge[first], edge[last], edge[inner] = search.start[parents], search.stop[parents], new
    base = search.start.size
    search.start = np.concatenate([search.start, np.delete(edge, last)])
    search.stop = np.concatenate([search.stop, np.delete(edge, first)])
    count = pieces[inverse]
    search.order = np.repeat(search.order[wide], count)
    search.cell = (base + np.repeat(_starts(pieces)[inverse], count)
                   + np.arange(count.sum()) - np.repeat(_starts(count), count))


def _starts(counts: np.ndarray) -> np.ndarray:
    """Where each of consecutive blocks of the given sizes starts."""
    return np.cumsum(counts) - counts


# --- piecewise-linear log-densities (Laplace): exact tails, panels between the kinks ------

def _linear_panels(pair: MixturePair, alphas: np.ndarray) -> tuple:
    """:func:`_laplace_panels`, with nothing neglected."""
    return (*_laplace_panels(pair, alphas), np.full(alphas.size, -np.inf))


def _laplace_panels(pair: MixturePair, alphas: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Panels between the means, ``log ∫`` over both tails (where ``P/Q`` is constant), and the
    relative error of the tails."""
    s = pair.scale
    means = np.unique(np.concatenate([pair.p_means, pair.q_means]))
    tails, tail_error = np.full(alphas.size, -np.inf), np.zeros(alphas.size)
    for end, direction in ((means.max(), 1), (means.min(), -1)):
        # Beyond every mean (and zero), each density is a multiple of exp(−direction·z/s), and
        # the loss is constant: log(P/D₀) and log(Q/D₀) there are the accurate mixture logs.
        beyond = np.array([max(direction * end, 0.0) * direction])
        relative_q = float(pair.log_relative_density(Side.Q, beyond)[0])
        loss = float(pair.log_relative_density(Side.P, beyond)[0]) - relative_q
        loss_error = float(_loss_error(pair, beyond)[0])
        log_q_tail = relative_q - direction * end / s - math.log(2)
        value = log_q_tail + log_phi(alphas, np.full(alphas.size, loss))
        away = loss + (loss_error if loss >= 0 else -loss_error)
        upper = log_q_tail + log_phi(alphas, np.full(alphas.size, away))
        with np.errstate(invalid="ignore"):
            relative = (np.where(np.isfinite(value), np.expm1(upper - value), 0.0)
                        + 8 * EPS * (1 + abs(log_q_tail) + alphas * abs(away) + loss_error))
        tails = np.logaddexp(tails, value)
        tail_error = np.maximum(tail_error, relative)
    cuts = [means[0]]
    for a, b in zip(means[:-1], means[1:]):
        cuts.extend(np.linspace(a, b, int(math.ceil(b - a)) + 1)[1:])
    cuts = np.array(cuts)
    if cuts.size < 2:
        return np.empty((0, 2)), np.empty(0, dtype=int), tails, tail_error
    single = np.column_stack([cuts[:-1], cuts[1:]])
    edges = np.tile(single, (alphas.size, 1))
    return edges, np.repeat(np.arange(alphas.size), single.shape[0]), tails, tail_error


_PANELS = {Shape.QUADRATIC: _quadratic_panels, Shape.PIECEWISE_LINEAR: _linear_panels}
"""The quadrature's panels (with closed-form pieces and what is neglected) per log-density
shape: ``(edges, order of each edge, log pieces, their errors, log neglected)``."""
