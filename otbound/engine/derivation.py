"""A derivation: the ingredients of a published bound, the statement as published, and its checks.

A derivation file (``derivations/*.py``) defines a module-level ``DERIVATION``. It declares the
scheme, the relations, the events and the coupling of every case, and — separately — the
statement as published. :func:`run` lets the engine derive the bound on its own, check the
coupling (exactly on instances, symbolically for general dataset size), check
``d_Y``-compatibility, and compare its result with the published statement.
"""

from __future__ import annotations

import copy
import math
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, TypeVar

import sympy as sp

from otbound.engine.auto_coupling import SearchedCoupling
from otbound.engine.batches import Content
from otbound.engine.bound import ConstraintMatrix, MixtureBound
from otbound.engine.case_bounds import symbolic_case_bound
from otbound.engine.compatibility import find_compatibility_violation, profiles_by_content
from otbound.engine.conditionals import (Case, ConcreteConditionals, SizeReference,
                                         SymbolicConditionals)
from otbound.engine.relations import BatchRelation, DatasetRelation
from otbound.engine.report import CaseReport, DerivationReport, InstanceFailure, VariantReport
from otbound.engine.schemes import Scheme
from otbound.engine.type_level import TypeLevelResult, analyse_case
from otbound.engine.validity import Verdict, check_marginals, prove_marginals
from otbound.errors import (DerivationFileError, InternalError, InvalidSpecification,
                            UnsupportedOperation)

T = TypeVar("T")

MAX_STRUCTURAL = 32
"""The largest value of a structural parameter (a group size) a derivation is built for."""

MAX_INSTANCE_BATCHES = 2 ** 11
"""Instances are enumerated (exact checks, and a cross-check of the type-level analysis) only
when the largest dataset of the grid has at most this many batches: every one is listed."""


@dataclass(frozen=True)
class InstanceGrid:
    """Concrete instances to check: dataset sizes ``N`` times parameter assignments."""

    sizes: range
    parameters: tuple[Mapping[sp.Symbol, object], ...] = ({},)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", tuple(dict(p) for p in self.parameters))
        if not self.sizes or not self.parameters:
            raise InvalidSpecification("an instance grid needs at least one size and one "
                                       "parameter assignment")
        for size in self.sizes:
            if isinstance(size, bool) or not isinstance(size, int) or size < 0:
                raise InvalidSpecification(
                    f"instance grid sizes N must be integers >= 0, got {size!r}")
        for values in self.parameters:
            for symbol in values:
                if not isinstance(symbol, sp.Symbol):
                    raise InvalidSpecification(
                        f"instance grid parameters must be keyed by sympy symbols "
                        f"(otbound.engine.symbols.r, q, ...), got {symbol!r}")


@dataclass(frozen=True)
class Variant:
    """One value of a derivation's structural parameters (e.g. group size K = 2).

    ``published`` is the statement as published, a function building it (built when first
    needed: evaluating a bound does not need it), or ``None`` when nothing was published for
    these parameters (a result of otbound's own)."""

    label: str
    relation: DatasetRelation
    cases: tuple[Case, ...]
    published: MixtureBound | Callable[[], MixtureBound] | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", tuple(self.cases))
        if len(self.cases) != len(self.relation.pairs()):
            raise InvalidSpecification(
                f"variant {self.label!r}: {len(self.cases)} cases for a relation with "
                f"{len(self.relation.pairs())} pair shapes")

    def statement(self) -> MixtureBound | None:
        """The published statement (``None`` when there is none)."""
        if callable(self.published):
            made = user_code(f"variant {self.label!r}: its published statement",
                             self.published)
            if not isinstance(made, MixtureBound):
                raise DerivationFileError(
                    f"variant {self.label!r}: its published statement must build an "
                    f"otbound.MixtureBound, got {type(made).__name__}")
            object.__setattr__(self, "published", made)
        return self.published


def user_code(what: str, call: Callable[[], T]) -> T:
    """``call()``, a function of a user's derivation file: whatever it raises (but an
    :class:`InternalError`) is the file's fault, a :class:`DerivationFileError` saying
    ``what`` failed and how."""
    try:
        return call()
    except InternalError:
        raise
    except Exception as failure:  # noqa: BLE001 (user code may raise anything)
        detail = " ".join(str(failure).split())
        raise DerivationFileError(f"{what} failed: {type(failure).__name__}"
                                  + (f": {detail}" if detail else "")) from failure


@dataclass(frozen=True)
class StructuralParameter:
    """A parameter that shapes the derivation itself, such as the group size ``K``."""

    name: str
    description: str
    minimum: int = 0
    maximum: int = MAX_STRUCTURAL

    def check(self, value: object) -> int:
        if (isinstance(value, bool) or not isinstance(value, (int, float, str))
                or not str(value).lstrip("-").isdigit()
                or not self.minimum <= int(value) <= self.maximum):
            raise InvalidSpecification(
                f"{self.name} ({self.description}) must be an integer in "
                f"[{self.minimum}, {self.maximum}], got {value!r}", parameter=self.name)
        return int(value)


