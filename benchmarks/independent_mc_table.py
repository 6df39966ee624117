"""The independent Monte Carlo at one configuration per tight bundled derivation (issue 14):
the markdown table of docs/verification.md, with the bound, the estimate of δ(ε), its interval
and width, the verdict against the bound (seed 0) and against the bound lowered by 5 % (seed 1),
and the time of the two rows. The configurations are those of tests/test_independent_mc.py.

    python benchmarks/independent_mc_table.py
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from otbound.engine import symbols
from otbound.engine.catalog import load_derivation
from otbound.engine.derivation import run
from otbound.numerics.mechanisms import gaussian, randomized_response
from otbound.verify.checks import Instance
from otbound.verify.independent_mc import FAILURE, LOWERED, check_independent_mc

EPSILON, SIZE = 0.5, 6
HALF = {symbols.r: Fraction(1, 2)}
CONFIGURATIONS = [  # derivation, variant, case, parameters, mechanism, draws
    ("001-prop-E.4", "K = 1", "removal", HALF, gaussian(1.0), 200_000),
    ("001-prop-E.4", "K = 1", "insertion", HALF, gaussian(1.0), 1_000_000),
    ("001-thm-4.1", "K = 1", "removal", HALF, gaussian(1.0), 200_000),
    ("001-thm-4.1", "K = 2", "removal", HALF, gaussian(1.0), 200_000),
    ("001-thm-4.1", "K = 2", "insertion", HALF, gaussian(1.0), 200_000),
    ("001-thm-3.6", "K = 1", "substitution", {symbols.q: 3}, randomized_response(0.75),
     200_000),
    ("wor-group-substitution", "K = 2", "substitution", {symbols.q: 3},
     randomized_response(0.75), 200_000),
    ("wr-insertion-removal", "q = 3", "removal", {}, gaussian(1.0), 200_000),
    ("wr-substitution", "q = 3", "substitution", {}, randomized_response(0.75), 200_000),
]


def instance(name: str, variant: str, case: str, values: dict) -> Instance:
    """The case of the bundled derivation at ``values`` on datasets of :data:`SIZE` records."""
    report = run(load_derivation(name))
    for found in report.variants:
        for case_report in found.cases:
            if found.variant.label == variant and case_report.case.pair.name == case:
                offset = case_report.case.size_offset(report.derivation.size_reference)
                return Instance(report.derivation, found.variant, case_report.case, values,
                                SIZE - offset, bound=case_report.bound)
    raise LookupError((name, variant, case))


def setting(values: dict, mechanism) -> str:
    shown = ", ".join(f"{k} = {v}" for k, v in values.items()) or "q = 3"
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
        print(f"| {name} | {variant}, {case} | {setting(values, mechanism)} | {draws:,} "
              f"| {row.bound:.6g} | {row.observed:.6g} | [{low:.6g}, {high:.6g}] "
              f"| {high - low:.3g} | {row.verdict} | {lowered.verdict} | {elapsed:.1f} s |")


if __name__ == "__main__":
    main()
