"""Mutant of zhu-wang-2019-tight: its domain extended past the stated "integer α ≥ 2" to
every real α ≥ 2, the sum taken over l ≤ α with generalised binomial coefficients."""

import math
from dataclasses import replace

import numpy as np

from otbound.audit import Domain, catalogue_entry, real


def claimed(point) -> float:
    alpha, rate, sigma = point["alpha"], point["rate"], point["sigma"]
    logs = [math.lgamma(alpha + 1) - math.lgamma(l + 1) - math.lgamma(alpha - l + 1)
            + (alpha - l) * math.log1p(-rate) + l * math.log(rate) + (l - 1) * l / (2 * sigma ** 2)
            for l in range(0, math.floor(alpha) + 1)]
    return float(np.logaddexp.reduce(logs)) / (alpha - 1)


_, _BASE = catalogue_entry("zhu-wang-2019-tight")
CLAIM = replace(_BASE, name="mutant-fractional-orders", claimed=claimed, path=None,
                domain=Domain((real("sigma", 0.3, 20.0), real("rate", 1e-4, 0.9),
                               real("alpha", 2.0, 256.0))))
