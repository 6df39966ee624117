"""The three-point pattern of 001 Thm. 3.6 for the Gaussian mechanism: sampling without
replacement under substitution, solved numerically with a certified enclosure (issue 14 item 4).

001 Thm. 3.6 bounds ``Ψ_α(m_x ‖ m_x')`` by the maximum of
``Ψ_α((1 − w) b(y₁) + w b(y₂) ‖ (1 − w) b(y₁) + w b(y₄))``, ``w = q/N``, over
``d(y₁, y₂) ≤ 1``, ``d(y₁, y₄) ≤ 1``, ``d(y₂, y₄) ≤ 1``. For ``b = N(f(·), σ²I)`` with
L2 sensitivity 1 the means are ``0``, ``μ₂``, ``μ₄`` with ``|μ₂|, |μ₄|, |μ₂ − μ₄| ≤ 1``; by rotation
invariance ``Ψ`` depends on them through the Gram matrix only: ``a = |μ₂|``, ``b = |μ₄|``,
``ρ = μ₂·μ₄``, with ``ρ ≥ max(−ab, (a² + b² − 1)/2)`` (the triangle constraint).

**Formula (integer α).** With ``s = μ₂·Z``, ``t = μ₄·Z`` (``Z`` standard normal, units of σ),
``Ψ = E[(1 − w + w e^{s − a²/2})^α (1 − w + w e^{t − b²/2})^{1−α}]``. Expanding the first factor
binomially and tilting ``Z`` by ``e^{ks}`` gives one-dimensional integrals with positive terms:

``Ψ(a, b, ρ) = Σ_k C(α, k) (1 − w)^{α−k} w^k e^{(k² − k) a²/2} E_z[h(kρ + bz − b²/2)]``,
``h(u) = (1 − w + w e^u)^{1−α}``, ``z ~ N(0, 1)``.

**Monotonicity** (of this formula, for every real ``a, b ≥ 0`` and ``ρ``): it increases in
``a`` (the factors ``e^{(k² − k) a²/2}``), decreases in ``ρ`` (``h`` decreases), and increases
in ``b``: by Stein's identity ``∂_b E[h(m + bz − b²/2)] = b E[h'' − h']`` and
``h'' − h' = α(α − 1) w² e^{2u} (1 − w + w e^u)^{−α−1} ≥ 0``. Hence over a box
``[a₀, a₁] × [b₀, b₁]`` the maximum is at most ``Ψ(a₁, b₁, ρ₀)`` with
``ρ₀ = max(−a₁b₁, (a₀² + b₀² − 1)/2)``, and the smallest feasible ``ρ`` is always the worst.

**Second-order box bound.** Every feasible ``ρ`` is ``≥ (a² + b² − 1)/2``, so no feasible
configuration exceeds ``G(a, b) = Ψ(a, b, (a² + b² − 1)/2)``, a smooth function of ``(a, b)``;
over a box, ``G ≤ G(p) + max(U(a₁ − p_a), L(a₀ − p_a)) + (likewise in b)`` for ``p`` in the
box and ``[L, U]`` an enclosure of the partial derivative over the box (mean value theorem;
:func:`surface_log_gradient` gives the derivatives). At large σ ``G`` is nearly flat and the
derivatives are small, so this bound is tight where the corner bound is only first-order tight.

:func:`certify_triangle` runs a branch-and-bound over ``(a, b) ∈ [0, 1]²`` with the smaller of
these box bounds, each evaluated in ball arithmetic (python-flint; the strip trapezoid rule
of :mod:`otbound.numerics.strip_trapezoid` with its certified error, or ``acb.integral`` where
that grid would be too long; for the derivatives, with ``a, b`` as balls spanning the box): its
upper end bounds the maximum rigorously (a proof by computation, for one ``(w, σ, α)``).
:func:`search_triangles` is the numerical evidence in the original coordinates ``(a, b, θ)``.
Orders that are not integers are bounded by the next integer (``ε(α)`` never decreases in ``α``).

:func:`recognise` finds the pattern in any derived bound's problem (reading ``w`` from its
weights); the Gaussian mechanism then answers for Rényi divergences with a
:class:`ThreePointMaximum` instead of dominating pairs (:meth:`Mechanism.renyi_pairs`).
"""

