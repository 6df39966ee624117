"""The naive bound for truncated Poisson sampling (seed 002, Sec. 1, the approach of its ref.
[2]): if Poisson sampling is (ε, δ)-DP and a batch exceeds B with probability at most η, then
truncated Poisson sampling is (ε, δ + e^ε η)-DP."""

import math

from otbound import Subsampling, TruncatedPoissonSetting, adp, gaussian
from otbound.audit import (Claim, Condition, Domain, Point, Quantity, grid, integer, real,
                           truncated_poisson)


def _setting(point: Point) -> TruncatedPoissonSetting:
    return TruncatedPoissonSetting(point["rate"], int(point["B"]), int(point["n"]))


def claimed(point: Point) -> float:
    """``δ_P(ε) + e^ε η``: ``δ_P`` otbound's tight profile of the untruncated Poisson subsampled
    Gaussian, ``η = P[Binom(n, p) > B]`` (one step, the larger dataset)."""
    poisson = adp(Subsampling("poisson", rate=point["rate"], group=1), gaussian(point["sigma"]),
                  "tight", [point["epsilon"]])[0].value
    return poisson + math.exp(point["epsilon"]) * _setting(point).overflow_probability()


CLAIM = Claim(
    name="truncated-poisson-naive",
    title="Truncated Poisson, the naive bound: (ε, δ_Poisson(ε) + e^ε η)",
    citation="Ganesh (seed 002), Tighter Privacy Analysis for Truncated Poisson Sampling, Sec. 1 "
             "(the strategy of its ref. [2])",
    setting="Poisson sampling at rate p from n records, truncated to a uniform subset of B; add/"
            "remove one (002 Thm. 3.1's relation); Gaussian sum query with sensitivity 1",
    domain=Domain((integer("n", 10, 1000), real("rate", 1e-3, 0.5), integer("B", 1, 100),
                   real("sigma", 0.5, 4.0), real("epsilon", 0.05, 3.0)),
                  (Condition("B ≤ n", lambda p: p["B"] <= p["n"]),),
                  stated="n ≥ 1, B ≥ 1, p ∈ [0, 1], ε ≥ 0",
                  budget=24),   # a reference takes 0.5-4 s (50-digit sums)
    quantity=Quantity.ADP,
    points=grid(n=[1000], rate=[0.05], B=[60, 70, 80], sigma=[1.0, 2.0],
                epsilon=[0.1, 0.5, 1.0, 2.0]),
    claimed=claimed,
    reference=lambda p: truncated_poisson(_setting(p), p["sigma"], p["epsilon"]),
    series=("B", "sigma"),
    note="Against 002 Thm. 3.1's dominating pair (upper end; 002 proves it tight only when "
         "truncation never or always happens) and, as the lower end, the exact δ of concrete "
         "datasets (x₁ = +1 and the other records −1 or 0). The claim is never below the upper "
         "end: w δ_{2,q̃}(ε) ≤ w q̃ ≤ w p ≤ η with w = P[Binom(n − 1, p) ≥ B].",
)
