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

import heapq
import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from otbound.choices import SchemeKind
from otbound.numerics.mechanisms import gaussian, laplace
from otbound.numerics.one_step import rdp
from otbound.numerics.settings import Subsampling
from otbound.verify.noise_references import (LAPLACE_NODES, NODES, Divergence,
                                             LaplaceDivergence, NoiseReference,
                                             density_reference)


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
        setting = Subsampling(SchemeKind.POISSON, rate=self.rate, insertions=self.inserted,
                              removals=self.removed)
        (bound,) = rdp(setting, gaussian(sigma), "tight", [alpha])
        return (alpha - 1) * bound.value

    def laplace_log_psi(self, scale: float, alpha: float) -> float:
        """The Laplace solver's ``log Ψ_α`` (the same line, 003 Thm. M.2)."""
        setting = Subsampling(SchemeKind.POISSON, rate=self.rate, insertions=self.inserted,
                              removals=self.removed)
        (bound,) = rdp(setting, laplace(scale), "tight", [alpha])
        return (alpha - 1) * bound.value

    def collinear(self, dimension: int | None = None) -> np.ndarray:
        """The solver's worst case: removed points on one side of the shared one, inserted
        points on the other, at unit spacing (on the first axis of ``ℝ^dimension``)."""
        line = [0.0] + [-float(i) for i in range(1, self.removed + 1)] \
            + [float(j) for j in range(1, self.inserted + 1)]
        points = np.zeros((len(line), dimension or self.dimension))
        points[:, 0] = line
        return points

    @property
    def dimension(self) -> int:
        return self.inserted + self.removed


def _binomial(count: int, rate: float) -> np.ndarray:
    return np.array([math.comb(count, i) * rate ** i * (1 - rate) ** (count - i)
                     for i in range(count + 1)])


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


REFINEMENT = 4


def search(pattern: Pattern, sigma: float, alpha: float, starts: int,
           seed: int = 0) -> SearchResult:
    """Multi-start local maximisation (SLSQP) of the divergence over every configuration of the
    means that meets the distance bounds, from random feasible starts."""
    nodes = NODES[pattern.dimension]
    divergence = Divergence(pattern, sigma, alpha, nodes)
    solver = pattern.solver_log_psi(sigma, alpha)
    best, best_points = _maximise(pattern, divergence, pattern.dimension, 2, starts, seed)
    d = pattern.dimension
    singular = np.linalg.svd(best_points - best_points.mean(axis=0), compute_uv=False)
    spread = float(singular[1] / singular[0]) if d > 1 and singular[0] > 0 else 0.0
    finer = Divergence(pattern, sigma, alpha, nodes + REFINEMENT)
    found = finer(best_points)
    rule_error = max(abs(found - best), abs(finer(pattern.collinear())
                                            - divergence(pattern.collinear())))
    return SearchResult(pattern, sigma, alpha, solver, found, rule_error,
                        abs(finer(pattern.collinear()) - solver), spread, starts)


def _maximise(pattern: Pattern, divergence, dimension: int, norm: int, starts: int,
              seed: int) -> tuple[float, np.ndarray]:
    """The largest divergence SLSQP reaches from ``starts`` random feasible configurations in
    ``ℝ^dimension`` whose ``ℓ_norm`` distances (``norm`` 1 or 2) meet the bounds."""
    rng = np.random.default_rng(seed)
    d, count, bound = dimension, pattern.dimension + 1, pattern.bounds()
    pairs = list(itertools.combinations(range(count), 2))
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=d)))

    def points(free: np.ndarray) -> np.ndarray:
        return np.vstack([np.zeros(d), free.reshape(count - 1, d)])

    def slack(free: np.ndarray) -> np.ndarray:
        p = points(free)
        if norm == 2:
            return np.array([bound[a, b] ** 2 - ((p[a] - p[b]) ** 2).sum() for a, b in pairs])
        # |u|₁ ≤ c as the linear constraints s·u ≤ c for every sign vector s
        return np.concatenate([bound[a, b] - signs @ (p[a] - p[b]) for a, b in pairs])

    best, best_points = -math.inf, pattern.collinear(d)
    for _ in range(starts):
        initial = _random_chains(pattern, rng, d, norm)[1:].ravel()
        result = optimize.minimize(lambda free: -divergence(points(free)), initial,
                                   method="SLSQP", constraints={"type": "ineq", "fun": slack},
                                   options={"maxiter": 200, "ftol": 1e-12})
        reached = _feasible(points(result.x), bound, norm)
        value = divergence(reached)
        if value > best:
            best, best_points = value, reached
    return best, best_points


