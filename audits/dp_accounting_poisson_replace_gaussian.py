"""Google's dp_accounting: the dominating pair of the Poisson subsampled Gaussian mechanism under
substitution (``REPLACE`` adjacency). Its privacy loss distribution for an additive noise ``μ``,
sensitivity ``Δ`` and sampling probability ``q`` is that of

    μ_upper(x) = q μ(x + Δ) + (1 − q) μ(x),    μ_lower(x) = q μ(x − Δ) + (1 − q) μ(x),

so the claimed privacy profile is ``δ(ε) = H_{e^ε}(μ_upper ‖ μ_lower)`` (the pair is its own
mirror image: the other direction gives the same value). ``Δ`` is the largest change of ``f``
when one record is added or removed: at ``q = 1`` the docstring notes that the pair is the
mechanism's with twice the sensitivity.
"""

import mpmath as mp

from otbound import Subsampling, gaussian
from otbound.audit import Claim, Domain, Point, Quantity, grid, real, subsampled


def replace_profile(rate: float, sigma: float, epsilon: float) -> float:
    """``H_{e^ε}(μ_upper ‖ μ_lower)`` for the Gaussian ``μ = N(0, σ²)`` and ``Δ = 1`` (40 digits).

    The privacy loss ``log(μ_upper/μ_lower)(x)`` decreases in ``x``; with ``u = e^{x/σ²}`` and
    ``c = e^{−1/(2σ²)}`` it equals ``ε`` where ``e^ε q c u² + (e^ε − 1)(1 − q) u − q c = 0``, at
    ``x* = σ² log u``, and ``δ = μ_upper(x ≤ x*) − e^ε μ_lower(x ≤ x*)``."""
    with mp.workdps(40):
        q, s, eps = mp.mpf(rate), mp.mpf(sigma), mp.mpf(epsilon)
        factor, c = mp.exp(eps), mp.exp(-1 / (2 * s ** 2))
        linear = mp.expm1(eps) * (1 - q)
        u = 2 * q * c / (linear + mp.sqrt(linear ** 2 + 4 * factor * (q * c) ** 2))
        x = s ** 2 * mp.log(u)
        upper = q * mp.ncdf((x + 1) / s) + (1 - q) * mp.ncdf(x / s)
        lower = q * mp.ncdf((x - 1) / s) + (1 - q) * mp.ncdf(x / s)
        return float(max(upper - factor * lower, mp.mpf(0)))


def reference(point: Point):
    """otbound's Poisson subsampling with one insertion and one removal (a substitution):
    003 Thm. 3.7/3.8 at ``(K₊, K₋) = (1, 1)``."""
    setting = Subsampling("poisson", rate=point["rate"], insertions=1, removals=1)
    return subsampled(setting, gaussian(point["sigma"]), Quantity.ADP, point["epsilon"])


CLAIM = Claim(
    name="dp-accounting-poisson-replace-gaussian",
    title="Poisson subsampling under substitution: the dominating pair "
          "qN(−1, σ²) + (1 − q)N(0, σ²) against qN(1, σ²) + (1 − q)N(0, σ²)",
    citation="Google dp_accounting 0.6.0, pld/privacy_loss_mechanism.py, "
             "AdditiveNoisePrivacyLoss (sub-sampling, REPLACE adjacency), as used by "
             "pld.privacy_loss_distribution.from_gaussian_mechanism(sampling_prob=q, "
             "neighboring_relation=REPLACE_ONE)",
    setting="Poisson subsampling with probability q, substitution of one record; Gaussian "
            "mechanism with noise σ on an f that changes by at most 1 when a record is added "
            "to or removed from the batch",
    domain=Domain((real("sigma", 0.3, 20.0), real("rate", 1e-4, 1.0),
                   real("epsilon", 1e-3, 5.0)),
                  stated="q ∈ (0, 1], any σ > 0 and ε ≥ 0"),
    quantity=Quantity.ADP,
    points=grid(sigma=[0.5, 1.0, 2.0], rate=[0.01, 0.1, 0.5], epsilon=[0.01, 0.1, 0.5, 1.0]),
    claimed=lambda p: replace_profile(p["rate"], p["sigma"], p["epsilon"]),
    reference=reference,
    series=("sigma", "rate"),
    note="Against otbound's tight profile of Poisson subsampling with one insertion and one "
         "removal (003 Thm. 3.7/3.8, (K₊, K₋) = (1, 1)), whose worst case is x = {r₁} ∪ B, "
         "x' = {i₁} ∪ B with f = 1 on batches holding r₁, −1 on those holding i₁ and 0 on "
         "the others: the same pair, so the claim is tight if otbound's bound meets it.",
)
