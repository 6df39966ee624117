"""Mironov 2017, Table 2 / Prop. 7: the Gaussian mechanism with sensitivity 1 and noise σ has
``ε(α) = α/(2σ²)`` at every order α > 1 (stated exactly)."""

import runpy
from pathlib import Path

from otbound import gaussian
from otbound.audit import Claim, Domain, Quantity, grid, real

_BASE = runpy.run_path(str(Path(__file__).with_name("mironov_2017_laplace_rdp.py")))

CLAIM = Claim(
    name="mironov-2017-gaussian-rdp",
    title="RDP of the Gaussian mechanism: α/(2σ²) (stated exactly)",
    citation="Mironov 2017, Rényi Differential Privacy (CSF), Table 2 and Prop. 7",
    setting="the Gaussian mechanism with L2 sensitivity 1 and noise σ, one insertion or removal",
    domain=Domain((real("sigma", 0.1, 100.0), real("alpha", 1.01, 1000.0)),
                  stated="α > 1, σ > 0"),
    quantity=Quantity.RDP,
    points=grid(sigma=[0.5, 1.0, 4.0], alpha=[1.5, 2.0, 8.0, 32.0]),
    claimed=lambda p: p["alpha"] / (2 * p["sigma"] ** 2),
    reference=lambda p: _BASE["unsubsampled"](gaussian(p["sigma"]), p["alpha"]),
    series=("sigma",),
    attained=True,
    note="Against otbound's tight K = 1 value at rate 1 (the pair N(1, σ²), N(0, σ²)).",
)
