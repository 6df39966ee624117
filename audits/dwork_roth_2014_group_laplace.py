"""Dwork & Roth 2014's group privacy for (ε, δ), ``(kε, k e^{(k−1)ε} δ)``, applied to the
Poisson subsampled Laplace mechanism's tight K = 1 profile (the Gaussian entry's statement
with another base)."""

import math

from otbound.audit.claims import Claim, Point, grid
from otbound.audit.domain import Domain, integer, real
from otbound.audit.references import subsampled
from otbound.choices import Quantity
from otbound.numerics.mechanisms import laplace
from otbound.numerics.one_step import adp
from otbound.numerics.settings import Subsampling


def claimed(point: Point) -> float:
    """``δ_k(kε₁) ≤ k e^{(k−1)ε₁} δ_1(ε₁)`` with ``ε₁ = ε/k``, ``ε`` the point's."""
    k = int(point["group"])
    single = point["epsilon"] / k
    delta = adp(Subsampling("poisson", rate=point["rate"], group=1), laplace(point["scale"]),
                "tight", [single])[0].value
    return k * math.exp((k - 1) * single) * delta


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
    claimed=claimed,
    reference=lambda p: subsampled(Subsampling("poisson", rate=p["rate"], group=int(p["group"])),
                                   laplace(p["scale"]), Quantity.ADP, p["epsilon"]),
    series=("scale", "rate", "group"),
    note="Against otbound's tight group profile of the Poisson subsampled Laplace mechanism.",
)
