"""The soundness search of the verifier: random functions ``f`` on batches (arbitrary bits for
randomized response, Lipschitz functions under ``d_Y`` for additive noise, 001 Def. 2.9) and hill
climbing from the worst, seeded with any worst-case constructions; the ratio divergence/bound
must never exceed 1 (beyond rounding), and comparisons where the bound is trivial are counted
apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np

from otbound.engine.batches import Batch
from otbound.engine.relations import BatchRelation
from otbound.errors import InvalidSpecification
from otbound.numerics.mechanisms import Mechanism, RandomizedResponse
from otbound.verify import divergence
from otbound.verify.checks import (RELATIVE_TOLERANCE, Finding, Instance, SearchTally,
                                   _datasets_text, trivial)
from otbound.verify.enumeration import additive_noise
from otbound.verify.functions import LipschitzFunction, TableFunction
from otbound.verify.published_statements import McShaneFunction


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
        changes: dict[str, Any] = {  # the fields to replace, each of its own type
            "cases": self.cases + 1, "comparisons": self.comparisons + len(compared),
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
