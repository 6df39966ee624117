"""Cold start of the command line (issue 10): the wall time of a fresh process for ``otbound
--help``, one RDP point, one ADP point, a small ``account`` and ``derive --list``, against the
bare interpreter (``python -c pass``).

Every command runs once untimed (to write bytecode caches, as an installed package has them:
``PYTHONDONTWRITEBYTECODE`` is removed from the environment of the runs), then ``--runs`` times
in new processes, the commands taking turns so that a change in machine load affects them alike.
The table gives the median, the time above ``python -c pass``, and for ``--help`` and the RDP
point whether the median meets the target (0.25 s, issue 26). Wall times depend on the machine
and its load, which is printed.

    python benchmarks/cold_start.py [--runs 5] [--target 0.25] [--module]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

SETTING = ["--scheme", "poisson", "--rate", "0.01", "--mechanism", "gaussian", "--sigma", "1"]
COMMANDS = [  # (label, arguments of otbound, held to the target)
    ("otbound --help", ["--help"], True),
    ("otbound rdp (one α)", ["rdp", *SETTING, "--alpha", "2"], True),
    ("otbound adp (one ε)", ["adp", *SETTING, "--epsilon", "1"], False),
    ("otbound account (rdp)", ["account", *SETTING, "--steps", "10", "--delta", "1e-6",
                               "--accountant", "rdp"], False),
    ("otbound derive --list", ["derive", "--list"], False),
]


ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def otbound_entry(module: bool) -> list[str]:
    """The console script of this interpreter's environment, or ``python -m otbound.cli``."""
    script = shutil.which("otbound", path=os.path.dirname(sys.executable))
    return [sys.executable, "-m", "otbound.cli"] if module or script is None else [script]


def wall_time(argv: list[str]) -> float:
    """Seconds for one fresh process to run ``argv`` to completion (it must succeed)."""
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=ENVIRONMENT)
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"{' '.join(argv)} exited with {done.returncode}: {done.stderr.strip()}")
    return seconds


def median_times(commands: dict[str, list[str]], runs: int) -> dict[str, float]:
    """The median wall time of each command over ``runs`` rounds, after one untimed round."""
    samples: dict[str, list[float]] = {label: [] for label in commands}
    for round_ in range(runs + 1):
        for label, argv in commands.items():
            seconds = wall_time(argv)
            if round_:
                samples[label].append(seconds)
    return {label: statistics.median(times) for label, times in samples.items()}


def table(medians: dict[str, float], baseline: str, targeted: set[str], target: float) -> str:
    """One row per command: median, seconds above the baseline, and the verdict on the target."""
    width = max(map(len, medians))
    lines = [f"{'command':<{width}}  {'median s':>8}  {'above python':>12}  target {target:g} s"]
    for label, seconds in medians.items():
        verdict = ("meets" if seconds < target else "MISSES") if label in targeted else ""
        above = "" if label == baseline else f"{seconds - medians[baseline]:+.3f}"
        lines.append(f"{label:<{width}}  {seconds:>8.3f}  {above:>12}  {verdict}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5)")
    parser.add_argument("--target", type=float, default=0.25,
                        help="wall-time target in seconds for --help and rdp (default 0.25)")
    parser.add_argument("--module", action="store_true",
                        help="run python -m otbound.cli instead of the otbound console script")
    args = parser.parse_args()
    entry = otbound_entry(args.module)
    baseline = "python -c pass"
    commands = {baseline: [sys.executable, "-c", "pass"]}
    commands |= {label: entry + argv for label, argv, _ in COMMANDS}
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{' '.join(entry)}: median of {args.runs} fresh processes; {os.cpu_count()} CPUs, "
          f"load average {load}")
    medians = median_times(commands, args.runs)
    print(table(medians, baseline, {label for label, _, held in COMMANDS if held}, args.target))


if __name__ == "__main__":
    main()
