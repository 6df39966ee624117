"""Base mechanisms and their worst-case solvers.

Each mechanism knows (a) its *group privacy profile*: the divergence between its outputs on two
batches at induced distance ``k`` (used by mechanism-agnostic and post-hoc bounds), and (b) how to
solve a mixture problem of 001 Prop. 3.5 — choose the worst component for every mixture position
under the distance constraints — returning the dominating pairs whose divergence is the bound:

* Gaussian (001 Thm. 4.2 and App. H, 003 Thm. 3.8): collinear, equidistant means ``0, 1, …, K₋``
  against ``0, −1, …, −K₊`` in units of the sensitivity, for the constraint pattern of 003 Thm. 3.7;
  for Rényi divergences also 001 Thm. 3.6's three-point pattern, by a certified branch-and-bound
  (:mod:`otbound.numerics.three_point`).
* Laplace: the same one-dimensional configuration with Laplace components (003 Thm. M.2, whose
  proof is not in the seeds; otbound's verifier checks it).
* Randomized response (001 Thm. 3.7, G.1): every component outputs ``θ`` or ``1 − θ``; components
  forced equal by a zero distance share one choice, and by convexity the others may be chosen
  all alike on each side, so a handful of candidate pairs covers the maximum.

A mechanism says which problems it has no exact worst case of (:meth:`Mechanism.cannot_solve`,
with the reason); its solver refuses exactly those, with :class:`UnsupportedOperation`.
"""

from __future__ import annotations

import inspect
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING, Callable

import numpy as np

from otbound.choices import Quantity
from otbound.errors import InvalidSpecification, Refusal
from otbound.numerics import three_point
from otbound.numerics.hockey_stick import hockey_stick_bounds
from otbound.numerics.limits import NOISE_MULTIPLIER, show
from otbound.numerics.families import FAMILIES, GAUSSIAN, LAPLACE, NoiseFamily
from otbound.numerics.pairs import FinitePair, MixturePair, log_sum_exp
from otbound.numerics.problems import NumericProblem, PatternMatrix
from otbound.numerics.renyi import log_psi_curve
from otbound.numerics.rounding import EPS, Bounds

Pair = MixturePair | FinitePair


