"""Rigorous enclosures of the formula of 001 Thm. 3.6's three-point pattern (Gaussian,
:mod:`otbound.numerics.three_point_formula`) and of its gradient on the constraint surface, in
ball arithmetic (python-flint's arb; issue 14 item 4).

:func:`triangle_log_psi_ball` encloses ``log Ψ`` at one configuration, and
:func:`surface_gradient_ball` the partial derivatives of ``G(a, b) = Ψ(a, b, (a² + b² − 1)/2)``
over a whole box, with ``a, b`` as balls spanning it. Both integrate by the strip trapezoid rule
of :mod:`otbound.numerics.strip_trapezoid` with its certified error, or by ``acb.integral`` where
that grid would be too long; terms too small to matter are left out and bounded
(:func:`_significant`). The certified branch-and-bound
(:mod:`otbound.numerics.three_point_certificate`) bounds its boxes with them.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from otbound.numerics import strip_trapezoid
from otbound.numerics.three_point_formula import Triangle, _check_order, triangle_log_psi


def triangle_log_psi_ball(triangle: Triangle, w: Fraction, alpha: int, sigma: float,
                          accuracy: int = 45) -> tuple[float, float]:
    """A rigorous enclosure ``[low, high]`` of ``log`` of the formula at ``triangle`` (any
    real ``a, b ≥ 0`` and ``ρ``; feasibility is not needed for the value), as doubles rounded
    outwards, about ``2^{−accuracy}`` of ``log Ψ`` wide."""
    from flint import arb, ctx

    order = _check_order(alpha)
    scale, _ = triangle_log_psi(triangle, float(w), order, sigma)   # magnitude only
    # relative to log Ψ however small it is (Ψ − 1 ≈ w² at tiny rates)
    bits = accuracy + max(0, math.ceil(-math.log2(max(abs(scale), 1e-300))))
    old, ctx.prec = ctx.prec, bits + 40
    try:
        s = arb(sigma)
        a, b, rho = arb(triangle.a) / s, arb(triangle.b) / s, arb(triangle.rho) / (s * s)
        w_ball = arb(w.numerator) / w.denominator
        rest = 1 - w_ball
        coefficients = [arb(math.comb(order, k)) * rest ** (order - k) * w_ball ** k
                        * ((k * k - k) * a * a / 2 - arb(scale)).exp()
                        for k in range(order + 1)]
        shifts = [(k * rho - b * b / 2).exp() * w_ball for k in range(order + 1)]
        ceiling = rest ** (1 - order)   # h ≤ (1 − w)^{1−α}: term k is at most c_k times it
        total = sum(coefficients, arb(0)) * ceiling
        kept, dropped = _significant(coefficients, [ceiling] * (order + 1), bits)
        terms = [(coefficients[k], shifts[k]) for k in kept]
        grid = strip_trapezoid.plan(order, float(b.upper()), float(total.log().upper()),
                                    -bits * math.log(2), _TERM_EVALUATIONS // max(len(kept), 1))
        if grid is not None:
            inner = _trapezoid_value(grid, terms, b, rest, order)
        else:
            inner = _adaptive_value(terms, b, rest, order, total, bits)
        enclosure = (inner + arb(0).union(dropped)).log() + scale
        low, high = float(enclosure.lower()), float(enclosure.upper())
        if not (math.isfinite(low) and math.isfinite(high)):
            return -math.inf, math.inf   # no enclosure (NaN would compare as a bound)
        return math.nextafter(low, -math.inf), math.nextafter(high, math.inf)
    finally:
        ctx.prec = old


_TERM_EVALUATIONS = 60000
"""The most ``(node, term)`` evaluations a trapezoid grid may take; where it would need more
(large orders with terms whose mass lies far out), ``acb.integral`` is used instead."""


def _trapezoid_value(grid: strip_trapezoid.Grid, terms: list, b: Any, rest: Any,
                     order: int) -> Any:
    """``Σ_k c_k E_z[(1 − w + v_k e^{bz})^{1−α}]`` for ``terms = [(c_k, v_k)]`` (positive balls)
    by the strip trapezoid rule, with its certified error (:mod:`strip_trapezoid`): the
    discretisation error is at most ``κ`` times the integral (``M ≤ e^{d²/2} C^{α−1} ∫``), the
    right tail at most the last node's value (the terms decrease in ``z``) and the left one at
    most the terms' ceiling ``c_k (1 − w)^{1−α}``, each times the Gaussian tail."""
    from flint import arb

    power, total, last = 1 - order, arb(0), arb(0)
    for z, weight in grid.nodes():
        grow = (b * z).exp()
        last = sum((c * (rest + v * grow) ** power for c, v in terms), arb(0))
        total += weight * last
    ceiling = sum((c for c, _ in terms), arb(0)) * rest ** power
    full = total + arb(0).union((last + ceiling) * grid.tail())
    kappa = grid.relative_error(grid.growth(order, b)[0])
    if not kappa < 1:   # a grid too coarse for its strip (never planned): no upper bound
        return arb(0, math.inf)
    return (full / (1 + kappa)).union(full / (1 - kappa))


