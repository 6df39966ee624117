"""Truncated Poisson sampling (seed 002): otbound's bound, and concrete constructions below it.

* ``upper`` — the hockey-stick divergence of 002's dominating pairs (Thm. 3.1 add/remove-1-of-n,
  3.3 zero-out, 3.4 replace-one), both directions, as
  :mod:`otbound.accounting.truncated` builds them. 002 proves them tight only at the extremes
  (``B ≥ n``: plain Poisson; ``p = 1``: a fixed batch of ``B``) and conjectures slack between, so
  they are not a witness.
* ``lower`` (add/remove only) — the exact ``δ(ε)`` of a concrete pair of neighbouring datasets of
  scalar records in ``[−1, 1]``: ``D = (x₁ = +1, v, …, v)`` with ``n`` records and
  ``D' = D \\ {x₁}``, the sum query plus ``N(0, σ²)``, for ``v ∈ {−1, 0}`` and both directions.
  With ``s ~ Binom(n − 1, p)`` other records and ``b ~ Bern(p)`` for ``x₁`` before truncation,
  ``D`` outputs ``v s + b`` when ``s + b ≤ B``; otherwise a uniform ``B``-subset keeps ``x₁`` with
  probability ``B/(s + 1)`` (sum ``v(B − 1) + 1``) or not (sum ``vB``); ``D'`` outputs
  ``v min(s, B)``. Both are finite Gaussian mixtures. For *any* set ``A``,
  ``P(A) − e^ε Q(A) ≤ H_{e^ε}(P ‖ Q)``; ``A`` is the union of the intervals where a grid search
  finds ``P > e^ε Q``, and ``P(A)``, ``Q(A)`` are sums of normal distribution functions in
  50-digit arithmetic with 50-digit binomial weights — a lower bound that does not rest on the
  accuracy of the root search. ``confirm`` integrates ``P − e^ε Q`` over ``A`` by quadrature.
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath as mp
import numpy as np

from otbound.accounting.truncated import TruncatedPoissonSetting
from otbound.audit.claims import Reference, Witness
from otbound.audit.references import mechanism_text
from otbound.choices import Neighbouring

DIGITS = 50
OTHERS = (-1.0, 0.0)
"""The values ``v`` of the other records tried: opposing ``x₁`` (truncation then moves the sum
by 2) and neutral."""

Mixture = tuple[tuple[float, ...], tuple[mp.mpf, ...]]


def truncated_poisson(setting: TruncatedPoissonSetting, sigma: float,
                      epsilon: float) -> Reference:
    """``δ(ε)`` of one step of the truncated-Poisson Gaussian sum with noise ``σ`` (sensitivity
    1): 002's bound as ``upper``, the best construction as ``lower`` (add/remove only)."""
    from otbound.accounting.steps import subsampled_step
    from otbound.numerics.mechanisms import gaussian
    from otbound.numerics.one_step import branches_delta

    step = subsampled_step(setting.derived_setting(), gaussian(sigma), 1)
    upper = max(float(branches_delta(case, np.array([float(epsilon)])).upper[0])
                for case in step.cases)
    if setting.neighbouring is not Neighbouring.ADD_REMOVE:
        return Reference(upper, None, "no construction for this relation (only the upper end)")
    judged = []
    for others in OTHERS:
        first, second = outputs(setting, others)
        for p, q, direction in ((first, second, "P = M(x), Q = M(x')"),
                                (second, first, "P = M(x'), Q = M(x)")):
            judged.append((construction_delta(p, q, sigma, epsilon), p, q, others, direction))
    value, p, q, others, direction = max(judged, key=lambda entry: entry[0])
    lower = max(math.nextafter(float(value) * (1 - 1e-15), -math.inf), 0.0)
    n, rate, b = setting.dataset_size, setting.rate, setting.max_batch
    witness = Witness(
        ("x1",), (), f"Poisson at p = {rate:g}, then a uniform subset of B = {b} when more are "
        "drawn", f"the sum of the batch's values: x1 = +1, every common record c_i = "
        f"{others:g}", mechanism_text(gaussian(sigma)),
        f"{direction}: mixtures with {len(p[0])} and {len(q[0])} components, δ = "
        f"{float(value):.12g}", "002's construction: x' = x without x1", None, n - 1)
    return Reference(upper, lower, witness, lambda: precise_delta(p, q, sigma, epsilon))


@lru_cache(maxsize=64)
def outputs(setting: TruncatedPoissonSetting, others: float) -> tuple[Mixture, Mixture]:
    """``(M(D), M(D'))`` as (means, 50-digit weights) for the construction with ``v = others``."""
    n, b = setting.dataset_size, setting.max_batch
    with mp.workdps(DIGITS):
        p = mp.mpf(setting.rate)
        mass: dict[float, mp.mpf] = {}
        reduced: dict[float, mp.mpf] = {}

        def add(table, mean, weight):
            table[mean] = table.get(mean, mp.mpf(0)) + weight

        for s in range(n):
            chance = mp.binomial(n - 1, s) * p ** s * (1 - p) ** (n - 1 - s)
            if chance == 0:
                continue
            add(reduced, others * min(s, b), chance)
            for drawn, weight in ((0, 1 - p), (1, p)):
                if s + drawn <= b:
                    add(mass, others * s + drawn, chance * weight)
                elif drawn == 0:
                    add(mass, others * b, chance * weight)
                else:
                    kept = mp.mpf(b) / (s + 1)
                    add(mass, others * (b - 1) + 1, chance * weight * kept)
                    add(mass, others * b, chance * weight * (1 - kept))
    return _sorted(mass), _sorted(reduced)


