"""The verifier's checks on one concrete instance of a derivation case.

An :class:`Instance` fixes the scheme parameters and the background size of one case, so that
both the engine's bound (evaluated for a concrete mechanism) and the exact divergence of the real
subsampled mechanism (by enumeration) can be computed:

* **tightness** — the worst-case function of the tightness proofs (001 F.1, G.2, G.3; 003 M.3),
  built from the solver's worst components: the exact divergence must equal the bound;
* **soundness** — random functions ``f`` plus hill climbing on the ratio divergence/bound, which
  must never exceed 1 (beyond rounding);
* **Monte Carlo** — sampling the real mechanism;
* **mutations** — deliberately broken bounds must be caught;
* **published statements** — the exact divergence of the derived bound's worst-case
  constructions must not exceed the statement as published, and neither may any function the
  soundness search finds, seeded with those constructions.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Callable, Sequence

import numpy as np
import sympy as sp

from otbound.choices import Quantity
from otbound.engine import symbols
from otbound.engine.batches import Batch, Content
from otbound.engine.bound import CaseBound
from otbound.engine.conditionals import Case
from otbound.engine.derivation import Derivation, Variant, check_case
from otbound.engine.public_branch import defined_values
from otbound.engine.relations import BatchRelation
from otbound.errors import InternalError, InvalidSpecification
from otbound.numerics.hockey_stick import hockey_stick_curve
from otbound.numerics.mechanisms import AdditiveNoise, Mechanism, RandomizedResponse
from otbound.numerics.one_step import terms_delta, terms_log_psi
from otbound.numerics.pairs import MixturePair, log_sum_exp
from otbound.numerics.problems import NumericProblem, Term
from otbound.numerics.renyi import log_psi_curve
from otbound.numerics.solvers import solve
from otbound.verify import divergence, montecarlo
from otbound.verify.enumeration import additive_noise, output_pair, value_distribution
from otbound.verify.functions import LipschitzFunction, TableFunction

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
        result = {"check": self.check, "parameters": self.parameters,
                  "bound": number(self.bound), "observed": number(self.observed),
                  "ratio": number(self.ratio), "verdict": self.verdict,
                  "witness": self.witness or None}
        if self.interval is not None:
            result["interval"] = list(self.interval)
            result["interval_width"] = self.interval[1] - self.interval[0]
        if self.search is not None:
            result.update(self.search.to_json())
        return result


# --- tightness ------------------------------------------------------------------------------

def worst_case_function(instance: Instance, values: np.ndarray) -> TableFunction:
    """``f`` on every batch: the value of the mixture component whose event holds the batch.

    001 F.1, G.2, G.3 and 003 M.3 build their worst cases this way: ``f`` depends on the batch
    only through which event (number of removed or inserted elements) it falls in.
    """
    case, (pmf_x, pmf_x_prime) = instance.case, instance.pmfs
    left, right = list(case.events_x.values()), list(case.events_x_prime.values())
    table = {}
    for batch in instance.batches():
        content = Content.in_batch(batch, case.pair.specials)
        found = []
        if batch in pmf_x:
            found.append(values[next(i for i, e in enumerate(left) if e.holds(content))])
        if batch in pmf_x_prime:
            found.append(values[len(left) + next(j for j, e in enumerate(right)
                                                 if e.holds(content))])
        if len(set(found)) != 1:
            raise InternalError(f"the worst components disagree on batch {sorted(batch)}: {found}")
        table[batch] = found[0]
    return TableFunction(table, label="f = value of the worst component of the batch's event")


def worst_function(instance: Instance, mechanism: Mechanism, quantity: Quantity,
                   point: float) -> TableFunction:
    """The worst-case construction for RDP at order ``point`` or ADP at ``ε = point``: the
    solver candidate with the largest divergence, turned into a function on batches."""
    (_, problem), = instance.terms

    def divergence_of(candidate) -> float:
        pair = candidate[0]
        if quantity is Quantity.RDP:
            return log_psi_curve(pair, [point])[0].value
        return hockey_stick_curve(pair, [point])[0].value

    _, values = max(mechanism.worst_components(problem), key=divergence_of)
    return worst_case_function(instance, values)


def check_tightness(instance: Instance, mechanism: Mechanism, alphas, epsilons) -> list[Finding]:
    """The worst-case construction attains the bound (RDP at ``alphas``, ADP at ``epsilons``)."""
    if len(instance.terms) != 1:
        return []
    findings = []
    for quantity, points in ((Quantity.RDP, alphas), (Quantity.ADP, epsilons)):
        for point in points:
            function = worst_function(instance, mechanism, quantity, point)
            exact_pair = instance.exact_pair(mechanism, function)
            if quantity is Quantity.RDP:
                bound = instance.bound_log_psi(mechanism, [point])[0] / (point - 1)
                observed = divergence.independent_log_psi(exact_pair, point) / (point - 1)
            else:
                bound = instance.bound_delta(mechanism, [point])[0]
                observed = divergence.delta(exact_pair, point)
            close = abs(observed - bound) <= TIGHTNESS_TOLERANCE * max(abs(bound), 1e-300)
            findings.append(Finding(
                f"tightness {quantity.name}", {**instance.describe(), "mechanism": mechanism.name,
                                      quantity.axis: point},
                bound, observed, "tight" if close else "NOT TIGHT", function.describe()))
    return findings


# --- soundness ------------------------------------------------------------------------------

def random_function(instance: Instance, mechanism: Mechanism,
                    rng: np.random.Generator) -> Callable[[Batch], float]:
    """Arbitrary bits for randomized response; an arbitrary Lipschitz ``f`` otherwise."""
    batches = instance.batches()
    if isinstance(mechanism, RandomizedResponse):
        return TableFunction(dict(zip(batches, rng.integers(0, 2, len(batches)).astype(float))))
    mechanism = additive_noise(mechanism)
    count = int(rng.integers(1, 4))
    return LipschitzFunction(tuple(_random_anchor(instance, rng) for _ in range(count)),
                             tuple(rng.uniform(0, 2.5, count)),
                             instance.derivation.batch_relation, mechanism.sensitivity,
                             float(rng.choice([-1.0, 1.0])))


def _random_anchor(instance: Instance, rng: np.random.Generator) -> Batch:
    """A random batch: any subset under insertion/removal; a batch of the right size under
    substitution (other sizes are at infinite distance)."""
    if instance.derivation.batch_relation is BatchRelation.SUBSTITUTION:
        batches = instance.batches()
        return batches[int(rng.integers(len(batches)))]
    elements = sorted(instance.datasets[0] | instance.datasets[1])
    return frozenset(e for e in elements if rng.random() < 0.5)


def perturb(function, instance: Instance, rng: np.random.Generator):
    """A small random change of ``f`` (one hill-climbing step)."""
    if isinstance(function, TableFunction):
        table = dict(function.table)
        flips = min(int(rng.integers(1, 4)), len(table))  # tiny instances have < 3 batches
        for batch in rng.choice(len(table), size=flips, replace=False):
            key = list(table)[batch]
            table[key] = 1.0 - table[key]
        return TableFunction(table)
    if isinstance(function, McShaneFunction):
        index = int(rng.integers(len(function.anchors)))
        if rng.random() < 0.5:
            return function.changed(index, offset=max(0.0, function.offsets[index]
                                                      + rng.normal(0, 0.5)))
        return function.changed(index, anchor=_random_anchor(instance, rng))
    anchors, offsets = list(function.anchors), list(function.offsets)
    index = int(rng.integers(len(anchors)))
    if rng.random() < 0.5:
        offsets[index] = max(0.0, offsets[index] + rng.normal(0, 0.5))
    else:
        anchors[index] = _random_anchor(instance, rng)
    return LipschitzFunction(tuple(anchors), tuple(offsets), function.relation,
                             function.sensitivity, function.sign)


@dataclass(frozen=True)
class Comparison:
    """One function's exact divergence against the bound at one point: the ratio
    divergence/bound (0 for a trivial comparison at divergence 0, ∞ above it: :func:`_ratio`),
    the point with both values, and whether the comparison is :func:`trivial`."""

    ratio: float
    point: str
    trivial: bool


def _order(comparison: Comparison) -> tuple[float, str]:
    return comparison.ratio, comparison.point


@dataclass(frozen=True)
class SoundnessResult:
    """What :func:`search_soundness` found over its ``cases`` (functions).

    ``worst`` is the largest ratio over every comparison, trivial ones included (the verdict's
    number: a trivial comparison counts 0 at divergence 0 and ∞ above it), at ``point``, for the
    function ``witness``. ``largest`` is the largest ratio over the ``comparisons − trivial``
    non-trivial ones only (``None`` if there were none), at ``where``."""

    cases: int = 0
    worst: float = 0.0
    witness: str = ""
    point: str = ""
    comparisons: int = 0
    trivial: int = 0
    largest: float | None = None
    where: str = ""

    def including(self, candidate, compared: Sequence[Comparison]) -> "SoundnessResult":
        """This result with one more function, ``candidate``, compared at every point."""
        worst = max(compared, key=_order)
        informative = [c for c in compared if not c.trivial]
        changes = {"cases": self.cases + 1, "comparisons": self.comparisons + len(compared),
                   "trivial": self.trivial + len(compared) - len(informative)}
        if worst.ratio >= self.worst:
            changes.update(worst=worst.ratio, point=worst.point, witness=candidate.describe())
        if informative:
            top = max(informative, key=_order)
            if self.largest is None or top.ratio >= self.largest:
                changes.update(largest=top.ratio, where=top.point)
        return replace(self, **changes)

    def tally(self) -> SearchTally:
        return SearchTally(self.comparisons, self.trivial, self.largest, self.where)


def _ratios(instance: Instance, mechanism: Mechanism, function, alphas, epsilons,
            bound_epsilons: np.ndarray, bound_deltas: np.ndarray) -> list[Comparison]:
    """``function``'s exact divergence against the bound: ε_α at ``alphas``, δ at ``epsilons``."""
    pair = instance.exact_pair(mechanism, function)
    compared = []
    for alpha, bound in zip(alphas, bound_epsilons):
        observed = divergence.independent_log_psi(pair, alpha) / (alpha - 1)
        compared.append(Comparison(_ratio(observed, bound),
                                   f"RDP α = {alpha}: {observed:.12g} vs {bound:.12g}",
                                   trivial(bound)))
    for epsilon, bound in zip(epsilons, bound_deltas):
        observed = divergence.delta(pair, epsilon)
        compared.append(Comparison(_ratio(observed, bound),
                                   f"ADP ε = {epsilon}: {observed:.12g} vs {bound:.12g}",
                                   trivial(bound)))
    return compared


