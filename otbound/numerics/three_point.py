"""The three-point pattern of 001 Thm. 3.6 for the Gaussian mechanism: sampling without
replacement under substitution, solved numerically with a certified enclosure (issue 14 item 4).

:func:`recognise` finds the pattern in any derived bound's problem (reading ``w`` from its
weights); the Gaussian mechanism then answers for Rényi divergences with a
:class:`ThreePointMaximum` instead of dominating pairs (:meth:`Mechanism.renyi_pairs`), known
through the certificate of :func:`cached_certificate`. Orders that are not integers are bounded
by the next integer (``ε(α)`` never decreases in ``α``).

The solver, one concept a module:

* :mod:`~otbound.numerics.three_point_formula` — the pattern in the means' Gram parameters, its
  one-dimensional formula and monotonicity, and the fast floating-point evaluation;
* :mod:`~otbound.numerics.three_point_search` — the numerical search in the original
  coordinates ``(a, b, θ)`` (evidence only);
* :mod:`~otbound.numerics.three_point_balls` — rigorous enclosures of the formula and of its
  gradient in ball arithmetic;
* :mod:`~otbound.numerics.three_point_certificate` — the certified branch-and-bound over
  ``(a, b) ∈ [0, 1]²`` (:func:`~otbound.numerics.three_point_certificate.certify_triangle`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from otbound.errors import Refusal, granted
from otbound.numerics.problems import NumericProblem
from otbound.numerics.rounding import EPS, Bounds
from otbound.numerics.three_point_certificate import (TOLERANCES, TriangleCertificate,
                                                      certify_triangle)
from otbound.numerics.three_point_formula import (EQUILATERAL, MAX_ORDER, REMOVAL,
                                                  triangle_log_psi)

__all__ = ["BASIS", "MAX_ORDER", "TOLERANCES", "ThreePointEstimate", "ThreePointMaximum",
           "cached_certificate", "certifying_orders", "enclosed", "recognise"]
"""This module's names, with ``MAX_ORDER`` and ``TOLERANCES`` (the solver's order limit and
tolerances, which docs/wor_substitution.md names here)."""

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
        if (refused := self.refusal(alphas)) is not None:
            raise refused.error()
        orders = certifying_orders(alphas)
        found = {n: self.epsilon(int(n)) for n in np.unique(orders)}
        scale = alphas - 1
        upper = np.array([found[n][1] for n in orders]) * scale * (1 + 2 * EPS)
        return Bounds(np.nextafter(upper, math.inf),
                      np.array([found[n][0] for n in orders]) * scale)

    def refusal(self, alphas) -> Refusal | None:
        """Why :meth:`log_psi` cannot answer at ``alphas`` (an order above :data:`MAX_ORDER`,
        or a certificate that fails), or ``None``: the certificates it needs are computed (and
        kept), so that a route can ask before it calls."""
        orders = certifying_orders(alphas)
        if orders.max() > MAX_ORDER:
            return Refusal(
                f"the certified three-point solver (001 Thm. 3.6, Gaussian) covers orders up to "
                f"{MAX_ORDER}; got {orders.max()}: use method='agnostic' for larger orders")
        for order in np.unique(orders):
            if isinstance(found := self.enclosure(int(order)), Refusal):
                return found
        return None

    def enclosure(self, order: int) -> tuple[float, float] | Refusal:
        """The certified enclosure of ``ε`` at the integer ``order``, or why the certificate
        failed (where it fails)."""
        try:
            return cached_certificate(self.w, order, self.sigma).epsilon
        except RuntimeError as error:
            return Refusal(f"{error}: use method='agnostic'")

    def epsilon(self, order: int) -> tuple[float, float]:
        """The certified enclosure of ``ε`` at the integer ``order``."""
        return granted(self.enclosure(order))

    def estimated(self) -> "ThreePointEstimate":
        """This maximum estimated from below, in milliseconds (to decide whether a certificate
        is worth its cost; never a bound)."""
        return ThreePointEstimate(self.w, self.sigma)


@dataclass(frozen=True)
class ThreePointEstimate(ThreePointMaximum):
    """An estimate of :class:`ThreePointMaximum`'s ``log Ψ`` from below: the formula at the
    equilateral and removal configurations (fast evaluation, less its error estimate), at
    ``⌈α⌉`` as the certificate is used. Not a bound: nothing reports it."""

    def enclosure(self, order: int) -> tuple[float, float]:
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
