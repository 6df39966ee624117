"""The certified branch-and-bound for 001 Thm. 3.6's three-point pattern (Gaussian): a rigorous
enclosure of the pattern's maximum over the means' Gram parameters ``(a, b)``, a proof by
computation for one ``(w, σ, α)`` (issue 14 item 4).

**Corner bound.** The formula (:mod:`otbound.numerics.three_point_formula`) increases in ``a``
and ``b`` and decreases in ``ρ``, so over a box ``[a₀, a₁] × [b₀, b₁]`` the maximum is at most
``Ψ(a₁, b₁, ρ₀)`` with ``ρ₀ = max(−a₁b₁, (a₀² + b₀² − 1)/2)``.

**Second-order box bound.** Every feasible ``ρ`` is ``≥ (a² + b² − 1)/2``, so no feasible
configuration exceeds ``G(a, b) = Ψ(a, b, (a² + b² − 1)/2)``, a smooth function of ``(a, b)``;
over a box, ``G ≤ G(p) + max(U(a₁ − p_a), L(a₀ − p_a)) + (likewise in b)`` for ``p`` in the
box and ``[L, U]`` an enclosure of the partial derivative over the box (mean value theorem;
:func:`~otbound.numerics.three_point_formula.surface_log_gradient` gives the derivatives). At
large σ ``G`` is nearly flat and the derivatives are small, so this bound is tight where the
corner bound is only first-order tight.

:func:`certify_triangle` runs a branch-and-bound over ``(a, b) ∈ [0, 1]²`` with the smaller of
these box bounds, each evaluated in ball arithmetic (:mod:`otbound.numerics.three_point_balls`):
its upper end bounds the maximum rigorously. The fast evaluation guides the partition, and the
numerical search (:mod:`otbound.numerics.three_point_search`) may supply a better witness.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from otbound.numerics.three_point_balls import surface_gradient_ball, triangle_log_psi_ball
from otbound.numerics.three_point_formula import (EQUILATERAL, REMOVAL, Triangle, _check_order,
                                                  surface_rho, triangle_log_psi)
from otbound.numerics.three_point_search import search_triangles


@dataclass(frozen=True)
class TriangleCertificate:
    """A rigorous enclosure of ``max log Ψ_α`` over the three-point pattern at ``(w, α, σ)``:
    the maximum is attained-or-exceeded by ``witness`` (so ``≥ low``), and no configuration
    exceeds ``high`` (every leaf box of the partition of ``[0, 1]²`` bounded rigorously)."""

    w: Fraction
    alpha: int
    sigma: float
    low: float
    high: float
    witness: Triangle
    boxes: int

    @property
    def epsilon(self) -> tuple[float, float]:
        """The enclosure of ``ε(α) = log Ψ/(α − 1)``, rounded outwards."""
        scale = self.alpha - 1
        return (math.nextafter(self.low / scale, -math.inf),
                math.nextafter(self.high / scale, math.inf))


@dataclass(frozen=True, order=True)
class _Box:
    a0: float
    a1: float
    b0: float
    b1: float

    def corner(self) -> Triangle:
        """The (generally infeasible) point whose formula value bounds the whole box (``ρ₀``
        rounded down past its floating-point error: the formula decreases in ``ρ``)."""
        return Triangle(self.a1, self.b1, max(-self.a1 * self.b1,
                                              (self.a0 ** 2 + self.b0 ** 2 - 1) / 2) - 2.0 ** -48)

    def halves(self) -> list["_Box"]:
        if self.a1 - self.a0 >= self.b1 - self.b0:
            m = (self.a0 + self.a1) / 2
            return [_Box(self.a0, m, self.b0, self.b1), _Box(m, self.a1, self.b0, self.b1)]
        m = (self.b0 + self.b1) / 2
        return [_Box(self.a0, self.a1, self.b0, m), _Box(self.a0, self.a1, m, self.b1)]


TOLERANCES = ((1e-4, 3000), (1e-3, 3000), (1e-2, 6000))
"""``(relative tolerance on log Ψ, box budget)`` tried in turn. At large σ the maximum is nearly
flat along the constraint ``|μ₂ − μ₄| = 1``, where the corner bound is only first-order tight;
with the mean-value bound (and gradient enclosures that stay finite on wide boxes) 1e-4 closes
there too (q/N = 256/60000, σ = 1–4: ≤ 110 boxes), but 1e-3 and 1e-2 stay as fallbacks (e.g.
q/N near 1 at small σ, where neither bound is tight)."""


def certify_triangle(w: Fraction, alpha: int, sigma: float,
                     tolerances=TOLERANCES) -> TriangleCertificate:
    """Branch-and-bound over ``(a, b)`` for 001 Thm. 3.6's pattern: boxes are split (guided by
    the fast evaluation) until each box's bound is within the tolerance (relative, on ``log Ψ``)
    of the best feasible value; then every leaf's bound is recomputed in ball arithmetic (split
    further where that fails). A box's bound is the corner bound, or where that is above the
    margin, the smaller of it and the mean-value bound (:func:`_mean_value_plan`).
    Each ``(tolerance, budget)`` of ``tolerances`` is tried in turn until the guided partition
    fits its budget. The lower end is the better of the equilateral and removal configurations
    (the maximisers wherever this was measured); where the first partition does not fit, the
    numerical search's best joins them and, if it is better, that tolerance is tried again.
    Returns the certified enclosure; raises ``RuntimeError`` when none fits, or when the ball
    phase exceeds the budget."""
    w = Fraction(w)
    order = _check_order(alpha)
    lows = {t: triangle_log_psi_ball(t, w, order, sigma)[0] for t in (EQUILATERAL, REMOVAL)}
    witness = max(lows, key=lambda t: lows[t])
    low = lows[witness]
    bounds = _BoxBounds(w, order, sigma)
    attempts, searched = list(tolerances), False
    while attempts:
        tolerance, max_boxes = attempts.pop(0)
        target = low + tolerance * abs(low)
        margin, resolution = (low + target) / 2, (target - low) / 8
        # _partition calls the guide before it returns and keeps no reference to it
        leaves = _partition(lambda box: bounds.guide(box, margin, resolution),  # noqa: B023
                            margin, max_boxes, bounds.split)
        if leaves is not None:
            break
        if not searched:
            searched = True
            found = search_triangles(float(w), order, sigma, starts=4).best
            if found.feasible(slack=0.0):
                value = triangle_log_psi_ball(found, w, order, sigma)[0]
                if value > low:
                    witness, low = found, value
                    attempts.insert(0, (tolerance, max_boxes))
    else:
        raise RuntimeError(f"certification did not close within {max_boxes} boxes")
    high, count, pending = -math.inf, 0, list(leaves)
    while pending:
        box = pending.pop()
        count += 1
        bound = bounds.rigorous(box, margin)
        if bound > target and count < max_boxes:
            pending.extend(bounds.split(box))
            continue
        high = max(high, bound)
    if count >= max_boxes:
        raise RuntimeError(f"certification did not close within {max_boxes} boxes")
    return TriangleCertificate(w, order, sigma, low, max(high, low), witness, count)


class _BoxBounds:
    """The box bounds of :func:`certify_triangle` at one ``(w, α, σ)``: the corner bound, and
    the mean-value bound (:func:`_mean_value_plan`), whose gradient enclosures are remembered
    per box and inherited by the boxes split from it (an enclosure over a box holds over its
    halves: a box first tries its nearest ancestor's, and pays for its own only where that does
    not reach the margin). Which bound closed a box in the guide is tried first in the ball
    phase."""

    def __init__(self, w: Fraction, order: int, sigma: float):
        self.w, self.order, self.sigma = w, order, sigma
        self.plans: dict[_Box, tuple[Triangle, float, float]] = {}
        self.slopes: dict[_Box, tuple[Any, Any, float]] = {}
        self.parents: dict[_Box, _Box] = {}
        self.by_slope: set[_Box] = set()
        self.too_wide = math.inf   # the shortest longer side of a box whose enclosure failed

    def split(self, box: _Box) -> list[_Box]:
        halves = box.halves()
        self.parents.update((half, box) for half in halves)
        return halves

    def guide(self, box: _Box, margin: float, resolution: float) -> float:
        """The fast bound steering the partition (upper ends of the fast evaluation)."""
        def value(point: Triangle) -> float:
            return _guide(point, self.w, self.order, self.sigma, resolution)

        bound = value(box.corner())
        if bound <= margin:
            return bound
        slope = self.mean_value(box, value, _lift, margin)
        if slope < bound:
            self.by_slope.add(box)
        return min(bound, slope)

    def rigorous(self, box: _Box, margin: float) -> float:
        """The box's rigorous bound: the one that closed it in the guide first, the other
        only where that one is above the margin (as tight as the guide: the certificate's
        width ≈ margin)."""
        def value(point: Triangle) -> float:
            return triangle_log_psi_ball(point, self.w, self.order, self.sigma,
                                         _LEAF_ACCURACY)[1]

        first, second = (lambda: value(box.corner()),
                         lambda: self.mean_value(box, value, _lift_ball, margin))
        if box in self.by_slope:
            first, second = second, first
        bound = first()
        return bound if bound <= margin else min(bound, second())

    def mean_value(self, box: _Box, value: Callable[[Triangle], float],
                   lift: Callable[[float, float, float], float], margin: float) -> float:
        """The mean-value bound on ``log Ψ`` over ``box`` (``value``: ``log`` of the formula at
        a point, and ``lift``, fast or rigorous), or ``inf`` (not tried on boxes as wide as one
        where the enclosure failed: a saving only)."""
        if box in self.plans:
            return self._lifted(box, value, lift)
        inherited = self._inherited(box)
        if inherited is not None:
            self.plans[box] = _mean_value_plan(box, self.w, self.order, self.sigma, inherited)
            bound = self._lifted(box, value, lift)
            if bound <= margin:
                return bound
        side = max(box.a1 - box.a0, box.b1 - box.b0)
        if side >= self.too_wide:
            return self._lifted(box, value, lift) if inherited is not None else math.inf
        self.slopes[box] = _box_slopes(box, self.w, self.order, self.sigma)
        self.plans[box] = _mean_value_plan(box, self.w, self.order, self.sigma,
                                           self.slopes[box])
        if not math.isfinite(self.plans[box][1]):
            self.too_wide = min(self.too_wide, side)
        return self._lifted(box, value, lift)

    def _inherited(self, box: _Box) -> tuple[Any, Any, float] | None:
        """The gradient enclosures of the nearest ancestor that has its own."""
        while box in self.parents:
            box = self.parents[box]
            if box in self.slopes:
                return self.slopes[box]
        return None

    def _lifted(self, box: _Box, value: Callable[[Triangle], float],
                lift: Callable[[float, float, float], float]) -> float:
        point, slack, scale = self.plans[box]
        return lift(value(point), slack, scale) if math.isfinite(slack) else math.inf


_LEAF_ACCURACY = 24
"""The leaves' enclosures are asked for ``2⁻²⁴`` of ``log Ψ``, far inside the tolerance
(``10⁻³``); the certificate's lower end (its witness) for ``2⁻⁴⁵``."""


