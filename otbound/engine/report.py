"""Reports of a derivation run, printable as a theorem (text, LaTeX) and serialisable to JSON."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from otbound.engine.bound import CaseBound, MixtureBound
from otbound.engine.conditionals import Case
from otbound.engine.notation import latex_text
from otbound.engine.validity import Verdict

if TYPE_CHECKING:
    from otbound.engine.search_outcomes import CouplingSearch
    from otbound.engine.derivation_spec import Derivation, PublicBranch, Variant
    from otbound.engine.type_level import TypeLevelResult

SYMBOLIC, INSTANCES, INVALID = "symbolic", "instances", "invalid"
ALL_SIZES = "every N (type level)"
LOOSE = "valid, not d_Y-compatible (may be loose)"
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
    """Checks of one case: coupling validity, d_Y-compatibility, and the derived case bound.

    Facts come from two analyses: at the level of types (for every dataset size, where it
    applies) and exactly on the instances of the grid (where they are small enough)."""

    case: Case
    checked: int
    sizes: tuple[int, ...]
    skipped: tuple[str, ...]
    """Why each skipped point of the instance grid was skipped."""
    verdict: Verdict | None = None
    symbolic_note: str = ""
    mismatch: InstanceFailure | None = None
    violation: InstanceFailure | None = None
    defect: str = ""
    bound_note: str = ""
    bound: CaseBound | None = None
    type_level: "TypeLevelResult | None" = None
    type_note: str = ""
    instance_note: str = ""
    profiles: dict = field(default_factory=dict, compare=False, repr=False)
    unstable: bool = False
    search: "CouplingSearch | None" = None
    """The coupling search on every instance, when the case's coupling is searched."""

    def with_bound_note(self, note: str) -> "CaseReport":
        return replace(self, bound_note=note)

    def with_bound(self, bound: CaseBound) -> "CaseReport":
        return replace(self, bound=bound)

    @property
    def proved_valid(self) -> bool:
        """The marginals were proved for every dataset size."""
        typed = self.type_level is not None and self.type_level.validity is Verdict.PROVED
        return typed or self.verdict is Verdict.PROVED

    @property
    def proved_compatible(self) -> bool:
        """``d_Y``-compatibility was proved for every dataset size (type level)."""
        return self.type_level is not None and self.type_level.compatibility is Verdict.PROVED

    @property
    def valid(self) -> bool:
        """The coupling's marginals are right: proved, or checked on every instance."""
        if self.defect or self.mismatch:
            return False
        return self.checked > 0 or self.proved_valid

    @property
    def validity(self) -> str:
        if not self.valid:
            return INVALID
        return SYMBOLIC if self.proved_valid else INSTANCES

    @property
    def d_compatible(self) -> bool:
        if not self.valid or self.violation is not None:
            return False
        return self.proved_compatible or self.checked > 0

    @property
    def compatibility_scope(self) -> str:
        return ALL_SIZES if self.proved_compatible else INSTANCES

    @property
    def loose(self) -> bool:
        """The bound is 001 Thm. 3.4's for a valid coupling that is not d_Y-compatible."""
        return self.bound is not None and not self.d_compatible

    def size_range(self) -> str:
        return f"N = {min(self.sizes)}..{max(self.sizes)}" if self.sizes else "no N"

    def _instances_text(self) -> str:
        if not self.checked:
            return self.instance_note or "no instance checked"
        return f"exact check on {self.checked} instances ({self.size_range()}{self._skips()})"

    def _skips(self) -> str:
        """``; 9 grid points skipped: …``, each reason with its count."""
        if not self.skipped:
            return ""
        counts = Counter(self.skipped)
        reasons = "; ".join(f"{count} where {reason}" for reason, count in counts.items())
        return f"; {_count(len(self.skipped), 'grid point')} skipped: {reasons}"

    def describe_checks(self) -> list[str]:
        name = self.case.pair.name
        searched = ([f"case {name}: {line}" for line in self.search.describe()]
                    if self.search is not None else [])
        if self.defect:
            return searched + [f"case {name}: INVALID — {self.defect}"]
        return searched + self._describe_checks()

    def _describe_checks(self) -> list[str]:
        name = self.case.pair.name
        if self.mismatch:
            return [f"case {name}: INVALID coupling — {self.mismatch.describe()}"]
        exact = self._instances_text()
        if self.type_level is not None and self.type_level.validity is Verdict.PROVED:
            marginals = (f"proved for every N at the level of types "
                         f"({_count(self.type_level.orbits, 'orbit')}), plus {exact}")
        elif self.validity == SYMBOLIC:
            marginals = f"symbolic proof for general N, plus {exact}"
        else:
            why = (self.type_level.validity_note if self.type_level is not None
                   else self.symbolic_note or self.type_note)
            marginals = f"{exact} only; not proved for every N: {why}"
        lines = [f"case {name}: marginals valid — {marginals}"]
        lines.append(f"case {name}: " + self._compatibility_text())
        if self.loose:
            lines.append(f"case {name}: bound of 001 Thm. 3.4 — {LOOSE}")
        if self.bound_note:
            lines.append(f"case {name}: no symbolic bound — {self.bound_note}")
        return lines

    def _compatibility_text(self) -> str:
        if self.violation:
            return f"NOT d_Y-compatible — {self.violation.describe()}"
        if self.proved_compatible:
            also = f"; {self.checked} instances agree" if self.checked else ""
            return f"d_Y-compatible for {ALL_SIZES}{also}"
        if self.checked:
            why = (f" (not shown for every N: {self.type_level.compatibility_note})"
                   if self.type_level is not None else "")
            same = ", with the same constraint matrices on each" if self.bound else ""
            return f"d_Y-compatible on all {self.checked} instances{same}{why}"
        note = self.type_level.compatibility_note if self.type_level is not None else ""
        return f"NOT shown d_Y-compatible — {note}"

    def to_json(self) -> dict:
        typed = self.type_level
        searched = {} if self.search is None else {"coupling_search": self.search.to_json()}
        return {
            "case": self.case.pair.name,
            "valid": self.valid,
            "validity": self.validity,
            "symbolic_verdict": self.verdict.value if self.verdict else None,
            "symbolic_note": self.symbolic_note or None,
            "type_level": None if typed is None else {
                "validity": typed.validity.value, "validity_note": typed.validity_note or None,
                "d_compatibility": typed.compatibility.value,
                "d_compatibility_note": typed.compatibility_note or None,
                "orbits": typed.orbits},
            "type_level_note": self.type_note or None,
            "instances_checked": self.checked,
            "instances_skipped": len(self.skipped),
            "skip_reasons": dict(Counter(self.skipped)),
            "instances_note": self.instance_note or None,
            "N_range": [min(self.sizes), max(self.sizes)] if self.sizes else None,
            "marginal_mismatch": self.mismatch.describe() if self.mismatch else None,
            "d_compatible": self.d_compatible,
            "d_compatible_scope": self.compatibility_scope if self.d_compatible else None,
            "d_compatibility_violation": self.violation.describe() if self.violation else None,
            "bound_kind": (None if self.bound is None
                           else LOOSE if self.loose else "001 Cor. D.7 (d_Y-compatible)"),
            "defect": self.defect or None,
            "bound_note": self.bound_note or None,
            **searched,
        }