def _sorted(table: dict) -> Mixture:
    means = tuple(sorted(m for m, w in table.items() if w > 0))
    return means, tuple(table[m] for m in means)


def _log_density(mixture: Mixture, sigma: float, z: np.ndarray) -> np.ndarray:
    means = np.array(mixture[0])[:, None]
    logs = np.array([float(mp.log(w)) for w in mixture[1]])[:, None]
    exponents = logs - (z[None, :] - means) ** 2 / (2 * sigma ** 2)
    top = exponents.max(axis=0)
    return top + np.log(np.exp(exponents - top).sum(axis=0))


def positive_set(p: Mixture, q: Mixture, sigma: float, epsilon: float
                 ) -> list[tuple[float, float]]:
    """Intervals where ``P > e^ε Q`` as found on a grid of spacing ``σ/40`` (refined by
    bisection), unbounded ends as ``±inf``."""
    low = min(p[0][0], q[0][0]) - 12 * sigma
    high = max(p[0][-1], q[0][-1]) + 12 * sigma
    z = np.linspace(low, high, int((high - low) / (sigma / 40)) + 2)

    def excess(points: np.ndarray) -> np.ndarray:
        return _log_density(p, sigma, points) - _log_density(q, sigma, points) - epsilon

    signs = excess(z) > 0
    edges = []
    for i in np.flatnonzero(signs[1:] != signs[:-1]):
        a, b = z[i], z[i + 1]
        positive_at_a = signs[i]
        for _ in range(60):
            middle = (a + b) / 2
            if (excess(np.array([middle]))[0] > 0) == positive_at_a:
                a = middle
            else:
                b = middle
        edges.append((a + b) / 2)
    bounds = [-math.inf, *edges, math.inf]
    starts_positive = bool(signs[0])
    return [(bounds[j], bounds[j + 1]) for j in range(len(bounds) - 1)
            if (j % 2 == 0) == starts_positive]


def _mass(mixture: Mixture, sigma, a, b) -> mp.mpf:
    """``Σ_i w_i P[a < N(μ_i, σ²) < b]``, each term from the tail it lies in (no cancellation)."""
    total = mp.mpf(0)
    for mean, weight in zip(*mixture):
        lo, hi = (mp.mpf(a) - mean) / sigma, (mp.mpf(b) - mean) / sigma
        part = mp.ncdf(-lo) - mp.ncdf(-hi) if lo >= 0 else mp.ncdf(hi) - mp.ncdf(lo)
        total += weight * part
    return total


def construction_delta(p: Mixture, q: Mixture, sigma: float, epsilon: float) -> mp.mpf:
    """``P(A) − e^ε Q(A)`` for ``A`` = :func:`positive_set` (≤ the exact δ for any ``A``)."""
    intervals = positive_set(p, q, sigma, epsilon)
    with mp.workdps(DIGITS):
        gamma, s = mp.exp(mp.mpf(epsilon)), mp.mpf(sigma)
        value = mp.fsum(_mass(p, s, a, b) - gamma * _mass(q, s, a, b) for a, b in intervals)
        return max(value, mp.mpf(0))


def precise_delta(p: Mixture, q: Mixture, sigma: float, epsilon: float) -> float:
    """The construction's δ by 30-digit quadrature of ``max(P − e^ε Q, 0)`` over ``A`` (split at
    every component mean and every σ): independent of the distribution-function sums."""
    intervals = positive_set(p, q, sigma, epsilon)
    with mp.workdps(30):
        gamma, s = mp.exp(mp.mpf(epsilon)), mp.mpf(sigma)

        def density(mixture, z):
            return mp.fsum(w * mp.npdf(z, m, s) for m, w in zip(*mixture))

        def integrand(z):
            return max(density(p, z) - gamma * density(q, z), 0)

        total = mp.mpf(0)
        span = (min(p[0][0], q[0][0]) - 40 * sigma, max(p[0][-1], q[0][-1]) + 40 * sigma)
        for a, b in intervals:
            a, b = max(a, span[0]), min(b, span[1])
            if a >= b:
                continue
            cuts = sorted({a, b, *(m for m in p[0] + q[0] if a < m < b),
                           *np.arange(math.ceil(a / sigma), math.floor(b / sigma) + 1) * sigma})
            cuts = [c for c in cuts if a <= c <= b]
            total += mp.quad(integrand, cuts)
        return float(total)
