"""Epoch-level sampling: Poisson vs balls-in-bins vs shuffled batches, one epoch, and the time of a
10-epoch DP-SGD run accounted with balls-in-bins next to dp_accounting's Poisson accounting of the
same run.

    python benchmarks/epoch_sampling.py            # prints the tables
    python benchmarks/epoch_sampling.py --docs     # also writes docs/epoch_sampling.md

(its figure is ``otbound figures epoch-sampling-one-epoch``)

Every column is ε at δ = 1e-5 after one epoch of ``T`` steps with Gaussian noise σ (sensitivity 1,
insertion/removal or zeroing-out of one record), at the same expected batch size ``N/T``:

* Poisson — each record in each step with probability 1/T (otbound's tight PLD accountant): an
  upper bound;
* balls-in-bins — each record in one uniformly random step (:mod:`otbound.numerics.
  allocation`): deterministic lower and upper ends;
* shuffling — a random permutation cut into T batches (:mod:`otbound.numerics.shuffling`): a
  *lower* bound (Chua et al. 2024's construction); its upper bound (the mechanism once per
  epoch, no amplification) is not in the table.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import otbound
from page_regions import write_region
from otbound.numerics.epoch_settings import BallsInBins, ShuffledBatches
from otbound.numerics.shuffling import shuffled_lower_bound

DELTA = 1e-5
SIGMAS = (0.5, 1.0, 2.0)
STEPS = (10, 100, 1000)
RECORDS_PER_STEP = 100
"""Expected batch size of the table's settings (ε depends only on T and σ)."""
DOCS = Path(__file__).resolve().parents[1] / "docs"
RUN_CAPTION = ("The 10-epoch run, each accountant's ε and the seconds of its call in this process "
               '(benchmark: benchmarks/epoch_sampling.py, row "otbound, balls-in-bins (235 steps '
               'per epoch)"):')
"""The line written above the run's table in docs/epoch_sampling.md (tests/test_timing_claims.py
asks a table of times to name the row that measures it)."""


def one_epoch(steps: int, sigma: float) -> dict[str, float]:
    mechanism = otbound.gaussian(sigma)
    poisson = otbound.account(otbound.Subsampling("poisson", rate=1 / steps), mechanism, steps,
                              delta=DELTA, accountant="pld").epsilon
    start = time.perf_counter()
    found = otbound.account(BallsInBins(RECORDS_PER_STEP, RECORDS_PER_STEP * steps), mechanism,
                            1, delta=DELTA)
    seconds = time.perf_counter() - start
    return {"steps": steps, "sigma": sigma, "poisson": poisson, "balls_in_bins": found.epsilon,
            "balls_in_bins_lower": found.details["epsilon_lower"],
            "shuffling_lower": shuffled_lower_bound(
                ShuffledBatches(RECORDS_PER_STEP, RECORDS_PER_STEP * steps), sigma, 1,
                delta=DELTA).epsilon,
            "seconds": seconds}


def dp_sgd_run() -> tuple[float, float, float, float]:
    """N = 60000, batch 256, σ = 1, 10 epochs: balls-in-bins (otbound) and Poisson at rate
    256/60000 over the same 2350 steps (dp_accounting), each timed."""
    from dp_accounting.pld import privacy_loss_distribution

    start = time.perf_counter()
    ours = otbound.account(BallsInBins(256, 60000), otbound.gaussian(1.0), 10,
                           delta=DELTA).epsilon
    ours_seconds = time.perf_counter() - start
    start = time.perf_counter()
    steps = BallsInBins(256, 60000).steps_per_epoch * 10
    pld = privacy_loss_distribution.from_gaussian_mechanism(
        1.0, sampling_prob=256 / 60000, value_discretization_interval=1e-4)
    theirs = pld.self_compose(steps).get_epsilon_for_delta(DELTA)
    return ours, ours_seconds, theirs, time.perf_counter() - start


def table(rows: list[dict]) -> str:
    lines = ["| σ | T | Poisson (upper) | balls-in-bins (lower – upper) | shuffling (lower) |",
             "|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['sigma']:g} | {row['steps']} | {row['poisson']:.4f} | "
                     f"{row['balls_in_bins_lower']:.4f} – {row['balls_in_bins']:.4f} | "
                     f"{row['shuffling_lower']:.4f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", action="store_true", help="write docs/epoch_sampling.md")
    args = parser.parse_args()
    rows = []
    for sigma in SIGMAS:
        for steps in STEPS:
            rows.append(one_epoch(steps, sigma))
            row = rows[-1]
            print(f"σ = {sigma:g}, T = {steps}: Poisson {row['poisson']:.4f}, balls-in-bins "
                  f"{row['balls_in_bins']:.4f} ({row['seconds']:.1f} s), shuffling ≥ "
                  f"{row['shuffling_lower']:.4f}", flush=True)
    print(table(rows))
    ours, ours_seconds, theirs, their_seconds = dp_sgd_run()
    run = (f"| 10 epochs, N = 60000, batch 256, σ = 1, δ = {DELTA:g} | ε | seconds |\n"
           f"|---|---|---|\n"
           f"| otbound, balls-in-bins (235 steps per epoch) | {ours:.4f} | {ours_seconds:.1f} |\n"
           f"| dp_accounting, Poisson at rate 256/60000 (2350 steps) | {theirs:.4f} | "
           f"{their_seconds:.1f} |")
    print(run)
    if args.docs:
        write_region(DOCS / "epoch_sampling.md", "<!-- generated table -->",
                     "<!-- end of generated table -->",
                     f"{table(rows)}\n\n{RUN_CAPTION}\n\n{run}")


if __name__ == "__main__":
    main()
