"""From Rényi DP to (ε, δ): three conversions, the last one optimal.

For a mechanism that is ``(α, ρ)``-RDP:

* **Mironov 2017, Prop. 3**: ``δ = exp((α − 1)(ρ − ε))``.
* **Balle et al. 2020, Thm. 21** (also Canonne et al. 2020, Prop. 12, as in dp_accounting):
  ``log δ = (α − 1)(ρ − ε + log(1 − 1/α)) − log α``, together with ``δ ≤ sqrt(1 − e^{−ρ})``.
* **Optimal (seed 004, Asoodeh et al.)**: the largest ``δ`` over *all* ``(α, ρ)``-RDP mechanisms
  is attained by a pair of Bernoulli distributions (joint range of f-divergences, Harremoës &
  Vajda 2011). With ``P = Bern(p)``, ``Q = Bern(q)``, ``p ≥ q``, the RDP constraint is
  ``p^α q^{1−α} + (1−p)^α (1−q)^{1−α} ≤ e^{(α−1)ρ}`` and ``δ = p − e^ε q``. Its feasible set is
  convex, so its upper boundary ``p*(q)`` is concave and the problem reduces to one parameter:
  ``δ*(ε) = max_q p*(q) − e^ε q`` and ``ε*(δ) = max_q log((p*(q) − δ)/q)``, both unimodal in
  ``q``. They are solved by golden-section search in ``t = −log q`` with ``log p*`` by
  bisection, vectorised over orders, and rounded up by a relative margin of 1e-9.

For a curve of orders the best order is taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from otbound.errors import InvalidSpecification

_GOLDEN = (math.sqrt(5) - 1) / 2


class Conversion(Enum):
    OPTIMAL = "optimal"
    BALLE2020 = "balle2020"
    MIRONOV = "mironov"


@dataclass(frozen=True)
class Converted:
    """A converted guarantee; for the optimal conversion also the Bernoulli pair attaining it."""

    epsilon: float
    delta: float
    order: float
    bernoulli: tuple[float, float] | None = None


def _check(alpha: float, rho: float) -> None:
    if not alpha > 1:
        raise InvalidSpecification(f"order alpha must be > 1, got {alpha}")
    if not (rho >= 0 and math.isfinite(rho)):
        raise InvalidSpecification(f"RDP value must be a finite number >= 0, got {rho}")


def _check_delta(delta: float) -> None:
    if not 0 < delta < 1:
        raise InvalidSpecification(f"--delta must be in (0, 1), got {delta}")


# --- the classical conversions ----------------------------------------------------------------

def mironov_epsilon(alpha: float, rho: float, delta: float) -> float:
    return rho + math.log(1 / delta) / (alpha - 1)


def mironov_delta(alpha: float, rho: float, epsilon: float) -> float:
    return math.exp(min(0.0, (alpha - 1) * (rho - epsilon)))


def balle_epsilon(alpha: float, rho: float, delta: float) -> float:
    if delta ** 2 + math.expm1(-rho) > 0:   # δ ≥ sqrt(1 − e^{−ρ}) already holds at ε = 0
        return 0.0
    return max(0.0, rho + math.log1p(-1 / alpha) - math.log(delta * alpha) / (alpha - 1))


def balle_delta(alpha: float, rho: float, epsilon: float) -> float:
    kl = 0.5 * math.log1p(-math.exp(-rho)) if rho > 0 else -math.inf
    bound = (alpha - 1) * (rho - epsilon + math.log1p(-1 / alpha)) - math.log(alpha)
    return min(1.0, math.exp(min(kl, bound)))


# --- the optimal conversion -------------------------------------------------------------------

_BISECTIONS, _GOLDEN_STEPS = 64, 90
_MARGIN = 1e-9
"""Relative margin added to optimal values: covers the search tolerance and rounding."""


def _log_psi(alpha, log_p, log_q):
    """``log Ψ_α(Bern p ‖ Bern q)`` in log space, accurate also when ``p ≈ q``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        first = alpha * log_p + (1 - alpha) * log_q
        second = alpha * np.log1p(-np.exp(log_p)) + (1 - alpha) * np.log1p(-np.exp(log_q))
        general = np.logaddexp(first, np.where(np.isnan(second), -np.inf, second))
        # Ψ − 1 = q·g(x) + (1 − q)·g(y) with x = p/q − 1, y = −q x/(1 − q) and
        # g(x) = (1 + x)^α − 1 − αx: no cancellation when Ψ is close to 1.
        x = np.expm1(np.clip(log_p - log_q, -0.5, 0.5))
        q = np.exp(log_q)
        y = -q * x / -np.expm1(log_q)
        near = np.log1p(q * _excess(alpha, x) + (1 - q) * _excess(alpha, y))
    return np.where((np.abs(log_p - log_q) < 0.5) & (log_q < -1e-3), near, general)


