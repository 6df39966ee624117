"""Sampling without replacement under substitution, Laplace noise: numerical evidence on the
three-point problem of 001 Thm. 3.6 (issue 14 item 4). Not a solver, nothing certified.

001 Thm. 3.6 bounds ``Ψ_α(m_x ‖ m_x')`` by the maximum of
``Ψ_α((1 − w) b(y₁) + w b(y₂) ‖ (1 − w) b(y₁) + w b(y₄))``, ``w = q/N``, over
``d(y₁, y₂), d(y₁, y₄), d(y₂, y₄) ≤ 1``. For otbound's Laplace mechanism (``f(y) + Laplace(b)^d``,
ℓ1 sensitivity 1) the means are ``0, u, v ∈ ℝ^d`` with ``‖u‖₁, ‖v‖₁, ‖u − v‖₁ ≤ 1``.

**Evaluation.** ``Ψ − 1 = ∫ Q φ(P/Q)``, ``φ(r) = r^α − 1 − α(r − 1) ≥ 0`` (``∫P = ∫Q = 1``), with
``P/Q − 1 = w (b(u) − b(v))/Q`` computed directly (no cancellation). The integrand is homogeneous
of degree 1 in the three component densities, and each density factorises over coordinates. In a
coordinate beyond its outermost breakpoint (the means' coordinates) every factor is
``∝ e^{∓x/b}``, so the tail ``∫_M^∞`` equals ``b`` times the integrand at ``x = M`` (exact): each
coordinate's rule is two tail nodes of weight ``b`` at the outer breakpoints plus composite
Gauss–Legendre between consecutive breakpoints (where the integrand is analytic, its
singularities at distance ``πb/2`` from the real axis). The d-dimensional integral is the tensor
product of these rules (exact tails, no truncation). ``--verify`` compares it with scipy's
adaptive ``quad`` / ``nquad`` on the plain integrand ``P^α Q^{1−α}`` over ℝ, ℝ², and with
otbound's relaxed value at its worst case ``u = 1, v = −1``.

**Search.** Feasible means are parametrised by ``z ∈ ℝ^{2d} ↦ z / max(1, ‖z_u‖₁, ‖z_v‖₁,
‖z_u − z_v‖₁)`` (onto the convex feasible set) and maximised by Nelder–Mead. 1-D: a grid over
``a ∈ [0, 1]`` (``a < 0`` is the mirror image), ``c ∈ [a − 1, 1]``, step 1/40, then Nelder–Mead
from the 3 best grid points. 2-D: Nelder–Mead from the two ℓ1 "equilateral" triangles, the best
1-D configuration and 3 random points. 3-D: from the best 2-D configuration (perturbed), two
3-D triangles and 1 random point, with a coarser rule during the search. Every reported value
is re-evaluated with the fine rule. Grids and starts are reduced to run in about 3 minutes on
2 cores; the search is local, so "best found" is a lower bound on the maximum, not the maximum.

``relaxed``: otbound's ``--derivation wor-group-substitution --param K=1`` (the y₂–y₄ constraint
loosened to 2, solved by the Laplace solver of 003 Thm. 3.7's pattern); ``agnostic``: otbound's
``--method agnostic``. ``q = 10, 100`` and ``N = 1000`` give ``w = 0.01, 0.1``.

``--monotone``: signs of ``∂Ψ/∂a``, ``∂Ψ/∂c`` on a 1-D grid, and whether merging two coordinates
with equally ordered triples ``(0, u_k, v_k)`` (which keeps the three ℓ1 distances) increases Ψ.

    python benchmarks/wor_substitution_laplace.py [--verify] [--monotone]
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

Config = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Rule:
    """Composite Gauss–Legendre: ``nodes`` per sub-interval; a sub-interval spans at most
    ``1/per_unit`` and at most ``steps`` units of the log-integrand's slope ``(2α − 1)/b``."""

    nodes: int
    per_unit: float
    steps: float


FINE = Rule(16, 3.0, 5.0)
COARSE = Rule(8, 2.0, 8.0)
"""Against scipy's adaptive quad (``--verify``) both agree to ~1e-12 relative or better."""


def _legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    x, weights = np.polynomial.legendre.leggauss(n)
    return (x + 1) / 2, weights / 2