from __future__ import annotations

import functools
import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from otbound.errors import UnsupportedOperation
from otbound.numerics import strip_trapezoid
from otbound.numerics.problems import NumericProblem
from otbound.numerics.rounding import EPS, Bounds

MAX_ORDER = 256
"""The largest integer order the solver certifies (its cost depends on the setting: at
q/N = 256/60000, σ = 1–4, every order takes at most about 0.5 s on one core; at q/N = 0.1,
σ = 5, order 128 takes about 2 s)."""


@dataclass(frozen=True)
class Triangle:
    """The Gram parameters of the means ``0, μ₂, μ₄`` in units of the sensitivity:
    ``a = |μ₂|``, ``b = |μ₄|``, ``rho = μ₂·μ₄``."""

    a: float
    b: float
    rho: float

    @staticmethod
    def planar(a: float, b: float, theta: float) -> "Triangle":
        """``μ₂ = (a, 0)``, ``μ₄ = (b cos θ, b sin θ)``."""
        return Triangle(a, b, a * b * math.cos(theta))

    @staticmethod
    def worst_for(a: float, b: float) -> "Triangle":
        """The feasible configuration with these lengths and the smallest ``ρ`` (the worst)."""
        return Triangle(a, b, smallest_rho(a, b))

    def feasible(self, slack: float = 1e-12) -> bool:
        """``|μ₂|, |μ₄|, |μ₂ − μ₄| ≤ 1`` and a valid Gram matrix."""
        gap = self.a ** 2 + self.b ** 2 - 2 * self.rho
        return (0 <= self.a <= 1 + slack and 0 <= self.b <= 1 + slack and gap <= 1 + slack
                and abs(self.rho) <= self.a * self.b + slack)


def smallest_rho(a: float, b: float) -> float:
    """``max(−ab, (a² + b² − 1)/2)``: the smallest ``μ₂·μ₄`` with ``|μ₂ − μ₄| ≤ 1``."""
    return max(-a * b, (a * a + b * b - 1) / 2)


EQUILATERAL = Triangle(1.0, 1.0, 0.5)
"""All three distances 1 (the conjectured worst case; it is one only for small orders)."""
REMOVAL = Triangle(1.0, 0.0, 0.0)
"""``μ₄ = μ₁``: the right mixture is the base distribution (the worst case at larger orders)."""
OPPOSITE = Triangle(1.0, 1.0, -1.0)
"""The relaxed pattern's worst case (``|μ₂ − μ₄| = 2``, infeasible here): an upper bound."""


def _check_order(alpha: float) -> int:
    order = int(alpha)
    if order != alpha or not 2 <= order <= MAX_ORDER:
        raise ValueError(f"the three-point solver needs an integer order in [2, {MAX_ORDER}], "
                         f"got {alpha}")
    return order


# --- fast evaluation (floating point, with an error estimate) -------------------------------

@functools.lru_cache(maxsize=4096)
def triangle_log_psi(triangle: Triangle, w: float, alpha: int, sigma: float) -> tuple[float, float]:
    """``log Ψ_α`` of the configuration and an estimate of its error (trapezoid rule in ``z``
    around each term's mode, step ``h`` against ``2h``; remembered: the certification asks
    for the same corners in its guide and its ball phases)."""
    order = _check_order(alpha)
    a, b, rho = triangle.a / sigma, triangle.b / sigma, triangle.rho / sigma ** 2
    k = np.arange(order + 1.0)
    log_c = _log_weights(order, k, w) + (k * k - k) * a * a / 2
    fine, coarse = _log_expectations(k * rho - b * b / 2, b, order, w)
    value, other = float(_logsumexp(log_c + fine)), float(_logsumexp(log_c + coarse))
    rounding = np.finfo(float).eps * (4 * _points(b, order) + 64 * (1 + abs(value)))
    return value, abs(value - other) + rounding


