"""The hockey-stick divergence ``H_γ(P ‖ Q) = ∫ max(P − γ Q, 0)`` of dominating pairs (ADP δ(ε)).

For the pairs otbound's solvers produce, every mean of ``P`` lies at or above every mean of
``Q``, so the likelihood ratio ``P/Q`` is non-decreasing and ``{P > γQ}`` is a half-line
``(z*, ∞)``: ``δ = P(Z > z*) − γ Q(Z > z*)``, a sum of normal or Laplace survival functions at one
root. That closed form needs no quadrature. When ``γ`` reaches ``sup P/Q`` (e.g. Gaussian pairs
with no removed element, or any Laplace pair) ``δ`` is exactly zero and is reported as 0.
The subtraction is done in log space; when its rounding error is too large relative to ``δ``,
the two survival sums are recomputed with mpmath at 40 digits.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import cast

import mpmath as mp
import numpy as np

from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.numerics.limits import MAX_EPSILON, show
from otbound.numerics.noise import LineDensity
from otbound.numerics.pairs import FinitePair, MixturePair, Side, log_sum_exp
from otbound.numerics.rounding import EPS, Bounds, NumericBound

ESCALATE = 1e-11
"""Relative error of δ above which the survival sums are recomputed in high precision."""
_TOLERANCE = ContextVar("hockey_stick_tolerance", default=ESCALATE)
CHUNK = 1 << 16
"""Privacy parameters evaluated at once for a finite pair (bounds the memory of one batch)."""


@contextmanager
def tolerating(relative: float):
    """Within it, a δ whose estimated relative error is at most ``relative`` (instead of
    :data:`ESCALATE`) is kept as computed, rounded up by that error, not recomputed in high
    precision: for grids of many ε whose consumer tolerates it (a PLD's profile)."""
    token = _TOLERANCE.set(relative)
    try:
        yield
    finally:
        _TOLERANCE.reset(token)


def check_epsilons(epsilons) -> np.ndarray:
    """Validate privacy parameters ε: numbers in [−1000, 1000] (``δ(ε) = H_{e^ε}`` is defined
    for every real ε; below 0 it is at least ``1 − e^ε``)."""
    epsilons = np.atleast_1d(np.asarray(epsilons, dtype=float))
    for epsilon in epsilons:
        if not (-MAX_EPSILON <= epsilon <= MAX_EPSILON):
            raise InvalidSpecification(
                f"epsilon must be in [{-MAX_EPSILON:g}, {MAX_EPSILON:g}], got {show(epsilon)}",
                parameter="epsilons")
    return epsilons


def hockey_stick(pair: MixturePair | FinitePair, epsilon: float) -> NumericBound:
    """``δ(ε) = H_{e^ε}(P ‖ Q)`` as an upper bound."""
    return hockey_stick_curve(pair, [epsilon])[0]


def hockey_stick_curve(pair: MixturePair | FinitePair, epsilons,
                       tolerance: float | None = None) -> list[NumericBound]:
    """``δ(ε)`` for every ε, each rounded up by its error estimate (:func:`hockey_stick_bounds`
    as a list)."""
    return hockey_stick_bounds(pair, epsilons, tolerance).as_list()


def hockey_stick_bounds(pair: MixturePair | FinitePair, epsilons,
                        tolerance: float | None = None) -> Bounds:
    """``δ(ε)`` for every ε, each rounded up by its error estimate.

    ε may be negative (``H_γ`` with ``γ < 1``, which privacy loss distributions need); user input
    is checked by :func:`check_epsilons` before it gets here. Values whose estimated relative
    error exceeds ``tolerance`` (:data:`ESCALATE`, or as set by :func:`tolerating`) are
    recomputed in high precision.
    """
    tolerance = _TOLERANCE.get() if tolerance is None else tolerance
    epsilons = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if not np.all(np.isfinite(epsilons)):
        raise InvalidSpecification(f"epsilon must be finite, got {epsilons}")
    if not isinstance(pair, (FinitePair, MixturePair)):   # an epoch's pair knows its profile
        return pair.delta_bounds(epsilons)
    if isinstance(pair, FinitePair):
        parts = [_finite(pair, epsilons[start:start + CHUNK])
                 for start in range(0, max(epsilons.size, 1), CHUNK)]
        return Bounds(np.concatenate([b.upper for b in parts]),
                      np.concatenate([b.estimate for b in parts]))
    return pair.family.delta_bounds(pair, epsilons, tolerance)


def density_delta_bounds(pair: MixturePair, epsilons: np.ndarray, tolerance: float) -> Bounds:
    """``δ(ε)`` of a pair of a :class:`~otbound.numerics.noise.LineDensity` (the module
    docstring's closed form), each rounded up by its error estimate."""
    _require_monotone(pair)
    upper, estimate = np.zeros(epsilons.size), np.zeros(epsilons.size)
    open_ = np.flatnonzero(epsilons < pair.log_sup_ratio())   # δ = 0 exactly elsewhere
    if open_.size:
        roots, steps = _roots(pair, epsilons[open_])
        found = _deltas_at(pair, epsilons[open_], roots, steps, tolerance)
        upper[open_], estimate[open_] = found.upper, found.estimate
    return Bounds(upper, estimate)


def _finite(pair: FinitePair, epsilons: np.ndarray) -> Bounds:
    """``δ = Σ_{u_i > ε} p_i (1 − e^{ε − u_i})`` over the privacy losses ``u_i`` (no overflow at
    any ε), for every ε at once. The error bound is the same sum with every loss raised by its
    error; where no raised loss exceeds ε, δ is exactly 0 (the ratio is at most e^ε everywhere)."""
    u, du = pair.log_ratio[:, None], pair.log_ratio_error[:, None]
    epsilons = epsilons[None, :]

    def excess(losses: np.ndarray) -> np.ndarray:
        share = -np.expm1(np.minimum(epsilons - losses, 0.0))
        return pair.p @ np.where(losses > epsilons, share, 0.0)

    estimates, uppers = excess(u), excess(u + du) * (1 + 8 * EPS)
    zero = ~np.any((u + du > epsilons) & (pair.p[:, None] > 0), axis=0)
    found = Bounds.rounded_up(estimates, uppers - estimates)
    return Bounds(np.where(zero, 0.0, found.upper), np.where(zero, 0.0, found.estimate))


def _density(pair: MixturePair) -> LineDensity:
    """The pair's family, which this module's closed form is only called for with a density
    on the line (:meth:`LineDensity.delta_bounds`)."""
    return cast(LineDensity, pair.family)


def _require_monotone(pair: MixturePair) -> None:
    if not pair.ratio_increases:
        raise UnsupportedOperation(
            "the closed-form hockey stick needs every mean of P at or above every mean of Q "
            "(monotone likelihood ratio)")


def _loss_and_slope(pair: MixturePair, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log P − log Q`` and its derivative (plain log-sum-exp: the root only needs to be
    accurate to first order, since δ is stationary in it)."""
    loss, slope = np.zeros(z.shape), np.zeros(z.shape)
    for side, sign in ((Side.P, 1.0), (Side.Q, -1.0)):
        means, log_weights = pair.components(side)
        logits = log_weights[:, None] + pair.relative_log(means, z)
        top = logits.max(axis=0)
        weights = np.exp(logits - top)
        total = weights.sum(axis=0)
        derivative = _density(pair).relative_log_slope(means, z, pair.scale)
        loss += sign * (top + np.log(total))
        slope += sign * (weights * derivative).sum(axis=0) / total
    return loss, slope


_GRID = np.concatenate([-(2.0 ** np.arange(60, -1, -1)), [0.0], 2.0 ** np.arange(0, 61)])


_SAMPLE = 512
"""Roots solved first, spread over many ε, whose interpolation starts the Newton steps of all."""


def _roots(pair: MixturePair, epsilons: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``z*`` with ``log P(z*) − log Q(z*) = ε``, by bracketed Newton steps; and the last step."""
    grid = _GRID * max(pair.scale, 1.0)
    loss_grid, _ = _loss_and_slope(pair, grid)
    # the first grid point whose loss exceeds ε (0 if none): where the running maximum of the
    # losses (NaN counting as -inf) first exceeds it
    running = np.maximum.accumulate(np.where(np.isnan(loss_grid), -np.inf, loss_grid))
    first = np.searchsorted(running, epsilons, side="right")
    first = np.where(first < grid.size, first, 0)
    hi, lo = grid[first], grid[np.maximum(first - 1, 0)]
    z = (lo + hi) / 2
    if epsilons.size > 4 * _SAMPLE:   # z*(ε) is increasing: start from a sample's roots
        sample = np.argsort(epsilons)[::epsilons.size // _SAMPLE]
        sampled, _ = _roots(pair, epsilons[sample])
        z = np.clip(np.interp(epsilons, epsilons[sample], sampled), lo, hi)
    step = hi - lo
    active = np.arange(z.size)
    for _ in range(200):
        zs, targets = z[active], epsilons[active]
        loss, slope = _loss_and_slope(pair, zs)
        lo[active] = np.where(loss <= targets, zs, lo[active])
        hi[active] = np.where(loss > targets, zs, hi[active])
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = zs - (loss - targets) / slope
        inside = np.isfinite(newton) & (newton >= lo[active]) & (newton <= hi[active])
        z_new = np.where(inside, newton, (lo[active] + hi[active]) / 2)
        step[active] = np.abs(z_new - zs)
        z[active] = z_new
        tolerance = 8 * EPS * (1 + np.abs(z_new))
        done = (step[active] <= tolerance) | (hi[active] - lo[active] <= tolerance)
        active = active[~done]
        if active.size == 0:
            break
    return z, step


def _deltas_at(pair: MixturePair, epsilons: np.ndarray, roots: np.ndarray,
               steps: np.ndarray, tolerance: float) -> Bounds:
    """``δ = A − e^ε B`` at each root, ``A = P(Z > z*)`` and ``B = Q(Z > z*)``, vectorised.

    Each term ``w_i S_i`` of ``A`` (and ``B``) is the exponential of a sum of logarithms, so it
    carries a few ulps of ``|log w_i| + |log S_i|`` (the log-weights are correctly rounded, and
    ``log S`` is accurate to a few ulps); the share-weighted sum of these is the relative error of
    ``A``, which the cancellation in ``A − e^ε B`` amplifies by ``A/δ``."""
    s = pair.scale
    survival_p = _density(pair).log_survival((roots[None, :] - pair.p_means[:, None]) / s)
    survival_q = _density(pair).log_survival((roots[None, :] - pair.q_means[:, None]) / s)
    relative_a, log_a = _relative_rounding(pair.p_log_weights, survival_p)
    relative_b, log_q_tail = _relative_rounding(pair.q_log_weights, survival_q)
    log_b = epsilons + log_q_tail
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        ratio = np.exp(np.minimum(log_b - log_a, 0.0))   # e^ε B / A (< 1 where δ > 0)
        delta = np.where(log_b >= log_a, 0.0, np.exp(log_a + np.log1p(-ratio)))
        amplify = (1 + ratio) / (1 - ratio)
        relative = (8 * EPS * (relative_a + ratio * (relative_b + np.abs(epsilons))) / (1 - ratio)
                    + (steps / s) ** 2 * amplify)   # the root's error enters at second order
        error = np.where(log_b >= log_a, 0.0, delta * relative)
    for i in np.flatnonzero(~(relative <= tolerance)):
        delta[i], error[i] = _precise_delta(pair, float(epsilons[i]), float(roots[i]),
                                            float(steps[i]))
    return Bounds.rounded_up(delta, error)


def _relative_rounding(log_weights: np.ndarray, log_survival: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``(Σ_i share_i (1 + |log w_i| + |log S_i|), log Σ_i w_i S_i)`` per column."""
    terms = log_weights[:, None] + log_survival
    total = log_sum_exp(terms, axis=0)
    magnitude = 1 + np.abs(log_weights)[:, None] + np.abs(log_survival)
    with np.errstate(invalid="ignore", over="ignore"):
        shares = np.exp(terms - np.where(np.isfinite(total), total, 0.0)[None, :])
    return (shares * magnitude).sum(axis=0), total


def _precise_delta(pair: MixturePair, epsilon: float, root: float,
                   step: float) -> tuple[float, float]:
    """``δ`` at the given root with 40-digit survival functions."""
    with mp.workdps(40):
        s, z = mp.mpf(pair.scale), mp.mpf(root)
        survival = _density(pair).survival_mp

        def total(means, log_weights):
            weights = [mp.exp(mp.mpf(w)) for w in log_weights]
            norm = mp.fsum(weights)
            return mp.fsum(w / norm * survival((z - mp.mpf(m)) / s) for m, w in zip(means, weights))

        a = total(pair.p_means, pair.p_log_weights)
        b = mp.exp(mp.mpf(epsilon)) * total(pair.q_means, pair.q_log_weights)
        delta = max(a - b, mp.mpf(0))
        # The log-weights are doubles (correctly rounded): each weight is off by an ulp of its
        # logarithm, which no working precision removes.
        weights = np.abs(np.concatenate([pair.p_log_weights, pair.q_log_weights]))
        representation = 2 * EPS * (1 + float(weights.max()))
        error = (mp.mpf(10) ** -35 + (mp.mpf(step) / s) ** 2 + representation) * (a + b)
        return float(delta), float(error) + 2 * EPS * float(delta)
