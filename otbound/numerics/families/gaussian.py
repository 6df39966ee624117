"""The Gaussian noise family ``N(μ, s²)``."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from otbound.numerics.density_family import DensityFamily
from otbound.numerics.noise import Shape
from otbound.numerics.pairs import log_sum_exp
from otbound.numerics.rounding import EPS


class Gaussian(DensityFamily):
    """``D(z; μ, s) = e^{−(z−μ)²/2s²}/(s√(2π))``."""

    name = "gaussian"
    parameter = "sigma"
    shape = Shape.QUADRATIC
    worst_case_source = ("001 Thm. 4.2 and App. H, 003 Thm. 3.8: collinear, equidistant means; "
                         "002 Thm. 3.3 for chains of unequal lengths")
    unequal_chains = rotation_invariant = three_point = binomial_expansion = True
    shuffled_lower_bound = True

    def log_density(self, z, scale):
        return -0.5 * (z / scale) ** 2 - math.log(scale * math.sqrt(2 * math.pi))

    def relative_log(self, means, z, scale):
        mu, z = means[:, None], z[None, :]
        return (mu * z - 0.5 * mu * mu) / scale ** 2

    def relative_log_slope(self, means, z, scale):
        return np.broadcast_to(means[:, None] / scale ** 2, (means.size, z.size))

    def log_survival(self, x):
        from scipy.special import log_ndtr  # loaded with δ, not with every Rényi point

        return log_ndtr(-x)

    def reach(self, log_budget):
        """``Φ̄(c) ≤ e^{−c²/2}/2``."""
        return math.sqrt(2 * log_budget)

    def log_sup_ratio(self, p_means, p_log_weights, q_means, q_log_weights, scale):
        """The components with the largest mean dominate as ``z → ∞``."""
        top_p, top_q = p_means.max(), q_means.max()
        if top_p > top_q:
            return math.inf
        return float(log_sum_exp(p_log_weights[p_means == top_p])
                     - log_sum_exp(q_log_weights[q_means == top_q]))

    def standard_sample(self, rng, size):
        return rng.standard_normal(size)

    def shift_log_psi(self, gap, alphas):
        """``α(α − 1)Δ²/2``."""
        value = alphas * (alphas - 1) * gap ** 2 / 2
        return value, 8 * EPS * value

    def shift_log_psi_ball(self, order, scale, sensitivity):
        from flint import arb

        return arb(order * (order - 1)) / (2 * (arb(scale) / arb(sensitivity)) ** 2)

    def shift_delta_ball(self, gap, epsilon):
        """``Φ(Δ/2 − ε/Δ) − e^ε Φ(−Δ/2 − ε/Δ)`` (Balle & Wang 2018, Thm. 8), every real ε: the
        survival function at ``ε/Δ ∓ Δ/2``."""
        return (self.survival_ball(epsilon / gap - gap / 2, 1)
                - epsilon.exp() * self.survival_ball(epsilon / gap + gap / 2, 1))

    def survival_mp(self, x):
        return mp.erfc(x / mp.sqrt(2)) / 2

    def split_scale(self, scale, parts):
        """``N(0, σ²)`` is the sum of ``K`` independent ``N(0, σ²/K)``."""
        return scale / math.sqrt(parts)

    def shift_ratio_law(self, scale):
        from otbound.numerics.ratio_laws import gaussian_law

        return gaussian_law(scale)

    def shift_ratio_survival_ball(self, log_ratio, scale):
        """``log L = (z − ½)/s²``: ``log L > t`` is ``z > s²t + ½``."""
        from flint import arb

        edge = log_ratio * scale * scale + arb(1) / 2
        root = scale * arb(2).sqrt()
        return (edge / root).erfc() / 2, ((edge - 1) / root).erfc() / 2

    def norm_ball(self, scale):
        from flint import arb

        return 1 / (scale * (2 * arb.pi()).sqrt())

    def kernel_ball(self, offset, scale, sign=None):
        return (-(offset / scale) ** 2 / 2).exp()

    def survival_ball(self, distance, scale):
        from flint import arb

        return (distance / (scale * arb(2).sqrt())).erfc() / 2

    def log_kernel_float(self, distance, sign):
        return -distance * distance / 2

    def linear_part_ball(self, mean, scale, sign):
        from flint import arb

        return mean / (scale * scale), (-(arb(mean) ** 2) / (2 * scale * scale)
                                        - (scale * (2 * arb.pi()).sqrt()).log())

    def log_kernel_ratio_ball(self, z, mean, top, scale, sign, top_sign):
        return -(top - mean) * (2 * z - mean - top) / (2 * scale * scale)

    def shape_part_ball(self, z, slope, intercept, scale):
        s2 = scale * scale
        centre = slope * s2
        return -(z - centre) ** 2 / (2 * s2) + intercept + slope * slope * s2 / 2


GAUSSIAN = Gaussian()
