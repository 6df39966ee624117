"""Dwork & Roth 2014, Thm. A.1 (the classical Gaussian mechanism): for ε ∈ (0, 1) and
``c² > 2 ln(1.25/δ)``, noise ``σ ≥ cΔ/ε`` gives (ε, δ)-DP. As a privacy profile, with Δ = 1 and
``c = σε``: ``δ(ε) ≤ 1.25 e^{−σ²ε²/2}`` for ε ∈ (0, 1)."""

import math
import runpy
from pathlib import Path

from otbound import gaussian
from otbound.audit import Claim, Domain, Quantity, grid, real

_POISSON = runpy.run_path(str(Path(__file__).with_name("balle_2018_poisson_laplace.py")))

CLAIM = Claim(
    name="dwork-roth-2014-gaussian-mechanism",
    title="The classical Gaussian mechanism: δ(ε) ≤ 1.25 e^{−σ²ε²/2} for ε ∈ (0, 1)",
    citation="Dwork & Roth 2014, The Algorithmic Foundations of Differential Privacy, Thm. A.1",
    setting="the Gaussian mechanism with L2 sensitivity 1 and noise σ, one insertion or removal",
    domain=Domain((real("sigma", 0.2, 50.0), real("epsilon", 1e-3, 0.999)),
                  stated="ε ∈ (0, 1), c² > 2 ln(1.25/δ)"),
    quantity=Quantity.ADP,
    points=grid(sigma=[1.0, 2.0, 5.0], epsilon=[0.1, 0.5, 0.9]),
    claimed=lambda p: min(1.0, 1.25 * math.exp(-(p["sigma"] * p["epsilon"]) ** 2 / 2)),
    reference=lambda p: _POISSON["poisson"](gaussian(p["sigma"]), {**p, "rate": 1.0}),
    series=("sigma",),
    note="δ is capped at 1 (a δ ≥ 1 is no claim). The condition c² > 2 ln(1.25/δ) holds "
         "wherever the claimed δ is below 1. Against otbound's tight profile at rate 1.",
)
