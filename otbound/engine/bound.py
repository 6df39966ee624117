"""The bound a derivation emits: a maximum over cases of expected constrained mixture divergences.

001 Thm. 3.4 with Prop. 3.5 bounds ``Ψ_α(m_x ‖ m_{x'})`` (and, by 003 Thm. 3.4, ``H_γ``) by

    Σ_p P(p) · max_ŷ Ψ_α( Σ_i w_i b_{ŷ_i} ‖ Σ_j v_j b_{ŷ'_j} )  s.t.  d_Y(ŷ_t, ŷ_u) ≤ D_p[t, u],

where ``w_i = P(A_i)``, ``v_j = P(E_j)``, and ``D_p`` is a *constraint matrix* of pairwise distance
bounds. For a ``d_Y``-compatible coupling (001 Cor. D.7) ``D_p`` depends only on the reference
batch, and usually there is a single profile ``p``. A relation with several pair shapes
(insertion *or* removal) gives the maximum over cases.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping

from otbound.errors import InvalidSpecification

if TYPE_CHECKING:
    import sympy as sp

# sympy (and otbound.engine.simplify, which needs it) is imported in the functions that use it:
# the numerics build ConstraintMatrix for every bound, and must not wait for sympy to load.

INFINITE = math.inf


def _json_distance(value: float) -> int | None:
    return None if value == INFINITE else int(value)


@dataclass(frozen=True)
class ConstraintMatrix:
    """Upper bounds ``D[t, u]`` on ``d_Y(ŷ_t, ŷ_u)``; ``inf`` means unconstrained."""

    labels: tuple[str, ...]
    bounds: tuple[tuple[float, ...], ...]

    @staticmethod
    def from_pairs(labels: Iterable[str],
                   pairs: Mapping[tuple[str, str], float]) -> "ConstraintMatrix":
        """Build from bounds on some unordered pairs of labels; other pairs are unconstrained."""
        labels = tuple(labels)
        index = {label: i for i, label in enumerate(labels)}
        rows = [[0.0 if i == j else INFINITE for j in range(len(labels))]
                for i in range(len(labels))]
        for (t, u), value in pairs.items():
            if t not in index or u not in index or t == u:
                raise InvalidSpecification(f"constraint on unknown or equal labels ({t!r}, {u!r})")
            if value < 0:
                raise InvalidSpecification(
                    f"distance bound for ({t}, {u}) must be >= 0, got {value}")
            i, j = index[t], index[u]
            rows[i][j] = rows[j][i] = min(rows[i][j], value)
        return ConstraintMatrix(labels, tuple(tuple(row) for row in rows))

    def bound(self, t: str, u: str) -> float:
        return self.bounds[self.labels.index(t)][self.labels.index(u)]

    def closure(self) -> "ConstraintMatrix":
        """The tightest matrix with the same feasible set: ``d_Y`` obeys the triangle inequality."""
        return _closure(self)

    @functools.cached_property
    def array(self):
        """The bounds as a read-only numpy array (built once)."""
        import numpy as np

        rows = np.array(self.bounds, dtype=float).reshape(len(self.labels), -1)
        rows.flags.writeable = False
        return rows

    def essential_pairs(self) -> list[tuple[str, str, float]]:
        """A small set of finite bounds whose closure equals this matrix's closure."""
        target = self.closure()
        kept = {(t, u): target.bound(t, u) for t, u in itertools.combinations(self.labels, 2)
                if target.bound(t, u) < INFINITE}
        order = list(kept)
        for pair in sorted(order, key=lambda p: (-kept[p], -order.index(p))):
            trial = {p: v for p, v in kept.items() if p != pair}
            if ConstraintMatrix.from_pairs(self.labels, trial).closure().bounds == target.bounds:
                kept = trial
        return [(t, u, v) for (t, u), v in kept.items()]

    def relabelled(self, labels: tuple[str, ...]) -> "ConstraintMatrix":
        """The same matrix with its labels renamed position by position."""
        return ConstraintMatrix(tuple(labels), self.bounds)

    def describe(self, latex: bool = False) -> str:
        parts = []
        for t, u, value in self.essential_pairs():
            yt, yu = (rf"\hat y_{{{t}}}", rf"\hat y_{{{u}}}") if latex else (f"ŷ_{t}", f"ŷ_{u}")
            if value == 0:
                parts.append(f"{yt} = {yu}")
            else:
                parts.append(rf"d_Y({yt}, {yu}) \leq {int(value)}" if latex
                             else f"d_Y({yt}, {yu}) ≤ {int(value)}")
        return ", ".join(parts) if parts else ("no constraint" if not latex else r"\mathrm{none}")

    def to_json(self) -> dict:
        return {"labels": list(self.labels),
                "matrix": [[_json_distance(v) for v in row] for row in self.bounds]}


