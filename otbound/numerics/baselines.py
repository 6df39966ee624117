"""The published mechanism-agnostic bounds, as data: each :class:`Baseline` knows the cases it
applies to (the scheme and the case's shape ``(K₊, K₋)``) and bounds them through the base
mechanism's group privacy profile. The ``agnostic`` method reports, per case, the smallest of
these and of joint convexity over the bound's own couplings (:mod:`otbound.numerics.one_step`).

* 001 Prop. E.4 (Zhu & Wang 2019): Poisson subsampling, one insertion or removal, RDP.
* Wang et al. 2019 Thm. 9 (001 Prop. E.2 with a sharper second-order term) and, where the
  mechanism meets its condition, Thm. 27: sampling without replacement, one substitution, RDP.
* Balle et al. 2018: sampling without replacement, one substitution, δ(ε).
* 001 Prop. E.5: sampling without replacement, K ≥ 2 substitutions, RDP and δ(ε).

(Under Poisson subsampling 003 Sec. 3.3's δ(ε), Balle et al.'s amplification for pure insertion
or removal, is read off the bound's product coupling in :mod:`otbound.numerics.one_step`.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, cast

import numpy as np

from otbound.choices import Quantity, SchemeKind
from otbound.engine.relations import BatchRelation
from otbound.errors import Refusal
from otbound.numerics.forward_differences import can_win, log_forward_difference
from otbound.numerics.mechanisms import Mechanism
from otbound.numerics.mixtures import (at_next_integer, labelled_terms, mixture_log_psi,
                                       per_order, profile_mixture, rounded_up, weighted_sum)
from otbound.numerics.renyi import _log_psi_from_excess, log_factorial
from otbound.numerics.rounding import EPS, Bounds
from otbound.numerics.units import posthoc_unit

CaseShape = tuple[int, int]
"""``(K₊, K₋)``: the elements inserted into and removed from the dataset in one case."""


@dataclass(frozen=True)
class Baseline:
    """A published bound: when it applies, and its value for one case at the given points
    (orders for RDP, ε for δ), or ``None`` where the setting lacks what it needs."""

    name: str
    quantity: Quantity
    applies: Callable[[SchemeKind, CaseShape], bool]
    unit: BatchRelation
    """The distance the published bound counts the sensitivity in: it applies only to a setting
    whose ``d_Y`` is that distance (under sampling without replacement a substitution is one
    unit; a derivation that counts it as an insertion and a removal, 001 Thm. F.2, moves ``f``
    by twice the sensitivity per substitution, which the published bound does not see)."""
    bound: Callable[..., Bounds | None]
    """``(setting, shape, mechanism, profile, points)``, ``profile`` the mechanism's group
    privacy profile (``log Ψ_α`` or ``δ(ε)`` at a distance)."""


def applicable(setting, shape: CaseShape, quantity: Quantity) -> list[Baseline]:
    """The baselines that apply to one case of the setting."""
    return [baseline for baseline in BASELINES
            if baseline.quantity is quantity and baseline.applies(setting.scheme, shape)
            and setting.batch_relation is baseline.unit]


def baseline_bounds(setting, shape: CaseShape, quantity: Quantity, mechanism: Mechanism, profile,
                    points: np.ndarray) -> list[Bounds]:
    """The values of every applicable baseline for one case."""
    found = [(baseline.name, baseline.bound(setting, shape, mechanism, profile, points))
             for baseline in applicable(setting, shape, quantity)]
    return [bounds.named(name) for name, bounds in found if bounds is not None]


def _zhu_wang_bound(setting, shape: CaseShape, mechanism: Mechanism, profile,
                    alphas: np.ndarray) -> Bounds:
    factor = math.log(2) if shape[0] else 0.0   # 001 Prop. E.4: insertion costs 2
    return at_next_integer(lambda n: _zhu_wang(setting.rate, profile, n, factor), alphas)


def _wang_et_al_bound(setting, shape: CaseShape, mechanism: Mechanism, profile,
                      alphas: np.ndarray) -> Bounds:
    w, moment = setting.sampled_fraction, mechanism.log_moment_ball
    return at_next_integer(lambda n: _wang_et_al(w, profile, n, moment), alphas)


def _prop_e5_rdp(setting, shape: CaseShape, mechanism: Mechanism, profile,
                 alphas: np.ndarray) -> Bounds | None:
    found = [per_order(profile_mixture(weights, distances, profile, alphas), alphas)
             for weights, distances in _prop_e5(setting, shape)]
    return found[0] if found else None


def _balle_bound(setting, shape: CaseShape, mechanism: Mechanism, profile,
                 epsilons: np.ndarray) -> Bounds:
    return balle(math.log(setting.sampled_fraction), lambda eps: profile(1, eps), epsilons)


def _prop_e5_delta(setting, shape: CaseShape, mechanism: Mechanism, profile,
                   epsilons: np.ndarray) -> Bounds | None:
    found = [weighted_sum(weights, [profile(int(k), epsilons) for k in distances])
             for weights, distances in _prop_e5(setting, shape)]
    return found[0] if found else None


def _one_change(kind: SchemeKind, shape: CaseShape) -> bool:
    return kind is SchemeKind.POISSON and sum(shape) == 1


def _one_substitution(kind: SchemeKind, shape: CaseShape) -> bool:
    return kind is SchemeKind.WOR and shape == (1, 1)


def _group_substitution(kind: SchemeKind, shape: CaseShape) -> bool:
    return kind is SchemeKind.WOR and shape[0] == shape[1] >= 2


def _zhu_wang(rate: float, profile, order: int, log_factor: float) -> Bounds:
    """001 Prop. E.4: ``log Σ_l Binom(l | α, r) Ψ_l`` at integer ``α`` with ``Ψ_0 = Ψ_1 = 1``
    and ``Ψ_l`` the base divergence at distance 1; ``log_factor`` is added (log 2 for
    insertion)."""
    if rate == 0:
        return Bounds(np.full(1, log_factor), np.full(1, log_factor))
    levels = np.arange(order + 1)
    single = profile(1, np.maximum(levels, 2).astype(float))
    log_psis = [Bounds(np.array([single.upper[l] if l >= 2 else 0.0]),
                       np.array([single.estimate[l] if l >= 2 else 0.0])) for l in levels]
    log_weights, errors = _log_binomial_with_errors(order, rate)
    value = mixture_log_psi(log_weights, log_psis, errors)
    return Bounds(rounded_up(value.upper + log_factor, value.upper), value.estimate + log_factor)


def _log_binomial_with_errors(count: int, rate: float) -> tuple[np.ndarray, np.ndarray]:
    """``log Binom(l | count, r)`` for ``l = 0 … count`` by log-factorials (fast for orders up
    to 10⁴), with bounds on their absolute errors: a few ulps of the sum of the parts' sizes."""
    levels = np.arange(count + 1, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        parts = (log_factorial(count) + 0 * levels, -log_factorial(levels),
                 -log_factorial(count - levels),
                 np.where(levels > 0, levels * math.log(rate), 0.0),
                 np.where(levels < count, (count - levels) * math.log1p(-rate)
                          if rate < 1 else -np.inf, 0.0))
    # sums of a non-empty tuple of arrays: arrays (the checker allows for the empty sum, 0)
    total = cast(np.ndarray, sum(parts))
    return total, 8 * EPS * cast(np.ndarray, sum(np.abs(np.where(np.isfinite(p), p, 0.0))
                                                 for p in parts))


def _wang_et_al(w: float, profile, order: int, log_moment_ball) -> Bounds:
    """Wang et al. 2019, Thm. 9 (001 Prop. E.2 with a sharper second-order term):
    ``log(1 + C(α, 2) w² min(4 (Ψ_2 − 1), 2 Ψ_2) + 2 Σ_{l=3}^{α} C(α, l) w^l Ψ_l)`` at integer
    ``α`` (each term increases with ``Ψ_l``, so upper bounds on them give one on the sum); where
    ``log_moment_ball(1)`` is not ``None``, Thm. 27: ``2 Ψ_l`` is replaced by ``4 √(B(l⁻) B(l⁺))``
    where smaller, ``B`` the forward differences of :mod:`.forward_differences` at the even
    neighbours ``l⁻ ≤ l ≤ l⁺``."""
    levels = np.arange(2, order + 1)
    single = profile(1, levels.astype(float))
    log_choose = np.array([math.lgamma(order + 1) - math.lgamma(l + 1) - math.lgamma(order - l + 1)
                           for l in levels])
    base = math.log(2) + log_choose + levels * math.log(w)
    improved = _thm_27_terms(levels[1:], log_moment_ball)
    values = []
    for log_psi, rounding in ((single.upper, True), (single.estimate, False)):
        log_psi = log_psi.copy()
        # 4 (Ψ_2 − 1) = 2 Ψ_2 · 2 (1 − 1/Ψ_2): the smaller of the two where 2 (1 − 1/Ψ_2) < 1
        with np.errstate(divide="ignore"):
            second = min(0.0, float(np.log(-2 * np.expm1(-max(log_psi[0], 0.0)))))
        log_psi[0] += second
        log_psi[1:] = np.minimum(log_psi[1:], improved)
        finite = abs(second) if second > -np.inf else 0.0
        magnitude = 8 * EPS * (levels.size + order + finite
                               + np.max(np.abs(base) + np.abs(np.where(np.isfinite(log_psi),
                                                                        log_psi, 0.0))))
        relative = magnitude if rounding else 0.0
        value, error = _log_psi_from_excess(np.logaddexp.reduce(base + log_psi), relative)
        values.append(float(value + error))
    return Bounds(rounded_up(np.array(values[:1]), np.ones(1)), np.array(values[1:]))


def _thm_27_terms(levels: np.ndarray, log_moment_ball) -> np.ndarray:
    """Upper bounds on ``log(2 √(B(l⁻) B(l⁺)))`` (Wang et al. 2019, Thm. 27; ``inf`` where the
    theorem does not apply or cannot help)."""
    if not levels.size or log_moment_ball(1) is None:
        return np.full(levels.size, np.inf)
    found = {even: (log_forward_difference(log_moment_ball, even)
                    if can_win(log_moment_ball, even) else np.inf)
             for even in range(2, int(levels[-1]) + 2, 2)}
    lower = [found[2 * (int(l) // 2)] for l in levels]
    upper = [found[2 * ((int(l) + 1) // 2)] for l in levels]
    return math.log(2) + (np.array(lower) + np.array(upper)) / 2


def _prop_e5(setting, shape: tuple[int, int]) -> list[tuple[np.ndarray, np.ndarray]]:
    """001 Prop. E.5 for K-fold substitution without replacement (K ≥ 2) at one dataset size:
    its terms' log-probabilities and distances (empty where the setting has no K = 1 form)."""
    found = posthoc_unit(setting)
    if isinstance(found, Refusal):   # WOR (the baseline's scheme) at no single N
        return []
    return [labelled_terms(found[0].with_group_size(shape[0]).agnostic_cases())]


def balle(log_eta: float, base: Callable[[np.ndarray], Bounds], epsilons: np.ndarray) -> Bounds:
    """Balle et al. 2018: with probability ``η`` of touching the differing elements, the
    subsampled mechanism has ``δ(ε) ≤ η δ_base(ε')`` with ``e^ε = 1 + η (e^{ε'} − 1)``, i.e.
    ``ε' = log(1 + (e^ε − 1)/η)`` (formed in log space: no overflow at any ε)."""
    with np.errstate(over="ignore"):
        small = np.log1p(np.expm1(np.minimum(epsilons, 1.0)) / math.exp(log_eta))
    large = (epsilons - log_eta
             + np.log1p(-np.exp(-np.maximum(epsilons, 1.0)) * -math.expm1(log_eta)))
    inner = np.where(epsilons < 1.0, small, large)
    # ε' is rounded down (a smaller ε' gives a larger δ_base): a few ulps suffice.
    inner = np.maximum(inner * (1 - 8 * EPS), 0.0)
    return weighted_sum([log_eta], [base(inner)])


_INSERTION, _SUBSTITUTION = BatchRelation.INSERTION_REMOVAL, BatchRelation.SUBSTITUTION
BASELINES: tuple[Baseline, ...] = (
    Baseline("001 Prop. E.4 (Zhu & Wang 2019)", Quantity.RDP, _one_change, _INSERTION,
             _zhu_wang_bound),
    Baseline("Wang et al. 2019 Thm. 9 and 27", Quantity.RDP, _one_substitution, _SUBSTITUTION,
             _wang_et_al_bound),
    Baseline("001 Prop. E.5", Quantity.RDP, _group_substitution, _SUBSTITUTION, _prop_e5_rdp),
    Baseline("Balle et al. 2018", Quantity.ADP, _one_substitution, _SUBSTITUTION,
             _balle_bound),
    Baseline("001 Prop. E.5", Quantity.ADP, _group_substitution, _SUBSTITUTION,
             _prop_e5_delta),
)
"""Every published baseline otbound evaluates."""
