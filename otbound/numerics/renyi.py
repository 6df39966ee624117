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

The integrand ``φ_α`` is :mod:`otbound.numerics.renyi_integrand`; where the quadrature integrates
it, per log-density shape: :mod:`otbound.numerics.renyi_gaussian_cells` (the far peak and the
cells) and :mod:`otbound.numerics.renyi_laplace_panels` (the exact tails and the panels).
"""

from __future__ import annotations

import functools
import math
from typing import cast

import numpy as np

from otbound.errors import InvalidSpecification
from otbound.numerics.limits import MAX_ALPHA, show
from otbound.numerics.noise import LineDensity, Shape
from otbound.numerics.pairs import FinitePair, MixturePair, log_sum_exp
from otbound.numerics.quadrature import ROUNDING, integrate_exp
from otbound.numerics.renyi_gaussian_cells import _quadratic_panels
from otbound.numerics.renyi_integrand import _phi_sensitivity, log_phi
from otbound.numerics.renyi_laplace_panels import _linear_panels
from otbound.numerics.rounding import EPS, NumericBound, exact_zero


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


def _log_psi_from_excess(log_excess: np.ndarray, relative_error: np.ndarray | float
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
        values, errors = pair.family.log_psi_values(pair, orders)
    bounds = [NumericBound.rounded_up(float(v), float(e)) for v, e in zip(values, errors)]
    return [bounds[k] for k in inverse]


def density_log_psi(pair: MixturePair, orders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log Ψ_α`` and its error at distinct orders for a pair of a
    :class:`~otbound.numerics.noise.LineDensity`: the binomial expansion at integer orders
    where it applies, quadrature per the family's shape elsewhere."""
    values, errors = np.empty(orders.size), np.empty(orders.size)
    integer = (orders == np.floor(orders)) & _is_binomial_removal(pair)
    if integer.any():
        values[integer], errors[integer] = _binomial(pair, orders[integer].astype(int))
    if (~integer).any():
        values[~integer], errors[~integer] = _integrated(pair, orders[~integer])
    return values, errors


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
    family = cast(LineDensity, pair.family)   # quadrature: a density on the line
    edges, group, pieces, piece_error, neglected = _PANELS[family.shape](pair, alphas)

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


_PANELS = {Shape.QUADRATIC: _quadratic_panels, Shape.PIECEWISE_LINEAR: _linear_panels}
"""The quadrature's panels (with closed-form pieces and what is neglected) per log-density
shape: ``(edges, order of each edge, log pieces, their errors, log neglected)``."""
