"""Automatic coupling search: a ``d_Y``-compatible coupling by linear programming, or a proof
that none exists (001 Def. D.4, Thm. D.6, Cor. D.7).

On one concrete instance the conditional pmfs ``s_1 … s_K`` of a case (``s_x(· | A_i)``,
``s_{x'}(· | E_j)``) are finite. A tuple of batches ``τ`` is *allowed* when ``τ_t ∈ supp s_t``,
``d_Y(τ_1, τ_u) = d_Y(τ_1, supp s_u)`` and ``d_Y(τ_t, τ_u) = d_Y(supp s_t, supp s_u)`` (coordinate
1 is the reference). A ``d_Y``-compatible coupling is exactly a pmf ``γ ≥ 0`` on the allowed tuples
whose marginals are the ``s_t``: linear equalities ``A γ = b``.

:func:`allowed_tuples` lists the allowed tuples by backtracking from each reference batch (the
full product of the supports is never formed). :func:`search_instance` solves the phase-1 LP
``min Σ|slack|  s.t.  A γ + slack = b`` with HiGHS (``scipy.optimize.linprog``):

- optimum 0: the solver's vertex is made exact by solving ``A_S γ_S = b`` in ``Fraction``\\ s on
  its support ``S``; the exact pmf then goes through the same exact marginal and compatibility
  checks as a hand-written coupling, and its bound is that of Cor. D.7;
- optimum > 0: the dual vector is turned into an exact Farkas certificate
  (:mod:`otbound.engine.farkas`) and verified in ``Fraction``\\ s;
- anything that cannot be made exact is reported *undecided*, never found or infeasible.

A searched coupling is a fact about the instances searched only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Iterable

import numpy as np

from otbound.engine.batches import Batch
from otbound.engine.case_bounds import instance_case_bound
from otbound.engine.compatibility import find_compatibility_violation, profiles_by_content
from otbound.engine.conditionals import Case, ConcreteConditionals
from otbound.engine.farkas import FarkasCertificate, certificate_defect, rationalised
from otbound.engine.relations import NULL, BatchRelation
from otbound.engine.report import CaseReport
from otbound.engine.search_outcomes import (FOUND, INFEASIBLE, UNDECIDED, CouplingSearch,
                                             InstanceSearch)
from otbound.engine.validity import batch_key, joint_mismatch


MAX_TUPLES = 200_000
"""The largest number of allowed tuples (LP columns) searched on one instance."""

FEASIBLE_SLACK = 1e-9
"""Phase-1 optima up to this total slack are taken as feasible (then made exact, or undecided)."""



class TooManyTuples(Exception):
    """The allowed tuples of an instance exceed the limit."""


@dataclass(frozen=True)
class TupleSpace:
    """The allowed tuples of one instance (001 Def. D.4), as indices into the supports."""

    order: tuple[str, ...]
    supports: tuple[tuple[Batch, ...], ...]
    probabilities: tuple[tuple[Fraction, ...], ...]
    tuples: np.ndarray = field(compare=False, repr=False)

    @property
    def offsets(self) -> list[int]:
        """Index of each coordinate's first row of ``A``."""
        return [0] + list(np.cumsum([len(s) for s in self.supports]))[:-1]

    def rows(self) -> list[tuple[int, Batch]]:
        return [(c, batch) for c, support in enumerate(self.supports) for batch in support]

    def row_probabilities(self) -> list[Fraction]:
        return [p for column in self.probabilities for p in column]

    def row_tuples(self) -> np.ndarray:
        """The allowed tuples as row indices of ``A`` (one column per coordinate)."""
        return self.tuples + np.asarray(self.offsets, dtype=np.int64)[None, :]

    def batches(self, index: int) -> tuple[Batch, ...]:
        return tuple(support[j] for support, j in zip(self.supports, self.tuples[index]))