def _feasible(points: np.ndarray, bound: np.ndarray, norm: int = 2) -> np.ndarray:
    """The configuration shrunk towards the shared point until every bound holds exactly (the
    optimiser may overstep a bound by its tolerance; shrinking only shortens distances)."""
    difference = np.abs(points[:, None, :] - points[None, :, :])
    distance = difference.sum(axis=2) if norm == 1 else np.sqrt((difference ** 2).sum(axis=2))
    ratios = np.divide(distance, bound, out=np.zeros_like(distance), where=bound > 0)
    return points / max(1.0, float(ratios.max()))


def _random_chains(pattern: Pattern, rng: np.random.Generator, d: int,
                   norm: int = 2) -> np.ndarray:
    """A random feasible configuration: from the shared point, each side a chain of steps of
    length at most 1 in random directions (the triangle inequality then meets every bound)."""
    rows = [np.zeros(d)]
    for count in (pattern.removed, pattern.inserted):
        position = np.zeros(d)
        for _ in range(count):
            step = rng.normal(size=d)
            position = position + step / np.linalg.norm(step, norm) * rng.uniform(0.6, 1.0)
            rows.append(position.copy())
    return np.array(rows)


# --- Laplace: ℓ1 distances, i.i.d. Laplace noise per coordinate -------------------------------

def search_laplace(pattern: Pattern, scale: float, alpha: float, starts: int,
                   dimension: int = 1, seed: int = 0) -> SearchResult:
    """Multi-start SLSQP over every configuration of the means in ``ℝ^dimension`` whose ℓ1
    distances meet the bounds (``dimension`` 1: every arrangement on the line, in any order),
    against the Laplace solver's value (collinear, equidistant, one side each)."""
    nodes = LAPLACE_NODES[dimension]
    divergence = LaplaceDivergence(pattern, scale, alpha, nodes, dimension)
    solver = pattern.laplace_log_psi(scale, alpha)
    best, best_points = _maximise(pattern, divergence, dimension, 1, starts, seed)
    finer = LaplaceDivergence(pattern, scale, alpha, nodes + REFINEMENT, dimension)
    line = pattern.collinear(dimension)
    found = finer(best_points)
    rule_error = max(abs(found - best), abs(finer(line) - divergence(line)))
    return SearchResult(pattern, scale, alpha, solver, found, rule_error,
                        abs(finer(line) - solver), _departure(best_points, line), starts)


def _departure(points: np.ndarray, line: np.ndarray) -> float:
    """Max-norm distance from the solver's configuration, up to the symmetries of the ℓ1
    problem (a reflection of each axis, a permutation of the axes)."""
    d = points.shape[1]
    candidates = [np.roll(line, k, axis=1) * sign for k in range(d) for sign in (1, -1)]
    return float(min(np.abs(points[:, list(axes)] * signs - candidate).max()
                     for candidate in candidates
                     for axes in itertools.permutations(range(d))
                     for signs in itertools.product((1, -1), repeat=d)))


# --- Certified branch-and-bound on the line ----------------------------------------------------