def _ratio(observed: float, bound: float) -> float:
    """observed/bound; for a trivial bound (≤ 0) 0 when ``observed`` is 0 (≤ 1e-300), else ∞."""
    if bound > 0:
        return observed / bound
    return 0.0 if observed <= 1e-300 else math.inf


def search_soundness(instance: Instance, mechanism: Mechanism, cases: int,
                     rng: np.random.Generator, alphas, epsilons,
                     seeds: Sequence = ()) -> SoundnessResult:
    """The ``seeds`` (functions to start from, e.g. worst-case constructions), ``cases`` random
    functions, then hill climbing from the worst one; the largest ratio divergence/bound found,
    over every comparison and over the non-trivial ones (:class:`SoundnessResult`).

    For additive noise a seed must be a :class:`LipschitzFunction` (so that its perturbations
    keep the sensitivity): see :func:`worst_case_constructions`."""
    if not isinstance(mechanism, RandomizedResponse) and any(
            not isinstance(seed, LipschitzFunction) for seed in seeds):
        raise InvalidSpecification(
            "seeds of a soundness search with additive noise must be LipschitzFunction (the "
            "climbable form of a worst-case construction), so that perturbing them keeps the "
            "sensitivity", parameter="seeds")
    bound_epsilons = instance.bound_log_psi(mechanism, alphas) / (np.asarray(alphas) - 1)
    bound_deltas = instance.bound_delta(mechanism, epsilons)
    result, best = SoundnessResult(), None
    for index in range(-len(seeds), cases):
        if index < 0:
            candidate = seeds[index + len(seeds)]
        elif best is None or index < cases // 2:
            candidate = random_function(instance, mechanism, rng)
        else:
            candidate = perturb(best[1], instance, rng)
        compared = _ratios(instance, mechanism, candidate, alphas, epsilons, bound_epsilons,
                           bound_deltas)
        result = result.including(candidate, compared)
        ratio = max(compared, key=_order).ratio
        if best is None or ratio >= best[0]:
            best = (ratio, candidate)
    return result


