"""Pure DP of composed steps whose privacy losses are bounded (Laplace noise, randomized
response): ``(Σ_t ε_t, 0)``-DP, ``ε_t`` the largest loss of step ``t``'s pairs.

The privacy loss of a composed pair is the sum of the steps' losses, so it never exceeds
``Σ_t ε_t`` and ``δ(Σ_t ε_t) = 0`` exactly (basic composition of pure DP, Dwork & Roth 2014,
Thm. 3.16). The accountants reach it only approximately: the PLD's discretisation and truncated
tails left δ = 1.08e-7 at 1 + 1e-9 times the pure ε of three Poisson-subsampled Laplace steps,
and an RDP curve reaches it only as the order grows without bound. ``compose`` reports the
smaller of the two answers.
"""

from __future__ import annotations

import math

import numpy as np

from otbound.accounting.steps import Step
from otbound.numerics.pairs import FinitePair, MixturePair

MARGIN = 1e-12
"""Relative margin on a largest loss computed in doubles (a log-sum-exp of a few terms, each
within a few ulps of the largest term's magnitude)."""


def pure_epsilon(steps: list[Step]) -> float:
    """``max over cases of Σ_t count_t · ε_t(case)``, rounded up; ``inf`` where some pair's loss
    is unbounded (or not known to be bounded)."""
    totals = None
    for step in steps:
        per_case = [step.count * max((largest_loss(pair) for log_weight, pairs in case
                                      if log_weight > -math.inf for pair in pairs),
                                     default=0.0)
                    for case in step.cases]
        totals = per_case if totals is None else [t + e for t, e in zip(totals, per_case)]
    if not totals:
        return math.inf
    worst = max(totals)
    return math.nextafter(worst * (1 + MARGIN), math.inf) if math.isfinite(worst) else worst


def largest_loss(pair) -> float:
    """``sup log P/Q`` of one pair, rounded up: the limit ``z → ∞`` of a mixture pair whose
    likelihood ratio increases (every mean of P at or above every mean of Q), the largest loss
    of a finite pair on P's support; ``inf`` otherwise."""
    if isinstance(pair, FinitePair):
        support = pair.p > 0
        loss = float(np.max(pair.log_ratio[support] + pair.log_ratio_error[support]))
        return max(loss, 0.0) + MARGIN * (1 + abs(loss))
    if isinstance(pair, MixturePair) and pair.ratio_increases:
        loss = pair.log_sup_ratio()
        scale = 1 + abs(loss) + float(np.abs(pair.p_means).max()) / pair.scale
        return max(loss, 0.0) + MARGIN * scale if math.isfinite(loss) else math.inf
    return math.inf
