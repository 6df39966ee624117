"""``otbound verify``: every check of one derivation and its mechanism instantiations."""

from __future__ import annotations

import math
import numbers
import sys
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from otbound.engine import symbols
from otbound.engine.conditionals import ConcreteConditionals
from otbound.engine.derivation import Derivation, Variant, run
from otbound.engine.report import CaseReport, DerivationReport
from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.numerics.mechanisms import (AdditiveNoise, Mechanism, RandomizedResponse, gaussian,
                                         laplace)
from otbound.verify.checks import (Finding, Instance, check_monte_carlo, check_mutations,
                                   check_soundness, check_tightness, random_function,
                                   worst_function)

MECHANISMS = (RandomizedResponse(0.75), gaussian(1.0), laplace(1.0))
ALPHAS, EPSILONS = (2.0, 8.0), (0.5, 2.0)
MONTE_CARLO_SAMPLES = 20_000
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


@dataclass(frozen=True)
class VerifyReport:
    """All findings for one derivation."""

    derivation: Derivation
    findings: tuple[Finding, ...]
    skipped: tuple[str, ...]
    elapsed: float

    @property
    def passed(self) -> bool:
        return all(f.passed for f in self.findings)

    @property
    def soundness_cases(self) -> int:
        return sum(f.parameters.get("cases", 0) for f in self.findings
                   if f.check == "soundness search")

    @property
    def worst_ratio(self) -> float:
        return float(max((f.observed for f in self.findings if f.check == "soundness search"),
                         default=0.0))

    def to_json(self, timings: bool = False) -> dict:
        """Everything as JSON; a fixed seed always gives the same object unless ``timings`` adds
        the (run-dependent) ``elapsed_seconds``."""
        result = {"name": self.derivation.name, "passed": self.passed,
                  "soundness_cases": self.soundness_cases,
                  "worst_soundness_ratio": self.worst_ratio, "skipped": list(self.skipped),
                  "checks": [f.to_json() for f in self.findings]}
        if timings:
            result["elapsed_seconds"] = round(self.elapsed, 2)
        return result

    def to_text(self) -> str:
        header = ("check", "parameters", "bound", "observed", "ratio", "verdict")
        rows = [(f.check, ", ".join(f"{k}={v}" for k, v in f.parameters.items()),
                 _shown(f.bound, ".10g"), _shown(f.observed, ".10g"), _shown(f.ratio, ".6f"),
                 f.verdict) for f in self.findings]
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
        lines = [f"verify {self.derivation.name} — {self.derivation.source}"]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in [header] + rows]
        failures = [f for f in self.findings if not f.passed]
        for f in failures:
            lines.append(f"FAILED {f.check}: {f.witness}")
        lines += [f"skipped: {s}" for s in self.skipped]
        lines.append(f"{self.soundness_cases} soundness cases, largest ratio divergence/bound "
                     f"{self.worst_ratio:.9f}; {len(self.findings) - len(failures)} of "
                     f"{len(self.findings)} checks passed [{self.elapsed:.1f} s]")
        return "\n".join(lines)


def _shown(value: float, spec: str) -> str:
    return "n/a" if math.isnan(value) else format(value, spec)


def _grid_point(derivation: Derivation) -> dict:
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


def _describe(values: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in values.items()) or "the grid's parameters"


def _integer(parameter: str, value: object, low: int, high: int | None = None,
             context: str = "") -> int:
    """``value`` as an int in ``[low, high]``; otherwise an error naming the parameter and
    range."""
    allowed = f"an integer >= {low}" if high is None else f"an integer in [{low}, {high}]"
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or not low <= value <= (math.inf if high is None else high)):
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


def _solvable(instance: Instance, mechanism: Mechanism) -> bool:
    try:
        for _, problem in instance.terms:
            mechanism.worst_components(problem)
    except UnsupportedOperation:
        return False
    return True


def verify_derivation(derivation: Derivation | DerivationReport, max_n: int = 6,
                      samples: int = 2000, seed: int = 0,
                      progress: Callable[[str], None] | None = None) -> VerifyReport:
    """Tightness, soundness search, Monte Carlo and mutation checks for one derivation.

    ``derivation`` is the :class:`DerivationReport` that :func:`otbound.engine.derivation.run`
    returned, whose case bounds are verified; a :class:`Derivation` is run once first. A case
    that failed the engine's own checks (so that no bound was derived) is a failed finding;
    parameters out of range raise :class:`InvalidSpecification` naming the parameter and its
    range.
    """
    seed = _integer("seed", seed, 0)
    samples = _integer("samples", samples, 1, MAX_SAMPLES)
    start = time.perf_counter()
    report = _report(derivation)
    derivation = report.derivation
    findings: list[Finding] = [finding for variant in report.variants
                               for case in variant.cases
                               if (finding := _no_bound(variant.variant, case))]
    max_n = _integer("max_n", max_n, smallest_max_n(report), MAX_N, f" for {derivation.name}")
    rng = np.random.default_rng(seed)
    tight = {name for name, _ in derivation.tight}
    combos, skipped = [], []
    for instance in instances(report, max_n):
        for mechanism in MECHANISMS:
            if _solvable(instance, mechanism):
                combos.append((instance, mechanism))
            else:
                skipped.append(f"{mechanism.name} on {instance.describe()}: no exact solver for "
                               "this constraint pattern")
    if not combos and not findings:
        raise InvalidSpecification(f"{derivation.name}: no instance with N <= {max_n} has an "
                                   "exact solver for any mechanism, so nothing can be verified")
    per_combo = max(10, -(-samples // len(combos))) if combos else 0
    mutated = False
    for number, (instance, mechanism) in enumerate(combos, 1):
        if progress:
            progress(f"[{number}/{len(combos)}] {derivation.name} {instance.describe()} "
                     f"{mechanism.name}")
        claimed = mechanism.name in tight and len(instance.terms) == 1
        if claimed:
            findings += check_tightness(instance, mechanism, ALPHAS, EPSILONS)
        findings.append(check_soundness(instance, mechanism, per_combo, rng, ALPHAS, EPSILONS))
        for kind, point in (("ADP", EPSILONS[0]), ("RDP", ALPHAS[0])):
            function = (worst_function(instance, mechanism, kind, point) if claimed
                        else random_function(instance, mechanism, rng))
            findings.append(check_monte_carlo(instance, mechanism, kind, function, claimed,
                                              MONTE_CARLO_SAMPLES, rng, point))
        if (claimed and not mutated and isinstance(mechanism, AdditiveNoise)
                and symbols.r in instance.values and len(instance.terms[0].problem.left) > 2):
            findings += check_mutations(instance, mechanism, ALPHAS[0], EPSILONS[0])
            mutated = True
    return VerifyReport(derivation, tuple(findings), tuple(skipped), time.perf_counter() - start)


def print_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
