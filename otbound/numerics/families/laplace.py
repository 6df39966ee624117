"""The Laplace noise family ``Laplace(μ, s)``."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from otbound.numerics.density_family import DensityFamily
from otbound.numerics.noise import Shape
from otbound.numerics.pairs import log_sum_exp
from otbound.numerics.rounding import EPS


class Laplace(DensityFamily):
    """``D(z; μ, s) = e^{−|z−μ|/s}/2s``."""

    name = "laplace"
    parameter = "scale"
    shape = Shape.PIECEWISE_LINEAR
    worst_case_source = "003 Thm. M.2, not in the seeds; checked by otbound's verifier"

    def log_density(self, z, scale):
        return -np.abs(z) / scale - math.log(2 * scale)

    def relative_log(self, means, z, scale):
        mu, z = means[:, None], z[None, :]
        # |z| − |z − μ| = sign(μ)·(2·clip(z, min(0, μ), max(0, μ)) − μ), exact for any |z|.
        clipped = np.clip(z, np.minimum(mu, 0.0), np.maximum(mu, 0.0))
        return np.sign(mu) * (2 * clipped - mu) / scale

    def relative_log_slope(self, means, z, scale):
        return (np.sign(z)[None, :] - np.sign(z[None, :] - means[:, None])) / scale

    def log_survival(self, x):
        return np.where(x >= 0, math.log(0.5) - np.maximum(x, 0),
                        np.log1p(-0.5 * np.exp(np.minimum(x, 0))))

    def reach(self, log_budget):
        """``P(D > c) = e^{−c}/2``."""
        return log_budget

    def log_sup_ratio(self, p_means, p_log_weights, q_means, q_log_weights, scale):
        """Beyond every mean both densities are multiples of ``e^{−z/s}``."""
        return float(log_sum_exp(p_log_weights + p_means / scale)
                     - log_sum_exp(q_log_weights + q_means / scale))

    def standard_sample(self, rng, size):
        return rng.laplace(size=size)

    def shift_log_psi(self, gap, alphas):
        """Mironov 2017: ``log(α/(2α−1) e^{(α−1)Δ} + (α−1)/(2α−1) e^{−αΔ})``."""
        first = np.log(alphas / (2 * alphas - 1)) + (alphas - 1) * gap
        second = np.log((alphas - 1) / (2 * alphas - 1)) - alphas * gap
        return np.logaddexp(first, second), 8 * EPS * (1 + np.abs(first) + np.abs(second))

    def survival_mp(self, x):
        return mp.exp(-x) / 2 if x >= 0 else 1 - mp.exp(x) / 2

    def shift_ratio_law(self, scale):
        from otbound.numerics.ratio_laws import laplace_law

        return laplace_law(scale)

    def shift_ratio_survival_ball(self, log_ratio, scale):
        """``log L = (|z| − |z − 1|)/b``: ``−1/b`` for ``z ≤ 0``, ``1/b`` for ``z ≥ 1``, and
        ``log L > t`` is ``z > u = (bt + 1)/2`` in between (so both are 1 for ``u < 0`` and 0
        for ``u ≥ 1``); a ball ``t`` on either side of ``±1/b`` gets the union of the values."""
        from flint import arb

        u = (log_ratio * scale + 1) / 2
        if u >= 1:
            return arb(0), arb(0)
        if u < 0:
            return arb(1), arb(1)
        found = [((-u / scale).exp() / 2, 1 - ((u - 1) / scale).exp() / 2)]
        if not u < 1:
            found.append((arb(0), arb(0)))
        if not u >= 0:
            found.append((arb(1), arb(1)))
        q, p = found[0]
        for other_q, other_p in found[1:]:
            q, p = q.union(other_q), p.union(other_p)
        return q, p

    def norm_ball(self, scale):
        return 1 / (2 * scale)

    def kernel_ball(self, offset, scale, sign=None):
        distance = abs(offset) if sign is None else sign * offset
        return (-distance / scale).exp()

    def survival_ball(self, distance, scale):
        return (-distance / scale).exp() / 2

    def log_kernel_float(self, distance, sign):
        return -sign * distance

    def linear_part_ball(self, mean, scale, sign):
        from flint import arb

        return -sign / scale, sign * arb(mean) / scale - (2 * scale).log()

    def log_kernel_ratio_ball(self, z, mean, top, scale, sign, top_sign):
        return -(sign * (z - mean) - top_sign * (z - top)) / scale

    def shape_part_ball(self, z, slope, intercept, scale):
        return slope * z + intercept


LAPLACE = Laplace()
