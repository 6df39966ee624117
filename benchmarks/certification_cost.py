"""The cost of certification per point: the fast path against certified mode (issue 14 item 1).

Prints one table: for a few Poisson settings (Gaussian, Laplace, randomized response; single
users and groups), the time per point of ``rdp`` (orders α) and ``adp`` (ε) with the tight method,
fast and ``certified=True``, their ratio, and the certified enclosure's largest relative width
(what the error column reports in certified mode). A "point" is one order or one ε of one
setting (every dominating pair of every case). Times are the best of ``--repeats`` runs after
one warm-up. Run: ``python benchmarks/certification_cost.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import time

from otbound.numerics.mechanisms import gaussian, laplace, randomized_response
from otbound.numerics.one_step import adp, rdp
from otbound.numerics.settings import Subsampling

SETTINGS = [
    ("gaussian σ=1, r=0.01, K=1", Subsampling("poisson", rate=0.01), gaussian(1.0)),
    ("gaussian σ=0.3, r=1e-3, K=16", Subsampling("poisson", rate=1e-3, group=16), gaussian(0.3)),
    ("laplace b=1, r=1e-3, K=4", Subsampling("poisson", rate=1e-3, group=4), laplace(1.0)),
    ("rand. response θ=0.8, r=0.05, K=3", Subsampling("poisson", rate=0.05, group=3),
     randomized_response(0.8)),
]
ORDERS = [2.0, 32.0, 1e4]
EPSILONS = [0.5, 2.0]


def best_time(evaluate, setting, mechanism, points, certified: bool, repeats: int) -> float:
    """Seconds per point, the best of ``repeats`` runs after one warm-up."""
    evaluate(setting, mechanism, "tight", points, certified=certified)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        evaluate(setting, mechanism, "tight", points, certified=certified)
        times.append(time.perf_counter() - start)
    return min(times) / len(points)


def width(evaluate, setting, mechanism, points) -> float:
    """The largest relative width of the certified enclosures."""
    bounds = evaluate(setting, mechanism, "tight", points, certified=True)
    return max((b.error / b.value if b.value > 0 else 0.0) for b in bounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    repeats = parser.parse_args().repeats
    print(f"{'setting':<36} {'points':<16} {'fast ms/pt':>10} {'cert. ms/pt':>11} "
          f"{'ratio':>7} {'rel. width':>10}")
    for name, setting, mechanism in SETTINGS:
        for label, evaluate, points in (("rdp α=" + ",".join(f"{a:g}" for a in ORDERS), rdp,
                                         ORDERS),
                                        ("adp ε=" + ",".join(f"{e:g}" for e in EPSILONS), adp,
                                         EPSILONS)):
            fast = best_time(evaluate, setting, mechanism, points, False, repeats)
            certified = best_time(evaluate, setting, mechanism, points, True, repeats)
            print(f"{name:<36} {label:<16} {1e3 * fast:>10.2f} {1e3 * certified:>11.1f} "
                  f"{certified / fast:>7.0f} {width(evaluate, setting, mechanism, points):>10.1e}")


if __name__ == "__main__":
    main()
