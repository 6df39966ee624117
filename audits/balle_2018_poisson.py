"""Balle, Barthe & Gaboardi 2018, Poisson subsampling: an (ε, δ)-DP mechanism run on a Poisson
sample at rate r is ``(log(1 + r(e^ε − 1)), rδ)``-DP; as privacy profiles,
``δ'(log(1 + r(e^ε − 1))) ≤ r δ(ε)``."""

import mpmath as mp

from otbound import Subsampling, gaussian
from otbound.audit import Claim, Domain, Point, Quantity, grid, real, subsampled


def gaussian_profile(epsilon: mp.mpf, sigma: mp.mpf) -> mp.mpf:
    """Exact ``δ(ε)`` of the Gaussian mechanism with sensitivity 1 (Balle & Wang 2018, Thm. 8):
    ``Φ(1/2σ − εσ) − e^ε Φ(−1/2σ − εσ)``."""
    return (mp.ncdf(1 / (2 * sigma) - epsilon * sigma)
            - mp.exp(epsilon) * mp.ncdf(-1 / (2 * sigma) - epsilon * sigma))


def claimed(point: Point) -> float:
    """``r δ(ε)`` at the point's ``ε' = log(1 + r(e^ε − 1))``."""
    with mp.workdps(40):
        rate, sigma = mp.mpf(point["rate"]), mp.mpf(point["sigma"])
        base = mp.log1p(mp.expm1(mp.mpf(point["epsilon"])) / rate)   # ε' = log(1 + r(e^ε − 1))
        return float(rate * gaussian_profile(base, sigma))


CLAIM = Claim(
    name="balle-2018-poisson",
    title="Poisson subsampling: δ'(log(1 + r(e^ε − 1))) = r δ(ε)",
    citation="Balle, Barthe & Gaboardi 2018, Privacy Amplification by Subsampling: Tight Analyses "
             "via Couplings and Divergences, Sec. 5, Thm. 8 (Poisson subsampling, Table 1)",
    setting="Poisson subsampling at rate r, add/remove one; Gaussian mechanism with sensitivity 1 "
            "and its exact profile δ(ε)",
    domain=Domain((real("sigma", 0.2, 20.0), real("rate", 1e-5, 1.0),
                   real("epsilon", 1e-3, 10.0)),
                  stated="r ∈ (0, 1], ε' ≥ 0 (any ε ≥ 0 of the base mechanism)"),
    quantity=Quantity.ADP,
    points=grid(sigma=[0.5, 1.0, 2.0], rate=[0.001, 0.01, 0.1],
                epsilon=[0.01, 0.1, 0.5, 1.0]),
    claimed=claimed,
    reference=lambda p: subsampled(Subsampling("poisson", rate=p["rate"], group=1),
                                   gaussian(p["sigma"]), Quantity.ADP, p["epsilon"]),
    series=("sigma", "rate"),
    note="The points are the amplified ε' (the base ε = log(1 + (e^{ε'} − 1)/r)). Against "
         "otbound's tight profile of the Poisson subsampled Gaussian (both directions of "
         "add/remove): the claim meets it — for the Gaussian the removal direction is the "
         "worst and its hockey-stick divergence is exactly r δ(ε), as 003 Sec. 3.3 notes for "
         "K = 1.",
)
