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
    """Intervals where ``log P − log Q > ε`` (endpoints may be ±inf): the sign changes of a scan
    fine enough to resolve the densities, and beyond it (where the log-ratio is eventually
    linear) one on each side, all bisected together."""
    s = pair.scale
    means = np.concatenate([pair.p_means, pair.q_means])
    lo, hi = means.min() - 60 * s, means.max() + 60 * s
    grid = np.linspace(lo, hi, int(math.ceil((hi - lo) / (s / 8))) + 1)
    grid = density_reference(pair.family).with_kinks(grid, means)

    def excess(z: np.ndarray) -> np.ndarray:
        return _log_density(pair, Side.P, z) - _log_density(pair, Side.Q, z) - epsilon

    above = excess(grid) > 0
    changes = np.flatnonzero(above[1:] != above[:-1])
    lows, highs = list(grid[changes]), list(grid[changes + 1])
    inside_first = bool(above[0])
    for end, step, inside_end in ((lo, -1.0, above[0]), (hi, 1.0, above[-1])):
        far = end + step * s * 2.0 ** np.arange(1, 60)
        beyond = np.flatnonzero((excess(far) > 0) != inside_end)
        if beyond.size:
            near = end if beyond[0] == 0 else far[beyond[0] - 1]
            a, b = sorted((near, far[beyond[0]]))
            if step < 0:
                lows.insert(0, a)
                highs.insert(0, b)
                inside_first = not inside_first
            else:
                lows.append(a)
                highs.append(b)
    roots = list(_bisect_all(excess, np.array(lows), np.array(highs)))
    edges = ([-math.inf] if inside_first else []) + roots
    if len(edges) % 2:
        edges.append(math.inf)
    return list(zip(edges[::2], edges[1::2]))


def _bisect_all(function, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A root of ``function > 0`` changing sign in each bracket ``(a_i, b_i)``, by bisection of
    every bracket at once, each to about 1e-13 of its size."""
    a, b = a.astype(float), b.astype(float)
    positive_at_a = function(a) > 0 if a.size else np.zeros(0, bool)
    for _ in range(200):
        middle = (a + b) / 2
        active = np.flatnonzero((middle != a) & (middle != b)
                                & (np.abs(b - a) > 1e-13 * (1 + np.abs(a))))
        if not active.size:
            break
        same = (function(middle[active]) > 0) == positive_at_a[active]
        a[active[same]] = middle[active[same]]
        b[active[~same]] = middle[active[~same]]
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
