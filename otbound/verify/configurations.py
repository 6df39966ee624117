"""Evidence for the Gaussian worst case of 003 Thm. 3.7's pattern: configurations off the line.

otbound's tight Gaussian solver rests on a worst-case theorem (001 App. H, 003 Thm. 3.8): among
all means ``μ`` of the mixture components that respect the distance constraints, the divergence
is largest for collinear, equidistant means. Here the divergence is maximised over *every*
configuration of the means in ``ℝ^d`` (``d = K₊ + K₋``, the dimension of their span, so nothing
is lost by a smaller ``d``) by multi-start local optimisation, and compared with the solver.

The divergence of a configuration is integrated by a tensor Gauss–Hermite rule around the
centroid of the means; its accuracy is measured, not assumed: the same rule integrates the
collinear configuration, whose value the solver knows to 1e-12, and the difference is reported
as the rule's error.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from otbound.numerics.mechanisms import gaussian
from otbound.numerics.methods import rdp
from otbound.numerics.settings import Subsampling


@dataclass(frozen=True)
class Pattern:
    """003 Thm. 3.7's problem for ``K₊`` insertions and ``K₋`` removals: left weights
    ``Binom(i | K₋, r)``, right weights ``Binom(j | K₊, r)`` and the distance bounds between
    the components (left ``i`` and right ``j`` share a point when ``i = j = 0``)."""

    inserted: int
    removed: int
    rate: float

    @property
    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        return _binomial(self.removed, self.rate), _binomial(self.inserted, self.rate)

    def bounds(self) -> np.ndarray:
        """Distance bounds between the points ``0`` (shared), ``L1 … LK₋``, ``R1 … RK₊``."""
        positions = [(0, 0)] + [(-1, i) for i in range(1, self.removed + 1)] \
            + [(1, j) for j in range(1, self.inserted + 1)]
        size = len(positions)
        bound = np.zeros((size, size))
        for (a, (side_a, i)), (b, (side_b, j)) in itertools.combinations(enumerate(positions), 2):
            bound[a, b] = bound[b, a] = abs(i - j) if side_a == side_b or 0 in (i, j) else i + j
        return bound

    def solver_log_psi(self, sigma: float, alpha: float) -> float:
        setting = Subsampling("poisson", rate=self.rate, insertions=self.inserted,
                              removals=self.removed)
        (bound,) = rdp(setting, gaussian(sigma), "tight", [alpha])
        return (alpha - 1) * bound.value

    def collinear(self) -> np.ndarray:
        """The solver's worst case: removed points on one side of the shared one, inserted
        points on the other, at unit spacing."""
        line = [0.0] + [-float(i) for i in range(1, self.removed + 1)] \
            + [float(j) for j in range(1, self.inserted + 1)]
        points = np.zeros((len(line), self.dimension))
        points[:, 0] = line
        return points

    @property
    def dimension(self) -> int:
        return self.inserted + self.removed


def _binomial(count: int, rate: float) -> np.ndarray:
    return np.array([math.comb(count, i) * rate ** i * (1 - rate) ** (count - i)
                     for i in range(count + 1)])


class Divergence:
    """``log Ψ_α(P ‖ Q)`` of a configuration of means (in units of the sensitivity), by a tensor
    Gauss–Hermite rule with ``nodes`` points per axis: ``Ψ_α = E_Z[p^α q^{1−α} / h]`` for ``Z``
    with density ``h = N(centroid, (SPREAD·σ)² I)``."""

    SPREAD = 1.3
    """Width of the rule relative to the components' (it must cover the integrand's tails)."""

    def __init__(self, pattern: Pattern, sigma: float, alpha: float, nodes: int) -> None:
        self.pattern, self.sigma, self.alpha = pattern, sigma, alpha
        left, right = pattern.weights
        self.log_left, self.log_right = np.log(left), np.log(right)
        x, w = special.roots_hermitenorm(nodes)
        d = pattern.dimension
        self.unit = np.array(list(itertools.product(x, repeat=d)))
        log_w = np.log(w / math.sqrt(2 * math.pi))
        self.log_weights = np.array([log_w[list(k)].sum()
                                     for k in itertools.product(range(nodes), repeat=d)])
        removed = pattern.removed
        self.left = np.arange(removed + 1)
        self.right = np.concatenate([[0], np.arange(removed + 1, d + 1)])

    def __call__(self, points: np.ndarray) -> float:
        d, spread = self.pattern.dimension, self.SPREAD
        means = np.asarray(points, dtype=float).reshape(d + 1, d) / self.sigma
        z = means.mean(axis=0) + spread * self.unit
        log_phi = -((z[:, None, :] - means[None, :, :]) ** 2).sum(axis=2) / 2
        log_p = special.logsumexp(log_phi[:, self.left] + self.log_left, axis=1)
        log_q = special.logsumexp(log_phi[:, self.right] + self.log_right, axis=1)
        # log f − log h: the (2π)^{−d/2} of f against that of h, and h's own Gaussian factor
        log_ratio = (self.alpha * log_p + (1 - self.alpha) * log_q
                     + d * math.log(spread) + (self.unit ** 2).sum(axis=1) / 2)
        return float(special.logsumexp(log_ratio + self.log_weights))


@dataclass(frozen=True)
class SearchResult:
    """The largest divergence found off the line, against the solver's value."""

    pattern: Pattern
    sigma: float
    alpha: float
    solver: float
    """The solver's ``log Ψ_α`` (collinear, equidistant means)."""
    found: float
    """The largest ``log Ψ_α`` the local searches reached (by the rule)."""
    rule_error: float
    """The rule's error, estimated by refining it (``REFINEMENT`` more points per axis) at the
    best configuration and on the line."""
    line_gap: float
    """``|rule − solver|`` on the line: how well the rule and the solver agree where the
    solver's worst case lies (independent of the search)."""
    spread: float
    """How far the best configuration is from a line: its second singular value over its
    first (0 for collinear means)."""
    starts: int

    @property
    def excess(self) -> float:
        """How much the search exceeded the solver, beyond the rule's error."""
        return self.found - self.solver - self.rule_error

    @property
    def confirmed(self) -> bool:
        """No configuration beat the solver by more than the rule's estimated error plus
        :data:`RULE_VARIATION` relative."""
        return self.excess <= RULE_VARIATION * abs(self.solver)