@functools.lru_cache(maxsize=4096)
def _closure(matrix: ConstraintMatrix) -> ConstraintMatrix:
    """Floyd–Warshall shortest paths over the distance bounds (exact: the bounds are small
    integers or infinity, so the sums are exact in floating point)."""
    import numpy as np

    rows = matrix.array
    for k in range(len(matrix.labels)):
        rows = np.minimum(rows, rows[:, k:k + 1] + rows[k:k + 1, :])
    return ConstraintMatrix(matrix.labels, tuple(tuple(float(v) for v in row) for row in rows))


@dataclass(frozen=True)
class Component:
    """A mixture component ``b_{ŷ_label}`` with its weight."""

    label: str
    weight: sp.Expr


@dataclass(frozen=True)
class MixtureProblem:
    """``max_ŷ Ψ(Σ_left w b_ŷ ‖ Σ_right v b_ŷ)`` subject to a constraint matrix."""

    left: tuple[Component, ...]
    right: tuple[Component, ...]
    constraints: ConstraintMatrix

    def __post_init__(self) -> None:
        labels = tuple(c.label for c in self.left + self.right)
        if labels != self.constraints.labels:
            raise InvalidSpecification(
                f"constraint labels {self.constraints.labels} differ from components {labels}")

    def swapped(self) -> "MixtureProblem":
        """``max_ŷ Ψ(Σ_right ‖ Σ_left)`` under the same constraints. A coupling bounds the
        divergence in both directions: 001 Thm. 3.4 rests on joint convexity, which holds in
        both arguments, and Prop. 3.5's constraints are symmetric."""
        labels = [c.label for c in self.right + self.left]
        pairs = {(t, u): self.constraints.bound(t, u) for t, u in itertools.combinations(labels, 2)}
        return MixtureProblem(self.right, self.left, ConstraintMatrix.from_pairs(labels, pairs))

    def positions(self) -> tuple[str, ...]:
        """Position names shared by equal problems: ``L1 … LI, R1 … RJ``."""
        return (tuple(f"L{i + 1}" for i in range(len(self.left)))
                + tuple(f"R{j + 1}" for j in range(len(self.right))))

    def difference(self, other: "MixtureProblem") -> str:
        """Why the two problems differ (empty when they are the same problem, whatever the
        order of their components and however components at one point are split: see
        :meth:`equivalent`); the first difference position by position."""
        found = self._positional_difference(other)
        return "" if not found or self.equivalent(other) else found

    def _positional_difference(self, other: "MixtureProblem") -> str:
        from otbound.engine.simplify import is_identically_zero

        if (len(self.left), len(self.right)) != (len(other.left), len(other.right)):
            return (f"mixture sizes differ: {len(self.left)}|{len(self.right)} components vs "
                    f"{len(other.left)}|{len(other.right)}")
        for mine, theirs in zip(self.left + self.right, other.left + other.right):
            if not is_identically_zero(mine.weight - theirs.weight):
                return f"weight of {mine.label} is {mine.weight}, the other has {theirs.weight}"
        names = self.positions()
        if (self.constraints.closure().relabelled(names)
                != other.constraints.closure().relabelled(names)):
            return (f"constraints differ: {self.constraints.describe()} vs "
                    f"{other.constraints.describe()}")
        return ""

    def merged(self) -> "MixtureProblem":
        """The same problem with the components of one side that the constraints put at one
        point (closed distance 0) merged into one, their weights added: ``b_ŷ`` is then the same
        distribution, so the mixtures and the maximum are unchanged."""
        closed = self.constraints.closure()
        split = len(self.left)
        kept: list[int] = []
        parts: list[list[sp.Expr]] = []
        components = self.left + self.right
        for index, component in enumerate(components):
            home = next((k for k, first in enumerate(kept) if (first >= split) == (index >= split)
                         and closed.bounds[first][index] == 0), None)
            if home is None:
                kept.append(index)
                parts.append([component.weight])
            else:
                parts[home].append(component.weight)
        if len(kept) == len(components):
            return self
        merged = [Component(components[i].label, sum(weights[1:], weights[0]))
                  for i, weights in zip(kept, parts)]
        left = tuple(c for i, c in zip(kept, merged) if i < split)
        labels = [components[i].label for i in kept]
        bounds = tuple(tuple(closed.bounds[i][j] for j in kept) for i in kept)
        return MixtureProblem(left, tuple(merged[len(left):]),
                              ConstraintMatrix(tuple(labels), bounds))

    def equivalent(self, other: "MixtureProblem") -> bool:
        """Whether the two are one problem written in two shapes: after :meth:`merged`, a
        renumbering of each side's components that carries weights to equal weights and closed
        constraints to equal constraints (found by backtracking, structure before weights)."""
        from otbound.engine.simplify import is_identically_zero

        mine, theirs = self.merged(), other.merged()
        if (len(mine.left), len(mine.right)) != (len(theirs.left), len(theirs.right)):
            return False
        a, b = mine.constraints.closure().bounds, theirs.constraints.closure().bounds
        sides = [i >= len(mine.left) for i in range(len(a))]
        weights_a = [c.weight for c in mine.left + mine.right]
        weights_b = [c.weight for c in theirs.left + theirs.right]
        same_weight = functools.cache(
            lambda i, j: is_identically_zero(weights_a[i] - weights_b[j]))

        def signature(rows, i):
            return sides[i], tuple(sorted(rows[i]))

        def extend(assigned: list[int]) -> bool:
            i = len(assigned)
            if i == len(a):
                return True
            for j in range(len(b)):
                if (j in assigned or signature(a, i) != signature(b, j)
                        or any(a[i][k] != b[j][assigned[k]] for k in range(i))
                        or not same_weight(i, j)):
                    continue
                if extend(assigned + [j]):
                    return True
            return False

        return extend([])

    def differences(self, other: "MixtureProblem") -> list[str]:
        """Every difference from ``other``, position by position (001 Cor. D.7 form): each
        weight, and each entry of the constraint matrices closed under the triangle inequality
        (empty when they are the same problem)."""
        from otbound.engine.simplify import is_identically_zero

        if (len(self.left), len(self.right)) != (len(other.left), len(other.right)):
            return [self.difference(other)]
        mine_components, theirs_components = self.left + self.right, other.left + other.right
        found = [_weight_difference(mine, theirs)
                 for mine, theirs in zip(mine_components, theirs_components)
                 if not is_identically_zero(mine.weight - theirs.weight)]
        mine, theirs = self.constraints.closure(), other.constraints.closure()
        for t, u in itertools.combinations(range(len(mine_components)), 2):
            if mine.bounds[t][u] != theirs.bounds[t][u]:
                found.append(f"{_constraint_text(mine, t, u)} vs {_constraint_text(theirs, t, u)}")
        return found

    def describe(self, latex: bool = False) -> str:
        left, right = mixture_text(self.left, latex), mixture_text(self.right, latex)
        if latex:
            return (rf"\max_{{\hat y}} \Psi_\alpha\left({left} \,\middle\|\, {right}\right)"
                    rf" \quad \mathrm{{s.t.}}\ {self.constraints.describe(latex=True)}")
        return f"max_ŷ Ψ_α( {left} ‖ {right} )  s.t. {self.constraints.describe()}"

    def to_json(self) -> dict:
        return {"left": [{"label": c.label, "weight": str(c.weight)} for c in self.left],
                "right": [{"label": c.label, "weight": str(c.weight)} for c in self.right],
                "constraints": self.constraints.to_json(),
                "closed_constraints": self.constraints.closure().to_json()}


