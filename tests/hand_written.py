"""The hand-written numeric forms that otbound evaluated before every number came from a derived
bound: kept only as test oracles, to show that the derived bounds give the same problems."""

from __future__ import annotations

import itertools
import math

import numpy as np

from otbound.engine.bound import ConstraintMatrix
from otbound.numerics.problems import NumericProblem, Term, insert_remove_pattern
from otbound.verify.high_precision import log_binomial_weights, log_hypergeometric_weights


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
