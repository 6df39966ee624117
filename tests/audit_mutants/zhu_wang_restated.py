"""Not a mutant: zhu-wang-2019-tight restated as Mironov, Talwar & Zhang 2019's A_α for
integer α (Σ_k C(α, k)(1 − q)^{α−k} q^k e^{(k² − k)/(2σ²)}), in 50 digits."""

from dataclasses import replace

import mpmath as mp

from otbound.audit import catalogue_entry


def claimed(point) -> float:
    alpha = int(point["alpha"])
    with mp.workdps(50):
        q, sigma = mp.mpf(point["rate"]), mp.mpf(point["sigma"])
        total = mp.fsum(mp.binomial(alpha, k) * (1 - q) ** (alpha - k) * q ** k
                        * mp.exp((k * k - k) / (2 * sigma ** 2)) for k in range(alpha + 1))
        return float(mp.log(total) / (alpha - 1))


_, _BASE = catalogue_entry("zhu-wang-2019-tight")
CLAIM = replace(_BASE, name="restated-zhu-wang", claimed=claimed, path=None)