def _weight_difference(mine: Component, theirs: Component) -> str:
    if mine.label == theirs.label:
        return f"weight of {mine.label}: {mine.weight} vs {theirs.weight}"
    return f"weight of {mine.label}: {mine.weight} vs of {theirs.label}: {theirs.weight}"


def _constraint_text(matrix: ConstraintMatrix, t: int, u: int) -> str:
    """One entry of a closed constraint matrix, as a constraint on its two labels."""
    yt, yu, value = f"ŷ_{matrix.labels[t]}", f"ŷ_{matrix.labels[u]}", matrix.bounds[t][u]
    if value == INFINITE:
        return f"{yt}, {yu} unconstrained"
    return f"{yt} = {yu}" if value == 0 else f"d_Y({yt}, {yu}) ≤ {int(value)}"


def mixture_text(components: tuple[Component, ...], latex: bool) -> str:
    import sympy as sp

    from otbound.engine.notation import plain

    terms = []
    for c in components:
        weight = sp.latex(c.weight) if latex else plain(c.weight)
        base = rf"b_{{\hat y_{{{c.label}}}}}" if latex else f"b(ŷ_{c.label})"
        if c.weight == 1:
            terms.append(base)
        else:
            weight = f"({weight})" if isinstance(c.weight, sp.Add) else weight
            terms.append(f"{weight} {base}")
    return " + ".join(terms)


