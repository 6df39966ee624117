"""Zhu & Wang 2019's Poisson subsampled RDP bound without the factor on the higher-order terms,
for the Laplace mechanism (ε(l) its exact RDP curve, Mironov 2017). The randomized response
entry reuses this file's helper.

For integer ``α ≥ 2`` and a base mechanism whose worst pair ``(p, q)`` is the same at every
order (the Laplace pair ``Lap(1, b)``, ``Lap(0, b)``), the removal direction of Poisson
subsampling at rate ``γ`` has exactly

    Ψ_α((1 − γ)q + γp ‖ q) = (1 − γ)^{α−1}(αγ − γ + 1)
                             + Σ_{l=2}^{α} C(α, l)(1 − γ)^{α−l} γ^l e^{(l−1) ε(l)}

(binomial expansion of ``((1 − γ) + γ p/q)^α``), and Zhu & Wang's Thm. 8 states it as the
upper bound for mechanisms meeting its extra condition (bounded Pearson–Vajda ``χ^l``
pseudo-divergences); so the claim is that the insertion direction never exceeds it.
"""

import math
import runpy
from pathlib import Path

import numpy as np

from otbound import laplace
from otbound.audit import Claim, Domain, Quantity, grid, integer, real

_HERE = Path(__file__).parent
_LAPLACE = runpy.run_path(str(_HERE / "mironov_2017_laplace_rdp.py"))
_GENERAL = runpy.run_path(str(_HERE / "zhu_wang_2019_general_laplace.py"))


def tight_bound(alpha: int, rate: float, base_rdp) -> float:
    """``log(1 + Σ_{l=2}^{α} C(α, l)(1 − γ)^{α−l} γ^l (e^{(l−1)ε(l)} − 1))/(α − 1)``: the sum
    above less ``Σ_l C(α, l)(1 − γ)^{α−l} γ^l = 1``, every term ≥ 0, in logarithms
    (``log(e^x − 1) = x + log(1 − e^{−x})``)."""
    logs = []
    for l in range(2, alpha + 1):
        exponent = (l - 1) * base_rdp(l)
        if exponent <= 0.0:
            continue
        logs.append(math.lgamma(alpha + 1) - math.lgamma(l + 1) - math.lgamma(alpha - l + 1)
                    + (alpha - l) * math.log1p(-rate) + l * math.log(rate)
                    + exponent + math.log(-math.expm1(-exponent)))
    if not logs:
        return 0.0
    return float(np.logaddexp(0.0, np.logaddexp.reduce(logs))) / (alpha - 1)


CLAIM = Claim(
    name="zhu-wang-2019-tight-laplace",
    title="Poisson subsampled RDP without the factor on the terms l ≥ 3, Laplace mechanism",
    citation="Zhu & Wang 2019, Poisson Subsampled Rényi Differential Privacy (ICML), Thm. 8 "
             "(the bound without the factor, under its χ^l condition), with Mironov 2017's "
             "Laplace RDP",
    setting="Poisson subsampling at rate γ, insertion/removal of one element; Laplace mechanism "
            "with L1 sensitivity 1 and scale b",
    domain=Domain((real("scale", 0.2, 20.0), real("rate", 1e-4, 0.9), integer("alpha", 2, 128)),
                  stated="integer α ≥ 2, γ ∈ (0, 1); mechanisms meeting the χ^l condition of "
                         "Thm. 8"),
    quantity=Quantity.RDP,
    points=grid(scale=[0.5, 2.0], rate=[0.01, 0.1, 0.3], alpha=[2, 3, 8, 32]),
    claimed=lambda p: tight_bound(int(p["alpha"]), p["rate"],
                                  lambda l: _LAPLACE["laplace_rdp"](l, p["scale"])),
    reference=lambda p: _GENERAL["poisson"](laplace(p["scale"]), p),
    series=("scale", "rate"),
    note="The seeds do not contain the paper; the formula was checked against the authors' "
         "autodp (rdp_acct.compose_poisson_subsampled_mechanisms, whose comment calls it the "
         "exact Poisson subsampled RDP of many mechanisms, and papers/ICML18-PoissonSampling/"
         "exp_rdp.py, which plots it for the Laplace mechanism as the tight upper/lower bound). "
         "Against otbound's tight K = 1 curve of the Poisson subsampled Laplace mechanism, the "
         "larger of both directions of insertion/removal: a tight verdict says the insertion "
         "direction never exceeds the removal direction's binomial expansion.",
)
