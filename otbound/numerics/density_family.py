"""A noise family with a density on the real line, evaluated by otbound's evaluators of such
pairs: the closed-form hockey stick at the root of the privacy loss
(:mod:`otbound.numerics.hockey_stick`), the binomial expansion or the quadrature of
``Q φ_α(P/Q)`` (:mod:`otbound.numerics.renyi`), and their arb enclosures
(:mod:`otbound.numerics.certified_renyi`, :mod:`otbound.numerics.certified_hockey_stick`). The
Gaussian and Laplace families subclass it and supply what :class:`~otbound.numerics.noise.
LineDensity` asks."""

from __future__ import annotations

import numpy as np

from otbound.numerics.certified_hockey_stick import density_certified_delta
from otbound.numerics.certified_renyi import density_certified_log_psi
from otbound.numerics.hockey_stick import density_delta_bounds
from otbound.numerics.noise import LineDensity
from otbound.numerics.pairs import MixturePair
from otbound.numerics.renyi import density_log_psi
from otbound.numerics.rounding import Bounds


class DensityFamily(LineDensity):
    """A :class:`~otbound.numerics.noise.LineDensity` with its divergences by the evaluators
    (see the module docstring)."""

    def delta_bounds(self, pair: MixturePair, epsilons: np.ndarray,
                     tolerance: float) -> Bounds:
        """The closed form at the root of the privacy loss (the likelihood ratio is monotone)."""
        return density_delta_bounds(pair, epsilons, tolerance)

    def log_psi_values(self, pair: MixturePair,
                       orders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The binomial expansion where it applies, quadrature per :attr:`shape` elsewhere."""
        return density_log_psi(pair, orders)

    def certified_log_psi(self, pair: MixturePair, alpha: float) -> tuple[float, float]:
        return density_certified_log_psi(pair, alpha)

    def certified_delta(self, pair: MixturePair, epsilon: float) -> tuple[float, float]:
        return density_certified_delta(pair, epsilon)
