"""Rényi DP accounting: per-step RDP curves add up over steps, then one conversion to (ε, δ)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import AbstractSet, Sequence

import numpy as np

from otbound.accounting.conversion import (Converted, balle_delta, balle_epsilon, mironov_delta,
                                           mironov_epsilon, lower_values, optimal_deltas,
                                           optimal_epsilons)
from otbound.accounting.prefixes import Prefixes
from otbound.accounting.steps import Step, check_composable
from otbound.choices import Conversion
from otbound.errors import InvalidSpecification, Refusal
from otbound.numerics.allocation import EpochPair
from otbound.numerics.one_step import RenyiBranch, cases_log_psi
from otbound.numerics.renyi import check_orders
from otbound.numerics.three_point import ThreePointMaximum, certifying_orders
from otbound.numerics.three_point_formula import MAX_ORDER

DEFAULT_ORDERS = np.concatenate([[1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.08],
                                 1 + np.arange(1, 100) / 10, np.arange(11, 64),
                                 [64, 80, 96, 128, 192, 256, 384, 512, 1024]]).astype(float)
"""Orders used for accounting: close to dp_accounting's defaults, plus a few large ones, and a
few close to 1, which win where ε is large (a group of hundreds of records: 4914 instead of
23 million at K = 256, r = 0.01, σ = 1, T = 1000)."""


@dataclass(frozen=True, eq=False)
class RdpCurve:
    """``ε(α)`` at each order (upper bounds)."""

    orders: np.ndarray
    epsilons: np.ndarray

    def __post_init__(self) -> None:
        orders, epsilons = np.asarray(self.orders, float), np.asarray(self.epsilons, float)
        if orders.shape != epsilons.shape or np.any(orders <= 1):
            raise InvalidSpecification("an RDP curve needs one value per order > 1")
        object.__setattr__(self, "orders", orders)
        object.__setattr__(self, "epsilons", epsilons)

    def __mul__(self, steps: int) -> "RdpCurve":
        return RdpCurve(self.orders, self.epsilons * steps)

    def __add__(self, other: "RdpCurve") -> "RdpCurve":
        if not np.array_equal(self.orders, other.orders):
            raise InvalidSpecification("RDP curves must use the same orders to be composed")
        return RdpCurve(self.orders, self.epsilons + other.epsilons)


def step_curve(step: Step, orders=DEFAULT_ORDERS) -> RdpCurve:
    """One step's ``ε(α)``: the worst case of ``log Σ_b P(b) max_pairs Ψ_α / (α − 1)``."""
    return worst_curve(step_case_curves(step, orders))


def step_case_curves(step: Step, orders=DEFAULT_ORDERS) -> list[RdpCurve]:
    """One step's ``ε(α)`` in each of its cases."""
    orders = check_orders(orders)
    return [RdpCurve(orders, log_psi.upper / (orders - 1))
            for log_psi in cases_log_psi(step.cases, orders)]


def case_curves(steps: list[Step], orders=DEFAULT_ORDERS,
                prefixes: Prefixes | None = None) -> list[RdpCurve]:
    """Adaptive composition of heterogeneous steps in each case: ``Σ count · ε_step(α)``
    (Mironov 2017); a pair of datasets stays in one case for the whole run. The sums kept in
    ``prefixes`` are extended."""
    check_composable(steps)
    orders = check_orders(orders)
    prefixes = Prefixes() if prefixes is None else prefixes

    def repeated(step: Step) -> list[RdpCurve]:
        once = prefixes.once(step.cases, ("rdp", orders.tobytes()),
                             lambda: step_case_curves(step, orders))
        return [curve * step.count for curve in once]

    return prefixes.fold(("rdp", orders.tobytes()), steps, repeated,
                         lambda total, more: [a + b for a, b in zip(total, more)])


