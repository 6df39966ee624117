"""The hand-written 002 Thm. 3.1 (add/remove), 3.3 (zero-out) and 3.4 (replace-one) pairs that
``account --scheme truncated-poisson`` used before it read the engine's derived bounds
(now the derivation files ``derivations/truncated_*.py``): kept only as a test oracle.

Untruncated branch (weight ``1 − w``): ``(1 − p) N(0) + p N(1)`` against ``N(0)``; truncated
branch (weight ``w``): ``(1 − q̃) N(0) + q̃ N(2)`` against ``N(0)``; weights and rates raised by
``PROBABILITY_ERROR`` (scipy's tails were used then); the other direction is the swapped, reflected pair. Replace-one: ``Q`` is
the same mixture with the far component mirrored (``N(−1)``, ``N(−2)``); zero-out: ``Q`` is
``N(0)`` untruncated and ``(1 − q̃) N(0) + q̃ N(−1)`` truncated.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from otbound.accounting.truncated import TruncatedPoissonSetting
from otbound.choices import Neighbouring
from otbound.numerics.families import GAUSSIAN
from otbound.numerics.pairs import MixturePair

PROBABILITY_ERROR = 1e-12
"""The relative margin the hand-written pairs raised scipy's binomial tails by."""

FAR = {Neighbouring.ADD_REMOVE: ((1, None), (2, None)),
       Neighbouring.ZERO_OUT: ((1, None), (2, -1)),
       Neighbouring.REPLACE_ONE: ((1, -1), (2, -2))}
"""Per relation and branch: the far mean of ``P`` and of ``Q`` (``None``: ``Q = N(0)``)."""


def truncation_probability(setting: TruncatedPoissonSetting) -> float:
    """``w = P[Binom(n − 1, p) ≥ B]`` by scipy: the other records alone fill the batch."""
    n, p, b = setting.dataset_size, setting.rate, setting.max_batch
    return float(stats.binom.sf(b - 1, n - 1, p))


def branch_rate(setting: TruncatedPoissonSetting) -> float:
    """``q̃ = P[Binom(n, p) ≥ B + 1] / w · B/n`` by scipy (002 Sec. 3.4; needs ``w > 0``)."""
    n, p, b = setting.dataset_size, setting.rate, setting.max_batch
    return float(stats.binom.sf(b, n, p) / truncation_probability(setting) * b / n)


def branch_rate_direct(setting: TruncatedPoissonSetting) -> float:
    """``q̃ = p Σ_{s=B}^{n−1} P[Binom(n−1, p) = s] / w · B/(s + 1)`` (002 Thm. 3.1's
    proof)."""
    n, p, b = setting.dataset_size, setting.rate, setting.max_batch
    s = np.arange(b, n)
    terms = stats.binom.pmf(s, n - 1, p) * b / (s + 1)
    return float(p * math.fsum(terms) / truncation_probability(setting))


def _pair(scale: float, far: tuple, rate: float) -> MixturePair:
    weights = [math.log1p(-rate) if rate < 1 else -math.inf,
               math.log(rate) if rate > 0 else -math.inf]
    p_far, q_far = far
    if q_far is None:
        return MixturePair(GAUSSIAN, scale, [0, p_far], weights, [0], [0.0])
    return MixturePair(GAUSSIAN, scale, [0, p_far], weights, [0, q_far], weights)


def oracle_cases(setting: TruncatedPoissonSetting, scale: float) -> tuple[list, list]:
    """(forward, backward) as lists of ``(log weight, [pair])``."""
    w = truncation_probability(setting)
    rates = (setting.rate, branch_rate(setting) if w > 0 else 0.0)
    forward = []
    for weight, rate, far in zip((1 - w, w), rates, FAR[setting.neighbouring]):
        if weight == 0:
            continue
        pair = _pair(scale, far, min(rate * (1 + PROBABILITY_ERROR), 1.0))
        forward.append((math.log(weight * (1 + PROBABILITY_ERROR)), [pair]))
    backward = [(log_w, [pair.swapped().reflected()]) for log_w, (pair,) in forward]
    return forward, backward
