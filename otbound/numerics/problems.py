"""Mixture problems with numeric weights: the input of the mechanism solvers.

A :class:`NumericProblem` is the numeric form of one :class:`otbound.engine.bound.MixtureProblem`:
``max_ŷ Ψ(Σ_i w_i b_{ŷ_i} ‖ Σ_j v_j b_{ŷ'_j})`` under a constraint matrix, with the weights as
logarithms (so that ``Binom(32 | 32, 10⁻⁶) = 10⁻¹⁹²`` is no problem). The
:func:`insert_remove_pattern` is the constraint matrix of 003 Thm. 3.7, which every solver for
additive-noise mechanisms recognises.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

import mpmath as mp
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


def log_binomial_weights(count: int, rate: float) -> np.ndarray:
    """``log Binom(i | count, rate)`` for ``i = 0 … count``, correctly rounded (formed in
    mpmath from the exact rate), so that each weight is off by at most an ulp of its logarithm."""
    with mp.workdps(40):
        r = mp.mpf(rate)
        log_r = mp.log(r) if rate > 0 else None
        log_keep = mp.log1p(-r) if rate < 1 else None

        def log_weight(i: int) -> float:
            if (i > 0 and log_r is None) or (i < count and log_keep is None):
                return -math.inf
            return float(mp.log(math.comb(count, i)) + (i * log_r if i else 0)
                         + ((count - i) * log_keep if i < count else 0))

        return np.array([log_weight(i) for i in range(count + 1)])


def log_hypergeometric_weights(size: int, group: int, batch: int) -> np.ndarray:
    """``log HyperGeom(k | N, K, q) = log[C(K, k) C(N − K, q − k) / C(N, q)]`` for
    ``k = 0 … K`` (``−inf`` where impossible), to a few ulps for any ``N``.

    The log-gamma sums are formed in mpmath with enough digits to survive the cancellation
    between terms of size ``N log N``."""
    with mp.workdps(30 + len(str(size))):
        def log_choose(n: int, k: int):
            return mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)

        total = log_choose(size, batch)
        return np.array([float(log_choose(group, k) + log_choose(size - group, batch - k) - total)
                         if 0 <= batch - k <= size - group and k <= batch else -math.inf
                         for k in range(group + 1)])
