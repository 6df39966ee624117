"""Speed of the tight RDP curve of the Poisson subsampled Gaussian, for single users and groups.

Prints one table:

* K = 1 (the larger of the removal and insertion terms): otbound against dp_accounting's
  ``_compute_rdp_poisson_subsampled_gaussian`` on the integer orders α = 2 … 256, with both
  times, their ratio (target: otbound no slower) and the largest relative deviation in ε;
* K = 8 and K = 32 (maximum over every shape K₊ + K₋ = K): the full curve on the 121 orders of
  001 App. B, with the target next to it. The column ``Ψ curves`` is the part spent in
  ``log_psi_curve`` on the dominating pairs (numerics budget: 0.3 s of the 0.5 s for K = 32).

Times are the best of ``--repeats`` runs after one warm-up. Run:
``python benchmarks/group_rdp_speed.py [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from dp_accounting.rdp.rdp_privacy_accountant import _compute_rdp_poisson_subsampled_gaussian

from otbound.numerics.mechanisms import gaussian
from otbound.numerics.one_step import rdp
from otbound.numerics.families import GAUSSIAN
from otbound.numerics.pairs import MixturePair
from otbound.numerics.renyi import log_psi_curve
from otbound.numerics.settings import Subsampling
from otbound.verify.high_precision import log_binomial_weights

APPENDIX_B = np.floor(np.logspace(math.log10(2), 4, 121))
INTEGERS = np.arange(2, 257).astype(float)
RATES = (0.01, 0.2)
SIGMAS = (1.0, 2.0)
TARGETS = {8: 0.1, 32: 0.5}
"""Seconds allowed for the full curve (issue acceptance criteria)."""


def group_curve(rate: float, sigma: float, group: int, orders: np.ndarray) -> np.ndarray:
    """ε(α) of the tight bound for Poisson subsampling at ``rate`` and groups of ``group``
    users, Gaussian noise ``sigma``: the call that is timed."""
    setting = Subsampling("poisson", rate=rate, group=group)
    return np.array([b.value for b in rdp(setting, gaussian(sigma), "tight", orders)])


def psi_curves(rate: float, sigma: float, group: int, orders: np.ndarray) -> None:
    """Only the numerics: ``log Ψ_α`` of the dominating pair of every shape (003 Thm. 3.7)."""
    for inserted in range(group + 1):
        removed = group - inserted
        pair = MixturePair(GAUSSIAN, sigma, np.arange(removed + 1),
                           log_binomial_weights(removed, rate), -np.arange(inserted + 1),
                           log_binomial_weights(inserted, rate))
        log_psi_curve(pair, orders)


def best_of(repeats: int, function):
    """The result of one warm-up call and the smallest wall time of ``repeats`` further calls."""
    result = function()
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return result, best


def single_user_table(repeats: int) -> list[str]:
    rows = ["| K | r | σ | orders | otbound | dp_accounting | ratio (target ≤ 1) | max rel. dev. of ε |",
            "|---|---|---|---|---|---|---|---|"]
    for rate in RATES:
        for sigma in SIGMAS:
            ours, ours_time = best_of(repeats, lambda: group_curve(rate, sigma, 1, INTEGERS))
            theirs, theirs_time = best_of(repeats, lambda: np.asarray(
                _compute_rdp_poisson_subsampled_gaussian(rate, sigma, INTEGERS)))
            deviation = np.max(np.abs(ours - theirs) / theirs)
            verdict = "ok" if ours_time <= theirs_time else "SLOWER"
            rows.append(f"| 1 | {rate:g} | {sigma:g} | 2…256 | {ours_time * 1e3:.1f} ms | "
                        f"{theirs_time * 1e3:.1f} ms | {ours_time / theirs_time:.2f} {verdict} | "
                        f"{deviation:.1e} |")
    return rows


def group_table(repeats: int) -> list[str]:
    rows = ["| K | r | σ | orders | full curve | target | Ψ curves only |",
            "|---|---|---|---|---|---|---|"]
    for group, target in TARGETS.items():
        for rate in RATES:
            for sigma in SIGMAS:
                _, total = best_of(repeats, lambda: group_curve(rate, sigma, group, APPENDIX_B))
                _, numerics = best_of(repeats, lambda: psi_curves(rate, sigma, group, APPENDIX_B))
                verdict = "ok" if total <= target else "OVER"
                rows.append(f"| {group} | {rate:g} | {sigma:g} | App. B (121) | "
                            f"{total * 1e3:.0f} ms | < {target * 1e3:.0f} ms {verdict} | "
                            f"{numerics * 1e3:.0f} ms |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs after the warm-up")
    repeats = parser.parse_args().repeats
    print("\n".join(single_user_table(repeats)))
    print()
    print("\n".join(group_table(repeats)))


if __name__ == "__main__":
    main()
