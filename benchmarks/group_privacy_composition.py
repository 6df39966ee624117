"""The headline experiment of seed 003 Sec. 4 (Fig. 6, "composed group privacy").

Poisson-subsampled Gaussian, σ = 5, r = 10⁻³, groups of K ∈ {1, 2, 4, 8, 16} records that
independently join or leave (003 Thm. 3.8), δ = 10⁻⁶:

* **tight** — PLD accounting of the dominating pairs of every case ``(K₊, K₋)``, composed per case;
* **per-step** — 003's post-hoc baseline: the group privacy property ``(Kε, Σ_{k<K} e^{kε} δ)``
  (003 Prop. 2.6 in its tighter form, App. C.1.4) applied to the K = 1 profile of one step, the
  resulting profile turned into a PLD and composed;
* **composed** — the K = 1 PLD composed over T steps, then the group privacy property once (also
  valid: group privacy holds for any mechanism, including the composed one);
* **pair** — each step reduced to a single ``(Kε', Σ_{k<K} e^{kε'} δ_1(ε'))`` guarantee (003
  Sec. 1's description of post-hoc use) and composed exactly as a generic (ε, δ) mechanism; the
  best of 40 values of ε' is taken.

It prints ε after T ∈ {10, 100, 1000, 10000} steps and the number of steps each analysis allows at
a fixed ε ∈ {0.5, 1, 2} (003 uses 2; searched up to 10⁵ steps), and with ``--output`` draws them. Every number is
computed here.

    python benchmarks/group_privacy_composition.py [--output PATH.png]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

from otbound.accounting import pld
from otbound.accounting.steps import subsampled_step
from otbound.choices import Method
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.one_step import adp
from otbound.numerics.settings import Subsampling

SIGMA, RATE, DELTA = 5.0, 1e-3, 1e-6
GROUPS = (1, 2, 4, 8, 16)
STEPS = (10, 100, 1000, 10000)
MAX_STEPS = 100_000
ANALYSES = ("tight", "per-step", "composed", "pair")
FIXED_EPSILONS = (0.5, 1.0, 2.0)


def _step(group: int):
    return subsampled_step(Subsampling("poisson", rate=RATE, group=group), gaussian(SIGMA), 1)


def per_step_posthoc_pld(group: int, discretisation: float):
    """003's post-hoc baseline: the group privacy profile of one step,
    ``δ_K(ε) = Σ_{k<K} e^{kε/K} δ_1(ε/K)`` (both directions), as a PLD. For ε < 0 the profile of
    a relation closed under swapping is at most ``1 − e^ε + e^ε δ_K(−ε)``."""
    setting = Subsampling("poisson", rate=RATE, group=group)

    def profile(epsilons):
        magnitude = np.abs(epsilons)
        delta = np.array([b.value for b in adp(setting, gaussian(SIGMA), Method.POSTHOC,
                                                 magnitude)])
        return np.where(epsilons >= 0, delta, -np.expm1(epsilons) + np.exp(epsilons) * delta)

    high = group * max(pld.pair_loss_range(pair)[1]
                       for case in _step(1).cases for _, pairs in case for pair in pairs)
    return [pld.profile_pld(profile, -high, high, discretisation)]


def per_step_pairs(group: int) -> list[tuple[float, float]]:
    """The coarsest post-hoc baseline: each step is only known to be ``(Kε', Σ_{k<K} e^{kε'}
    δ_1(ε'))``-DP; one such pair per ε' on a grid (the best is taken afterwards)."""
    one = Subsampling("poisson", rate=RATE, group=1)
    inners = np.geomspace(1e-4, 0.2, 40)
    pairs = []
    for inner, bound in zip(inners, adp(one, gaussian(SIGMA), Method.TIGHT, inners)):
        delta = bound.value * sum(math.exp(k * inner) for k in range(group))
        if delta < 1:
            pairs.append((group * inner, delta))
    return pairs


def composed_pair_delta(epsilon0: float, delta0: float, steps: int, epsilon: float) -> float:
    """δ(ε) of ``steps`` compositions of a generic ``(ε0, δ0)``-DP mechanism, exactly (Kairouz et
    al. 2015): its privacy loss is +∞ with probability δ0, otherwise ±ε0 with odds ``e^ε0 : 1``."""
    ups = np.arange(steps + 1)
    loss = (2 * ups - steps) * epsilon0
    above = loss > epsilon
    pmf = stats.binom.pmf(ups[above], steps, 1 / (1 + math.exp(-epsilon0)))
    untouched = math.exp(steps * math.log1p(-delta0))
    excess = math.fsum(pmf * -np.expm1(epsilon - loss[above]))
    return min(1.0, -math.expm1(steps * math.log1p(-delta0)) + untouched * excess)


class Analysis:
    """δ(ε) after T steps for group size K: ``tight`` (003 Thm. 3.8 pairs, per case),
    ``per-step`` (group privacy applied to each step's profile, then composed), ``composed`` (the
    K = 1 PLD composed, then group privacy applied once) or ``pair`` (each step reduced to one
    (ε, δ) by group privacy, then composed; the best ε' is taken)."""

    def __init__(self, group: int, kind: str, discretisation: float):
        self.group, self.kind = group, kind
        if kind == "per-step":
            self.plds = per_step_posthoc_pld(group, discretisation)
        elif kind == "pair":
            self.pairs = per_step_pairs(group)
        else:
            self.plds = [pld.case_pld(case, discretisation)
                         for case in _step(group if kind == "tight" else 1).cases]
        self.last: tuple[int, list] = (0, [])

    def composed(self, steps: int):
        """The PLDs composed ``steps`` times (only the last result is kept: they are large)."""
        if self.last[0] != steps:
            self.last = (steps, [p.self_compose(steps) for p in self.plds])
        return self.last[1]

    def delta(self, steps: int, epsilon: float) -> float:
        if self.kind == "pair":
            return min(composed_pair_delta(e0, d0, steps, epsilon) for e0, d0 in self.pairs)
        plds = self.composed(steps)
        if self.kind != "composed":
            return pld.pld_delta(plds, epsilon)
        k = self.group
        factor = sum(math.exp(j * epsilon / k) for j in range(k))
        return min(1.0, factor * pld.pld_delta(plds, epsilon / k))

    def epsilon(self, steps: int, delta: float) -> float:
        if self.kind == "tight" or self.kind == "per-step":
            return pld.pld_epsilon(self.composed(steps), delta)
        low, high = 0.0, 1.0
        while self.delta(steps, high) > delta:
            if high > 1e3:
                return math.inf
            low, high = high, 2 * high
        while high - low > 1e-6 * high:
            middle = (low + high) / 2
            low, high = (middle, high) if self.delta(steps, middle) > delta else (low, middle)
        return high

    def steps_allowed(self, epsilon: float, delta: float) -> int | None:
        """The largest T ≤ MAX_STEPS with δ_T(ε) ≤ δ (δ_T grows with T); None above that."""
        if self.delta(1, epsilon) > delta:
            return 0
        low, high = 1, 2
        while self.delta(high, epsilon) <= delta:
            if high >= MAX_STEPS:
                return None
            low, high = high, min(2 * high, MAX_STEPS)
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if self.delta(middle, epsilon) <= delta else (low, middle)
        return low


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--discretisation", type=float, default=1e-4)
    parser.add_argument("--output", type=Path,
                        help="also draw the plot into this PNG (needs otbound[plots])")
    args = parser.parse_args()
    start = time.perf_counter()
    epsilons, allowed = {}, {}
    for k in GROUPS:
        for kind in ANALYSES:   # one at a time: composed PLDs take gigabytes
            analysis = Analysis(k, kind, args.discretisation)
            epsilons[(k, kind)] = [analysis.epsilon(t, DELTA) for t in STEPS]
            allowed[(k, kind)] = [analysis.steps_allowed(e, DELTA) for e in FIXED_EPSILONS]
            print(f"K = {k} {kind} done ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    print(f"Poisson-subsampled Gaussian, σ = {SIGMA:g}, r = {RATE:g}, δ = {DELTA:g}, "
          f"PLD discretisation {args.discretisation:g}")
    header = ([f"ε @ T={t}" for t in STEPS] + [f"T @ ε={e:g}" for e in FIXED_EPSILONS])
    print(f"{'K':>3} {'analysis':>9} " + " ".join(f"{h:>12}" for h in header))
    for k in GROUPS:
        for kind in ANALYSES:
            cells = [f"{e:>12.5f}" for e in epsilons[(k, kind)]]
            cells += [f"{'> ' + str(MAX_STEPS) if t is None else t:>12}"
                      for t in allowed[(k, kind)]]
            print(f"{k:>3} {kind:>9} " + " ".join(cells))
    print(f"({time.perf_counter() - start:.1f} s)")
    if args.output:
        plot(epsilons, allowed, args.output)


def plot(epsilons, allowed, output: Path) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[plots]'): no plot written")
        return
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    colours = plt.cm.viridis(np.linspace(0, 0.9, len(GROUPS)))
    styles = {"tight": "-o", "per-step": "--x", "composed": ":+", "pair": "-.s"}
    for colour, k in zip(colours, GROUPS):
        for kind in ANALYSES:
            left.plot(STEPS, epsilons[(k, kind)], styles[kind], color=colour, markersize=4,
                      label=f"K = {k}, {kind}")
    left.set(xscale="log", yscale="log", xlabel="steps T", ylabel=f"ε at δ = {DELTA:g}",
             title=f"σ = {SIGMA:g}, r = {RATE:g}")
    left.legend(fontsize=5.5, ncol=4)
    positions, width = np.arange(len(GROUPS)), 0.2
    fixed = FIXED_EPSILONS.index(2.0)
    for i, kind in enumerate(ANALYSES):
        counts = [allowed[(k, kind)][fixed] or MAX_STEPS for k in GROUPS]
        right.bar(positions + (i - 1.5) * width, counts, width, label=kind)
    right.set(xticks=positions, xticklabels=[str(k) for k in GROUPS], yscale="log",
              xlabel="group size K", ylabel=f"steps allowed at ε = 2, δ = {DELTA:g}")
    right.legend()
    figure.tight_layout()
    output.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(output, dpi=120)
    print(f"plot written to {output}")


if __name__ == "__main__":
    main()