@dataclass(frozen=True)
class Derivation:
    """A published bound, its ingredients, and where it came from."""

    name: str
    source: str
    title: str
    scheme: Scheme
    batch_relation: BatchRelation
    variants: tuple[Variant, ...]
    grid: InstanceGrid
    size_reference: SizeReference = SizeReference.X
    errata: tuple[str, ...] = field(default=())
    remarks: tuple[str, ...] = field(default=())
    tight: tuple[tuple[str, str], ...] = field(default=())
    """``(mechanism name, source)`` for every mechanism the bound is claimed tight for."""
    parameters: tuple[StructuralParameter, ...] = field(default=())
    """The structural parameters; ``variant_for(**values)`` builds the variant for any values
    (the ``variants`` are those checked by default)."""
    variant_for: Callable[..., Variant] | None = None
    mirror: tuple[str, str] | None = None
    """Two structural parameters whose exchange swaps the roles of ``x`` and ``x'`` (``K_plus``
    and ``K_minus``): the variant at ``(b, a)`` is that at ``(a, b)`` read in the other
    direction, so its bound is the swapped bound (:meth:`CaseBound.swapped`)."""
    path: str | None = field(default=None, compare=False)
    """The file that defines the derivation (set when it is loaded from one)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", tuple(self.parameters))
        if bool(self.parameters) != (self.variant_for is not None):
            raise InvalidSpecification(f"derivation {self.name!r}: give both parameters and "
                                       "variant_for, or neither")
        object.__setattr__(self, "variants", tuple(self.variants))
        object.__setattr__(self, "tight", tuple(tuple(t) for t in self.tight))
        object.__setattr__(self, "errata", tuple(self.errata))
        object.__setattr__(self, "remarks", tuple(self.remarks))
        if not self.variants:
            raise InvalidSpecification(f"derivation {self.name!r} declares no variant")
        for values in self.grid.parameters:
            _check_grid_point(self, values)


    def at(self, values: Mapping[str, object]) -> "Derivation":
        """The derivation with one variant, for the given structural parameters."""
        known = {p.name: p for p in self.parameters}
        unknown = sorted(set(values) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise InvalidSpecification(
                f"derivation {self.name!r} has no structural parameter {unknown[0]} (its "
                f"structural parameters: {names})", parameter="param")
        missing = [name for name in known if name not in values]
        if missing:
            raise InvalidSpecification(
                f"derivation {self.name!r} needs a value for {missing[0]} "
                f"({known[missing[0]].description})", parameter="param")
        if not known:
            return self
        checked = {name: known[name].check(value) for name, value in values.items()}
        arguments = ", ".join(f"{k}={v}" for k, v in checked.items())
        variant = user_code(f"{self.where}: variant_for({arguments})",
                            lambda: self.variant_for(**checked))
        if not isinstance(variant, Variant):
            raise DerivationFileError(f"{self.where}: variant_for({arguments}) must return an "
                                      f"otbound.Variant, got {type(variant).__name__}")
        chosen = copy.copy(self)   # the grid is unchanged: no need to check it again
        object.__setattr__(chosen, "variants", (variant,))
        return chosen

    @property
    def where(self) -> str:
        """The derivation's name, and its file where known (for messages)."""
        return f"derivation {self.name!r}" + (f" ({self.path})" if self.path else "")


def _check_grid_point(derivation: Derivation, values: Mapping[sp.Symbol, object]) -> None:
    """Every assignment of the grid gives each scheme parameter a value in its allowed range.

    The checks run on concrete instances, so an assignment that the scheme rejects (a rate
    outside [0, 1], a batch size that is not a positive integer or exceeds every dataset size of
    the grid) is malformed input; it must not be mistaken for an instance to skip.
    """
    scheme = derivation.scheme
    where = (f"derivation {derivation.name!r}: instance grid point "
             f"{', '.join(f'{k} = {v}' for k, v in values.items()) or '{}'}")
    free = set().union(*(v.free_symbols for v in scheme.parameters().values()
                         if isinstance(v, sp.Basic)))
    for symbol in values:
        if symbol not in free:
            known = ", ".join(sorted(map(str, free))) or "none"
            raise InvalidSpecification(
                f"{where}: {symbol} is not a parameter of the scheme ({scheme.describe()}; "
                f"its symbolic parameters: {known})")
    try:
        concrete = scheme.substitute(values)
    except InvalidSpecification as error:
        raise InvalidSpecification(f"{where}: {error}") from error
    for name, value in concrete.parameters().items():
        if isinstance(value, sp.Basic) and not value.is_Rational:
            missing = ", ".join(sorted(map(str, value.free_symbols)))
            raise InvalidSpecification(
                f"{where}: scheme parameter {name} = {value} must be a rational number"
                + (f" (give {missing} a value)" if missing else ""))
    largest = max(derivation.grid.sizes)
    if hasattr(concrete, "batch_sizes"):
        try:
            concrete.batch_sizes(largest)
        except InvalidSpecification as error:
            raise InvalidSpecification(f"{where}: {error} (the largest N of the grid)") from error


