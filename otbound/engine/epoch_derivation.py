"""Epoch-level derivations (issue 28): the bound of 001 Thm. 3.4 with an epoch's sequence of
``T`` batches as the outcome, checked by exact enumeration.

The epoch is one mechanism whose outcome is ``y = (B_1, …, B_T)``; a base mechanism that releases
one output per step, each depending on its own batch (and, adaptively, on earlier outputs), has
a sensitivity *per step*. So the distance between two outcomes is a vector, ``d_Y`` of the two
batches of each step, and a coupling's distance constraints are vectors: 001 Thm. 3.4 and Prop.
3.5 hold with ``d_Y(ŷ_i, ŷ_j) ≤ D[i, j]`` read step by step (their proof uses the constraints
only through the base mechanism's divergences, which are bounded step by step).

A derivation gives the scheme (:mod:`otbound.engine.epoch_schemes`), the coupling
(:mod:`otbound.engine.epoch_couplings`) and, where there is one, the published statement. On
every instance of its grid (``T`` steps, ``n`` other records) the checks are exact (``Fraction``):

* the events' probabilities equal their closed forms (the derived weights);
* each component of the coupling has the conditional law it stands for (validity);
* the per-step distances on the coupling's support, maximised over the instances, are the
  derived constraint vectors (compatibility), which must equal the published ones.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Mapping

import sympy as sp

from otbound.engine.bound import Component, mixture_text
from otbound.engine.epoch_couplings import EpochCase, EpochComponent, EpochCoupling
from otbound.engine.epoch_schemes import EPOCH_STEPS, EpochScheme, held, step_distances
from otbound.engine.derivation_spec import StructuralParameter, user_code
from otbound.engine.relations import BatchRelation
from otbound.errors import InvalidSpecification, UnsupportedOperation

Distances = Mapping[frozenset, tuple[float, ...]]
"""Per-step distance bounds for unordered pairs of component labels."""


@dataclass(frozen=True)
class EpochStatement:
    """``max Ψ_α(Σ_i w_i b(ŷ_i) ‖ Σ_j v_j b(ŷ_j))`` over outputs whose batches are within
    the per-step ``distances`` (pairs not listed are unconstrained)."""

    left: tuple[Component, ...]
    right: tuple[Component, ...]
    distances: Distances

    def __post_init__(self) -> None:
        for side in ("left", "right"):
            object.__setattr__(self, side, tuple(
                c if isinstance(c, Component) else Component(c[0], sp.sympify(c[1]))
                for c in getattr(self, side)))
        object.__setattr__(self, "distances", {frozenset(pair): tuple(bound) for pair, bound
                                               in dict(self.distances).items()})

    def describe(self) -> str:
        constraints = "; ".join(
            f"(ŷ_{a}, ŷ_{b}) ≤ {_vector(bound)}"
            for (a, b), bound in sorted((tuple(sorted(p)), v) for p, v in self.distances.items()))
        return (f"max_ŷ Ψ_α( {mixture_text(self.left, False)} ‖ "
                f"{mixture_text(self.right, False)} )  s.t. per-step d_Y: "
                f"{constraints or 'none'}")

    def same_as(self, other: "EpochStatement") -> bool:
        """Equal weights (exactly, as closed forms) and equal distance vectors."""
        return (_same_weights(self.left, other.left) and _same_weights(self.right, other.right)
                and self.distances == other.distances)


def _same_weights(first: tuple[Component, ...], second: tuple[Component, ...]) -> bool:
    mine, theirs = ({c.label: c.weight for c in side} for side in (first, second))
    return mine.keys() == theirs.keys() and all(
        sp.simplify(mine[k] - theirs[k]) == 0 for k in mine)


def _vector(bound: tuple[float, ...]) -> str:
    return "(" + ", ".join("∞" if v == float("inf") else str(int(v)) for v in bound) + ")"


@dataclass(frozen=True)
class EpochDerivation:
    """An epoch-level bound, its ingredients, and where it came from."""

    name: str
    source: str
    title: str
    scheme: Callable[[int], EpochScheme]
    """The scheme for ``T`` steps per epoch."""
    relation: BatchRelation
    coupling: EpochCoupling
    published: Callable[[int], Mapping[str, EpochStatement]] | None
    """The published statement for ``T``, case by case (``None``: nothing published)."""
    steps: tuple[int, ...] = (1, 2, 3)
    """The values of ``T`` checked by default (``--param T=…`` chooses another)."""
    others: range = range(0, 6)
    """How many records beside the modified one the instances have."""
    values: tuple[Mapping[sp.Symbol, object], ...] = ({},)
    """Values of the scheme's symbolic parameters on the instances (e.g. ``r``)."""
    remarks: tuple[str, ...] = field(default=())
    path: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "remarks", tuple(self.remarks))
        for steps in self.steps:
            self.scheme(steps)   # raises on a bad T

    @property
    def parameters(self) -> tuple[StructuralParameter, ...]:
        """The structural parameters, as a :class:`~otbound.Derivation` has them: ``T``."""
        return (EPOCH_STEPS,)

    def at(self, values: Mapping[str, object]) -> "EpochDerivation":
        """The derivation at one ``T`` (``{"T": 4}``)."""
        if set(values) != {"T"}:
            raise InvalidSpecification(
                f"derivation {self.name!r} has one structural parameter, T (steps per epoch); "
                f"got {', '.join(values) or 'none'}", parameter="param")
        chosen = copy.copy(self)
        object.__setattr__(chosen, "steps", (EPOCH_STEPS.check(values["T"]),))
        return chosen

    @property
    def where(self) -> str:
        return f"derivation {self.name!r}" + (f" ({self.path})" if self.path else "")