def _excess(alpha, x):
    """``(1 + x)^α − 1 − αx``, by its binomial series where ``|αx|`` is small."""
    direct = np.expm1(alpha * np.log1p(x)) - alpha * x
    series, coefficient = np.zeros_like(direct), alpha * np.ones_like(direct)
    for k in range(2, 10):
        coefficient = coefficient * (alpha - k + 1) / k
        series = series + coefficient * x ** k
    return np.where(np.abs(alpha * x) < 1e-2, series, direct)


def _log_boundary(alpha, log_q, log_budget):
    """``log p*(q)``: the largest ``p ≥ q`` with ``log Ψ_α ≤ log_budget``, by bisection."""
    lo, hi = log_q.copy(), np.zeros_like(log_q)
    at_one = _log_psi(alpha, hi, log_q) <= log_budget
    for _ in range(_BISECTIONS):
        middle = (lo + hi) / 2
        inside = _log_psi(alpha, middle, log_q) <= log_budget
        lo, hi = np.where(inside, middle, lo), np.where(inside, hi, middle)
    return np.where(at_one, 0.0, lo)


def _golden_maximum(objective, lo, hi):
    """Vectorised golden-section search: the maximum of each unimodal objective and its place."""
    c, d = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
    fc, fd = objective(c), objective(d)
    for _ in range(_GOLDEN_STEPS):
        left = fc >= fd
        lo, hi = np.where(left, lo, c), np.where(left, d, hi)
        c_new = np.where(left, hi - _GOLDEN * (hi - lo), d)
        d_new = np.where(left, c, lo + _GOLDEN * (hi - lo))
        evaluate = np.where(left, c_new, d_new)
        value = objective(evaluate)
        fc, fd = np.where(left, value, fd), np.where(left, fc, value)
        c, d = c_new, d_new
    better = fc >= fd
    return np.where(better, fc, fd), np.where(better, c, d)


def _orders(alphas, rhos) -> tuple[np.ndarray, np.ndarray]:
    alphas, rhos = np.atleast_1d(np.asarray(alphas, float)), np.atleast_1d(np.asarray(rhos, float))
    for alpha, rho in zip(alphas, rhos):
        _check(float(alpha), float(rho))
    return alphas, rhos


def _maximise_over_q(objective, alphas, rhos):
    """The maximum of ``objective(t)`` over ``t = −log q`` in ``[ρ, ρ + 40 + 800/(α − 1)]``."""
    return _golden_maximum(objective, rhos, rhos + 40 + 800 / (alphas - 1))


def _pairs(alphas, rhos, t) -> list[tuple[float, float]]:
    log_p = _log_boundary(alphas, -t, (alphas - 1) * rhos)
    return [(float(p), float(q)) for p, q in zip(np.exp(log_p), np.exp(-t))]


def optimal_epsilons(alphas, rhos, delta: float) -> list[Converted]:
    """``ε*(δ) = max_q log((p*(q) − δ)/q)`` for each ``(α, ρ)`` (seed 004), rounded up."""
    alphas, rhos = _orders(alphas, rhos)
    _check_delta(delta)
    log_budget, log_delta = (alphas - 1) * rhos, math.log(delta)

    def objective(t):
        log_p = _log_boundary(alphas, -t, log_budget)
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = np.where(log_p > log_delta, np.log(-np.expm1(log_delta - log_p)), -np.inf)
        return log_p + gap + t

    best, t = _maximise_over_q(objective, alphas, rhos)
    epsilons = np.maximum(best + _MARGIN * (1 + np.abs(best)), 0.0)
    return [Converted(float(e), delta, float(a), pair)
            for e, a, pair in zip(epsilons, alphas, _pairs(alphas, rhos, t))]


def optimal_deltas(alphas, rhos, epsilon: float) -> list[Converted]:
    """``δ*(ε) = max_q p*(q) − e^ε q`` for each ``(α, ρ)`` (seed 004), rounded up."""
    alphas, rhos = _orders(alphas, rhos)
    if not (epsilon >= 0 and math.isfinite(epsilon)):
        raise InvalidSpecification(f"--epsilon must be a finite number >= 0, got {epsilon}")
    log_budget = (alphas - 1) * rhos

    def objective(t):
        return np.exp(_log_boundary(alphas, -t, log_budget)) - np.exp(epsilon - t)

    best, t = _maximise_over_q(objective, alphas, rhos)
    deltas = np.minimum(np.maximum(best, 0.0) * (1 + _MARGIN) + 1e-300, 1.0)
    return [Converted(epsilon, float(d), float(a), pair)
            for d, a, pair in zip(deltas, alphas, _pairs(alphas, rhos, t))]


def optimal_epsilon(alpha: float, rho: float, delta: float) -> Converted:
    return optimal_epsilons([alpha], [rho], delta)[0]


def optimal_delta(alpha: float, rho: float, epsilon: float) -> Converted:
    return optimal_deltas([alpha], [rho], epsilon)[0]