RULE_VARIATION = 1e-9
"""Relative slack of a verdict beyond the rule's estimated error (its estimate is itself a
difference of two rules)."""


NODES = {1: 60, 2: 40, 3: 20, 4: 13}
"""Gauss–Hermite points per axis by dimension (the rule's error is measured on each run)."""
REFINEMENT = 4


def search(pattern: Pattern, sigma: float, alpha: float, starts: int,
           seed: int = 0) -> SearchResult:
    """Multi-start local maximisation (SLSQP) of the divergence over every configuration of the
    means that meets the distance bounds, from random feasible starts."""
    nodes = NODES[pattern.dimension]
    divergence = Divergence(pattern, sigma, alpha, nodes)
    solver = pattern.solver_log_psi(sigma, alpha)
    rng = np.random.default_rng(seed)
    d, bound = pattern.dimension, pattern.bounds()
    pairs = list(itertools.combinations(range(d + 1), 2))

    def points(free: np.ndarray) -> np.ndarray:
        return np.vstack([np.zeros(d), free.reshape(d, d)])

    def slack(free: np.ndarray) -> np.ndarray:
        p = points(free)
        return np.array([bound[a, b] ** 2 - ((p[a] - p[b]) ** 2).sum() for a, b in pairs])

    best, best_points = -math.inf, pattern.collinear()
    for _ in range(starts):
        initial = _random_chains(pattern, rng)[1:].ravel()
        result = optimize.minimize(lambda free: -divergence(points(free)), initial,
                                   method="SLSQP", constraints={"type": "ineq", "fun": slack},
                                   options={"maxiter": 200, "ftol": 1e-12})
        reached = _feasible(points(result.x), bound)
        value = divergence(reached)
        if value > best:
            best, best_points = value, reached
    singular = np.linalg.svd(best_points - best_points.mean(axis=0), compute_uv=False)
    spread = float(singular[1] / singular[0]) if d > 1 and singular[0] > 0 else 0.0
    finer = Divergence(pattern, sigma, alpha, nodes + REFINEMENT)
    found = finer(best_points)
    rule_error = max(abs(found - best), abs(finer(pattern.collinear())
                                            - divergence(pattern.collinear())))
    return SearchResult(pattern, sigma, alpha, solver, found, rule_error,
                        abs(finer(pattern.collinear()) - solver), spread, starts)


def _feasible(points: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """The configuration shrunk towards the shared point until every bound holds exactly (the
    optimiser may overstep a bound by its tolerance; shrinking only shortens distances)."""
    distance = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    ratios = np.divide(distance, bound, out=np.zeros_like(distance), where=bound > 0)
    return points / max(1.0, float(ratios.max()))


def _random_chains(pattern: Pattern, rng: np.random.Generator) -> np.ndarray:
    """A random feasible configuration: from the shared point, each side a chain of steps of
    length at most 1 in random directions (the triangle inequality then meets every bound)."""
    d = pattern.dimension
    rows = [np.zeros(d)]
    for count in (pattern.removed, pattern.inserted):
        position = np.zeros(d)
        for _ in range(count):
            step = rng.normal(size=d)
            position = position + step / np.linalg.norm(step) * rng.uniform(0.6, 1.0)
            rows.append(position.copy())
    return np.array(rows)
