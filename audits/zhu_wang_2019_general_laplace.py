"""Zhu & Wang 2019's general upper bound (factor 3 on the terms l ≥ 3) for the Laplace
mechanism, with ε(l) its exact RDP curve (Mironov 2017): sound for every base mechanism by the
theorem; audited where otbound's Laplace worst case is tight. The randomized response entry
reuses this file's helpers."""

import math
import runpy
from pathlib import Path

import numpy as np

from otbound import Subsampling, laplace
from otbound.audit import Claim, Domain, Quantity, grid, integer, real, subsampled

_HERE = Path(__file__).parent
_LAPLACE = runpy.run_path(str(_HERE / "mironov_2017_laplace_rdp.py"))
FACTOR = 3.0


def general_bound(alpha: int, rate: float, base_rdp) -> float:
    """``log(1 + Σ_{l=2}^{α} C(α, l)(1 − γ)^{α−l} γ^l (c_l e^{(l−1)ε(l)} − 1))/(α − 1)``,
    ``c_2 = 1`` and ``c_l = 3`` above (the binomial identity of the Gaussian entry), in
    logarithms: every term is ≥ 0."""
    logs = []
    for l in range(2, alpha + 1):
        exponent = (l - 1) * base_rdp(l)
        coefficient = 1.0 if l == 2 else FACTOR
        gap = (math.log(-math.expm1(-exponent)) if coefficient == 1.0
               else math.log(coefficient - math.exp(-exponent)))
        logs.append(math.lgamma(alpha + 1) - math.lgamma(l + 1) - math.lgamma(alpha - l + 1)
                    + (alpha - l) * math.log1p(-rate) + l * math.log(rate) + exponent + gap)
    return float(np.logaddexp(0.0, np.logaddexp.reduce(logs))) / (alpha - 1)


def poisson(mechanism, point):
    return subsampled(Subsampling("poisson", rate=point["rate"], group=1), mechanism,
                      Quantity.RDP, point["alpha"])


CLAIM = Claim(
    name="zhu-wang-2019-general-laplace",
    title="Poisson subsampled RDP, general upper bound, for the Laplace mechanism",
    citation="Zhu & Wang 2019, Poisson Subsampled Rényi Differential Privacy (ICML), Thm. 6 "
             "(general upper bound, integer α), with Mironov 2017's Laplace RDP",
    setting="Poisson subsampling at rate γ, insertion/removal of one element; Laplace mechanism "
            "with L1 sensitivity 1 and scale b",
    domain=Domain((real("scale", 0.2, 20.0), real("rate", 1e-4, 0.9), integer("alpha", 2, 128)),
                  stated="integer α ≥ 2, γ ∈ (0, 1), any base mechanism with the RDP curve ε(l)"),
    quantity=Quantity.RDP,
    points=grid(scale=[0.5, 2.0], rate=[0.01, 0.1, 0.3], alpha=[2, 3, 8, 32]),
    claimed=lambda p: general_bound(int(p["alpha"]), p["rate"],
                                    lambda l: _LAPLACE["laplace_rdp"](l, p["scale"])),
    reference=lambda p: poisson(laplace(p["scale"]), p),
    series=("scale", "rate"),
    note="Against otbound's tight K = 1 curve of the Poisson subsampled Laplace mechanism (both "
         "directions).",
)
