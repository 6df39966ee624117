"""Accounting a step known only by its per-step bounds: an RDP curve ``ε(α)`` and a privacy
profile ``δ(ε)`` (the ``agnostic`` and ``posthoc`` methods of :mod:`otbound.numerics.one_step`).

* RDP: the per-step curve at the accountant's orders, times the number of steps (Mironov 2017
  Prop. 1), then converted like any curve.
* PLD: the per-step profile as a pessimistic connect-the-dots PLD (Doroshenko et al. 2022), as
  seed 003's post-hoc baseline (App. C.1.4) is composed. Below ε = 0 the profile of a pair is
  ``1 − e^ε + e^ε δ'(−ε)``, ``δ'`` the profile of the swapped pair (Zhu et al. 2022 Prop. 6), so
  the swapped relation's bound is used there. The PLD is built from the maximum over the cases
  of the bound (the profile of a dominating pair), which can be looser than the per-case tight
  accounting, never smaller than the truth.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Callable

import numpy as np

from otbound.accounting import pld, rdp
from otbound.accounting.accountant import (Guarantee, best_guarantee, finish_guarantee,
                                           one_step_guarantee)
from otbound.accounting.steps import subsampled_step
from otbound.choices import Accountant, Conversion, Method
from otbound.errors import Refusal, UnsupportedOperation
from otbound.numerics.hockey_stick import tolerating
from otbound.numerics.limits import MAX_EPSILON, show
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.one_step import adp
from otbound.numerics.one_step import rdp as rdp_bounds
from otbound.numerics.settings import Subsampling
from otbound.numerics.units import posthoc_unit


def profile_guarantee(setting: Subsampling, mechanism: Mechanism, method: Method, count: int,
                      accountant: Accountant, *, delta: float | None, epsilon: float | None,
                      conversion: Conversion, discretisation: float) -> Guarantee:
    """(ε, δ) after ``count`` steps, each bounded by ``method``'s per-step curve and profile."""
    attempts = {
        Accountant.RDP: lambda: _rdp_guarantee(setting, mechanism, method, count, delta,
                                               epsilon, conversion),
        Accountant.PLD: lambda: _pld_guarantee(setting, mechanism, method, count, delta,
                                               epsilon, discretisation)}
    if accountant is not Accountant.BEST:
        return attempts[accountant]()
    if delta is not None:   # a vacuous RDP answer: the PLD is not worth minutes
        rdp_once = functools.cache(functools.partial(_outcome, attempts[Accountant.RDP]))
        attempts = {Accountant.RDP: lambda: _raised(rdp_once()),
                    Accountant.PLD: _unless_vacuous(rdp_once, attempts[Accountant.PLD])}
    return best_guarantee({a.value: attempt for a, attempt in attempts.items()}, delta)


def _unless_vacuous(rdp_outcome: Callable[[], Guarantee | UnsupportedOperation],
                    pld_answer: Callable[[], Guarantee]) -> Callable[[], Guarantee]:
    """The PLD accountant's answer, unless the RDP accountant's ε is above
    :data:`~otbound.numerics.limits.MAX_EPSILON`, where any ε is vacuous (a post-hoc group
    bound at a large group: RDP gave 7.7e6 in 14 s, the PLD then took minutes more)."""
    def answer() -> Guarantee:
        found = rdp_outcome()
        if isinstance(found, Guarantee) and found.epsilon > MAX_EPSILON:
            raise UnsupportedOperation(f"not run: the RDP accountant's ε = {show(found.epsilon)}"
                                       f" is above {MAX_EPSILON:g}, where every ε is vacuous")
        return pld_answer()
    return answer


def _outcome(attempt: Callable[[], Guarantee]) -> Guarantee | UnsupportedOperation:
    """The attempt's answer or its refusal, so that it can be kept (run once)."""
    try:
        return attempt()
    except UnsupportedOperation as error:
        return error


def _raised(outcome: Guarantee | UnsupportedOperation) -> Guarantee:
    if isinstance(outcome, UnsupportedOperation):
        raise outcome
    return outcome


def _rdp_guarantee(setting: Subsampling, mechanism: Mechanism, method: Method, count: int,
                   delta: float | None, epsilon: float | None,
                   conversion: Conversion) -> Guarantee:
    orders = rdp.DEFAULT_ORDERS
    bounds = rdp_bounds(setting, mechanism, method, orders)
    curve = rdp.RdpCurve(orders, np.array([b.value for b in bounds])) * count
    guarantee = finish_guarantee(Accountant.RDP, curve, count, delta, epsilon, conversion)
    used = {order: b.source for order, b in zip(orders, bounds)}.get(
        guarantee.details.get("order"))
    return _naming(guarantee, [used] if used else [])


def _pld_guarantee(setting: Subsampling, mechanism: Mechanism, method: Method, count: int,
                   delta: float | None, epsilon: float | None,
                   discretisation: float) -> Guarantee:
    used: list[str] = []
    if count == 1:
        return _naming(one_step_guarantee(
            lambda epsilons: _values(adp(setting, mechanism, method, epsilons), used),
            delta, epsilon), used)
    one = method_pld(setting, mechanism, method, discretisation, used)
    pld.check_composed_size(one, count)
    composed = one.self_compose(count, pld.TRUNCATION)
    return _naming(finish_guarantee(Accountant.PLD, [composed], count, delta, epsilon,
                                    discretisation=discretisation), used)


def _naming(guarantee: Guarantee, used: list[str]) -> Guarantee:
    """The guarantee with ``details["bound_used"]``: the per-step bounds that won where
    several sound ones were compared (at the order converted, or anywhere on the PLD's grid)."""
    if not used:
        return guarantee
    return replace(guarantee, details=guarantee.details | {"bound_used": used})


def method_pld(setting: Subsampling, mechanism: Mechanism, method: Method,
               discretisation: float, used: list[str] | None = None):
    """One step's ``method`` profile as a PLD on the losses ``[−h, h]``, ``h`` = K times the
    largest loss of the K = 1 step's dominating pairs (losses beyond are moved pessimistically,
    so the range only decides how tight the PLD is). The names of the bounds that won, where
    several were compared, are added to ``used``."""
    mirror = setting.swapped()

    def profile(epsilons: np.ndarray) -> np.ndarray:
        magnitude = np.abs(epsilons)
        with tolerating(pld.TOLERANCE):
            above = _values(adp(setting, mechanism, method, magnitude), used)
            below = (above if mirror == setting else _values(adp(mirror, mechanism, method,
                                                                 magnitude), used))
        negative = -np.expm1(epsilons) + np.exp(epsilons) * below
        return np.where(epsilons >= 0, above, negative) * (1 + pld.ROUNDING_RELATIVE)

    single, group = _loss_unit(setting)
    high = group * max(pld.pair_loss_range(pair)[1]
                       for case in subsampled_step(single, mechanism, 1).cases
                       for _, pairs in case for pair in pairs)
    return pld.profile_pld(profile, -high, high, discretisation)


def _loss_unit(setting) -> tuple:
    """A setting whose tight step's losses, times the returned factor, span the range of
    ``setting``'s: its K = 1 form times K where it has one (a group's step is costly), else the
    setting itself (a derivation with no K = 1 form, such as truncated Poisson)."""
    unit = posthoc_unit(setting)
    return (setting, 1) if isinstance(unit, Refusal) else unit


def _values(bounds, used: list[str] | None) -> np.ndarray:
    """The values of per-step bounds, adding the names of those that won to ``used``."""
    if used is not None:
        used.extend(name for name in dict.fromkeys(b.source for b in bounds)
                    if name and name not in used)
    return np.array([b.value for b in bounds])
