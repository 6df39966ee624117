"""The verifier's checks on one concrete instance of a derivation case.

An :class:`Instance` fixes the scheme parameters and the background size of one case, so that
both the engine's bound (evaluated for a concrete mechanism) and the exact divergence of the real
subsampled mechanism (by enumeration) can be computed:

* **tightness** — the worst-case function of the tightness proofs (001 F.1, G.2, G.3; 003 M.3),
  built from the solver's worst components: the exact divergence must equal the bound;
* **soundness** — random functions ``f`` plus hill climbing on the ratio divergence/bound, which
  must never exceed 1 (beyond rounding);
* **Monte Carlo** — sampling the real mechanism;
* **mutations** — deliberately broken bounds must be caught.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numpy as np
import sympy as sp

from otbound.engine import symbols
from otbound.engine.batches import Batch, Content
from otbound.engine.bound import CaseBound
from otbound.engine.conditionals import Case
from otbound.engine.derivation import Derivation, Variant, check_case
from otbound.engine.relations import BatchRelation
from otbound.errors import InternalError, InvalidSpecification
from otbound.numerics.hockey_stick import hockey_stick_curve
from otbound.numerics.mechanisms import AdditiveNoise, Mechanism, RandomizedResponse
from otbound.numerics.methods import terms_delta, terms_log_psi
from otbound.numerics.pairs import MixturePair, log_sum_exp
from otbound.numerics.problems import NumericProblem, Term
from otbound.numerics.renyi import log_psi_curve
from otbound.verify import divergence, montecarlo
from otbound.verify.enumeration import additive_noise, output_pair, value_distribution
from otbound.verify.functions import LipschitzFunction, TableFunction

RELATIVE_TOLERANCE = 1e-9
"""How far an exact divergence may exceed its bound before it counts as a violation."""
TIGHTNESS_TOLERANCE = 1e-10


@dataclass
class Instance:
    """One case of one derivation at concrete scheme parameters and background size.

    ``bound`` is the engine's bound of the case, taken from the derivation's report
    (:func:`otbound.engine.derivation.run`); when it is not given, the case is checked once, for
    this instance only.
    """

    derivation: Derivation
    variant: Variant
    case: Case
    values: dict
    background: int
    bound: CaseBound | None = None

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
        point = {**self.values, symbols.N: self.size}
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

    def bound_log_psi(self, mechanism: Mechanism, alphas) -> np.ndarray:
        return terms_log_psi(self.terms, mechanism, np.asarray(alphas, dtype=float)).upper

    def bound_delta(self, mechanism: Mechanism, epsilons) -> np.ndarray:
        return terms_delta(self.terms, mechanism, np.asarray(epsilons, dtype=float)).upper

    def exact_pair(self, mechanism: Mechanism, function: Callable[[Batch], float]):
        x, x_prime = self.datasets
        return output_pair(mechanism, value_distribution(self.scheme, x, function),
                           value_distribution(self.scheme, x_prime, function))

    def batches(self) -> list[Batch]:
        """Every batch either dataset can produce."""
        return sorted(set(self.pmfs[0]) | set(self.pmfs[1]), key=lambda b: (len(b), sorted(b)))


@dataclass(frozen=True)
class Finding:
    """One row of a verification report."""

    check: str
    parameters: dict
    bound: float
    observed: float
    verdict: str
    witness: str = ""

    @property
    def ratio(self) -> float:
        if self.bound == 0:
            return 0.0 if self.observed == 0 else math.inf
        return self.observed / self.bound

    @property
    def passed(self) -> bool:
        return self.verdict in ("tight", "sound", "consistent", "uninformative", "caught")

    def to_json(self) -> dict:
        def number(value: float) -> float | None:  # NaN: nothing was measured (valid JSON)
            return None if math.isnan(value) else value
        return {"check": self.check, "parameters": self.parameters, "bound": number(self.bound),
                "observed": number(self.observed), "ratio": number(self.ratio),
                "verdict": self.verdict, "witness": self.witness or None}


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


def worst_function(instance: Instance, mechanism: Mechanism, kind: str,
                   point: float) -> TableFunction:
    """The worst-case construction for RDP at order ``point`` or ADP at ``ε = point``: the
    solver candidate with the largest divergence, turned into a function on batches."""
    (_, problem), = instance.terms

    def divergence_of(candidate) -> float:
        pair = candidate[0]
        if kind == "RDP":
            return log_psi_curve(pair, [point])[0].value
        return hockey_stick_curve(pair, [point])[0].value

    _, values = max(mechanism.worst_components(problem), key=divergence_of)
    return worst_case_function(instance, values)


def check_tightness(instance: Instance, mechanism: Mechanism, alphas, epsilons) -> list[Finding]:
    """The worst-case construction attains the bound (RDP at ``alphas``, ADP at ``epsilons``)."""
    if len(instance.terms) != 1:
        return []
    findings = []
    for kind, points in (("RDP", alphas), ("ADP", epsilons)):
        for point in points:
            function = worst_function(instance, mechanism, kind, point)
            exact_pair = instance.exact_pair(mechanism, function)
            if kind == "RDP":
                bound = instance.bound_log_psi(mechanism, [point])[0] / (point - 1)
                observed = divergence.independent_log_psi(exact_pair, point) / (point - 1)
            else:
                bound = instance.bound_delta(mechanism, [point])[0]
                observed = divergence.delta(exact_pair, point)
            close = abs(observed - bound) <= TIGHTNESS_TOLERANCE * max(abs(bound), 1e-300)
            findings.append(Finding(
                f"tightness {kind}", {**instance.describe(), "mechanism": mechanism.name,
                                      ("alpha" if kind == "RDP" else "epsilon"): point},
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
    anchors, offsets = list(function.anchors), list(function.offsets)
    index = int(rng.integers(len(anchors)))
    if rng.random() < 0.5:
        offsets[index] = max(0.0, offsets[index] + rng.normal(0, 0.5))
    else:
        anchors[index] = _random_anchor(instance, rng)
    return LipschitzFunction(tuple(anchors), tuple(offsets), function.relation,
                             function.sensitivity, function.sign)


@dataclass
class SoundnessResult:
    cases: int = 0
    worst: float = 0.0
    witness: str = ""
    point: str = ""


def _ratios(instance: Instance, mechanism: Mechanism, function, alphas, epsilons,
            bound_epsilons: np.ndarray, bound_deltas: np.ndarray) -> list[tuple[float, str]]:
    pair = instance.exact_pair(mechanism, function)
    ratios = []
    for alpha, bound in zip(alphas, bound_epsilons):
        observed = divergence.independent_log_psi(pair, alpha) / (alpha - 1)
        ratios.append((_ratio(observed, bound), f"RDP α = {alpha}: {observed:.12g} vs {bound:.12g}"))
    for epsilon, bound in zip(epsilons, bound_deltas):
        observed = divergence.delta(pair, epsilon)
        ratios.append((_ratio(observed, bound), f"ADP ε = {epsilon}: {observed:.12g} vs {bound:.12g}"))
    return ratios


def _ratio(observed: float, bound: float) -> float:
    if bound > 0:
        return observed / bound
    return 0.0 if observed <= 1e-300 else math.inf


def search_soundness(instance: Instance, mechanism: Mechanism, cases: int,
                     rng: np.random.Generator, alphas, epsilons) -> SoundnessResult:
    """Random functions, then hill climbing from the worst one; the largest ratio found."""
    bound_epsilons = instance.bound_log_psi(mechanism, alphas) / (np.asarray(alphas) - 1)
    bound_deltas = instance.bound_delta(mechanism, epsilons)
    result, best = SoundnessResult(), None
    for index in range(cases):
        if best is None or index < cases // 2:
            candidate = random_function(instance, mechanism, rng)
        else:
            candidate = perturb(best[1], instance, rng)
        ratio, point = max(_ratios(instance, mechanism, candidate, alphas, epsilons,
                                   bound_epsilons, bound_deltas))
        result.cases += 1
        if best is None or ratio >= best[0]:
            best = (ratio, candidate)
        if ratio >= result.worst:
            result.worst, result.point = ratio, point
            result.witness = candidate.describe()
    return result


def check_soundness(instance: Instance, mechanism: Mechanism, cases: int,
                    rng: np.random.Generator, alphas, epsilons) -> Finding:
    result = search_soundness(instance, mechanism, cases, rng, alphas, epsilons)
    verdict = "sound" if result.worst <= 1 + RELATIVE_TOLERANCE else "UNSOUND"
    return Finding("soundness search", {**instance.describe(), "mechanism": mechanism.name,
                                        "cases": result.cases},
                   1.0, result.worst, verdict, f"{result.witness}; worst at {result.point}")


# --- Monte Carlo ----------------------------------------------------------------------------

def check_monte_carlo(instance: Instance, mechanism: Mechanism, kind: str, function,
                      worst_case: bool, samples: int, rng: np.random.Generator,
                      point: float) -> Finding:
    """A sampled estimate of δ(ε) (``kind = "ADP"``) or Ψ_α (``"RDP"``): the bound is never below
    the interval, and at the worst case the interval contains it; an interval too wide to refute
    the bound is "uninformative"."""
    x, _ = instance.datasets
    pair = instance.exact_pair(mechanism, function)
    outputs = montecarlo.sample_outputs(instance.scheme, x, function, mechanism, samples, rng)
    if kind == "ADP":
        estimate = montecarlo.estimate_delta(pair, outputs, point)
        bound, where = instance.bound_delta(mechanism, [point])[0], {"epsilon": point}
    else:
        estimate = montecarlo.estimate_psi(pair, outputs, point)
        bound = math.exp(instance.bound_log_psi(mechanism, [point])[0])
        where = {"alpha": point, "quantity": "Psi"}
    above = bound >= estimate.lower
    inside = estimate.lower <= bound <= estimate.upper
    verdict = "consistent" if above and (inside or not worst_case) else "INCONSISTENT"
    if verdict == "consistent" and not estimate.informative(bound):
        verdict = "uninformative"
    return Finding(f"Monte Carlo {kind}" + (" (worst case)" if worst_case else ""),
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
    observed = {"RDP": divergence.independent_log_psi(exact, alpha) / (alpha - 1),
                "ADP": divergence.delta(exact, epsilon)}
    x, x_prime = instance.datasets
    findings = []
    for name, mutate in mutations(float(instance.values[symbols.r])).items():
        wrong = mutate(pair)
        claimed = {"RDP": log_psi_curve(wrong, [alpha])[0].value / (alpha - 1),
                   "ADP": hockey_stick_curve(wrong, [epsilon])[0].value}
        for kind in ("RDP", "ADP"):
            gap = observed[kind] - claimed[kind]
            scale = max(abs(claimed[kind]), 1e-300)
            verdict = ("caught" if abs(gap) > TIGHTNESS_TOLERANCE * scale else "MISSED")
            reason = "unsound" if gap > 0 else "not tight"
            findings.append(Finding(
                f"mutation: {name} ({kind})",
                {**instance.describe(), "mechanism": mechanism.name,
                 ("alpha" if kind == "RDP" else "epsilon"): alpha if kind == "RDP" else epsilon},
                claimed[kind], observed[kind], verdict,
                f"{reason}: x = {{{', '.join(sorted(x))}}}, x' = {{{', '.join(sorted(x_prime))}}}, "
                f"{function.describe()}; observed {observed[kind]:.12g} vs claimed "
                f"{claimed[kind]:.12g}"))
    return findings
