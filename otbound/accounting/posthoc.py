"""Post-hoc group privacy over many steps: the K = 1 bound, then the group privacy property.

Group privacy holds for any mechanism: a ``(ε₁, δ₁)``-DP mechanism is ``(Kε₁, Σ_{k<K} e^{kε₁}
δ₁)``-DP for datasets at distance K (003 Prop. 2.6 in its tighter form, App. C.1.4). Seed 003's
baselines (Sec. 4, ``benchmarks/group_privacy_composition.py``) apply it in three places:

* ``step-profile`` — to each step's K = 1 privacy profile (``method='posthoc'`` of
  :mod:`otbound.numerics.one_step`: RDP by Mironov 2017 Cor. 4, 001 App. B.1), then composed;
* ``composed`` — once, to the composed K = 1 guarantee: ``δ_K(ε) = Σ_{k<K} e^{kε/K} δ_1(ε/K)``;
* ``step-pair`` — to one (ε', δ₁(ε')) pair per step, composed exactly as a generic (ε, δ)
  mechanism (Kairouz et al. 2015 Thm. 3.3); the best ε' of a fixed grid is taken.

ε at a given δ is found by bisection on the δ(ε) of the variant, returning the end whose δ meets
the target (an upper bound, as every δ here is).
"""

from __future__ import annotations

import functools
import math
from typing import Callable

import numpy as np

from otbound.accounting import pld, rdp
from otbound.accounting.accountant import (Guarantee, best_guarantee, finish_guarantee,
                                           rdp_refusal)
from otbound.accounting.profiles import profile_guarantee
from otbound.accounting.steps import subsampled_step
from otbound.choices import Accountant, Conversion, Method, Posthoc
from otbound.errors import Refusal, granted, required
from otbound.numerics.limits import show
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.one_step import branches_delta
from otbound.numerics.settings import Subsampling
from otbound.numerics.units import posthoc_unit

PAIR_EPSILONS = np.geomspace(1e-4, 0.2, 40)
"""The per-step K = 1 ε' of the ``step-pair`` variant (those of 003's benchmark)."""
PAIR_ROUNDING = 1e-9
"""Relative margin added to the δ of the ``step-pair`` composition (floating-point sums)."""
MAX_PAIR_STEPS = 10 ** 5
"""Most steps the ``step-pair`` variant composes (exactly, over ``steps + 1`` outcomes)."""
EPSILON_SEARCH = (1e3, 1e-7)
"""Largest ε searched, and the relative width at which the bisection for ε stops."""


def posthoc_guarantee(setting: Subsampling, mechanism: Mechanism, count: int,
                      variant: Posthoc, accountant: Accountant, *, delta: float | None,
                      epsilon: float | None, conversion: Conversion,
                      discretisation: float) -> Guarantee | Refusal:
    """(ε, δ) after ``count`` steps by post-hoc group privacy (``variant``; ``BEST``: all three,
    the smallest answer, with the others in ``details["compared"]``), or why the variant (each
    of them) gives none."""
    options = {"delta": delta, "epsilon": epsilon}
    attempts: dict[Posthoc, Callable[[], Guarantee | Refusal]] = {
        Posthoc.STEP_PROFILE: lambda: profile_guarantee(
            setting, mechanism, Method.POSTHOC, count, accountant, conversion=conversion,
            discretisation=discretisation, **options),
        Posthoc.COMPOSED: lambda: _composed(setting, mechanism, count, accountant, conversion,
                                            discretisation, **options),
        Posthoc.STEP_PAIR: lambda: _step_pair(setting, mechanism, count, accountant,
                                              **options)}
    named = {v.value: _labelled(v, attempt) for v, attempt in attempts.items()}
    if variant is not Posthoc.BEST:
        return named[variant.value]()
    return best_guarantee(named, delta, what="post-hoc variant")


def _labelled(variant: Posthoc, attempt: Callable[[], Guarantee | Refusal]
              ) -> Callable[[], Guarantee | Refusal]:
    def labelled() -> Guarantee | Refusal:
        guarantee = attempt()
        if isinstance(guarantee, Refusal):
            return guarantee
        return Guarantee(guarantee.epsilon, guarantee.delta, guarantee.steps,
                         guarantee.accountant, {"posthoc": variant.value} | guarantee.details)
    return labelled


def group_factor(group: int, epsilon: float) -> float:
    """``Σ_{k<K} e^{kε/K}``, rounded up (``inf`` where it overflows)."""
    if epsilon * (group - 1) / group > 700:
        return math.inf
    return math.fsum(math.exp(k * epsilon / group) for k in range(group)) * (1 + 4 * group
                                                                            * 2.0 ** -52)


def _group_delta(group: int, epsilon: float, single: float) -> float:
    """``min(1, Σ_{k<K} e^{kε/K} δ_1)``; a δ_1 of 0 stays 0 (nothing to multiply)."""
    if single <= 0:
        return 0.0
    return min(1.0, group_factor(group, epsilon) * single)


