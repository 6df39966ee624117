"""Exact output distributions of a subsampled mechanism on concrete datasets.

Every batch ``y`` of the dataset is enumerated with its exact probability ``s_x(y)``
(:meth:`otbound.engine.schemes.Scheme.pmf`); the output is the mixture
``m_x = Σ_y s_x(y) b_{f(y)}``, at the values the family's reference reads off ``f``
(:meth:`~otbound.verify.noise_references.FamilyReference.query`). For randomized response with
a rational ``θ`` the two output probabilities are exact fractions.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from typing import Callable

from otbound.engine.batches import Batch
from otbound.engine.schemes import Scheme
from otbound.errors import InvalidSpecification
from otbound.numerics.mechanisms import AdditiveNoise, Mechanism, RandomizedResponse
from otbound.numerics.pairs import MixturePair
from otbound.verify.divergence import ExactBernoulli
from otbound.verify.noise_references import reference


def value_distribution(scheme: Scheme, dataset: frozenset,
                       function: Callable[[Batch], float]) -> dict[float, Fraction]:
    """The exact distribution of ``f(y)`` when ``y ~ s_x``."""
    result: dict[float, Fraction] = defaultdict(Fraction)
    for batch, probability in scheme.pmf(dataset).items():
        result[function(batch)] += probability
    return dict(result)


def randomized_response_output(theta: Fraction, values: dict[float, Fraction]) -> Fraction:
    """``P(output = 1)`` of randomized response: ``θ`` where ``f(y) = 1``, ``1 − θ`` elsewhere."""
    return sum((p * (theta if v == 1 else 1 - theta) for v, p in values.items()), Fraction(0))


def additive_noise(mechanism: Mechanism) -> AdditiveNoise:
    """``mechanism``, which is not randomized response, as additive noise: the only other kind
    of mechanism the verifier can enumerate and sample."""
    if not isinstance(mechanism, AdditiveNoise):
        raise InvalidSpecification(
            "mechanism must be RandomizedResponse or AdditiveNoise for the verifier, got "
            f"{type(mechanism).__name__}", parameter="mechanism")
    return mechanism


def output_pair(mechanism: Mechanism, values_x: dict[float, Fraction],
                values_x_prime: dict[float, Fraction]) -> ExactBernoulli | MixturePair:
    """The exact pair ``(m_x, m_{x'})``: two-point for randomized response, else a mixture."""
    if isinstance(mechanism, RandomizedResponse):
        theta = Fraction(mechanism.theta).limit_denominator(10 ** 12)
        return ExactBernoulli(*(randomized_response_output(theta, v)
                                for v in (values_x, values_x_prime)))
    mechanism = additive_noise(mechanism)
    noise = reference(mechanism.family)

    def components(values):   # values that meet in one query value are added
        found: dict[float, Fraction] = defaultdict(Fraction)
        for v, p in values.items():
            found[noise.query(v / mechanism.sensitivity)] += p
        return list(found), [math.log(p) for p in found.values()]

    p_means, p_logs = components(values_x)
    q_means, q_logs = components(values_x_prime)
    return MixturePair(mechanism.family, mechanism.noise_multiplier, p_means, p_logs,
                       q_means, q_logs)
