"""Truncated Poisson sampling (seed 002): Poisson sampling at rate ``p``, then a uniformly random
subset of size ``B`` when more than ``B`` of the ``n`` records were sampled.

A :class:`TruncatedPoissonSetting` is the bundled derivation of its relation (002 Thm. 3.1
add/remove, 3.3 zero-out, 3.4 replace-one: ``derivations/truncated_*.py``) at its parameters
(:meth:`TruncatedPoissonSetting.derived_setting`): a public mixture of two branches whose
weights are ``1 − w`` and ``w``, ``w = P[Binom(n − 1, p) ≥ B]`` (the other records alone fill
the batch), and whose rates are ``p`` and ``q̃ = P[Binom(n, p) ≥ B + 1] / w · B/n`` (002 Sec.
3.4). Every method and accountant takes it like any other setting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from otbound.choices import Neighbouring
from otbound.errors import InvalidSpecification

SOURCES = {Neighbouring.ADD_REMOVE: "002 Thm. 3.1", Neighbouring.ZERO_OUT: "002 Thm. 3.3",
           Neighbouring.REPLACE_ONE: "002 Thm. 3.4"}
"""The theorem each relation's bound reproduces."""
DERIVATIONS = {Neighbouring.ADD_REMOVE: "002-thm-3.1", Neighbouring.ZERO_OUT: "002-thm-3.3",
               Neighbouring.REPLACE_ONE: "002-thm-3.4"}
"""The bundled derivation of each relation (``derivations/truncated_*.py``)."""
BRANCH_DIGITS = 40
"""Significant digits of ``w`` and ``q̃`` (mpmath): the bound is evaluated at 30 digits and then
in double precision, so their error is far below every other rounding."""


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

    def branch_values(self) -> tuple[str, str]:
        """``w`` and ``q̃`` to :data:`BRANCH_DIGITS` significant digits (regularised incomplete beta
        functions of the exact rate; ``q̃ = 0`` when ``w = 0``)."""
        import mpmath as mp

        n, b = self.dataset_size, self.max_batch
        with mp.workdps(BRANCH_DIGITS + 10):
            p = mp.mpf(repr(self.rate))

            def at_least(count: int, trials: int):   # P[Binom(trials, p) ≥ count]
                if count > trials:
                    return mp.mpf(0)
                return mp.betainc(count, trials - count + 1, 0, p, regularized=True)

            w = at_least(b, n - 1)
            q = at_least(b + 1, n) / w * b / n if w > 0 else mp.mpf(0)
            return mp.nstr(w, BRANCH_DIGITS), mp.nstr(min(q, mp.mpf(1)), BRANCH_DIGITS)

    def derived_setting(self):
        """The bundled derivation of the relation at ``r = p``, ``w`` and ``q̃``: the setting
        every method evaluates (a :class:`~otbound.numerics.derived.DerivedSetting` that
        describes itself as this one)."""
        from otbound.numerics.derived import DerivedSetting, bundled

        w, q = self.branch_values()
        return DerivedSetting(bundled(DERIVATIONS[self.neighbouring]),
                              {"r": self.rate, "w": w, "q_trunc": q}, origin=self.describe())

    def describe(self) -> dict:
        return {"scheme": "truncated-poisson", "rate": self.rate, "max_batch": self.max_batch,
                "dataset_size": self.dataset_size, "neighbouring": self.neighbouring.value,
                "bound": f"derived ({SOURCES[self.neighbouring]})"}


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
