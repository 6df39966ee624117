"""The certified strip trapezoid rule (Trefethen & Weideman 2014, Thm. 5.1) behind the
three-point solver's ball evaluations (issue 26): its strip lemma, its enclosures against an
independent mpmath quadrature on coarse grids (where the error bound is what keeps the value
inside), and against the adaptive ``acb.integral`` route it replaces."""

import math
import random
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, strategies as st

from otbound.numerics import strip_trapezoid
from otbound.numerics import three_point_balls as tp_balls
from otbound.numerics import three_point_formula as tp_formula


@given(st.floats(0.001, 0.999), st.floats(0.0, 50.0), st.floats(-3.1, 3.1))
def test_the_strip_lemma_holds(w, t, theta):
    """``|1 − w + t e^{iθ}| ≥ (1 − w + t) cos(θ/2)`` for ``|θ| < π`` (the module's bound on the
    integrand's growth off the real line), in 50-digit arithmetic."""
    with mpmath.workdps(50):
        w, t, theta = mpmath.mpf(w), mpmath.mpf(t), mpmath.mpf(theta)
        assert abs(1 - w + t * mpmath.expj(theta)) >= (1 - w + t) * mpmath.cos(theta / 2)


def _reference(terms, beta: float, w: Fraction, order: int) -> float:
    """``Σ c E[(1 − w + v e^{βZ})^{1−α}]`` by mpmath's adaptive quadrature at 40 digits
    (rounded to a double: the enclosures checked are wider than its rounding)."""
    with mpmath.workdps(40):
        rest = 1 - mpmath.mpf(w.numerator) / w.denominator

        def integrand(z):
            return mpmath.npdf(z) * sum(mpmath.mpf(c) * (rest + mpmath.mpf(v)
                                                         * mpmath.exp(beta * z)) ** (1 - order)
                                        for c, v in terms)
        return float(mpmath.quad(integrand, [-mpmath.inf, -3, 0, 3, mpmath.inf]))


def _value(terms, beta: float, w: Fraction, order: int, grid):
    from flint import arb

    rest = 1 - arb(w.numerator) / w.denominator
    balls = [(arb(c), arb(v)) for c, v in terms]
    return tp_balls._trapezoid_value(grid, balls, arb(beta), rest, order)


def _ends(ball) -> tuple[float, float]:
    """The ball's ends as doubles rounded outwards."""
    return (math.nextafter(float(ball.lower()), -math.inf),
            math.nextafter(float(ball.upper()), math.inf))


CASES = [([(1.0, 0.004), (0.3, 0.02)], 1.0, Fraction(1, 250), 8),
         ([(1.0, 0.01), (2.0, 0.5)], 0.5, Fraction(1, 10), 3),
         ([(0.5, 1.5)], 2.0, Fraction(1, 100), 32)]


@pytest.mark.parametrize("terms, beta, w, order", CASES)
@pytest.mark.parametrize("coarsening", [1, 2, 3])
def test_enclosures_hold_the_reference_on_coarse_grids(terms, beta, w, order, coarsening):
    """On the planned grid and on grids 2× and 3× coarser (fewer nodes, same reach): the
    enclosure holds the reference on both sides; on the planned grid it is narrow."""
    from flint import ctx

    old, ctx.prec = ctx.prec, 120
    try:
        grid = strip_trapezoid.plan(order, beta, 2.0, -40 * math.log(2), 10 ** 5)
        coarse = strip_trapezoid.Grid(grid.step * coarsening, grid.count // coarsening,
                                      grid.strip)
        ball = _value(terms, beta, w, order, coarse)
        reference = _reference(terms, beta, w, order)
        low, high = _ends(ball)
        assert low <= reference <= high
        if coarsening == 1:
            assert high - low <= 1e-11 * reference
    finally:
        ctx.prec = old


def test_a_grid_without_its_error_bound_misses_the_reference(monkeypatch):
    """The check can fail: with the discretisation bound set to 0, the coarse grid's
    enclosure no longer holds the reference."""
    from flint import arb, ctx

    monkeypatch.setattr(strip_trapezoid.Grid, "relative_error", lambda self, bound: arb(0))
    terms, beta, w, order = CASES[0]
    old, ctx.prec = ctx.prec, 120
    try:
        coarse = strip_trapezoid.Grid(1.6, 8, 2.0)
        ball = _value(terms, beta, w, order, coarse)
        reference = _reference(terms, beta, w, order)
        low, high = _ends(ball)
        assert not low <= reference <= high
    finally:
        ctx.prec = old


def test_a_grid_too_long_for_its_budget_is_not_planned():
    assert strip_trapezoid.plan(256, 1.0, 3000.0, -40.0, 1000) is None
    assert strip_trapezoid.plan(8, 1.0, 2.0, -40.0, 1000) is not None
    assert strip_trapezoid.plan(8, math.inf, 2.0, -40.0, 1000) is None


