"""Epoch-level derivations: the bound of 001 Thm. 3.4 with an epoch's sequence of ``T`` batches as
the outcome, its worst case recognised (:mod:`otbound.engine.epoch_patterns`), checked by exact
enumeration.

The epoch is one mechanism whose outcome is ``y = (B_1, …, B_T)``; a base mechanism that releases
one output per step, each depending on its own batch (and, adaptively, on earlier outputs), has
a sensitivity *per step*. So the distance between two outcomes is a vector, ``d_Y`` of the two
batches of each step, and a coupling's distance constraints are vectors: 001 Thm. 3.4 and Prop.
3.5 hold with ``d_Y(ŷ_i, ŷ_j) ≤ D[i, j]`` read step by step (their proof uses the constraints
only through the base mechanism's divergences, which are bounded step by step).

A derivation gives the scheme (:mod:`otbound.engine.epoch_schemes`), the coupling
(:mod:`otbound.engine.epoch_couplings`), its structural parameters (``T``, and ``k`` for random
allocation) and, where there is one, the published statement. For every variant the coupling
states its distance pattern for any ``T`` (it follows from how its outcomes are drawn); on every
instance (``n`` other records, up to :data:`MAX_OUTCOMES` outcomes) the checks are exact
(``Fraction``):

* the events' probabilities equal their closed forms (the derived weights);
* each component of the coupling has the conditional law it stands for (validity);
* the per-step distances on the coupling's support, maximised over the instances, are within the
  pattern's (``d_Y``-compatibility: the worst case is the pattern's); the derived statement must
  equal the published one.

The report has the keys of every derivation's report (:mod:`otbound.engine.report`).
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Mapping

import sympy as sp

from otbound.engine.bound import Component, mixture_text
from otbound.engine.derivation_spec import StructuralParameter, user_code
from otbound.engine.epoch_couplings import EpochCase, EpochComponent, EpochCoupling
from otbound.engine.epoch_patterns import EpochPattern, holds_on
from otbound.engine.epoch_schemes import EPOCH_STEPS, EpochScheme, held, step_distances
from otbound.engine.relations import BatchRelation
from otbound.engine.report import DIVERGENCE_NOTE, INSTANCES, INVALID
from otbound.errors import InvalidSpecification, UnsupportedOperation

Distances = Mapping[frozenset, tuple[float, ...]]
"""Per-step distance bounds for unordered pairs of component labels."""

MAX_OUTCOMES = 10_000
"""Largest number of outcomes of one instance the checks enumerate (larger ones are skipped)."""
SHOWN_PAIRS = 12
"""Distance bounds the text lists per statement."""


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

    def describe(self, pairs: int | None = None) -> str:
        """The statement in words; with ``pairs``, at most that many distance bounds are listed
        (the rest counted)."""
        listed = sorted((tuple(sorted(p)), v) for p, v in self.distances.items())
        more = len(listed) - pairs if pairs is not None and len(listed) > pairs else 0
        constraints = "; ".join(f"(ŷ_{a}, ŷ_{b}) ≤ {_vector(bound)}"
                                for (a, b), bound in listed[:len(listed) - more])
        constraints += f"; … and {more} more pairs (all in --json)" if more else ""
        return (f"max_ŷ Ψ_α( {mixture_text(self.left, False)} ‖ "
                f"{mixture_text(self.right, False)} )  s.t. per-step d_Y: "
                f"{constraints or 'none'}")

    def same_as(self, other: "EpochStatement") -> bool:
        """Equal weights (exactly, as closed forms) and equal distance vectors."""
        return (_same_weights(self.left, other.left) and _same_weights(self.right, other.right)
                and self.distances == other.distances)

    def to_json(self) -> dict:
        return {"left": [[c.label, str(c.weight)] for c in self.left],
                "right": [[c.label, str(c.weight)] for c in self.right],
                "distances": {"/".join(sorted(pair)): list(map(_number, bound))
                              for pair, bound in sorted(self.distances.items(),
                                                        key=lambda item: sorted(item[0]))}}


def _same_weights(first: tuple[Component, ...], second: tuple[Component, ...]) -> bool:
    mine, theirs = ({c.label: c.weight for c in side} for side in (first, second))
    return mine.keys() == theirs.keys() and all(
        sp.simplify(mine[k] - theirs[k]) == 0 for k in mine)


def _number(value: float):
    return None if value == math.inf else int(value)


def _vector(bound: tuple[float, ...]) -> str:
    return "(" + ", ".join("∞" if v == float("inf") else str(int(v)) for v in bound) + ")"


@dataclass(frozen=True, eq=False)
class EpochDerivation:
    """An epoch-level bound, its ingredients, and where it came from. ``scheme`` and
    ``published`` take the structural parameters' values in the order of ``parameters``."""

    epoch_level = True

    name: str
    source: str
    title: str
    scheme: Callable[..., EpochScheme]
    relation: BatchRelation
    coupling: EpochCoupling
    published: Callable[..., Mapping[str, EpochStatement]] | None
    """The published statement, case by case (``None``: nothing published)."""
    parameters: tuple[StructuralParameter, ...] = (EPOCH_STEPS,)
    variants: tuple[Mapping[str, int], ...] = ({"T": 1}, {"T": 2}, {"T": 3})
    """The values of the structural parameters checked by default (``--param`` chooses
    others)."""
    others: range = range(0, 6)
    """How many records beside the modified one the instances have."""
    values: tuple[Mapping[sp.Symbol, object], ...] = ({},)
    """Values of the scheme's symbolic parameters on the instances (e.g. ``r``)."""
    remarks: tuple[str, ...] = field(default=())
    errata: tuple[str, ...] = field(default=())
    max_outcomes: int = MAX_OUTCOMES
    """Instances with more outcomes than this are not enumerated."""
    path: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for name in ("remarks", "errata", "parameters"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "variants", tuple(self.checked(v) for v in self.variants))
        for variant in self.variants:
            self.scheme_at(variant)   # raises on a bad T

    def checked(self, values: Mapping[str, object]) -> dict[str, int]:
        """The structural values, each in its range, every parameter given."""
        names = [p.name for p in self.parameters]
        if set(values) != set(names):
            raise InvalidSpecification(
                f"derivation {self.name!r} has the structural parameters {', '.join(names)} "
                f"({'; '.join(f'{p.name}: {p.description}' for p in self.parameters)}); got "
                f"{', '.join(values) or 'none'}", parameter="param")
        return {p.name: p.check(values[p.name]) for p in self.parameters}

    def scheme_at(self, values: Mapping[str, int]) -> EpochScheme:
        return self.scheme(*(values[p.name] for p in self.parameters))

    def symbols(self) -> set[str]:
        """The names of the scheme's symbolic parameters (``r`` of Poisson steps), which the
        numbers need values for."""
        return self.scheme(*(1 for _ in self.parameters)).symbols()

    def scheme_description(self, values: Mapping[str, int]) -> str:
        """The scheme at any values of the structural parameters, in words."""
        return self.scheme_at(values).describe()

    def at(self, values: Mapping[str, object]) -> "EpochDerivation":
        """The derivation at one variant (``{"T": 4}``)."""
        chosen = copy.copy(self)
        object.__setattr__(chosen, "variants", (self.checked(values),))
        return chosen

    def patterns(self, values: Mapping[str, int]) -> dict[str, EpochPattern]:
        """The worst case of every case at any values of the structural parameters (``T`` as
        large as a training run's), as the coupling states it (checked by :func:`run_epoch` on
        the instances up to ``T = 8``)."""
        values = {p.name: int(values[p.name]) for p in self.parameters}
        scheme = self.scheme(*values.values())
        return {case.name: self.coupling.pattern(scheme, case) for case in self.coupling.cases()}

    @property
    def where(self) -> str:
        return f"derivation {self.name!r}" + (f" ({self.path})" if self.path else "")


