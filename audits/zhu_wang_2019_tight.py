"""Zhu & Wang 2019, the Poisson subsampled RDP bound without the factor on the higher-order
terms, which the paper proves exact for the Gaussian (and Laplace) mechanism.

For integer ``α ≥ 2`` and a base mechanism meeting the paper's extra condition (Thm. 8: bounded
Pearson–Vajda ``χ^l`` pseudo-divergences, which the Gaussian mechanism satisfies), Poisson
subsampling at rate ``γ`` gives

    ε'(α) ≤ 1/(α − 1) · log{ (1 − γ)^{α−1} (αγ − γ + 1)
                              + Σ_{l=2}^{α} C(α, l) (1 − γ)^{α−l} γ^l e^{(l−1) ε(l)} },

and for the Gaussian mechanism with sensitivity 1 (``ε(l) = l/(2σ²)``) this holds with equality.
"""

import runpy
from pathlib import Path

import numpy as np

from otbound import Subsampling, gaussian
from otbound.audit import Claim, Domain, Quantity, grid, integer, real, subsampled

_GENERAL = runpy.run_path(str(Path(__file__).with_name("zhu_wang_2019_general.py")))


def claimed(point) -> float:
    """The general bound's sum with every coefficient 1 (``log_excess`` of the general entry:
    ``S − 1 = Σ_{l=2}^{α} C(α, l)(1 − γ)^{α−l} γ^l (e^{(l−1)ε(l)} − 1)``, terms ≥ 0)."""
    alpha = int(point["alpha"])
    excess = _GENERAL["log_excess"](alpha, point["rate"], point["sigma"], 1.0)
    return float(np.logaddexp(0.0, excess)) / (alpha - 1)


CLAIM = Claim(
    name="zhu-wang-2019-tight",
    title="Poisson subsampled RDP without the factor on the terms l ≥ 3 (exact for the Gaussian)",
    citation="Zhu & Wang 2019, Poisson Subsampled Rényi Differential Privacy (ICML), Thm. 8 "
             "and its Gaussian instantiation (the bound is attained)",
    setting="Poisson subsampling at rate γ, insertion/removal of one element; Gaussian mechanism "
            "with sensitivity 1, ε(l) = l/(2σ²)",
    domain=Domain((real("sigma", 0.3, 20.0), real("rate", 1e-4, 0.9), integer("alpha", 2, 256)),
                  stated="integer α ≥ 2, γ ∈ (0, 1); mechanisms meeting the χ^l condition of "
                         "Thm. 8 (Gaussian)"),
    quantity=Quantity.RDP,
    points=grid(sigma=[0.8, 2.0, 5.0], rate=[0.01, 0.1, 0.3], alpha=[2, 3, 8, 32]),
    claimed=claimed,
    reference=lambda p: subsampled(Subsampling("poisson", rate=p["rate"], group=1),
                                   gaussian(p["sigma"]), Quantity.RDP, p["alpha"]),
    series=("sigma", "rate"),
    note="001 App. E.2 calls this the version that eliminates the factor 2 of its Prop. E.4 and "
         "uses it as the baseline. Against otbound's tight K = 1 curve (the larger of the two "
         "directions of insertion/removal), whose removal-direction construction (001 Prop. "
         "E.4: P = (1 − γ)N(0, σ²) + γN(1, σ²), Q = N(0, σ²)) attains it.",
)
