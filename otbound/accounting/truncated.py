"""Truncated Poisson sampling (seed 002): Poisson sampling at rate ``p``, then a uniformly random
subset of size ``B`` when more than ``B`` of the ``n`` records were sampled.

Its dominating pairs (002 Thm. 3.1 add/remove-1-of-n, 3.3 zero-out, 3.4 replace-one), derived
by the engine from the bundled derivation files (``derivations/truncated_*.py``), are public
mixtures of two Gaussian branches:
with probability ``1 − w``, ``w = P[Binom(n − 1, p) ≥ B]``, no truncation touches the sensitive
record and the pair is the Poisson-subsampled Gaussian at rate ``p``; otherwise the record enters with probability ``q̃`` and displaces another, so the
sensitivity doubles. ``q̃`` has the closed form of 002 Sec. 3.4,
``q̃ = P[Binom(n, p) ≥ B + 1] / P[Binom(n − 1, p) ≥ B] · B/n``.

Each pair is stated in one direction; the other direction is the swapped pair (Zhu et al. 2022),
mirrored so that its likelihood ratio increases. Both directions are cases of the step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from otbound.accounting.steps import Step
from otbound.accounting.truncated_derived import SOURCES, derived, derived_cases
from otbound.choices import Neighbouring
from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.numerics.mechanisms import AdditiveNoise, Mechanism, describe

PROBABILITY_ERROR = 1e-12
"""Relative error allowed for scipy's binomial tails (checked against mpmath in the tests);
branch weights are raised by it, which can only enlarge the bound."""


@dataclass(frozen=True)
class TruncatedPoissonSetting:
    """Poisson sampling at ``rate`` truncated to ``max_batch`` records, dataset size ``n``."""

    rate: float
    max_batch: int
    dataset_size: int
    neighbouring: Neighbouring = Neighbouring.ADD_REMOVE

    def __post_init__(self) -> None:
        if not (isinstance(self.rate, (int, float)) and 0 <= self.rate <= 1):
            raise InvalidSpecification(f"rate must be in [0, 1], got {self.rate}",
                                       parameter="rate")
        for name, value in (("max_batch", self.max_batch), ("dataset_size", self.dataset_size)):
            if isinstance(value, bool) or not float(value).is_integer() or value < 1:
                raise InvalidSpecification(f"{name} must be an integer >= 1, got {value}",
                                           parameter=name)
        object.__setattr__(self, "rate", float(self.rate))
        object.__setattr__(self, "max_batch", int(self.max_batch))
        object.__setattr__(self, "dataset_size", int(self.dataset_size))
        object.__setattr__(self, "neighbouring", Neighbouring(self.neighbouring))

    def truncation_probability(self) -> float:
        """``w = P[Binom(n − 1, p) ≥ B]``: the other records alone fill the batch."""
        from scipy import stats

        n, p, b = self.dataset_size, self.rate, self.max_batch
        return float(stats.binom.sf(b - 1, n - 1, p))

    def branch_rate(self) -> float:
        """``q̃``, the closed form of 002 Sec. 3.4 (requires ``w > 0``)."""
        from scipy import stats

        n, p, b = self.dataset_size, self.rate, self.max_batch
        return float(stats.binom.sf(b, n, p) / self.truncation_probability() * b / n)

    def branch_rate_direct(self) -> float:
        """``q̃ = p Σ_{s=B}^{n−1} P[Binom(n−1, p) = s] / w · B/(s + 1)`` (002 Thm. 3.1)."""
        from scipy import stats

        n, p, b = self.dataset_size, self.rate, self.max_batch
        s = np.arange(b, n)
        terms = stats.binom.pmf(s, n - 1, p) * b / (s + 1)
        return float(p * math.fsum(terms) / self.truncation_probability())

    def overflow_probability(self) -> float:
        """``P[Binom(n, p) > B]``: the chance that one step truncates (for the naive bound)."""
        from scipy import stats

        return float(stats.binom.sf(self.max_batch, self.dataset_size, self.rate))

    def describe(self) -> dict:
        return {"scheme": "truncated-poisson", "rate": self.rate, "max_batch": self.max_batch,
                "dataset_size": self.dataset_size, "neighbouring": self.neighbouring.value,
                "distance_unit": derived(self.neighbouring).batch_relation.unit(),
                "bound": f"derived ({SOURCES[self.neighbouring]})"}


def truncated_step(sampling: TruncatedPoissonSetting, mechanism: Mechanism, count: int) -> Step:
    """``count`` steps, from the engine's derived bound (002 Thm. 3.1, 3.3, 3.4; see
    ``derivations/truncated_*.py``) solved by the Gaussian worst case."""
    if not (isinstance(mechanism, AdditiveNoise) and mechanism.family.rotation_invariant):
        raise UnsupportedOperation(
            "truncated Poisson sampling is analysed for the Gaussian mechanism only (002 "
            "Lemma 2.4 needs rotation invariance)")
    w = sampling.truncation_probability()
    cases = derived_cases(sampling.rate, w, sampling.branch_rate() if w > 0 else 0.0,
                          mechanism, PROBABILITY_ERROR, sampling.neighbouring)
    relation = ("truncated-poisson", sampling.neighbouring.value, sampling.dataset_size)
    return Step(tuple(tuple(branches) for branches in cases), count, relation,
                sampling.describe() | describe(mechanism))


def naive_epsilon(delta_of_epsilon, delta: float, overflow: float) -> float:
    """The approach of Chua et al. (seed 002, Sec. 1): untruncated Poisson sampling is
    ``(ε, δ_P(ε))``-DP, so truncation is ``(ε, δ_P(ε) + e^ε η)``-DP with ``η`` the probability
    that any step truncates. Returns the smallest ε (on a 1e-6 grid, rounded up) with
    ``δ_P(ε) + e^ε η ≤ δ``, or ``inf`` when ``η ≥ δ``."""
    if overflow >= delta:
        return math.inf

    def fits(epsilon: float) -> bool:
        return delta_of_epsilon(epsilon) + math.exp(epsilon) * overflow <= delta

    # e^ε η grows and δ_P(ε) falls: scan up to where e^ε η alone exceeds δ, then bisect.
    previous = 0.0
    for epsilon in np.arange(0.0, math.log(delta / overflow) if overflow > 0 else 1e3, 0.01):
        if fits(epsilon):
            break
        previous = epsilon
    else:
        return math.inf
    if epsilon == 0.0:
        return 0.0
    low, high = previous, epsilon
    while high - low > 1e-6:
        middle = (low + high) / 2
        low, high = (low, middle) if fits(middle) else (middle, high)
    return float(high)
