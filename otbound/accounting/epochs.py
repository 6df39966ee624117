"""Epoch-level accounting: balls-in-bins sampling composed over epochs.

One epoch of balls-in-bins sampling (:mod:`otbound.numerics.balls_in_bins`) is one mechanism
whose dominating pair is known in each direction of insertion/removal; its privacy profiles,
bounded above deterministically, become a pessimistic connect-the-dots PLD per direction
(:func:`otbound.accounting.pld.profile_pmf`, dp_accounting's REMOVE and ADD kept apart), and
epochs compose like any other adaptive steps: the records are reassigned independently in every
epoch.
"""

from __future__ import annotations

from otbound.accounting import pld
from otbound.accounting.accountant import Guarantee
from otbound.choices import DEFAULT_DISCRETISATION, Accountant, Method
from otbound.errors import UnsupportedOperation
from otbound.numerics.balls_in_bins import (BALLS_IN_BINS_SOURCE, GRID_STEP, BallsInBins,
                                            epoch_profile)
from otbound.numerics.epoch_settings import check_epochs
from otbound.numerics.mechanisms import AdditiveNoise, Mechanism


def account_epochs(setting: BallsInBins, mechanism: Mechanism, epochs: int, *,
                   method: Method | str = Method.TIGHT,
                   accountant: Accountant | str = Accountant.BEST,
                   delta: float | None = None, epsilon: float | None = None,
                   discretisation: float = DEFAULT_DISCRETISATION) -> Guarantee:
    """ε at ``delta`` (or δ at ``epsilon``) after ``epochs`` epochs of ``setting`` with the
    Gaussian ``mechanism``: the epochs' PLDs composed (the only accountant for this scheme)."""
    _check(mechanism, epochs, method, accountant)
    composed = epoch_pld(setting, mechanism, discretisation)
    pld.check_composed_size(composed, epochs)
    if epochs > 1:
        composed = composed.self_compose(epochs, pld.TRUNCATION)
    details = {"method": "tight", "bound": BALLS_IN_BINS_SOURCE, "grid_step": GRID_STEP,
               "steps_per_epoch": setting.steps_per_epoch, "guarantee": "deterministic"}
    if delta is not None:
        return Guarantee(pld.pld_epsilon([composed], delta), delta, epochs, Accountant.PLD,
                         details)
    return Guarantee(epsilon, pld.pld_delta([composed], epsilon), epochs, Accountant.PLD,
                     details)


def epoch_pld(setting: BallsInBins, mechanism: Mechanism,
              discretisation: float = DEFAULT_DISCRETISATION):
    """One epoch as a dp_accounting PLD: REMOVE and ADD from the upper ends of the profile's
    bounds, raised by the relative rounding margin."""
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

    pld.check_discretisation(discretisation)
    profile = epoch_profile(setting.steps_per_epoch, mechanism.noise_multiplier)
    low, high = profile.loss_range()
    raised = 1 + pld.ROUNDING_RELATIVE
    remove = pld.profile_pmf(lambda e: profile.remove(e).upper * raised, low, high,
                             discretisation)
    add = pld.profile_pmf(lambda e: profile.add(e).upper * raised, low, high, discretisation)
    return PrivacyLossDistribution(remove, add)


def check_epoch_mechanism(mechanism: Mechanism, scheme: str) -> None:
    """The epoch-level schemes are bounded for the noise families that say so (Gaussian)."""
    if not (isinstance(mechanism, AdditiveNoise) and mechanism.family.epoch_level):
        raise UnsupportedOperation(f"{scheme} is bounded for the Gaussian mechanism only, got "
                                   f"{mechanism.name}")


def _check(mechanism: Mechanism, epochs: int, method, accountant) -> None:
    check_epoch_mechanism(mechanism, "balls-in-bins sampling")
    check_epochs(epochs)
    if Method(method) is not Method.TIGHT:
        raise UnsupportedOperation("balls-in-bins sampling has one method: its dominating pair "
                                   "(method='tight')")
    if Accountant(accountant) is Accountant.RDP:
        raise UnsupportedOperation("balls-in-bins sampling is accounted by its PLD "
                                   "(accountant='pld' or 'best')")
