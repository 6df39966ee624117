"""A derivation: the ingredients of a published bound, the statement as published, and its checks.

A derivation file (``derivations/*.py``) defines a module-level ``DERIVATION``. It declares the
scheme, the relations, the events and the coupling of every case, and — separately — the
statement as published. :func:`run` lets the engine derive the bound on its own, check the
coupling (exactly on instances, symbolically for general dataset size), check
``d_Y``-compatibility, and compare its result with the published statement.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Mapping

import sympy as sp

from otbound.engine.batches import Content
from otbound.engine.bound import ConstraintMatrix, MixtureBound
from otbound.engine.case_bounds import symbolic_case_bound
from otbound.engine.compatibility import find_compatibility_violation, profiles_by_content
from otbound.engine.conditionals import (Case, ConcreteConditionals, SizeReference,
                                         SymbolicConditionals)
from otbound.engine.relations import BatchRelation, DatasetRelation
from otbound.engine.report import CaseReport, DerivationReport, InstanceFailure, VariantReport
from otbound.engine.schemes import Scheme
from otbound.engine.validity import check_marginals, prove_marginals
from otbound.errors import InvalidSpecification, UnsupportedOperation


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
    """One value of a derivation's structural parameters (e.g. group size K = 2)."""

    label: str
    relation: DatasetRelation
    cases: tuple[Case, ...]
    published: MixtureBound

    def __post_init__(self) -> None:
        object.__setattr__(self, "cases", tuple(self.cases))
        if len(self.cases) != len(self.relation.pairs()):
            raise InvalidSpecification(
                f"variant {self.label!r}: {len(self.cases)} cases for a relation with "
                f"{len(self.relation.pairs())} pair shapes")


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "variants", tuple(self.variants))
        object.__setattr__(self, "tight", tuple(tuple(t) for t in self.tight))
        object.__setattr__(self, "errata", tuple(self.errata))
        object.__setattr__(self, "remarks", tuple(self.remarks))
        if not self.variants:
            raise InvalidSpecification(f"derivation {self.name!r} declares no variant")
        for values in self.grid.parameters:
            _check_grid_point(self, values)


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
    difference = bound.difference(variant.published) if bound else "no bound was derived"
    return VariantReport(variant, cases, bound, difference)


def check_case(derivation: Derivation, case: Case) -> CaseReport:
    """All checks of one case; the symbolic bound when the coupling passed them."""
    scheme, relation = derivation.scheme, derivation.batch_relation
    defects = case.partition_defects(scheme)
    if defects:
        return CaseReport(case, checked=0, sizes=(), skipped=0, defect=defects[0])
    profiles: dict[Content, set[ConstraintMatrix]] = defaultdict(set)
    checked, sizes, skipped, violation = 0, [], 0, None
    for instance, conditionals in _instances(derivation, case):
        if conditionals is None:
            skipped += 1
            continue
        checked += 1
        sizes.append(instance["N"])
        joint, mismatch = check_marginals(conditionals)
        if mismatch:
            return CaseReport(case, checked, tuple(sizes), skipped,
                              mismatch=InstanceFailure(instance, mismatch.describe()))
        found = find_compatibility_violation(conditionals, relation, joint)
        if found and violation is None:
            violation = InstanceFailure(instance, found.describe())
        for content, matrices in profiles_by_content(conditionals, relation).items():
            profiles[content] |= matrices
    if not checked:
        return CaseReport(case, 0, (), skipped, defect="no instance of the grid could be checked")
    verdict, note = prove_marginals(SymbolicConditionals(case, scheme))
    report = CaseReport(case, checked, tuple(sizes), skipped, verdict=verdict, symbolic_note=note,
                        violation=violation)
    if violation is not None:
        return report
    unstable = {c: m for c, m in profiles.items() if len(m) > 1}
    if unstable:
        content = next(iter(unstable))
        return report.with_bound_note(
            f"reference batches with special content {content} do not all have the same "
            "constraint matrix on every instance, so no size-independent bound can be stated")
    try:
        bound = symbolic_case_bound(case, scheme, derivation.size_reference,
                                    {c: next(iter(m)) for c, m in profiles.items()})
    except UnsupportedOperation as error:
        return report.with_bound_note(str(error))
    return report.with_bound(bound)


def _instances(derivation: Derivation, case: Case):
    """Every instance of the grid for one case, with its conditionals (``None`` if skipped)."""
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
                yield instance, None
                continue
            yield instance, (None if conditionals.zero_events() else conditionals)
