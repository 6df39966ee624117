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
  ``q``. They are solved by a refined grid search in ``t = −log q``, with ``log p*`` by Newton
  steps inside a bracket (each grid starting from the last one's solutions), vectorised over
  orders, and rounded up by a relative margin of 1e-9.

For a curve of orders the best order is taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from otbound.errors import InvalidSpecification
from otbound.numerics.rounding import EPS, SMALLEST


@dataclass(frozen=True)
class Converted:
    """A converted guarantee; for the optimal conversion also the Bernoulli pair attaining it."""

    epsilon: float
    delta: float
    order: float
    bernoulli: tuple[float, float] | None = None


def _check(alpha: float, rho: float) -> None:
    if not alpha > 1:
        raise InvalidSpecification(f"order alpha must be > 1, got {alpha}", parameter="alpha")
    if not (rho >= 0 and math.isfinite(rho)):
        raise InvalidSpecification(f"RDP value rho must be a finite number >= 0, got {rho}",
                                   parameter="rho")


def _check_delta(delta: float) -> None:
    if not 0 < delta < 1:
        raise InvalidSpecification(f"delta must be in (0, 1), got {delta}", parameter="delta")


# --- the classical conversions ----------------------------------------------------------------

def _up(value: float, magnitude: float = 1.0) -> float:
    """``value`` raised by a few ulps of ``magnitude`` (the size of its intermediate terms)."""
    return math.nextafter(value + 8 * EPS * (abs(value) + magnitude), math.inf)


def _up_exp(exponent: float) -> float:
    """``e^exponent`` rounded up (never below the smallest positive double)."""
    return max(math.exp(exponent) * (1 + 8 * EPS * (1 + abs(exponent))), SMALLEST)


def mironov_epsilon(alpha: float, rho: float, delta: float) -> float:
    log_term = math.log(1 / delta) / (alpha - 1)
    return _up(rho + log_term, rho + log_term)


def mironov_delta(alpha: float, rho: float, epsilon: float) -> float:
    return min(1.0, _up_exp(min(0.0, (alpha - 1) * (rho - epsilon))))


def balle_epsilon(alpha: float, rho: float, delta: float) -> float:
    if delta ** 2 + math.expm1(-rho) > 0:   # δ ≥ sqrt(1 − e^{−ρ}) already holds at ε = 0
        return 0.0
    value = rho + math.log1p(-1 / alpha) - math.log(delta * alpha) / (alpha - 1)
    return _up(value, rho + abs(math.log(delta * alpha)) / (alpha - 1)) if value > 0 else 0.0


def balle_delta(alpha: float, rho: float, epsilon: float) -> float:
    kl = 0.5 * math.log1p(-math.exp(-rho)) if rho > 0 else -math.inf
    bound = (alpha - 1) * (rho - epsilon + math.log1p(-1 / alpha)) - math.log(alpha)
    exponent = min(kl, bound)
    if exponent == -math.inf:
        return 0.0   # ρ = 0: the two distributions coincide
    return min(1.0, _up_exp(exponent) * (1 + 8 * EPS * (alpha - 1) * (rho + epsilon)))


# --- the optimal conversion -------------------------------------------------------------------

_BISECTIONS, _GRID, _STAGES = 64, 33, 12
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
    coefficients = [np.asarray(alpha, dtype=float)]   # of α's shape: they broadcast against x
    for k in range(2, 10):
        coefficients.append(coefficients[-1] * (alpha - k + 1) / k)
    series = np.zeros_like(x)
    for coefficient in reversed(coefficients[1:]):   # Horner: x²(C(α,2) + x(C(α,3) + …))
        series = series * x + coefficient
    return np.where(np.abs(alpha * x) < 1e-2, series * x * x, direct)


def _log_psi_slope(alpha, log_p, log_q, log_psi):
    """``d log Ψ_α / d log p`` (for Newton steps; its accuracy only decides their speed):
    ``α (p^α q^{1−α} − p (1 − p)^{α−1} (1 − q)^{1−α}) / Ψ``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        first = alpha * log_p + (1 - alpha) * log_q
        second = ((alpha - 1) * np.log1p(-np.exp(log_p)) + (1 - alpha) * np.log1p(-np.exp(log_q))
                  + log_p)
        return alpha * (np.exp(first - log_psi) - np.exp(second - log_psi))


def _log_boundary(alpha, log_q, log_budget, start=None, loose: bool = False):
    """``log p*(q)``: the largest ``p ≥ q`` with ``log Ψ_α ≤ log_budget`` (``log Ψ_α`` grows
    with ``p`` there), as the lower end of a bracket ``[lo, hi]`` (``lo`` within the budget,
    ``hi`` beyond it) narrowed to ``2 EPS (1 + |log q|)``: by Newton steps where they stay inside
    it — once a step is far below that width, the point just across the root closes the
    bracket — else by bisection. Newton starts at ``start`` (a nearby solution) if given, else
    at the tiny-``q`` asymptote ``p ≈ e^{budget/α} q^{1−1/α}``. ``loose``: narrowed to
    ``10^{−6} (1 + |log q|)`` only (``lo`` is within the budget however far the search went:
    enough for lower bounds)."""
    lo, hi = log_q.copy(), np.zeros_like(log_q)
    at_one = _log_psi(alpha, hi, log_q) <= log_budget
    tolerance = (1e-6 if loose else 2 * EPS) * (1 + np.abs(log_q))
    if start is None:
        start = log_budget / alpha + (1 - 1 / alpha) * log_q
    u = np.clip(start, lo, hi)
    for iteration in range(4 * _BISECTIONS):
        log_psi = _log_psi(alpha, u, log_q)
        inside = log_psi <= log_budget
        lo, hi = np.where(inside, np.maximum(lo, u), lo), np.where(inside, hi, np.minimum(hi, u))
        done = at_one | (hi - lo <= tolerance)
        if np.all(done):
            break
        middle = (lo + hi) / 2
        if iteration >= _BISECTIONS:   # Newton has not settled everywhere: bisect the rest
            u = middle
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = u - (log_psi - log_budget) / _log_psi_slope(alpha, u, log_q, log_psi)
        across = np.where(inside, u + tolerance / 2, u - tolerance / 2)
        u = np.where(np.abs(newton - u) <= tolerance / 4, across,
                     np.where((newton > lo) & (newton < hi), newton, middle))
        u = np.where((u > lo) & (u < hi), u, middle)
    return np.where(at_one, 0.0, lo)


def _grid_maximum(objective, lo, hi):
    """Vectorised maximisation of unimodal objectives on ``[lo, hi]``: a grid, refined around
    its best point until the spacing is negligible. ``objective(t, start)`` returns its values
    and ``log p*`` at ``t``, where ``start`` (``log p*`` interpolated from the previous grid)
    is where the next one's search begins. Returns the maximum, its place, ``log p*`` there,
    and the search error (the second difference at the best point, which bounds how far the
    maximum between grid points can rise above the best grid value)."""
    columns = np.arange(lo.size)
    steps = np.linspace(0.0, 1.0, _GRID)[:, None]
    start = None
    for _ in range(_STAGES):
        grid = lo[None, :] + (hi - lo)[None, :] * steps
        values, log_p = objective(grid, start)
        best = np.argmax(values, axis=0)
        below, above = np.maximum(best - 1, 0), np.minimum(best + 1, _GRID - 1)
        lo, hi = grid[below, columns], grid[above, columns]
        start = (log_p[below, columns][None, :]
                 + (log_p[above, columns] - log_p[below, columns])[None, :] * steps)
        if np.all(hi - lo <= 1e-12 * (1 + np.abs(hi))):
            break
    top, left, right = values[best, columns], values[below, columns], values[above, columns]
    with np.errstate(invalid="ignore"):
        search = np.where(np.isfinite(left) & np.isfinite(right),
                          np.abs(left + right - 2 * top), 0.0)
    return top, grid[best, columns], log_p[best, columns], search


def _orders(alphas, rhos) -> tuple[np.ndarray, np.ndarray]:
    alphas, rhos = np.atleast_1d(np.asarray(alphas, float)), np.atleast_1d(np.asarray(rhos, float))
    for alpha, rho in zip(alphas, rhos):
        _check(float(alpha), float(rho))
    return alphas, rhos


def _search_range(alphas, rhos, far) -> tuple[np.ndarray, np.ndarray]:
    """Where ``t = −log q`` is searched: from ``ρ`` to beyond ``far``, the optimum's place for
    tiny ``q`` (where ``p* ≈ e^{(α−1)ρ/α} q^{1−1/α}``)."""
    return rhos.copy(), np.maximum(rhos + 40 + 800 / (alphas - 1), 2 * far + 40)


def _maximise_over_q(objective, alphas, rhos, far):
    """The maximum of ``objective(t)`` over :func:`_search_range`."""
    return _grid_maximum(objective, *_search_range(alphas, rhos, far))


def _pairs(log_p, t) -> list[tuple[float, float]]:
    return [(float(p), float(q)) for p, q in zip(np.exp(log_p), np.exp(-t))]


def _rounding(log_p, t, *others) -> np.ndarray:
    """Absolute error of a value formed from ``log p*`` (bisected to a few ulps), ``t`` and
    further logarithms."""
    return 16 * EPS * (1 + np.abs(log_p) + np.abs(t) + sum(np.abs(o) for o in others))


def _epsilon_objective(alphas, rhos, delta: float):
    """``t ↦ log((p*(e^{−t}) − δ) e^t)`` for each order, and the optimum's place for tiny
    ``q``: ``t = α/(α−1)·(log(1/(αδ)) + ρ(α−1)/α)`` (there ``p* = αδ``)."""
    log_budget, log_delta = (alphas - 1) * rhos, math.log(delta)

    def objective(t, start=None, loose=False):
        log_p = _log_boundary(alphas, -t, log_budget, start, loose)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            gap = np.where(log_p > log_delta, np.log(-np.expm1(log_delta - log_p)), -np.inf)
        return log_p + gap + t, log_p

    far = alphas / (alphas - 1) * (-np.log(alphas * delta) + rhos * (alphas - 1) / alphas)
    return objective, far


def _delta_objective(alphas, rhos, epsilon: float):
    """``t ↦ log(p*(e^{−t}) − e^{ε − t})`` for each order, and the optimum's place for tiny
    ``q``: ``q = (1 − 1/α)^α e^{(α−1)ρ} e^{−αε}``."""
    log_budget = (alphas - 1) * rhos

    def objective(t, start=None, loose=False):
        log_p = _log_boundary(alphas, -t, log_budget, start, loose)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.where(log_p > epsilon - t,
                            log_p + np.log(-np.expm1(epsilon - t - log_p)), -np.inf), log_p

    far = alphas * epsilon - (alphas - 1) * rhos - alphas * np.log1p(-1 / alphas)
    return objective, far


def lower_values(alphas, rhos, target: float, solve_for_epsilon: bool,
                 enough=math.inf) -> np.ndarray:
    """Cheap lower bounds on each order's optimal ``ε*`` (``log δ*``): the objective at a
    coarse grid of ``q``, each point a Bernoulli pair that is ``(α, ρ)``-RDP and so attains its
    value (up to rounding). An order whose lower bound exceeds another order's upper bound
    cannot be the best one. An order stops being evaluated once its bound reaches ``enough``
    (the caller's threshold, per order or for all: a larger bound would tell it nothing
    more)."""
    alphas, rhos = _orders(alphas, rhos)
    make = _epsilon_objective if solve_for_epsilon else _delta_objective
    _, far = make(alphas, rhos, target)
    lo, hi = _search_range(alphas, rhos, far)
    shares = np.linspace(0.0, 1.0, _COARSE)[:, None]
    start = np.maximum(lo, 1e-3)[None, :]   # near α = 1 the optimum is far below hi
    geometric = start * (hi[None, :] / start) ** shares
    even = lo[None, :] + (hi - lo)[None, :] * shares
    middle_out = np.argsort(np.abs(np.arange(_COARSE) - _COARSE // 2), kind="stable")
    best = np.full(alphas.size, -np.inf)
    enough = np.broadcast_to(np.asarray(enough, dtype=float), alphas.shape)
    active = np.arange(alphas.size)
    for row in np.vstack([np.clip(far, lo, hi)[None, :], geometric[middle_out], even]):
        objective, _ = make(alphas[active], rhos[active], target)
        values, _ = objective(row[active][None, :], loose=True)
        best[active] = np.maximum(best[active], values[0])
        active = active[best[active] < enough[active]]
        if not active.size:
            break
    return best


_COARSE = 9
"""Points of each coarse grid (even and geometric in ``t``) of :func:`lower_values`."""


def optimal_epsilons(alphas, rhos, delta: float) -> list[Converted]:
    """``ε*(δ) = max_q log((p*(q) − δ)/q)`` for each ``(α, ρ)`` (seed 004), rounded up."""
    alphas, rhos = _orders(alphas, rhos)
    _check_delta(delta)
    log_delta = math.log(delta)
    objective, far = _epsilon_objective(alphas, rhos, delta)
    best, t, log_p, search = _maximise_over_q(objective, alphas, rhos, far)
    # The loss of log(p* − δ) when p* is close to δ: d log(p − δ) = dp/(p − δ).
    with np.errstate(divide="ignore", over="ignore"):
        amplify = 1 + 1 / -np.expm1(log_delta - log_p)
    error = _rounding(log_p, t, log_delta) * amplify + search
    upper = best + error + _MARGIN * (1 + np.abs(best))
    epsilons = np.where(upper > 0, np.nextafter(upper, np.inf), 0.0)   # ε* = max(·, 0)
    return [Converted(float(e), delta, float(a), pair)
            for e, a, pair in zip(epsilons, alphas, _pairs(log_p, t))]


def optimal_deltas(alphas, rhos, epsilon: float) -> list[Converted]:
    """``δ*(ε) = max_q p*(q) − e^ε q`` for each ``(α, ρ)`` (seed 004), rounded up.

    Maximised as ``log δ = log p* + log(1 − e^{ε − t − log p*})`` (``q = e^{−t}``), so a δ of
    1e-140 keeps its digits; a δ below the smallest double is reported as that double."""
    alphas, rhos = _orders(alphas, rhos)
    if not (epsilon >= 0 and math.isfinite(epsilon)):
        raise InvalidSpecification(f"epsilon must be a finite number >= 0, got {epsilon}",
                                   parameter="epsilon")
    objective, far = _delta_objective(alphas, rhos, epsilon)
    best, t, log_p, search = _maximise_over_q(objective, alphas, rhos, far)
    # The loss of log(p* − γq) when p* is close to γq: d log(p − γq) = dp/(p − γq).
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        amplify = 1 + 1 / -np.expm1(epsilon - t - log_p)
        error = np.where(np.isfinite(best), _rounding(log_p, t, epsilon) * amplify + search, 0.0)
        deltas = np.exp(best + error) * (1 + _MARGIN)
    deltas = np.where(np.isfinite(best), np.maximum(np.nextafter(deltas, np.inf), SMALLEST), 0.0)
    return [Converted(epsilon, float(d), float(a), pair)
            for d, a, pair in zip(np.minimum(deltas, 1.0), alphas, _pairs(log_p, t))]


def optimal_epsilon(alpha: float, rho: float, delta: float) -> Converted:
    return optimal_epsilons([alpha], [rho], delta)[0]


def optimal_delta(alpha: float, rho: float, epsilon: float) -> Converted:
    return optimal_deltas([alpha], [rho], epsilon)[0]
