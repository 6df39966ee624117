"""Dwork & Roth 2014's group privacy for (ε, δ), ``(kε, k e^{(k−1)ε} δ)``, applied to the
Poisson subsampled Laplace mechanism's tight K = 1 profile (the Gaussian entry's statement
with another base)."""

import runpy
from pathlib import Path

from otbound import laplace
from otbound.audit import Claim, Domain, Quantity, grid, integer, real

_GAUSSIAN = runpy.run_path(str(Path(__file__).with_name("dwork_roth_2014_group.py")))

CLAIM = Claim(
    name="dwork-roth-2014-group-adp-laplace",
    title="Group privacy for (ε, δ): (kε, k e^{(k−1)ε} δ), Laplace mechanism",
    citation="Dwork & Roth 2014, The Algorithmic Foundations of Differential Privacy, Sec. 2.3 "
             "(the remark on (ε, δ)-DP after Thm. 2.2)",
    setting="Poisson subsampling at rate r, groups of k insertions/removals; Laplace mechanism "
            "with sensitivity 1 and scale b; the K = 1 profile is otbound's tight one",
    domain=Domain((real("scale", 0.5, 8.0), real("rate", 1e-3, 0.5), integer("group", 1, 8),
                   real("epsilon", 0.01, 5.0)),
                  stated="k ≥ 1, ε ≥ 0"),
    quantity=Quantity.ADP,
    points=grid(scale=[1.0, 2.0], rate=[0.01, 0.1], group=[2, 4], epsilon=[0.1, 1.0]),
    claimed=lambda p: _GAUSSIAN["group_bound"](p, laplace(p["scale"])),
    reference=lambda p: _GAUSSIAN["group_reference"](p, laplace(p["scale"])),
    series=("scale", "rate", "group"),
    note="Against otbound's tight group profile of the Poisson subsampled Laplace mechanism.",
)