@dataclass(frozen=True)
class BranchReport:
    """The checks of one branch of a public mixture (002 Sec. 3.1): its cases, and whether its
    probability and event probabilities are the closed forms (``failures``) on the ``checked``
    instances."""

    branch: "PublicBranch"
    cases: tuple[CaseReport, ...]
    failures: tuple[str, ...]
    checked: int

    def describe_checks(self) -> list[str]:
        branch = self.branch
        if self.failures:
            closed = f"closed forms WRONG — {self.failures[0]}"
        else:
            closed = (f"probability {branch.weight}, the same on x and x', and the events' "
                      f"probabilities: the closed forms, exactly on {self.checked} instances")
        return ([f"branch {branch.label}: {closed}"]
                + [f"  {line}" for case in self.cases for line in case.describe_checks()])

    def to_json(self) -> dict:
        return {"branch": self.branch.label, "probability": str(self.branch.weight),
                "scheme": self.branch.scheme.describe(), "closed_forms_checked": self.checked,
                "closed_form_failures": list(self.failures),
                "cases": [c.to_json() for c in self.cases]}


@dataclass(frozen=True)
class VariantReport:
    """All cases of one variant, the derived bound, and its comparison with the published one;
    for a public mixture, the report of each branch too."""

    variant: "Variant"
    cases: tuple[CaseReport, ...]
    bound: MixtureBound | None
    difference: str
    branches: tuple[BranchReport, ...] = ()

    @property
    def valid(self) -> bool:
        return all(c.valid for c in self.cases + self._branch_cases)

    @property
    def _branch_cases(self) -> tuple[CaseReport, ...]:
        return tuple(c for b in self.branches for c in b.cases)

    @property
    def d_compatible(self) -> bool:
        return all(c.d_compatible for c in self.cases + self._branch_cases)

    @property
    def matches_published(self) -> bool:
        return self.bound is not None and not self.difference

    @property
    def loose(self) -> bool:
        return any(c.loose for c in self.cases + self._branch_cases)

    @property
    def searched_scope(self) -> str:
        """Where a bound resting on searched couplings holds (empty if no coupling is searched)."""
        searched = [c for c in self.cases if c.search is not None]
        if not searched:
            return ""
        sizes = sorted({n for c in searched for n in c.sizes})
        span = f"N = {sizes[0]}..{sizes[-1]}" if sizes else "no N"
        return (f"holds on the instances searched only ({span}, the grid's parameter values): "
                f"the coupling of case{'s' if len(searched) > 1 else ''} "
                f"{', '.join(c.case.pair.name for c in searched)} was found by linear "
                "programming instance by instance, not proved for every N")

    def to_json(self) -> dict:
        published = self.variant.statement()
        return {
            "variant": self.variant.label,
            "dataset_relation": self.variant.relation.describe(),
            "valid": self.valid,
            "d_compatible": self.d_compatible,
            "matches_published": self.matches_published,
            "difference_from_published": self.difference or None,
            "bound": self.bound.to_json() if self.bound else None,
            "published": published.to_json() if published is not None else None,
            "bound_kind": LOOSE if self.loose else None,
            **({"bound_scope": self.searched_scope} if self.searched_scope else {}),
            "cases": [c.to_json() for c in self.cases],
            **({"branches": [b.to_json() for b in self.branches]} if self.branches else {}),
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
        result: dict[str, object] = {
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
            "definitions": {str(k): str(v) for k, v in d.definitions.items()},
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
        if d.definitions:
            lines += ["", "where, with N as above:"] + [f"  {symbol} = {closed_form}" for
                                                       symbol, closed_form in d.definitions.items()]
        for heading, notes in (("Errata in the published text", d.errata),
                               ("Remarks", d.remarks)):
            if notes:
                lines += ["", heading + ":"] + [f"  - {note}" for note in notes]
        published = ("none published" if all(v.variant.statement() is None
                                              for v in self.variants)
                     else _yes(self.matches_published))
        lines += ["", f"verdict: valid = {_yes(self.valid)} ({self.validity}), "
                      f"d_Y-compatible = {_yes(self.d_compatible)}, "
                      f"matches published = {published} [{self.elapsed:.1f} s]"]
        return "\n".join(lines)

    def to_latex(self) -> str:
        d = self.derivation
        blocks = []
        for variant in self.variants:
            if variant.bound is None:
                continue
            body = " \\\\\n".join(variant.bound.describe(latex=True))
            blocks.append(
                rf"\begin{{theorem}}[{latex_text(d.source)}, {latex_text(variant.variant.label)}]"
                + "\n" + r"Let $M = B \circ S$, where $S$ is "
                + f"{latex_text(d.scheme.describe())}, the dataset relation is "
                + f"{latex_text(variant.variant.relation.describe())} and the batch relation is "
                + f"{latex_text(d.batch_relation.value)}{_size_latex(d, variant.bound)}. "
                + "Then for all $\\alpha > 1$, "
                + r"$\Psi_\alpha(m_x \| m_{x'})$ is at most the maximum of" + "\n"
                + r"\begin{align*}" + "\n" + body + "\n" + r"\end{align*}" + "\n"
                + r"\end{theorem}"
                + (f"\n{latex_text(f'Scope: this bound {variant.searched_scope}.')}"
                   if variant.searched_scope else ""))
        return "\n\n".join(blocks)


def _size_latex(derivation, bound: MixtureBound) -> str:
    """``, with dataset size $N = |x|$``, where the bound depends on it."""
    if "N" not in {str(symbol) for symbol in bound.free_symbols}:
        return ""
    return f", with dataset size $N = {derivation.size_reference.value}$"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def _case_ingredients(case: Case) -> list[str]:
    lines = [f"case {case.pair.name} ({case.pair.describe()}):"]
    events = [f"{label}: {event.describe()}" for label, event in case.events_x.items()]
    lines.append("  events on x:  " + "; ".join(events))
    events = [f"{label}: {event.describe()}" for label, event in case.events_x_prime.items()]
    lines.append("  events on x': " + "; ".join(events))
    return lines + ["  coupling: " + step for step in case.coupling.describe()]


def _variant_text(report: VariantReport) -> list[str]:
    variant = report.variant
    lines = [f"[{variant.label}] dataset relation: {variant.relation.describe()}"]
    if report.bound is not None:
        if report.loose:
            lines.append(f"  The coupling is {LOOSE}: the bound is 001 Thm. 3.4's.")
        theorem = "Theorem (on the instances searched)" if report.searched_scope else "Theorem"
        lines.append(f"  {theorem}. For all α > 1 and all neighbouring x, x': Ψ_α(m_x ‖ m_x') ≤ "
                     + ("the maximum over the cases of" if len(report.bound.cases) > 1 else ""))
        lines += ["    " + line for line in report.bound.describe()]
        lines.append(f"  {DIVERGENCE_NOTE}")
        if report.searched_scope:
            lines.append(f"  Scope: this bound {report.searched_scope}.")
    lines.append("  Ingredients:")
    if report.branches:
        lines.append("    a public mixture (002 Sec. 3.1): the bound of each branch, weighted by "
                     "its probability (the same on x and x')")
    for branch in report.branches or (None,):
        indent = "    " if branch is None else "      "
        if branch is not None:
            lines.append(f"    branch {branch.branch.label} (probability "
                         f"{branch.branch.weight}; {branch.branch.scheme.describe()}):")
        for case_report in (report.cases if branch is None else branch.cases):
            lines += [indent + line for line in _case_ingredients(case_report.case)]
    lines.append("  Checks:")
    for part in report.branches or report.cases:
        lines += ["    " + line for line in part.describe_checks()]
    if report.variant.statement() is None:
        lines.append("    published statement: none for these parameters (otbound's own result)")
    else:
        match = "yes" if report.matches_published else f"NO — {report.difference}"
        lines.append(f"    matches the published statement: {match}")
    return lines
