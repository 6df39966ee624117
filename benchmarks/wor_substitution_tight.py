"""Sampling without replacement under substitution, Gaussian noise: ε(α) of one step by
otbound's certified three-point solver (``tight``), by the relaxed pattern (``relaxed``: the
y₂–y₄ constraint loosened to 2, collinear opposite means: what otbound printed before), by
otbound's ``agnostic`` method, and by Wang, Balle & Kasiviswanathan 2019 (Thm. 27) as
dp_accounting computes it
(``RdpAccountant(neighboring_relation=REPLACE_ONE)`` composing
``SampledWithoutReplacementDpEvent(N, q, GaussianDpEvent(σ))``), all measured in one run.

``tight low … high`` is the certified enclosure of the maximum of 001 Thm. 3.6's bound
(``docs/wor_substitution.md``); ``worst`` names the configuration attaining the lower end
(``equilateral``: all three distances 1; ``removal``: ``μ₄ = 0``; else the Gram parameters).

    python benchmarks/wor_substitution_tight.py [--q 10] [--n 1000] [--sigmas 1,2]
        [--alphas 2,3,4,8,16,32]
    python benchmarks/wor_substitution_tight.py --evidence   # the multi-start search grid
    python benchmarks/wor_substitution_tight.py --every-order [0.5,1,2,3,4]

``--evidence`` maximises over ``(a, b, θ)`` by multi-start L-BFGS-B (3 random starts and the two
candidates) on a grid of ``(w, σ, α)`` and prints which candidate is larger (E: equilateral,
R: removal) and the largest relative excess of the search over it (numerical evidence only).

``--every-order SIGMAS`` times ``certify_triangle`` at ``q/N = 256/60000`` for every integer order
2–256 (one core, after a first call that loads the imports) and prints, per σ, the slowest order
with its boxes and time, the orders over 0.5 s and the time of all 255 orders.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np

from otbound.numerics import three_point_balls as tp_balls
from otbound.numerics import three_point_certificate as tp_certificate
from otbound.numerics import three_point_formula as tp_formula
from otbound.numerics import three_point_search as tp_search
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.one_step import rdp
from otbound.numerics.settings import Subsampling


def wang_et_al(q: int, n: int, sigma: float, alphas: list[float]) -> np.ndarray:
    """dp_accounting's RDP curve of one step (Wang, Balle & Kasiviswanathan 2019, Thm. 27)."""
    import dp_accounting
    from dp_accounting.rdp import RdpAccountant

    relation = dp_accounting.NeighboringRelation.REPLACE_ONE
    accountant = RdpAccountant(orders=list(alphas), neighboring_relation=relation)
    accountant.compose(dp_accounting.SampledWithoutReplacementDpEvent(
        n, q, dp_accounting.GaussianDpEvent(sigma)))
    return np.asarray(accountant._rdp, dtype=float)   # the curve has no public getter


def relaxed(q: int, n: int, sigma: float, alphas: list[float]) -> list[float]:
    """The relaxed pattern (``d(y₂, y₄) ≤ 2``, what otbound printed before the three-point
    solver): its worst case, the collinear-opposite means, in ball arithmetic (upper end)."""
    w = Fraction(q, n)
    return [tp_balls.triangle_log_psi_ball(tp_formula.OPPOSITE, w, int(a), sigma)[1] / (a - 1)
            for a in alphas]


def worst_name(triangle: tp_formula.Triangle) -> str:
    if triangle == tp_formula.EQUILATERAL:
        return "equilateral"
    if triangle == tp_formula.REMOVAL:
        return "removal"
    return f"a={triangle.a:.3f} b={triangle.b:.3f} rho={triangle.rho:.3f}"


def evidence() -> None:
    """The search grid: the larger candidate per ``(w, σ, α)`` and the search's excess."""
    alphas = (2, 3, 4, 8, 16, 32)
    print("| w | σ | " + " | ".join(f"α={a}" for a in alphas) + " |")
    print("|---|---|" + "---|" * len(alphas))
    excess = 0.0
    for w in (0.001, 0.01, 0.1, 0.5):
        for sigma in (0.5, 1.0, 2.0, 4.0):
            cells = []
            for alpha in alphas:
                found = tp_search.search_triangles(w, alpha, sigma, starts=3)
                best = max(found.equilateral, found.removal)
                excess = max(excess, (found.log_psi - best) / abs(best))
                cells.append("E" if found.equilateral >= found.removal else "R")
            print(f"| {w:g} | {sigma:g} | " + " | ".join(cells) + " |", flush=True)
    print(f"\nlargest relative excess of the search over the larger candidate: {excess:.2e}")