@dataclass(frozen=True)
class CaseBound:
    """``Σ_p P(p) · κ_p`` for one neighbouring-pair shape (001 Cor. D.7, Eq. 7)."""

    name: str
    terms: tuple[tuple[sp.Expr, MixtureProblem], ...]

    def swapped(self, name: str) -> "CaseBound":
        """The bound for the divergence in the other direction (see
        :meth:`MixtureProblem.swapped`), for the case of the swapped pair."""
        return CaseBound(name, tuple((p, problem.swapped()) for p, problem in self.terms))

    def canonical(self) -> "CaseBound":
        """Drop zero-probability terms and merge terms with the same problem."""
        from otbound.engine.simplify import is_identically_zero, tidy

        merged: list[tuple[sp.Expr, MixtureProblem]] = []
        for probability, problem in self.terms:
            if is_identically_zero(probability):
                continue
            for index, (p, existing) in enumerate(merged):
                if not existing.difference(problem):
                    merged[index] = (p + probability, existing)
                    break
            else:
                merged.append((probability, problem))
        return CaseBound(self.name, tuple((tidy(p), problem) for p, problem in merged))

    def difference(self, other: "CaseBound") -> str:
        """Why the two case bounds differ (empty when equal)."""
        from otbound.engine.simplify import is_identically_zero

        mine, theirs = self.canonical().terms, list(other.canonical().terms)
        if len(mine) != len(theirs):
            return f"{len(mine)} constraint profiles vs {len(theirs)}"
        for probability, problem in mine:
            match = next((i for i, (p, other_problem) in enumerate(theirs)
                          if not problem.difference(other_problem)
                          and is_identically_zero(p - probability)), None)
            if match is None:
                return f"term with probability {probability}: " + _closest_difference(
                    probability, problem, theirs)
            theirs.pop(match)
        return ""

    def differences(self, other: "CaseBound") -> list[str]:
        """Every difference from ``other`` (empty when equal): terms that match exactly are
        set aside, the others are compared in order, probability and problem."""
        from otbound.engine.simplify import is_identically_zero

        all_mine, all_theirs = self.canonical().terms, other.canonical().terms
        mine, theirs = _unmatched(all_mine, all_theirs)
        single = len(all_mine) == len(all_theirs) == 1
        found = [] if len(all_mine) == len(all_theirs) else [
            f"{len(all_mine)} constraint profiles vs {len(all_theirs)}"]
        for (probability, problem), (p, other_problem) in zip(mine, theirs):
            prefix = "" if single else f"term with probability {probability}: "
            if not is_identically_zero(p - probability):
                found.append(f"{prefix}probability {probability} vs {p}")
            found += [prefix + reason for reason in problem.differences(other_problem)]
        found += [f"term with probability {p}: no counterpart" for p, _ in mine[len(theirs):]]
        found += [f"no counterpart for the other's term with probability {p}"
                  for p, _ in theirs[len(mine):]]
        return found

    def describe(self, latex: bool = False) -> list[str]:
        import sympy as sp

        from otbound.engine.notation import plain

        terms = self.canonical().terms
        if len(terms) == 1 and terms[0][0] == 1:
            return [terms[0][1].describe(latex)]
        lines = []
        for probability, problem in terms:
            p = sp.latex(probability) if latex else plain(probability)
            lines.append((rf"+ \left({p}\right) \cdot " if latex else f"+ ({p}) × ")
                         + problem.describe(latex))
        return lines

    def to_json(self) -> dict:
        return {"case": self.name,
                "terms": [{"probability": str(p), **problem.to_json()}
                          for p, problem in self.canonical().terms]}


def _unmatched(mine, theirs) -> tuple[list, list]:
    """The ``(probability, problem)`` terms of each side left once equal pairs are set aside."""
    from otbound.engine.simplify import is_identically_zero

    mine, theirs, left = list(mine), list(theirs), []
    for probability, problem in mine:
        match = next((i for i, (p, other_problem) in enumerate(theirs)
                      if not problem.difference(other_problem)
                      and is_identically_zero(p - probability)), None)
        if match is None:
            left.append((probability, problem))
        else:
            theirs.pop(match)
    return left, theirs


