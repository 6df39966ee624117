"""The formula of 001 Thm. 3.6's three-point pattern for the Gaussian mechanism, in the means'
Gram parameters, and its fast evaluation in floating point with an error estimate (issue 14
item 4; the certified solver is :mod:`otbound.numerics.three_point`).

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

:func:`triangle_log_psi` evaluates ``log Ψ`` by the trapezoid rule in ``z`` around each term's
mode; :func:`surface_log_gradient` gives ``log`` of the formula on the constraint surface
``|μ₂ − μ₄| = 1`` and its partial derivatives.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

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