EVERY_ORDER_W = Fraction(256, 60000)
EVERY_ORDER = range(2, 257)
EVERY_ORDER_HEADER = "| σ | slowest order | its time | orders over 0.5 s | all 255 orders |"
"""The header of ``--every-order``'s table (docs/wor_substitution.md names it)."""


def every_order(sigmas: list[float]) -> None:
    """The cost of the certificate at every integer order 2–256, one row per σ."""
    # loads the imports (σ not in the table)
    tp_certificate.certify_triangle(EVERY_ORDER_W, 2, 0.8)
    print(EVERY_ORDER_HEADER)
    print("|---|---|---|---|---|")
    for sigma in sigmas:
        seconds, boxes = certificate_costs(sigma)
        slowest = max(seconds, key=seconds.get)
        shown = f"{slowest} ({boxes[slowest]} box{'es' if boxes[slowest] != 1 else ''})"
        print(f"| {sigma:g} | {shown} | {seconds[slowest]:.2f} s | {slow_orders(seconds, 0.5)} | "
              f"{sum(seconds.values()):.1f} s |", flush=True)


def certificate_costs(sigma: float) -> tuple[dict[int, float], dict[int, int]]:
    """Seconds and boxes of ``certify_triangle`` at :data:`EVERY_ORDER_W` per order."""
    seconds, boxes = {}, {}
    for order in EVERY_ORDER:
        start = time.perf_counter()
        boxes[order] = tp_certificate.certify_triangle(EVERY_ORDER_W, order, sigma).boxes
        seconds[order] = time.perf_counter() - start
    return seconds, boxes


def slow_orders(seconds: dict[int, float], limit: float) -> str:
    """The orders that took longer than ``limit``, as runs (``174–178``), with their times."""
    slow = sorted(order for order, taken in seconds.items() if taken > limit)
    if not slow:
        return "none"
    runs = [[slow[0], slow[0]]]
    for order in slow[1:]:
        if order == runs[-1][1] + 1:
            runs[-1][1] = order
        else:
            runs.append([order, order])
    shown = ", ".join(f"{low}" if low == high else f"{low}–{high}" for low, high in runs)
    if len(slow) == 1:
        return shown
    times = [seconds[order] for order in slow]
    return f"{shown} ({min(times):.2f}–{max(times):.2f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--q", type=int, default=10)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--sigmas", default="1,2")
    parser.add_argument("--alphas", default="2,3,4,8,16,32")
    parser.add_argument("--evidence", action="store_true")
    parser.add_argument("--every-order", nargs="?", const="0.5,1,2,3,4", metavar="SIGMAS",
                        help="time the certificate at q/N = 256/60000 at every order 2–256")
    args = parser.parse_args()
    if args.evidence:
        return evidence()
    if args.every_order:
        return every_order([float(s) for s in args.every_order.split(",")])
    alphas = [float(a) for a in args.alphas.split(",")]
    w = Fraction(args.q, args.n)
    columns = ("alpha", "tight low", "tight high", "relaxed", "agnostic", "WBK2019",
               "WBK/tight", "worst", "boxes", "seconds")
    for sigma in (float(s) for s in args.sigmas.split(",")):
        print(f"\nq = {args.q}, N = {args.n}, Gaussian σ = {sigma:g} (sensitivity 1), "
              "substitution, one step: ε(α)")
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        setting = Subsampling("wor", batch_size=args.q, dataset_size=args.n)
        agnostic = rdp(setting, gaussian(sigma), "agnostic", alphas)
        loose = relaxed(args.q, args.n, sigma, alphas)
        theirs = wang_et_al(args.q, args.n, sigma, alphas)
        for i, alpha in enumerate(alphas):
            start = time.perf_counter()
            certificate = tp_certificate.certify_triangle(w, int(alpha), sigma)
            seconds = time.perf_counter() - start
            low, high = certificate.epsilon
            cells = [f"{alpha:g}", f"{low:.6g}", f"{high:.6g}", f"{loose[i]:.6g}",
                     f"{agnostic[i].value:.6g}", f"{theirs[i]:.6g}", f"{theirs[i] / high:.3g}",
                     worst_name(certificate.witness), str(certificate.boxes), f"{seconds:.1f}"]
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
