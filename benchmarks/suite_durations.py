"""The default test suite's wall time and its slowest tests (issue 46 item 5).

    python benchmarks/suite_durations.py            # prints the table
    python benchmarks/suite_durations.py --docs     # also writes it into docs/verification.md

Runs the README's ``python -m pytest`` (the default selection, every core) with
``--durations``, and prints the wall time of the whole run, the tests counted, and the slowest
tests with their phase. The target is under 10 minutes on an idle 2-core machine.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

from page_regions import write_region

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "verification.md"
MARKERS = ("<!-- generated: suite durations -->", "<!-- end of suite durations -->")
SLOWEST = 20
DURATION = re.compile(r"^(?P<seconds>\d+\.\d+)s (?P<phase>call|setup|teardown)\s+(?P<test>.+?)\s*$")
SUMMARY = re.compile(r"(?P<summary>\d+ passed[^=]*?) in [\d.]+s")


def run() -> tuple[float, str, list[tuple[float, str, str]]]:
    """Wall seconds, pytest's summary line and the slowest tests of one default run."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"--durations={SLOWEST}"], cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"the suite failed (exit {done.returncode}):\n{done.stdout[-3000:]}")
    slowest = [(float(m["seconds"]), m["phase"], m["test"])
               for m in map(DURATION.match, done.stdout.splitlines()) if m]
    summary = next((m["summary"] for m in map(SUMMARY.search, done.stdout.splitlines()) if m),
                   "summary not found")
    return seconds, summary, slowest


def table(seconds: float, summary: str, slowest: list[tuple[float, str, str]]) -> str:
    lines = ["| test (phase) | s |", "|---|---|",
             f"| the whole default suite: {summary} | {seconds:.0f} |"]
    lines += [f"| `{test}` ({phase}) | {duration:.1f} |" for duration, phase, test in slowest]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", action="store_true",
                        help="write docs/verification.md's table")
    args = parser.parse_args()
    text = table(*run())
    print(text)
    if args.docs:
        write_region(PAGE, *MARKERS, text)


if __name__ == "__main__":
    main()
