"""Balle & Wang 2018, Thm. 8 (the analytic Gaussian mechanism): the Gaussian mechanism with
sensitivity Δ and noise σ is (ε, δ)-DP exactly for ``δ = Φ(Δ/(2σ) − εσ/Δ)
− e^ε Φ(−Δ/(2σ) − εσ/Δ)`` (stated as attained); here Δ = 1."""

import runpy
from pathlib import Path

import mpmath as mp

from otbound import gaussian
from otbound.audit import Claim, Domain, Quantity, grid, real

_HERE = Path(__file__).parent
_POISSON = runpy.run_path(str(_HERE / "balle_2018_poisson_laplace.py"))
_GAUSSIAN = runpy.run_path(str(_HERE / "balle_2018_poisson.py"))


def claimed(point) -> float:
    with mp.workdps(40):
        return float(_GAUSSIAN["gaussian_profile"](mp.mpf(point["epsilon"]),
                                                   mp.mpf(point["sigma"])))


CLAIM = Claim(
    name="balle-wang-2018-analytic-gaussian",
    title="The analytic Gaussian mechanism: δ(ε) = Φ(1/2σ − εσ) − e^ε Φ(−1/2σ − εσ)",
    citation="Balle & Wang 2018, Improving the Gaussian Mechanism for Differential Privacy: "
             "Analytical Calibration and Optimal Denoising (ICML), Thm. 8",
    setting="the Gaussian mechanism with L2 sensitivity 1 and noise σ, one insertion or removal",
    domain=Domain((real("sigma", 0.1, 50.0), real("epsilon", 1e-3, 20.0)),
                  stated="ε ≥ 0, σ > 0"),
    quantity=Quantity.ADP,
    points=grid(sigma=[0.5, 1.0, 4.0], epsilon=[0.1, 1.0, 3.0]),
    claimed=claimed,
    reference=lambda p: _POISSON["poisson"](gaussian(p["sigma"]), {**p, "rate": 1.0}),
    series=("sigma",),
    attained=True,
    note="Against otbound's tight profile at rate 1 (the pair N(1, σ²), N(0, σ²)).",
)
