"""Is the collinear configuration the Gaussian worst case? A search off the line (issue 14).

For every pattern of 003 Thm. 3.7 with K₊ + K₋ ≤ 4 (r = 0.2, σ = 2, α ∈ {2, 4}), the divergence
is maximised over all configurations of the means in ℝ^(K₊+K₋) from random feasible starts
(``otbound.verify.configurations``) and compared with otbound's solver, which assumes collinear,
equidistant means (001 App. H, 003 Thm. 3.8). Prints a markdown table (docs/verification.md).
Run: ``python benchmarks/worst_case_configurations.py [--starts 3]`` (about five minutes).
"""

from __future__ import annotations

import argparse

from otbound.verify.configurations import Pattern, search

SHAPES = [(k_plus, k_minus) for total in range(1, 5) for k_plus in range(total + 1)
          for k_minus in (total - k_plus,)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=3)
    starts = parser.parse_args().starts
    print("| K₊ | K₋ | α | solver log Ψ_α | largest found | rule error | rule vs solver on the "
          "line | off-line spread of the best | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    for inserted, removed in SHAPES:
        for alpha in (2.0, 4.0):
            result = search(Pattern(inserted, removed, 0.2), 2.0, alpha, starts)
            verdict = "confirmed" if result.confirmed else "EXCEEDED"
            print(f"| {inserted} | {removed} | {alpha:g} | {result.solver:.12g} | "
                  f"{result.found:.12g} | {result.rule_error:.1e} | {result.line_gap:.1e} | "
                  f"{result.spread:.1e} | "
                  f"{verdict} |", flush=True)


if __name__ == "__main__":
    main()