def allowed_tuples(conditionals: ConcreteConditionals, relation: BatchRelation,
                   limit: int = MAX_TUPLES) -> TupleSpace:
    """Every tuple with the distances 001 Def. D.4 allows, by backtracking (raises
    :class:`TooManyTuples` beyond ``limit``)."""
    order = conditionals.case.coupling.coordinates
    supports = tuple(tuple(sorted(conditionals.conditional(label), key=batch_key))
                     for label in order)
    probabilities = tuple(tuple(conditionals.conditional(label)[y] for y in support)
                          for label, support in zip(order, supports))
    counts = _count_vectors(supports, relation)
    allowed: dict[tuple[int, int], np.ndarray] = {}
    for t in range(len(order)):
        for u in range(t + 1, len(order)):
            distances = _distances(counts[t], counts[u], relation)
            smallest = (distances.min(axis=1, keepdims=True) if t == 0
                        else distances.min(initial=math.inf))
            allowed[(t, u)] = distances == smallest
            allowed[(u, t)] = allowed[(t, u)].T
    tuples = _backtrack(len(order), [len(s) for s in supports], allowed, limit)
    return TupleSpace(order, supports, probabilities, tuples)


def _count_vectors(supports: tuple[tuple[Batch, ...], ...],
                   relation: BatchRelation) -> list[np.ndarray]:
    """Each support as a matrix of element multiplicities (batches × elements; zero-out does
    not count the null record)."""
    elements = sorted({e for support in supports for batch in support for e in batch}
                      - ({NULL} if relation is BatchRelation.ZERO_OUT else set()))
    index = {e: i for i, e in enumerate(elements)}
    result = []
    for support in supports:
        matrix = np.zeros((len(support), len(elements)), dtype=np.int32)
        for row, batch in enumerate(support):
            for element in batch:
                if element in index:
                    matrix[row, index[element]] += 1
        result.append(matrix)
    return result


def _distances(left: np.ndarray, right: np.ndarray, relation: BatchRelation) -> np.ndarray:
    """``d_Y`` between every batch of ``left`` and of ``right`` (as in
    :meth:`BatchRelation.distance`: multiset differences; substitution needs equal sizes)."""
    common = np.minimum(left[:, None, :], right[None, :, :]).sum(axis=2)
    sizes_left, sizes_right = left.sum(axis=1)[:, None], right.sum(axis=1)[None, :]
    if relation is not BatchRelation.SUBSTITUTION:
        return (sizes_left + sizes_right - 2 * common).astype(float)
    return np.where(sizes_left == sizes_right, sizes_left - common, math.inf).astype(float)


def _backtrack(k: int, sizes: list[int], allowed: dict, limit: int) -> np.ndarray:
    """Tuples ``(i_0, …, i_{k-1})`` with ``allowed[(t, u)][i_t, i_u]`` for all ``t < u``."""
    others = sorted(range(1, k), key=lambda u: allowed[(0, u)].sum())
    found: list[tuple[int, ...]] = []

    def extend(chosen: list[int]) -> None:
        if len(chosen) == k:
            found.append(tuple(chosen))
            if len(found) > limit:
                raise TooManyTuples(f"more than {limit} allowed tuples")
            return
        u = others[len(chosen) - 1]
        mask = allowed[(0, u)][chosen[0]].copy()
        for level, j in enumerate(chosen[1:]):
            mask &= allowed[(others[level], u)][j]
        for index in np.flatnonzero(mask):
            extend(chosen + [int(index)])

    for i in range(sizes[0]):
        extend([i])
    positions = [0] + others
    tuples = np.zeros((len(found), k), dtype=np.int64)
    if found:
        tuples[:, positions] = np.asarray(found, dtype=np.int64)
    return tuples


def search_instance(conditionals: ConcreteConditionals, relation: BatchRelation,
                    instance: dict | None = None, limit: int = MAX_TUPLES) -> InstanceSearch:
    """Find a ``d_Y``-compatible coupling on one instance, or prove that none exists."""
    instance = dict(instance or {})
    try:
        space = allowed_tuples(conditionals, relation, limit)
    except TooManyTuples as error:
        return InstanceSearch(instance, UNDECIDED, note=str(error))
    uncovered = _uncovered(space)
    if uncovered is not None:
        return _infeasible(conditionals, space, instance, uncovered)
    result = _solve(space, "highs")
    if result.status != 0:
        return InstanceSearch(instance, UNDECIDED, len(space.tuples),
                              note=f"HiGHS stopped: {result.message}")
    if result.fun > FEASIBLE_SLACK:
        certificate = rationalised(result.eqlin.marginals, space.rows(),
                                   space.row_probabilities(), space.row_tuples(), space.order)
        if certificate is not None:
            return _infeasible(conditionals, space, instance, certificate)
    return _found(conditionals, relation, space, instance, result)


