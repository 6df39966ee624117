"""The trapezoid rule for Gaussian integrals ``∫ φ(z) f(z) dz`` with a certified error, for the
three-point pattern's integrands ``f(z) = g((1 − w + v e^{βz})^{1−α}, …)`` (issue 26).

**Theorem** (Trefethen & Weideman 2014, *The exponentially convergent trapezoidal rule*,
SIAM Review 56, Thm. 5.1). If ``F`` is analytic in the strip ``|Im z| < d``, tends to 0
uniformly as ``|Re z| → ∞`` there, and ``∫ |F(x + iy)| dx ≤ M`` for every ``|y| < d``, then
the infinite trapezoid sum ``I_h = h Σ_{j∈ℤ} F(jh)`` satisfies
``|I_h − ∫ F| ≤ 2M/(e^{2πd/h} − 1)``.

**The strip.** For ``F = φ · (1 − w + v e^{βz})^{1−α}`` (``v > 0``, ``0 < w < 1``, ``β ≥ 0``,
integer ``α ≥ 2``) write ``t = v e^{βx}`` and ``θ = βy``. Then
``|1 − w + t e^{iθ}|² = (1 − w + t)² − 2(1 − w) t (1 − cos θ) ≥ (1 − w + t)² cos²(θ/2)``
(as ``4(1 − w) t ≤ (1 − w + t)²``): the factor has no zero for ``|θ| < π``, and
``|(1 − w + t e^{iθ})^{1−α}| ≤ C^{α−1} (1 − w + t)^{1−α}`` with ``C = 1/cos(βd/2)``; the ratio
``r = v e^{βz}/(1 − w + v e^{βz})`` has ``|r| ≤ C``; and ``|φ(x + iy)| = φ(x) e^{y²/2}``. So a
term's ``M`` is ``e^{d²/2} C^{α−1}`` times the integral of its real-line majorant: the error is
relative to the integral itself (:meth:`Grid.relative_error`).

The sum is truncated to ``|j| ≤ J``; for ``j > J`` the node values are at most a decreasing
function times ``φ``, and ``h Σ_{j>J} φ(jh) ≤ ∫_{Jh}^∞ φ`` (:meth:`Grid.tail`). Everything
is evaluated in ball arithmetic (python-flint); the grid itself is chosen in floating point
(:func:`plan`), which only decides the cost, never the bound."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

_STRIPS = 48
"""Candidate strip half-widths ``d`` tried by :func:`plan`."""


@dataclass(frozen=True)
class Grid:
    """Nodes ``jh``, ``|j| ≤ count``, and the strip half-width ``strip`` their error bound uses
    (``step`` and ``strip`` are doubles, exact in ball arithmetic)."""

    step: float
    count: int
    strip: float

    def nodes(self) -> list[tuple[Any, Any]]:
        """``(z_j, h φ(z_j))`` for ``j = −count … count`` as arb balls (at the working
        precision)."""
        from flint import ctx

        return _nodes(self, ctx.prec)

    def tail(self) -> Any:
        """``∫_{Jh}^∞ φ = erfc(Jh/√2)/2``, which bounds ``h Σ_{j>J} φ(jh)`` (either side)."""
        from flint import arb

        return (arb(self.count) * arb(self.step) / arb(2).sqrt()).erfc() / 2

    def growth(self, order: int, beta: Any) -> tuple[Any, Any]:
        """``e^{d²/2} C^{α−1}`` and ``C = 1/cos(β d/2)`` (upper ends over the ball ``beta``):
        the strip's bound on ``|φ| |(1 − w + v e^{βz})^{1−α}|`` relative to the real line."""
        from flint import arb

        d = arb(self.strip)
        angle = arb(beta.upper()) * d / 2
        if not angle < arb.pi() / 2:
            raise ValueError(f"strip {self.strip} too wide for β = {beta}")
        c = 1 / angle.cos()
        return (d * d / 2).exp() * c ** (order - 1), c

    def relative_error(self, strip_bound: Any) -> Any:
        """``2M/(e^{2πd/h} − 1)`` per unit of ``M = strip_bound``: Thm. 5.1's bound."""
        from flint import arb

        return 2 * strip_bound / ((2 * arb.pi() * arb(self.strip) / arb(self.step)).exp() - 1)


@functools.lru_cache(maxsize=64)
def _nodes(grid: Grid, precision: int) -> list[tuple[Any, Any]]:
    from flint import arb

    h = arb(grid.step)
    norm = h / (2 * arb.pi()).sqrt()
    return [(j * h, norm * (-(j * h) ** 2 / 2).exp()) for j in range(-grid.count, grid.count + 1)]


def plan(order: int, beta: float, log_cap: float, log_tolerance: float,
         max_nodes: int) -> Grid | None:
    """The grid with the fewest nodes whose discretisation error (relative, from the strip
    bound) and truncated tails (at most ``e^{log_cap}`` times the Gaussian tail) are each
    about ``e^{log_tolerance}/4``; ``None`` when it needs more than ``max_nodes`` nodes. A
    floating-point estimate: the caller bounds the error of the grid it gets, rigorously."""
    if not (math.isfinite(beta) and math.isfinite(log_cap) and math.isfinite(log_tolerance)):
        return None
    budget = math.log(4) - log_tolerance
    reach = math.sqrt(2 * max(log_cap + budget, 1.0))
    widest = min(0.95 * math.pi / beta if beta > 0 else math.inf, 12.0)
    strips = np.linspace(widest / _STRIPS, widest, _STRIPS)
    growth = strips ** 2 / 2 - (order - 1) * np.log(np.cos(beta * strips / 2)) + math.log(2)
    steps = 2 * math.pi * strips / (growth + budget)
    best = int(np.argmax(steps))
    count = math.ceil(reach / steps[best])
    if 2 * count + 1 > max_nodes:
        return None
    return Grid(float(steps[best]), count, float(strips[best]))
