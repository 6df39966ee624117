"""Sampling with replacement under substitution: otbound's derived bound (``wr-substitution``)
against Balle, Barthe & Gaboardi 2018's mechanism-agnostic bound for the same setting.

Balle et al. (their sampling-with-replacement theorem; 003 Sec. 3.2 describes the same ansatz):
with ``q`` draws from ``N`` and ``p = 1 − (1 − 1/N)^q``, the subsampled mechanism is
``(ε', δ')``-DP with ``ε' = log(1 + p (e^ε − 1))`` and
``δ' = Σ_{k≥1} Binom(k | q, 1/N) δ_k(ε)``, where ``δ_k(ε)`` is the base mechanism's group
privacy profile (batches at distance ≤ k). For a target ``ε'`` the agnostic ``δ'`` uses
``ε = log(1 + (e^{ε'} − 1)/p)``. otbound's number is the derived bound through the Gaussian
solver of the relaxed pattern (sound, not tight; ``docs/with_replacement.md``); ``lower`` is the
largest δ of the realisable constructions ``f = s·|y ∩ {a}| − (1 − s)·|y ∩ {a'}|``, a lower bound
on the true δ, so the exact worst case lies in [lower, otbound].

    python benchmarks/with_replacement_vs_agnostic.py [--q 5] [--n 100] [--delta 1e-5]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from otbound.engine.bundled import load_derivation
from otbound.numerics.derived import DerivedSetting, derive_bound
from otbound.numerics.hockey_stick import hockey_stick_curve
from otbound.numerics.mechanisms import Mechanism, gaussian, laplace, randomized_response
from otbound.numerics.one_step import adp
from otbound.numerics.families import GAUSSIAN
from otbound.numerics.pairs import MixturePair

SIGMAS = (0.5, 1.0, 2.0, 4.0)
SHARES = tuple(np.linspace(0.0, 1.0, 11))


def binomial_logs(q: int, n: int) -> list[float]:
    """``log Binom(k | q, 1/N)`` for k = 0 … q."""
    return [math.log(math.comb(q, k)) - k * math.log(n) + (q - k) * math.log1p(-1 / n)
            for k in range(q + 1)]


def balle_delta(mechanism: Mechanism, q: int, n: int, epsilon: float) -> float:
    """The agnostic ``δ'(ε')`` of Balle et al. 2018 (sampling with replacement, substitution)."""
    p = -math.expm1(q * math.log1p(-1 / n))
    base = math.log1p(math.expm1(epsilon) / p)
    weights = np.exp(binomial_logs(q, n))
    return float(sum(weights[k] * mechanism.group_delta(k, [base]).upper[0]
                     for k in range(1, q + 1)))


def otbound_delta(setting: DerivedSetting, mechanism: Mechanism, epsilon: float) -> float:
    return adp(setting, mechanism, "tight", [epsilon])[0].value


def lower_delta(sigma: float, q: int, n: int, epsilon: float) -> float:
    """The largest δ over the constructions with share ``s`` (a realisable lower bound)."""
    logs = binomial_logs(q, n)
    steps = np.arange(q + 1, dtype=float)
    return max(hockey_stick_curve(MixturePair(GAUSSIAN, sigma, s * steps, logs,
                                              -(1 - s) * steps, logs), [epsilon])[0].value
               for s in SHARES)


def epsilon_at(delta_of, delta: float) -> float:
    """The smallest ε (to 1e-4 relative) with ``delta_of(ε) <= delta`` (δ decreases in ε)."""
    low, high = 0.0, 1.0
    while delta_of(high) > delta:
        low, high = high, 2 * high
    while high - low > 1e-4 * high:
        middle = (low + high) / 2
        low, high = (middle, high) if delta_of(middle) > delta else (low, middle)
    return high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--q", type=int, default=5)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--delta", type=float, default=1e-5)
    args = parser.parse_args()
    q, n = args.q, args.n
    setting = DerivedSetting(derive_bound(load_derivation("wr-substitution").at({"q": q})),
                             {"N": n})
    print(f"sampling with replacement, substitution: q = {q} draws from N = {n}, "
          f"Gaussian (sensitivity 1)")
    columns = ("sigma", "eps'", "delta lower", "delta otbound", "delta Balle", "Balle/otbound")
    print("  ".join(f"{c:>13}" for c in columns))
    for sigma in SIGMAS:
        mechanism = gaussian(sigma)
        for epsilon in (0.1, 0.5, 1.0):
            ours, theirs = (otbound_delta(setting, mechanism, epsilon),
                            balle_delta(mechanism, q, n, epsilon))
            cells = [f"{sigma:g}", f"{epsilon:g}", f"{lower_delta(sigma, q, n, epsilon):.3e}",
                     f"{ours:.3e}", f"{theirs:.3e}",
                     f"{theirs / ours:.3g}" if ours > 0 else "inf"]
            print("  ".join(f"{c:>13}" for c in cells))
    print(f"\nε at δ = {args.delta:g} (one step)")
    columns = ("mechanism", "eps otbound", "eps Balle", "Balle/otbound")
    print("  ".join(f"{c:>19}" for c in columns))
    mechanisms = [(f"gaussian σ={s:g}", gaussian(s)) for s in SIGMAS]
    mechanisms += [("laplace b=1", laplace(1.0)), ("rand. resp. θ=0.75", randomized_response(0.75))]
    for name, mechanism in mechanisms:
        ours = epsilon_at(lambda e: otbound_delta(setting, mechanism, e), args.delta)
        theirs = epsilon_at(lambda e: balle_delta(mechanism, q, n, e), args.delta)
        cells = [name, f"{ours:.4g}", f"{theirs:.4g}", f"{theirs / ours:.3g}"]
        print("  ".join(f"{c:>19}" for c in cells))


if __name__ == "__main__":
    main()