@dataclass(frozen=True)
class EpochCaseReport:
    """One case at one ``T``: the derived statement and how its checks went."""

    case: EpochCase
    coupling: str
    derived: EpochStatement
    instances: int
    weights_match: bool
    valid: bool
    compatible: bool
    published: EpochStatement | None

    @property
    def matches_published(self) -> bool | None:
        return None if self.published is None else self.derived.same_as(self.published)


@dataclass(frozen=True)
class EpochReport:
    """Every case at every ``T`` of an epoch-level derivation (what ``derive`` prints)."""

    derivation: EpochDerivation
    variants: tuple[tuple[int, tuple[EpochCaseReport, ...]], ...]
    elapsed: float

    def _cases(self):
        return [case for _, cases in self.variants for case in cases]

    @property
    def validity(self) -> str:
        return "exact" if all(c.valid and c.weights_match for c in self._cases()) else "FAILED"

    @property
    def d_compatible(self) -> bool:
        return all(c.compatible for c in self._cases())

    @property
    def matches_published(self) -> bool:
        return all(c.matches_published is not False for c in self._cases())

    @property
    def passed(self) -> bool:
        return self.validity == "exact" and self.d_compatible and self.matches_published

    def to_text(self) -> str:
        """The derived statement of every case at every ``T``, its ingredients and checks."""
        derivation = self.derivation
        lines = [f"{derivation.name} — {derivation.title}", f"source: {derivation.source}",
                 f"batch relation (per step): {derivation.relation.value}; the outcome is the "
                 "sequence of an epoch's T batches, distances are per step (vectors)"]
        for steps, cases in self.variants:
            lines += ["", f"[T = {steps}] scheme: {derivation.scheme(steps).describe()}",
                      "  Theorem. For all α > 1 and all neighbouring x, x' (001 Thm. 3.4 with "
                      "per-step distances): Ψ_α(m_x ‖ m_x') ≤ the maximum over the cases of"]
            for case in cases:
                lines += [f"    case {case.case.name}:", f"      {case.derived.describe()}"]
            lines.append("  The same bound holds for the hockey-stick divergence H_γ (γ ≥ 0).")
            lines += [line for case in cases for line in _checks_text(case)]
        lines += [""] + [f"note: {remark}" for remark in derivation.remarks]
        lines.append(f"{'passed' if self.passed else 'FAILED'} ({self.elapsed:.1f} s)")
        return "\n".join(lines)

    def to_latex(self) -> str:
        raise UnsupportedOperation("--latex is not available for epoch-level derivations "
                                   f"({self.derivation.name}); use the text or --json")

    def to_json(self, timings: bool = False) -> dict:
        found = {"name": self.derivation.name, "source": self.derivation.source,
                 "title": self.derivation.title, "epoch_level": True, "passed": self.passed,
                 "variants": [{"T": steps, "cases": [_case_json(c) for c in cases]}
                              for steps, cases in self.variants]}
        return found | ({"seconds": round(self.elapsed, 3)} if timings else {})


def _checks_text(case: EpochCaseReport) -> list[str]:
    def yes(flag: bool) -> str:
        return "yes" if flag else "NO"

    published = ("none published" if case.matches_published is None
                 else yes(case.matches_published))
    return [f"  case {case.case.name}: events: the steps that hold the modified record; "
            f"coupling: {case.coupling}",
            f"    checked exactly on {case.instances} instances: event weights "
            f"{yes(case.weights_match)}, marginals valid {yes(case.valid)}, per-step distances "
            f"finite {yes(case.compatible)}",
            f"    matches the published statement: {published}"]


