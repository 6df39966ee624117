"""The verifier's checks on one concrete instance of a derivation case: the instance, and the rows
the checks report.

An :class:`Instance` fixes the scheme parameters and the background size of one case, so that
both the engine's bound (evaluated for a concrete mechanism) and the exact divergence of the real
subsampled mechanism (by enumeration) can be computed. The checks, each a module, report
:class:`Finding` rows:

* **tightness** (:mod:`~otbound.verify.tightness`) — the worst-case function of the tightness
  proofs (001 F.1, G.2, G.3; 003 M.3), built from the solver's worst components: the exact
  divergence must equal the bound;
* **soundness** (:mod:`~otbound.verify.soundness`) — random functions ``f`` plus hill climbing on
  the ratio divergence/bound, which must never exceed 1 (beyond rounding);
* **Monte Carlo** (:mod:`~otbound.verify.monte_carlo_check`) — sampling the real mechanism;
* **mutations** (:mod:`~otbound.verify.mutations`) — deliberately broken bounds must be caught;
* **published statements** (:mod:`~otbound.verify.published_statements`) — the exact divergence
  of the derived bound's worst-case constructions must not exceed the statement as published,
  and neither may any function the soundness search finds, seeded with those constructions.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numpy as np
import sympy as sp

from otbound.choices import Quantity
from otbound.engine.batches import Batch
from otbound.engine.bound import CaseBound
from otbound.engine.conditionals import Case
from otbound.engine.derivation import Derivation, Variant, check_case
from otbound.engine.public_branch import defined_values
from otbound.errors import InvalidSpecification
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.one_step import terms_delta, terms_log_psi
from otbound.numerics.problems import NumericProblem, Term
from otbound.numerics.solvers import solve
from otbound.verify.enumeration import output_pair, value_distribution

RELATIVE_TOLERANCE = 1e-9
"""How far an exact divergence may exceed its bound before it counts as a violation."""
TIGHTNESS_TOLERANCE = 1e-10
UNINFORMATIVE_MEANING = (
    "a Monte Carlo row whose confidence interval cannot refute the bound: its lower end is not "
    "above 0.95 × bound (for the \"Monte Carlo\" rows also: or the interval is wider than ±5 % "
    "of the bound), so even the bound lowered by 5 % would have passed. Not a failure (the "
    "interval does not lie above the bound), but no evidence for the bound either: too few "
    "draws, a function that does not attain the bound, or a bound of 0 (δ(ε) = 0, with nothing "
    "below it to catch)")
"""What the verdict ``uninformative`` of a Monte Carlo row means (the reports print it)."""
TRIVIAL_MEANING = (
    "a comparison where the bound is the divergence's least possible value (δ(ε) = 0, or ε_α = "
    "0, i.e. Ψ_α = 1): only a divergence at that value is sound there, so it is still checked "
    "(anything above fails), but its ratio divergence/bound (0/0) measures nothing and is left "
    "out of the largest ratio")
"""What a ``trivial`` comparison of the soundness search is (see :func:`trivial`)."""


@dataclass
class Instance:
    """One case of one derivation at concrete scheme parameters and background size.

    ``bound`` is the engine's bound of the case, taken from the derivation's report
    (:func:`otbound.engine.derivation.run`); when it is not given, the case is checked once, for
    this instance only. It may also be a published statement's bound of the case: then ``lower``
    makes :meth:`bound_log_psi` and :meth:`bound_delta` return the lower end of the numerical
    evaluation (the estimate less its error), so that a statement is confirmed sound only when
    even that end is above the exact divergence.
    """

    derivation: Derivation
    variant: Variant
    case: Case
    values: dict
    background: int
    bound: CaseBound | None = None
    lower: bool = False

    @cached_property
    def case_bound(self) -> CaseBound:
        """The engine's symbolic bound of the case; an error if the case failed its checks."""
        bound = self.bound if self.bound is not None else check_case(self.derivation,
                                                                     self.case).bound
        if bound is None:
            raise InvalidSpecification(f"case {self.case.pair.name!r} of {self.derivation.name} "
                                       "has no derived bound to verify")
        return bound

    @cached_property
    def scheme(self):
        return self.derivation.scheme.substitute(self.values)

    @cached_property
    def datasets(self) -> tuple[frozenset, frozenset]:
        return self.case.pair.datasets(self.background)

    @property
    def size(self) -> int:
        return self.background + self.case.size_offset(self.derivation.size_reference)

    @cached_property
    def pmfs(self) -> tuple[dict, dict]:
        x, x_prime = self.datasets
        return self.scheme.pmf(x), self.scheme.pmf(x_prime)

    @cached_property
    def terms(self) -> list[Term]:
        """The derived bound of the case with numbers substituted."""
        point = defined_values(self.derivation, self.values, self.size)
        result = []
        for probability, problem in self.case_bound.terms:
            value = float(sp.sympify(probability).subs(point))
            if value > 0:
                result.append(Term.of_probability(value, NumericProblem.from_problem(problem,
                                                                                     point)))
        return result

    def describe(self) -> dict:
        fields = {"variant": self.variant.label, "case": self.case.pair.name, "N": self.size}
        fields.update({str(k): str(v) for k, v in self.values.items()})
        return fields

    def solved_terms(self, mechanism: Mechanism,
                     quantity: Quantity = Quantity.ADP) -> list[Term]:
        """The terms as the numbers evaluate them: each problem as the solver registry solves
        it (:func:`~otbound.numerics.solvers.solve`: itself, or a registered sound relaxation —
        sound, not tight), as it is where the registry has none. A published statement
        (``lower``) is never relaxed."""
        if self.lower:
            return list(self.terms)
        return [Term(term.log_probability, solve(term.problem, mechanism, quantity).problem)
                for term in self.terms]

    def bound_log_psi(self, mechanism: Mechanism, alphas) -> np.ndarray:
        """``log Ψ_α`` of the bound: its upper end (its lower end when ``lower``)."""
        return self._end(terms_log_psi(self.solved_terms(mechanism, Quantity.RDP), mechanism,
                                       np.asarray(alphas, dtype=float)))

    def bound_delta(self, mechanism: Mechanism, epsilons) -> np.ndarray:
        """``δ(ε)`` of the bound: its upper end (its lower end when ``lower``)."""
        return self._end(terms_delta(self.solved_terms(mechanism), mechanism,
                                     np.asarray(epsilons, dtype=float)))

    def _end(self, bounds) -> np.ndarray:
        if not self.lower:
            return bounds.upper
        finite = np.isfinite(bounds.upper)
        error = np.where(finite, bounds.upper - np.where(finite, bounds.estimate, 0.0), 0.0)
        return bounds.estimate - error

    @cached_property
    def distances(self) -> np.ndarray:
        """``d_Y`` between every two of :meth:`batches` (001 Def. 2.9)."""
        batches, relation = self.batches(), self.derivation.batch_relation
        result = np.zeros((len(batches), len(batches)))
        for i, j in itertools.combinations(range(len(batches)), 2):
            result[i, j] = result[j, i] = relation.distance(batches[i], batches[j])
        return result

    def exact_pair(self, mechanism: Mechanism, function: Callable[[Batch], float]):
        """The exact output distributions of ``f`` on both datasets (``f`` sees a batch as
        the query does: without a zero-out's null record)."""
        x, x_prime = self.datasets
        seen = self.derivation.batch_relation.seen

        def query(batch: Batch) -> float:
            return function(seen(batch))

        return output_pair(mechanism, value_distribution(self.scheme, x, query),
                           value_distribution(self.scheme, x_prime, query))

    def batches(self) -> list[Batch]:
        """Every batch either dataset can produce."""
        return sorted(set(self.pmfs[0]) | set(self.pmfs[1]), key=lambda b: (len(b), sorted(b)))


