"""``otbound verify``: every check of one derivation and its mechanism instantiations."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from otbound import symbols
from otbound.conditionals import ConcreteConditionals
from otbound.derivation import Derivation
from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.mechanisms import AdditiveNoise, Mechanism, RandomizedResponse, gaussian, laplace
from otbound.verify.checks import (Finding, Instance, check_monte_carlo, check_mutations,
                                   check_soundness, check_tightness, random_function,
                                   worst_function)

MECHANISMS = (RandomizedResponse(0.75), gaussian(1.0), laplace(1.0))
ALPHAS, EPSILONS = (2.0, 8.0), (0.5, 2.0)
MONTE_CARLO_SAMPLES = 20_000


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
        return max((f.observed for f in self.findings if f.check == "soundness search"),
                   default=0.0)

    def to_json(self) -> dict:
        return {"name": self.derivation.name, "passed": self.passed,
                "soundness_cases": self.soundness_cases, "worst_soundness_ratio": self.worst_ratio,
                "elapsed_seconds": round(self.elapsed, 2), "skipped": list(self.skipped),
                "checks": [f.to_json() for f in self.findings]}

    def to_text(self) -> str:
        header = ("check", "parameters", "bound", "observed", "ratio", "verdict")
        rows = [(f.check, ", ".join(f"{k}={v}" for k, v in f.parameters.items()),
                 f"{f.bound:.10g}", f"{f.observed:.10g}", f"{f.ratio:.6f}", f.verdict)
                for f in self.findings]
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


def instances(derivation: Derivation, max_n: int) -> list[Instance]:
    """One instance per case: the middle parameter set of the grid, the largest size ≤ max_n."""
    values = derivation.grid.parameters[len(derivation.grid.parameters) // 2]
    found = []
    for variant in derivation.variants:
        for case in variant.cases:
            offset = case.size_offset(derivation.size_reference)
            for background in range(max_n - offset, -1, -1):
                try:
                    conditionals = ConcreteConditionals(case, derivation.scheme.substitute(values),
                                                        background)
                except InvalidSpecification:
                    continue
                if not conditionals.zero_events():
                    found.append(Instance(derivation, variant, case, dict(values), background))
                    break
    return found


def _solvable(instance: Instance, mechanism: Mechanism) -> bool:
    try:
        for _, problem in instance.terms:
            mechanism.worst_components(problem)
    except UnsupportedOperation:
        return False
    return True


def verify(derivation: Derivation, max_n: int = 6, samples: int = 2000, seed: int = 0,
           progress: Callable[[str], None] | None = None) -> VerifyReport:
    """Tightness, soundness search, Monte Carlo and mutation checks for one derivation."""
    if max_n < 1 or samples < 1:
        raise InvalidSpecification(f"--max-n and --samples must be >= 1, got {max_n}, {samples}")
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    tight = {name for name, _ in derivation.tight}
    combos, skipped = [], []
    for instance in instances(derivation, max_n):
        for mechanism in MECHANISMS:
            if _solvable(instance, mechanism):
                combos.append((instance, mechanism))
            else:
                skipped.append(f"{mechanism.name} on {instance.describe()}: no exact solver for "
                               "this constraint pattern")
    if not combos:
        raise InvalidSpecification(f"{derivation.name}: no instance with N <= {max_n} to verify")
    per_combo = max(10, -(-samples // len(combos)))
    findings: list[Finding] = []
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
                and symbols.r in instance.values and len(instance.terms[0][1].left) > 2):
            findings += check_mutations(instance, mechanism, ALPHAS[0], EPSILONS[0])
            mutated = True
    return VerifyReport(derivation, tuple(findings), tuple(skipped), time.perf_counter() - start)


def print_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
