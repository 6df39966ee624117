"""A derivation: the ingredients of a published bound, the statement as published, and its checks.

A derivation file (``derivations/*.py``) defines a module-level ``DERIVATION``. It declares the
scheme, the relations, the events and the coupling of every case, and — separately — the
statement as published. :func:`run` lets the engine derive the bound on its own, check the
coupling (exactly on instances, symbolically for general dataset size), check
``d_Y``-compatibility, and compare its result with the published statement.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import replace
from typing import Callable, overload

from otbound.engine.auto_coupling import SearchedCoupling
from otbound.engine.batches import Content
from otbound.engine.bound import CaseBound, ConstraintMatrix, MixtureBound
from otbound.engine.case_bounds import symbolic_case_bound, unseen_content
from otbound.engine.compatibility import find_compatibility_violation, profiles_by_content
from otbound.engine.conditionals import Case, ConcreteConditionals, SymbolicConditionals
from otbound.engine.epoch_derivation import EpochDerivation, EpochReport, run_epoch
from otbound.engine.largest_distances import largest_distances_bound
from otbound.engine.public_branch import branch_failures
from otbound.engine.report import (BranchReport, CaseReport, DerivationReport, InstanceFailure,
                                   VariantReport)
from otbound.engine.type_level import TypeLevelResult, analyse_case
from otbound.engine.validity import Verdict, check_marginals, prove_marginals
from otbound.engine.schemes import WithReplacement
from otbound.errors import InvalidSpecification, Refusal, UnsupportedOperation, required

from otbound.engine.derivation_spec import (MAX_INSTANCE_BATCHES, Derivation, InstanceGrid,
                                            PublicBranch, StructuralParameter, Variant, user_code)

__all__ = ["Derivation", "InstanceGrid", "PublicBranch", "StructuralParameter", "Variant", "run",
           "user_code", "variant_cases", "with_searched_couplings"]


@overload
def run(derivation: Derivation) -> DerivationReport: ...
@overload
def run(derivation: EpochDerivation) -> EpochReport: ...
def run(derivation: Derivation | EpochDerivation) -> DerivationReport | EpochReport:
    """Derive every variant, run every check, and compare with the published statements (an
    epoch-level derivation: :func:`~otbound.engine.epoch_derivation.run_epoch`)."""
    if isinstance(derivation, EpochDerivation):
        return run_epoch(derivation)
    start = time.perf_counter()
    variants = tuple(_run_variant(derivation, variant) for variant in derivation.variants)
    return DerivationReport(derivation, variants, time.perf_counter() - start)


def _run_variant(derivation: Derivation, variant: Variant) -> VariantReport:
    cases, branches = variant_cases(derivation, variant)
    found = [c.bound for c in cases if c.bound is not None]
    bound = MixtureBound(tuple(found)) if len(found) == len(cases) else None
    published = variant.statement()
    if bound is None:
        difference = "no bound was derived"
    else:
        difference = bound.difference(published) if published is not None else ""
    return VariantReport(variant, cases, bound, difference, branches)


def variant_cases(derivation: Derivation, variant: Variant, instances: bool = True
                  ) -> tuple[tuple[CaseReport, ...], tuple[BranchReport, ...]]:
    """The report of each case of a variant (:func:`check_case`); for a public mixture, each
    branch's reports too, and each case's bound is the branches' bounds weighted by their
    probabilities (002 Sec. 3.1)."""
    if not variant.branches:
        return tuple(check_case(derivation, case, instances) for case in variant.cases), ()
    branches = tuple(_branch_report(derivation, branch, instances)
                     for branch in variant.branches)
    return tuple(_public_mixture(branches, i) for i in range(len(variant.cases))), branches


def _branch_report(derivation: Derivation, branch, instances: bool) -> BranchReport:
    given = replace(derivation, scheme=branch.scheme)
    failures, checked = branch_failures(derivation, branch)
    return BranchReport(branch, tuple(check_case(given, case, instances)
                                      for case in branch.cases), tuple(failures), checked)


def _public_mixture(branches: tuple[BranchReport, ...], index: int) -> CaseReport:
    """Case ``index`` of the mixture: the first branch's report whose case failed, else the
    first branch's report with the weighted sum of the branches' bounds."""
    reports = [branch.cases[index] for branch in branches]
    bounds = []
    for branch, report in zip(branches, reports):
        if branch.failures:
            return replace(report, defect=branch.failures[0], bound=None)
        if report.bound is None or report.violation is not None:
            return report
        bounds.append(report.bound)
    terms = tuple((branch.branch.weight * p, problem)
                  for branch, bound in zip(branches, bounds) for p, problem in bound.terms)
    return reports[0].with_bound(CaseBound(bounds[0].name, terms))


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
        if isinstance(scheme, WithReplacement):   # the multiset scheme
            q = int(scheme.batch_size)
            largest = max(largest, math.comb(size + q - 1, q))
        else:
            if not hasattr(scheme, "batch_sizes"):
                raise UnsupportedOperation(f"{scheme.describe()} has no batch sizes")
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
    bound = required(typed.bound, "the type-level bound")   # the caller checks it is there
    if typed.compatibility is Verdict.PROVED and report.violation is not None:
        return replace(report, defect="the type-level analysis proved d_Y-compatibility but an "
                                      f"instance violates it: {report.violation.describe()}")
    if report.violation is None and report.profiles:
        instance_bound = (None if unseen_content(report.case, derivation.scheme,
                                                 report.profiles)
                          else symbolic_case_bound(report.case, derivation.scheme,
                                                   derivation.size_reference, report.profiles))
        if (typed.compatibility is Verdict.PROVED and instance_bound is not None
                and bound.difference(instance_bound)):
            return replace(report, defect="the type-level bound and the bound read off the "
                                          "instances differ: "
                                          + bound.difference(instance_bound))
    return report.with_bound(bound)


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
    """Cor. D.7 read off the instances (where the type-level analysis does not apply); for a
    valid coupling that is not ``d_Y``-compatible, 001 Thm. 3.4 + Prop. 3.5 with the largest
    distances of its support (:mod:`otbound.engine.largest_distances`)."""
    if report.violation is not None:
        return _largest_distances(derivation, case, report)
    if report.unstable:
        return report.with_bound_note(
            "reference batches with the same special content do not all have the same "
            "constraint matrix on every instance, so no size-independent bound can be stated")
    unseen = unseen_content(case, derivation.scheme, report.profiles)
    if unseen is not None:
        return report.with_bound_note(str(unseen))
    return report.with_bound(symbolic_case_bound(case, derivation.scheme,
                                                 derivation.size_reference, report.profiles))


def _largest_distances(derivation: Derivation, case: Case, report: CaseReport) -> CaseReport:
    """The loose bound of a valid coupling that is not ``d_Y``-compatible, or why not."""
    instances = ((instance["N"], conditionals)
                 for instance, conditionals in _instances(derivation, case)
                 if not isinstance(conditionals, str))
    bound = largest_distances_bound(case, derivation.scheme, derivation.size_reference,
                                    derivation.batch_relation, instances)
    if isinstance(bound, Refusal):
        return report.with_bound_note(str(bound))
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


def with_searched_couplings(derivation: "Derivation") -> "Derivation":
    """The derivation with every case's coupling replaced by the search (same events; the
    reference coordinate of a hand-written coupling is kept)."""
    variants = tuple(_searched_variant(v) for v in derivation.variants)
    given = derivation.variant_for
    variant_for: Callable[..., Variant] | None = None
    if given is not None:
        def searched_for(**values):
            return _searched_variant(given(**values))
        variant_for = searched_for
    return replace(derivation, variants=variants, variant_for=variant_for)


def _searched_variant(variant):
    return replace(variant, cases=tuple(searched_case(case) for case in variant.cases))


def searched_case(case: Case) -> Case:
    """``case`` with its coupling replaced by :data:`otbound.engine.AUTO` (reference kept)."""
    if isinstance(case.coupling, SearchedCoupling):
        return case
    reference = case.reference
    return Case(case.pair, case.events_x, case.events_x_prime, SearchedCoupling(reference))