def axis_rule(points: list[float], scale: float, alpha: int, rule: Rule
              ) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights on ℝ for one coordinate with breakpoints ``points``."""
    breaks = np.unique(np.round(np.asarray(points, dtype=float), 15))
    unit, weight = _legendre(rule.nodes)
    density = max(rule.per_unit, (2 * alpha - 1) / (scale * rule.steps))
    xs, ws = [breaks[:1], breaks[-1:]], [np.array([scale]), np.array([scale])]
    for low, high in zip(breaks[:-1], breaks[1:]):
        pieces = max(1, math.ceil((high - low) * density))
        edges = np.linspace(low, high, pieces + 1)
        step = np.diff(edges)
        xs.append((edges[:-1, None] + step[:, None] * unit[None, :]).ravel())
        ws.append((step[:, None] * weight[None, :]).ravel())
    return np.concatenate(xs), np.concatenate(ws)


def _density(x: np.ndarray, mean: float, scale: float) -> np.ndarray:
    return np.exp(-np.abs(x - mean) / scale) / (2 * scale)


def psi_minus_one(u: np.ndarray, v: np.ndarray, w: float, scale: float, alpha: int,
                  rule: Rule = FINE) -> float:
    """``Ψ_α((1 − w) b(0) + w b(u) ‖ (1 − w) b(0) + w b(v)) − 1`` for Laplace(scale)^d."""
    u, v = np.atleast_1d(np.asarray(u, float)), np.atleast_1d(np.asarray(v, float))
    base = left = right = weights = np.ones(())
    for k in range(u.size):
        x, omega = axis_rule([0.0, u[k], v[k]], scale, alpha, rule)
        grow = (slice(None),) + (None,) * k      # new axis first: outer products
        base = _density(x, 0.0, scale)[grow] * base[None]
        left = _density(x, u[k], scale)[grow] * left[None]
        right = _density(x, v[k], scale)[grow] * right[None]
        weights = omega[grow] * weights[None]
    q = (1 - w) * base + w * right
    delta = w * (left - right) / q
    phi = np.expm1(alpha * np.log1p(delta)) - alpha * delta
    return float(np.sum(weights * q * phi))


def epsilon(excess: float, alpha: int) -> float:
    return math.log1p(excess) / (alpha - 1)


# --- search ---------------------------------------------------------------------------------

def feasible(z: np.ndarray) -> Config:
    """The point ``z / max(1, ‖u‖₁, ‖v‖₁, ‖u − v‖₁)`` of the feasible set."""
    d = z.size // 2
    u, v = z[:d], z[d:]
    s = max(1.0, np.abs(u).sum(), np.abs(v).sum(), np.abs(u - v).sum())
    return u / s, v / s


def local_max(start: np.ndarray, w: float, scale: float, alpha: int, rule: Rule,
              evaluations: int) -> tuple[float, Config]:
    """Nelder–Mead on ``log(Ψ − 1)`` through :func:`feasible`; the best feasible config."""
    def loss(z: np.ndarray) -> float:
        value = psi_minus_one(*feasible(z), w, scale, alpha, rule)
        return -math.log(value) if value > 0 else 1e3

    found = minimize(loss, start, method="Nelder-Mead",
                     options={"maxfev": evaluations, "xatol": 1e-5, "fatol": 1e-12,
                              "initial_simplex": start + 0.05 * np.vstack(
                                  [np.zeros(start.size), np.eye(start.size)])})
    u, v = feasible(found.x)
    return psi_minus_one(u, v, w, scale, alpha, FINE), (u, v)


def grid_1d(w: float, scale: float, alpha: int, step: float = 1 / 40
            ) -> list[tuple[float, Config]]:
    """``Ψ − 1`` on the grid ``a ∈ [0, 1]``, ``c ∈ [a − 1, 1]`` (coarse rule), best first."""
    values = []
    for a in np.arange(0, 1 + step / 2, step):
        for c in np.arange(a - 1, 1 + step / 2, step):
            u, v = np.array([a]), np.array([min(c, 1.0)])
            values.append((psi_minus_one(u, v, w, scale, alpha, COARSE), (u, v)))
    return sorted(values, key=lambda item: -item[0])


def best_1d(w: float, scale: float, alpha: int) -> tuple[float, Config]:
    grid = grid_1d(w, scale, alpha)
    found = [local_max(np.concatenate(config), w, scale, alpha, COARSE, 200)
             for _, config in grid[:3]]
    found.append((psi_minus_one(*grid[0][1], w, scale, alpha, FINE), grid[0][1]))
    return max(found, key=lambda item: item[0])


REMOVAL = (np.array([1.0]), np.array([0.0]))
"""``y₄ = y₁``: the right mixture is the base distribution (the 1-D maximiser found)."""
EQUILATERAL = (np.array([0.5, 0.5]), np.array([0.5, -0.5]))
"""All three ℓ1 distances 1 (impossible in 1-D)."""


def starts(d: int, one_d: Config, previous: Config | None, rng: np.random.Generator,
           randoms: int) -> list[np.ndarray]:
    """Starting points in ℝ^{2d}: symmetric ℓ1 triangles, lower-dimensional optima, random."""
    pad = np.zeros(d - 1)
    points = [np.concatenate([one_d[0], pad, one_d[1], pad])]
    if d == 2:
        points += [np.array([0.5, 0.5, 0.5, -0.5]), np.array([1.0, 0.0, 0.5, 0.5]),
                   np.array([0.5, 0.5, 1.0, 0.0])]
    if d == 3:
        points += [np.array([0.5, 0.5, 0, 0.5, 0, 0.5]),
                   np.array([1 / 3, 1 / 3, 1 / 3, 1 / 3, -1 / 3, 1 / 3])]
    if previous is not None:
        u, v = previous
        points += [np.concatenate([u, [0.0], v, [0.0]]),
                   np.concatenate([u, [0.05], v, [-0.05]])]
    points += [rng.uniform(-1, 1, 2 * d) for _ in range(randoms)]
    return points


def best_nd(d: int, w: float, scale: float, alpha: int, one_d: Config,
            previous: Config | None, rng: np.random.Generator) -> tuple[float, Config]:
    """The best of Nelder–Mead runs from :func:`starts` (local: a lower bound on the max)."""
    randoms, evaluations = (5, 400) if d == 2 else (2, 500)
    found = [local_max(z, w, scale, alpha, COARSE, evaluations)
             for z in starts(d, one_d, previous, rng, randoms)]
    return max(found, key=lambda item: item[0])


# --- otbound --------------------------------------------------------------------------------

def otbound_values(q: int, n: int, scale: float, alphas: list[int]
                   ) -> tuple[list[float], list[float]]:
    """otbound's relaxed (derivation, tight solver of the loosened pattern) and agnostic ε."""
    from otbound.engine.bundled import load_derivation
    from otbound.numerics.derived import DerivedSetting, derive_bound
    from otbound.numerics.mechanisms import laplace
    from otbound.numerics.one_step import rdp
    from otbound.numerics.settings import Subsampling

    derived = DerivedSetting(derive_bound(load_derivation("wor-group-substitution").at({"K": 1})),
                             {"q": q, "N": n})
    relaxed = [b.value for b in rdp(derived, laplace(scale), "tight", alphas)]
    setting = Subsampling("wor", batch_size=q, dataset_size=n, substitutions=1)
    agnostic = [b.value for b in rdp(setting, laplace(scale), "agnostic", alphas)]
    return relaxed, agnostic