def _positive(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise InvalidSpecification(f"{name} must be a finite number > 0, got {show(value)}",
                                   parameter=name)
    return value


class Mechanism(ABC):
    """A base mechanism ``B`` applied to the batch."""

    if TYPE_CHECKING:   # read-only: class attributes or properties of the subclasses
        @property
        def name(self) -> str:
            """The mechanism's name on the command line."""

        @property
        def worst_case_source(self) -> str:
            """Where the worst case its solver constructs is proved."""

    @abstractmethod
    def worst_components(self, problem: NumericProblem) -> list[tuple[Pair, np.ndarray]]:
        """Candidate solutions of the mixture problem: each a dominating pair and the value of
        ``f`` at every mixture component (left then right), whose construction attains it."""

    def cannot_solve(self, problem: NumericProblem,
                     quantity: Quantity = Quantity.ADP) -> Refusal | None:
        """Why the mechanism has no exact worst case of the problem (for Rényi divergences,
        :meth:`renyi_pairs`), or ``None`` when it has one: asked before
        :meth:`worst_components`, which refuses exactly these problems. Every problem, unless
        the mechanism says otherwise."""
        return None

    def tight_pairs(self, problem: NumericProblem) -> list[Pair]:
        """Dominating pairs whose largest divergence solves the mixture problem exactly."""
        return [pair for pair, _ in self.worst_components(problem)]

    def renyi_pairs(self, problem: NumericProblem) -> list:
        """What solves the mixture problem for Rényi divergences: :meth:`tight_pairs`, or a
        solver that bounds the maximum without a pair (see :class:`AdditiveNoise`)."""
        return self.tight_pairs(problem)

    @abstractmethod
    def distance_pair(self, distance: int) -> Pair:
        """The worst pair of output distributions for two batches at induced distance ``k``."""

    def log_moment_ball(self, order: int):
        """``(α − 1) ε(α)`` at distance 1 and an integer order, enclosed exactly in an arb ball,
        for a mechanism with one worst-case pair of neighbours at every order whose divergence
        is its RDP curve (the condition of Wang et al. 2019, Thm. 27); ``None`` otherwise."""
        return None

    def group_log_psi(self, distance: int, alphas) -> Bounds:
        """``log max Ψ_α(b_y ‖ b_y')`` over batches at distance ≤ ``distance``."""
        alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
        if distance == 0:
            return Bounds(np.zeros(alphas.size), np.zeros(alphas.size))
        return Bounds.of(log_psi_curve(self.distance_pair(distance), alphas, limit=False))

    def group_delta(self, distance: int, epsilons) -> Bounds:
        """The group privacy profile ``δ_k(ε)``."""
        epsilons = np.atleast_1d(np.asarray(epsilons, dtype=float))
        if distance == 0:
            return Bounds(np.zeros(epsilons.size), np.zeros(epsilons.size))
        return hockey_stick_bounds(self.distance_pair(distance), epsilons)


def _pattern_sizes(problem: NumericProblem) -> tuple[int, int, float, float] | Refusal:
    """``(K₊, K₋, a, b)`` when the problem has the constraint pattern of 003 Thm. 3.7 with the
    distances within and to the left chain multiplied by ``a`` and those of the right chain by
    ``b``: ``d(L_t, L_u) ≤ a|t − u|``, ``d(R_t, R_u) ≤ b|t − u|``, ``d(L_t, R_u) ≤ a(t − 1) +
    b(u − 1)``. The stretches are read off the first link of each chain (a missing chain takes
    the other's), so any ``a = b > 0`` is recognised: it is the unscaled pattern in units of
    ``a`` (``a = 2`` when a substitution counts as an insertion and a removal, 001 Thm. F.3).
    ``a ≠ b`` is 002 Thm. 3.3's zero-out pair, which has one component on each side beyond the
    shared one; the caller checks that it has a worst case for it."""
    removed, inserted = problem.left.size - 1, problem.right.size - 1
    closed = problem.closed()
    a: float | None
    b: float | None
    if isinstance(closed, PatternMatrix):
        a, b = closed.a, closed.b
    else:
        a = closed.array[0, 1] if removed else None
        b = closed.array[removed + 1, removed + 2] if inserted else None
        a, b = a if a is not None else b, b if b is not None else a
    if (a is not None and b is not None and 0 < a < math.inf and 0 < b < math.inf
            and (a == b or removed == inserted == 1)
            and (isinstance(closed, PatternMatrix) or np.array_equal(
                closed.array, PatternMatrix(inserted, removed, a, b).array))):
        return inserted, removed, float(a), float(b)
    return Refusal(
        "this solver handles the constraint pattern of 003 Thm. 3.7 (d(L_t, L_u) ≤ |t − u|, "
        "d(R_t, R_u) ≤ |t − u|, d(L_t, R_u) ≤ (t − 1) + (u − 1), possibly scaled); got "
        + problem.constraints.describe())


@dataclass(frozen=True)
class Star:
    """A problem whose components on one side, but one, lie at the same distance from the
    single component of the other side (see :func:`equidistant_star`)."""

    removal: bool
    """Whether the many components are on the left (``x``) side."""
    weights: np.ndarray
    """Log-weights of the merged side: the component at the centre, then all the others."""
    distance: float
    positions: np.ndarray
    """Where the worst case puts every original component (left then right)."""


def equidistant_star(problem: NumericProblem) -> Star | None:
    """One side a single component ``c``; on the other, one component at ``c`` (distance 0) and
    every other at the same closed distance ``d`` from ``c``. The problem then equals the
    two-point one with the others merged at distance ``d`` (with their total weight): joint
    convexity gives ``≤`` (the mixture is an average of mixtures with one far component each,
    none farther than ``d``), and putting them all at one point at distance ``d`` attains it.
    ``None`` for any other pattern."""
    sizes = problem.left.size, problem.right.size
    if 1 not in sizes or sizes == (1, 1):
        return None
    removal = sizes[1] == 1
    single, many = (sizes[0], range(sizes[0])) if removal else (0, range(1, 1 + sizes[1]))
    distances = problem.closed().array[single, list(many)]
    near, far = distances == 0, distances > 0
    if near.sum() != 1 or len(set(distances[far])) != 1 or not np.isfinite(distances).all():
        return None
    weights = problem.left if removal else problem.right
    merged = np.array([weights[near][0], log_sum_exp(weights[far])])
    distance = float(distances[far][0])
    spots = np.where(far, distance, 0.0)
    positions = np.concatenate([spots, [0.0]] if removal else [[0.0], -spots])
    return Star(removal, merged, distance, positions)


def single_distance(problem: NumericProblem) -> int | Refusal:
    """The distance bound between the only two components of a problem (001 Prop. E.5)."""
    bound = problem.closed().array[0, 1]
    if not math.isfinite(bound):
        return Refusal("the two components are unconstrained: no finite bound")
    return int(bound)


@dataclass(frozen=True)
class AdditiveNoise(Mechanism):
    """``f(y) + noise`` with noise scale ``scale`` and sensitivity ``sensitivity`` of ``f``."""

    scale: float
    sensitivity: float = 1.0
    family: NoiseFamily = GAUSSIAN

    def __post_init__(self) -> None:
        label = self.family.parameter
        object.__setattr__(self, "scale", _positive(label, self.scale))
        object.__setattr__(self, "sensitivity", _positive("sensitivity", self.sensitivity))
        self.family.check_noise(self.scale, self.sensitivity)
        low, high = NOISE_MULTIPLIER
        if not low <= self.noise_multiplier <= high:
            raise InvalidSpecification(
                f"{label}/sensitivity (the noise multiplier) must be in [{low:g}, {high:g}], "
                f"got {show(self.scale)}/{show(self.sensitivity)}", parameter=label)

    @property
    def name(self) -> str:
        return self.family.name

    @property
    def worst_case_source(self) -> str:
        return self.family.worst_case_source

    @property
    def noise_multiplier(self) -> float:
        """Noise scale in units of the sensitivity."""
        return self.scale / self.sensitivity

    def cannot_solve(self, problem: NumericProblem,
                     quantity: Quantity = Quantity.ADP) -> Refusal | None:
        """One pair at a finite distance, an equidistant star, or 003 Thm. 3.7's pattern (with
        chains of unequal stretch where the family has their worst case); for Rényi
        divergences also 001 Thm. 3.6's three points, where the family has their solver."""
        if (quantity.renyi and self.family.three_point
                and three_point.recognise(problem) is not None):
            return None
        shape = self._worst_shape(problem)
        return shape if isinstance(shape, Refusal) else None

    def _worst_shape(self, problem: NumericProblem
                     ) -> int | Star | tuple[int, int, float, float] | Refusal:
        """Which worst case the problem has: the distance of its one pair, its equidistant
        star, or its chains' sizes and stretches (003 Thm. 3.7); else why it has none."""
        if problem.left.size == problem.right.size == 1:
            return single_distance(problem)
        star = equidistant_star(problem)
        if star is not None:
            return star
        sizes = _pattern_sizes(problem)
        if (not isinstance(sizes, Refusal) and sizes[2] != sizes[3]
                and not self.family.unequal_chains):
            return Refusal(f"no exact {self.family.name} worst case for chains of unequal "
                           f"lengths ({sizes[2]} and {sizes[3]}): 002 Thm. 3.3 covers the "
                           "Gaussian mechanism only")
        return sizes

    def worst_components(self, problem: NumericProblem) -> list[tuple[Pair, np.ndarray]]:
        shape = self._worst_shape(problem)
        if isinstance(shape, Refusal):
            raise shape.error()
        if isinstance(shape, int):
            return [(self.distance_pair(shape), np.array([shape, 0.0]) * self.sensitivity)]
        if isinstance(shape, Star):
            near, far = np.array([0.0]), np.array([0.0, shape.distance])
            pair = (MixturePair(self.family, self.noise_multiplier, far, shape.weights, near,
                                problem.right) if shape.removal else
                    MixturePair(self.family, self.noise_multiplier, near, problem.left,
                                -far, shape.weights))
            return [(pair, shape.positions * self.sensitivity)]
        inserted, removed, a, b = shape
        left, right = a * np.arange(removed + 1), -b * np.arange(inserted + 1)
        pair = MixturePair(self.family, self.noise_multiplier, left, problem.left, right,
                           problem.right)
        return [(pair, np.concatenate([left, right]) * self.sensitivity)]

    def renyi_pairs(self, problem: NumericProblem) -> list:
        """For Gaussian noise, 001 Thm. 3.6's three-point pattern is solved by the certified
        branch-and-bound of :mod:`otbound.numerics.three_point` (RDP only); everything else by
        :meth:`tight_pairs`."""
        found = three_point.recognise(problem) if self.family.three_point else None
        if found is None:
            return self.tight_pairs(problem)
        w, distance = found
        return [three_point.ThreePointMaximum(w, self.noise_multiplier / distance)]

    def distance_pair(self, distance: int) -> Pair:
        return MixturePair(self.family, self.noise_multiplier, np.array([distance]),
                           np.array([0.0]), np.array([0]), np.array([0.0]))

    def log_moment_ball(self, order: int):
        """The family's closed form of ``log Ψ_α`` of one shift by the sensitivity as a ball,
        if it has one (Gaussian: ``α(α − 1)/(2 (σ/Δ)²)``; the pair ``N(0, σ²)``, ``N(Δ, σ²)``
        is the worst case at every order)."""
        return self.family.shift_log_psi_ball(order, self.scale, self.sensitivity)

    def group_log_psi(self, distance: int, alphas) -> Bounds:
        """The family's closed form (:meth:`NoiseFamily.shift_log_psi`) at ``Δ`` the distance in
        noise units, if it has one; else the divergence of the pair at the distance."""
        alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
        found = self.family.shift_log_psi(distance / self.noise_multiplier, alphas)
        if found is None or distance == 0:   # no closed form: the pair at the distance
            return super().group_log_psi(distance, alphas)
        value, error = found
        return Bounds(np.nextafter(value + error, np.inf), value)


@dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    """Output ``f(y)`` with probability ``θ`` and ``1 − f(y)`` otherwise, ``f`` binary."""

    theta: float
    name = "randomized-response"
    worst_case_source = "001 Thm. 3.7 and G.1: every choice of the binary function compared"

    def __post_init__(self) -> None:
        theta = float(self.theta)
        if not (0 < theta < 1):
            raise InvalidSpecification(f"theta must be in (0, 1), got {show(theta)}",
                                       parameter="theta")
        object.__setattr__(self, "theta", theta)

    def distance_pair(self, distance: int) -> Pair:
        t, gap = self.theta, 2 * self.theta - 1   # exact for θ ≥ 1/4 (Sterbenz)
        error = 0.0 if t >= 0.25 else EPS * abs(gap)
        return FinitePair.from_differences([t, 1 - t], [1 - t, t], [gap, -gap], [error, error])

    def worst_components(self, problem: NumericProblem) -> list[tuple[Pair, np.ndarray]]:
        size = problem.left.size
        classes = _zero_distance_classes(problem)
        shared = [c for c in classes if min(c) < size <= max(c)]
        only_left = [i for c in classes if c not in shared for i in c if i < size]
        only_right = [i for c in classes if c not in shared for i in c if i >= size]
        candidates: list[tuple[Pair, np.ndarray]] = []
        for choice in product((1.0, 0.0), repeat=len(shared) + 2):
            bits = np.empty(size + problem.right.size)
            for c, value in zip(shared, choice):
                bits[list(c)] = value
            bits[only_left], bits[only_right] = choice[-2], choice[-1]
            candidates.append((self._output_pair(problem, bits == 1), bits))
        return candidates

    def _output_pair(self, problem: NumericProblem, ones: np.ndarray) -> FinitePair:
        """The output distributions ``(P(0), P(1))`` and ``(Q(0), Q(1))`` when ``f = 1`` on the
        components marked in ``ones`` (left then right).

        ``P(1) − Q(1) = (2θ − 1)(W₁ − V₁)`` with ``W₁``, ``V₁`` the weight of the marked
        components on each side; the weight difference is taken from the logarithms of whichever
        of the two parts (``f = 1`` or ``f = 0``) weighs less, so that neither a rate of 10⁻⁶
        nor ``θ`` close to ½ cancels digits.
        """
        size = problem.left.size
        left, right = ones[:size], ones[size:]
        t, t_bar = self.theta, 1 - self.theta
        p1, q1 = _mixture_of(problem.left, left, t, t_bar), _mixture_of(problem.right, right, t,
                                                                        t_bar)
        difference, error = _weight_difference(problem.left, problem.right, left, right)
        gap = 2 * t - 1
        d1 = gap * difference
        d1_error = abs(gap) * error + 2 * EPS * abs(d1) + (EPS * abs(d1) if t < 0.25 else 0.0)
        return FinitePair.from_differences([p1[0], p1[1]], [q1[0], q1[1]], [-d1, d1],
                                           [d1_error, d1_error])


def _mixture_of(log_weights: np.ndarray, ones: np.ndarray, theta: float,
                theta_bar: float) -> tuple[float, float]:
    """``(P(0), P(1))`` of a mixture of randomized responses, each a sum of positive terms."""
    weights = np.exp(log_weights)
    one = float(np.dot(weights, np.where(ones, theta, theta_bar)))
    zero = float(np.dot(weights, np.where(ones, theta_bar, theta)))
    total = one + zero
    return zero / total, one / total


def _weight_difference(left: np.ndarray, right: np.ndarray, left_ones: np.ndarray,
                       right_ones: np.ndarray) -> tuple[float, float]:
    """``W₁ − V₁`` (marked weight on the left minus on the right) and a bound on its error.

    Both mixtures sum to one, so ``W₁ − V₁ = V₀ − W₀``: the lighter part is used."""
    parts = []
    for sign, l_mask, r_mask in ((1.0, left_ones, right_ones), (-1.0, ~left_ones, ~right_ones)):
        sum_w, sum_v = log_sum_exp(left[l_mask]), log_sum_exp(right[r_mask])
        logs = np.concatenate([left[l_mask], right[r_mask], [0.0]])
        magnitude = float(np.max(np.abs(logs[np.isfinite(logs)])))
        parts.append((max(sum_w, sum_v), sign, float(sum_w), float(sum_v), magnitude))
    _, sign, log_w, log_v, magnitude = min(parts)
    if log_w == log_v:
        difference = 0.0
    elif log_w > log_v:
        difference = math.exp(log_w) * -math.expm1(log_v - log_w)
    else:
        difference = -math.exp(log_v) * -math.expm1(log_w - log_v)
    # Each log-weight carries a few ulps of its magnitude; so does each log-sum-exp.
    error = (math.exp(log_w) + math.exp(log_v)) * 16 * EPS * (1 + magnitude) \
        + 2 * EPS * abs(difference)
    return sign * difference, error


def _zero_distance_classes(problem: NumericProblem) -> list[tuple[int, ...]]:
    """Mixture positions forced to be the same batch (distance bound 0), as index groups.

    The bounds are closed under the triangle inequality, so "bound 0" is an equivalence relation
    and each row lists its whole class."""
    zero = problem.closed().array == 0
    return sorted({tuple(np.flatnonzero(row).tolist()) for row in zero})


def describe(mechanism: Mechanism) -> dict:
    """The mechanism's name and parameters, with the command-line flag names."""
    described = {"mechanism": mechanism.name}
    for field in ("scale", "sensitivity", "theta"):
        if hasattr(mechanism, field):
            key = (mechanism.family.parameter if field == "scale"
                   and isinstance(mechanism, AdditiveNoise) else field)
            described[key] = getattr(mechanism, field)
    return described


def gaussian(sigma: float, sensitivity: float = 1.0) -> AdditiveNoise:
    """Add ``N(0, σ²)`` noise to a function of the batch with L2 sensitivity ``sensitivity``."""
    return AdditiveNoise(sigma, sensitivity, GAUSSIAN)


def laplace(scale: float, sensitivity: float = 1.0) -> AdditiveNoise:
    """Add ``Laplace(0, b)`` noise to a function of the batch with L1 sensitivity
    ``sensitivity``."""
    return AdditiveNoise(scale, sensitivity, LAPLACE)


def constructor(family: NoiseFamily) -> Callable[..., AdditiveNoise]:
    """``family``'s mechanism constructor, ``name(<family.parameter>, sensitivity=1.0)``, with
    the family's :attr:`~otbound.numerics.noise.NoiseFamily.constructor_doc` as its docstring:
    what ``otbound.<name>`` is for a family without a constructor of its own here."""
    def make(*args, **kwargs) -> AdditiveNoise:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return AdditiveNoise(bound.arguments[family.parameter], bound.arguments["sensitivity"],
                             family)

    keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature(
        [inspect.Parameter(family.parameter, keyword, annotation="float"),
         inspect.Parameter("sensitivity", keyword, default=1.0, annotation="float")],
        return_annotation="AdditiveNoise")
    make.__name__ = make.__qualname__ = family.name.replace("-", "_")
    make.__doc__ = family.constructor_doc
    make.__module__ = __name__
    make.__signature__ = signature  # type: ignore[attr-defined]
    return make


def __getattr__(name: str) -> Callable[..., AdditiveNoise]:
    """The constructor of every other family of :data:`~otbound.numerics.families.FAMILIES`
    (:func:`constructor`), made on first use."""
    if name.startswith("_") or name.replace("_", "-") not in FAMILIES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    made = constructor(FAMILIES[name.replace("_", "-")])
    globals()[name] = made
    return made


def randomized_response(theta: float) -> RandomizedResponse:
    """Report the bit with probability ``theta`` and its flip otherwise."""
    return RandomizedResponse(theta)