def _guide(point: Triangle, w: Fraction, order: int, sigma: float, resolution: float) -> float:
    """``log`` of the formula at ``point``, by the fast evaluation unless its error estimate
    exceeds ``resolution`` (tiny rates: ``log Ψ ≈ w²``), then by the ball one (upper ends)."""
    value, error = triangle_log_psi(point, float(w), order, sigma)
    if error <= resolution:
        return value + error
    return triangle_log_psi_ball(point, w, order, sigma)[1]


def _box_slopes(box: _Box, w: Fraction, order: int, sigma: float) -> tuple[Any, Any, float]:
    """Enclosures of ``e^{−scale} ∂_a G`` and ``e^{−scale} ∂_b G`` over ``box``
    (:func:`surface_gradient_ball`), and ``scale`` (``log G`` at its upper corner, a
    normalisation only); they hold over every box inside this one too."""
    corner = Triangle(box.a1, box.b1, surface_rho(box.a1, box.b1))
    scale, _ = triangle_log_psi(corner, float(w), order, sigma)
    slope_a, slope_b = surface_gradient_ball((box.a0, box.a1), (box.b0, box.b1), w, order,
                                             sigma, scale)
    return slope_a, slope_b, scale


def _mean_value_plan(box: _Box, w: Fraction, order: int, sigma: float,
                     slopes: tuple[Any, Any, float] | None = None) -> tuple[Triangle, float, float]:
    """The second-order (mean-value) box bound's ingredients ``(point, slack, scale)``: no
    feasible configuration in ``box`` exceeds ``G(p) + e^{scale} slack``, with ``point`` the
    surface point ``p`` (:func:`surface_rho`) and ``slack`` a double rounded up; ``slopes`` are
    :func:`_box_slopes` of this box or of one containing it (computed when not given).

    Lemma (001 Thm. 3.6's pattern, Gaussian). ``G(a, b) = Ψ(a, b, (a² + b² − 1)/2)``, the
    formula on the surface ``|μ₂ − μ₄| = 1``, is defined and smooth for all real ``a, b``, and
    every feasible ``ρ`` is ``≥ (a² + b² − 1)/2``; as the formula decreases in ``ρ``, no feasible
    configuration with lengths ``(a, b)`` exceeds ``G(a, b)``, in any box (inside
    ``a + b ≥ 1`` this is the worst case itself; below, ``G`` only overestimates). By the mean
    value theorem, for ``x`` in the box and ``p`` in it, ``G(x) − G(p) = ∇G(ξ)·(x − p)``
    with ``ξ`` in the box, so with ``∂_a G ∈ [L, U]`` over the box,
    ``∂_a G(ξ)(x_a − p_a) ≤ max(U (a₁ − p_a), L (a₀ − p_a))`` (likewise in ``b``).
    ``p_a`` minimises that: ``a₁`` when ``L ≥ 0`` (no slack: ``G`` increases), ``a₀`` when
    ``U ≤ 0``, else where the two terms are equal. ``[L, U]`` is enclosed by
    :func:`surface_gradient_ball`."""
    slope_a, slope_b, scale = slopes or _box_slopes(box, w, order, sigma)
    point_a, slack_a = _best_point(box.a0, box.a1, slope_a)
    point_b, slack_b = _best_point(box.b0, box.b1, slope_b)
    slack = math.nextafter(slack_a + slack_b, math.inf)
    return Triangle(point_a, point_b, surface_rho(point_a, point_b)), slack, scale


