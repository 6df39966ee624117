"""The practitioner's path, timed next to the peers in the same run (issue 26).

One table, one row per acceptance item of issue 26, each with otbound's time, the peer's (or the
target's) and the ratio, for DP-SGD's setting — Poisson subsampling at r = 0.01, the Gaussian
mechanism, T = 1000 steps, δ = 1e-6 — unless the row says otherwise:

* ``otbound account`` with the PLD accountant (discretisation 1e-4) as a whole process, against
  a Python script that does the same with dp_accounting (both import dp_accounting); and the API
  call against dp_accounting's ``compose`` + ``get_epsilon`` (warm, in this process);
* the RDP accountant, optimal and Balle et al. 2020 conversions, against dp_accounting's
  ``RdpAccountant`` on otbound's orders;
* ``calibrate`` for σ at ε = 2 (PLD, discretisation 1e-4) against dp_accounting's
  ``calibrate_dp_mechanism``; with the RDP accountant against Opacus's ``get_noise_multiplier``
  where Opacus imports (it needs torch), else against dp_accounting's RDP calibration (said so);
* groups (K = 32 and K = 256) and sampling without replacement (K = 8, one step), against the
  issue's targets; one ``otbound rdp`` point from a cold start against ``python -c pass``;
* ``account`` and ``calibrate`` without replacement at q = 256, N = 60000 with the RDP
  accountant, which certify three-point maxima (no target).

With ``--slow``: also ``otbound audit --all`` and the certified three-point bound at q = 256,
N = 60000 (order 8, and the slowest of every order 2–256). Processes run with bytecode caches (``PYTHONDONTWRITEBYTECODE`` removed),
as an installed package has them; each process is timed ``--runs`` times, taking turns with the
peer, and the median is shown; in-process calls show the best of ``--runs`` after one warm-up.

    python benchmarks/practitioner_speed.py [--runs 3] [--slow]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

RATE, SIGMA, STEPS, DELTA, EPSILON, GRID = 0.01, 1.0, 1000, 1e-6, 2.0, 1e-4
ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
PEER_PLD_SCRIPT = f"""
import dp_accounting
from dp_accounting.pld import pld_privacy_accountant
event = dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(
    {RATE}, dp_accounting.GaussianDpEvent({SIGMA})), {STEPS})