def _log_weights(order: int, k: np.ndarray, w: float) -> np.ndarray:
    from scipy.special import gammaln

    return (gammaln(order + 1) - gammaln(k + 1) - gammaln(order - k + 1)
            + (order - k) * math.log1p(-w) + k * math.log(w))


_HALF_WIDTH = 10.0
"""The trapezoid grid spans the mode ± this (the log-integrand is concave with curvature ≥ 1,
so what lies beyond is below ``e^{−50}`` of the peak)."""
_STEPS_PER_WIDTH = 3
"""Trapezoid nodes per standard deviation of the narrowest integrand (its log has curvature at
most ``1 + (α − 1) b²/4``): the error of a Gaussian-like integrand falls as
``e^{−2π² (nodes per width)²}``, far below double precision at 3 (``e^{−178}``) and at 1.5,
the coarse grid the error estimate compares with (``e^{−44}``)."""


def _points(b: float, order: int) -> int:
    """The number of trapezoid nodes per term (odd, so that every other node is the coarse
    grid)."""
    width = 1 / math.sqrt(1 + (order - 1) * b * b / 4)
    half = math.ceil(_HALF_WIDTH * _STEPS_PER_WIDTH / width)
    return 2 * half + 1


def _log_expectations(shift: np.ndarray, b: float, order: int,
                      w: float) -> tuple[np.ndarray, np.ndarray]:
    """``log E_z[h(shift + bz)]`` per term (fine and coarse grids of :func:`_grid`)."""
    _, _, log_f, step = _grid(shift, b, order, w)
    return (_logsumexp(log_f, axis=1) + math.log(step),
            _logsumexp(log_f[:, ::2], axis=1) + math.log(2 * step))