def curves_refusal(steps: list[Step], orders=DEFAULT_ORDERS) -> Refusal | None:
    """Why :func:`case_curves` cannot answer at ``orders``: the first refusal of a pair that
    can refuse (an epoch's pair: :meth:`~otbound.numerics.allocation.EpochPair.refusal`, whose
    series are then kept for the curves), once per distinct step; else ``None``."""
    orders = check_orders(orders)
    for step in {id(step.cases): step for step in steps}.values():
        for pair in (p for case in step.cases for _, pairs in case for p in pairs):
            if isinstance(pair, EpochPair) and (found := pair.refusal(orders)) is not None:
                return found
    return None


def compose_rdp(steps: list[Step], orders=DEFAULT_ORDERS) -> RdpCurve | Refusal:
    """The composed curve of the worst case at each order (:func:`case_curves`), or why the
    curves cannot be computed (:func:`curves_refusal`, asked first)."""
    if (refused := curves_refusal(steps, orders)) is not None:
        return refused
    return worst_curve(case_curves(steps, orders))


def worst_curve(curves: list[RdpCurve]) -> RdpCurve:
    """The largest ``ε(α)`` over the cases at each order."""
    return RdpCurve(curves[0].orders, np.max([curve.epsilons for curve in curves], axis=0))


CERTIFIABLE = frozenset(range(2, MAX_ORDER + 1))
"""The integer orders at which :func:`sharpened` can certify three-point maxima."""


def bounded_by(orders: np.ndarray, integers: AbstractSet[int]) -> np.ndarray:
    """Which ``orders`` a certificate at one of the ``integers`` ``n`` bounds: those in
    ``(n − 1, n]`` (ε(α) never decreases), and those ≤ 2 by ``n = 2``."""
    return np.isin(certifying_orders(orders), list(integers))


def sharpenable(steps: list[Step]) -> bool:
    """Whether any step has :attr:`~otbound.accounting.steps.Step.renyi_cases`."""
    return any(step.renyi_cases is not None for step in steps)


def sharpened(steps: list[Step], curve: RdpCurve, integers: AbstractSet[int],
              estimate: bool = False) -> RdpCurve | Refusal:
    """The composed ``curve`` made tighter at the orders the ``integers`` bound
    (:func:`bounded_by`) with the steps' :attr:`~otbound.accounting.steps.Step.renyi_cases`
    (001 Thm. 3.6's certified three-point maximum): each step counts the worst of its Rényi
    cases, or of its cases if it has none; the sum bounds the composed divergence as ``curve``
    does, so the smaller of the two is kept. Each three-point maximum is asked for its
    certificates first (:meth:`~otbound.numerics.three_point.ThreePointMaximum.refusal`): the
    first refused one is the answer, and the curve stays as it is. With ``estimate``, the
    maxima are only estimated from below (in milliseconds, not a bound): what sharpening could
    reach at most."""
    at = bounded_by(curve.orders, integers)
    orders = curve.orders[at]
    counted = [(step.count, _renyi_cases(step, estimate)) for step in steps]
    for _, cases in counted:
        if (refused := _refused_certificate(cases, orders)) is not None:
            return refused
    total = np.zeros(orders.size)
    for count, cases in counted:
        total += count * np.max([log_psi.upper for log_psi in cases_log_psi(cases, orders)],
                                axis=0) / (orders - 1)
    epsilons = curve.epsilons.copy()
    epsilons[at] = np.minimum(epsilons[at], total)
    return RdpCurve(curve.orders, epsilons)


def _renyi_cases(step: Step, estimate: bool) -> Sequence[Sequence[RenyiBranch]]:
    """The step's Rényi cases (its cases if it has none), each three-point maximum replaced by
    its estimate with ``estimate``."""
    cases: Sequence[Sequence[RenyiBranch]] = (step.cases if step.renyi_cases is None
                                         else step.renyi_cases)
    if not estimate:
        return cases
    return [[(weight, [p.estimated() if isinstance(p, ThreePointMaximum) else p
                       for p in pairs]) for weight, pairs in case] for case in cases]


