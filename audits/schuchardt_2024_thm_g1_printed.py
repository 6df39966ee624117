"""001 Thm. G.1 (randomized response, Poisson group privacy) as printed.

The printed reverse term is ``Σ_z |z − τ₁|^{α−1} / (Σ_i w_i |z − τ_i|)^{α−1}``; the reverse
divergence ``Ψ_α(m_{x'} ‖ m_x)`` has ``|z − τ₁|^α`` in the numerator (docs/errata.md). Since
``τ₁ ∈ {θ, 1 − θ}`` with ``θ ∈ [0, 1]``, ``|z − τ₁| ≤ 1`` and so ``|z − τ₁|^{α−1} ≥
|z − τ₁|^α``: the printed term is at or above the corrected one — equal at ``θ ∈ {0, 1}``
(where ``|z − τ₁| ∈ {0, 1}``), above it for ``θ ∈ (0, 1)``. The slip can therefore make the
bound loose (at ``r = 0`` it claims ``log 2 / (α − 1)`` for identical distributions), never
unsound. 001 Thm. G.2 states the same expression as attained, which is false wherever the
printed reverse term's maximum exceeds the forward term's: the entry
``schuchardt-2024-thm-g2-printed`` judges that equality.
"""

import itertools
import math

from otbound import randomized_response
from otbound.audit import Claim, Domain, Quantity, Reference, grid, integer, pure_group_rdp, real


def g1(point, reverse_power_offset: int) -> float:
    """``ε(α) = log(max …)/(α − 1)`` of 001 Thm. G.1; the reverse term's numerator has the
    exponent ``α − reverse_power_offset`` (1 as printed, 0 corrected)."""
    theta, rate, group, alpha = point["theta"], point["r"], int(point["K"]), point["alpha"]
    weights = [math.comb(group, i) * rate ** i * (1 - rate) ** (group - i)
               for i in range(group + 1)]
    best = 0.0
    for taus in itertools.product((theta, 1 - theta), repeat=group + 1):
        mixture = [sum(w * abs(z - t) for w, t in zip(weights, taus)) for z in (0, 1)]
        single = [abs(z - taus[0]) for z in (0, 1)]
        forward = sum(m ** alpha / s ** (alpha - 1) for m, s in zip(mixture, single))
        reverse = sum(s ** (alpha - reverse_power_offset) / m ** (alpha - 1)
                      for m, s in zip(mixture, single))
        best = max(best, forward, reverse)
    return math.log(best) / (alpha - 1)


def group_of_one_kind(point) -> Reference:
    """otbound's tight value for K insertions or K removals (the relation of 001 Thm. 4.1)."""
    return pure_group_rdp(point["r"], int(point["K"]), randomized_response(point["theta"]),
                          point["alpha"])


POINTS = grid(theta=[0.75, 0.9], r=[0.001, 0.1, 0.5], K=[2, 4], alpha=[2.0, 8.0, 64.0])

CLAIM = Claim(
    name="schuchardt-2024-thm-g1-printed",
    title="Randomized response, Poisson group privacy, reverse term as printed",
    citation="Schuchardt et al. 2024 (seed 001), Thm. G.1 (App. G.2), reverse term",
    setting="Poisson subsampling with rate r, K inserted or K removed elements, randomized "
            "response with true-response probability θ",
    domain=Domain((real("theta", 0.55, 0.95, log=False), real("r", 1e-4, 1.0), integer("K", 1, 8),
                   real("alpha", 1.05, 64.0)),
                  stated="α > 1, r ∈ [0, 1], θ ∈ [0, 1], K ≥ 1"),
    quantity=Quantity.RDP,
    points=POINTS,
    claimed=lambda p: g1(p, reverse_power_offset=1),
    reference=group_of_one_kind,
    series=("theta", "r", "K"),
    note="The printed exponent α − 1 puts the reverse term at or above the corrected one "
         "(|z − τ₁| ≤ 1, with equality only at θ ∈ {0, 1}), so the claim is at or above the "
         "exact value: equal to it where the forward term's maximum is at least the printed "
         "reverse term's, above it elsewhere, never below. 001 Thm. G.2 prints the same "
         "expression as attained (schuchardt-2024-thm-g2-printed).",
)