# --- checks ---------------------------------------------------------------------------------

def _log_mixture(x: np.ndarray, w: float, scale: float, means: list[np.ndarray]) -> np.ndarray:
    """``log((1 − w) b(0) + w b(m))`` at points ``x`` (last axis: coordinates)."""
    def log_b(m: np.ndarray) -> np.ndarray:
        return -np.abs(x - m).sum(axis=-1) / scale - x.shape[-1] * math.log(2 * scale)
    return np.logaddexp(math.log1p(-w) + log_b(np.zeros_like(means[0])), math.log(w)
                        + log_b(means[0]))


def reference(u: np.ndarray, v: np.ndarray, w: float, scale: float, alpha: int) -> float:
    """``Ψ − 1`` by scipy's adaptive quad (1-D) / nquad (2-D) on ``P^α Q^{1−α}`` directly,
    split at the breakpoints (an independent method)."""
    from scipy.integrate import nquad, quad

    def integrand(*x: float) -> float:
        point = np.array(x)
        return math.exp(alpha * _log_mixture(point, w, scale, [u])
                        + (1 - alpha) * _log_mixture(point, w, scale, [v]))

    def pieces(k: int) -> list[tuple[float, float]]:
        cuts = sorted({0.0, float(u[k]), float(v[k])})
        return ([(-math.inf, cuts[0])] + [(lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:])]
                + [(cuts[-1], math.inf)])

    options = {"epsabs": 0.0, "epsrel": 1e-12, "limit": 200}
    total = 0.0
    if u.size == 1:
        for lo, hi in pieces(0):
            total += quad(integrand, lo, hi, **options)[0]
    else:
        for box_x in pieces(0):
            for box_y in pieces(1):
                total += nquad(integrand, [box_x, box_y],
                               opts={"epsabs": 0.0, "epsrel": 1e-10, "limit": 100})[0]
    return total - 1