@dataclass(frozen=True)
class Certificate:
    """Outcome of :func:`certify`: either every configuration on the line has ``log Ψ_α`` at
    most ``limit`` (``certified``), or a configuration above it (``witness``), or neither within
    the budget of boxes."""

    pattern: Pattern
    family: str
    scale: float
    alpha: float
    target: float
    """The value certified against (the solver's ``log Ψ_α`` unless given)."""
    limit: float
    """``target + tolerance·|target|``: the certified upper bound when ``certified``."""
    certified: bool
    boxes: int
    """Boxes processed (bounded, discarded as infeasible or split)."""
    largest_upper: float
    """The largest rigorous upper bound of ``log Ψ_α`` over the boxes kept (≤ ``limit``)."""
    witness: tuple[float, ...] | None = None
    """Positions of a configuration whose (fast-rule) value exceeds ``limit``."""


def certify(pattern: Pattern, family: str, scale: float, alpha: float, tolerance: float,
            target: float | None = None, max_boxes: int = 20000) -> Certificate:
    """Prove ``log Ψ_α ≤ target + tolerance·|target|`` for every configuration of the means on
    the line (shared point at 0, ``|x_a − x_b| ≤`` the bounds; by the reflection ``z ↦ −z`` the
    first free point is ``≥ 0``). Each box of positions gets a rigorous upper bound
    (:func:`box_upper`, ball arithmetic); boxes above the limit are halved along their widest
    side. For the Gaussian on the line this covers every configuration in ``ℝ^d`` only when
    ``K₊ + K₋ = 1`` (two points always lie on a line)."""
    noise = density_reference(family)
    if target is None:
        target = noise.certify_target(pattern, scale, alpha)
    limit = target + tolerance * abs(target)
    bound, k = pattern.bounds(), pattern.dimension
    first = np.array([[0.0, bound[0, 1]]])
    rest = np.array([[-bound[0, i], bound[0, i]] for i in range(2, k + 1)]).reshape(-1, 2)
    root, boxes, largest = np.vstack([first, rest]), 0, -math.inf
    rule = _line_rule(pattern, noise, scale, alpha)
    queue = [(-math.inf, 0, root)]   # best first: the box with the largest upper bound
    while queue:
        _, _, box = heapq.heappop(queue)
        boxes += 1
        if boxes > max_boxes:
            return Certificate(pattern, family, scale, alpha, target, limit, False, boxes,
                               largest)
        if not _possibly_feasible(box, bound):
            continue
        upper = box_upper(pattern, family, scale, alpha, box)
        if upper <= limit:
            largest = max(largest, upper)
            continue
        for point in _probes(box, bound):
            if rule(point) > limit:
                return Certificate(pattern, family, scale, alpha, target, limit, False, boxes,
                                   largest, tuple(point))
        widest = int(np.argmax(box[:, 1] - box[:, 0]))
        middle = box[widest].mean()
        for side in ((box[widest, 0], middle), (middle, box[widest, 1])):
            child = box.copy()
            child[widest] = side
            heapq.heappush(queue, (-upper, boxes * 2 + len(queue), child))
    return Certificate(pattern, family, scale, alpha, target, limit, True, boxes, largest)


def _probes(box: np.ndarray, bound: np.ndarray) -> list[np.ndarray]:
    """The feasible corners and centre of a box (the maximum sits at a vertex of the feasible
    set, so corners find a counterexample early)."""
    points = [np.array(corner) for corner in itertools.product(*box)] + [box.mean(axis=1)]
    return [point for point in points
            if _possibly_feasible(np.column_stack([point, point]), bound)]


def _line_rule(pattern: Pattern, noise: NoiseReference, scale: float, alpha: float):
    """The fast value of a configuration on the line (positions of the free points)."""
    divergence, columns = noise.line_divergence(pattern, scale, alpha)

    def value(free: np.ndarray) -> float:
        points = np.zeros((pattern.dimension + 1, columns))
        points[1:, 0] = free
        return divergence(points)
    return value


