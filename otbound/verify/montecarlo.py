"""Monte Carlo estimates of divergences by sampling the real subsampled mechanism.

A batch is drawn from the scheme, then the base mechanism's output; the exact likelihood ratio
``L = m_x/m_{x'}`` (from enumeration) is evaluated at the sample. Then

* ``H_γ(m_x ‖ m_{x'}) = E_{m_x}[max(1 − γ/L, 0)]`` — a mean of numbers in [0, 1];
* ``Ψ_α(m_x ‖ m_{x'}) = E_{m_x}[L^{α−1}]`` (sampling ``m_x`` rather than ``m_{x'}`` halves the
  moment the variance needs: ``E_{m_{x'}}[L^{2α−1}]`` instead of ``E_{m_{x'}}[L^{2α}]``).

Each estimate comes with a normal-approximation confidence interval of ``z`` standard errors.
For ``Ψ_α`` the standard error is computed exactly, ``Var = Ψ_{2α−1} − Ψ_α²`` of the exact
outputs: the sample variance of a heavy-tailed ``L^{α−1}`` underestimates it, which made the
interval too narrow for large groups. An interval wider than :data:`INFORMATIVE` times the bound
cannot refute it and is reported as such.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from otbound.engine.batches import Batch
from otbound.engine.schemes import Scheme
from otbound.numerics.mechanisms import Mechanism, RandomizedResponse
from otbound.numerics.pairs import MixturePair, Side
from otbound.verify.divergence import ExactBernoulli, _log_density, independent_log_psi
from otbound.verify.enumeration import additive_noise
from otbound.verify.noise_references import reference

Z_SCORE = 4.0
"""Half-width of the confidence intervals in standard errors (two-sided level 1 − 6e-5)."""
INFORMATIVE = 0.05
"""Largest half-width, relative to the bound, of an interval that can still refute it."""


@dataclass(frozen=True)
class Estimate:
    value: float
    lower: float
    upper: float

    @staticmethod
    def of(samples: np.ndarray, deviation: float | None = None) -> "Estimate":
        """The mean with ``Z_SCORE`` standard errors, from ``deviation`` (the samples' exact
        standard deviation) when known, else from the sample's."""
        mean = float(samples.mean())
        spread = float(samples.std(ddof=1)) if deviation is None else deviation
        error = Z_SCORE * spread / math.sqrt(samples.size)
        return Estimate(mean, mean - error, mean + error)

    def informative(self, bound: float) -> bool:
        """Whether the interval is narrow enough to refute a bound this large."""
        return (self.upper - self.lower) / 2 <= INFORMATIVE * bound


def sample_outputs(scheme: Scheme, dataset: frozenset, function: Callable[[Batch], float],
                   mechanism: Mechanism, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` outputs of ``B(S(dataset))`` (additive outputs in units of the sensitivity)."""
    pmf = scheme.pmf(dataset)
    batches = list(pmf)
    probabilities = np.array([float(pmf[b]) for b in batches])
    values = np.array([function(b) for b in batches])
    drawn = values[rng.choice(len(batches), size=size, p=probabilities / probabilities.sum())]
    if isinstance(mechanism, RandomizedResponse):
        truthful = rng.random(size) < mechanism.theta
        return np.where(truthful, drawn, 1 - drawn)
    mechanism = additive_noise(mechanism)
    noise = reference(mechanism.family)
    queried = np.array([noise.query(v / mechanism.sensitivity) for v in drawn])
    return queried + noise.draw(rng, size, mechanism.noise_multiplier)


def log_ratio(pair: MixturePair | ExactBernoulli, outputs: np.ndarray) -> np.ndarray:
    """``log m_x(z) − log m_{x'}(z)`` at the outputs."""
    if isinstance(pair, ExactBernoulli):
        with np.errstate(divide="ignore"):
            one = math.log(pair.p) - math.log(pair.q) if pair.q else math.inf
            zero = (math.log(1 - pair.p) - math.log(1 - pair.q)) if pair.q < 1 else math.inf
        return np.where(outputs == 1, one, zero)
    return _log_density(pair, Side.P, outputs) - _log_density(pair, Side.Q, outputs)


def estimate_delta(pair, outputs_x: np.ndarray, epsilon: float) -> Estimate:
    """``H_{e^ε}`` from outputs of ``m_x``."""
    return Estimate.of(np.maximum(1 - np.exp(epsilon - log_ratio(pair, outputs_x)), 0.0))


def estimate_psi(pair, outputs_x: np.ndarray, alpha: float) -> Estimate:
    """``Ψ_α`` from outputs of ``m_x``, with the exact standard deviation of ``L^{α−1}``."""
    first = math.exp(independent_log_psi(pair, alpha))
    second = math.exp(independent_log_psi(pair, 2 * alpha - 1))
    deviation = math.sqrt(max(second - first ** 2, 0.0))
    return Estimate.of(np.exp((alpha - 1) * log_ratio(pair, outputs_x)), deviation)