def verify() -> None:
    cases = [(np.array([1.0]), np.array([0.0]), 0.1, 0.5, 32),
             (np.array([0.5]), np.array([-0.5]), 0.01, 2.0, 8),
             (np.array([0.5, 0.5]), np.array([0.5, -0.5]), 0.1, 1.0, 8),
             (np.array([0.7, 0.2]), np.array([0.1, -0.6]), 0.01, 0.5, 2)]
    print("| config | w | b | α | Ψ − 1 (tensor rule) | Ψ − 1 (scipy quad) | rel. diff |")
    print("|---|---|---|---|---|---|---|")
    for u, v, w, scale, alpha in cases:
        ours, theirs = psi_minus_one(u, v, w, scale, alpha), reference(u, v, w, scale, alpha)
        print(f"| {show(u, v)} | {w:g} | {scale:g} | {alpha} | {ours:.12e} | {theirs:.12e} | "
              f"{abs(ours / theirs - 1):.1e} |", flush=True)
    print("\notbound's relaxed ε against this evaluator at the relaxed worst case u = 1, v = −1")
    print("| w | b | α | relaxed (otbound) | u=1 v=−1 (here) | rel. diff |")
    print("|---|---|---|---|---|---|")
    for q, scale, alpha in ((10, 0.5, 2), (10, 2.0, 32), (100, 1.0, 8)):
        relaxed = otbound_values(q, 1000, scale, [alpha])[0][0]
        ours = epsilon(psi_minus_one(np.array([1.0]), np.array([-1.0]), q / 1000, scale, alpha),
                       alpha)
        print(f"| {q / 1000:g} | {scale:g} | {alpha} | {relaxed:.12g} | {ours:.12g} | "
              f"{abs(ours / relaxed - 1):.1e} |")


def monotone(step: float = 0.02) -> None:
    """Signs of ``∂Ψ/∂a`` and ``∂Ψ/∂c`` (central differences, fine rule) on a grid of the 1-D
    feasible set ``a ∈ (0, 1)``, ``c ∈ (a − 1, 1)``, per region c < 0, 0 < c < a, c > a."""
    h = 1e-5
    print("| w | b | α | region | points | ∂a > 0 | ∂c > 0 | ∂c < 0 |")
    print("|---|---|---|---|---|---|---|---|")
    for w in (0.01, 0.1):
        for scale in (0.5, 2.0):
            for alpha in (2, 32):
                counts: dict[str, list[int]] = {}
                for a in np.arange(step, 1 - step / 2, step):
                    for c in np.arange(a - 1 + step, 1 - step / 2, step):
                        if min(abs(c), abs(c - a)) < step / 2:
                            continue
                        def f(x: float, y: float) -> float:
                            return psi_minus_one(np.array([x]), np.array([y]), w, scale, alpha)
                        da = f(a + h, c) - f(a - h, c)
                        dc = f(a, c + h) - f(a, c - h)
                        region = "c<0" if c < 0 else ("0<c<a" if c < a else "c>a")
                        count = counts.setdefault(region, [0, 0, 0, 0])
                        count[0] += 1
                        count[1] += da > 0
                        count[2] += dc > 0
                        count[3] += dc < 0
                for region, (total, up_a, up_c, down_c) in counts.items():
                    print(f"| {w:g} | {scale:g} | {alpha} | {region} | {total} | {up_a} | "
                          f"{up_c} | {down_c} |", flush=True)