def trivial(bound: float) -> bool:
    """Whether a comparison with ``bound`` (ε_α = log Ψ_α / (α − 1), or δ(ε)) is *trivial*: the
    bound is at (or, by rounding, below) the least value the divergence can take, 0 — Ψ_α = 1 or
    δ(ε) = 0. Every divergence is ≥ 0, so the only sound value there is 0 itself: the comparison
    is still made (a divergence above 0 fails it), but a ratio divergence/bound is 0/0 and says
    nothing about how close to the bound the search came."""
    return bound <= 0


@dataclass(frozen=True)
class SearchTally:
    """What one soundness search compared: ``comparisons`` (each function at each point),
    ``trivial`` of them (:func:`trivial`), and ``largest``, the largest ratio divergence/bound
    over the others (``None`` when every comparison was trivial), attained ``where``."""

    comparisons: int
    trivial: int
    largest: float | None
    where: str = ""

    def to_json(self) -> dict:
        largest = (self.largest if self.largest is None or math.isfinite(self.largest)
                   else str(self.largest))   # JSON has no infinity
        return {"comparisons": self.comparisons, "trivial_comparisons": self.trivial,
                "largest_nontrivial_ratio": largest,
                "largest_nontrivial_at": self.where or None}


@dataclass(frozen=True)
class Finding:
    """One row of a verification report."""

    check: str
    parameters: dict
    bound: float
    observed: float
    verdict: str
    witness: str = ""
    interval: tuple[float, float] | None = None
    """A sampled estimate's confidence interval, when the row has one (JSON gives its width)."""
    search: SearchTally | None = None
    """A soundness search's comparisons: how many, how many trivial, the largest other ratio."""

    @property
    def ratio(self) -> float:
        if self.bound == 0:
            return 0.0 if self.observed == 0 else math.inf
        return self.observed / self.bound

    @property
    def passed(self) -> bool:
        """Whether the row is not a failure (``uninformative`` rows are not failures)."""
        return self.verdict in ("tight", "sound", "consistent", "uninformative", "caught")

    @property
    def outcome(self) -> str:
        """``failed``, ``uninformative`` (a Monte Carlo row that could not refute the bound:
        :data:`UNINFORMATIVE_MEANING`) or ``passed``."""
        if not self.passed:
            return "failed"
        return "uninformative" if self.verdict == "uninformative" else "passed"

    @property
    def normalised(self) -> bool:
        """Whether ``observed`` is a ratio divergence/bound (``bound`` is then 1): the rows of
        a soundness search, against the derived bound or a published statement."""
        return self.check.endswith("soundness search")

    @property
    def quantity(self) -> str:
        """What ``bound`` and ``observed`` measure (one quantity per row of the text table)."""
        if self.normalised:
            return "largest divergence/bound"
        if self.parameters.get("quantity") == "Psi":
            return "Ψ_α"
        if "alpha" in self.parameters:
            return "ε_α (RDP)"
        return "δ(ε)" if "epsilon" in self.parameters else "value"

    def to_json(self) -> dict:
        def number(value: float) -> float | None:  # NaN: nothing was measured (valid JSON)
            return None if math.isnan(value) else value
        result: dict[str, object] = {"check": self.check, "parameters": self.parameters,
                                     "bound": number(self.bound),
                                     "observed": number(self.observed),
                                     "ratio": number(self.ratio), "verdict": self.verdict,
                                     "witness": self.witness or None}
        if self.interval is not None:
            result["interval"] = list(self.interval)
            result["interval_width"] = self.interval[1] - self.interval[0]
        if self.search is not None:
            result.update(self.search.to_json())
        return result


def _datasets_text(instance: Instance) -> str:
    x, x_prime = instance.datasets
    return f"x = {{{', '.join(sorted(x))}}}, x' = {{{', '.join(sorted(x_prime))}}}"
