"""Random allocation side by side with the peer (issue 42): otbound and ``pld-accounting``
(Feldman & Shenfeld, arXiv 2602.17284) on the same settings, in one run, each with both ends of
its bracket and its time.

Rows — Gaussian noise σ, ``k`` of ``t`` steps per record, δ = 1e-6, one epoch, both directions
(the larger ε of removal and insertion) — for σ ∈ {0.5, 1, 2} and ``(k, t)`` ∈ {(1, 10),
(10, 100), (5, 1000)}; then the practitioner's run: ten epochs of balls-in-bins at N = 60000,
b = 256 (235 steps per epoch), σ = 1, δ = 1e-5, and ``calibrate --solve-for sigma`` there
(ε = 1 at δ = 1e-5); last, both settings again in ball arithmetic (``--certified``).

* otbound: ``otbound.account(otbound.RandomAllocation(t, k), otbound.gaussian(σ), E, delta=δ)``;
  its ``epsilon`` is the upper end (every true ε is at most it) and ``details["epsilon_lower"]``
  the lower end (every true ε is at least it). For ``k > 1`` the upper end is the hidden-partition
  bound (k blocks of one-of-t/k), the lower end a statistic of the outputs of the true scheme.
* pld-accounting: ``gaussian_allocation_epsilon_range`` (its default accuracy), which returns
  ``(upper, lower)``; for ``k > 1`` it brackets the reduction to ``k`` compositions of one of
  ``⌊t/k⌋`` or ``⌈t/k⌉`` steps (a bound on the scheme, not the scheme itself), so its lower end
  is not a lower bound of random allocation itself.

Times are wall-clock seconds of the call in this process after a warm-up import, each the best
of ``--runs``; the peer is skipped (and said so) when ``pld-accounting`` is not installed
(``pip install pld-accounting``).

    python benchmarks/random_allocation.py [--runs 1] [--quick]
"""

from __future__ import annotations

import argparse
import time

import otbound

DELTA = 1e-6
SIGMAS = (0.5, 1.0, 2.0)
ALLOCATIONS = ((1, 10), (10, 100), (5, 1000))
PRACTITIONER = {"batch_size": 256, "dataset_size": 60000, "sigma": 1.0, "epochs": 10,
                "delta": 1e-5}
PRACTITIONER_ROW = "10 epochs of balls-in-bins, N = 60000, b = 256, σ = 1, δ = 1e-05"
"""The label of the practitioner's row (docs/epoch_sampling.md names it)."""
PR_414 = 2.4265
"""dp_accounting PR #414's ε for σ = 2, k = 10, t = 100, δ = 1e-6 (the reduction to k = 1)."""


def best_of(runs: int, call):
    """``(result, seconds)``: the call's result and its fastest time over ``runs`` runs."""
    best, result = float("inf"), None
    for _ in range(runs):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return result, best


def peer():
    """pld-accounting's Gaussian bracket, or ``None`` when it is not installed."""
    try:
        from PLD_accounting import gaussian_allocation_epsilon_range
    except ImportError:
        return None
    return gaussian_allocation_epsilon_range


def ours(steps: int, selected: int, sigma: float, epochs: int, delta: float):
    found = otbound.account(otbound.RandomAllocation(steps, selected), otbound.gaussian(sigma),
                            epochs, delta=delta)
    return found.epsilon, found.details["epsilon_lower"]


def row(label: str, mine, theirs) -> str:
    (upper, lower), seconds = mine
    text = f"| {label} | {lower:.5f} | {upper:.5f} | {seconds:.2f} |"
    if theirs is None:
        return text + " not installed | | |"
    (their_upper, their_lower), their_seconds = theirs
    return text + f" {their_lower:.5f} | {their_upper:.5f} | {their_seconds:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--quick", action="store_true",
                        help="only the practitioner's run and the PR #414 row")
    args = parser.parse_args()
    bracket = peer()
    ours(10, 1, 1.0, 1, DELTA)   # warm-up: imports
    print("| setting | otbound lower | otbound upper | s | pld-accounting lower | "
          "pld-accounting upper | s |")
    print("|---|---|---|---|---|---|---|")
    settings = ([(2.0, 10, 100)] if args.quick else
                [(sigma, k, t) for sigma in SIGMAS for k, t in ALLOCATIONS])
    for sigma, selected, steps in settings:
        mine = best_of(args.runs, lambda: ours(steps, selected, sigma, 1, DELTA))
        theirs = None if bracket is None else best_of(args.runs, lambda: bracket(
            delta=DELTA, sigma=sigma, num_steps=steps, num_selected=selected))
        print(row(f"σ = {sigma:g}, k = {selected} of t = {steps}, δ = {DELTA:g}", mine, theirs))
    p = PRACTITIONER
    steps = -(-p["dataset_size"] // p["batch_size"])
    mine = best_of(args.runs, lambda: ours(steps, 1, p["sigma"], p["epochs"], p["delta"]))
    theirs = None if bracket is None else best_of(args.runs, lambda: bracket(
        delta=p["delta"], sigma=p["sigma"], num_steps=steps, num_selected=1,
        num_epochs=p["epochs"]))
    print(row(PRACTITIONER_ROW, mine, theirs))
    (upper, lower), _ = mine
    print(f"\nbracket width of the practitioner's run: {(upper - lower) / upper:.3%} of ε")
    found, seconds = best_of(args.runs, lambda: otbound.calibrate(
        otbound.BallsInBins(p["batch_size"], p["dataset_size"]), otbound.gaussian(1.0),
        p["epochs"], solve_for="sigma", target_epsilon=1.0, delta=p["delta"]))
    print(f"calibrate sigma for ε = 1 there: σ = {found.value:.6g} in {seconds:.2f} s")
    certified_rows(args.runs, steps)


def certified_rows(runs: int, steps: int) -> None:
    """Both ends in ball arithmetic (``account --certified``) at the practitioner's run and the
    PR #414 row, beside the fast path's bracket."""
    from otbound.numerics.certified import certified_mode

    p = PRACTITIONER
    print("\n| certified: setting | fast lower | fast upper | certified lower | "
          "certified upper | certified s |")
    print("|---|---|---|---|---|---|")
    for label, call in (
            (PRACTITIONER_ROW, lambda: ours(steps, 1, p["sigma"], p["epochs"], p["delta"])),
            (f"σ = 2, k = 10 of t = 100, δ = {DELTA:g}", lambda: ours(100, 10, 2.0, 1, DELTA))):
        fast_upper, fast_lower = call()
        with certified_mode():
            (upper, lower), seconds = best_of(runs, call)
        print(f"| {label} | {fast_lower:.5f} | {fast_upper:.5f} | {lower:.5f} | {upper:.5f} | "
              f"{seconds:.2f} |")


if __name__ == "__main__":
    main()