accountant = pld_privacy_accountant.PLDAccountant(value_discretization_interval={GRID})
print(accountant.compose(event).get_epsilon({DELTA}))
"""
POISSON = ["--scheme", "poisson", "--rate", str(RATE), "--mechanism", "gaussian"]
ACCOUNT = ["account", *POISSON, "--sigma", str(SIGMA), "--steps", str(STEPS), "--delta",
           str(DELTA)]
ROWS: list[tuple[str, str, str, str]] = []
LONGEST = 120.0
"""Seconds after which a command is stopped (and reported as taking longer)."""


def otbound_command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "otbound.cli", *arguments]


def process_seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=ENVIRONMENT)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(argv)} exited with {done.returncode}: {done.stderr.strip()}")
    return seconds


K256_CURVE = f"""
import numpy as np, otbound
orders = np.floor(np.logspace(np.log10(2), 4, 121))
setting, noise = otbound.Subsampling("poisson", rate={RATE}, group=256), otbound.gaussian({SIGMA})
"""
"""Set-up of the K = 256 curve; :func:`fresh_call_seconds` times the call after it."""


def fresh_call_seconds(setup: str) -> float:
    """Seconds of ``otbound.rdp(setting, noise, "tight", orders)`` after ``setup`` in a new
    process: what a user's script spends beyond start-up (this process has loaded the peers,
    which makes the forks of otbound's parallel map slower than in a user's process)."""
    timed = (setup + "import time\nstart = time.perf_counter()\n"
             "otbound.rdp(setting, noise, 'tight', orders)\n"
             "print(time.perf_counter() - start)\n")
    done = subprocess.run([sys.executable, "-c", timed], capture_output=True, text=True,
                          env=ENVIRONMENT)
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[-1])
    return float(done.stdout)


def median_processes(commands: list[list[str]], runs: int) -> list[float]:
    """Median wall times, the commands taking turns (after one untimed round)."""
    samples = [[] for _ in commands]
    for round_ in range(runs + 1):
        for times, argv in zip(samples, commands):
            seconds = process_seconds(argv)
            if round_:
                times.append(seconds)
    return [statistics.median(times) for times in samples]


def best_call(runs: int, function) -> float:
    function()   # warm-up: imports and caches
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def compare(what: str, ours: float, theirs: float, peer: str, allowed: float) -> None:
    ratio = ours / theirs
    verdict = "meets" if ratio <= allowed else "MISSES"
    ROWS.append((what, f"{ours:.3f} s", f"{peer} {theirs:.3f} s",
                 f"{ratio:.2f}× (target ≤ {allowed:g}×) {verdict}"))


def against_target(what: str, seconds: float | None, target: float, note: str = "") -> None:
    if seconds is None:
        ROWS.append((what, "refused", f"target < {target:g} s", f"MISSES ({note})"))
        return
    verdict = "meets" if seconds < target else "MISSES"
    ROWS.append((what, f"{seconds:.2f} s", f"target < {target:g} s",
                 f"{verdict}{' (' + note + ')' if note else ''}"))


def account_rows(runs: int) -> None:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    import otbound
    from otbound.accounting.rdp import DEFAULT_ORDERS

    ours, theirs = median_processes([otbound_command(*ACCOUNT, "--accountant", "pld",
                                                     "--discretisation", str(GRID)),
                                     [sys.executable, "-c", PEER_PLD_SCRIPT]], runs)
    compare("account, K = 1, PLD: whole process", ours, theirs, "dp_accounting script", 1.0)

    setting, noise = otbound.Subsampling("poisson", rate=RATE), otbound.gaussian(SIGMA)
    event = dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(
        RATE, dp_accounting.GaussianDpEvent(SIGMA)), STEPS)

    def peer(accountant):
        return lambda: accountant().compose(event).get_epsilon(DELTA)

    def mine(**options):
        return lambda: otbound.account(setting, noise, STEPS, delta=DELTA, **options)

    compare("account(), K = 1, PLD: API call", best_call(runs, mine(accountant="pld",
                                                                     discretisation=GRID)),
            best_call(runs, peer(lambda: pld_privacy_accountant.PLDAccountant(
                value_discretization_interval=GRID))),
            "compose + get_epsilon", 1.0)
    rdp_peer = best_call(runs, peer(lambda: rdp_privacy_accountant.RdpAccountant(
        list(DEFAULT_ORDERS))))
    for conversion, allowed in (("optimal", 2.0), ("balle2020", 1.0)):
        compare(f"account(), RDP accountant, {conversion} conversion",
                best_call(runs, mine(accountant="rdp", conversion=conversion)), rdp_peer,
                "dp_accounting RdpAccountant", allowed)


def calibrate_rows(runs: int) -> None:
    import dp_accounting
    from dp_accounting import mechanism_calibration
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    import otbound

    setting = otbound.Subsampling("poisson", rate=RATE)

    def event(sigma):
        return dp_accounting.SelfComposedDpEvent(dp_accounting.PoissonSampledDpEvent(
            RATE, dp_accounting.GaussianDpEvent(sigma)), STEPS)

    def mine(accountant, **options):
        return lambda: otbound.calibrate(setting, otbound.gaussian(1.0), STEPS,
                                         solve_for="sigma", target_epsilon=EPSILON,
                                         delta=DELTA, accountant=accountant, **options)

    def peer(make):
        return lambda: mechanism_calibration.calibrate_dp_mechanism(make, event, EPSILON, DELTA)

    compare("calibrate σ, PLD", best_call(1, mine("pld", discretisation=GRID)),
            best_call(1, peer(lambda: pld_privacy_accountant.PLDAccountant(
                value_discretization_interval=GRID))),
            "dp_accounting calibrate_dp_mechanism", 1.0)
    ours = best_call(runs, mine("rdp"))
    try:
        from opacus.accountants.utils import get_noise_multiplier
    except ImportError:
        compare("calibrate σ, RDP (Opacus not importable: it needs torch; against "
                "dp_accounting's RDP calibration instead)", ours,
                best_call(runs, peer(rdp_privacy_accountant.RdpAccountant)),
                "dp_accounting calibrate_dp_mechanism (RDP)", 2.0)
        return
    compare("calibrate σ, RDP", ours, best_call(runs, lambda: get_noise_multiplier(
        target_epsilon=EPSILON, target_delta=DELTA, sample_rate=RATE, steps=STEPS,
        accountant="rdp")), "Opacus get_noise_multiplier", 2.0)


REALISTIC = ["account", "--scheme", "poisson", "--rate", "0.001", "--mechanism", "gaussian",
             "--sigma", "5", "--steps", str(STEPS), "--delta", str(DELTA)]
"""The README's group example (r = 0.001, σ = 5), where the group's cases lie close together."""


def group_rows() -> None:
    for arguments, group, target, what in (
            (ACCOUNT, 32, 5.0, "account --group 32 --steps 1000"),
            (ACCOUNT, 256, 10.0, "account --group 256 --steps 1000"),
            (REALISTIC, 256, 10.0, "account --group 256 --steps 1000, r = 0.001, σ = 5")):
        command = otbound_command(*arguments, "--group", str(group))
        start = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=ENVIRONMENT,
                                  timeout=LONGEST)
        except subprocess.TimeoutExpired:
            ROWS.append((what, f"> {LONGEST:g} s (stopped)", f"target < {target:g} s",
                         "MISSES"))
            continue
        seconds = time.perf_counter() - start
        against_target(what, seconds if done.returncode == 0 else None, target,
                       done.stderr.strip().splitlines()[-1][:90] if done.returncode else "")
    what = "tight RDP curve, K = 256, 121 orders (fresh process, beyond start-up, median of 3)"
    try:
        against_target(what, statistics.median(fresh_call_seconds(K256_CURVE)
                                               for _ in range(3)), 2.0)
    except RuntimeError as error:
        against_target(what, None, 2.0, str(error)[:90])
    wor = ["account", "--scheme", "wor", "--batch-size", "10", "--dataset-size", "20",
           "--substitutions", "8", "--mechanism", "gaussian", "--sigma", "2", "--steps", "1",
           "--epsilon", "1"]
    against_target("account, without replacement, K = 8, one step",
                   process_seconds(otbound_command(*wor)), 5.0)
    calibrate = ["calibrate", "--scheme", "poisson", "--rate", "0.0042667", "--group", "64",
                 "--steps", str(STEPS), "--mechanism", "gaussian", "--solve-for", "sigma",
                 "--target-epsilon", "8", "--delta", "1e-5"]
    against_target("calibrate σ for a group of 64, r = 256/60000, ε = 8 at δ = 1e-5",
                   process_seconds(otbound_command(*calibrate)), 60.0)


WOR_256 = ["--scheme", "wor", "--substitutions", "1", "--batch-size", "256", "--dataset-size",
           "60000", "--mechanism", "gaussian", "--steps", str(STEPS), "--delta", str(DELTA),
           "--accountant", "rdp"]
"""Sampling without replacement, q = 256 of N = 60000, with the RDP accountant: it certifies
the three-point maximum at the orders that decide the answer (docs/wor_substitution.md)."""


def certified_accounting_rows() -> None:
    """Whole processes of ``account`` (σ = 1) and ``calibrate`` (for σ at ε = 2) that certify
    three-point maxima; no target."""
    for what, arguments in (
            ("account, without replacement, q = 256, N = 60000, RDP accountant",
             ["account", *WOR_256, "--sigma", str(SIGMA)]),
            ("calibrate σ, without replacement, q = 256, N = 60000, RDP accountant",
             ["calibrate", *WOR_256, "--solve-for", "sigma", "--target-epsilon", str(EPSILON)])):
        ROWS.append((what, f"{process_seconds(otbound_command(*arguments)):.2f} s", "no target",
                     "—"))


def cold_start_row(runs: int) -> None:
    ours, bare = median_processes([otbound_command("rdp", *POISSON, "--sigma", "1", "--alpha",
                                                   "2"), [sys.executable, "-c", "pass"]],
                                  max(runs, 5))
    against_target(f"one `otbound rdp` point, cold (python -c pass: {bare:.3f} s)", ours, 0.25)


def slow_rows() -> None:
    from otbound.numerics.one_step import rdp

    import otbound

    start = time.perf_counter()
    subprocess.run(otbound_command("audit", "--all"), capture_output=True, env=ENVIRONMENT)
    against_target("otbound audit --all", time.perf_counter() - start, 120.0)
    setting = otbound.Subsampling("wor", batch_size=256, dataset_size=60000, substitutions=1)
    seconds = {}
    for order in range(2, 257):   # each order's certificate is computed once per process
        start = time.perf_counter()
        rdp(setting, otbound.gaussian(SIGMA), "tight", [float(order)], certified=True)
        seconds[order] = time.perf_counter() - start
    slowest = max(seconds, key=seconds.get)
    against_target("WOR three-point bound, q = 256, N = 60000, certified: α = 8",
                   seconds[8], 0.5)
    against_target("the same, slowest of every order 2–256", seconds[slowest], 0.5,
                   f"α = {slowest}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--slow", action="store_true",
                        help="also audit --all and the three-point bound without replacement")
    args = parser.parse_args()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load}; processes: median of {args.runs}, "
          f"calls: best of {args.runs}\n")
    account_rows(args.runs)
    calibrate_rows(args.runs)
    group_rows()
    certified_accounting_rows()
    cold_start_row(args.runs)
    if args.slow:
        slow_rows()
    print("| what | otbound | peer / target | ratio, verdict |")
    print("|---|---|---|---|")
    for row in ROWS:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
