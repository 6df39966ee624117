"""Divergences of arbitrary output distributions, for the verifier.

Deliberately independent of :mod:`otbound.numerics.renyi` and
:mod:`otbound.numerics.hockey_stick`: no dominating-pair structure is assumed (means anywhere, the
likelihood ratio need not be monotone). A family on the integers sums its divergences itself
(:class:`~otbound.verify.noise_references.LatticeReference`); what follows is for densities.

* Two-point outputs (randomized response with rational ``θ``) are exact fractions; their
  divergences are finite sums evaluated with 50-digit mpmath.
* For mixtures, ``Ψ_α = ∫ exp(α log P + (1 − α) log Q)`` is integrated directly (plain
  log-sum-exp densities) on uniform panels covering every place the integrand can matter, with a
  fixed Gauss–Legendre rule on each (not the production code's adaptive quadrature);
  ``δ(ε) = Σ_intervals P(I) − e^ε Q(I)`` over the intervals where ``log P − log Q > ε``, found by
  a scan fine enough to resolve the densities plus bisection, with mpmath distribution functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath as mp
import numpy as np

from otbound.errors import required
from otbound.numerics.pairs import MixturePair, Side
from otbound.verify.noise_references import LatticeReference, density_reference, reference

GAUSS_LEGENDRE_NODES = 24


@dataclass(frozen=True)
class ExactBernoulli:
    """Two distributions on {0, 1}, given by their exact probabilities of 1."""

    p: Fraction
    q: Fraction


def _mp(value: Fraction):
    return mp.mpf(value.numerator) / value.denominator


def _log_density(pair: MixturePair, side: Side, z: np.ndarray) -> np.ndarray:
    means, log_weights = pair.components(side)
    terms = reference(pair.family).log_density(z[None, :] - means[:, None], pair.scale)
    terms = terms + log_weights[:, None]
    top = terms.max(axis=0)
    return top + np.log(np.exp(terms - top).sum(axis=0))


def independent_log_psi(pair: MixturePair | ExactBernoulli, alpha: float) -> float:
    """``log Ψ_α(P ‖ Q)`` of exact outputs."""
    if isinstance(pair, ExactBernoulli):
        with mp.workdps(50):
            a = mp.mpf(alpha)
            total = mp.mpf(0)
            for p, q in ((pair.p, pair.q), (1 - pair.p, 1 - pair.q)):
                if p == 0:
                    continue
                if q == 0:
                    return math.inf
                total += _mp(p) ** a * _mp(q) ** (1 - a)
            return float(mp.log(total))
    noise = reference(pair.family)
    if isinstance(noise, LatticeReference):
        return noise.log_psi(pair, alpha)
    return panel_log_psi(pair, alpha)


def panel_log_psi(pair: MixturePair, alpha: float) -> float:
    """``log Ψ_α`` of an exact pair of a family with a density on the line (the module
    docstring's panels)."""
    noise = density_reference(pair.family)
    lo, hi = noise.integration_range(pair, alpha)
    width = pair.scale / 4
    cuts = np.linspace(lo, hi, int(math.ceil((hi - lo) / width)) + 1)
    cuts = noise.with_kinks(cuts, np.concatenate([pair.p_means, pair.q_means]))
    edges = np.column_stack([cuts[:-1], cuts[1:]])

    def log_integrand(z: np.ndarray) -> np.ndarray:
        return alpha * _log_density(pair, Side.P, z) + (1 - alpha) * _log_density(pair, Side.Q, z)

    return _log_gauss_legendre(log_integrand, edges)


def _log_gauss_legendre(log_integrand, edges: np.ndarray) -> float:
    """``log ∫ exp(log_integrand)`` over the panels ``edges`` by 24-point Gauss–Legendre on each
    (the integrand is smooth on every panel, a quarter of a scale wide, so the rule is exact to
    rounding); independent of the adaptive quadrature the production code uses."""
    nodes, weights = np.polynomial.legendre.leggauss(GAUSS_LEGENDRE_NODES)
    middle, half = edges.mean(axis=1), (edges[:, 1] - edges[:, 0]) / 2
    z = (middle[:, None] + half[:, None] * nodes[None, :]).ravel()
    logs = log_integrand(z) + np.log(half[:, None] * weights[None, :]).ravel()
    top = logs.max()
    return float(top + np.log(np.exp(logs - top).sum()))


def delta(pair: MixturePair | ExactBernoulli, epsilon: float) -> float:
    """``H_{e^ε}(P ‖ Q)`` of exact outputs."""
    if isinstance(pair, ExactBernoulli):
        with mp.workdps(50):
            gamma = mp.exp(mp.mpf(epsilon))
            total = mp.mpf(0)
            for p, q in ((pair.p, pair.q), (1 - pair.p, 1 - pair.q)):
                total += max(_mp(p) - gamma * _mp(q), 0)
            return float(total)
    noise = reference(pair.family)
    if isinstance(noise, LatticeReference):
        return noise.delta(pair, epsilon)
    return interval_delta(pair, epsilon)


def interval_delta(pair: MixturePair, epsilon: float) -> float:
    """``H_{e^ε}`` of an exact pair of a family with a density on the line (the module
    docstring's intervals and masses)."""
    intervals = _excess_intervals(pair, epsilon)
    with mp.workdps(40):
        gamma = mp.exp(mp.mpf(epsilon))
        total = mp.mpf(0)
        for a, b in intervals:
            total += _mass(pair, Side.P, a, b) - gamma * _mass(pair, Side.Q, a, b)
        return float(max(total, 0))


def _excess_intervals(pair: MixturePair, epsilon: float) -> list[tuple[float, float]]:
    """Intervals where ``log P − log Q > ε`` (endpoints may be ±inf)."""
    s = pair.scale
    means = np.concatenate([pair.p_means, pair.q_means])
    lo, hi = means.min() - 60 * s, means.max() + 60 * s
    grid = np.linspace(lo, hi, int(math.ceil((hi - lo) / (s / 8))) + 1)
    grid = density_reference(pair.family).with_kinks(grid, means)

    def excess(z):
        z = np.atleast_1d(np.asarray(z, dtype=float))
        return _log_density(pair, Side.P, z) - _log_density(pair, Side.Q, z) - epsilon

    values = excess(grid)
    above = values > 0
    # Beyond the scan the log-ratio is (eventually) linear: extend one root on each side.
    points, inside = list(grid), list(above)
    for end, step in ((hi, 1.0), (lo, -1.0)):
        far = end + step * s * 2.0 ** np.arange(1, 60)
        far_values = excess(far)
        changes = np.flatnonzero((far_values > 0) != (values[-1 if step > 0 else 0] > 0))
        if changes.size:
            root = _bisect(excess, end, far[changes[0]])
            points.insert(len(points) if step > 0 else 0, root)
            inside.insert(len(inside) if step > 0 else 0, not inside[-1 if step > 0 else 0])
    intervals: list[tuple[float, float]] = []
    start = -math.inf if inside[0] else None
    for i in range(1, len(points)):
        if inside[i] != inside[i - 1]:
            root = _bisect(excess, points[i - 1], points[i])
            if inside[i]:
                start = root
            else:   # leaving an interval, entered at start
                intervals.append((required(start, "the interval's start"), root))
                start = None
    if start is not None:
        intervals.append((start, math.inf))
    return intervals


def _bisect(function, a: float, b: float) -> float:
    fa = function(a)[0] > 0
    for _ in range(200):
        middle = (a + b) / 2
        if middle in (a, b) or abs(b - a) <= 1e-13 * (1 + abs(a)):
            break
        if (function(middle)[0] > 0) == fa:
            a = middle
        else:
            b = middle
    return (a + b) / 2


def _mass(pair: MixturePair, side: Side, a: float, b: float):
    """``P((a, b))`` or ``Q((a, b))`` in mpmath."""
    means, log_weights = pair.components(side)
    s = mp.mpf(pair.scale)
    weights = [mp.exp(mp.mpf(w)) for w in log_weights]
    norm = mp.fsum(weights)
    noise = density_reference(pair.family)

    def survival(x):
        if x == math.inf:
            return mp.mpf(0)
        if x == -math.inf:
            return mp.mpf(1)
        return noise.precise_survival(mp.mpf(x))

    return mp.fsum(w / norm * (survival((a - m) / s) - survival((b - m) / s))
                   for m, w in zip(means, weights))
