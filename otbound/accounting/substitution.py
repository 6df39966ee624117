"""A substitution of one record through its removal and the insertion of the other: the chained
bound of epoch-level settings, whose derivations bound the insertion/removal of a record."""

from __future__ import annotations

import numpy as np

from otbound.accounting.accountant import Guarantee, one_step_guarantee
from otbound.accounting.pld import (ROUNDING_FLOOR, ROUNDING_RELATIVE, composed_plds,
                                    composition_noise)
from otbound.accounting.steps import Step
from otbound.choices import DEFAULT_DISCRETISATION, Accountant
from otbound.errors import Refusal

CHAIN_GRID = np.linspace(-3.0, 3.0, 1201)
"""Where the chained bound splits ε into ``ε₁ + ε₂`` (around the halves ``ε/2``)."""


def chained(steps: list[Step], delta: float | None, epsilon: float | None,
            discretisation: float = DEFAULT_DISCRETISATION) -> Guarantee | Refusal:
    """A substitution through the removal of the one record and the insertion of the other, for
    steps whose cases are the removal and the insertion (epochs): by ``P(A) ≤ γ₁ Q(A) + H_{γ₁}(P
    ‖ Q)`` twice, ``δ_sub(ε) ≤ δ_remove(ε₁) + e^{ε₁} δ_insert(ε − ε₁)`` for every ``ε₁``, the
    two composed over the steps (the same intermediate dataset for all of them); the smallest
    over a grid of ``ε₁``. Both directions of the substitution have this bound (refused as
    the PLDs or the one-step search refuse)."""
    composed = composed_plds(steps, discretisation)
    if isinstance(composed, Refusal):
        return composed
    removal, insertion = composed
    noise = max(composition_noise(removal), composition_noise(insertion))

    def profile(epsilons: np.ndarray) -> np.ndarray:
        found = []
        for eps in np.atleast_1d(epsilons):
            first = eps / 2 + CHAIN_GRID
            deltas = (removal.remove.deltas(first) + np.exp(first)
                      * insertion.remove.deltas(eps - first))
            found.append(float(deltas.min()))
        margin = (1 + ROUNDING_RELATIVE)
        return np.minimum(np.array(found) * margin + (ROUNDING_FLOOR + noise) * (1 + np.exp(
            np.atleast_1d(epsilons) / 2 + CHAIN_GRID[-1])), 1.0)

    found = one_step_guarantee(profile, delta, epsilon)
    if isinstance(found, Refusal):
        return found
    total = sum(step.count for step in steps)
    return Guarantee(found.epsilon, found.delta, total, Accountant.PLD,
                     {"discretisation": discretisation,
                      "substitution": "through the removal of one record and the insertion of "
                                      "the other (δ_sub(ε) ≤ min over ε₁ of δ_remove(ε₁) + "
                                      "e^ε₁ δ_insert(ε − ε₁))"})
