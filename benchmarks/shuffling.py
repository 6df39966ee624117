"""Shuffled batches: otbound's upper bound against Chua et al.'s lower bound and balls-in-bins,
and importance-sampled estimates of what richer couplings could give (issue 45).

    python benchmarks/shuffling.py               # prints the tables
    python benchmarks/shuffling.py --docs        # also writes them into docs/shuffling.md

(with the certificate table of ``python -m otbound.engine.shuffle_certificate``).

The bounds table: ε at δ = 1e-5 after 1 and 10 epochs of ``T`` steps with Gaussian noise σ
(sensitivity 1), at 100 records per step (no column depends on the batch size). The upper bound
is ``otbound.account(ShuffledBatches(…))`` (the mechanism once per epoch), the lower bound
``otbound.shuffled_lower_bound`` (Chua et al. 2024's pair), balls-in-bins the upper end of
``otbound.account(BallsInBins(…))`` at the same expected batch size (a different sampler, for
scale; it bounds neither side of shuffling).

The couplings table estimates, by Monte Carlo, ε of the worst-case candidates of two couplings
of one epoch (docs/shuffling.md, "What the route would need"). They are estimates, not bounds.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import otbound
from page_regions import write_region
from otbound.engine.shuffle_certificate import certificate_table
from otbound.numerics.epoch_settings import BallsInBins, ShuffledBatches
from otbound.numerics.shuffling import shuffled_lower_bound

DELTA = 1e-5
SIGMAS = (0.5, 1.0, 2.0)
STEPS = (10, 100, 1000)
EPOCHS = (1, 10)
RECORDS_PER_STEP = 100
PAGE = Path(__file__).resolve().parents[1] / "docs" / "shuffling.md"
MARKERS = {"certificate": ("<!-- generated: certificate table -->",
                           "<!-- end of certificate table -->"),
           "bounds": ("<!-- generated: bounds table -->", "<!-- end of bounds table -->"),
           "couplings": ("<!-- generated: couplings table -->",
                         "<!-- end of couplings table -->")}


def bounds_row(steps: int, sigma: float, epochs: int) -> dict[str, float]:
    shuffled = ShuffledBatches(RECORDS_PER_STEP, RECORDS_PER_STEP * steps)
    mechanism = otbound.gaussian(sigma)
    start = time.perf_counter()
    upper = otbound.account(shuffled, mechanism, epochs, delta=DELTA).epsilon
    lower = shuffled_lower_bound(shuffled, sigma, epochs, delta=DELTA).epsilon
    balls = otbound.account(BallsInBins(RECORDS_PER_STEP, RECORDS_PER_STEP * steps), mechanism,
                            epochs, delta=DELTA).epsilon
    return {"sigma": sigma, "steps": steps, "epochs": epochs, "upper": upper, "lower": lower,
            "balls_in_bins": balls, "seconds": time.perf_counter() - start}


def bounds_table(rows: list[dict]) -> str:
    lines = ["| σ | T | epochs | upper bound (no amplification) | lower bound (Chua et al.) "
             "| upper / lower | balls-in-bins (upper) |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        ratio = row["upper"] / row["lower"] if row["lower"] > 0 else float("inf")
        lines.append(f"| {row['sigma']:g} | {row['steps']} | {row['epochs']} | "
                     f"{row['upper']:.4f} | {row['lower']:.4f} | {ratio:.2f} | "
                     f"{row['balls_in_bins']:.4f} |")
    return "\n".join(lines)


# --- worst-case candidates of two couplings, estimated ----------------------------------------
# One epoch, zeroing-out of one record (clipping norm 1: every record contributes a vector of
# norm ≤ 1, the zeroed one 0), σ = 1. Both couplings condition on the step t of the record and
# fix the arrangement of the other records; a candidate gives every component's mean, per step.

def _hub_means(steps: int, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """The hub coupling (a hole in step T takes the record or the record it displaces): the
    displaced records contribute −cos θ·u + sin θ·e_t (u: the record's direction, e_t one
    direction per step), the record u. Columns: per step t < T, (along e_t, along u); then the
    hole step's coordinates along e_1 … e_{T−1} and along u. θ = 0 is Chua et al.'s pair."""
    width = 2 * (steps - 1) + steps
    record, zeroed = np.zeros((steps, width)), np.zeros((steps, width))
    cos, sin = np.cos(angle), np.sin(angle)
    for t in range(steps - 1):
        record[t, 2 * t:2 * t + 2] = (-sin, 1 + cos)     # step t: the record for the displaced
        zeroed[t, 2 * t:2 * t + 2] = (-sin, cos)         # step t: 0 for the displaced
        for means in (record, zeroed):                   # the hole step: the displaced record
            means[t, 2 * (steps - 1) + t] = sin
            means[t, -1] = -cos
    record[steps - 1, -1] = 1.0                          # the record in the hole
    return record, zeroed


def _conveyor_means(steps: int, alternating: bool) -> tuple[np.ndarray, np.ndarray]:
    """The conveyor coupling (the others in a line, the record inserted at the start of batch
    t; every later batch passes one record back): step s shows U_s before t, the record's batch
    at t, D_s after. One coordinate per step (a scalar sum); the records at the batch boundaries
    contribute −1 (Chua et al.'s pair) or alternately ±1."""
    k = np.arange(1, steps + 1)
    boundary = np.where(k % 2 == 0, 1.0, -1.0) if alternating else -np.ones(steps)
    before = np.where(k % 2 == 1, 1.0, -1.0) if alternating else -np.ones(steps)
    after, with_record, with_zero = before - boundary, 1 - boundary, -boundary
    later = np.arange(steps)[None, :] > np.arange(steps)[:, None]
    record, zeroed = np.where(later, after, 0.0), np.where(later, after, 0.0)
    np.fill_diagonal(record, with_record)
    np.fill_diagonal(zeroed, with_zero)
    return record, zeroed


def estimated_epsilon(record: np.ndarray, zeroed: np.ndarray, draws: int = 200_000,
                      tilt: float = 4.0, seed: int = 0) -> tuple[float, float]:
    """ε at which the importance-sampled δ of ``(1/T) Σ_t N(record_t, I)`` against ``(1/T) Σ_t
    N(zeroed_t, I)`` falls below :data:`DELTA` (the noise of the record's component tilted by
    ``tilt`` along its difference), and the standard error of δ there (the means are sparse:
    a hub component has four nonzero coordinates)."""
    from scipy.sparse import csr_matrix
    from scipy.special import logsumexp

    rng = np.random.default_rng(seed)
    sparse_record, sparse_zeroed = csr_matrix(record), csr_matrix(zeroed)

    def scores(output: np.ndarray, means) -> np.ndarray:
        return (means @ output.T).T - np.asarray(means.multiply(means).sum(1)).ravel() / 2

    losses, weights = [], []
    for _ in range(draws // 500):
        chosen = rng.integers(0, record.shape[0], 500)
        direction = record[chosen] - zeroed[chosen]
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        noise = rng.standard_normal((500, record.shape[1])) + tilt * direction
        weights.append(np.exp(tilt ** 2 / 2 - tilt * np.einsum("ij,ij->i", noise, direction)))
        output = record[chosen] + noise
        losses.append(logsumexp(scores(output, sparse_record), axis=1)
                      - logsumexp(scores(output, sparse_zeroed), axis=1))
    loss, weight = np.concatenate(losses), np.concatenate(weights)
    for epsilon in np.arange(0.0, 12.0, 0.01):
        terms = weight * np.maximum(0.0, 1 - np.exp(epsilon - loss))
        if terms.mean() < DELTA:
            return float(epsilon), float(terms.std() / np.sqrt(terms.size))
    return float("inf"), float("nan")


def _own_query_means(steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The hub when the hole's step asks a query of its own (as DP-SGD does: the model has
    moved): step t shows Chua et al.'s offsets (2 with the record, 1 with zero), and the hole's
    step shows the displaced record of step t along a direction e_t of its own (norm 1)."""
    width = 2 * steps - 1
    record, zeroed = np.zeros((steps, width)), np.zeros((steps, width))
    for t in range(steps - 1):
        record[t, t], zeroed[t, t] = 2.0, 1.0
        record[t, steps - 1 + t] = zeroed[t, steps - 1 + t] = 1.0
    record[steps - 1, -1] = 1.0
    return record, zeroed


COUPLING_SIGMAS = {1.0: 4.0, 2.0: 2.5}
"""σ of the couplings table, each with the tilt that keeps the standard error of δ small."""


def couplings_rows(steps: int = 1000) -> list[tuple[str, float, float, float]]:
    candidates = [(f"hub, θ = {angle:g}" + (" (Chua et al.'s pair)" if angle == 0 else ""),
                   _hub_means(steps, angle)) for angle in (0.0, 0.4, 1.0, np.pi / 2)]
    candidates += [("hub, the hole's step with a query of its own", _own_query_means(steps)),
                   ("conveyor, boundary records −1 (Chua et al.'s pair)",
                    _conveyor_means(steps, False)),
                   ("conveyor, boundary records alternately ±1", _conveyor_means(steps, True))]
    return [(name, sigma, *estimated_epsilon(record / sigma, zeroed / sigma, tilt=tilt))
            for name, (record, zeroed) in candidates for sigma, tilt in COUPLING_SIGMAS.items()]


def couplings_table(rows: list[tuple[str, float, float, float]], steps: int = 1000) -> str:
    lines = [f"| candidate (T = {steps}, one epoch) | σ | estimated ε at δ = {DELTA:g} "
             "| standard error of δ there |", "|---|---|---|---|"]
    lines += [f"| {name} | {sigma:g} | {epsilon:.2f} | {error:.1e} |"
              for name, sigma, epsilon, error in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", action="store_true", help="write docs/shuffling.md's tables")
    args = parser.parse_args()
    rows = []
    for sigma in SIGMAS:
        for steps in STEPS:
            for epochs in EPOCHS:
                rows.append(bounds_row(steps, sigma, epochs))
                print(f"σ = {sigma:g}, T = {steps}, {epochs} epochs: "
                      f"{rows[-1]['seconds']:.1f} s", flush=True)
    bounds = bounds_table(rows)
    print(bounds)
    couplings = couplings_table(couplings_rows())
    print(couplings)
    if args.docs:
        for name, table in (("certificate", certificate_table()), ("bounds", bounds),
                            ("couplings", couplings)):
            write_region(PAGE, *MARKERS[name], table)


if __name__ == "__main__":
    main()
