"""Mironov 2017, Prop. 2 (group privacy for RDP: (α, ε)-RDP ⇒ (α/2^c, 3^c ε)-RDP for groups of
2^c, when α ≥ 2^{c+1}), applied to the tight K = 1 curve of the Poisson subsampled Laplace
mechanism (the Gaussian entry's statement with another base)."""

import runpy
from pathlib import Path

from otbound import laplace
from otbound.audit import Claim, Domain, Quantity, choice, grid, real

_GAUSSIAN = runpy.run_path(str(Path(__file__).with_name("mironov_2017_group.py")))

CLAIM = Claim(
    name="mironov-2017-group-rdp-laplace",
    title="Group privacy for RDP: (α, ε)-RDP ⇒ (α/2^c, 3^c ε)-RDP, Laplace mechanism",
    citation="Mironov 2017, Rényi Differential Privacy (CSF), Prop. 2",
    setting="Poisson subsampling at rate r, groups of K = 2^c insertions/removals; Laplace "
            "mechanism with sensitivity 1 and scale b; the K = 1 curve is otbound's tight one",
    domain=Domain((real("scale", 0.5, 8.0), real("rate", 1e-3, 0.5), choice("group", 2, 4, 8),
                   real("alpha", 2.0, 64.0)),
                  stated="K = 2^c, claimed order α/2^c ≥ 2 (Prop. 2 needs α ≥ 2^{c+1})"),
    quantity=Quantity.RDP,
    points=grid(scale=[1.0, 2.0], rate=[0.01, 0.1], group=[2, 4], alpha=[2.0, 8.0, 32.0]),
    claimed=lambda p: _GAUSSIAN["group_bound"](p, laplace(p["scale"])),
    reference=lambda p: _GAUSSIAN["group_reference"](p, laplace(p["scale"])),
    series=("scale", "rate", "group"),
    note="The point's alpha is the claimed order α/2^c; the K = 1 curve is read at 2^c times "
         "it. Against otbound's tight group curve of the Poisson subsampled Laplace mechanism.",
)
