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
from dataclasses import dataclass, replace

import numpy as np

from otbound.choices import Neighbouring
from otbound.errors import InvalidSpecification

SOURCES = {Neighbouring.ADD_REMOVE: "002 Thm. 3.1", Neighbouring.ZERO_OUT: "002 Thm. 3.3",
           Neighbouring.REPLACE_ONE: "002 Thm. 3.4"}
"""The theorem each relation's bound reproduces."""
DERIVATIONS = {Neighbouring.ADD_REMOVE: "002-thm-3.1", Neighbouring.ZERO_OUT: "002-thm-3.3",
               Neighbouring.REPLACE_ONE: "002-thm-3.4"}
"""The bundled derivation of each relation (``derivations/truncated_*.py``)."""


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

    def with_rate(self, rate: float) -> "TruncatedPoissonSetting":
        """The same setting at another rate (what ``calibrate --solve-for rate`` varies)."""
        return replace(self, rate=rate)

    def overflow_probability(self) -> float:
        """``P[Binom(n, p) > B]``: the chance that one step truncates (for the naive bound)."""
        from scipy import stats

        return float(stats.binom.sf(self.max_batch, self.dataset_size, self.rate))

    def derived_setting(self):
        """The bundled derivation of the relation at ``r = p``, ``B`` and ``N = n``, its ``w``
        and ``q̃`` evaluated from their closed forms: the setting every method evaluates (a
        :class:`~otbound.numerics.derived.DerivedSetting` that describes itself as this
        one)."""
        from otbound.numerics.derived import DerivedSetting, bundled, bundled_derivation, \
            with_definitions

        name = DERIVATIONS[self.neighbouring]
        derived = bundled(name)
        values = with_definitions(bundled_derivation(name), derived,
                                  {"r": self.rate, "B": self.max_batch, "N": self.dataset_size})
        return DerivedSetting(derived, values, origin=self.describe())

    def describe(self) -> dict:
        """The setting as the output shows it, with the unit of distance its derivation counts
        a sensitivity in."""
        from otbound.numerics.derived import bundled

        unit = bundled(DERIVATIONS[self.neighbouring]).batch_relation.unit()
        return {"scheme": "truncated-poisson", "rate": self.rate, "max_batch": self.max_batch,
                "dataset_size": self.dataset_size, "neighbouring": self.neighbouring.value,
                "bound": f"derived ({SOURCES[self.neighbouring]})", "distance_unit": unit}


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
