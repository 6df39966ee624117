"""Mutant of zhu-wang-2019-tight: the l = 2 term of the binomial sum scaled by 0.97."""

import math
from dataclasses import replace

import numpy as np

from otbound.audit import catalogue_entry


def claimed(point) -> float:
    """``log(1 + Σ_{l≥2} c_l C(α, l)(1 − γ)^{α−l} γ^l (e^{(l−1)l/(2σ²)} − 1))/(α − 1)``,
    ``c_2 = 0.97`` and ``c_l = 1`` above, summed in logarithms."""
    alpha, rate, sigma = int(point["alpha"]), point["rate"], point["sigma"]
    logs = []
    for l in range(2, alpha + 1):
        exponent = (l - 1) * l / (2 * sigma ** 2)
        logs.append(math.lgamma(alpha + 1) - math.lgamma(l + 1) - math.lgamma(alpha - l + 1)
                    + (alpha - l) * math.log1p(-rate) + l * math.log(rate)
                    + exponent + math.log(-math.expm1(-exponent))
                    + (math.log(0.97) if l == 2 else 0.0))
    return float(np.logaddexp(0.0, np.logaddexp.reduce(logs))) / (alpha - 1)


_, _BASE = catalogue_entry("zhu-wang-2019-tight")
CLAIM = replace(_BASE, name="mutant-term-scaled", claimed=claimed, path=None)