def variant_label(values: Mapping[str, int]) -> str:
    return ", ".join(f"{name} = {value}" for name, value in values.items())


@dataclass(frozen=True)
class EpochCaseReport:
    """One case of one variant: the derived statement, its worst case and how its checks went."""

    case: EpochCase
    coupling: str
    derived: EpochStatement
    pattern: EpochPattern
    instances: int
    skipped: int
    weights_match: bool
    valid: bool
    within_pattern: bool
    published: EpochStatement | None

    @property
    def d_compatible(self) -> bool:
        return self.within_pattern and self.instances > 0

    @property
    def matches_published(self) -> bool | None:
        return None if self.published is None else self.derived.same_as(self.published)

    def to_json(self) -> dict:
        return {"case": self.case.name, "valid": self.valid and self.weights_match,
                "validity": INSTANCES if self.valid and self.weights_match else INVALID,
                "symbolic_verdict": None, "symbolic_note": None, "type_level": None,
                "type_level_note": None, "instances_checked": self.instances,
                "instances_skipped": self.skipped,
                "skip_reasons": ({"too many outcomes to enumerate": self.skipped}
                                 if self.skipped else {}),
                "instances_note": None, "N_range": None,
                "marginal_mismatch": None if self.valid else "a component's law differs",
                "d_compatible": self.d_compatible,
                "d_compatible_scope": ("every T, by the coupling's construction; exact on the "
                                       "instances" if self.d_compatible else None),
                "d_compatibility_violation": (None if self.within_pattern else
                                              "a per-step distance exceeds the pattern's"),
                "bound_kind": self.pattern.name, "defect": None, "bound_note": None,
                "coupling": self.coupling, "weights_match": self.weights_match,
                "worst_case": self.pattern.to_json(), "statement": self.derived.to_json()}