def _case_json(report: EpochCaseReport) -> dict:
    return {"case": report.case.name, "statement": report.derived.describe(),
            "instances": report.instances, "weights_match": report.weights_match,
            "marginals_valid": report.valid, "d_compatible": report.compatible,
            "matches_published": report.matches_published}


def run_epoch(derivation: EpochDerivation) -> EpochReport:
    """Every check of every case at every ``T`` of the derivation."""
    start = time.perf_counter()
    variants = tuple((steps, tuple(_check_case(derivation, steps, case)
                                   for case in derivation.coupling.cases()))
                     for steps in derivation.steps)
    return EpochReport(derivation, variants, time.perf_counter() - start)


def _check_case(derivation: EpochDerivation, steps: int, case: EpochCase) -> EpochCaseReport:
    symbolic = derivation.scheme(steps)
    parts = derivation.coupling.components(symbolic, case)
    weights_match = valid = compatible = True
    distances: dict[frozenset, tuple[float, ...]] = {}
    instances = 0
    for values in derivation.values:
        scheme = symbolic.substitute(dict(values))
        for count in derivation.others:
            others = tuple(f"o{i}" for i in range(1, count + 1))
            if not all(scheme.defined_for(len(case.records(side, others)))
                       for side in ("x", "x'")):
                continue
            instances += 1
            laws = _conditional_laws(scheme, case, others, parts)
            weights_match &= all(sp.Rational(mass.numerator, mass.denominator)
                                 == _weight(scheme, part) for part, (mass, _) in zip(parts, laws))
            drawn, found = _drawn(derivation.coupling, scheme, case, others, parts,
                                  derivation.relation)
            valid &= all(drawn[part.label] == law for part, (_, law) in zip(parts, laws))
            compatible &= all(v < float("inf") for bound in found.values() for v in bound)
            for pair, bound in found.items():
                distances[pair] = tuple(map(max, zip(distances.get(pair, bound), bound)))
    left = tuple(Component(p.label, _weight(symbolic, p)) for p in parts if p.side == "x")
    right = tuple(Component(p.label, _weight(symbolic, p)) for p in parts if p.side == "x'")
    derived = EpochStatement(left, right, distances)
    published = None
    if derivation.published is not None:
        published = user_code(f"{derivation.where}: its published statement at T = {steps}, "
                              f"case {case.name}", lambda: derivation.published(steps)[case.name])
    return EpochCaseReport(case, derivation.coupling.describe(case), derived, instances,
                           weights_match, valid and instances > 0,
                           compatible and instances > 0, published)


def _weight(scheme: EpochScheme, part: EpochComponent) -> sp.Expr:
    """The closed-form probability of the component's event (1 for an unconditioned one)."""
    return sp.Integer(1) if part.steps is None else scheme.event_weight(part.steps)


def _conditional_laws(scheme: EpochScheme, case: EpochCase, others: tuple[str, ...],
                      parts) -> list[tuple[Fraction, dict]]:
    """Per component: the exact probability of its event, and the scheme's law given it."""
    found = []
    for part in parts:
        pmf = scheme.pmf(case.records(part.side, others))
        if part.steps is not None:
            record = case.special(part.side)
            pmf = {o: p for o, p in pmf.items() if held(o, record) == part.steps}
        mass = sum(pmf.values(), Fraction(0))
        found.append((mass, {o: p / mass for o, p in pmf.items()} if mass else {}))
    return found


def _drawn(coupling: EpochCoupling, scheme, case, others, parts, relation: BatchRelation
           ) -> tuple[dict[str, dict], dict[frozenset, tuple[float, ...]]]:
    """The law of each component under the coupling's joint draws, and per pair of components
    the largest per-step distance on the coupling's support."""
    laws: dict[str, dict] = {part.label: {} for part in parts}
    largest: dict[frozenset, tuple[float, ...]] = {}
    labels = [p.label for p in parts]
    for mass, outcomes in coupling.draws(scheme, case, others):
        if not mass:
            continue
        for name, outcome in outcomes.items():
            laws[name][outcome] = laws[name].get(outcome, Fraction(0)) + mass
        for i, first in enumerate(labels):
            for second in labels[i + 1:]:
                pair = frozenset({first, second})
                here = step_distances(outcomes[first], outcomes[second], relation)
                largest[pair] = tuple(map(max, zip(largest.get(pair, here), here)))
    return laws, largest