def _uncovered(space: TupleSpace) -> FarkasCertificate | None:
    """A batch of some support in no allowed tuple: the certificate ``y = 1`` on its row."""
    for c, support in enumerate(space.supports):
        covered = np.zeros(len(support), dtype=bool)
        covered[space.tuples[:, c]] = True
        if not covered.all():
            j = int(np.flatnonzero(~covered)[0])
            return FarkasCertificate(((space.order[c], support[j], Fraction(1)),),
                                     space.probabilities[c][j])
    return None


def _infeasible(conditionals: ConcreteConditionals, space: TupleSpace, instance: dict,
                certificate: FarkasCertificate) -> InstanceSearch:
    """Infeasible once the certificate passes the exact check; undecided otherwise."""
    pmfs = {label: conditionals.conditional(label) for label in space.order}
    defect = certificate_defect(certificate, pmfs,
                                (space.batches(i) for i in range(len(space.tuples))), space.order)
    if defect:
        return InstanceSearch(instance, UNDECIDED, len(space.tuples),
                              note=f"the solver's infeasibility certificate fails the exact "
                                   f"check: {defect}")
    return InstanceSearch(instance, INFEASIBLE, len(space.tuples), certificate=certificate)


def _solve(space: TupleSpace, method: str):
    """The phase-1 LP ``min Σ (s⁺ + s⁻)  s.t.  A γ + s⁺ − s⁻ = b, γ, s ≥ 0``."""
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix, hstack, identity

    rows, count = space.row_tuples(), len(space.tuples)
    size = sum(len(s) for s in space.supports)
    columns = np.repeat(np.arange(count), rows.shape[1])
    a = csr_matrix((np.ones(rows.size), (rows.ravel(), columns)), shape=(size, count))
    slack = identity(size, format="csr")
    costs = np.concatenate([np.zeros(count), np.ones(2 * size)])
    b = np.array([float(p) for p in space.row_probabilities()])
    return linprog(costs, A_eq=hstack([a, slack, -slack], format="csr"), b_eq=b,
                   bounds=(0, None), method=method)


def _found(conditionals: ConcreteConditionals, relation: BatchRelation, space: TupleSpace,
           instance: dict, result) -> InstanceSearch:
    """The solver's coupling made exact and checked like a hand-written one."""
    count = len(space.tuples)
    masses = None
    for attempt in _attempts(result, space):
        if attempt.status == 0 and attempt.fun <= FEASIBLE_SLACK:
            masses = exact_masses(space, attempt.x[:count])
            if masses is not None:
                break
    if masses is None:
        return InstanceSearch(instance, UNDECIDED, count,
                              note=f"the LP's total slack is {result.fun:.3g}, but neither a "
                                   "coupling nor a certificate could be made exact")
    joint = {space.batches(i): p for i, p in masses.items() if p}
    mismatch = joint_mismatch(conditionals, joint)
    if mismatch is None:
        violation = find_compatibility_violation(conditionals, relation, joint)
        if violation is not None:
            return InstanceSearch(instance, UNDECIDED, count,
                                  note=f"the exact coupling fails Def. D.4: {violation.describe()}")
        bound = instance_case_bound(conditionals, relation, joint)
        return InstanceSearch(instance, FOUND, count, len(joint), bound=bound, joint=joint)
    return InstanceSearch(instance, UNDECIDED, count, note="the exact coupling fails the "
                          f"marginal check: {mismatch.describe()}")


def _attempts(result, space: TupleSpace):
    """The solver's solution, then (only if needed) a dual-simplex vertex."""
    yield result
    yield _solve(space, "highs-ds")


def exact_masses(space: TupleSpace, floats: np.ndarray) -> dict[int, Fraction] | None:
    """Exact masses on the solver's support ``S`` solving ``A_S γ_S = b`` in ``Fraction``\\ s
    (``None`` when the exact solution is negative somewhere or the system is inconsistent).

    Gauss–Jordan elimination over the support's columns, largest solver value first, each
    pivoting on the sparsest row that holds it; columns left without a pivot (a solution that is
    not a vertex) keep the solver's value, read as a rational, and the pivots absorb the rest
    exactly."""
    support = sorted((int(i) for i in np.flatnonzero(floats > FEASIBLE_SLACK * 1e-3)),
                     key=lambda c: -floats[c])
    rows = space.row_tuples()
    equations: dict[int, dict[int, Fraction]] = {
        r: {} for r in range(len(space.row_probabilities()))}
    for column in support:
        for r in rows[column]:
            equations[int(r)][column] = equations[int(r)].get(column, Fraction(0)) + 1
    rhs = dict(enumerate(space.row_probabilities()))
    pivots = _eliminate(support, equations, rhs)
    free = {c: Fraction(float(floats[c])).limit_denominator(10 ** 12)
            for c in support if c not in pivots}
    values = dict(free)
    for r, equation in equations.items():
        rest = rhs[r] - sum((coefficient * free[c] for c, coefficient in equation.items()
                             if c in free), Fraction(0))
        pivot = next((c for c in equation if c in pivots and pivots[c] == r), None)
        if pivot is None:
            if rest != 0:
                return None
        else:
            values[pivot] = rest
    return values if all(v >= 0 for v in values.values()) else None


