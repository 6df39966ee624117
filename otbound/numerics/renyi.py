"""The scaled Rényi divergence ``Ψ_α(P ‖ Q) = ∫ P^α Q^{1−α}`` of dominating pairs, in log space.

``Ψ_α − 1 = ∫ Q φ_α(P/Q)`` with ``φ_α(L) = L^α − 1 − α (L − 1) ≥ 0``, because ``∫ Q = ∫ P = 1``.
otbound integrates this non-negative form, which keeps tiny divergences (``Ψ_α − 1 ≈ 10^{-10}``)
accurate to many digits, and works with its logarithm, which keeps astronomically large ones
finite. Closed forms are used where they exist: finite pairs, and the binomial expansion of the
Poisson subsampled Gaussian with one removed element and integer α (001 Prop. E.4; the sum runs
over non-negative terms only). Everything else is integrated by
:mod:`otbound.numerics.quadrature` on panels placed around the peaks of the integrand, for all
requested orders at once.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from otbound.errors import InvalidSpecification
from otbound.numerics.limits import MAX_ALPHA, show
from otbound.numerics.pairs import Family, FinitePair, MixturePair, Side, log_sum_exp
from otbound.numerics.quadrature import ROUNDING, integrate_exp
from otbound.numerics.rounding import EPS, NumericBound, exact_zero

PANEL_DEPTH = 64.0
"""Panels reach down to ``exp(-PANEL_DEPTH)`` (< 1e-27) times the largest value of the integrand."""
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
    if pair.is_trivial():
        return [exact_zero() for _ in alphas]
    if isinstance(pair, FinitePair):
        values, errors = _finite(pair, alphas)
    else:
        values, errors = np.empty(alphas.size), np.empty(alphas.size)
        integer = (alphas == np.floor(alphas)) & _is_single_gaussian_removal(pair)
        if integer.any():
            values[integer], errors[integer] = _binomial(pair, alphas[integer].astype(int))
        if (~integer).any():
            values[~integer], errors[~integer] = _integrated(pair, alphas[~integer])
    return [NumericBound.rounded_up(float(v), float(e)) for v, e in zip(values, errors)]


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
        # log φ is within about one ulp of its magnitude (≤ α|u| + 1) for every branch of log_phi.
        rounding = np.log1p(4 * EPS * (2 + a * np.abs(away) + np.abs(log_q) + u.size))
        upper = log_q + log_phi(a * np.ones(shape), np.broadcast_to(away, shape)) + rounding
    value, _ = _log_psi_from_excess(log_sum_exp(estimate, axis=1), np.zeros(alphas.size))
    high, _ = _log_psi_from_excess(log_sum_exp(upper, axis=1), np.zeros(alphas.size))
    return value, (high - value) + 2 * EPS * high


def _is_single_gaussian_removal(pair: MixturePair) -> bool:
    return (pair.family is Family.GAUSSIAN and pair.q_means.size == 1 and pair.p_means.size == 2
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
    def log_integrand(z: np.ndarray, group: np.ndarray) -> np.ndarray:
        relative_q = pair.log_relative_density(Side.Q, z)
        loss = pair.log_relative_density(Side.P, z) - relative_q
        return relative_q + pair.log_reference(z) + log_phi(alphas[group], loss)

    def log_sensitivity(z: np.ndarray, group: np.ndarray) -> np.ndarray:
        """The relative error of the integrand from the rounding of the privacy loss."""
        loss = pair.log_relative_density(Side.P, z) - pair.log_relative_density(Side.Q, z)
        with np.errstate(divide="ignore"):
            return np.log(_phi_sensitivity(alphas[group], loss, _loss_error(pair, z)))

    if pair.family is Family.GAUSSIAN:
        edges, group = _gaussian_panels(pair, alphas)
        tails, tail_error = np.full(alphas.size, -np.inf), np.zeros(alphas.size)
    else:
        edges, group, tails, tail_error = _laplace_panels(pair, alphas)
    result = integrate_exp(log_integrand, edges, group, alphas.size,
                           log_sensitivity=log_sensitivity)
    log_excess = np.logaddexp(result.log_values, tails)
    with np.errstate(invalid="ignore"):
        share = np.where(np.isfinite(log_excess), np.exp(result.log_values - log_excess), 0.0)
    error = result.relative_errors * share + tail_error * (1 - share) + 4 * ROUNDING
    return _log_psi_from_excess(log_excess, error)


def _loss_error(pair: MixturePair, z: np.ndarray) -> np.ndarray:
    """Absolute error of the privacy loss ``log(P/D₀) − log(Q/D₀)`` (its parts may cancel)."""
    return pair.log_relative_density_error(Side.P, z) + pair.log_relative_density_error(Side.Q, z)


def _phi_sensitivity(alpha, loss: np.ndarray, loss_error: np.ndarray) -> np.ndarray:
    """Relative change of ``φ_α(e^u)`` when ``u`` moves by ``loss_error``: at most
    ``(2/|u| + α + 1)·du`` (``φ ≈ α(α−1)u²/2`` near zero, ``≈ e^{αu}`` far out), capped at 1e300."""
    with np.errstate(divide="ignore"):
        return np.minimum((2 / np.abs(loss) + alpha + 1) * loss_error, 1e300)


# --- Gaussian pairs: panels around the peaks of P^α Q^{1−α} ---------------------------------

def _log_power_mean(pair: MixturePair, alpha: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``g(z) = log(P^α Q^{1−α})`` (``alpha`` shaped like ``z``)."""
    return (alpha * pair.log_relative_density(Side.P, z)
            + (1 - alpha) * pair.log_relative_density(Side.Q, z) + pair.log_reference(z))


