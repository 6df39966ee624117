"""Mironov, Talwar & Zhang 2019, the RDP of the Sampled Gaussian Mechanism at fractional orders.

With ``μ₀ = N(0, σ²)``, ``μ₁ = N(1, σ²)`` and ``μ = (1 − q)μ₀ + qμ₁``, the SGM is ``(α, ε)``-RDP
with ``ε = log(A_α)/(α − 1)``, ``A_α = E_{z∼μ₀}[(μ(z)/μ₀(z))^α]`` (Sec. 3). For fractional ``α``
(Sec. 3.3) the integral is split at ``z₀ = σ² log(1/q − 1) + 1/2``, where ``qμ₁ = (1 − q)μ₀``, and
each part is expanded in the (generalised, signed) binomial series of the larger summand:

    A_α  = A_α1 + A_α2,
    A_α1 = Σ_{i≥0} C(α, i) q^i (1 − q)^{α−i} e^{(i² − i)/(2σ²)} · ½ erfc((i − z₀)/(√2 σ)),
    A_α2 = Σ_{i≥0} C(α, i) q^{α−i} (1 − q)^i e^{((α−i)² − (α−i))/(2σ²)}
           · ½ erfc((z₀ − (α − i))/(√2 σ)).
"""

import math

import numpy as np
from scipy.special import binom, log_ndtr

from otbound import Subsampling, gaussian
from otbound.audit import Claim, Domain, Quantity, grid, real, subsampled

FIRST_TERMS = 1024
"""Terms of each series summed at first; doubled until the last one is negligible."""
MAX_TERMS = 2 ** 22
NEGLIGIBLE = 1e-18
"""Relative size of the last term summed: past ``i > α`` the terms alternate in sign and
decrease (like ``i^{−α−2}``), so the omitted tail is at most the first omitted term."""


def series_terms(alpha: float, rate: float, sigma: float, count: int) -> np.ndarray:
    """The first ``count`` terms of ``A_α1`` followed by those of ``A_α2``."""
    i = np.arange(count, dtype=float)
    j = alpha - i
    z0 = sigma ** 2 * math.log(1 / rate - 1) + 0.5
    coefficient = binom(alpha, i)
    log_magnitude = np.log(np.abs(np.where(coefficient == 0, 1.0, coefficient)))
    sign = np.sign(coefficient)
    log_q, log_1mq = math.log(rate), math.log1p(-rate)
    # ½ erfc((i − z₀)/(√2σ)) = Φ((z₀ − i)/σ), ½ erfc((z₀ − j)/(√2σ)) = Φ((j − z₀)/σ)
    first = (log_magnitude + i * log_q + j * log_1mq + (i * i - i) / (2 * sigma ** 2)
             + log_ndtr((z0 - i) / sigma))
    second = (log_magnitude + j * log_q + i * log_1mq + (j * j - j) / (2 * sigma ** 2)
              + log_ndtr((j - z0) / sigma))
    return np.concatenate([sign * np.exp(first), sign * np.exp(second)])


def log_a(alpha: float, rate: float, sigma: float) -> float:
    """``log A_α`` from the two series, summed (``math.fsum``) until the last terms of both are
    below ``NEGLIGIBLE`` times the total."""
    count = FIRST_TERMS
    while True:
        terms = series_terms(alpha, rate, sigma, count)
        total = math.fsum(terms)
        last = max(abs(terms[count - 1]), abs(terms[-1]))
        if last <= NEGLIGIBLE * abs(total) or count >= MAX_TERMS:
            return math.log(total)
        count *= 2


def claimed(point) -> float:
    return log_a(point["alpha"], point["rate"], point["sigma"]) / (point["alpha"] - 1)


CLAIM = Claim(
    name="mironov-talwar-zhang-2019-fractional",
    title="Sampled Gaussian Mechanism at fractional α: A_α = A_α1 + A_α2",
    citation="Mironov, Talwar & Zhang 2019, Rényi Differential Privacy of the Sampled Gaussian "
             "Mechanism (arXiv:1908.10530), Sec. 3.3",
    setting="Poisson subsampling at rate q, insertion/removal of one element; Gaussian mechanism "
            "with sensitivity 1 and noise σ",
    domain=Domain((real("sigma", 0.5, 20.0), real("rate", 1e-3, 0.9), real("alpha", 1.05, 64.0)),
                  stated="α > 1 (here fractional), q ∈ (0, 1), σ > 0"),
    quantity=Quantity.RDP,
    points=grid(sigma=[0.7, 2.0, 5.0], rate=[0.02, 0.1, 0.4], alpha=[1.5, 2.5, 6.25, 20.5]),
    claimed=claimed,
    reference=lambda p: subsampled(Subsampling("poisson", rate=p["rate"], group=1),
                                   gaussian(p["sigma"]), Quantity.RDP, p["alpha"]),
    series=("sigma", "rate"),
    note="A_α is the removal direction Ψ_α(μ ‖ μ₀). otbound's reference is the larger of both "
         "directions of insertion/removal (003 Thm. 3.7/3.8 at (K₊, K₋) = (1, 0) and (0, 1)), "
         "so a tight verdict also checks that the insertion direction Ψ_α(μ₀ ‖ μ) never exceeds "
         "A_α on the grid, as the paper states. The series is summed with its signed "
         "coefficients C(α, i) (negative for alternate i > α).",
)
