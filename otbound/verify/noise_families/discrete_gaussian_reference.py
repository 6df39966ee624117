"""The verifier's own discrete Gaussian ``N_Z(μ, σ²)``: ``P(k) = e^{−(k − μ)²/2σ²}/C`` on the
integers, written apart from :mod:`otbound.numerics.families.discrete_gaussian`: the
normaliser is Jacobi's theta function ``C = ϑ₃(0, e^{−1/2σ²})`` (mpmath), the sampler inverts
the distribution function on a table (not the production code's rejection sampler), and the
divergences of an exact output pair are plain sums in 40-digit mpmath over every integer within
``60σ`` of every peak (beyond, less than ``e^{−1800}`` of the mass).
"""

from __future__ import annotations

import functools
import math

import mpmath as mp
import numpy as np

from otbound.numerics.pairs import MixturePair
from otbound.verify.noise_references import LatticeReference

REFERENCE_DIGITS = 40
WIDTH = 60
"""Half-width of the sums beyond the peaks, in units of σ."""


@functools.lru_cache(maxsize=64)
def _log_theta(scale: float) -> float:
    with mp.workdps(REFERENCE_DIGITS):
        return float(mp.log(mp.jtheta(3, 0, mp.exp(-1 / (2 * mp.mpf(scale) ** 2)))))


class DiscreteGaussianReference(LatticeReference):
    """``N_Z(μ, σ²)`` (see the module docstring)."""

    name = "discrete-gaussian"

    def log_density(self, offset: np.ndarray, scale: float) -> np.ndarray:
        return -np.asarray(offset, dtype=float) ** 2 / (2 * scale * scale) - _log_theta(scale)

    def draw(self, rng: np.random.Generator, size: int, scale: float) -> np.ndarray:
        """Inverse distribution function on ``|k| ≤ 60σ + 2``."""
        top = int(WIDTH * scale) + 2
        k = np.arange(-top, top + 1)
        cumulative = np.cumsum(np.exp(self.log_density(k, scale)))
        found = np.searchsorted(cumulative / cumulative[-1], rng.random(size), side="right")
        return k[np.minimum(found, k.size - 1)].astype(float)

    def log_psi(self, pair: MixturePair, alpha: float) -> float:
        with mp.workdps(REFERENCE_DIGITS):
            a = mp.mpf(alpha)
            total = mp.fsum(p ** a * q ** (1 - a) for p, q in _masses(pair, alpha))
            return float(mp.log(total))

    def delta(self, pair: MixturePair, epsilon: float) -> float:
        with mp.workdps(REFERENCE_DIGITS):
            gamma = mp.exp(mp.mpf(epsilon))
            return float(mp.fsum(max(p - gamma * q, 0) for p, q in _masses(pair, 1.0)))


def _masses(pair: MixturePair, alpha: float) -> list[tuple]:
    """``(P(k), Q(k))`` in mpmath at every integer within ``60σ`` of the means and of the
    points ``α μ − (α − 1) ν`` where ``P^α Q^{1−α}`` can peak."""
    means = [float(m) for m in (*pair.p_means, *pair.q_means)]
    peaks = means + [alpha * float(m) - (alpha - 1) * float(n)
                     for m in pair.p_means for n in pair.q_means]
    reach = WIDTH * pair.scale + 2
    s2 = 2 * mp.mpf(pair.scale) ** 2
    norm = mp.jtheta(3, 0, mp.exp(-1 / s2))

    def side(means, log_weights):
        weights = [mp.exp(mp.mpf(float(w))) for w in log_weights]
        total = mp.fsum(weights)
        return [(mp.mpf(float(m)), w / total) for m, w in zip(means, weights)]

    p, q = side(pair.p_means, pair.p_log_weights), side(pair.q_means, pair.q_log_weights)
    found = []
    for k in range(math.floor(min(peaks) - reach), math.ceil(max(peaks) + reach) + 1):
        z = mp.mpf(k)
        found.append(tuple(mp.fsum(w * mp.exp(-(z - m) ** 2 / s2) for m, w in components)
                           / norm for components in (p, q)))
    return found


DISCRETE_GAUSSIAN_REFERENCE = DiscreteGaussianReference()