def _closest_difference(probability: sp.Expr, problem: MixtureProblem,
                        others: list[tuple[sp.Expr, MixtureProblem]]) -> str:
    from otbound.engine.simplify import is_identically_zero

    same = [other for p, other in others if is_identically_zero(p - probability)]
    for other in same or [other for _, other in others]:
        return problem.difference(other) or "its probability differs"
    return "no counterpart"


@dataclass(frozen=True)
class MixtureBound:
    """The maximum over cases of their bounds."""

    cases: tuple[CaseBound, ...]

    @property
    def free_symbols(self) -> set:
        """The symbols the bound depends on (``r``, ``q``, ``N`` …)."""
        found = set()
        for case in self.cases:
            for probability, problem in case.terms:
                found |= probability.free_symbols
                for component in problem.left + problem.right:
                    found |= component.weight.free_symbols
        return found

    def difference(self, other: "MixtureBound") -> str:
        """Why the two bounds differ (empty when they are the same up to case order)."""
        if len(self.cases) != len(other.cases):
            return f"{len(self.cases)} cases vs {len(other.cases)}"
        theirs = {case.name: case for case in other.cases}
        if sorted(theirs) == sorted(case.name for case in self.cases):
            orders = [tuple(theirs[case.name] for case in self.cases)]
        else:
            orders = list(itertools.permutations(other.cases))
        first: list[str] = []
        for order in orders:
            reasons = [f"case {mine.name}: {reason}" for mine, theirs_case in zip(self.cases, order)
                       if (reason := mine.difference(theirs_case))]
            if not reasons:
                return ""
            first = first or reasons
        return "; ".join(first)

    def differences(self, other: "MixtureBound") -> list[str]:
        """Every difference from ``other``, not only the first (empty exactly when
        :meth:`difference` is): cases are matched by name, or else in the order that differs
        least."""
        found = [] if len(self.cases) == len(other.cases) else [
            f"{len(self.cases)} cases vs {len(other.cases)}"]
        theirs = {case.name: case for case in other.cases}
        if {case.name for case in self.cases} <= set(theirs):
            orders = [tuple(theirs[case.name] for case in self.cases)]
        else:
            orders = list(itertools.permutations(other.cases, min(len(self.cases),
                                                                  len(other.cases))))
        listed = [[f"case {mine.name}: {reason}" for mine, theirs_case in zip(self.cases, order)
                   for reason in mine.differences(theirs_case)] for order in orders]
        return found + min(listed, key=len)

    def describe(self, latex: bool = False) -> list[str]:
        lines = []
        for case in self.cases:
            if latex:
                name = case.name.replace(" ", r"\ ").replace("-", "{-}")
                lines.append(rf"&\mathrm{{case\ {name}:}}")
                lines.extend(r"&\quad " + line for line in case.describe(latex))
            else:
                lines.append(f"case {case.name}:")
                lines.extend("  " + line for line in case.describe(latex))
        return lines

    def to_json(self) -> list[dict]:
        return [case.to_json() for case in self.cases]


def problem(left: Iterable[tuple[str, object]], right: Iterable[tuple[str, object]],
            constraints: Mapping[tuple[str, str], float]) -> MixtureProblem:
    """Convenience constructor: components as ``(label, weight)`` and bounds by label pair."""
    import sympy as sp

    lefts = tuple(Component(label, sp.sympify(w)) for label, w in left)
    rights = tuple(Component(label, sp.sympify(w)) for label, w in right)
    labels = tuple(c.label for c in lefts + rights)
    return MixtureProblem(lefts, rights, ConstraintMatrix.from_pairs(labels, constraints))


def statement(**cases: MixtureProblem | Iterable[tuple[object, MixtureProblem]]) -> MixtureBound:
    """A published statement: the maximum over named cases.

    Each case is one problem, or an expectation given as ``(probability, problem)`` terms.
    """
    import sympy as sp

    bounds = []
    for name, body in cases.items():
        terms = ((sp.Integer(1), body),) if isinstance(body, MixtureProblem) else \
            tuple((sp.sympify(p), prob) for p, prob in body)
        bounds.append(CaseBound(name, terms))
    return MixtureBound(tuple(bounds))
