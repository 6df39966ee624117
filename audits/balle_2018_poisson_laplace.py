"""Balle, Barthe & Gaboardi 2018's Poisson subsampling theorem for the Laplace mechanism:
``δ'(log(1 + r(e^ε − 1))) ≤ r δ(ε)`` with the Laplace mechanism's exact profile
``δ(ε) = max(0, 1 − e^{(ε − 1/b)/2})`` (sensitivity 1, scale b). The randomized response entry
reuses this file's helper."""

import math

from otbound import Subsampling, laplace
from otbound.audit import Claim, Domain, Point, Quantity, grid, real, subsampled


def amplified(point: Point, profile) -> float:
    """``r δ(ε)`` at the point's ``ε' = log(1 + r(e^ε − 1))``, ``profile`` the base's δ(ε)."""
    rate = point["rate"]
    return rate * profile(math.log1p(math.expm1(point["epsilon"]) / rate))


def laplace_profile(epsilon: float, scale: float) -> float:
    return max(0.0, -math.expm1((epsilon - 1 / scale) / 2))


def poisson(mechanism, point: Point):
    return subsampled(Subsampling("poisson", rate=point["rate"], group=1), mechanism,
                      Quantity.ADP, point["epsilon"])


CLAIM = Claim(
    name="balle-2018-poisson-laplace",
    title="Poisson subsampling: δ'(log(1 + r(e^ε − 1))) = r δ(ε), Laplace mechanism",
    citation="Balle, Barthe & Gaboardi 2018, Privacy Amplification by Subsampling: Tight Analyses "
             "via Couplings and Divergences, Sec. 5, Thm. 8 (Poisson subsampling, Table 1)",
    setting="Poisson subsampling at rate r, add/remove one; Laplace mechanism with sensitivity 1, "
            "scale b, and its exact profile δ(ε) = max(0, 1 − e^{(ε − 1/b)/2})",
    domain=Domain((real("scale", 0.2, 20.0), real("rate", 1e-4, 1.0), real("epsilon", 1e-3, 5.0)),
                  stated="r ∈ (0, 1], ε' ≥ 0 (any ε ≥ 0 of the base mechanism)"),
    quantity=Quantity.ADP,
    points=grid(scale=[0.5, 1.0, 2.0], rate=[0.01, 0.1], epsilon=[0.01, 0.1, 0.5]),
    claimed=lambda p: amplified(p, lambda e: laplace_profile(e, p["scale"])),
    reference=lambda p: poisson(laplace(p["scale"]), p),
    series=("scale", "rate"),
    note="Against otbound's tight one-step profile of the Poisson subsampled Laplace mechanism "
         "(both directions of add/remove).",
)
