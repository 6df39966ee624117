"""The hand-written 002 Thm. 3.1 (add/remove) and 3.4 (replace-one) pairs that ``account
--scheme truncated-poisson`` used before it read the engine's derived bound
(:mod:`otbound.engine.truncation`): kept only as a test oracle.

Untruncated branch (weight ``1 − w``): ``(1 − p) N(0) + p N(1)`` against ``N(0)``; truncated
branch (weight ``w``): ``(1 − q̃) N(0) + q̃ N(2)`` against ``N(0)``; weights and rates raised by
``PROBABILITY_ERROR``; the other direction is the swapped, reflected pair. Replace-one: ``Q`` is
the same mixture with the far component mirrored (``N(−1)``, ``N(−2)``).
"""

from __future__ import annotations

import math

from otbound.accounting.truncated import PROBABILITY_ERROR, TruncatedPoissonSetting
from otbound.choices import Neighbouring
from otbound.numerics.pairs import Family, MixturePair


def _pair(scale: float, far: float, rate: float, replace: bool) -> MixturePair:
    weights = [math.log1p(-rate) if rate < 1 else -math.inf,
               math.log(rate) if rate > 0 else -math.inf]
    if replace:
        return MixturePair(Family.GAUSSIAN, scale, [0, far], weights, [0, -far], weights)
    return MixturePair(Family.GAUSSIAN, scale, [0, far], weights, [0], [0.0])


def oracle_cases(setting: TruncatedPoissonSetting, scale: float) -> tuple[list, list]:
    """(removal, insertion) as lists of ``(log weight, [pair])``."""
    w = setting.truncation_probability()
    rates = (setting.rate, setting.branch_rate() if w > 0 else 0.0)
    forward = []
    for weight, rate, far in zip((1 - w, w), rates, (1, 2)):
        if weight == 0:
            continue
        pair = _pair(scale, far, min(rate * (1 + PROBABILITY_ERROR), 1.0),
                     setting.neighbouring is Neighbouring.REPLACE_ONE)
        forward.append((math.log(weight * (1 + PROBABILITY_ERROR)), [pair]))
    backward = [(log_w, [pair.swapped().reflected()]) for log_w, (pair,) in forward]
    return forward, backward