def check_soundness(instance: Instance, mechanism: Mechanism, cases: int,
                    rng: np.random.Generator, alphas, epsilons, seeds: Sequence = (),
                    check: str = "soundness search") -> Finding:
    """The largest ratio divergence/bound of :func:`search_soundness` over every comparison is
    at most 1 (a trivial comparison, :func:`trivial`, fails when its divergence is above 0); the
    row's ``search`` gives the number of comparisons, of trivial ones, and the largest ratio
    over the others."""
    result = search_soundness(instance, mechanism, cases, rng, alphas, epsilons, seeds)
    verdict = "sound" if result.worst <= 1 + RELATIVE_TOLERANCE else "UNSOUND"
    witness = f"{result.witness}; worst at {result.point}"
    if verdict != "sound":
        witness = f"{_datasets_text(instance)}; {witness}"
    return Finding(check, {**instance.describe(), "mechanism": mechanism.name,
                           "cases": result.cases},
                   1.0, result.worst, verdict, witness, search=result.tally())


# --- Monte Carlo ----------------------------------------------------------------------------

def check_monte_carlo(instance: Instance, mechanism: Mechanism, quantity: Quantity,
                      function, worst_case: bool, samples: int, rng: np.random.Generator,
                      point: float) -> Finding:
    """A sampled estimate of δ(ε) (``Quantity.ADP``) or Ψ_α (``Quantity.RDP``): the bound is
    never below the interval, and at the worst case the interval contains it; an interval too
    wide to refute the bound, or whose lower end is not above the bound lowered by 5 % (so that
    it could not have caught that), is "uninformative"."""
    x, _ = instance.datasets
    pair = instance.exact_pair(mechanism, function)
    outputs = montecarlo.sample_outputs(instance.scheme, x, function, mechanism, samples, rng)
    if quantity is Quantity.ADP:
        estimate = montecarlo.estimate_delta(pair, outputs, point)
        bound, where = instance.bound_delta(mechanism, [point])[0], {"epsilon": point}
    else:
        estimate = montecarlo.estimate_psi(pair, outputs, point)
        bound = math.exp(instance.bound_log_psi(mechanism, [point])[0])
        where = {"alpha": point, "quantity": "Psi"}
    above = bound >= estimate.lower
    inside = estimate.lower <= bound <= estimate.upper
    verdict = "consistent" if above and (inside or not worst_case) else "INCONSISTENT"
    # "consistent" only if the interval could have refuted the bound lowered by 5 %: a row
    # far below a bound it cannot attain (a random f, a non-tight bound) refutes nothing
    lowered = (1 - montecarlo.INFORMATIVE) * bound
    if verdict == "consistent" and not (estimate.informative(bound) and estimate.lower > lowered):
        verdict = "uninformative"
    return Finding(f"Monte Carlo {quantity.name}" + (" (worst case)" if worst_case else ""),
                   {**instance.describe(), "mechanism": mechanism.name, "samples": samples,
                    **where},
                   bound, estimate.value, verdict,
                   f"interval [{estimate.lower:.6g}, {estimate.upper:.6g}]; " + function.describe())


