"""Reports of a derivation run, printable as a theorem (text, LaTeX) and serialisable to JSON."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from otbound.engine.bound import CaseBound, MixtureBound
from otbound.engine.conditionals import Case
from otbound.engine.validity import Verdict

if TYPE_CHECKING:
    from otbound.engine.derivation import Derivation, Variant

SYMBOLIC, INSTANCES, INVALID = "symbolic", "instances", "invalid"
DIVERGENCE_NOTE = ("The same bound holds for the hockey-stick divergence H_γ (γ ≥ 0) in place "
                   "of Ψ_α (003 Thm. 3.4).")


@dataclass(frozen=True)
class InstanceFailure:
    """A check that failed on one concrete instance."""

    instance: dict
    detail: str

    def describe(self) -> str:
        where = ", ".join(f"{k} = {v}" for k, v in self.instance.items())
        return f"at {where}: {self.detail}"


@dataclass(frozen=True)
class CaseReport:
    """Checks of one case: coupling validity, d_Y-compatibility, and the derived case bound."""

    case: Case
    checked: int
    sizes: tuple[int, ...]
    skipped: int
    verdict: Verdict | None = None
    symbolic_note: str = ""
    mismatch: InstanceFailure | None = None
    violation: InstanceFailure | None = None
    defect: str = ""
    bound_note: str = ""
    bound: CaseBound | None = None

    def with_bound_note(self, note: str) -> "CaseReport":
        return replace(self, bound_note=note)

    def with_bound(self, bound: CaseBound) -> "CaseReport":
        return replace(self, bound=bound)

    @property
    def valid(self) -> bool:
        """The coupling's marginals were checked and are right on every instance."""
        return self.checked > 0 and self.mismatch is None and not self.defect

    @property
    def validity(self) -> str:
        if not self.valid:
            return INVALID
        return SYMBOLIC if self.verdict is Verdict.PROVED else INSTANCES

    @property
    def d_compatible(self) -> bool:
        return self.valid and self.violation is None

    def size_range(self) -> str:
        return f"N = {min(self.sizes)}..{max(self.sizes)}" if self.sizes else "no N"

    def describe_checks(self) -> list[str]:
        name = self.case.pair.name
        if self.defect:
            return [f"case {name}: INVALID — {self.defect}"]
        skipped = f"; {self.skipped} grid points skipped" if self.skipped else ""
        exact = f"exact check on {self.checked} instances ({self.size_range()}{skipped})"
        if self.mismatch:
            return [f"case {name}: INVALID coupling — {self.mismatch.describe()}"]
        if self.validity == SYMBOLIC:
            marginals = f"symbolic proof for general N, plus {exact}"
        else:
            marginals = f"{exact} only; symbolic proof undecided: {self.symbolic_note}"
        lines = [f"case {name}: marginals valid — {marginals}"]
        if self.violation:
            lines.append(f"case {name}: NOT d_Y-compatible — {self.violation.describe()}")
        else:
            same = ", with the same constraint matrices on each" if self.bound else ""
            lines.append(f"case {name}: d_Y-compatible on all {self.checked} instances{same}")
        if self.bound_note:
            lines.append(f"case {name}: no symbolic bound — {self.bound_note}")
        return lines

    def to_json(self) -> dict:
        return {
            "case": self.case.pair.name,
            "valid": self.valid,
            "validity": self.validity,
            "symbolic_verdict": self.verdict.value if self.verdict else None,
            "symbolic_note": self.symbolic_note or None,
            "instances_checked": self.checked,
            "instances_skipped": self.skipped,
            "N_range": [min(self.sizes), max(self.sizes)] if self.sizes else None,
            "marginal_mismatch": self.mismatch.describe() if self.mismatch else None,
            "d_compatible": self.d_compatible,
            "d_compatibility_violation": self.violation.describe() if self.violation else None,
            "defect": self.defect or None,
            "bound_note": self.bound_note or None,
        }


@dataclass(frozen=True)
class VariantReport:
    """All cases of one variant, the derived bound, and its comparison with the published one."""

    variant: "Variant"
    cases: tuple[CaseReport, ...]
    bound: MixtureBound | None
    difference: str

    @property
    def valid(self) -> bool:
        return all(c.valid for c in self.cases)

    @property
    def d_compatible(self) -> bool:
        return all(c.d_compatible for c in self.cases)

    @property
    def matches_published(self) -> bool:
        return self.bound is not None and not self.difference

    def to_json(self) -> dict:
        return {
            "variant": self.variant.label,
            "dataset_relation": self.variant.relation.describe(),
            "valid": self.valid,
            "d_compatible": self.d_compatible,
            "matches_published": self.matches_published,
            "difference_from_published": self.difference or None,
            "bound": self.bound.to_json() if self.bound else None,
            "published": self.variant.published.to_json(),
            "cases": [c.to_json() for c in self.cases],
        }