def _possibly_feasible(box: np.ndarray, bound: np.ndarray) -> bool:
    """False when some pair of boxes is farther apart than its bound (the shared point is 0)."""
    full = np.vstack([[0.0, 0.0], box])
    for a, b in itertools.combinations(range(len(full)), 2):
        gap = max(0.0, full[a, 0] - full[b, 1], full[b, 0] - full[a, 1])
        if gap > bound[a, b]:
            return False
    return True


def box_upper(pattern: Pattern, family: str, scale: float, alpha: float,
              box: np.ndarray) -> float:
    """A rigorous upper bound of ``log Ψ_α`` over every configuration on the line with the free
    points in ``box`` (rows ``[low, high]``, units of the sensitivity).

    ``p^α q^{1−α}`` (``α > 1``) is at most ``p̄^α q̲^{1−α}`` with ``p̄`` the sum of each
    component's largest density over its interval of means and ``q̲`` the sum of the smallest:
    ``D(dist(z, [l, h]))`` and ``D(max(|z − l|, |z − h|))``. Between the breakpoints ``l``,
    ``h``, ``(l + h)/2`` this envelope is analytic and ``acb.integral`` encloses its integral;
    beyond them Laplace terms all decay as ``e^{−|z|/b}`` (tail exact) and Gaussian ones are
    bounded by one Gaussian (tail in closed form with ``erfc``)."""
    from flint import arb
    noise = density_reference(family)
    full = np.vstack([[0.0, 0.0], np.asarray(box, dtype=float)]) / scale
    left, right = pattern.weights
    removed, k = pattern.removed, pattern.dimension
    p_side = [(float(w), i) for w, i in zip(left, range(removed + 1))]
    q_side = [(float(w), j) for w, j in zip(right, [0] + list(range(removed + 1, k + 1)))]
    breaks = sorted(set(full.ravel()) | set(full.mean(axis=1)))
    breaks = noise.envelope_breaks(breaks, alpha)
    total = arb(0)
    for low, high in zip(breaks[:-1], breaks[1:]):
        if high > low:
            total += _piece(full, p_side, q_side, noise, alpha, low, high)
    total += _tails(full, p_side, q_side, noise, alpha, breaks[0], breaks[-1])
    if not total > 0:
        return math.inf
    return math.nextafter(float(total.log().upper()), math.inf)   # the double above the ball


def _envelope(full: np.ndarray, side: list, middle: float, largest: bool):
    """Per component the centre of its bounding density on the piece containing ``middle``:
    ``None`` (inside the interval: the density's peak) or ``l``/``h``."""
    centres = []
    for weight, index in side:
        low, high = full[index]
        if largest:
            centre = None if low <= middle <= high else (low if middle < low else high)
        else:
            centre = high if middle <= (low + high) / 2 else low
        centres.append((weight, centre))
    return centres


def _piece(full, p_side, q_side, noise: NoiseReference, alpha, low, high):
    from flint import acb, arb
    middle = (low + high) / 2
    upper_p = _envelope(full, p_side, middle, True)
    lower_q = _envelope(full, q_side, middle, False)

    def f(z, analytic):
        p = sum((w * noise.ball_density(z, c, middle) for w, c in upper_p), acb(0))
        q = sum((w * noise.ball_density(z, c, middle) for w, c in lower_q), acb(0))
        return (alpha * p.log(analytic=analytic)
                + (1 - alpha) * q.log(analytic=analytic)).exp()
    result = acb.integral(f, arb(low), arb(high), rel_tol=arb(2) ** -40,
                          eval_limit=10 ** 6)
    return result.real


def _tails(full, p_side, q_side, noise: NoiseReference, alpha, first, last):
    """The integral of the envelope beyond ``[first, last]`` (the reference's tail bound on
    each side)."""
    from flint import arb
    total = arb(0)
    for edge, side in ((last, 1), (first, -1)):
        upper_p = _envelope(full, p_side, edge + side, True)
        lower_q = _envelope(full, q_side, edge + side, False)
        total += noise.ball_tail(upper_p, lower_q, alpha, edge, side)
    return total
