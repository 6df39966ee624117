"""One registry of how a mixture problem is solved: the mechanism's exact worst case for the
problem itself, else for the first of its registered sound relaxations that the mechanism solves.

Every route asks :func:`solve` — the one-step numbers, truncated Poisson accounting, the verifier
and the audit's references — so one problem gets one answer, and the answer records what was
used: ``tight`` (the problem's own worst case) or the relaxation's name (sound, not tight).

A relaxation loosens the closed constraints to a pattern that an exact solver recognises; every
configuration feasible for the problem is feasible for the relaxation, so its maximum can only
be larger. Each knows when it applies (it returns ``None`` otherwise):

* :func:`two_chain_stretches` — 003 Thm. 3.7's pattern with one stretch per chain, the
  smallest that covers the constraints (002 Thm. 3.3 and 3.4's pairs, for one component a side
  beyond the shared one);
* :func:`relaxed_to_pattern` — 003 Thm. 3.7's pattern scaled by the smallest factor that
  covers the constraints (any number of components).

:func:`solved_cases` solves every problem of a setting's cases so, and takes the product
coupling (mechanism-agnostic) for a problem no solver answers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Callable

import numpy as np

from otbound.choices import Quantity
from otbound.errors import Refusal
from otbound.engine.bound import ConstraintMatrix
from otbound.numerics import three_point
from otbound.numerics.problems import NumericProblem, PatternMatrix, Term, insert_remove_pattern


class Basis(Enum):
    """How the dominating pairs of a bound were found."""

    TIGHT = "tight"
    """The mechanism's exact worst case of every problem."""
    RELAXED = "relaxed"
    """Some problem's constraints loosened to a pattern solved exactly: sound, not tight."""
    AGNOSTIC = "mechanism-agnostic"
    """Some problem by joint convexity over the product coupling: sound, not tight."""


@dataclass(frozen=True)
class How:
    """How the dominating pairs were found, and the sentence that says so to the user."""

    basis: Basis
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Solution:
    """The dominating pairs of a problem and how they were found."""

    problem: NumericProblem
    """The problem solved: the given one, or its relaxation (the given one when unsolved)."""
    pairs: list | None
    """``None`` when neither the problem nor any registered relaxation has an exact solver."""
    relaxation: str | None
    """``None`` when the pairs are the problem's own worst case (tight); else the relaxation's
    name (sound, not tight)."""
    refusal: str | None
    """Why the mechanism has no exact solver for the problem itself (its own words)."""


def solve(problem: NumericProblem, mechanism, quantity: Quantity = Quantity.ADP) -> Solution:
    """The mechanism's exact worst case of the problem (for Rényi divergences, its Rényi
    solvers, e.g. 001 Thm. 3.6's three points), else of the first registered relaxation it
    solves; no pairs when there is none (the caller bounds the problem agnostically)."""
    exact = mechanism.renyi_pairs if quantity.renyi else mechanism.tight_pairs
    problem = merged_coincident(problem)
    refusal = None
    for name, loosen in (("tight", _itself),) + RELAXATIONS:
        loose = loosen(problem)
        if loose is None:
            continue
        refused = mechanism.cannot_solve(loose, quantity)
        if refused is not None:
            refusal = refusal or str(refused)
            continue
        return Solution(loose, exact(loose), None if loose is problem else name, refusal)
    return Solution(problem, None, None, refusal)


def _itself(problem: NumericProblem) -> NumericProblem:
    return problem


def merged_coincident(problem: NumericProblem) -> NumericProblem:
    """The same problem with the components of one side that the constraints fix at one point
    (closed distance 0) merged into one, their weights added: ``b(ŷ_s) = b(ŷ_t)`` whenever
    ``ŷ_s = ŷ_t``, so the mixtures and the maximum are unchanged (a zero-out's null record
    makes such components). ``problem`` itself when none coincide (a pattern whose chains
    have steps ``a, b > 0`` is known to have none, without building its bounds)."""
    pattern = problem.constraints
    if isinstance(pattern, PatternMatrix) and pattern.a > 0 and pattern.b > 0:
        return problem
    closed = problem.closed().array
    sides = (range(problem.left.size), range(problem.left.size, len(closed)))
    kept = [[side[i] for i in np.flatnonzero(~np.triu(closed[side][:, side] == 0, 1).any(0))]
            for side in sides]
    if sum(map(len, kept)) == len(closed):
        return problem
    weights = np.concatenate([problem.left, problem.right])
    # a weight is at most 1: the sum rounded above 1 is 1
    merged = [[min(0.0, np.logaddexp.reduce([weights[j] for j in side if closed[i, j] == 0]))
               for i in ones] for side, ones in zip(sides, kept)]
    order = kept[0] + kept[1]
    labels = tuple(problem.constraints.labels[i] for i in order)
    rows = tuple(tuple(float(closed[i, j]) for j in order) for i in order)
    return NumericProblem(np.array(merged[0]), np.array(merged[1]),
                          ConstraintMatrix(labels, rows))


def two_chain_stretches(problem: NumericProblem) -> NumericProblem | None:
    """One component a side beyond the shared one (``L₁ = R₁``): the pattern with
    ``d(L₁, L₂) ≤ a``, ``d(R₁, R₂) ≤ b``, ``d(L₂, R₂) ≤ a + b``, where ``a`` and ``b`` are the
    smallest that cover the closed bounds to ``L₂`` and to ``R₂`` (``a + b`` then covers
    ``d(L₂, R₂)`` by the triangle inequality through ``R₁``)."""
    if (problem.left.size, problem.right.size) != (2, 2):
        return None
    closed = problem.closed().array   # labels L₁, L₂, R₁, R₂
    if closed[0, 2] != 0 or not np.isfinite(closed).all():
        return None
    a, b = max(closed[0, 1], closed[1, 2]), max(closed[2, 3], closed[0, 3])
    if not (a > 0 and b > 0):
        return None
    pattern = PatternMatrix(1, 1, float(a), float(b))
    return (NumericProblem(problem.left, problem.right, pattern)
            if _covers(pattern, closed) else None)