@dataclass(frozen=True)
class DerivationReport:
    """Everything otbound found about one derivation."""

    derivation: "Derivation"
    variants: tuple[VariantReport, ...]
    elapsed: float

    @property
    def valid(self) -> bool:
        return all(v.valid for v in self.variants)

    @property
    def validity(self) -> str:
        levels = [c.validity for v in self.variants for c in v.cases]
        for level in (INVALID, INSTANCES):
            if level in levels:
                return level
        return SYMBOLIC

    @property
    def d_compatible(self) -> bool:
        return all(v.d_compatible for v in self.variants)

    @property
    def matches_published(self) -> bool:
        return all(v.matches_published for v in self.variants)

    @property
    def passed(self) -> bool:
        return self.valid and self.d_compatible and self.matches_published

    def to_json(self, timings: bool = False) -> dict:
        """Everything as JSON; the same derivation always gives the same object unless
        ``timings`` adds the (run-dependent) ``elapsed_seconds``."""
        d = self.derivation
        result = {
            "name": d.name,
            "source": d.source,
            "title": d.title,
            "scheme": d.scheme.describe(),
            "batch_relation": d.batch_relation.value,
            "N": d.size_reference.value,
            "valid": self.valid,
            "validity": self.validity,
            "d_compatible": self.d_compatible,
            "matches_published": self.matches_published,
            "errata": list(d.errata),
            "remarks": list(d.remarks),
            "variants": [v.to_json() for v in self.variants],
        }
        if timings:
            result["elapsed_seconds"] = round(self.elapsed, 3)
        return result

    def to_text(self) -> str:
        d = self.derivation
        lines = [f"{d.name} — {d.title}", f"source: {d.source}", f"scheme: {d.scheme.describe()}",
                 f"batch relation: {d.batch_relation.value}; N denotes {d.size_reference.value}"]
        for variant in self.variants:
            lines += [""] + _variant_text(variant)
        for heading, notes in (("Errata in the published text", d.errata),
                               ("Remarks", d.remarks)):
            if notes:
                lines += ["", heading + ":"] + [f"  - {note}" for note in notes]
        lines += ["", f"verdict: valid = {_yes(self.valid)} ({self.validity}), "
                      f"d_Y-compatible = {_yes(self.d_compatible)}, "
                      f"matches published = {_yes(self.matches_published)} "
                      f"[{self.elapsed:.1f} s]"]
        return "\n".join(lines)

    def to_latex(self) -> str:
        d = self.derivation
        blocks = []
        for variant in self.variants:
            if variant.bound is None:
                continue
            body = " \\\\\n".join(variant.bound.describe(latex=True))
            blocks.append(
                rf"\begin{{theorem}}[{_latex_text(d.source)}, {_latex_text(variant.variant.label)}]"
                + "\n" + r"Let $M = B \circ S$, where $S$ is "
                + f"{_latex_text(d.scheme.describe())}, the dataset relation is "
                + f"{_latex_text(variant.variant.relation.describe())} and the batch relation is "
                + f"{_latex_text(d.batch_relation.value)}. Then for all $\\alpha > 1$, "
                + r"$\Psi_\alpha(m_x \| m_{x'})$ is at most the maximum of" + "\n"
                + r"\begin{align*}" + "\n" + body + "\n" + r"\end{align*}" + "\n"
                + r"\end{theorem}")
        return "\n\n".join(blocks)


_LATEX_TEXT = (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"),
               ("_", r"\_"), ("≃±", r"$\simeq_{\pm}$"), ("≃Δ", r"$\simeq_{\Delta}$"),
               ("≃", r"$\simeq$"), ("±", r"$\pm$"), ("Δ", r"$\Delta$"), ("∞", r"$\infty$"))


def _latex_text(text: str) -> str:
    """Plain text made safe for LaTeX."""
    for plain, latex in _LATEX_TEXT:
        text = text.replace(plain, latex)
    return text


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def _variant_text(report: VariantReport) -> list[str]:
    variant = report.variant
    lines = [f"[{variant.label}] dataset relation: {variant.relation.describe()}"]
    if report.bound is not None:
        lines.append("  Theorem. For all α > 1 and all neighbouring x, x': Ψ_α(m_x ‖ m_x') ≤ "
                     + ("the maximum over the cases of" if len(report.bound.cases) > 1 else ""))
        lines += ["    " + line for line in report.bound.describe()]
        lines.append(f"  {DIVERGENCE_NOTE}")
    lines.append("  Ingredients:")
    for case_report in report.cases:
        case = case_report.case
        lines.append(f"    case {case.pair.name} ({case.pair.describe()}):")
        events = [f"{label}: {event.describe()}" for label, event in case.events_x.items()]
        lines.append("      events on x:  " + "; ".join(events))
        events = [f"{label}: {event.describe()}" for label, event in case.events_x_prime.items()]
        lines.append("      events on x': " + "; ".join(events))
        lines += ["      coupling: " + step for step in case.coupling.describe()]
    lines.append("  Checks:")
    for case_report in report.cases:
        lines += ["    " + line for line in case_report.describe_checks()]
    match = "yes" if report.matches_published else f"NO — {report.difference}"
    lines.append(f"    matches the published statement: {match}")
    return lines
