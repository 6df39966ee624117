"""``otbound verify``: every check of one derivation and its mechanism instantiations, run on the
instances it is verified on (the report it returns: :mod:`otbound.verify.verify_report`)."""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import replace
from typing import Callable, Mapping, Sequence

import numpy as np

from otbound.choices import Quantity
from otbound.engine import symbols
from otbound.engine.bound import CaseBound, MixtureBound
from otbound.engine.conditionals import ConcreteConditionals
from otbound.engine.derivation import Derivation, Variant, run
from otbound.engine.epoch_derivation import EpochDerivation, EpochReport
from otbound.engine.report import CaseReport, DerivationReport, VariantReport
from otbound.errors import InvalidSpecification, UnsupportedOperation, required
from otbound.numerics.mechanisms import (AdditiveNoise, Mechanism, RandomizedResponse, gaussian,
                                         laplace)
from otbound.numerics.solvers import solve
from otbound.verify.checks import Finding, Instance
from otbound.verify.epoch_montecarlo import EpochVerifyReport, verify_epoch
from otbound.verify.independent_mc import DEFAULT_DRAWS, check_independent_mc
from otbound.verify.monte_carlo_check import check_monte_carlo
from otbound.verify.mutations import check_mutations
from otbound.verify.published_statements import check_published_statement, worst_case_constructions
from otbound.verify.soundness import check_soundness, random_function
from otbound.verify.tightness import check_tightness, worst_function
from otbound.verify.verify_report import PublishedComparison, VerifyReport

MECHANISMS = (RandomizedResponse(0.75), gaussian(1.0), laplace(1.0))
ALPHAS, EPSILONS = (2.0, 8.0), (0.5, 2.0)
MONTE_CARLO_SAMPLES = 20_000
MAX_MC_DRAWS = 10_000_000
"""Largest ``mc_draws`` (``--mc-draws``): measured 22 s and 26 s for one row at N = 6 on a busy
2-core machine (001-thm-4.1 K = 2, wor-group-substitution K = 2), in under 400 MB."""
MAX_N = 10
"""Largest ``max_n`` (``--max-n``). Every check enumerates all batches of the datasets exactly (2^N
of them under Poisson sampling), so the cost grows exponentially with N. Measured for the two
heaviest bundled derivations, 001-thm-4.1 and 003-thm-3.7, with the default 2000 samples: 52 s and
93 s at max-n 6, 257 s and 259 s at max-n 10; at max-n 12 even 50 samples take 66 s and 81 s (and
2000 would take a quarter of an hour or more)."""
MAX_SAMPLES = 100_000
"""Largest ``samples`` (``--samples``; ten times the slow test suite's 10,000). The soundness
search is linear in it, about 0.04 s per case for 003-thm-3.7 at the default max-n 6 (0.12 s at
max-n 10), so the limit keeps one run at about an hour at the default max-n."""
PUBLISHED_SEARCH_SHARE = 4
"""The soundness search against a published statement draws this fraction (1/4) of the cases
of the search against the derived bound (at least 10), after its seeds: it starts from the
derived bound's worst-case constructions, which the random functions rarely beat."""


