"""001 Thm. G.2 as printed: the expression of 001 Thm. G.1 stated as *attained*.

Thm. G.2 says that the maximum of 001 Thm. G.1 is reached by a pair of datasets and a binary
function, i.e. that Thm. G.1 is tight. With the reverse term as printed (numerator exponent
``α − 1`` instead of ``α``; see ``schuchardt_2024_thm_g1_printed``) the expression exceeds the
exact divergence wherever the reverse term decides the maximum, so no pair attains it: the
equality is false. The exact value is otbound's tight reference (its construction attains it).
"""

from otbound.audit.claims import Claim, Quantity
from otbound.audits.schuchardt_2024_thm_g1_printed import POINTS, g1, group_of_one_kind

CLAIM = Claim(
    name="schuchardt-2024-thm-g2-printed",
    title="Randomized response, Poisson group privacy: the printed bound stated as attained",
    citation="Schuchardt et al. 2024 (seed 001), Thm. G.2 (App. G.2), with Thm. G.1 as printed",
    setting="Poisson subsampling with rate r, K inserted or K removed elements, randomized "
            "response with true-response probability θ",
    domain="α > 1, r ∈ [0, 1], θ ∈ [0, 1], K ≥ 1",
    quantity=Quantity.RDP,
    points=POINTS,
    claimed=lambda p: g1(p, reverse_power_offset=1),
    reference=group_of_one_kind,
    series=("theta", "r", "K"),
    attained=True,
    note="Stated as attained (Thm. G.2); above the exact value wherever the printed reverse "
         "term decides the maximum.",
)