# --- mutations ------------------------------------------------------------------------------

def _normalised(log_weights: np.ndarray) -> np.ndarray:
    return log_weights - log_sum_exp(log_weights)


def mutations(rate: float) -> dict[str, Callable[[MixturePair], MixturePair]]:
    """Deliberately wrong dominating pairs, each a classic slip in a derivation."""
    def powers(pair):
        count = pair.p_means.size
        return MixturePair(pair.family, pair.scale, pair.p_means,
                           _normalised(np.arange(count) * math.log(rate)),
                           pair.q_means, pair.q_log_weights)

    def dropped(pair):
        return MixturePair(pair.family, pair.scale, pair.p_means[:-1],
                           _normalised(pair.p_log_weights[:-1]), pair.q_means, pair.q_log_weights)

    def loosened(pair):
        return MixturePair(pair.family, pair.scale, np.clip(pair.p_means, -1, 1),
                           pair.p_log_weights, np.clip(pair.q_means, -1, 1), pair.q_log_weights)

    return {"weights r^i instead of Binom(i | K, r)": powers,
            "a mixture component dropped": dropped,
            "distance constraint |t − u| loosened to 1": loosened}


def check_mutations(instance: Instance, mechanism: AdditiveNoise, alpha: float,
                    epsilon: float) -> list[Finding]:
    """Each mutated bound must be flagged: unsound (below the exact divergence of the worst
    case) or not tight (above it)."""
    (_, problem), = instance.terms
    (pair, values), = mechanism.worst_components(problem)
    function = worst_case_function(instance, values)
    exact = instance.exact_pair(mechanism, function)
    observed = {Quantity.RDP: divergence.independent_log_psi(exact, alpha) / (alpha - 1),
                Quantity.ADP: divergence.delta(exact, epsilon)}
    x, x_prime = instance.datasets
    findings = []
    for name, mutate in mutations(float(instance.values[symbols.r])).items():
        wrong = mutate(pair)
        claimed = {Quantity.RDP: log_psi_curve(wrong, [alpha])[0].value / (alpha - 1),
                   Quantity.ADP: hockey_stick_curve(wrong, [epsilon])[0].value}
        for quantity in (Quantity.RDP, Quantity.ADP):
            gap = observed[quantity] - claimed[quantity]
            scale = max(abs(claimed[quantity]), 1e-300)
            verdict = ("caught" if abs(gap) > TIGHTNESS_TOLERANCE * scale else "MISSED")
            reason = "unsound" if gap > 0 else "not tight"
            findings.append(Finding(
                f"mutation: {name} ({quantity.name})",
                {**instance.describe(), "mechanism": mechanism.name,
                 quantity.axis: alpha if quantity is Quantity.RDP else epsilon},
                claimed[quantity], observed[quantity], verdict,
                f"{reason}: x = {{{', '.join(sorted(x))}}}, x' = {{{', '.join(sorted(x_prime))}}}, "
                f"{function.describe()}; observed {observed[quantity]:.12g} vs claimed "
                f"{claimed[quantity]:.12g}"))
    return findings