def _best_point(low_end: float, high_end: float, slope: Any) -> tuple[float, float]:
    """``p`` in ``[low_end, high_end]`` and an upper bound (double) of
    ``max(U (high_end − p), L (low_end − p))`` for the enclosure ``slope ∋ [L, U]``."""
    from flint import arb

    low = math.nextafter(float(slope.lower()), -math.inf)
    high = math.nextafter(float(slope.upper()), math.inf)
    if not (math.isfinite(low) and math.isfinite(high)):
        return high_end, math.inf
    if low >= 0:
        point = high_end
    elif high <= 0:
        point = low_end
    else:
        point = min(max((high * high_end - low * low_end) / (high - low), low_end), high_end)
    terms = (arb(high) * (arb(high_end) - arb(point)), arb(low) * (arb(low_end) - arb(point)))
    return point, max(math.nextafter(float(t.upper()), math.inf) for t in terms)


def _lift(log_value: float, slack: float, scale: float) -> float:
    """``log(e^{log_value} + e^{scale} slack)`` (the fast guide)."""
    return log_value + math.log1p(slack * math.exp(scale - log_value))


def _lift_ball(log_value: float, slack: float, scale: float) -> float:
    """``log(e^{log_value} + e^{scale} slack)`` in ball arithmetic, rounded up."""
    from flint import arb

    if not math.isfinite(slack):
        return math.inf
    value = arb(log_value) + (arb(slack) * (arb(scale) - arb(log_value)).exp()).log1p()
    return math.nextafter(float(value.upper()), math.inf)


def _partition(bound, margin: float, max_boxes: int, split=_Box.halves) -> list[_Box] | None:
    """Leaves of a bisection of ``[0, 1]²`` (``split``) whose (fast) bounds are below
    ``margin``, splitting the worst box first (a heuristic guide: every leaf is checked
    rigorously); ``None`` when that needs more than ``max_boxes`` boxes."""
    heap = [(-bound(_Box(0.0, 1.0, 0.0, 1.0)), _Box(0.0, 1.0, 0.0, 1.0))]
    done: list[_Box] = []
    while heap:
        if len(heap) + len(done) >= max_boxes:
            return None
        value, box = heapq.heappop(heap)
        if -value <= margin:
            done.append(box)
            continue
        for half in split(box):
            heapq.heappush(heap, (-bound(half), half))
    return done

