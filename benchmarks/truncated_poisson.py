"""Truncated Poisson sampling (seed 002): otbound's PLD of the dominating pairs of 002 Thm. 3.1
against dp_accounting's TruncatedSubsampledGaussian PLD (measured in the same run) and against the
naive bound ``(ε, δ_Poisson(ε) + e^ε T P[Binom(n, p) > B])``, for a range of batch caps B.

    python benchmarks/truncated_poisson.py [--steps 1000] [--delta 1e-6]
"""

from __future__ import annotations

import argparse
import time

from dp_accounting.pld.privacy_loss_distribution import from_truncated_subsampled_gaussian_mechanism

from otbound.accounting import pld
from otbound.accounting.steps import subsampled_step
from otbound.accounting.truncated import TruncatedPoissonSetting, naive_epsilon
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.settings import Subsampling

N, RATE, SIGMA = 60_000, 0.004, 1.0          # expected batch size 240
CAPS = (250, 260, 280, 300, 320, 350)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--delta", type=float, default=1e-6)
    args = parser.parse_args()
    mechanism = gaussian(SIGMA)
    poisson = pld.compose_plds([subsampled_step(Subsampling("poisson", rate=RATE), mechanism,
                                           args.steps)])
    plain = pld.pld_epsilon(poisson, args.delta)
    print(f"n = {N}, p = {RATE}, σ = {SIGMA}, T = {args.steps}, δ = {args.delta:g}, "
          f"add/remove-1-of-n; untruncated Poisson: ε = {plain:.4f}")
    columns = ("B", "P[truncate]", "otbound", "dp_accounting", "naive", "s otbound", "s peer")
    print("  ".join(f"{c:>13}" for c in columns))
    for cap in CAPS:
        sampling = TruncatedPoissonSetting(RATE, cap, N)
        start = time.perf_counter()
        ours = pld.pld_epsilon(pld.compose_plds([subsampled_step(sampling.derived_setting(), mechanism,
                                                                 args.steps)]), args.delta)
        middle = time.perf_counter()
        peer = from_truncated_subsampled_gaussian_mechanism(N, RATE, cap, SIGMA)
        peer_epsilon = peer.self_compose(args.steps).get_epsilon_for_delta(args.delta)
        end = time.perf_counter()
        overflow = args.steps * sampling.overflow_probability()
        naive = naive_epsilon(lambda e: pld.pld_delta(poisson, e), args.delta, overflow)
        cells = [cap, f"{sampling.overflow_probability():.2e}", f"{ours:.4f}",
                 f"{peer_epsilon:.4f}", f"{naive:.4f}", f"{middle - start:.1f}",
                 f"{end - middle:.1f}"]
        print("  ".join(f"{c:>13}" for c in cells))


if __name__ == "__main__":
    main()