def run(derivation: Derivation) -> DerivationReport:
    """Derive every variant, run every check, and compare with the published statements."""
    start = time.perf_counter()
    variants = tuple(_run_variant(derivation, variant) for variant in derivation.variants)
    return DerivationReport(derivation, variants, time.perf_counter() - start)


def _run_variant(derivation: Derivation, variant: Variant) -> VariantReport:
    cases = tuple(check_case(derivation, case) for case in variant.cases)
    bound = None
    if all(c.bound is not None for c in cases):
        bound = MixtureBound(tuple(c.bound for c in cases))
    published = variant.statement()
    if bound is None:
        difference = "no bound was derived"
    else:
        difference = bound.difference(published) if published is not None else ""
    return VariantReport(variant, cases, bound, difference)


def check_case(derivation: Derivation, case: Case, instances: bool = True) -> CaseReport:
    """All checks of one case: at the level of types (every dataset size) where the analysis
    applies, and on the instances of the grid where they are small enough to enumerate (and
    ``instances`` asks for them: without, they run only where the type-level analysis does
    not apply). A searched coupling is checked on the instances only."""
    if isinstance(case.coupling, SearchedCoupling):
        return _searched(derivation, case)
    typed, type_note = _type_level(derivation, case)
    if typed is not None and typed.partition_defect:
        return CaseReport(case, 0, (), (), defect=typed.partition_defect)
    batches = _largest_instance(derivation, case)
    if batches > MAX_INSTANCE_BATCHES or (typed is not None and not instances):
        if typed is None:
            return CaseReport(case, 0, (), (), defect=f"the instances are too large to enumerate "
                                                     f"({batches} batches), and {type_note}")
        note = (f"instances not enumerated (the largest has {batches} batches; at most "
                f"{MAX_INSTANCE_BATCHES})" if batches > MAX_INSTANCE_BATCHES
                else "instances not enumerated")
        report = CaseReport(case, 0, (), (), type_level=typed, instance_note=note)
        return _with_bound(report, typed.bound, typed.bound_note)
    report = _check_instances(derivation, case, prove=typed is None)
    report = replace(report, type_level=typed, type_note=type_note)
    if not report.valid:
        return report
    if typed is not None and typed.bound is not None:
        return _cross_checked(derivation, report, typed)
    if typed is not None and typed.validity is Verdict.PROVED:
        return _with_bound(report, None, typed.bound_note)
    return _instance_bound(derivation, case, report)


def _searched(derivation: Derivation, case: Case) -> CaseReport:
    """A coupling searched by linear programming on every instance of the grid small enough to
    enumerate (:mod:`otbound.engine.coupling_search`), then Cor. D.7 read off the instances."""
    from otbound.engine.coupling_search import search_case

    defects = case.partition_defects(derivation.scheme)
    sizes = [n for n in derivation.grid.sizes
             if _largest_instance(derivation, case, n) <= MAX_INSTANCE_BATCHES]
    if not defects and not sizes:
        defects = [f"a searched coupling needs enumerated instances, but even the smallest "
                   f"dataset of the grid has more than {MAX_INSTANCE_BATCHES} batches"]
    if defects:
        return CaseReport(case, 0, (), (), defect=defects[0])
    small = replace(derivation, grid=replace(derivation.grid, sizes=tuple(sizes)))
    report = search_case(case, derivation.batch_relation, _instances(small, case))
    return _instance_bound(small, case, report) if report.valid else report


def _largest_instance(derivation: Derivation, case: Case, size: int | None = None) -> int:
    """How many batches the largest dataset of the grid (or of size ``size``) has (an upper
    bound)."""
    size = (max(derivation.grid.sizes) if size is None else size) + len(case.pair.specials)
    largest = 0
    for values in derivation.grid.parameters:
        scheme = derivation.scheme.substitute(values)
        if scheme.multiset:
            q = int(scheme.batch_size)
            largest = max(largest, math.comb(size + q - 1, q))
        else:
            try:
                sizes = scheme.batch_sizes(size)
            except InvalidSpecification:   # q > N: not an instance
                continue
            largest = max(largest, sum(math.comb(size, b) for b in sizes))
    return largest