def _moments(pair: MixturePair, side: Side, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    means, log_weights = pair.components(side)
    logits = log_weights[:, None] + pair.relative_log(means, z)
    weights = np.exp(logits - logits.max(axis=0))
    weights /= weights.sum(axis=0)
    mean = (weights * means[:, None]).sum(axis=0)
    variance = np.maximum((weights * means[:, None] ** 2).sum(axis=0) - mean ** 2, 0.0)
    return mean, variance


def _derivatives(pair: MixturePair, alpha: np.ndarray,
                 z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and second derivative of ``g`` (Gaussian components)."""
    s2 = pair.scale ** 2
    mean_p, var_p = _moments(pair, Side.P, z)
    mean_q, var_q = _moments(pair, Side.Q, z)
    first = (alpha * mean_p + (1 - alpha) * mean_q - z) / s2
    second = (alpha * var_p + (1 - alpha) * var_q) / s2 ** 2 - 1 / s2
    return first, second


def _transitions(means: np.ndarray, log_weights: np.ndarray, s: float) -> list[float]:
    order = np.argsort(means)
    mu, lw = means[order], log_weights[order]
    return [float((mu[i] + mu[i + 1]) / 2 + s * s * (lw[i] - lw[i + 1]) / (mu[i + 1] - mu[i]))
            for i in range(len(mu) - 1) if mu[i + 1] > mu[i]]


def _gaussian_peaks(pair: MixturePair, alphas: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Local maxima of ``g`` (position, curvature, order index), for every order.

    ``g'(z) = (α m_P(z) + (1 − α) m_Q(z) − z)/s²`` with ``m_P``, ``m_Q`` the posterior mean
    component positions, so every critical point lies in ``[lo, hi]`` below, near a point where
    both ``m_P`` and ``m_Q`` sit on a component (``α μ_i + (1 − α) ν_j``) or one of them switches.
    Newton's method from all these candidates finds the peaks.
    """
    s = pair.scale
    a = alphas[:, None]
    lo = a * pair.p_means.min() + (1 - a) * pair.q_means.max()
    hi = a * pair.p_means.max() + (1 - a) * pair.q_means.min()
    fixed = np.array([0.0] + _transitions(pair.p_means, pair.p_log_weights, s)
                     + _transitions(pair.q_means, pair.q_log_weights, s))
    plateaus = (a[:, :, None] * pair.p_means[None, :, None]
                + (1 - a[:, :, None]) * pair.q_means[None, None, :])
    candidates = np.concatenate([np.broadcast_to(fixed, (alphas.size, fixed.size)), lo, hi,
                                 plateaus.reshape(alphas.size, -1)], axis=1)
    candidates = np.clip(candidates, lo, hi)
    owner = np.repeat(np.arange(alphas.size), candidates.shape[1])
    z, lo, hi, alpha = candidates.ravel(), np.repeat(lo, candidates.shape[1]), \
        np.repeat(hi, candidates.shape[1]), alphas[owner]
    heights = _log_power_mean(pair, alpha, z)
    best = np.full(alphas.size, -np.inf)
    np.maximum.at(best, owner, heights)
    promising = heights >= best[owner] - 2 * PANEL_DEPTH
    z, lo, hi, alpha, owner = z[promising], lo[promising], hi[promising], alpha[promising], \
        owner[promising]
    span = 10 * s + 0.1 * (hi - lo)
    for _ in range(100):
        first, second = _derivatives(pair, alpha, z)
        newton = np.where(second < 0, -first / np.where(second < 0, second, -1.0),
                          np.sign(first) * s)
        z_new = np.clip(z + np.clip(newton, -span, span), lo, hi)
        if np.all(np.abs(z_new - z) <= 1e-12 * (1 + np.abs(z))):
            break
        z = z_new
    key = np.round(z / (s / 8))
    _, unique = np.unique(np.column_stack([owner, key]), axis=0, return_index=True)
    z, alpha, owner = z[unique], alpha[unique], owner[unique]
    _, second = _derivatives(pair, alpha, z)
    return z, np.maximum(-second, 1e-300), owner


_STEPS = np.concatenate([np.arange(1.0, 16.0), 2.0 ** np.arange(4, 50)])
_STEPS = np.concatenate([-_STEPS, _STEPS])


def _extents(pair: MixturePair, alpha: np.ndarray, centers: np.ndarray, widths: np.ndarray,
             floor: np.ndarray) -> np.ndarray:
    """For each peak, how far left and right ``g`` stays above ``floor`` (in steps of its width)."""
    offsets = widths[:, None] * _STEPS[None, :]
    values = _log_power_mean(pair, np.repeat(alpha, _STEPS.size),
                             (centers[:, None] + offsets).ravel()).reshape(offsets.shape)
    below = values < floor[:, None]
    half = _STEPS.size // 2
    result = np.empty((centers.size, 2))
    for column, part in enumerate((slice(0, half), slice(half, None))):
        hit = below[:, part]
        first = np.where(hit.any(axis=1), hit.argmax(axis=1), half - 1)
        result[:, column] = np.abs(offsets[:, part][np.arange(centers.size), first])
    return result


def _gaussian_panels(pair: MixturePair, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = pair.scale
    peaks, curvature, owner = _gaussian_peaks(pair, alphas)
    alpha = alphas[owner]
    heights = _log_power_mean(pair, alpha, peaks)
    best = np.full(alphas.size, -np.inf)
    np.maximum.at(best, owner, heights)
    keep = heights >= best[owner] - PANEL_DEPTH
    widths = np.minimum(s, 1 / np.sqrt(curvature[keep]))
    reaches = _extents(pair, alpha[keep], peaks[keep], widths, best[owner[keep]] - PANEL_DEPTH)
    intervals: list[list[tuple[float, float, float]]] = [[] for _ in alphas]
    for g, center, width, (left, right) in zip(owner[keep], peaks[keep], widths, reaches):
        intervals[g].append((center - left, center + right, width))
    reach = math.sqrt(2 * PANEL_DEPTH) * s + s
    bulk = (pair.q_means.min() - reach, pair.q_means.max() + reach, s)
    return _panels([found + [bulk] for found in intervals])


def _panels(intervals: list[list[tuple[float, float, float]]]) -> tuple[np.ndarray, np.ndarray]:
    """Per group: merge overlapping intervals, cut each into panels no wider than its width."""
    edges, owners = [], []
    for g, found in enumerate(intervals):
        merged: list[list[float]] = []
        for a, b, width in sorted(found):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
                merged[-1][2] = min(merged[-1][2], width)
            else:
                merged.append([a, b, width])
        for a, b, width in merged:
            count = int(min(max(math.ceil((b - a) / width), 1), 4000))
            points = np.linspace(a, b, count + 1)
            edges.append(np.column_stack([points[:-1], points[1:]]))
            owners.append(np.full(count, g))
    return np.concatenate(edges), np.concatenate(owners)


# --- Laplace pairs: exact tails, panels between the kinks ---------------------------------

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