@dataclass(frozen=True)
class EpochVariantReport:
    """Every case of one variant."""

    values: Mapping[str, int]
    scheme: str
    cases: tuple[EpochCaseReport, ...]

    @property
    def valid(self) -> bool:
        return all(c.valid and c.weights_match and c.instances > 0 for c in self.cases)

    @property
    def d_compatible(self) -> bool:
        return all(c.d_compatible for c in self.cases)

    @property
    def matches_published(self) -> bool:
        return all(c.matches_published is not False for c in self.cases)

    @property
    def difference(self) -> str:
        return "; ".join(f"case {c.case.name}: the derived statement differs"
                         for c in self.cases if c.matches_published is False)

    def to_json(self, relation: BatchRelation) -> dict:
        published = [c.published for c in self.cases]
        return {"variant": variant_label(self.values), "dataset_relation": relation.value,
                "valid": self.valid, "d_compatible": self.d_compatible,
                "matches_published": self.matches_published,
                "difference_from_published": self.difference or None,
                "bound": {"cases": [{"case": c.case.name, "statement": c.derived.describe(),
                                     "worst_case": c.pattern.describe()} for c in self.cases]},
                "published": (None if all(p is None for p in published) else
                              {c.case.name: c.published.to_json() for c in self.cases
                               if c.published is not None}),
                "bound_kind": None, "cases": [c.to_json() for c in self.cases]}


