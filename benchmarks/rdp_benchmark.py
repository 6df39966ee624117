"""Speed and accuracy of otbound's RDP and ADP evaluation against its peers, in one run.

Compares, for the Poisson subsampled Gaussian mechanism,

* K = 1: otbound (max of the removal and insertion terms) against dp_accounting's RDP code
  (``_compute_rdp_poisson_subsampled_gaussian``), on the 121 orders of 001 App. B;
* K = 8 (001 Thm. 4.2, σ = 1, r = 0.2, forward and reverse terms): otbound against straightforward
  50-digit mpmath tanh-sinh quadrature — the method of the seed's experiments — on the 121 integer
  orders of 001 App. B and on 121 fractional orders log-spaced in (1, 10]. The mpmath side is timed
  on every ``--stride``-th order.

and, for ADP, otbound's closed-form δ(ε) of the K = 8 Gaussian and Laplace pairs against 60-digit
mpmath quadrature of the hockey-stick integral (``otbound.verify.high_precision``) on 100 values of ε.

Prints per-point times, the speed ratio and the largest relative deviation in ε (or δ).
Run: ``python benchmarks/rdp_benchmark.py [--stride 10]``.
"""

from __future__ import annotations

import argparse
import math
import time

import mpmath as mp
import numpy as np
from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_poisson_subsampled_gaussian

from otbound.choices import Method
from otbound.numerics.hockey_stick import hockey_stick_curve
from otbound.numerics.mechanisms import gaussian, laplace
from otbound.numerics.one_step import rdp
from otbound.numerics.settings import Subsampling
from otbound.verify import high_precision as reference

APPENDIX_B = np.floor(np.logspace(math.log10(2), 4, 121))
FRACTIONAL = np.logspace(0, 1, 122)[1:]


def best_of(repeats: int, function):
    """The result and the smallest wall time of ``repeats`` calls."""
    best, result = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return result, best


def otbound_group(rate: float, sigma: float, group: int, orders: np.ndarray) -> np.ndarray:
    """001 Thm. 4.2: the larger of the removal and insertion terms, as ε(α)."""
    terms = [rdp(Subsampling("poisson", rate=rate, insertions=k, removals=group - k),
                 gaussian(sigma), Method.TIGHT, orders) for k in (0, group)]
    return np.maximum(*[np.array([b.value for b in t]) for t in terms])


def mpmath_group(rate: float, sigma: float, group: int, alpha: float) -> float:
    """50-digit tanh-sinh quadrature of both terms of 001 Thm. 4.2, split at 0 and at the peak."""
    with mp.workdps(50):
        r, s, a = mp.mpf(rate), mp.mpf(sigma), mp.mpf(alpha)
        weights = [mp.binomial(group, i) * r ** i * (1 - r) ** (group - i) for i in range(group + 1)]

        def log_normal(z, mean):
            return -(z - mean) ** 2 / (2 * s * s) - mp.log(s * mp.sqrt(2 * mp.pi))

        def log_mixture(z, sign):
            return mp.log(mp.fsum(w * mp.exp(log_normal(z, sign * i)) for i, w in enumerate(weights)))

        def integral(log_integrand, points):
            top = max(log_integrand(mp.mpf(p)) for p in points if mp.isfinite(p))
            value = mp.quad(lambda z: mp.exp(log_integrand(z) - top), points)
            return mp.log(value) + top

        forward = integral(lambda z: a * log_mixture(z, 1) + (1 - a) * log_normal(z, 0),
                           [-mp.inf, 0, a * group, mp.inf])
        reverse = integral(lambda z: a * log_normal(z, 0) + (1 - a) * log_mixture(z, -1),
                           [-mp.inf, 0, mp.inf])
        return float(max(forward, reverse) / (a - 1))


def group_row(label: str, orders: np.ndarray, stride: int) -> tuple:
    ours, fast = best_of(3, lambda: otbound_group(0.2, 1.0, 8, orders))
    subset = np.arange(0, orders.size, stride)
    start = time.perf_counter()
    slow = np.array([mpmath_group(0.2, 1.0, 8, float(orders[i])) for i in subset])
    slow_time = time.perf_counter() - start
    deviation = float(np.max(np.abs(ours[subset] - slow) / slow))
    per_fast, per_slow = fast / orders.size, slow_time / subset.size
    return (label, orders.size, per_fast, f"mpmath 50 digits ({subset.size} orders)", per_slow,
            per_slow / per_fast, deviation)


def single_row(rate: float, sigma: float, orders: np.ndarray, label: str) -> tuple:
    setting = Subsampling("poisson", rate=rate, group=1)
    ours, fast = best_of(3, lambda: np.array([b.value for b in rdp(setting, gaussian(sigma),
                                                                    Method.TIGHT, orders)]))
    theirs, slow = best_of(3, lambda: _compute_rdp_poisson_subsampled_gaussian(rate, sigma, orders))
    deviation = float(np.max(np.abs(ours - theirs) / theirs))
    return (label, orders.size, fast / orders.size, "dp_accounting", slow / orders.size,
            slow / fast, deviation)


def adp_row(label: str, mechanism, stride: int) -> tuple:
    epsilons = np.linspace(0.0, 4.0, 100)
    ((_, problem),), = Subsampling("poisson", rate=0.2, insertions=0, removals=8).cases()
    (pair,) = mechanism.tight_pairs(problem)
    ours, fast = best_of(3, lambda: np.array([b.value for b in hockey_stick_curve(pair,
                                                                                 epsilons)]))
    subset = np.arange(0, epsilons.size, stride)
    start = time.perf_counter()
    slow = np.array([float(reference.precise_hockey_stick(pair, epsilons[i])[0]) for i in subset])
    slow_time = time.perf_counter() - start
    positive = slow > 0
    deviation = float(np.max(np.abs(ours[subset][positive] - slow[positive]) / slow[positive]))
    per_fast, per_slow = fast / epsilons.size, slow_time / subset.size
    return (label, epsilons.size, per_fast, f"mpmath 60 digits ({subset.size} ε)", per_slow,
            per_slow / per_fast, deviation)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stride", type=int, default=10,
                        help="time the mpmath side on every n-th order (default 10)")
    stride = parser.parse_args().stride
    rows = [
        single_row(0.01, 1.0, APPENDIX_B, "K=1, r=0.01, σ=1, App. B orders"),
        single_row(0.2, 5.0, APPENDIX_B, "K=1, r=0.2, σ=5, App. B orders"),
        single_row(0.01, 1.0, np.array([2, 3, 4, 8, 16, 32, 64, 128, 256.0]),
                   "K=1, r=0.01, σ=1, α ∈ {2,…,256}"),
        group_row("K=8, r=0.2, σ=1, App. B orders", APPENDIX_B, stride),
        group_row("K=8, r=0.2, σ=1, fractional (1, 10]", FRACTIONAL, stride),
        adp_row("ADP δ(ε), K=8 removal, r=0.2, Gaussian σ=1", gaussian(1.0), stride),
        adp_row("ADP δ(ε), K=8 removal, r=0.2, Laplace b=1", laplace(1.0), stride),
    ]
    header = ("setting", "points", "otbound s/point", "peer", "peer s/point", "speed-up",
              "max rel. deviation")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for label, count, ours, peer, theirs, ratio, deviation in rows:
        print(f"{label} | {count} | {ours:.2e} | {peer} | {theirs:.2e} | {ratio:,.3g}× | "
              f"{deviation:.1e}")


if __name__ == "__main__":
    main()
