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

from otbound.choices import SchemeKind
from otbound.engine.bound import ConstraintMatrix
from otbound.errors import InvalidSpecification, as_choice
from otbound.numerics.limits import MAX_GROUP, show
from otbound.numerics.problems import (NumericProblem, insert_remove_pattern, log_binomial_weights,
                                       log_hypergeometric_weights)


@dataclass(frozen=True)
class Term:
    """One term ``P(term) · problem`` of a derived bound, with its probability kept as a
    logarithm (so that ``10⁻¹⁹²`` is no problem). Build it with :meth:`of_probability` or
    :meth:`of_log_probability`: the two units cannot be confused, since a log-probability must
    be ≤ 0 and a probability in [0, 1]."""

    log_probability: float
    problem: NumericProblem

    def __post_init__(self) -> None:
        value = float(self.log_probability)
        if not value <= 0:   # also refuses NaN
            raise InvalidSpecification(
                f"log_probability must be a logarithm <= 0, got {value!r} (for a probability "
                "use Term.of_probability)", parameter="log_probability")
        if not isinstance(self.problem, NumericProblem):
            raise InvalidSpecification(f"problem must be a NumericProblem, got "
                                       f"{type(self.problem).__name__}", parameter="problem")
        object.__setattr__(self, "log_probability", value)

    @classmethod
    def of_log_probability(cls, log_probability: float, problem: NumericProblem) -> "Term":
        return cls(log_probability, problem)

    @classmethod
    def of_probability(cls, probability: float, problem: NumericProblem) -> "Term":
        if not 0 < float(probability) <= 1:
            raise InvalidSpecification(f"probability must be in (0, 1], got {probability!r}",
                                       parameter="probability")
        return cls(math.log(float(probability)), problem)

    def __iter__(self):
        """``log_probability, problem = term``."""
        return iter((self.log_probability, self.problem))


def _count(name: str, value, minimum: int, maximum: int | None = None) -> int:
    if value is None:
        return None
    if (isinstance(value, bool) or not math.isfinite(float(value))
            or not float(value).is_integer() or value < minimum):
        raise InvalidSpecification(f"{name} must be an integer >= {minimum}, got {show(value)}",
                                   parameter=name)
    if maximum is not None and value > maximum:
        raise InvalidSpecification(
            f"{name} must be an integer in [{minimum}, {maximum}], got {show(value)}",
            parameter=name)
    return int(value)


@dataclass(frozen=True)
class Subsampling:
    """A subsampling scheme and a neighbouring relation, as on the command line.

    ``scheme`` is ``"poisson"`` (with ``rate``; relation ``group`` = every pair at
    insertion/removal distance ≤ K, or one pair with ``insertions`` and ``removals``) or ``"wor"``
    (sampling without replacement with ``batch_size`` and ``dataset_size``; relation
    ``substitutions``).
    """

    scheme: SchemeKind
    rate: float | None = None
    batch_size: int | None = None
    dataset_size: int | None = None
    group: int | None = None
    insertions: int | None = None
    removals: int | None = None
    substitutions: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "scheme", as_choice(SchemeKind, self.scheme, "scheme"))
        if self.scheme is SchemeKind.POISSON:
            self._check_poisson()
        else:
            self._check_wor()

    def _check_poisson(self) -> None:
        if self.rate is None or not (0 <= float(self.rate) <= 1):
            raise InvalidSpecification(f"rate must be in [0, 1], got {show(self.rate)}",
                                       parameter="rate")
        object.__setattr__(self, "rate", float(self.rate))
        for name in ("batch_size", "dataset_size", "substitutions"):
            if getattr(self, name) is not None:
                raise InvalidSpecification(f"{name} applies to scheme='wor'", parameter=name)
        explicit = self.insertions is not None or self.removals is not None
        if explicit and self.group is not None:
            raise InvalidSpecification("give either group or insertions/removals, not both",
                                       parameter="group")
        if explicit:
            inserted = _count("insertions", self.insertions or 0, 0, MAX_GROUP)
            removed = _count("removals", self.removals or 0, 0, MAX_GROUP)
            if not 1 <= inserted + removed <= MAX_GROUP:
                raise InvalidSpecification(f"insertions + removals must be in [1, {MAX_GROUP}], "
                                           f"got {inserted + removed}", parameter="insertions")
            object.__setattr__(self, "insertions", inserted)
            object.__setattr__(self, "removals", removed)
        else:
            object.__setattr__(self, "group", _count("group", 1 if self.group is None
                                                     else self.group, 1, MAX_GROUP))

    def _check_wor(self) -> None:
        for name in ("rate", "group", "insertions", "removals"):
            if getattr(self, name) is not None:
                raise InvalidSpecification(f"{name} applies to scheme='poisson'",
                                           parameter=name)
        q = _count("batch_size", self.batch_size, 1)
        n = _count("dataset_size", self.dataset_size, 1)
        if q is None or n is None:
            raise InvalidSpecification("scheme='wor' needs batch_size and dataset_size",
                                       parameter="batch_size" if q is None else "dataset_size")
        if q >= n:
            raise InvalidSpecification(
                f"batch_size must be smaller than dataset_size, got q = {q}, N = {n}",
                parameter="batch_size")
        k = _count("substitutions", 1 if self.substitutions is None else self.substitutions, 1,
                   MAX_GROUP)
        if k > n:
            raise InvalidSpecification(f"substitutions must be <= dataset_size, got {k}",
                                       parameter="substitutions")
        object.__setattr__(self, "batch_size", q)
        object.__setattr__(self, "dataset_size", n)
        object.__setattr__(self, "substitutions", k)

    @property
    def group_size(self) -> int:
        """The induced distance between the datasets (K)."""
        if self.scheme is SchemeKind.WOR:
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
        if self.scheme is SchemeKind.WOR:
            return Subsampling(SchemeKind.WOR, batch_size=self.batch_size,
                               dataset_size=self.dataset_size, substitutions=size)
        return Subsampling(SchemeKind.POISSON, rate=self.rate, group=size)

    def cases(self) -> list[list[Term]]:
        """The derived bound: maximum over cases of ``Σ_terms P(term) · problem``."""
        if self.scheme is SchemeKind.POISSON:
            return [[Term(0.0, poisson_problem(self.rate, inserted, removed))]
                    for inserted, removed in self.shapes()]
        return [[Term(0.0, wor_group_problem(self.batch_size, self.dataset_size,
                                             self.substitutions))]]

    def describe(self) -> dict:
        fields = {"scheme": self.scheme.value}
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
    return wor_group_problem(batch_size, dataset_size, 1)