@dataclass(frozen=True)
class EpochReport:
    """Every case of every variant of an epoch-level derivation (what ``derive`` prints)."""

    derivation: EpochDerivation
    variants: tuple[EpochVariantReport, ...]
    elapsed: float

    @property
    def valid(self) -> bool:
        return all(v.valid for v in self.variants)

    @property
    def validity(self) -> str:
        return INSTANCES if self.valid else INVALID

    @property
    def d_compatible(self) -> bool:
        return all(v.d_compatible for v in self.variants)

    @property
    def matches_published(self) -> bool:
        return all(v.matches_published for v in self.variants)

    @property
    def passed(self) -> bool:
        return self.valid and self.d_compatible and self.matches_published

    def to_text(self) -> str:
        """The derived statement of every case of every variant, its worst case and checks."""
        derivation = self.derivation
        lines = [f"{derivation.name} — {derivation.title}", f"source: {derivation.source}",
                 f"batch relation (per step): {derivation.relation.value}; the outcome is the "
                 "sequence of an epoch's T batches, distances are per step (vectors)"]
        for variant in self.variants:
            lines += ["", f"[{variant_label(variant.values)}] scheme: {variant.scheme}",
                      "  Theorem. For all α > 1 and all neighbouring x, x' (001 Thm. 3.4 with "
                      "per-step distances): Ψ_α(m_x ‖ m_x') ≤ the maximum over the cases of"]
            for case in variant.cases:
                lines += [f"    case {case.case.name}: {case.derived.describe(SHOWN_PAIRS)}",
                          f"      worst case ({'tight' if case.pattern.tight else 'sound'}): "
                          f"{case.pattern.describe()}"]
            lines.append(f"  {DIVERGENCE_NOTE}")
            lines += [line for case in variant.cases for line in _checks_text(case)]
        if variant_proofs := {c.pattern.name: c.pattern.proof for v in self.variants
                              for c in v.cases}:
            lines.append("")
            lines += [f"why the worst case ({name}): {proof}"
                      for name, proof in variant_proofs.items()]
        lines += [""] + [f"note: {remark}" for remark in derivation.remarks]
        published = ("none published" if all(c.published is None for v in self.variants
                                              for c in v.cases)
                     else _yes(self.matches_published))
        lines.append(f"verdict: valid = {_yes(self.valid)} ({self.validity}), d_Y-compatible = "
                     f"{_yes(self.d_compatible)}, matches published = {published} "
                     f"[{self.elapsed:.1f} s]")
        return "\n".join(lines)

    def to_latex(self) -> str:
        raise UnsupportedOperation("--latex is not available for epoch-level derivations "
                                   f"({self.derivation.name}); use the text or --json")

    def to_json(self, timings: bool = False) -> dict:
        d = self.derivation
        found: dict[str, object] = {"name": d.name, "source": d.source, "title": d.title,
                 "scheme": self.variants[0].scheme if self.variants else None,
                 "batch_relation": d.relation.value, "N": None, "valid": self.valid,
                 "validity": self.validity, "d_compatible": self.d_compatible,
                 "matches_published": self.matches_published, "errata": list(d.errata),
                 "remarks": list(d.remarks), "definitions": {},
                 "variants": [v.to_json(d.relation) for v in self.variants],
                 "epoch_level": True, "passed": self.passed}
        return found | ({"elapsed_seconds": round(self.elapsed, 3)} if timings else {})


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def _checks_text(case: EpochCaseReport) -> list[str]:
    published = ("none published" if case.matches_published is None
                 else _yes(case.matches_published))
    skipped = f" ({case.skipped} larger ones skipped)" if case.skipped else ""
    return [f"  case {case.case.name}: events: the steps that hold the modified record; "
            f"coupling: {case.coupling}",
            f"    checked exactly on {case.instances} instances{skipped}: event weights "
            f"{_yes(case.weights_match)}, marginals valid {_yes(case.valid)}, per-step distances "
            f"within the pattern {_yes(case.within_pattern)}",
            f"    matches the published statement: {published}"]


def run_epoch(derivation: EpochDerivation) -> EpochReport:
    """Every check of every case of every variant of the derivation."""
    start = time.perf_counter()
    variants = tuple(
        EpochVariantReport(values, derivation.scheme_at(values).describe(),
                           tuple(_check_case(derivation, values, case)
                                 for case in derivation.coupling.cases()))
        for values in derivation.variants)
    return EpochReport(derivation, variants, time.perf_counter() - start)


