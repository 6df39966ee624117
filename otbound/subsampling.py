"""Subsampling settings of the command line, and the mixture problems their bounds consist of.

A :class:`Subsampling` is a scheme with its parameters and a neighbouring relation. Its
:meth:`~Subsampling.cases` are the bounds derived by the engine, as numbers: a maximum over cases
(pair shapes) of expectations over terms, each term a mixture problem. The formulas are the
derived statements — 003 Thm. 3.7 for Poisson insertion and removal (001 Thm. 4.1 for pure
groups), 001 Thm. 3.6 for sampling without replacement and substitution, 001 Prop. E.5 for K-fold
substitution — which the test suite checks against the engine's own derivations for small groups.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from otbound.bound import ConstraintMatrix
from otbound.errors import InvalidSpecification
from otbound.problems import NumericProblem, insert_remove_pattern, log_binomial_weights

Term = tuple[float, NumericProblem]
"""``(log probability of the term, problem)``."""


def _count(name: str, value, minimum: int) -> int:
    if value is None:
        return None
    if isinstance(value, bool) or not float(value).is_integer() or value < minimum:
        raise InvalidSpecification(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


@dataclass(frozen=True)
class Subsampling:
    """A subsampling scheme and a neighbouring relation, as on the command line.

    ``scheme`` is ``"poisson"`` (with ``rate``; relation ``group`` = every pair at
    insertion/removal distance ≤ K, or one pair with ``insertions`` and ``removals``) or ``"wor"``
    (sampling without replacement with ``batch_size`` and ``dataset_size``; relation
    ``substitutions``).
    """

    scheme: str
    rate: float | None = None
    batch_size: int | None = None
    dataset_size: int | None = None
    group: int | None = None
    insertions: int | None = None
    removals: int | None = None
    substitutions: int | None = None

    def __post_init__(self) -> None:
        if self.scheme == "poisson":
            self._check_poisson()
        elif self.scheme == "wor":
            self._check_wor()
        else:
            raise InvalidSpecification(f"--scheme must be poisson or wor, got {self.scheme!r}")

    def _check_poisson(self) -> None:
        if self.rate is None or not (0 <= float(self.rate) <= 1):
            raise InvalidSpecification(f"--rate must be in [0, 1], got {self.rate}")
        object.__setattr__(self, "rate", float(self.rate))
        for name in ("batch_size", "dataset_size", "substitutions"):
            if getattr(self, name) is not None:
                raise InvalidSpecification(f"--{name.replace('_', '-')} applies to --scheme wor")
        explicit = self.insertions is not None or self.removals is not None
        if explicit and self.group is not None:
            raise InvalidSpecification("give either --group or --insertions/--removals, not both")
        if explicit:
            inserted = _count("--insertions", self.insertions or 0, 0)
            removed = _count("--removals", self.removals or 0, 0)
            if inserted + removed == 0:
                raise InvalidSpecification("--insertions + --removals must be >= 1, got 0")
            object.__setattr__(self, "insertions", inserted)
            object.__setattr__(self, "removals", removed)
        else:
            object.__setattr__(self, "group", _count("--group", 1 if self.group is None
                                                     else self.group, 1))

    def _check_wor(self) -> None:
        for name in ("rate", "group", "insertions", "removals"):
            if getattr(self, name) is not None:
                raise InvalidSpecification(f"--{name} applies to --scheme poisson")
        q = _count("--batch-size", self.batch_size, 1)
        n = _count("--dataset-size", self.dataset_size, 1)
        if q is None or n is None:
            raise InvalidSpecification("--scheme wor needs --batch-size and --dataset-size")
        if q >= n:
            raise InvalidSpecification(
                f"--batch-size must be smaller than --dataset-size, got q = {q}, N = {n}")
        k = _count("--substitutions", 1 if self.substitutions is None else self.substitutions, 1)
        if k > n:
            raise InvalidSpecification(f"--substitutions must be <= --dataset-size, got {k}")
        object.__setattr__(self, "batch_size", q)
        object.__setattr__(self, "dataset_size", n)
        object.__setattr__(self, "substitutions", k)

    @property
    def group_size(self) -> int:
        """The induced distance between the datasets (K)."""
        if self.scheme == "wor":
            return self.substitutions
        return self.group if self.group is not None else self.insertions + self.removals

    def shapes(self) -> list[tuple[int, int]]:
        """Poisson: every ``(K₊, K₋)`` covered. A pair at distance < K is dominated by one at
        distance K: pad it with elements the function ignores (their sampling changes nothing)."""
        if self.group is not None:
            return [(k, self.group - k) for k in range(self.group + 1)]
        return [(self.insertions, self.removals)]

    def with_group_size(self, size: int) -> "Subsampling":
        """The same scheme for the relation at distance ``size`` (used by post-hoc bounds)."""
        if self.scheme == "wor":
            return Subsampling("wor", batch_size=self.batch_size,
                               dataset_size=self.dataset_size, substitutions=size)
        return Subsampling("poisson", rate=self.rate, group=size)

    def cases(self) -> list[list[Term]]:
        """The derived bound: maximum over cases of ``Σ_terms P(term) · problem``."""
        if self.scheme == "poisson":
            return [[(0.0, poisson_problem(self.rate, inserted, removed))]
                    for inserted, removed in self.shapes()]
        if self.substitutions == 1:
            return [[(0.0, wor_substitution_problem(self.batch_size, self.dataset_size))]]
        return [wor_group_terms(self.batch_size, self.dataset_size, self.substitutions)]

    def describe(self) -> dict:
        fields = {"scheme": self.scheme}
        for name in ("rate", "batch_size", "dataset_size", "group", "insertions", "removals",
                     "substitutions"):
            if getattr(self, name) is not None:
                fields[name] = getattr(self, name)
        return fields


def poisson_problem(rate: float, inserted: int, removed: int) -> NumericProblem:
    """003 Thm. 3.7: weights ``Binom(i | K₋, r)`` and ``Binom(j | K₊, r)``, chain constraints."""
    return NumericProblem(log_binomial_weights(removed, rate),
                          log_binomial_weights(inserted, rate),
                          insert_remove_pattern(inserted, removed))


def wor_substitution_problem(batch_size: int, dataset_size: int) -> NumericProblem:
    """001 Thm. 3.6: weights ``(1 − w, w)`` on both sides, ``w = q/N``; ``y1 = y3`` and every
    other pair of components at substitution distance ≤ 1."""
    w = batch_size / dataset_size
    log_weights = np.array([math.log1p(-w), math.log(w)])
    labels = ("L1", "L2", "R1", "R2")
    bounds = {pair: 1 for pair in itertools.combinations(labels, 2)}
    bounds[("L1", "R1")] = 0
    return NumericProblem(log_weights, log_weights.copy(),
                          ConstraintMatrix.from_pairs(labels, bounds))


def log_hypergeometric(k: int, size: int, group: int, batch: int) -> float:
    """``log HyperGeom(k | N, K, q) = log[C(K, k) C(N − K, q − k) / C(N, q)]``."""
    if k > batch or group - k < 0 or batch - k > size - group:
        return -math.inf

    def log_choose(n: int, m: int) -> float:
        return math.lgamma(n + 1) - math.lgamma(m + 1) - math.lgamma(n - m + 1)

    return log_choose(group, k) + log_choose(size - group, batch - k) - log_choose(size, batch)


def wor_group_terms(batch_size: int, dataset_size: int, group: int) -> list[Term]:
    """001 Prop. E.5: ``Σ_k HyperGeom(k | N, K, q) · max_{d_Δ(y, y') ≤ k} Ψ(b_y ‖ b_{y'})``."""
    terms = []
    for k in range(group + 1):
        log_p = log_hypergeometric(k, dataset_size, group, batch_size)
        if log_p > -math.inf:
            terms.append((log_p, NumericProblem(
                np.zeros(1), np.zeros(1), ConstraintMatrix.from_pairs(("L1", "R1"),
                                                                      {("L1", "R1"): k}))))
    return terms
