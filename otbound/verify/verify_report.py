"""What ``otbound verify`` reports for one derivation: every finding, the comparison of each
published statement with the derived bound (sound or not, looser or tighter, by how much), the
soundness searches' tallies, and the counts by outcome, as text and as JSON.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from otbound.engine.derivation import Derivation
from otbound.verify.checks import (RELATIVE_TOLERANCE, TRIVIAL_MEANING, UNINFORMATIVE_MEANING,
                                   Finding, SearchTally)


@dataclass(frozen=True)
class PublishedComparison:
    """A variant's published statement against the bound otbound derived for it.

    ``differences`` are every symbolic difference (derived vs published,
    :meth:`MixtureBound.differences`); ``ratios`` the published/derived values (ε(α) for RDP,
    δ(ε) for ADP) at every instance, mechanism and point evaluated; ``witnesses`` those of the
    published-statement checks that found it unsound; ``problems`` the other failed ones (no
    counterpart, not evaluated); ``note`` says why nothing was evaluated."""

    variant: str
    differences: tuple[str, ...]
    ratios: tuple[float, ...]
    witnesses: tuple[str, ...] = ()
    note: str = ""
    unevaluated: tuple[str, ...] = ()
    """Mechanisms for which the published statement could not be evaluated (no exact solver
    for its constraint pattern, or weights that are not a distribution)."""
    problems: tuple[str, ...] = ()

    @property
    def sound(self) -> bool | None:
        """False with a witness of unsoundness; None when a check could not be made; else True
        (no check found a counterexample)."""
        if self.witnesses:
            return False
        return None if self.problems or self.direction == "not evaluated" else True

    @property
    def direction(self) -> str:
        """``identical``, ``looser``, ``tighter``, ``incomparable`` or ``not evaluated``."""
        if not self.ratios:
            return "identical" if not self.differences else "not evaluated"
        above = any(r > 1 + RELATIVE_TOLERANCE for r in self.ratios)
        below = any(r < 1 - RELATIVE_TOLERANCE for r in self.ratios)
        if above and below:
            return "incomparable"
        return "looser" if above else "tighter" if below else "identical"

    def summary(self) -> str:
        """One line: the direction, whether the statement is sound, and the ratios."""
        direction = self.direction
        if direction == "not evaluated":
            return f"not evaluated ({self.note or 'no instance with an exact solver'})"
        if self.witnesses:
            soundness = f"UNSOUND, witness: {self.witnesses[0]}"
        elif self.problems:
            soundness = f"not fully checked: {self.problems[0]}"
        else:
            soundness = ("no counterexample found" if direction in ("tighter", "incomparable")
                         else "sound")
        if direction == "identical":
            exact = ("symbolically" if not self.differences
                     else f"numerically at {len(self.ratios)} points, not symbolically")
            return f"identical to the derived bound ({exact}; {soundness}){self._unevaluated()}"
        prefix = "" if direction == "incomparable" else "published "
        return f"{prefix}{direction} ({soundness}): {self._spread()}{self._unevaluated()}"

    def _unevaluated(self) -> str:
        if not self.unevaluated:
            return ""
        return f"; not evaluated with {', '.join(self.unevaluated)} (see skipped)"

    def _spread(self) -> str:
        """The ratios that matter for the direction, and their median."""
        ratios, direction = sorted(self.ratios), self.direction
        finite = [r for r in ratios if math.isfinite(r)]
        if direction == "looser":
            extreme = f"largest ratio {ratios[-1]:.6g}"
            if not math.isfinite(ratios[-1]) and finite:
                extreme += (f" (where only the derived value is 0; largest finite ratio "
                            f"{finite[-1]:.6g})")
        elif direction == "tighter":
            extreme = f"smallest ratio {ratios[0]:.6g}"
        else:
            extreme = f"ratios from {ratios[0]:.6g} to {ratios[-1]:.6g}"
        return f"{extreme}, median {statistics.median(ratios):.6g} over {len(ratios)} points"

    def to_json(self) -> dict:
        def number(value: float) -> float | str:   # JSON has no infinity
            return value if math.isfinite(value) else str(value)
        ratios = sorted(self.ratios)
        return {"variant": self.variant, "direction": self.direction,
                "sound": self.sound, "summary": self.summary(),
                "differences": list(self.differences),
                "largest_ratio": number(ratios[-1]) if ratios else None,
                "smallest_ratio": number(ratios[0]) if ratios else None,
                "median_ratio": number(statistics.median(ratios)) if ratios else None,
                "points": len(ratios), "witnesses": list(self.witnesses),
                "problems": list(self.problems), "not_evaluated_with": list(self.unevaluated)}

    def to_text(self) -> list[str]:
        lines = [f"published statement ({self.variant}): {self.summary()}"]
        lines += [f"  difference (derived vs published): {d}" for d in self.differences]
        return lines


@dataclass(frozen=True)
class VerifyReport:
    """All findings for one derivation; ``published`` compares each published statement with
    the derived bound.

    The report closes with the soundness searches — their comparisons (each function at each
    point), how many were trivial (:func:`~otbound.verify.checks.trivial`: the bound at the
    divergence's least value, so the ratio is 0/0) and the largest ratio divergence/bound over
    the others, with where it was attained — and the number of checks that passed, that were
    uninformative (Monte Carlo rows that could not refute the bound: not failures, counted
    apart) and that failed."""

    derivation: Derivation
    findings: tuple[Finding, ...]
    skipped: tuple[str, ...]
    elapsed: float
    published: tuple[PublishedComparison, ...] = ()

    @property
    def passed(self) -> bool:
        """Whether no check failed (an ``uninformative`` row is not a failure)."""
        return all(f.passed for f in self.findings)

    @property
    def counts(self) -> dict[str, int]:
        """How many checks ``passed``, were ``uninformative`` (Monte Carlo rows that could not
        refute the bound, :data:`~otbound.verify.checks.UNINFORMATIVE_MEANING`: counted apart,
        neither passes nor failures) and ``failed``."""
        outcomes = [f.outcome for f in self.findings]
        return {outcome: outcomes.count(outcome)
                for outcome in ("passed", "uninformative", "failed")}

    def _searches(self) -> list[Finding]:
        """The soundness searches against the derived bound (not a published statement)."""
        return [f for f in self.findings if f.check == "soundness search"]

    @property
    def soundness_cases(self) -> int:
        return sum(f.parameters.get("cases", 0) for f in self._searches())

    @property
    def soundness_comparisons(self) -> int:
        """Every function of the soundness searches at every point (α and ε)."""
        return sum(f.search.comparisons for f in self._searches() if f.search)

    @property
    def trivial_comparisons(self) -> int:
        """The comparisons where the bound is the divergence's least value
        (:func:`~otbound.verify.checks.trivial`)."""
        return sum(f.search.trivial for f in self._searches() if f.search)

    def _largest(self) -> tuple[float, Finding, SearchTally] | None:
        """The largest non-trivial ratio of the soundness searches, with its search's row and
        tally."""
        searched = [(f.search.largest, f, f.search) for f in self._searches()
                    if f.search and f.search.largest is not None]
        return max(searched, key=lambda found: found[0], default=None)

    @property
    def worst_ratio(self) -> float | None:
        """The largest ratio divergence/bound of the soundness searches over their non-trivial
        comparisons only; ``None`` if every comparison was trivial (or nothing was searched).
        A trivial comparison that failed fails its row, whatever this ratio."""
        found = self._largest()
        return None if found is None else float(found[0])

    @property
    def worst_at(self) -> str:
        """Where :attr:`worst_ratio` was attained: mechanism, variant, case and point."""
        found = self._largest()
        return "" if found is None else f"{_where(found[1])}; {found[2].where}"

    def to_json(self, timings: bool = False) -> dict:
        """Everything as JSON; a fixed seed always gives the same object unless ``timings`` adds
        the (run-dependent) ``elapsed_seconds``."""
        worst = self.worst_ratio
        result = {"name": self.derivation.name, "passed": self.passed,
                  "counts": {**self.counts, "total": len(self.findings)},
                  "uninformative_means": UNINFORMATIVE_MEANING,
                  "soundness_cases": self.soundness_cases,
                  "soundness_comparisons": self.soundness_comparisons,
                  "trivial_soundness_comparisons": self.trivial_comparisons,
                  "trivial_means": TRIVIAL_MEANING,
                  "worst_soundness_ratio": (worst if worst is None or math.isfinite(worst)
                                            else str(worst)),
                  "worst_soundness_at": self.worst_at or None,
                  "skipped": list(self.skipped),
                  "checks": [f.to_json() for f in self.findings],
                  "published": [c.to_json() for c in self.published]}
        if timings:
            result["elapsed_seconds"] = round(self.elapsed, 2)
        return result

    def to_text(self) -> str:
        header = ("check", "parameters", "quantity", "bound", "observed", "ratio", "verdict")
        rows = [(f.check, ", ".join(f"{k}={v}" for k, v in f.parameters.items()
                                    if k != "quantity"),
                 f.quantity, "—" if f.normalised else _shown(f.bound, ".10g"),
                 _shown(f.observed, ".10g"), _shown(f.ratio, ".6f"), f.verdict)
                for f in self.findings]
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
        lines = [f"verify {self.derivation.name} — {self.derivation.source}"]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in [header] + rows]
        failures = [f for f in self.findings if not f.passed]
        for f in failures:
            lines.append(f"FAILED {f.check}: {f.witness}")
        lines += [f"{f.check}: {f.witness}" for f in self.findings
                  if f.passed and f.check.startswith("mutation")]
        lines += [f"{f.check} ({_where(f)}): {f.witness}" for f in self.findings
                  if f.passed and f.interval is not None]
        lines += [line for comparison in self.published for line in comparison.to_text()]
        lines += [f"skipped: {s}" for s in self.skipped]
        return "\n".join(lines + self._summary())

    def _summary(self) -> list[str]:
        """The closing lines: the soundness searches, the counts of checks by outcome, and what
        "trivial" and "uninformative" mean when there are any."""
        counts = self.counts
        lines = [self._soundness_line(),
                 f"{counts['passed']} passed, {counts['uninformative']} uninformative "
                 f"(Monte Carlo rows that could not refute the bound: neither passed nor failed), "
                 f"{counts['failed']} failed, of {len(self.findings)} checks "
                 f"[{self.elapsed:.1f} s]"]
        if self.trivial_comparisons:
            lines.append(f"trivial: {TRIVIAL_MEANING}")
        if counts["uninformative"]:
            lines.append(f"uninformative: {UNINFORMATIVE_MEANING}")
        return lines

    def _soundness_line(self) -> str:
        """The soundness searches: cases, comparisons, trivial ones, and the largest ratio over
        the others with where it was attained."""
        comparisons, trivial = self.soundness_comparisons, self.trivial_comparisons
        counted = (f"{self.soundness_cases} soundness cases, {comparisons} comparisons of a "
                   f"divergence with its bound, {trivial} trivial")
        if self.worst_ratio is None:
            return f"{counted}; no non-trivial comparison, so no largest ratio divergence/bound"
        return (f"{counted}; largest ratio divergence/bound over the other "
                f"{comparisons - trivial}: {self.worst_ratio:.9f} ({self.worst_at})")


def _where(finding: Finding) -> str:
    """The variant, case and mechanism of a row, for a line below the table."""
    return ", ".join(str(finding.parameters[k]) for k in ("variant", "case", "mechanism")
                     if k in finding.parameters)


def _shown(value: float, spec: str) -> str:
    return "n/a" if math.isnan(value) else format(value, spec)