def _adaptive_value(terms: list, b: Any, rest: Any, order: int, total: Any, bits: int) -> Any:
    """The same integral by ``acb.integral`` on ``[−L, L]`` plus the Gaussian tail beyond,
    bounded with the ceiling ``total`` of the integrand."""
    from flint import acb, arb

    reach = math.sqrt(2 * (max(float(total.log().upper()), 0.0) + 2 * bits)) + 1
    norm = 1 / (2 * arb.pi()).sqrt()

    def integrand(z, _analytic):
        grow = (acb(b) * z).exp()
        value = sum((c * (rest + v * grow) ** (1 - order) for c, v in terms), acb(0))
        return value * (-z * z / 2).exp() * norm

    inner = acb.integral(integrand, -reach, reach, rel_tol=arb(2) ** -bits,
                         abs_tol=arb(2) ** -(bits + 20)).real
    return inner + arb(0).union(total * (arb(reach) / arb(2).sqrt()).erfc())


def _significant(coefficients: list, ceilings: list, bits: int) -> tuple[list[int], Any]:
    """The terms worth integrating, and an upper bound on the others' total: term ``k``'s
    integral is at most ``coefficients[k] · ceilings[k]`` (the integrand's supremum; the
    Gaussian weight integrates to 1); terms whose bound is below ``2^{−bits−10}/(α + 1)`` of
    the scale (the coefficients are in its units) are left out and their bounds summed."""
    from flint import arb

    cut = arb(2) ** -(bits + 10) / len(coefficients)
    bounds = [abs(c) * m for c, m in zip(coefficients, ceilings)]
    small = [bound < cut for bound in bounds]   # arb's <: only where it is certain
    kept = [k for k, is_small in enumerate(small) if not is_small]
    return kept, sum((bound for bound, is_small in zip(bounds, small) if is_small), arb(0))


# --- the gradient on the constraint surface -------------------------------------------------

_SLOPE_EVALUATIONS = 2000
"""``acb.integral``'s evaluation limit for the gradient enclosures where it is used (grids too
long for the trapezoid rule): on boxes too wide for ball parameters (their enclosures blow up)
it gives up early with a non-finite ball (no bound)."""
_SLOPE_BITS = 4
"""The relative tolerance ``2^{−bits}`` asked of ``acb.integral`` there: a slope only
multiplies a box's width in the mean-value bound, so a few bits do, and asking for more makes
it give up on the wide boxes where the parameter balls' own width exceeds it."""
_SLOPE_ACCURACY = 10
"""The slopes' absolute tolerance, ``2^{−10} |log G|`` (in units of ``e^{scale}``), in either
route (4 bits more or fewer changed no box count at q/N = 256/60000)."""


