"""Mironov 2017, Prop. 2 (group privacy for RDP): if f is (α, ε)-RDP, g is 2^c-stable and
α ≥ 2^{c+1}, then f ∘ g is (α/2^c, 3^c ε)-RDP — applied to the tight K = 1 curve of the Poisson
subsampled Gaussian to bound the curve of groups of K = 2^c."""

import math

from otbound import Subsampling, gaussian, rdp
from otbound.audit import Claim, Domain, Point, Quantity, choice, grid, real, subsampled


def group_bound(point: Point, mechanism) -> float:
    """``ε_K(β) ≤ 3^c ε_1(2^c β)`` with ``K = 2^c`` and ``β = α/2^c ≥ 2`` the claimed order,
    ``ε_1`` the mechanism's tight K = 1 curve under Poisson subsampling."""
    group = int(point["group"])
    single = rdp(Subsampling("poisson", rate=point["rate"], group=1), mechanism, "tight",
                 [group * point["alpha"]])[0].value
    return 3 ** round(math.log2(group)) * single


def group_reference(point: Point, mechanism):
    return subsampled(Subsampling("poisson", rate=point["rate"], group=int(point["group"])),
                      mechanism, Quantity.RDP, point["alpha"])


CLAIM = Claim(
    name="mironov-2017-group-rdp",
    title="Group privacy for RDP: (α, ε)-RDP ⇒ (α/2^c, 3^c ε)-RDP at distance 2^c",
    citation="Mironov 2017, Rényi Differential Privacy (CSF), Prop. 2",
    setting="Poisson subsampling at rate r, groups of K = 2^c insertions/removals; Gaussian "
            "mechanism with sensitivity 1; the K = 1 curve is otbound's tight one",
    domain=Domain((real("sigma", 0.5, 8.0), real("rate", 1e-3, 0.5), choice("group", 2, 4, 8),
                   real("alpha", 2.0, 64.0)),
                  stated="K = 2^c, claimed order α/2^c ≥ 2 (Prop. 2 needs α ≥ 2^{c+1})"),
    quantity=Quantity.RDP,
    points=grid(sigma=[1.0, 2.0], rate=[0.01, 0.1], group=[2, 4],
                alpha=[2.0, 4.0, 8.0, 16.0, 32.0]),
    claimed=lambda p: group_bound(p, gaussian(p["sigma"])),
    reference=lambda p: group_reference(p, gaussian(p["sigma"])),
    series=("sigma", "rate", "group"),
    note="The point's alpha is the claimed order α/2^c; the K = 1 curve is read at 2^c times "
         "it. Against otbound's tight group curve (003 Thm. 3.7/3.8), whose worst-case "
         "construction is the lower end.",
)
