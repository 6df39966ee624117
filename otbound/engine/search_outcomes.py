"""What a coupling search found: per instance a coupling, a proof that none exists (a Farkas
certificate), or no decision; and the summary over a case's grid
(:mod:`otbound.engine.coupling_search` runs the search)."""

from __future__ import annotations

from dataclasses import dataclass, field

from otbound.engine.bound import CaseBound
from otbound.engine.farkas import FarkasCertificate
from otbound.errors import required

FOUND, INFEASIBLE, UNDECIDED = "found", "infeasible", "undecided"


@dataclass(frozen=True)
class InstanceSearch:
    """The search on one instance: a coupling found, infeasibility proved, or undecided."""

    instance: dict
    status: str
    allowed: int = 0
    support: int = 0
    note: str = ""
    certificate: FarkasCertificate | None = None
    bound: CaseBound | None = None
    joint: dict | None = field(default=None, compare=False, repr=False)

    def where(self) -> str:
        return ", ".join(f"{k} = {v}" for k, v in self.instance.items())

    def describe(self) -> str:
        if self.status == FOUND:
            return (f"{self.where()}: found — {self.support} of {self.allowed} allowed tuples "
                    f"carry mass; bound {_bound_text(self._bound())}")
        if self.status == INFEASIBLE:
            return (f"{self.where()}: infeasible — no d_Y-compatible coupling for these events "
                    f"({self.allowed} allowed tuples); {self._certificate().describe()}, checked "
                    "exactly")
        return f"{self.where()}: undecided — {self.note}"

    def to_json(self) -> dict:
        result = {"instance": self.instance, "status": self.status,
                  "allowed_tuples": self.allowed}
        if self.status == FOUND:
            result.update(support=self.support, bound=self._bound().to_json())
        elif self.status == INFEASIBLE:
            result["certificate"] = self._certificate().to_json()
        else:
            result["note"] = self.note
        return result

    def _bound(self) -> CaseBound:
        return required(self.bound, "the bound of a coupling found")

    def _certificate(self) -> FarkasCertificate:
        return required(self.certificate, "the certificate of infeasibility")


def _bound_text(bound: CaseBound) -> str:
    """Weights and constraint-matrix probabilities of an instance bound, compactly."""
    terms = bound.canonical().terms
    problem = terms[0][1]
    weights = ", ".join(f"P({c.label}) = {c.weight}" for c in problem.left + problem.right)
    matrices = ", ".join(str(p) for p, _ in terms)
    plural = "matrix" if len(terms) == 1 else "matrices"
    return f"with {weights}; {len(terms)} constraint {plural} (probabilities {matrices})"


@dataclass(frozen=True)
class CouplingSearch:
    """The search on every instance of a case's grid."""

    reference: str
    outcomes: tuple[InstanceSearch, ...]

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    @property
    def found_everywhere(self) -> bool:
        return bool(self.outcomes) and self.count(FOUND) == len(self.outcomes)

    def describe(self) -> list[str]:
        summary = (f"coupling searched by linear programming (HiGHS; 001 Def. D.4, reference "
                   f"y_{self.reference}) on {len(self.outcomes)} instances: "
                   f"{self.count(FOUND)} found, {self.count(INFEASIBLE)} infeasible, "
                   f"{self.count(UNDECIDED)} undecided; results hold on the instances searched "
                   "only")
        return [summary] + ["  " + o.describe() for o in self.outcomes]

    def to_json(self) -> dict:
        return {"reference": self.reference, "found": self.count(FOUND),
                "infeasible": self.count(INFEASIBLE), "undecided": self.count(UNDECIDED),
                "scope": "the instances searched",
                "instances": [o.to_json() for o in self.outcomes]}