def _refused_certificate(cases: Sequence[Sequence[RenyiBranch]],
                         orders: np.ndarray) -> Refusal | None:
    """The first refusal of a three-point maximum of the cases at ``orders``, if one refuses."""
    for case in cases:
        for _, pairs in case:
            for pair in pairs:
                if (isinstance(pair, ThreePointMaximum)
                        and (refused := pair.refusal(orders)) is not None):
                    return refused
    return None


def _vanishing(orders: np.ndarray, rhos: np.ndarray) -> float | None:
    """An order at which the curve is 0, if one is: ``D_α(P ‖ Q) = 0`` only if ``P = Q``, which
    is (0, 0)-DP (a step that never sees the record: sampling rate 0)."""
    zero = np.flatnonzero(rhos <= 0)
    return float(orders[zero[0]]) if zero.size else None


def _finite(curve: RdpCurve) -> tuple[np.ndarray, np.ndarray]:
    keep = np.isfinite(curve.epsilons)
    if not keep.any():
        raise InvalidSpecification("the RDP curve is infinite at every order")
    return curve.orders[keep], curve.epsilons[keep]


def rdp_epsilon(curve: RdpCurve, delta: float, conversion: Conversion) -> Converted:
    """The smallest ε over the orders for which the curve gives (ε, δ)-DP."""
    orders, rhos = _finite(curve)
    if (order := _vanishing(orders, rhos)) is not None:
        return Converted(0.0, delta, order)
    if conversion is Conversion.OPTIMAL:
        return _best_optimal(orders, rhos, delta, optimal_epsilons, balle_epsilon, "epsilon")
    convert = balle_epsilon if conversion is Conversion.BALLE2020 else mironov_epsilon
    return min((Converted(float(convert(a, r, delta)), delta, float(a))
                for a, r in zip(orders, rhos)), key=lambda c: c.epsilon)


def rdp_delta(curve: RdpCurve, epsilon: float, conversion: Conversion) -> Converted:
    """The smallest δ over the orders for which the curve gives (ε, δ)-DP."""
    orders, rhos = _finite(curve)
    if (order := _vanishing(orders, rhos)) is not None:
        return Converted(epsilon, 0.0, order)
    if conversion is Conversion.OPTIMAL:
        return _best_optimal(orders, rhos, epsilon, optimal_deltas, balle_delta, "delta")
    convert = balle_delta if conversion is Conversion.BALLE2020 else mironov_delta
    return min((Converted(epsilon, float(convert(a, r, epsilon)), float(a))
                for a, r in zip(orders, rhos)), key=lambda c: c.delta)


def _best_optimal(orders: np.ndarray, rhos: np.ndarray, target: float, optimal, balle,
                  solved: str) -> Converted:
    """The smallest value over the orders of the optimal conversion and of Balle et al.'s (a
    valid bound too, and the better one where the optimal value's safety margin exceeds its
    gain). The optimal search runs only at the orders whose cheap lower bound
    (:func:`~otbound.accounting.conversion.lower_values`) is below Balle et al.'s smallest
    value: no other order can win."""
    values = np.array([balle(a, r, target) for a, r in zip(orders, rhos)])
    enough = np.full(values.size, values.min() if solved == "epsilon"
                     else math.log(values.min()))
    enough[np.argmin(values)] = -np.inf   # tried whatever its lower bound
    lower = lower_values(orders, rhos, target, solve_for_epsilon=solved == "epsilon",
                         enough=enough)
    if solved == "delta":
        lower = np.exp(lower)
    tried = np.union1d(np.flatnonzero(lower < values.min()), [np.argmin(values)]).astype(int)
    candidates = []
    for found, value in zip(optimal(orders[tried], rhos[tried], target), values[tried]):
        if value < getattr(found, solved):
            found = replace(found, **{solved: float(value)})
        candidates.append(found)
    return min(candidates, key=lambda c: getattr(c, solved))
