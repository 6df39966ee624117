"""Mixture problems with numeric weights: the input of the mechanism solvers.

A :class:`NumericProblem` is the numeric form of one :class:`otbound.engine.bound.MixtureProblem`:
``max_ŷ Ψ(Σ_i w_i b_{ŷ_i} ‖ Σ_j v_j b_{ŷ'_j})`` under a constraint matrix, with the weights as
logarithms (so that ``Binom(32 | 32, 10⁻⁶) = 10⁻¹⁹²`` is no problem). The
:func:`insert_remove_pattern` is the constraint matrix of 003 Thm. 3.7, which every solver for
additive-noise mechanisms recognises.
"""

from __future__ import annotations

import functools
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
        return self._closed

    @functools.cached_property
    def _closed(self) -> ConstraintMatrix:
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


class PatternMatrix(ConstraintMatrix):
    """003 Thm. 3.7's constraints for ``removed + 1`` left and ``inserted + 1`` right components,
    the left chain's distances times ``a`` and the right chain's times ``b``:
    ``d(L_t, L_u) ≤ a|t − u|``, ``d(R_t, R_u) ≤ b|t − u|``, ``d(L_t, R_u) ≤ a(t − 1) + b(u − 1)``
    (``a = b = 1``: the pattern itself). Closed under the triangle inequality already, and kept
    as its four numbers: its bounds are built only when something asks for them (a group of 256
    elements has 257 such patterns of 258² bounds)."""

    inserted: int
    removed: int
    a: float
    b: float

    def __init__(self, inserted: int, removed: int, a: float = 1.0, b: float = 1.0,
                 labels: tuple[str, ...] | None = None) -> None:
        if labels is None:
            labels = (tuple(f"L{t}" for t in range(1, removed + 2))
                      + tuple(f"R{u}" for u in range(1, inserted + 2)))
        if len(labels) != inserted + removed + 2:
            raise InvalidSpecification("one label per component of the pattern is needed")
        for name, value in (("inserted", inserted), ("removed", removed), ("a", a), ("b", b),
                            ("labels", tuple(labels))):
            object.__setattr__(self, name, value)

    @property
    def parameters(self) -> tuple[int, int, float, float]:
        """``(K₊, K₋, a, b)``."""
        return self.inserted, self.removed, self.a, self.b

    @functools.cached_property
    def array(self) -> np.ndarray:
        left = self.a * np.arange(self.removed + 1)
        right = self.b * np.arange(self.inserted + 1)
        across = left[:, None] + right[None, :]
        rows = np.block([[np.abs(left[:, None] - left[None, :]), across],
                         [across.T, np.abs(right[:, None] - right[None, :])]])
        rows.flags.writeable = False
        return rows

    @functools.cached_property
    def bounds(self) -> tuple[tuple[float, ...], ...]:
        return tuple(tuple(row) for row in self.array.tolist())

    def closure(self) -> "PatternMatrix":
        return self

    def relabelled(self, labels: tuple[str, ...]) -> "PatternMatrix":
        return PatternMatrix(*self.parameters, labels=tuple(labels))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PatternMatrix):
            return (self.labels, self.parameters) == (other.labels, other.parameters)
        if isinstance(other, ConstraintMatrix):
            return self.labels == other.labels and np.array_equal(self.array, other.array)
        return NotImplemented

    def __hash__(self) -> int:
        """A plain matrix's hash, as equal ones must have (builds the bounds)."""
        return hash((self.labels, self.bounds))

    def __reduce__(self):
        """Pickled as its four numbers and labels, not its (cached) bounds."""
        return PatternMatrix, (*self.parameters, self.labels)

    def __repr__(self) -> str:
        return (f"PatternMatrix(inserted={self.inserted}, removed={self.removed}, a={self.a}, "
                f"b={self.b})")


def insert_remove_pattern(inserted: int, removed: int) -> PatternMatrix:
    """003 Thm. 3.7's constraint pattern (:class:`PatternMatrix` with ``a = b = 1``)."""
    return PatternMatrix(inserted, removed)


def stretched_pattern(inserted: int, removed: int, a: float, b: float) -> tuple:
    """The bounds of 003 Thm. 3.7's pattern with left-chain distances times ``a`` and
    right-chain ones times ``b`` (cross bounds ``a(t − 1) + b(u − 1)``)."""
    return PatternMatrix(inserted, removed, a, b).bounds