def relaxed_to_pattern(problem: NumericProblem) -> NumericProblem | None:
    """The problem with its constraints loosened to 003 Thm. 3.7's pattern scaled by the
    smallest factor ``c`` that bounds every closed constraint (``c`` = the largest ratio of a
    closed bound to the pattern's), or ``None`` when none does (a constraint unbounded, or
    ``d(L₁, R₁) > 0``, which the pattern fixes at 0). Under substitution the cross bounds
    ``d(L_t, R_u) ≤ max(t − 1, u − 1)`` of sampling with replacement become
    ``(t − 1) + (u − 1)``, which the triangle inequality through ``L₁ = R₁`` implies anyway."""
    inserted, removed = problem.right.size - 1, problem.left.size - 1
    closed = problem.closed().array
    unit = insert_remove_pattern(inserted, removed).array
    if not np.isfinite(closed).all() or closed.size == 1 or np.any(closed[unit == 0] > 0):
        return None
    spaced = unit > 0
    stretch = float(np.max(closed[spaced] / unit[spaced]))
    if stretch <= 0:
        return None
    for _ in range(8):   # the products may round below a closed bound: one ulp more each time
        pattern = PatternMatrix(inserted, removed, stretch, stretch)
        if _covers(pattern, closed):
            return NumericProblem(problem.left, problem.right, pattern)
        stretch = math.nextafter(stretch, math.inf)
    return None


def _covers(pattern: PatternMatrix, closed: np.ndarray) -> bool:
    return bool(np.all(closed <= pattern.array))


RELAXATIONS: tuple[tuple[str, Callable[[NumericProblem], NumericProblem | None]], ...] = (
    ("relaxed to 003 Thm. 3.7's pattern with one stretch per chain", two_chain_stretches),
    ("relaxed to 003 Thm. 3.7's pattern, scaled", relaxed_to_pattern),
)
"""The sound relaxations, tightest first: ``(name, loosen)``."""


def solved_cases(cases: list[list[Term]], mechanism,
                 quantity: Quantity = Quantity.ADP) -> tuple[list[list], How] | Refusal:
    """Dominating pairs for every case (as branches: log-probability and pairs), and how they
    were found: the solver registry's answer for each problem (:func:`~otbound.numerics.
    solvers.solve`: the mechanism's worst case of the problem, tight, or of a registered sound
    relaxation), else a mechanism-agnostic bound — by joint convexity over the product coupling
    of the two mixtures, ``Σ_ij w_i v_j · pair(D[L_i, R_j])`` — each said so; or the refusal of
    a product coupling with unconstrained components (:func:`_product_branches`)."""
    solved, relaxed, agnostic = [], [], []
    for terms in cases:
        branches = []
        for log_probability, problem in terms:
            solution = solve(problem, mechanism, quantity)
            if solution.pairs is None:
                agnostic.append(solution.refusal)
                product = _product_branches(log_probability, problem, mechanism)
                if isinstance(product, Refusal):
                    return product
                branches.extend(product)
                continue
            if solution.relaxation is not None:
                relaxed.append(f"{solution.relaxation}; {solution.refusal}")
            branches.append((log_probability, solution.pairs))
        solved.append(branches)
    if not agnostic and not relaxed:
        if three_point.enclosed(solved):
            return solved, How(Basis.TIGHT, f"tight: {three_point.BASIS}")
        return solved, How(Basis.TIGHT, f"tight: the worst case of the {mechanism.name} "
                                        f"mechanism ({mechanism.worst_case_source})")
    if not agnostic:
        return solved, How(Basis.RELAXED, (
            f"relaxed (sound, not tight): no exact {mechanism.name} solver for a constraint "
            "pattern, so its constraints were loosened to 003 Thm. 3.7's pattern, which the "
            f"{mechanism.name} solver solves exactly ({mechanism.worst_case_source}) "
            f"({relaxed[0]})"))
    return solved, How(Basis.AGNOSTIC, (
        "mechanism-agnostic (joint convexity over the product coupling; sound, not tight): no "
        f"exact {mechanism.name} solver for a constraint pattern ({agnostic[0]})"))


def _product_branches(log_probability: float, problem: NumericProblem,
                      mechanism) -> list | Refusal:
    """One term's branches through the product coupling (joint convexity): each pair of
    components of positive weight at its distance, or the refusal of a pair at an unbounded
    distance (no group privacy profile reaches it)."""
    distances = problem.closed().array[:problem.left.size, problem.left.size:]
    branches = []
    for i, log_w in enumerate(problem.left):
        for j, log_v in enumerate(problem.right):
            if log_w == -math.inf or log_v == -math.inf:
                continue
            if not math.isfinite(distances[i, j]):
                return Refusal(
                    f"components L{i + 1} and R{j + 1} are unconstrained "
                    f"({problem.constraints.describe()}): no bound through the "
                    f"{mechanism.name} mechanism's group privacy profile")
            branches.append((log_probability + log_w + log_v,
                             [mechanism.distance_pair(int(distances[i, j]))]))
    return branches