def wor_group_problem(batch_size: int, dataset_size: int, group: int) -> NumericProblem:
    """Sampling without replacement under K-fold substitution, the coupling of 001 Thm. 3.6
    carried over to groups.

    Condition on the number ``k`` of group elements in the batch (``HyperGeom(k | N, K, q)`` on
    both sides) and couple by one draw: a random order ``g₁ … g_K`` of the group (with its
    substitutes ``g'_i``) and distinct background elements ``b₁ … b_q``; component ``k`` is
    ``{g₁ … g_k, b_{k+1} … b_q}`` on the left and the same with ``g'_i`` on the right. Then
    ``d(L_t, L_u) = d(R_t, R_u) = |t − u|``, ``d(L_t, R_u) = max(t, u)`` and ``L_0 = R_0`` —
    each the distance between the supports (d_Y-compatible, 001 Def. D.4). For ``K = 1`` this is
    001 Thm. 3.6; for randomized response it is tight (the worst ``f`` is attained by a dataset).
    """
    log_weights = log_hypergeometric_weights(dataset_size, group, batch_size)
    ks = [k for k in range(group + 1) if log_weights[k] > -math.inf]
    left, right = [f"L{k}" for k in ks], [f"R{k}" for k in ks]
    bounds = {}
    for (t, a), (u, b) in itertools.combinations(zip(ks, left), 2):
        bounds[(a, b)] = abs(t - u)
        bounds[(right[ks.index(t)], right[ks.index(u)])] = abs(t - u)
    for (t, a), (u, b) in itertools.product(zip(ks, left), zip(ks, right)):
        bounds[(a, b)] = max(t, u)
    weights = log_weights[ks]
    return NumericProblem(weights, weights.copy(), ConstraintMatrix.from_pairs(left + right,
                                                                               bounds))


def wor_group_terms(batch_size: int, dataset_size: int, group: int) -> list[Term]:
    """001 Prop. E.5: ``Σ_k HyperGeom(k | N, K, q) · max_{d_Δ(y, y') ≤ k} Ψ(b_y ‖ b_{y'})``
    (no conditioning: a mechanism-agnostic bound, not tight)."""
    terms = []
    log_weights = log_hypergeometric_weights(dataset_size, group, batch_size)
    for k, log_p in enumerate(log_weights):
        if log_p > -math.inf:
            terms.append(Term(float(log_p), NumericProblem(
                np.zeros(1), np.zeros(1), ConstraintMatrix.from_pairs(("L1", "R1"),
                                                                      {("L1", "R1"): k}))))
    return terms