def _eliminate(columns: list[int], equations: dict[int, dict[int, Fraction]],
               rhs: dict[int, Fraction]) -> dict[int, int]:
    """Reduce ``equations`` (row -> {column: coefficient}, right-hand sides ``rhs``) in place to
    reduced row echelon form over ``columns``, in that order; the pivot row of each column."""
    holding: dict[int, set[int]] = {}
    for r, equation in equations.items():
        for c in equation:
            holding.setdefault(c, set()).add(r)
    pivots: dict[int, int] = {}
    used: set[int] = set()
    for column in columns:
        candidates = [r for r in holding.get(column, ()) if r not in used]
        if not candidates:
            continue
        row = min(candidates, key=lambda r: (len(equations[r]), r))
        used.add(row)
        pivots[column] = row
        scale = equations[row][column]
        if scale != 1:
            equations[row] = {c: v / scale for c, v in equations[row].items()}
            rhs[row] /= scale
        for other in list(holding[column] - {row}):
            _subtract(equations, rhs, holding, other, row, equations[other][column])
    return pivots


def _subtract(equations: dict[int, dict[int, Fraction]], rhs: dict[int, Fraction],
              holding: dict[int, set[int]], target: int, source: int, factor: Fraction) -> None:
    """Row ``target`` minus ``factor`` times row ``source`` (keeping ``holding`` current)."""
    equation = equations[target]
    for c, v in equations[source].items():
        updated = equation.get(c, Fraction(0)) - factor * v
        if updated:
            equation[c] = updated
            holding[c].add(target)
        else:
            equation.pop(c, None)
            holding[c].discard(target)
    rhs[target] -= factor * rhs[source]


def search_case(case: Case, relation: BatchRelation, instances: Iterable) -> CaseReport:
    """Search every instance of a case and check each coupling found exactly, like a
    hand-written one: marginals (``Fraction``), Def. D.4, and Cor. D.7's matrices."""
    profiles: dict = {}
    outcomes, sizes, skipped = [], [], []
    for instance, conditionals in instances:
        if isinstance(conditionals, str):   # skipped, for this reason
            skipped.append(conditionals)
            continue
        outcome = search_instance(conditionals, relation, instance)
        outcomes.append(outcome)
        if outcome.status == FOUND:
            sizes.append(instance["N"])
            for content, matrices in profiles_by_content(conditionals, relation).items():
                profiles.setdefault(content, set()).update(matrices)
    search = CouplingSearch(case.reference, tuple(outcomes))
    note = ("a searched coupling exists only on the instances searched (no generative "
            "coupling is given, so nothing is proved for every N)")
    report = CaseReport(case, len(sizes), tuple(sizes), tuple(skipped), symbolic_note=note,
                        search=search)
    if not outcomes:
        return replace(report, defect="no instance of the grid could be searched")
    if not search.found_everywhere:
        return replace(report, defect=_not_found(search))
    stable = {c: next(iter(m)) for c, m in profiles.items() if len(m) == 1}
    return replace(report, profiles=stable if len(stable) == len(profiles) else {},
                   unstable=len(stable) != len(profiles))


def _not_found(search: CouplingSearch) -> str:
    first = next(o for o in search.outcomes if o.status != FOUND)
    if search.count(INFEASIBLE):
        return (f"no d_Y-compatible coupling exists for these events on "
                f"{search.count(INFEASIBLE)} of {len(search.outcomes)} instances searched "
                f"(first: {first.describe()})")
    return (f"the coupling search is undecided on {search.count(UNDECIDED)} of "
            f"{len(search.outcomes)} instances (first: {first.describe()})")
