"""Formulas exactly as printed in the seeds, typos included, for tests that compare against them."""

import itertools
import math


def rr_thm_3_7(theta: float, w: float, alpha: float) -> float:
    """001 Thm. 3.7: ``log max_{τ1, τ2, τ4 ∈ {θ, 1 − θ}} Σ_z (…)^α / (…)^{α−1}``."""
    best = 0.0
    for t1, t2, t4 in itertools.product((theta, 1 - theta), repeat=3):
        total = sum(((1 - w) * abs(z - t1) + w * abs(z - t2)) ** alpha
                    / ((1 - w) * abs(z - t1) + w * abs(z - t4)) ** (alpha - 1) for z in (0, 1))
        best = max(best, total)
    return math.log(best)


def rr_thm_g1(theta: float, rate: float, group: int, alpha: float, printed: bool,
              terms: str = "both") -> float:
    """001 Thm. G.1 as ``log max``; ``printed`` keeps the reverse term's exponent ``α − 1`` in
    the numerator (the typo), otherwise it is ``α``. ``terms`` picks "forward", "reverse" or
    "both"."""
    weights = [math.comb(group, i) * rate ** i * (1 - rate) ** (group - i)
               for i in range(group + 1)]
    best = 0.0
    for taus in itertools.product((theta, 1 - theta), repeat=group + 1):
        mix = [sum(w * abs(z - t) for w, t in zip(weights, taus)) for z in (0, 1)]
        single = [abs(z - taus[0]) for z in (0, 1)]
        forward = sum(m ** alpha / s ** (alpha - 1) for m, s in zip(mix, single))
        power = alpha - 1 if printed else alpha
        reverse = sum(s ** power / m ** (alpha - 1) for m, s in zip(mix, single))
        candidates = {"forward": [forward], "reverse": [reverse], "both": [forward, reverse]}
        best = max(best, *candidates[terms])
    return math.log(best)
