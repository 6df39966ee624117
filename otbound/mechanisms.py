"""Base mechanisms and their worst-case solvers.

Each mechanism knows (a) its *group privacy profile*: the divergence between its outputs on two
batches at induced distance ``k`` (used by mechanism-agnostic and post-hoc bounds), and (b) how to
solve a mixture problem of 001 Prop. 3.5 — choose the worst component for every mixture position
under the distance constraints — returning the dominating pairs whose divergence is the bound:

* Gaussian (001 Thm. 4.2 and App. H, 003 Thm. 3.8): collinear, equidistant means ``0, 1, …, K₋``
  against ``0, −1, …, −K₊`` in units of the sensitivity, for the constraint pattern of 003 Thm. 3.7.
* Laplace: the same one-dimensional configuration with Laplace components (003 Thm. M.2, whose
  proof is not in the seeds; otbound's verifier checks it).
* Randomized response (001 Thm. 3.7, G.1): every component outputs ``θ`` or ``1 − θ``; components
  forced equal by a zero distance share one choice, and by convexity the others may be chosen
  all alike on each side, so a handful of candidate pairs covers the maximum.

A solver that meets a constraint pattern it cannot handle raises :class:`UnsupportedOperation`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from itertools import product

import numpy as np

from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.hockey_stick import hockey_stick_curve
from otbound.pairs import Family, FinitePair, MixturePair
from otbound.problems import NumericProblem, insert_remove_pattern
from otbound.renyi import log_psi_curve

Pair = MixturePair | FinitePair


def _positive(name: str, value: float) -> float:
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise InvalidSpecification(f"{name} must be a finite number > 0, got {value:g}")
    return value


class Mechanism(ABC):
    """A base mechanism ``B`` applied to the batch."""

    name: str

    @abstractmethod
    def worst_components(self, problem: NumericProblem) -> list[tuple[Pair, np.ndarray]]:
        """Candidate solutions of the mixture problem: each a dominating pair and the value of
        ``f`` at every mixture component (left then right), whose construction attains it."""

    def tight_pairs(self, problem: NumericProblem) -> list[Pair]:
        """Dominating pairs whose largest divergence solves the mixture problem exactly."""
        return [pair for pair, _ in self.worst_components(problem)]

    @abstractmethod
    def distance_pair(self, distance: int) -> Pair:
        """The worst pair of output distributions for two batches at induced distance ``k``."""

    def group_log_psi(self, distance: int, alphas) -> np.ndarray:
        """``log max Ψ_α(b_y ‖ b_y')`` over batches at distance ≤ ``distance`` (upper bounds)."""
        if distance == 0:
            return np.zeros(np.size(alphas))
        return np.array([b.value for b in log_psi_curve(self.distance_pair(distance), alphas)])

    def group_delta(self, distance: int, epsilons) -> np.ndarray:
        """The group privacy profile ``δ_k(ε)`` (upper bounds)."""
        if distance == 0:
            return np.zeros(np.size(epsilons))
        return np.array([b.value for b in hockey_stick_curve(self.distance_pair(distance),
                                                             epsilons)])


def _pattern_sizes(problem: NumericProblem) -> tuple[int, int, int]:
    """``(K₊, K₋, c)`` when the problem has the constraint pattern of 003 Thm. 3.7 with every
    distance multiplied by ``c`` (``c = 2`` when a substitution counts as an insertion and a
    removal, 001 Thm. F.3)."""
    removed, inserted = problem.left.size - 1, problem.right.size - 1
    closed = problem.closed()
    pattern = insert_remove_pattern(inserted, removed)
    for stretch in (1, 2, 3):
        if closed.bounds == tuple(tuple(stretch * b for b in row) for row in pattern.bounds):
            return inserted, removed, stretch
    raise UnsupportedOperation(
        "this solver handles the constraint pattern of 003 Thm. 3.7 (d(L_t, L_u) ≤ |t − u|, "
        "d(R_t, R_u) ≤ |t − u|, d(L_t, R_u) ≤ (t − 1) + (u − 1), possibly scaled); got "
        + problem.constraints.describe())


def single_distance(problem: NumericProblem) -> int:
    """The distance bound between the only two components of a problem (001 Prop. E.5)."""
    bound = problem.closed().bounds[0][1]
    if not math.isfinite(bound):
        raise UnsupportedOperation("the two components are unconstrained: no finite bound")
    return int(bound)


@dataclass(frozen=True)
class AdditiveNoise(Mechanism):
    """``f(y) + noise`` with noise scale ``scale`` and sensitivity ``sensitivity`` of ``f``."""

    scale: float
    sensitivity: float = 1.0
    family: Family = Family.GAUSSIAN

    def __post_init__(self) -> None:
        label = "--sigma" if self.family is Family.GAUSSIAN else "--scale"
        object.__setattr__(self, "scale", _positive(label, self.scale))
        object.__setattr__(self, "sensitivity", _positive("--sensitivity", self.sensitivity))

    @property
    def name(self) -> str:
        return self.family.value

    @property
    def noise_multiplier(self) -> float:
        """Noise scale in units of the sensitivity."""
        return self.scale / self.sensitivity

    def worst_components(self, problem: NumericProblem) -> list[tuple[Pair, np.ndarray]]:
        if problem.left.size == problem.right.size == 1:
            distance = single_distance(problem)
            return [(self.distance_pair(distance), np.array([distance, 0.0]) * self.sensitivity)]
        inserted, removed, stretch = _pattern_sizes(problem)
        left, right = stretch * np.arange(removed + 1), -stretch * np.arange(inserted + 1)
        pair = MixturePair(self.family, self.noise_multiplier, left, problem.left, right,
                           problem.right)
        return [(pair, np.concatenate([left, right]) * self.sensitivity)]

    def distance_pair(self, distance: int) -> Pair:
        return MixturePair(self.family, self.noise_multiplier, [distance], [0.0], [0], [0.0])

    def group_log_psi(self, distance: int, alphas) -> np.ndarray:
        alphas = np.asarray(alphas, dtype=float)
        gap = distance / self.noise_multiplier
        if self.family is Family.GAUSSIAN:
            return alphas * (alphas - 1) * gap ** 2 / 2
        # Mironov 2017, Laplace: α/(2α−1) e^{(α−1)Δ} + (α−1)/(2α−1) e^{−αΔ}
        return np.logaddexp(np.log(alphas / (2 * alphas - 1)) + (alphas - 1) * gap,
                            np.log((alphas - 1) / (2 * alphas - 1)) - alphas * gap)


@dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    """Output ``f(y)`` with probability ``θ`` and ``1 − f(y)`` otherwise, ``f`` binary."""

    theta: float
    name = "randomized-response"

    def __post_init__(self) -> None:
        theta = float(self.theta)
        if not (0 < theta < 1):
            raise InvalidSpecification(f"--theta must be in (0, 1), got {theta:g}")
        object.__setattr__(self, "theta", theta)

    def distance_pair(self, distance: int) -> Pair:
        t = self.theta
        return FinitePair([t, 1 - t], [1 - t, t])

    def worst_components(self, problem: NumericProblem) -> list[tuple[Pair, np.ndarray]]:
        left, right = np.exp(problem.left), np.exp(problem.right)
        classes = _zero_distance_classes(problem)
        shared = [c for c in classes if any(i < left.size for i in c)
                  and any(i >= left.size for i in c)]
        only_left = [i for c in classes if c not in shared for i in c if i < left.size]
        only_right = [i for c in classes if c not in shared for i in c if i >= left.size]
        candidates = []
        for choice in product((1.0, 0.0), repeat=len(shared) + 2):
            bits = np.empty(left.size + right.size)
            for c, value in zip(shared, choice):
                bits[list(c)] = value
            bits[only_left], bits[only_right] = choice[-2], choice[-1]
            # P(output = 1) is θ where f = 1 and 1 − θ where f = 0.
            probability_one = np.where(bits == 1, self.theta, 1 - self.theta)
            p1 = float(np.dot(left, probability_one[:left.size]))
            q1 = float(np.dot(right, probability_one[left.size:]))
            candidates.append((FinitePair([1 - p1, p1], [1 - q1, q1]), bits))
        return candidates


def _zero_distance_classes(problem: NumericProblem) -> list[tuple[int, ...]]:
    """Mixture positions forced to be the same batch (distance bound 0), as index groups.

    The bounds are closed under the triangle inequality, so "bound 0" is an equivalence relation
    and each row lists its whole class."""
    bounds = problem.closed().bounds
    return sorted({tuple(j for j, bound in enumerate(row) if bound == 0) for row in bounds})


def describe(mechanism: Mechanism) -> dict:
    """The mechanism's name and parameters, with the command-line flag names."""
    described = {"mechanism": mechanism.name}
    for field in ("scale", "sensitivity", "theta"):
        if hasattr(mechanism, field):
            key = "sigma" if field == "scale" and mechanism.name == "gaussian" else field
            described[key] = getattr(mechanism, field)
    return described


def gaussian(sigma: float, sensitivity: float = 1.0) -> AdditiveNoise:
    return AdditiveNoise(sigma, sensitivity, Family.GAUSSIAN)


def laplace(scale: float, sensitivity: float = 1.0) -> AdditiveNoise:
    return AdditiveNoise(scale, sensitivity, Family.LAPLACE)