def _logsumexp(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """``log Σ e^x`` along ``axis`` (finite ``x``), without scipy's per-call overhead (the
    guide calls this thousands of times)."""
    top = x.max(axis=axis, keepdims=True)
    return np.log(np.exp(x - top).sum(axis=axis)) + np.squeeze(top, axis=axis)


def _grid(shift: np.ndarray, b: float, order: int, w: float):
    """The trapezoid grid in ``z`` around each term's mode, at ``u = shift + bz``:
    ``log(w e^u)``, ``log(1 − w + w e^u)``, the log-integrand ``log φ(z) + (1 − α)
    log(1 − w + w e^u)`` and the step (:data:`_HALF_WIDTH`, :func:`_points`)."""
    log_w, log_rest = math.log(w), math.log1p(-w)
    mode = _modes(shift, b, order, log_w - log_rest)
    points = _points(b, order)
    z = mode[:, None] + np.linspace(-_HALF_WIDTH, _HALF_WIDTH, points)[None, :]
    log_v = log_w + shift[:, None] + b * z
    log_d = np.logaddexp(log_rest, log_v)
    log_f = -z * z / 2 - 0.5 * math.log(2 * math.pi) + (1 - order) * log_d
    return log_v, log_d, log_f, 2 * _HALF_WIDTH / (points - 1)


def _modes(shift: np.ndarray, b: float, order: int, log_odds: float) -> np.ndarray:
    """Where ``−z²/2 + (1 − α) log(1 − w + w e^{shift + bz})`` is largest (bisection, to
    ``2⁻²⁸`` of the initial bracket: a grid ±10 widths around it needs no more)."""
    from scipy.special import expit

    low, high = np.full(shift.size, -(order - 1) * b - 1.0), np.zeros(shift.size)
    for _ in range(28):
        middle = (low + high) / 2
        slope = -middle - (order - 1) * b * expit(shift + b * middle + log_odds)
        low, high = np.where(slope > 0, middle, low), np.where(slope > 0, high, middle)
    return (low + high) / 2


# --- numerical search in the original coordinates ------------------------------------------

@dataclass(frozen=True)
class TriangleSearch:
    """The best configuration multi-start local optimisation found, and the candidates."""

    best: Triangle
    log_psi: float
    equilateral: float
    removal: float


def search_triangles(w: float, alpha: int, sigma: float, starts: int = 12,
           seed: int = 0) -> TriangleSearch:
    """Maximise ``log Ψ`` over ``(a, b, θ)`` (``θ`` from 0 to its largest feasible value) from
    random starts and the two candidate corners (L-BFGS-B). Numerical evidence only."""
    from scipy.optimize import minimize

    def config(x: np.ndarray) -> Triangle:
        a, b, t = (float(min(max(v, 0.0), 1.0)) for v in x)
        return Triangle.planar(a, b, t * _largest_angle(a, b))

    def objective(x: np.ndarray) -> float:
        return -triangle_log_psi(config(x), w, alpha, sigma)[0]

    rng = np.random.default_rng(seed)
    points = [np.array([1.0, 1.0, 1.0]), np.array([1.0, 0.0, 0.0])]
    points += list(rng.uniform(0, 1, size=(starts, 3)))
    found = [minimize(objective, x, method="L-BFGS-B", bounds=[(0, 1)] * 3) for x in points]
    best = min(found, key=lambda r: r.fun)
    return TriangleSearch(config(best.x), -float(best.fun),
                        triangle_log_psi(EQUILATERAL, w, alpha, sigma)[0],
                        triangle_log_psi(REMOVAL, w, alpha, sigma)[0])


def _largest_angle(a: float, b: float) -> float:
    """The largest angle between ``μ₂`` and ``μ₄`` with ``|μ₂ − μ₄| ≤ 1``."""
    if a == 0 or b == 0:
        return 0.0
    return math.acos(min(1.0, max(-1.0, (a * a + b * b - 1) / (2 * a * b))))


# --- rigorous evaluation (ball arithmetic) --------------------------------------------------

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


# --- the formula on the constraint surface, and its gradient --------------------------------

def surface_rho(a: float, b: float) -> float:
    """``(a² + b² − 1)/2`` (``|μ₂ − μ₄| = 1``), rounded down past its floating-point error
    (``≤ 2⁻⁵⁰`` for ``a, b ∈ [0, 1]``): the formula decreases in ``ρ``, so its value there is an
    upper bound for the exact surface point."""
    return (a * a + b * b - 1) / 2 - 2.0 ** -48


def surface_log_gradient(a: float, b: float, w: float, alpha: int,
                         sigma: float) -> tuple[float, float, float]:
    """``log G`` and its partial derivatives in ``a`` and ``b`` (units of the sensitivity), by
    the fast evaluation, where ``G(a, b) = Ψ(a, b, (a² + b² − 1)/2)`` is the formula of
    001 Thm. 3.6's pattern on the constraint surface.

    In units of σ (``ρ = (a² + b² − σ⁻²)/2``), with ``c_k = C(α, k) (1 − w)^{α−k} w^k
    e^{(k² − k) a²/2}`` and ``u_k = kρ + bz − b²/2``: ``∂_a G = a Σ_k c_k k ((k − 1) E[h(u_k)]
    + E[h'(u_k)])`` and, by Stein's identity, ``∂_b G = b Σ_k c_k E[h''(u_k) + (k − 1)
    h'(u_k)]``. With ``r = w e^u/(1 − w + w e^u) ∈ [0, 1]``: ``h' = (1 − α) r h`` and
    ``h'' = h' + α(α − 1) r² h``."""
    order = _check_order(alpha)
    big_a, big_b = a / sigma, b / sigma
    rho = (big_a * big_a + big_b * big_b - 1 / sigma ** 2) / 2
    k = np.arange(order + 1.0)
    log_c = _log_weights(order, k, w) + (k * k - k) * big_a * big_a / 2
    log_e, first, second = _tilted_moments(k * rho - big_b * big_b / 2, big_b, order, w)
    value = float(_logsumexp(log_c + log_e))
    p = np.exp(log_c + log_e - value)
    d_a = big_a * float(np.sum(p * k * ((k - 1) + (1 - order) * first)))
    d_b = big_b * float(np.sum(p * (k * (1 - order) * first
                                    + order * (order - 1) * second)))
    return value, d_a / sigma, d_b / sigma


def _tilted_moments(shift: np.ndarray, b: float, order: int,
                    w: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per term: ``log E_z[h(shift + bz)]`` and the ratios ``E[r h]/E[h]``, ``E[r² h]/E[h]``
    (the fine grid of :func:`_grid`)."""
    log_v, log_d, log_f, step = _grid(shift, b, order, w)
    top = log_f.max(axis=1, keepdims=True)
    mass = np.exp(log_f - top)
    r = np.exp(log_v - log_d)
    total = mass.sum(axis=1)
    return (np.log(total) + top[:, 0] + math.log(step),
            (mass * r).sum(axis=1) / total, (mass * r * r).sum(axis=1) / total)


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


# --- certified branch-and-bound -------------------------------------------------------------

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
    witness = max(lows, key=lows.get)
    low = lows[witness]
    bounds = _BoxBounds(w, order, sigma)
    attempts, searched = list(tolerances), False
    while attempts:
        tolerance, max_boxes = attempts.pop(0)
        target = low + tolerance * abs(low)
        margin, resolution = (low + target) / 2, (target - low) / 8
        leaves = _partition(lambda box: bounds.guide(box, margin, resolution), margin,
                            max_boxes, bounds.split)
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


# --- the pattern in a derived bound ---------------------------------------------------------

BASIS = ("001 Thm. 3.6's three-point pattern solved for the Gaussian mechanism by a certified "
         "branch-and-bound over the means' Gram parameters in ball arithmetic "
         "(otbound.numerics.three_point): the maximum lies in [epsilon − error, epsilon]; "
         "orders that are not integers use the next integer; where the mechanism-agnostic "
         f"bound is smaller, and above order {MAX_ORDER}, which it does not cover, that bound")
"""What a value from :class:`ThreePointMaximum` rests on (printed with it)."""


def recognise(problem: NumericProblem) -> tuple[Fraction, float] | None:
    """``(w, c)`` when ``problem`` is 001 Thm. 3.6's pattern: two components a side, one on each
    side at distance 0 with weight ``1 − w`` on both, the other two with weight ``w``, and the
    three other closed distances all ``c`` (finite, > 0); ``None`` otherwise.

    ``w`` is rounded up past the error of the floating-point weights: that is safe, because the
    maximum never decreases in ``w`` (joint convexity: the mixtures at ``w`` are those at
    ``w' > w`` mixed with the pair ``(b(y₁), b(y₁))``, whose divergence is 1)."""
    if not problem.left.size == problem.right.size == 2:
        return None
    closed = problem.closed().bounds
    shared = [(i, j) for i in range(2) for j in range(2) if closed[i][2 + j] == 0]
    if len(shared) != 1:
        return None
    ((i, j),) = shared
    k, m = 1 - i, 3 - j
    distances = {closed[i][k], closed[2 + j][m], closed[k][m]}
    logs = problem.left[k], problem.right[m - 2], problem.left[i], problem.right[j]
    if len(distances) != 1 or not all(math.isfinite(v) for v in logs):
        return None
    (c,) = distances
    if not 0 < c < math.inf:
        return None
    slack = 8 * EPS * (2 + max(abs(v) for v in logs))   # the logs' rounding, generously
    if abs(logs[0] - logs[1]) > slack or abs(logs[2] - logs[3]) > slack \
            or abs(math.expm1(np.logaddexp(logs[0], logs[2]))) > slack:
        return None
    w = math.nextafter(math.exp(max(logs[:2]) + slack), math.inf)
    return (Fraction(w), float(c)) if w < 1 else None


@dataclass(frozen=True)
class ThreePointMaximum:
    """The maximum of 001 Thm. 3.6's pattern for Gaussian noise with standard deviation
    ``sigma`` (in units of the pattern's distance): a dominating "pair" known only through the
    certified enclosure of its Rényi divergence (no δ(ε) solver)."""

    w: Fraction
    sigma: float

    def covers(self, alphas) -> np.ndarray:
        """Which orders the certificate is computed for (``⌈α⌉ ≤`` :data:`MAX_ORDER`)."""
        return certifying_orders(alphas) <= MAX_ORDER

    def log_psi(self, alphas) -> Bounds:
        """``log Ψ_α`` bounded by the enclosure of ``ε`` at ``⌈α⌉`` (:func:`certifying_orders`):
        its upper end, and its lower end as the estimate."""
        alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
        orders = certifying_orders(alphas)
        if orders.max() > MAX_ORDER:
            raise UnsupportedOperation(
                f"the certified three-point solver (001 Thm. 3.6, Gaussian) covers orders up to "
                f"{MAX_ORDER}; got {orders.max()}: use method='agnostic' for larger orders")
        found = {n: self.epsilon(int(n)) for n in np.unique(orders)}
        scale = alphas - 1
        upper = np.array([found[n][1] for n in orders]) * scale * (1 + 2 * EPS)
        return Bounds(np.nextafter(upper, math.inf),
                      np.array([found[n][0] for n in orders]) * scale)

    def epsilon(self, order: int) -> tuple[float, float]:
        """The certified enclosure of ``ε`` at the integer ``order``."""
        try:
            return cached_certificate(self.w, order, self.sigma).epsilon
        except RuntimeError as error:
            raise UnsupportedOperation(f"{error}: use method='agnostic'") from error

    def estimated(self) -> "ThreePointEstimate":
        """This maximum estimated from below, in milliseconds (to decide whether a certificate
        is worth its cost; never a bound)."""
        return ThreePointEstimate(self.w, self.sigma)


@dataclass(frozen=True)
class ThreePointEstimate(ThreePointMaximum):
    """An estimate of :class:`ThreePointMaximum`'s ``log Ψ`` from below: the formula at the
    equilateral and removal configurations (fast evaluation, less its error estimate), at
    ``⌈α⌉`` as the certificate is used. Not a bound: nothing reports it."""

    def epsilon(self, order: int) -> tuple[float, float]:
        value = max(value - error for value, error in
                    (triangle_log_psi(t, float(self.w), order, self.sigma)
                     for t in (EQUILATERAL, REMOVAL))) / (order - 1)
        return value, value


def certifying_orders(alphas) -> np.ndarray:
    """The integer order whose certificate bounds each of ``alphas``: ``⌈α⌉``, at least 2
    (``ε(α)`` never decreases in ``α``)."""
    return np.maximum(np.ceil(np.atleast_1d(np.asarray(alphas, dtype=float))), 2).astype(int)


def enclosed(cases) -> bool:
    """Whether a pair of the cases (each a list of ``(log-weight, pairs)`` branches) is a
    :class:`ThreePointMaximum`, known only through its certified Rényi divergence."""
    return any(isinstance(pair, ThreePointMaximum)
               for case in cases for _, pairs in case for pair in pairs)


_CERTIFICATES: dict = {}


def cached_certificate(w: Fraction, alpha: int, sigma: float) -> TriangleCertificate:
    """:func:`certify_triangle`, once per ``(w, α, σ)`` in a process."""
    key = (w, alpha, sigma)
    if key not in _CERTIFICATES:
        _CERTIFICATES[key] = certify_triangle(w, alpha, sigma)
    return _CERTIFICATES[key]
