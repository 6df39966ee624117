"""Balle, Barthe & Gaboardi 2018's Poisson subsampling theorem for randomized response:
``δ'(log(1 + r(e^ε − 1))) ≤ r δ(ε)`` with its exact profile ``δ(ε) = max(0, p − e^ε (1 − p))``
(the bit reported with probability p > 1/2)."""

import math
import runpy
from pathlib import Path

from otbound import randomized_response
from otbound.audit import Claim, Domain, Quantity, grid, real

_LAPLACE = runpy.run_path(str(Path(__file__).with_name("balle_2018_poisson_laplace.py")))


def rr_profile(epsilon: float, p: float) -> float:
    return max(0.0, p - math.exp(epsilon) * (1 - p))


CLAIM = Claim(
    name="balle-2018-poisson-randomized-response",
    title="Poisson subsampling: δ'(log(1 + r(e^ε − 1))) = r δ(ε), randomized response",
    citation="Balle, Barthe & Gaboardi 2018, Privacy Amplification by Subsampling: Tight Analyses "
             "via Couplings and Divergences, Sec. 5, Thm. 8 (Poisson subsampling, Table 1)",
    setting="Poisson subsampling at rate r, add/remove one; randomized response reporting the "
            "bit with probability p, and its exact profile δ(ε) = max(0, p − e^ε(1 − p))",
    domain=Domain((real("p", 0.51, 0.99, log=False), real("rate", 1e-4, 1.0),
                   real("epsilon", 1e-3, 5.0)),
                  stated="r ∈ (0, 1], ε' ≥ 0 (any ε ≥ 0 of the base mechanism)"),
    quantity=Quantity.ADP,
    points=grid(p=[0.6, 0.75, 0.9], rate=[0.01, 0.1], epsilon=[0.01, 0.1, 0.5]),
    claimed=lambda point: _LAPLACE["amplified"](point, lambda e: rr_profile(e, point["p"])),
    reference=lambda point: _LAPLACE["poisson"](randomized_response(point["p"]), point),
    series=("p", "rate"),
    note="Against otbound's tight one-step profile of Poisson subsampled randomized response.",
)
