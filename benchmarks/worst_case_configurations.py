"""Is the collinear configuration the worst case? A search off the line (issue 14).

For every pattern of 003 Thm. 3.7 with K₊ + K₋ ≤ 4 the divergence is maximised over all
configurations of the means (``otbound.verify.configurations``) and compared with otbound's
solver, which assumes collinear, equidistant means (001 App. H, 003 Thm. 3.8, M.2):

* ``gaussian``: every configuration in ℝ^(K₊+K₋), Euclidean distances (r = 0.2, σ = 2);
* ``laplace``: every arrangement on the line (otbound's mechanism, 003 Thm. M.2) and, for
  i.i.d. Laplace noise per coordinate, every configuration in ℝ² and ℝ³ with ℓ1 distances;
* ``certified``: branch-and-bound with ball arithmetic over every configuration on the line
  (Laplace, K₊ + K₋ ≤ 3; Gaussian, K₊ + K₋ = 1, where the line is every configuration).

Prints markdown tables (docs/verification.md).
Run: ``python benchmarks/worst_case_configurations.py [--part laplace] [--starts 3]``.
"""

from __future__ import annotations

import argparse
import time

from otbound.verify.configurations import Pattern, certify, search, search_laplace

SHAPES = [(k_plus, k_minus) for total in range(1, 5) for k_plus in range(total + 1)
          for k_minus in (total - k_plus,)]
LAPLACE_SETTINGS = [(0.2, 1.0, 2.0), (0.2, 1.0, 4.0), (0.05, 0.5, 8.0)]
"""``(r, b, α)`` of the Laplace rows."""
CERTIFIED_TOLERANCE = {1: 1e-4, 2: 1e-4, 3: 1e-3}
"""Relative slack of the certificates by ``K₊ + K₋``: ``log Ψ_α ≤ solver·(1 + tolerance)``."""


def gaussian(starts: int) -> None:
    print("| K₊ | K₋ | α | solver log Ψ_α | largest found | rule error | rule vs solver on the "
          "line | off-line spread of the best | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    for inserted, removed in SHAPES:
        for alpha in (2.0, 4.0):
            result = search(Pattern(inserted, removed, 0.2), 2.0, alpha, starts)
            print(f"| {inserted} | {removed} | {alpha:g} | {result.solver:.12g} | "
                  f"{result.found:.12g} | {result.rule_error:.1e} | {result.line_gap:.1e} | "
                  f"{result.spread:.1e} | {_verdict(result.confirmed)} |", flush=True)


def laplace(starts: int) -> None:
    print("| K₊ | K₋ | r | b | α | d | solver log Ψ_α | largest found | rule error | rule vs "
          "solver on the line | distance of the best from the solver's | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for inserted, removed in SHAPES:
        for rate, scale, alpha in LAPLACE_SETTINGS:
            for dimension in (1, 2, 3) if inserted + removed <= 3 else (1, 2):
                result = search_laplace(Pattern(inserted, removed, rate), scale, alpha, starts,
                                        dimension)
                print(f"| {inserted} | {removed} | {rate:g} | {scale:g} | {alpha:g} | "
                      f"{dimension} | {result.solver:.12g} | {result.found:.12g} | "
                      f"{result.rule_error:.1e} | {result.line_gap:.1e} | "
                      f"{result.spread:.1e} | {_verdict(result.confirmed)} |", flush=True)


def certified() -> None:
    print("| noise | K₊ | K₋ | r | σ or b | α | solver log Ψ_α | tolerance | certified bound "
          "| largest box bound | boxes | seconds | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    cases = [("laplace", shape, setting) for shape in SHAPES if sum(shape) <= 3
             for setting in LAPLACE_SETTINGS]
    cases += [("gaussian", shape, (0.2, 2.0, alpha)) for shape in SHAPES if sum(shape) == 1
              for alpha in (2.0, 4.0, 8.0)]
    for family, (inserted, removed), (rate, scale, alpha) in cases:
        start = time.perf_counter()
        tolerance = CERTIFIED_TOLERANCE[inserted + removed]
        result = certify(Pattern(inserted, removed, rate), family, scale, alpha, tolerance)
        verdict = "certified" if result.certified else (
            f"EXCEEDED at {result.witness}" if result.witness else "not certified (budget)")
        print(f"| {family} | {inserted} | {removed} | {rate:g} | {scale:g} | {alpha:g} | "
              f"{result.target:.12g} | {tolerance:g} | {result.limit:.12g} | "
              f"{result.largest_upper:.12g} | "
              f"{result.boxes} | {time.perf_counter() - start:.1f} | {verdict} |", flush=True)


def _verdict(confirmed: bool) -> str:
    return "confirmed" if confirmed else "EXCEEDED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--part", choices=["all", "gaussian", "laplace", "certified"],
                        default="all")
    arguments = parser.parse_args()
    if arguments.part in ("all", "gaussian"):
        gaussian(arguments.starts)
    if arguments.part in ("all", "laplace"):
        laplace(arguments.starts)
    if arguments.part in ("all", "certified"):
        certified()


if __name__ == "__main__":
    main()