# --- published statements -------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class McShaneFunction(LipschitzFunction):
    """``L min_k (o_k + d_Y(y, a_k))`` (McShane) with its values on ``domain`` (the instance's
    batches) computed once from ``rows[k, j] = d_Y(a_k, domain_j)``: a worst-case construction
    in this form has dozens of anchors. ``label`` describes it (empty once perturbed)."""

    label: str = ""
    domain: tuple[Batch, ...] = ()
    rows: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def __post_init__(self) -> None:
        if self.rows.shape != (len(self.anchors), len(self.domain)):
            raise InternalError(f"McShane rows of shape {self.rows.shape} for "
                                f"{len(self.anchors)} anchors and {len(self.domain)} batches")
        values = self.sign * self.sensitivity * np.min(
            np.asarray(self.offsets)[:, None] + self.rows, axis=0)
        object.__setattr__(self, "_values", dict(zip(self.domain, values.tolist())))

    def __call__(self, batch: Batch) -> float:
        value = self._values.get(batch)
        return super().__call__(batch) if value is None else value

    def describe(self) -> str:
        return self.label or super().describe()

    def changed(self, index: int, anchor: Batch | None = None,
                offset: float | None = None) -> "McShaneFunction":
        """The same function with anchor ``index`` moved to ``anchor`` or its offset set."""
        anchors, offsets, rows = list(self.anchors), list(self.offsets), self.rows.copy()
        if anchor is not None:
            anchors[index] = anchor
            rows[index] = [self.relation.distance(anchor, batch) for batch in self.domain]
        if offset is not None:
            offsets[index] = offset
        return McShaneFunction(tuple(anchors), tuple(offsets), self.relation, self.sensitivity,
                               self.sign, "", self.domain, rows)