def _type_level(derivation: Derivation, case: Case) -> tuple[TypeLevelResult | None, str]:
    """The type-level analysis, or ``None`` and why it does not apply."""
    try:
        return analyse_case(case, derivation.scheme, derivation.batch_relation,
                            derivation.size_reference), ""
    except UnsupportedOperation as error:
        return None, f"not analysed at the level of types: {error}"


def _with_bound(report: CaseReport, bound, note: str) -> CaseReport:
    return report.with_bound(bound) if bound is not None else report.with_bound_note(note)


def _cross_checked(derivation: Derivation, report: CaseReport,
                   typed: TypeLevelResult) -> CaseReport:
    """The type-level bound, once the instances agree with it."""
    if typed.compatibility is Verdict.PROVED and report.violation is not None:
        return replace(report, defect="the type-level analysis proved d_Y-compatibility but an "
                                      f"instance violates it: {report.violation.describe()}")
    if report.violation is None and report.profiles:
        try:
            instance_bound = symbolic_case_bound(report.case, derivation.scheme,
                                                 derivation.size_reference, report.profiles)
        except UnsupportedOperation:
            instance_bound = None
        if (typed.compatibility is Verdict.PROVED and instance_bound is not None
                and typed.bound.difference(instance_bound)):
            return replace(report, defect="the type-level bound and the bound read off the "
                                          "instances differ: "
                                          + typed.bound.difference(instance_bound))
    return report.with_bound(typed.bound)


def _check_instances(derivation: Derivation, case: Case, prove: bool) -> CaseReport:
    """Exact checks on every instance of the grid: marginals, compatibility, profiles."""
    scheme, relation = derivation.scheme, derivation.batch_relation
    defects = case.partition_defects(scheme)
    if defects:
        return CaseReport(case, checked=0, sizes=(), skipped=(), defect=defects[0])
    profiles: dict[Content, set[ConstraintMatrix]] = defaultdict(set)
    checked, sizes, skipped, violation = 0, [], [], None
    for instance, conditionals in _instances(derivation, case):
        if isinstance(conditionals, str):
            skipped.append(conditionals)
            continue
        checked += 1
        sizes.append(instance["N"])
        joint, mismatch = check_marginals(conditionals)
        if mismatch:
            return CaseReport(case, checked, tuple(sizes), tuple(skipped),
                              mismatch=InstanceFailure(instance, mismatch.describe()))
        found = find_compatibility_violation(conditionals, relation, joint)
        if found and violation is None:
            violation = InstanceFailure(instance, found.describe())
        for content, matrices in profiles_by_content(conditionals, relation).items():
            profiles[content] |= matrices
    if not checked:
        return CaseReport(case, 0, (), tuple(skipped),
                          defect="no instance of the grid could be checked")
    verdict, note = (prove_marginals(SymbolicConditionals(case, scheme)) if prove
                     else (None, ""))
    stable = {c: next(iter(m)) for c, m in profiles.items() if len(m) == 1}
    return CaseReport(case, checked, tuple(sizes), tuple(skipped), verdict=verdict,
                      symbolic_note=note,
                      violation=violation,
                      profiles=stable if len(stable) == len(profiles) else {},
                      unstable=len(stable) != len(profiles))


def _instance_bound(derivation: Derivation, case: Case, report: CaseReport) -> CaseReport:
    """Cor. D.7 read off the instances (where the type-level analysis does not apply)."""
    if report.violation is not None:
        return report
    if report.unstable:
        return report.with_bound_note(
            "reference batches with the same special content do not all have the same "
            "constraint matrix on every instance, so no size-independent bound can be stated")
    try:
        bound = symbolic_case_bound(case, derivation.scheme, derivation.size_reference,
                                    report.profiles)
    except UnsupportedOperation as error:
        return report.with_bound_note(str(error))
    return report.with_bound(bound)


OUT_OF_RANGE = "the scheme is undefined (e.g. a batch larger than the dataset)"
ZERO_EVENT = ("an event has probability zero (001 Thm. 3.4 conditions on events of positive "
              "probability)")
"""Why a point of the instance grid is skipped."""


def _instances(derivation: Derivation, case: Case):
    """Every instance of the grid for one case, with its conditionals, or with the reason it
    is skipped (:data:`OUT_OF_RANGE`, :data:`ZERO_EVENT`) instead."""
    offset = case.size_offset(derivation.size_reference)
    for size in derivation.grid.sizes:
        if size - offset < 0:
            continue
        for values in derivation.grid.parameters:
            instance = {"N": size, **{str(k): str(v) for k, v in values.items()}}
            try:
                conditionals = ConcreteConditionals(case, derivation.scheme.substitute(values),
                                                    size - offset)
            except InvalidSpecification:
                yield instance, OUT_OF_RANGE
                continue
            yield instance, (ZERO_EVENT if conditionals.zero_events() else conditionals)
