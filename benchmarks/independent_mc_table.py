"""The independent Monte Carlo at one configuration per tight bundled derivation (issue 14):
the markdown table of docs/verification.md, with the bound, the estimate of δ(ε), its interval
and width, the verdict against the bound (seed 0) and against the bound lowered by 5 % (seed 1),
and the time of the two rows. The configurations are those of tests/test_independent_mc.py.

    python benchmarks/independent_mc_table.py
"""

from __future__ import annotations

import time

import numpy as np

from otbound.engine.bundled import load_derivation
from otbound.engine.derivation import run
from otbound.verify.checks import Instance
from otbound.verify.independent_mc import (DOCUMENTED_SIZE, FAILURE, LOWERED, case_instance,
                                           check_independent_mc, documented_configurations)

EPSILON, SIZE = 0.5, DOCUMENTED_SIZE
CONFIGURATIONS = documented_configurations()   # derivation, variant, case, values, mechanism, draws


def instance(name: str, variant: str, case: str, values: dict) -> Instance:
    """The case of the bundled derivation at ``values`` on datasets of :data:`SIZE` records."""
    return case_instance(run(load_derivation(name)), variant, case, values, SIZE)


def setting(values: dict, mechanism, found: Instance) -> str:
    shown = (", ".join(f"{k} = {v}" for k, v in values.items())
             or f"q = {found.scheme.batch_size}")
    noise = (f"θ = {mechanism.theta:g}" if mechanism.name == "randomized-response"
             else f"σ = {mechanism.scale:g}")
    return f"{shown}, {mechanism.name} {noise}"


def main() -> None:
    print(f"ε = {EPSILON}, N = {SIZE}, confidence 1 − {FAILURE:g}\n")
    print("| derivation | variant, case | setting | draws | bound | estimate | interval | width "
          f"| vs bound | vs {1 - LOWERED:g} × bound | time |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, variant, case, values, mechanism, draws in CONFIGURATIONS:
        found = instance(name, variant, case, values)
        start = time.perf_counter()
        row = check_independent_mc(found, mechanism, EPSILON, draws, np.random.default_rng(0))
        lowered = check_independent_mc(found, mechanism, EPSILON, draws,
                                       np.random.default_rng(1),
                                       bound=(1 - LOWERED) * row.bound)
        elapsed = time.perf_counter() - start
        low, high = row.interval
        print(f"| {name} | {variant}, {case} | {setting(values, mechanism, found)} | {draws:,} "
              f"| {row.bound:.6g} | {row.observed:.6g} | [{low:.6g}, {high:.6g}] "
              f"| {high - low:.3g} | {row.verdict} | {lowered.verdict} | {elapsed:.1f} s |")


if __name__ == "__main__":
    main()