@dataclass(frozen=True)
class Construction:
    """A worst-case construction of a derived bound (001 F.1, G.2, G.3; 003 M.3): ``function``
    gives ``f`` on every batch, ``climbable`` is the same function in a form that
    :func:`perturb` keeps within the mechanism's assumptions (a seed of the soundness search)."""

    function: TableFunction
    climbable: TableFunction | LipschitzFunction


def worst_case_constructions(instance: Instance,
                             mechanism: Mechanism) -> tuple[list[Construction], list[str]]:
    """Every candidate worst case of the solver for the instance's derived bound, turned into a
    function on batches; and why any candidate was left out.

    For additive noise a candidate is kept only when it has sensitivity ≤ L under ``d_Y`` on
    every pair of batches (so that its exact divergence is one the mechanism really attains).
    """
    if len(instance.terms) != 1:
        return [], [f"the derived bound is an expectation over {len(instance.terms)} "
                    "constraint profiles: no single worst-case construction to seed from"]
    (_, problem), = instance.terms
    constructions, notes, seen = [], [], set()
    for _, values in mechanism.worst_components(problem):
        found = _construction(instance, mechanism, values)
        if isinstance(found, str):
            notes.append(found)
        elif (key := frozenset(found.function.table.items())) not in seen:
            seen.add(key)
            constructions.append(found)
    return constructions, notes


def _construction(instance: Instance, mechanism: Mechanism,
                  values: np.ndarray) -> Construction | str:
    """The construction of one solver candidate (``f`` = the candidate's value at the component
    whose event holds the batch), or why it is not one."""
    names = list(instance.case.events_x) + list(instance.case.events_x_prime)
    label = ("f(y) = value of the worst component of the event holding y ("
             + ", ".join(f"{n}: {v:g}" for n, v in zip(names, values)) + ")")
    try:
        table = TableFunction(worst_case_function(instance, values).table, label=label)
    except InternalError as error:
        return f"{label}: not a function on batches ({error})"
    if isinstance(mechanism, RandomizedResponse):
        return Construction(table, table)
    climbable = _mcshane_form(instance, table, mechanism)
    if climbable is None:
        return f"{label}: sensitivity above {additive_noise(mechanism).sensitivity:g} under d_Y"
    return Construction(table, climbable)