def _grid_point(derivation: Derivation) -> Mapping:
    """The parameters every instance is verified at: the middle assignment of the grid."""
    return derivation.grid.parameters[len(derivation.grid.parameters) // 2]


def _report(derivation: Derivation | DerivationReport) -> DerivationReport:
    """The report whose case bounds are verified: ``derivation`` itself if it is one, else the
    report of running the derivation (once)."""
    if isinstance(derivation, DerivationReport):
        return derivation
    if isinstance(derivation, Derivation):
        return run(derivation)
    raise InvalidSpecification(
        "derivation must be a Derivation or the DerivationReport that run() returned for it, "
        f"got {type(derivation).__name__}", parameter="derivation")


def _instance(derivation: Derivation, variant: Variant, report: CaseReport,
              sizes: range) -> Instance | None:
    """The first dataset size ``N`` in ``sizes`` at which the case has events of non-zero mass."""
    case = report.case
    values = _grid_point(derivation)
    scheme = derivation.scheme.substitute(values)
    offset = case.size_offset(derivation.size_reference)
    for size in sizes:
        if size < offset:
            continue
        try:
            conditionals = ConcreteConditionals(case, scheme, size - offset)
        except InvalidSpecification:
            continue
        if not conditionals.zero_events():
            return Instance(derivation, variant, case, dict(values), size - offset,
                            bound=report.bound)
    return None


def _bounded_cases(report: DerivationReport) -> list[tuple[Variant, CaseReport]]:
    """Every ``(variant, case report)`` with a derived bound (the other cases fail)."""
    return [(variant.variant, case) for variant in report.variants for case in variant.cases
            if case.bound is not None]


def instances(derivation: Derivation | DerivationReport, max_n: int) -> list[Instance]:
    """One instance per case with a derived bound: the middle parameter set of the grid, the
    largest size ≤ max_n. ``derivation`` is its report, or the derivation (then run once)."""
    report = _report(derivation)
    found = (_instance(report.derivation, variant, case, range(max_n, -1, -1))
             for variant, case in _bounded_cases(report))
    return [instance for instance in found if instance is not None]


def smallest_max_n(derivation: Derivation | DerivationReport) -> int:
    """The smallest ``max_n`` at which every case with a derived bound has an instance."""
    report = _report(derivation)
    derivation = report.derivation
    smallest = 1
    for variant, case_report in _bounded_cases(report):
        case = case_report.case
        instance = _instance(derivation, variant, case_report, range(MAX_N + 1))
        if instance is None:
            raise InvalidSpecification(
                f"{derivation.name}: case {case.pair.name!r} ({variant.label}) has no instance "
                f"with N <= {MAX_N} at {_describe(_grid_point(derivation))} to verify")
        smallest = max(smallest, instance.size)
    return smallest


def _describe(values: Mapping) -> str:
    return ", ".join(f"{k} = {v}" for k, v in values.items()) or "the grid's parameters"


def _integer(parameter: str, value: object, low: int, high: int | None = None,
             context: str = "") -> int:
    """``value`` as an int in ``[low, high]``; otherwise an error naming the parameter and
    range."""
    allowed = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or not low <= int(value) <= (math.inf if high is None else high)):
        raise InvalidSpecification(f"{parameter} must be {allowed}{context}, got {value!r}",
                                   parameter=parameter)
    return int(value)


def _no_bound(variant: Variant, report: CaseReport) -> Finding | None:
    """A failed finding for a case that failed the engine's checks (so it has no bound)."""
    case = report.case
    if report.bound is not None:
        return None
    if report.defect:
        reason = f"invalid case: {report.defect}"
    elif report.mismatch:
        reason = f"invalid coupling {report.mismatch.describe()}"
    elif report.violation:
        reason = f"coupling not d_Y-compatible {report.violation.describe()}"
    else:
        reason = f"no symbolic bound: {report.bound_note or 'none was derived'}"
    return Finding("derived bound", {"variant": variant.label, "case": case.pair.name},
                   math.nan, math.nan, "NO BOUND", f"{reason} (see otbound derive)")


def _solvable(instance: Instance, mechanism: Mechanism, exact: bool = False) -> bool:
    """Whether the solver registry solves every term exactly, or (unless ``exact``) after a
    registered relaxation (a sound bound whose soundness is still searched)."""
    solutions = [solve(problem, mechanism) for _, problem in instance.terms]
    return all(found.pairs is not None and (not exact or found.relaxation is None)
               for found in solutions)