def merge(samples: int = 100) -> None:
    """Merging two coordinates whose triples ``(0, u_k, v_k)`` have the same order (same signs of
    ``u_k``, ``v_k``, ``u_k − v_k``) into one keeps all three ℓ1 distances. Does it increase Ψ?
    Random same-order pairs, scaled into the feasible set; counts of Ψ(merged) ≥ Ψ(split)."""
    rng = np.random.default_rng(1)
    print("| w | b | α | pairs | merged ≥ split | smallest Ψ(merged)/Ψ(split) − 1 |")
    print("|---|---|---|---|---|---|")
    for w in (0.01, 0.1):
        for scale in (0.5, 2.0):
            for alpha in (2, 32):
                wins, worst = 0, math.inf
                for _ in range(samples):
                    first = rng.uniform(-1, 1, 2)
                    while True:
                        second = rng.uniform(-1, 1, 2)
                        signs = [np.sign([x[0], x[1], x[0] - x[1]]) for x in (first, second)]
                        if np.all(signs[0] == signs[1]):
                            break
                    u, v = np.array([first[0], second[0]]), np.array([first[1], second[1]])
                    s = max(1.0, np.abs(u).sum(), np.abs(v).sum(), np.abs(u - v).sum())
                    u, v = u / s, v / s
                    split = psi_minus_one(u, v, w, scale, alpha)
                    merged = psi_minus_one(u[:1] + u[1:], v[:1] + v[1:], w, scale, alpha)
                    wins += merged >= split
                    worst = min(worst, (1 + merged) / (1 + split) - 1)
                print(f"| {w:g} | {scale:g} | {alpha} | {samples} | {wins} | {worst:.2e} |",
                      flush=True)


# --- table ----------------------------------------------------------------------------------

def show(u: np.ndarray, v: np.ndarray) -> str:
    def vec(x: np.ndarray) -> str:
        text = ",".join(f"{t:.3f}".rstrip("0").rstrip(".") if abs(t) >= 5e-4 else "0"
                        for t in x)
        return f"({text})" if x.size > 1 else text
    return f"u={vec(u)} v={vec(v)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verify", action="store_true", help="compare with scipy quad")
    parser.add_argument("--monotone", action="store_true",
                        help="1-D derivative signs and the coordinate-merging test")
    args = parser.parse_args()
    if args.verify:
        return verify()
    if args.monotone:
        monotone()
        print()
        return merge()
    start = time.perf_counter()
    alphas = [2, 8, 32]
    rng = np.random.default_rng(0)
    columns = ("w", "b", "α", "1-D max", "1-D argmax", "2-D best", "2-D argmax", "3-D best",
               "3-D argmax", "removal", "equilateral", "relaxed", "agnostic", "best/1-D",
               "relaxed/best")
    print("ε(α) = log Ψ/(α − 1) of one step, Laplace(b) noise, ℓ1 sensitivity 1; "
          "u = y₂ − y₁, v = y₄ − y₁")
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    excess = 0.0
    for q, n in ((10, 1000), (100, 1000)):
        w = q / n
        for scale in (0.5, 1.0, 2.0):
            relaxed, agnostic = otbound_values(q, n, scale, alphas)
            for i, alpha in enumerate(alphas):
                one, one_at = best_1d(w, scale, alpha)
                two, two_at = best_nd(2, w, scale, alpha, one_at, None, rng)
                three, three_at = best_nd(3, w, scale, alpha, one_at, two_at, rng)
                named = [psi_minus_one(*c, w, scale, alpha) for c in (REMOVAL, EQUILATERAL)]
                excess = max(excess, (max(one, two, three) - max(named)) / max(named))
                eps = [epsilon(x, alpha) for x in (one, two, three, *named)]
                best = max(eps)
                cells = [f"{w:g}", f"{scale:g}", str(alpha)]
                for value, at in zip(eps, (one_at, two_at, three_at)):
                    cells += [f"{value:.6g}", show(*at)]
                cells += [f"{eps[3]:.6g}", f"{eps[4]:.6g}"]
                cells += [f"{relaxed[i]:.6g}", f"{agnostic[i]:.6g}", f"{best / eps[0]:.4f}",
                          f"{relaxed[i] / best:.3f}"]
                print("| " + " | ".join(cells) + " |", flush=True)
    print(f"\nlargest relative excess of Ψ − 1, best found over max(removal, equilateral): "
          f"{excess:.1e}")
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
