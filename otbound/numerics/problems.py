"""Mixture problems with numeric weights: the input of the mechanism solvers.

A :class:`NumericProblem` is the numeric form of one :class:`otbound.engine.bound.MixtureProblem`:
``max_ŷ Ψ(Σ_i w_i b_{ŷ_i} ‖ Σ_j v_j b_{ŷ'_j})`` under a constraint matrix, with the weights as
logarithms (so that ``Binom(32 | 32, 10⁻⁶) = 10⁻¹⁹²`` is no problem). The
:func:`insert_remove_pattern` is the constraint matrix of 003 Thm. 3.7, which every solver for
additive-noise mechanisms recognises.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

import numpy as np

from otbound.engine.bound import ConstraintMatrix
from otbound.errors import InvalidSpecification

if TYPE_CHECKING:   # sympy is imported where a symbolic problem is evaluated
    import sympy as sp

    from otbound.engine.bound import MixtureProblem


@dataclass(frozen=True, eq=False)
class NumericProblem:
    """Log-weights of the left (``x``) and right (``x'``) mixtures, and their constraints."""

    left: np.ndarray
    right: np.ndarray
    constraints: ConstraintMatrix

    def __post_init__(self) -> None:
        left, right = np.asarray(self.left, dtype=float), np.asarray(self.right, dtype=float)
        if left.size + right.size != len(self.constraints.labels):
            raise InvalidSpecification("one constraint label per mixture component is needed")
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)

    @staticmethod
    def from_problem(problem: MixtureProblem,
                     values: Mapping[sp.Symbol, object]) -> "NumericProblem":
        """Evaluate the weights of a symbolic problem (30 significant digits, then logs)."""
        import sympy as sp

        def log_weight(weight: sp.Expr) -> float:
            value = sp.sympify(weight).subs(values).evalf(30)
            if not value.is_number or value < 0:
                raise InvalidSpecification(f"weight {weight} does not evaluate to a probability")
            return -math.inf if value == 0 else float(sp.log(value).evalf(30))

        return NumericProblem(np.array([log_weight(c.weight) for c in problem.left]),
                              np.array([log_weight(c.weight) for c in problem.right]),
                              problem.constraints)

    def closed(self) -> ConstraintMatrix:
        """The constraints closed under the triangle inequality, relabelled by position."""
        names = tuple(f"L{i + 1}" for i in range(self.left.size)) + \
            tuple(f"R{j + 1}" for j in range(self.right.size))
        return self.constraints.closure().relabelled(names)


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


@functools.lru_cache(maxsize=256)
def insert_remove_pattern(inserted: int, removed: int) -> ConstraintMatrix:
    """003 Thm. 3.7: ``d(L_t, L_u) ≤ |t − u|``, ``d(R_t, R_u) ≤ |t − u|``,
    ``d(L_t, R_u) ≤ (t − 1) + (u − 1)`` for ``removed + 1`` left and ``inserted + 1`` right
    components (already closed under the triangle inequality)."""
    left = [f"L{t}" for t in range(1, removed + 2)]
    right = [f"R{u}" for u in range(1, inserted + 2)]
    bounds = {}
    for side in (left, right):
        for (t, a), (u, b) in itertools.combinations(enumerate(side), 2):
            bounds[(a, b)] = u - t
    for (t, a), (u, b) in itertools.product(enumerate(left), enumerate(right)):
        bounds[(a, b)] = t + u
    return ConstraintMatrix.from_pairs(left + right, bounds)


@functools.lru_cache(maxsize=512)
def stretched_pattern(inserted: int, removed: int, a: int, b: int) -> tuple:
    """The bounds of 003 Thm. 3.7's pattern with left-chain distances times ``a`` and
    right-chain ones times ``b`` (cross bounds ``a(t − 1) + b(u − 1)``)."""
    left = removed + 1

    def entry(i: int, j: int, unit: float) -> float:
        if (i < left) == (j < left):
            return (a if i < left else b) * unit
        t, u = (i, j - left) if i < left else (j, i - left)
        return a * t + b * u

    bounds = insert_remove_pattern(inserted, removed).bounds
    return tuple(tuple(entry(i, j, unit) for j, unit in enumerate(row))
                 for i, row in enumerate(bounds))