def _check_case(derivation: EpochDerivation, structural: Mapping[str, int],
                case: EpochCase) -> EpochCaseReport:
    symbolic = derivation.scheme_at(structural)
    parts = derivation.coupling.components(symbolic, case)
    pattern = derivation.coupling.pattern(symbolic, case)
    weights_match = valid = True
    distances: dict[frozenset, tuple[float, ...]] = {}
    instances = skipped = 0
    for values in derivation.values:
        scheme = symbolic.substitute(dict(values))
        for count in derivation.others:
            others = tuple(f"o{i}" for i in range(1, count + 1))
            if not all(scheme.defined_for(len(case.records(side, others)))
                       for side in ("x", "x'")):
                continue
            if max(scheme.outcomes(len(case.records(side, others)))
                   for side in ("x", "x'")) > derivation.max_outcomes:
                skipped += 1
                continue
            instances += 1
            laws = _conditional_laws(scheme, case, others, parts)
            weights_match &= all(sp.Rational(mass.numerator, mass.denominator)
                                 == _weight(scheme, part) for part, (mass, _) in zip(parts, laws))
            drawn, found = _drawn(derivation.coupling, scheme, case, others, parts,
                                  derivation.relation, pattern.measured(parts))
            valid &= all(drawn[part.label] == law for part, (_, law) in zip(parts, laws))
            for pair, bound in found.items():
                distances[pair] = tuple(map(max, zip(distances.get(pair, bound), bound)))
    left = tuple(Component(p.label, _weight(symbolic, p)) for p in parts if p.side == "x")
    right = tuple(Component(p.label, _weight(symbolic, p)) for p in parts if p.side == "x'")
    derived = EpochStatement(left, right, distances)
    published = None
    published_at = derivation.published
    if published_at is not None:
        def statement():
            found = published_at(*structural.values())
            return None if found is None else found[case.name]

        published = user_code(f"{derivation.where}: its published statement at "
                              f"{variant_label(structural)}, case {case.name}", statement)
    return EpochCaseReport(case, derivation.coupling.describe(case), derived, pattern,
                           instances, skipped, weights_match, valid and instances > 0,
                           holds_on(pattern, distances), published)


def _weight(scheme: EpochScheme, part: EpochComponent) -> sp.Expr:
    """The closed-form probability of the component's event (1 for an unconditioned one)."""
    return sp.Integer(1) if part.steps is None else scheme.event_weight(part.steps)


def _conditional_laws(scheme: EpochScheme, case: EpochCase, others: tuple[str, ...],
                      parts) -> list[tuple[Fraction, dict]]:
    """Per component: the exact probability of its event, and the scheme's law given it."""
    by_steps: dict[str, dict] = {}
    for side in ("x", "x'"):
        grouped: dict = {}
        record = case.special(side) if any(p.side == side and p.steps is not None
                                           for p in parts) else None
        for outcome, mass in scheme.pmf(case.records(side, others)).items():
            key = None if record is None else held(outcome, record)
            grouped.setdefault(key, {})[outcome] = mass
        by_steps[side] = grouped
    found = []
    for part in parts:
        grouped = by_steps[part.side]
        pmf = ({o: p for law in grouped.values() for o, p in law.items()} if part.steps is None
               else grouped.get(part.steps, {}))
        mass = sum(pmf.values(), Fraction(0))
        found.append((mass, {o: p / mass for o, p in pmf.items()} if mass else {}))
    return found


def _drawn(coupling: EpochCoupling, scheme, case, others, parts, relation: BatchRelation,
           pairs: list[tuple[str, str]]
           ) -> tuple[dict[str, dict], dict[frozenset, tuple[float, ...]]]:
    """The law of each component under the coupling's joint draws, and for each of ``pairs`` of
    components the largest per-step distance on the coupling's support."""
    laws: dict[str, dict] = {part.label: {} for part in parts}
    largest: dict[frozenset, tuple[float, ...]] = {}
    for mass, outcomes in coupling.draws(scheme, case, others):
        if not mass:
            continue
        for name, outcome in outcomes.items():
            laws[name][outcome] = laws[name].get(outcome, Fraction(0)) + mass
        for first, second in pairs:
            pair = frozenset({first, second})
            here = step_distances(outcomes[first], outcomes[second], relation)
            largest[pair] = tuple(map(max, zip(largest.get(pair, here), here)))
    return laws, largest