def test_a_grid_too_coarse_for_its_strip_gives_no_bound():
    """``κ ≥ 1`` (never planned): the value has no upper bound, and the evaluator says so
    with infinite ends rather than a NaN that would compare as a bound."""
    from flint import ctx

    terms, beta, w, order = CASES[0]
    old, ctx.prec = ctx.prec, 120
    try:
        ball = _value(terms, beta, w, order, strip_trapezoid.Grid(1.6, 5, 2.6))
        assert not ball.is_finite()
    finally:
        ctx.prec = old


def _configurations(count: int):
    rng = random.Random(7)
    for _ in range(count):
        a, b = rng.random(), rng.random()
        yield tp_formula.Triangle(a, b, rng.uniform(max(-a * b, (a * a + b * b - 1) / 2), a * b))


@pytest.mark.parametrize("w, sigma, alpha", [(Fraction(256, 60000), 1.0, 8),
                                             (Fraction(1, 100), 0.5, 32),
                                             (Fraction(1, 10), 5.0, 128)])
def test_trapezoid_and_adaptive_enclosures_agree(w, sigma, alpha, monkeypatch):
    """The trapezoid enclosure against ``acb.integral``'s (used where a grid would be too
    long, forced here): both rigorous, so they must overlap; the trapezoid one is narrow."""
    for triangle in _configurations(4):
        low, high = tp_balls.triangle_log_psi_ball(triangle, w, alpha, sigma)
        with monkeypatch.context() as patch:
            patch.setattr(tp_balls, "_TERM_EVALUATIONS", 0)
            other = tp_balls.triangle_log_psi_ball(triangle, w, alpha, sigma)
        assert low <= other[1] and other[0] <= high
        assert high - low <= 1e-12 * max(1.0, abs(high))


@pytest.mark.parametrize("sigma, alpha", [(1.0, 8), (3.0, 96)])
def test_slope_enclosures_hold_point_slopes_on_wide_boxes(sigma, alpha):
    """Over boxes up to the whole square (where ``acb.integral`` gave up), the trapezoid's
    slope enclosures are finite and hold the floating-point slopes at points inside, with
    sign (a margin of 10⁻⁹ relative for the float evaluation)."""
    rng = random.Random(alpha)
    w = Fraction(256, 60000)
    for side in (1.0, 0.5, 0.125):
        a0, b0 = rng.uniform(0, 1 - side), rng.uniform(0, 1 - side)
        corner = tp_formula.Triangle(a0 + side, b0 + side,
                                     tp_formula.surface_rho(a0 + side, b0 + side))
        scale = tp_formula.triangle_log_psi(corner, float(w), alpha, sigma)[0]
        slopes = tp_balls.surface_gradient_ball((a0, a0 + side), (b0, b0 + side), w, alpha, sigma,
                                                scale)
        assert all(math.isfinite(float(s.rad())) for s in slopes)
        for _ in range(10):
            a, b = rng.uniform(a0, a0 + side), rng.uniform(b0, b0 + side)
            value, d_a, d_b = tp_formula.surface_log_gradient(a, b, float(w), alpha, sigma)
            for exact, ball in zip((d_a, d_b), slopes):
                exact *= math.exp(value - scale)   # e^{−scale} ∂G = e^{log G − scale} ∂ log G
                slack = 1e-9 * abs(exact) + 1e-15
                assert float(ball.lower()) - slack <= exact <= float(ball.upper()) + slack


def test_trapezoid_and_adaptive_slope_enclosures_agree(monkeypatch):
    """The slope enclosures of a small box by both routes (``acb.integral`` forced): they must
    overlap, and the trapezoid's is no wider than a tenth of the slope."""
    w, alpha, sigma = Fraction(256, 60000), 8, 1.0
    a, b = (0.9, 0.9 + 2 ** -10), (0.6, 0.6 + 2 ** -10)
    corner = tp_formula.Triangle(a[1], b[1], tp_formula.surface_rho(a[1], b[1]))
    scale = tp_formula.triangle_log_psi(corner, float(w), alpha, sigma)[0]
    trapezoid = tp_balls.surface_gradient_ball(a, b, w, alpha, sigma, scale)
    monkeypatch.setattr(tp_balls, "_TERM_EVALUATIONS", 0)
    adaptive = tp_balls.surface_gradient_ball(a, b, w, alpha, sigma, scale)
    for mine, other in zip(trapezoid, adaptive):
        assert other.is_finite() and mine.overlaps(other)
        assert float(mine.rad()) <= 0.1 * abs(float(mine.mid()))