def _composed(setting: Subsampling, mechanism: Mechanism, count: int, accountant: Accountant,
              conversion: Conversion, discretisation: float, *, delta: float | None,
              epsilon: float | None) -> Guarantee | Refusal:
    """Group privacy applied once to the composed K = 1 guarantee (each accountant)."""
    unit = posthoc_unit(setting)
    if isinstance(unit, Refusal):
        return unit
    single, group = unit
    one = [subsampled_step(single, mechanism, count)]

    def with_accountant(each: Accountant) -> Guarantee | Refusal:
        if each is Accountant.RDP and (refused := rdp_refusal(epsilon)) is not None:
            return refused
        composed = (pld.composed_plds(one, discretisation) if each is Accountant.PLD
                    else rdp.compose_rdp(one))
        if isinstance(composed, Refusal):
            return composed

        def delta_at(eps: float) -> float:
            # δ at a given ε: the PLD's has no refusal, the RDP's only at ε < 0, asked above
            single = granted(finish_guarantee(each, composed, count, None, eps / group,
                                              conversion, discretisation)).delta
            return _group_delta(group, eps, single)

        details = ({"discretisation": discretisation} if each is Accountant.PLD
                   else {"conversion": conversion.value})
        return _solved(delta_at, count, each, details, delta, epsilon)

    if accountant is not Accountant.BEST:
        return with_accountant(accountant)
    return best_guarantee({a.value: functools.partial(with_accountant, a)
                           for a in (Accountant.RDP, Accountant.PLD)}, delta)


def _step_pair(setting: Subsampling, mechanism: Mechanism, count: int, accountant: Accountant,
               *, delta: float | None, epsilon: float | None) -> Guarantee | Refusal:
    """Each step reduced to ``(Kε', Σ_{k<K} e^{kε'} δ_1(ε'))`` and composed exactly."""
    if count > MAX_PAIR_STEPS:
        return Refusal(f"the step-pair variant composes at most {MAX_PAIR_STEPS:g} steps "
                       f"exactly, got {count}; use --posthoc composed or step-profile")
    if isinstance(unit := posthoc_unit(setting), Refusal):
        return unit
    pairs = step_pairs(*unit, mechanism)
    if not pairs:
        return Refusal("no per-step (ε', δ) pair of the post-hoc grid has δ < 1")

    def delta_at(eps: float) -> float:
        return min(composed_pair_delta(e0, d0, count, eps) for e0, d0 in pairs)

    details = {"composition": "exact for (ε, δ) pairs (Kairouz et al. 2015)"}
    return _solved(delta_at, count, accountant, details, delta, epsilon)


def step_pairs(unit, group: int, mechanism: Mechanism) -> list[tuple[float, float]]:
    """``(Kε', Σ_{k<K} e^{kε'} δ_1(ε'))`` for each ε' of :data:`PAIR_EPSILONS` with δ < 1,
    ``δ_1`` the profile of the K = 1 step (``unit``, :func:`~otbound.numerics.units.
    posthoc_unit`) through its dominating pairs, ``K = group``."""
    single = subsampled_step(unit, mechanism, 1)
    deltas = np.max([branches_delta(case, PAIR_EPSILONS).upper for case in single.cases], axis=0)
    pairs = []
    for inner, base in zip(PAIR_EPSILONS, deltas):
        pair_delta = float(base) * group_factor(group, group * inner)
        if pair_delta < 1:
            pairs.append((group * float(inner), pair_delta))
    return pairs


def composed_pair_delta(epsilon0: float, delta0: float, steps: int, epsilon: float) -> float:
    """δ(ε) of ``steps`` compositions of a generic ``(ε0, δ0)``-DP mechanism (Kairouz et al.
    2015 Thm. 3.3): its privacy loss is +∞ with probability δ0, otherwise ±ε0 with odds
    ``e^ε0 : 1``; raised by :data:`PAIR_ROUNDING`."""
    from scipy import stats

    ups = np.arange(steps + 1)
    loss = (2 * ups - steps) * epsilon0
    above = loss > epsilon
    pmf = stats.binom.pmf(ups[above], steps, 1 / (1 + math.exp(-epsilon0)))
    untouched = math.exp(steps * math.log1p(-delta0))
    excess = math.fsum(pmf * -np.expm1(epsilon - loss[above]))
    value = -math.expm1(steps * math.log1p(-delta0)) + untouched * excess
    return min(1.0, value * (1 + PAIR_ROUNDING) + pld.ROUNDING_FLOOR)


def _solved(delta_at: Callable[[float], float], count: int, accountant: Accountant,
            details: dict, delta: float | None, epsilon: float | None) -> Guarantee | Refusal:
    """δ at ``epsilon``, or the smallest ε (up to the bisection's width, rounded up) whose
    δ is at most ``delta`` (refused where none up to :data:`EPSILON_SEARCH`'s is)."""
    if delta is None:
        epsilon = required(epsilon, "epsilon")   # check_target: one of the two is given
        return Guarantee(float(epsilon), delta_at(epsilon), count, accountant, details)
    largest, width = EPSILON_SEARCH
    if delta_at(0.0) <= delta:
        return Guarantee(0.0, delta, count, accountant, details)
    low, high = 0.0, 1.0
    while delta_at(high) > delta:
        if high > largest:
            return Refusal(f"post-hoc group privacy gives no ε <= {largest:g} at "
                           f"δ = {show(delta)}")
        low, high = high, 2 * high
    while high - low > width * high:
        middle = (low + high) / 2
        low, high = (middle, high) if delta_at(middle) > delta else (low, middle)
    return Guarantee(high, delta, count, accountant, details)