def surface_gradient_ball(a: tuple[float, float], b: tuple[float, float], w: Fraction,
                          alpha: int, sigma: float, scale: float) -> tuple[Any, Any]:
    """Rigorous enclosures (arb balls) of ``e^{−scale} ∂_a G`` and ``e^{−scale} ∂_b G``
    (:func:`surface_log_gradient`'s formulas, units of the sensitivity) over the whole box
    ``[a₀, a₁] × [b₀, b₁]``: the integrands are evaluated with ``a, b`` as balls spanning the box
    (the strip trapezoid rule, :func:`_trapezoid_slopes`, or where its grid would be too long,
    ``acb.integral``, :func:`_adaptive_slopes`; both rigorous for ball parameters). Terms are
    left out as in :func:`_significant`, with the bound ``c_k (1 − w)^{1−α} (k + α)(k + α − 1)``
    on either integrand (as ``r ∈ [0, 1]``, ``1 − w + w e^u ≥ 1 − w``)."""
    from flint import arb, ctx

    order = _check_order(alpha)
    magnitude = max(0, math.ceil(-math.log2(max(abs(scale), 1e-300))))
    bits = 45 + magnitude
    old, ctx.prec = ctx.prec, bits + 40
    try:
        s = arb(sigma)
        big_a = (arb(a[0]) / s).union(arb(a[1]) / s)
        big_b = (arb(b[0]) / s).union(arb(b[1]) / s)
        square_a, square_b, gap = big_a * big_a, big_b * big_b, 1 / (s * s)
        w_ball = arb(w.numerator) / w.denominator
        rest = 1 - w_ball
        coefficients = [arb(math.comb(order, k)) * rest ** (order - k) * w_ball ** k
                        * ((k * k - k) * square_a / 2 - arb(scale)).exp()
                        for k in range(order + 1)]
        # w e^{kρ − b²/2} with ρ = (a² + b² − σ⁻²)/2, written with b² once
        shifts = [w_ball * ((k * (square_a - gap) + (k - 1) * square_b) / 2).exp()
                  for k in range(order + 1)]
        ceiling = rest ** (1 - order)
        # term k of either integrand is at most c_k (1 − w)^{1−α} (k (k + α) + (k + α)(α − 1))
        kept, dropped = _significant(
            coefficients, [ceiling * (k + order) * (k + order - 1) for k in range(order + 1)],
            magnitude + _SLOPE_ACCURACY)
        terms = [(k, coefficients[k], shifts[k]) for k in kept]
        weights = [(k + order) * (k + order - 1) for k, _, _ in terms]
        most = sum((c * m for (_, c, _), m in zip(terms, weights)), arb(0)) * ceiling
        grid = strip_trapezoid.plan(order, float(big_b.upper()), float(most.log().upper()),
                                    -(magnitude + _SLOPE_ACCURACY) * math.log(2)
                                    - math.log(max(weights, default=1)),
                                    _TERM_EVALUATIONS // max(len(terms), 1))
        if grid is None:
            inner_a, inner_b = _adaptive_slopes(terms, big_b, rest, order, magnitude, bits)
        else:
            inner_a, inner_b = _trapezoid_slopes(grid, terms, big_b, rest, order)
        spread = (-dropped).union(dropped)
        return big_a / s * (inner_a + spread), big_b / s * (inner_b + spread)
    finally:
        ctx.prec = old


def _trapezoid_slopes(grid: strip_trapezoid.Grid, terms: list, b: Any, rest: Any,
                      order: int) -> tuple[Any, Any]:
    """The two slope integrals by the strip trapezoid rule (:mod:`strip_trapezoid`) with ``b``
    a ball: the node values enclose the integrands for every parameter in the box, and the
    error bounds hold for each. In the strip ``|c_k h(u_k)| ≤ C^{α−1}`` times its real-line
    value and ``|r| ≤ C``, so term ``k``'s ``M`` is ``e^{d²/2} C^{α−1}`` times
    ``k((k − 1) + (α − 1)C)`` (``a``) or ``C(k(α − 1) + α(α − 1)C)`` (``b``) times
    ``I_k = c_k E[h(u_k)]``, itself bounded by the same grid's value sums; on the real line
    ``r ∈ [0, 1]`` bounds the integrands by ``k(k + α − 2)`` and ``(α − 1)(k + α)`` times
    ``c_k h(u_k)`` for the tails."""
    from flint import arb

    power, zero = 1 - order, arb(0)
    sums, last = [zero] * len(terms), [zero] * len(terms)
    slope_a, slope_b = zero, zero
    for z, weight in grid.nodes():
        grow = (b * z).exp()
        for i, (k, c, v) in enumerate(terms):
            # (1 − w + s)^{1−α} decreases and r = s/(1 − w + s) increases in s = v e^{bz}:
            # enclosed from the ends of s's ball (on the ball itself, midpoint-radius
            # arithmetic loses the sign of 1 − w + s on wide boxes)
            shifted = v * grow
            low, high = shifted.lower(), shifted.upper()
            if not low > 0:
                low = zero
            near, far = rest + low, rest + high
            h = c * (far ** power).union(near ** power)
            r = (low / near).union(high / far)
            slope_a += weight * (k * h * ((k - 1) + power * r))
            slope_b += weight * (h * r * (k * power + order * (order - 1) * r))
            sums[i] += weight * h
            last[i] = h
    tail = grid.tail()
    growth, c_strip = grid.growth(order, b)
    kappa = grid.relative_error(growth)
    if not kappa < 1:   # a grid too coarse for its strip (never planned): no enclosure
        return arb(0, math.inf), arb(0, math.inf)
    ceiling = rest ** power
    error_a, error_b = arb(0), arb(0)
    for (k, c, _), total, end in zip(terms, sums, last):
        ends = (end + c * ceiling) * tail   # both truncated tails of c_k E[h(u_k)]
        integral = arb((total + ends).upper()) / (1 - kappa)
        error_a += kappa * k * ((k - 1) + (order - 1) * c_strip) * integral \
            + k * (k + order - 2) * ends
        error_b += kappa * c_strip * (k * (order - 1) + order * (order - 1) * c_strip) \
            * integral + (order - 1) * (k + order) * ends
    return (slope_a + (-error_a).union(error_a), slope_b + (-error_b).union(error_b))


def _adaptive_slopes(terms: list, b: Any, rest: Any, order: int, magnitude: int,
                     bits: int) -> tuple[Any, Any]:
    """The two slope integrals by ``acb.integral`` on ``[−L, L]`` (giving up early on boxes
    too wide for ball parameters: a non-finite ball) plus the Gaussian tails beyond, bounded
    with ``h ≤ (1 − w)^{1−α}``, ``|h'| ≤ (α − 1)(1 − w)^{1−α}``, ``r² h ≤ (1 − w)^{1−α}``."""
    from flint import acb, arb

    norm = 1 / (2 * arb.pi()).sqrt()
    ceiling = rest ** (1 - order)
    most_a = sum((c * k * (k + order) for k, c, _ in terms), arb(0)) * ceiling
    most_b = sum((c * (k + order) * (order - 1) for k, c, _ in terms), arb(0)) * ceiling
    reach = math.sqrt(2 * (max(float((most_a + most_b).log().upper()), 0.0) + 2 * bits)) + 1
    tail = (arb(reach) / arb(2).sqrt()).erfc()

    def integrand(z, _analytic):
        """The ``a`` integrand plus ``i`` times the ``b`` integrand: both are real on the
        real line, so one integral gives both as its real and imaginary parts."""
        grow = (acb(b) * z).exp()
        slope_a, slope_b = acb(0), acb(0)
        for k, c, v in terms:
            shifted = v * grow
            base = rest + shifted
            h, r = c * base ** (1 - order), shifted / base
            slope_a += k * h * ((k - 1) + (1 - order) * r)
            slope_b += h * r * (k * (1 - order) + order * (order - 1) * r)
        return (slope_a + acb(0, 1) * slope_b) * (-z * z / 2).exp() * norm

    inner = acb.integral(integrand, -reach, reach, rel_tol=arb(2) ** -_SLOPE_BITS,
                         abs_tol=arb(2) ** -(magnitude + _SLOPE_ACCURACY),
                         eval_limit=_SLOPE_EVALUATIONS)
    spread_a, spread_b = most_a * tail, most_b * tail
    return (inner.real + (-spread_a).union(spread_a), inner.imag + (-spread_b).union(spread_b))
