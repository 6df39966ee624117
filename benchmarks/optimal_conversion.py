"""Seed 004's claim: the optimal RDP → (ε, δ) conversion allows more steps at the same (ε, δ).

T-fold composition of the Gaussian mechanism with noise multiplier σ (Rényi DP ``Tα/(2σ²)``,
evaluated by otbound's solver on a rate-1 "subsampled" step) at δ = 10⁻⁵. For each target ε the
script prints the largest T each conversion certifies — Mironov 2017 (the moments accountant's),
Balle et al. 2020 (dp_accounting's RDP accountant, measured in the same run), the optimal one —
and the exact answer: T Gaussians compose to one with noise σ/√T, whose δ(ε) is closed-form.

    python benchmarks/optimal_conversion.py [--sigma 30] [--delta 1e-5]
"""

from __future__ import annotations

import argparse
import math
import time

import dp_accounting
import numpy as np
from scipy.stats import norm

from otbound.accounting import rdp
from otbound.accounting.steps import subsampled_step
from otbound.choices import Conversion
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.settings import Subsampling

ORDERS = np.unique(np.concatenate([1 + np.geomspace(1e-3, 1e3, 300), rdp.DEFAULT_ORDERS]))
TARGETS = (0.5, 1.0, 2.0, 4.0)


def largest(certifies) -> int:
    """The largest T with ``certifies(T)`` (monotone: true up to some T)."""
    low, high = 0, 1
    while certifies(high):
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if certifies(middle) else (low, middle)
    return low


def exact_delta(sigma: float, steps: int, epsilon: float) -> float:
    """δ(ε) of the Gaussian mechanism with noise σ/√T (Balle & Wang 2018)."""
    s = sigma / math.sqrt(steps)
    return norm.cdf(0.5 / s - epsilon * s) - math.exp(epsilon) * norm.cdf(-0.5 / s - epsilon * s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sigma", type=float, default=30.0)
    parser.add_argument("--delta", type=float, default=1e-5)
    args = parser.parse_args()
    step = rdp.step_curve(subsampled_step(Subsampling("poisson", rate=1.0), gaussian(args.sigma),
                                          1), ORDERS)

    def ours(conversion, epsilon):
        return lambda t: rdp.rdp_epsilon(step * t, args.delta, conversion).epsilon <= epsilon

    def peer(epsilon):
        def certifies(t):
            accountant = dp_accounting.rdp.RdpAccountant(list(ORDERS))
            accountant.compose(dp_accounting.GaussianDpEvent(args.sigma), t)
            return accountant.get_epsilon(args.delta) <= epsilon
        return certifies

    print(f"T-fold Gaussian, noise multiplier σ = {args.sigma:g}, δ = {args.delta:g}: "
          "largest T certified")
    columns = ("ε", "Mironov", "Balle 2020", "dp_accounting", "optimal", "exact", "gain")
    print("  ".join(f"{c:>13}" for c in columns))
    start = time.perf_counter()
    for epsilon in TARGETS:
        counts = [largest(ours(Conversion.MIRONOV, epsilon)),
                  largest(ours(Conversion.BALLE2020, epsilon)), largest(peer(epsilon)),
                  largest(ours(Conversion.OPTIMAL, epsilon)),
                  largest(lambda t: exact_delta(args.sigma, t, epsilon) <= args.delta)]
        gain = counts[3] - counts[1]
        print("  ".join(f"{v:>13}" for v in [f"{epsilon:g}", *counts, f"+{gain}"]))
    print(f"(gain: optimal minus Balle et al.; {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