def verify_derivation(derivation: Derivation | DerivationReport | EpochDerivation | EpochReport,
                      max_n: int = 6, samples: int = 2000, seed: int = 0,
                      progress: Callable[[str], None] | None = None,
                      mc_draws: int = DEFAULT_DRAWS,
                      mechanisms: Sequence[Mechanism] | None = None
                      ) -> VerifyReport | EpochVerifyReport:
    """Tightness, soundness search, Monte Carlo and mutation checks for one derivation, and the
    same soundness checks against each variant's published statement (an epoch-level
    derivation: its exact checks and :func:`~otbound.verify.epoch_montecarlo.verify_epoch`).
    Every instance and mechanism claimed tight also gets an independent Monte Carlo row of
    ``mc_draws`` simulated draws (:mod:`otbound.verify.independent_mc`, from its own random
    stream). The mechanisms are ``mechanisms`` (by default :data:`MECHANISMS`: randomized
    response, the Gaussian and Laplace, one each).

    ``derivation`` is the :class:`DerivationReport` that :func:`otbound.engine.derivation.run`
    returned, whose case bounds are verified; a :class:`Derivation` is run once first. A case
    that failed the engine's own checks (so that no bound was derived) is a failed finding;
    parameters out of range raise :class:`InvalidSpecification` naming the parameter and its
    range.

    A published statement is checked on the same instances, case by case (its case of the same
    name): the exact divergence of the derived bound's worst-case constructions
    (:func:`~otbound.verify.published_statements.check_published_statement`) and a soundness
    search seeded with them must stay below it; an unsound statement fails the report.
    ``published`` in the report lists every symbolic difference and the ratios
    published/derived.
    """
    seed = _integer("seed", seed, 0)
    samples = _integer("samples", samples, 1, MAX_SAMPLES)
    mc_draws = _integer("mc_draws", mc_draws, 2, MAX_MC_DRAWS)
    if isinstance(derivation, (EpochDerivation, EpochReport)):
        return verify_epoch(run(derivation) if isinstance(derivation, EpochDerivation)
                            else derivation, mc_draws, seed)
    start = time.perf_counter()
    report = _report(derivation)
    derivation = report.derivation
    findings: list[Finding] = [finding for variant in report.variants
                               for case in variant.cases
                               if (finding := _no_bound(variant.variant, case))]
    max_n = _integer("max_n", max_n, smallest_max_n(report), MAX_N, f" for {derivation.name}")
    rng = np.random.default_rng(seed)
    independent_rng = np.random.default_rng([seed, 1])   # leaves the other checks' draws as is
    tight = {name for name, _ in derivation.tight}
    combos, skipped = [], []
    for instance in instances(report, max_n):
        for mechanism in MECHANISMS if mechanisms is None else mechanisms:
            if _solvable(instance, mechanism):
                combos.append((instance, mechanism))
            else:
                skipped.append(f"{mechanism.name} on {instance.describe()}: no exact solver for "
                               "this constraint pattern")
    if not combos and not findings:
        raise InvalidSpecification(f"{derivation.name}: no instance with N <= {max_n} has an "
                                   "exact solver for any mechanism, so nothing can be verified")
    per_combo = max(10, -(-samples // len(combos))) if combos else 0
    mutated, checked_claims = False, set()
    for number, (instance, mechanism) in enumerate(combos, 1):
        if progress:
            progress(f"[{number}/{len(combos)}] {derivation.name} {instance.describe()} "
                     f"{mechanism.name}")
        claimed = (mechanism.name in tight and len(instance.terms) == 1
                   and _solvable(instance, mechanism, exact=True))
        if claimed:
            checked_claims.add(mechanism.name)
            findings += check_tightness(instance, mechanism, ALPHAS, EPSILONS)
        findings.append(check_soundness(instance, mechanism, per_combo, rng, ALPHAS, EPSILONS))
        for quantity, point in ((Quantity.ADP, EPSILONS[0]), (Quantity.RDP, ALPHAS[0])):
            function = (worst_function(instance, mechanism, quantity, point) if claimed
                        else random_function(instance, mechanism, rng))
            findings.append(check_monte_carlo(instance, mechanism, quantity, function, claimed,
                                              MONTE_CARLO_SAMPLES, rng, point))
        if claimed:
            findings += _independent_mc(instance, mechanism, mc_draws, independent_rng, skipped)
        if (claimed and not mutated and isinstance(mechanism, AdditiveNoise)
                and symbols.r in instance.values and len(instance.terms[0].problem.left) > 2):
            findings += check_mutations(instance, mechanism, ALPHAS[0], EPSILONS[0])
            mutated = True
    skipped += [f"the claim that the bound is tight for {name} ({source}): not checked (on no "
                f"instance with N <= {max_n} is the bound one term with an exact {name} solver)"
                for name, source in derivation.tight if name not in checked_claims]
    comparisons, cases = [], max(10, per_combo // PUBLISHED_SEARCH_SHARE)
    for variant in report.variants:
        if variant.bound is None or variant.variant.statement() is None:
            continue
        chosen = [(i, m) for i, m in combos
                  if i.variant is variant.variant and _solvable(i, m, exact=True)]
        found, comparison, notes = _published_variant(variant, chosen, cases, rng, progress)
        findings += found
        skipped += notes
        comparisons.append(comparison)
    return VerifyReport(derivation, tuple(findings), tuple(skipped), time.perf_counter() - start,
                        tuple(comparisons))


def _independent_mc(instance: Instance, mechanism: Mechanism, draws: int,
                    rng: np.random.Generator, skipped: list[str]) -> list[Finding]:
    """The row of :func:`~otbound.verify.independent_mc.check_independent_mc` at ε =
    ``EPSILONS[0]``, or a note in ``skipped`` when the scheme has no independent simulation."""
    try:
        return [check_independent_mc(instance, mechanism, EPSILONS[0], draws, rng)]
    except UnsupportedOperation as error:
        skipped.append(f"independent Monte Carlo with {mechanism.name} on "
                       f"{instance.describe()}: {error}")
        return []


def _published_counterpart(statement: MixtureBound, name: str) -> CaseBound | None:
    """The published statement's case called ``name``; its only case if it has just one."""
    named = [case for case in statement.cases if case.name == name]
    if named:
        return named[0]
    return statement.cases[0] if len(statement.cases) == 1 else None


def _points(instance: Instance, mechanism: Mechanism) -> list[float]:
    """The bound's ε(α) at :data:`ALPHAS` and δ(ε) at :data:`EPSILONS`."""
    alphas = np.asarray(ALPHAS)
    return [*(instance.bound_log_psi(mechanism, alphas) / (alphas - 1)),
            *instance.bound_delta(mechanism, EPSILONS)]


def _published_ratio(published: float, derived: float) -> float:
    """published / derived (1 when both are 0; ±inf when only the derived value is 0)."""
    if derived == 0:
        return 1.0 if published == 0 else math.copysign(math.inf, published)
    return published / derived


def _published_combo(instance: Instance, mechanism: Mechanism, bound: CaseBound, cases: int,
                     rng: np.random.Generator) -> tuple[list[Finding], list[float], list[str]]:
    """The published statement's case ``bound`` on one instance and mechanism: the derived
    bound's worst-case constructions and a soundness search seeded with them; the ratios
    published/derived; and what was skipped."""
    published = replace(instance, bound=bound, lower=True)
    where = f"{mechanism.name} on {instance.describe()}"
    try:
        claimed = _points(published, mechanism)
    except (InvalidSpecification, UnsupportedOperation) as error:
        return [], [], [f"published statement with {where}: cannot be evaluated ({error})"]
    except TypeError as error:   # sympy's float() of an expression with a free symbol
        return [], [], [f"published statement with {where}: cannot be evaluated (a probability "
                        f"has a symbol without a value at this instance: {error})"]
    ratios = [_published_ratio(p, d) for p, d in zip(claimed, _points(instance, mechanism))]
    constructions, notes = worst_case_constructions(instance, mechanism)
    findings = (check_published_statement(instance, published, mechanism, constructions, ALPHAS,
                                          EPSILONS) if constructions else [])
    findings.append(check_soundness(published, mechanism, cases, rng, ALPHAS, EPSILONS,
                                    seeds=[c.climbable for c in constructions],
                                    check="published soundness search"))
    return findings, ratios, [f"published statement with {where}: {note}" for note in notes]


def _published_variant(variant: VariantReport, combos: Sequence[tuple[Instance, Mechanism]],
                       cases: int, rng: np.random.Generator,
                       progress: Callable[[str], None] | None
                       ) -> tuple[list[Finding], PublishedComparison, list[str]]:
    """Every published-statement check of one variant, case by case, and the statement's
    comparison with the derived bound."""
    # the caller skips a variant without a statement or a derived bound
    statement = required(variant.variant.statement(), "the variant's published statement")
    label, derived = variant.variant.label, required(variant.bound, "the variant's derived bound")
    findings: list[Finding] = []
    ratios: list[float] = []
    skipped: list[str] = []
    unevaluated: list[str] = []
    for name in dict.fromkeys(instance.case.pair.name for instance, _ in combos):
        group = [(i, m) for i, m in combos if i.case.pair.name == name]
        found, more, notes, missing = _published_case(statement, group, cases, rng, progress)
        findings, ratios = findings + found, ratios + more
        skipped, unevaluated = skipped + notes, unevaluated + missing
    comparison = PublishedComparison(
        label, tuple(derived.differences(statement)), tuple(ratios),
        tuple(f.witness for f in findings if f.verdict == "UNSOUND"),
        "" if ratios else "; ".join(skipped), tuple(unevaluated),
        tuple(f"{f.verdict}: {f.witness}" for f in findings
              if not f.passed and f.verdict != "UNSOUND"))
    return findings, comparison, skipped


def _published_case(statement: MixtureBound, combos: Sequence[tuple[Instance, Mechanism]],
                    cases: int, rng: np.random.Generator,
                    progress: Callable[[str], None] | None
                    ) -> tuple[list[Finding], list[float], list[str], list[str]]:
    """The checks of one case's instance (``combos``: its mechanisms) against the published
    statement's counterpart: findings, ratios, skipped notes, and the mechanisms that could not
    evaluate it. A case without a counterpart, or that no mechanism could evaluate, is a failed
    finding: every case of the statement must be checked."""
    instance = combos[0][0]
    name = instance.case.pair.name
    bound = _published_counterpart(statement, name)
    if bound is None:
        return [_no_counterpart(instance, statement)], [], [], []
    findings: list[Finding] = []
    ratios: list[float] = []
    skipped: list[str] = []
    unevaluated: list[str] = []
    for instance, mechanism in combos:
        if progress:
            progress(f"[published] {instance.describe()} {mechanism.name}")
        found, more, notes = _published_combo(instance, mechanism, bound, cases, rng)
        findings, ratios, skipped = findings + found, ratios + more, skipped + notes
        if not more:
            unevaluated.append(f"{mechanism.name} ({name})")
    if not ratios:
        findings.append(Finding("published statement", {"variant": instance.variant.label,
                                                        "case": name},
                                math.nan, math.nan, "NOT EVALUATED",
                                f"no mechanism could evaluate the published case {name!r} "
                                "(see skipped)"))
    return findings, ratios, skipped, unevaluated


def _no_counterpart(instance: Instance, statement: MixtureBound) -> Finding:
    names = ", ".join(case.name for case in statement.cases)
    return Finding("published statement", {"variant": instance.variant.label,
                                           "case": instance.case.pair.name},
                   math.nan, math.nan, "NO COUNTERPART",
                   f"the published statement has no case {instance.case.pair.name!r} "
                   f"(its cases: {names}); name its cases after the relation's pair shapes")