def _mcshane_form(instance: Instance, function: TableFunction,
                  mechanism: Mechanism) -> McShaneFunction | None:
    """``f − min f`` as ``L min_a (o_a + d_Y(y, a))`` (McShane) over the batches ``a`` that
    need to be anchors; ``None`` when ``f`` is not ``L``-Lipschitz under ``d_Y``."""
    sensitivity = additive_noise(mechanism).sensitivity
    batches = instance.batches()
    values = np.array([function(batch) for batch in batches])
    reach = values[None, :] + sensitivity * instance.distances   # reach[a, b] = f(b) + L d(a, b)
    slack = 1e-12 * max(1.0, float(np.max(np.abs(values))))
    if np.any(values[:, None] > reach + slack):
        return None
    np.fill_diagonal(reach, math.inf)
    needed = ~np.any(reach <= values[:, None] + slack, axis=1)
    anchors = [index for index in range(len(batches)) if needed[index]]
    lowest = float(values.min())
    return McShaneFunction(tuple(batches[i] for i in anchors),
                           tuple((float(values[i]) - lowest) / sensitivity for i in anchors),
                           instance.derivation.batch_relation, sensitivity, 1.0,
                           function.describe(), tuple(batches), instance.distances[anchors])


def dominates(bound: float, observed: float) -> bool:
    """``observed ≤ bound`` up to :data:`RELATIVE_TOLERANCE` relative to the bound, whatever the
    signs (an observation ≤ 1e-300 counts as zero, as in the soundness search)."""
    return (observed <= bound + RELATIVE_TOLERANCE * abs(bound)
            or (observed <= 1e-300 and bound >= 0))


def _datasets_text(instance: Instance) -> str:
    x, x_prime = instance.datasets
    return f"x = {{{', '.join(sorted(x))}}}, x' = {{{', '.join(sorted(x_prime))}}}"


def check_published_statement(derived: Instance, published: Instance, mechanism: Mechanism,
                              constructions: Sequence[Construction], alphas,
                              epsilons) -> list[Finding]:
    """For every point, the largest exact divergence of the derived bound's worst-case
    constructions (enumerated on ``derived``'s datasets) must not exceed the published
    statement's value (``published``: the same instance bounded by the statement's case).

    Where the derived bound is tight this compares the published statement with the true
    divergence (001 Thm. 3.4 and Prop. 3.5 give the bound; the construction attains it)."""
    pairs = [(c, derived.exact_pair(mechanism, c.function)) for c in constructions]
    claimed = {Quantity.RDP: (published.bound_log_psi(mechanism, alphas)
                              / (np.asarray(alphas) - 1)),
               Quantity.ADP: published.bound_delta(mechanism, epsilons)}
    findings = []
    for quantity, points in ((Quantity.RDP, alphas), (Quantity.ADP, epsilons)):
        for point, bound in zip(points, claimed[quantity]):
            observed, construction = max(   # NaN first: it must not be hidden
                ((_exact(quantity, pair, point), c) for c, pair in pairs),
                key=lambda item: math.inf if math.isnan(item[0]) else item[0])
            findings.append(_published_finding(derived, mechanism, quantity, point, float(bound),
                                               observed, construction))
    return findings


def _exact(quantity: Quantity, pair, point: float) -> float:
    if quantity is Quantity.RDP:
        return divergence.independent_log_psi(pair, point) / (point - 1)
    return divergence.delta(pair, point)


def _published_finding(instance: Instance, mechanism: Mechanism, quantity: Quantity,
                       point: float, bound: float, observed: float,
                       construction: Construction) -> Finding:
    """One row of :func:`check_published_statement`, with its witness."""
    if math.isnan(bound) or math.isnan(observed):
        verdict, relation = "NO VALUE", "?"
    elif dominates(bound, observed):
        verdict, relation = "sound", "<="
    else:
        verdict, relation = "UNSOUND", ">"
    where = f"{quantity.name} {'α' if quantity is Quantity.RDP else 'ε'} = {point:g}"
    witness = (f"{construction.function.describe()}; {_datasets_text(instance)}; {where}: exact "
               f"{observed:.12g} {relation} published {bound:.12g}")
    return Finding(f"published statement {quantity.name}",
                   {**instance.describe(), "mechanism": mechanism.name,
                    quantity.axis: point},
                   bound, observed, verdict, witness)
