"""The epoch-level solver: an epoch derivation's worst case (:mod:`otbound.engine.epoch_patterns`)
for a concrete mechanism, as the pairs the accountants compose.

* A pinned product with random-allocation weights is the epoch's pair
  (:class:`~otbound.numerics.allocation.EpochPair`, any mechanism with a one-step likelihood
  ratio: :mod:`otbound.numerics.ratio_laws`).
* A pinned product with independent weights is a product of ``T`` one-step mixtures
  ``(1 − r) P₀ + r P₁`` against ``P₀`` (or the reverse): ``T`` steps of Poisson subsampling.
* The diagonal pattern is the mechanism's worst pair at distance 1, once per epoch.
"""

from __future__ import annotations

import math
import numpy as np

from otbound.engine.epoch_patterns import (AllocationWeights, DiagonalSteps, EpochPattern,
                                           IndependentWeights, PinnedProduct)
from otbound.errors import UnsupportedOperation
from otbound.numerics.allocation import Allocation, EpochPair
from otbound.numerics.problems import NumericProblem, insert_remove_pattern
from otbound.numerics.ratio_laws import ratio_law


def solve_epoch(pattern: EpochPattern, mechanism, rate: float | None = None) -> tuple:
    """The branches of one case (one pattern) for ``mechanism``, with how many times its step
    repeats per epoch: ``(branches, repeats, text)``."""
    if isinstance(pattern, PinnedProduct) and isinstance(pattern.weights, AllocationWeights):
        epoch = Allocation(pattern.steps, pattern.weights.selected, ratio_law(mechanism))
        how = (f"the pinned product's worst case (random allocation of {epoch.selected} of "
               f"{epoch.steps} steps) for the {mechanism.name} mechanism's worst pair at "
               "distance 1" + ("" if epoch.selected == 1 else
                               f", bounded above through its hidden partition into "
                               f"{epoch.selected} blocks"))
        return [(0.0, [EpochPair(epoch, "remove" if pattern.removal else "add")])], 1, how
    if isinstance(pattern, PinnedProduct) and isinstance(pattern.weights, IndependentWeights):
        if rate is None:
            raise UnsupportedOperation("independent steps need the rate r")
        problem = _poisson_problem(rate, pattern.removal)
        return ([(0.0, mechanism.tight_pairs(problem))], pattern.steps,
                f"the pinned product's worst case (independent steps at rate {rate:g}): "
                f"{pattern.steps} steps of the one-step mixture")
    if isinstance(pattern, DiagonalSteps):
        return ([(0.0, [mechanism.distance_pair(1)])], 1,
                "joint convexity over the diagonal pairs: the mechanism's worst pair at distance "
                "1, once per epoch (no amplification)")
    raise UnsupportedOperation(f"no epoch-level solver for the pattern {pattern.name}")


def _poisson_problem(rate: float, removal: bool) -> NumericProblem:
    """``(1 − r) b(y) + r b(y')`` against ``b(y)`` (removal) or the reverse (003 Thm. 3.7 with
    one element)."""
    mixture = np.array([math.log1p(-rate) if rate < 1 else -math.inf,
                        math.log(rate) if rate > 0 else -math.inf])
    single = np.array([0.0])
    if removal:
        return NumericProblem(mixture, single, insert_remove_pattern(0, 1))
    return NumericProblem(single, mixture, insert_remove_pattern(1, 0))
