"""Dwork & Roth 2014, Sec. 2.3: an (ε, δ)-DP mechanism is (kε, k e^{(k−1)ε} δ)-DP for groups of
size k — applied to the tight K = 1 profile of the Poisson subsampled Gaussian."""

import math

from otbound import Subsampling, adp, gaussian
from otbound.audit import Claim, Domain, Point, Quantity, grid, integer, real, subsampled


def group_bound(point: Point, mechanism) -> float:
    """``δ_k(kε₁) ≤ k e^{(k−1)ε₁} δ_1(ε₁)`` with ``ε₁ = ε/k``, ``ε`` the point's, ``δ_1`` the
    mechanism's tight K = 1 profile under Poisson subsampling."""
    k = int(point["group"])
    single = point["epsilon"] / k
    delta = adp(Subsampling("poisson", rate=point["rate"], group=1), mechanism, "tight",
                [single])[0].value
    return k * math.exp((k - 1) * single) * delta


def group_reference(point: Point, mechanism):
    return subsampled(Subsampling("poisson", rate=point["rate"], group=int(point["group"])),
                      mechanism, Quantity.ADP, point["epsilon"])


CLAIM = Claim(
    name="dwork-roth-2014-group-adp",
    title="Group privacy for (ε, δ): (kε, k e^{(k−1)ε} δ)",
    citation="Dwork & Roth 2014, The Algorithmic Foundations of Differential Privacy, Sec. 2.3 "
             "(the remark on (ε, δ)-DP after Thm. 2.2)",
    setting="Poisson subsampling at rate r, groups of k insertions/removals; Gaussian mechanism "
            "with sensitivity 1; the K = 1 profile is otbound's tight one",
    domain=Domain((real("sigma", 0.5, 8.0), real("rate", 1e-3, 0.5), integer("group", 1, 16),
                   real("epsilon", 0.01, 5.0)),
                  stated="k ≥ 1, ε ≥ 0"),
    quantity=Quantity.ADP,
    points=grid(sigma=[1.0, 2.0], rate=[0.01, 0.1], group=[2, 4, 8], epsilon=[0.1, 1.0, 3.0]),
    claimed=lambda p: group_bound(p, gaussian(p["sigma"])),
    reference=lambda p: group_reference(p, gaussian(p["sigma"])),
    series=("sigma", "rate", "group"),
    note="Against otbound's tight group profile (003 Thm. 3.7/3.8), whose worst-case "
         "construction is the lower end. The chained argument gives Σ_{j<k} e^{jε} δ, which "
         "the printed k e^{(k−1)ε} δ bounds from above.",
)
