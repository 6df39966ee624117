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

from dataclasses import replace
from typing import Callable

import numpy as np

from otbound.accounting import pld, rdp
from otbound.accounting.accountant import (Guarantee, best_guarantee, finish_guarantee,
                                           one_step_guarantee)
from otbound.accounting.steps import subsampled_step
from otbound.choices import Accountant, Conversion, Method
from otbound.errors import Refusal
from otbound.numerics.hockey_stick import tolerating
from otbound.numerics.limits import MAX_EPSILON, show
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.one_step import adp, adp_or_refusal, rdp_or_refusal
from otbound.numerics.settings import Subsampling
from otbound.numerics.units import posthoc_unit


def profile_guarantee(setting: Subsampling, mechanism: Mechanism, method: Method, count: int,
                      accountant: Accountant, *, delta: float | None, epsilon: float | None,
                      conversion: Conversion, discretisation: float) -> Guarantee | Refusal:
    """(ε, δ) after ``count`` steps, each bounded by ``method``'s per-step curve and profile, or
    why the accountant (under ``best``: each of them) gives none."""
    attempts = {
        Accountant.RDP: lambda: _rdp_guarantee(setting, mechanism, method, count, delta,
                                               epsilon, conversion),
        Accountant.PLD: lambda: _pld_guarantee(setting, mechanism, method, count, delta,
                                               epsilon, discretisation)}
    if accountant is not Accountant.BEST:
        return attempts[accountant]()
    if delta is not None:   # a vacuous RDP answer: the PLD is not worth minutes
        attempts = _unless_vacuous(attempts)
    return best_guarantee({a.value: attempt for a, attempt in attempts.items()}, delta)


Attempt = Callable[[], Guarantee | Refusal]


def _unless_vacuous(attempts: dict[Accountant, Attempt]) -> dict[Accountant, Attempt]:
    """The RDP accountant's attempt, then the PLD accountant's (in this order, as
    :func:`~otbound.accounting.accountant.best_guarantee` runs them), which refuses without
    running where the RDP accountant's ε is above
    :data:`~otbound.numerics.limits.MAX_EPSILON`, where any ε is vacuous (a post-hoc group
    bound at a large group: RDP gave 7.7e6 in 14 s, the PLD then took minutes more)."""
    found: dict[Accountant, Guarantee] = {}

    def by_rdp() -> Guarantee | Refusal:
        answer = attempts[Accountant.RDP]()
        if isinstance(answer, Guarantee):
            found[Accountant.RDP] = answer
        return answer

    def by_pld() -> Guarantee | Refusal:
        rdp_answer = found.get(Accountant.RDP)
        if rdp_answer is not None and rdp_answer.epsilon > MAX_EPSILON:
            return Refusal(f"not run: the RDP accountant's ε = {show(rdp_answer.epsilon)} is "
                           f"above {MAX_EPSILON:g}, where every ε is vacuous")
        return attempts[Accountant.PLD]()

    return {Accountant.RDP: by_rdp, Accountant.PLD: by_pld}


def _rdp_guarantee(setting: Subsampling, mechanism: Mechanism, method: Method, count: int,
                   delta: float | None, epsilon: float | None,
                   conversion: Conversion) -> Guarantee | Refusal:
    """The RDP accountant on ``method``'s per-step curve, or its refusal as a value (the
    post-hoc order limit, no mechanism-agnostic bound: :func:`~otbound.numerics.one_step.
    rdp_or_refusal`), or the conversion's."""
    orders = rdp.DEFAULT_ORDERS
    bounds = rdp_or_refusal(setting, mechanism, method, orders)
    if isinstance(bounds, Refusal):
        return bounds
    curve = rdp.RdpCurve(orders, np.array([b.value for b in bounds])) * count
    guarantee = finish_guarantee(Accountant.RDP, curve, count, delta, epsilon, conversion)
    if isinstance(guarantee, Refusal):
        return guarantee
    used = {order: b.source for order, b in zip(orders, bounds)}.get(
        guarantee.details.get("order"))
    return _naming(guarantee, [used] if used else [])


def _pld_guarantee(setting: Subsampling, mechanism: Mechanism, method: Method, count: int,
                   delta: float | None, epsilon: float | None,
                   discretisation: float) -> Guarantee | Refusal:
    used: list[str] = []
    if (refused := profile_refusal(setting, mechanism, method, count > 1)) is not None:
        return refused
    if count == 1:
        return _naming(one_step_guarantee(
            lambda epsilons: _values(adp(setting, mechanism, method, epsilons), used),
            delta, epsilon), used)
    one = method_pld(setting, mechanism, method, discretisation, used)
    if (refused := pld.composed_size_refusal(one, count)) is not None:
        return refused
    composed = one.self_compose(count, pld.TRUNCATION)
    return _naming(finish_guarantee(Accountant.PLD, [composed], count, delta, epsilon,
                                    discretisation=discretisation), used)


def _naming(guarantee: Guarantee | Refusal, used: list[str]) -> Guarantee | Refusal:
    """The guarantee with ``details["bound_used"]``: the per-step bounds that won where
    several sound ones were compared (at the order converted, or anywhere on the PLD's grid);
    a refusal as it is."""
    if isinstance(guarantee, Refusal) or not used:
        return guarantee
    return replace(guarantee, details=guarantee.details | {"bound_used": used})


def profile_refusal(setting: Subsampling, mechanism: Mechanism, method: Method,
                    swapped: bool) -> Refusal | None:
    """Why ``method`` has no privacy profile here, asked at ε = 0 (with ``swapped``, of the
    swapped relation too, which :func:`method_pld` reads below ε = 0), or ``None``: the
    profile's callbacks then answer at every ε."""
    sides = [setting, setting.swapped()] if swapped else [setting]
    for side in sides:
        if isinstance(found := adp_or_refusal(side, mechanism, method, [0.0]), Refusal):
            return found
    return None


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
