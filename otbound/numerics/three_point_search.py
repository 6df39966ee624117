"""The numerical search for the worst configuration of 001 Thm. 3.6's three-point pattern
(Gaussian) in the original coordinates ``(a, b, θ)``: ``μ₂ = (a, 0)``, ``μ₄ = (b cos θ, b sin θ)``.
Multi-start local optimisation of the fast evaluation
(:func:`~otbound.numerics.three_point_formula.triangle_log_psi`): numerical evidence only. Where
its first partition does not fit its budget, the certification
(:mod:`otbound.numerics.three_point_certificate`) tries the best configuration found as a
witness, whose value it then encloses rigorously.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from otbound.numerics.three_point_formula import (EQUILATERAL, REMOVAL, Triangle,
                                                  triangle_log_psi)


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
