"""The integrand of the Rényi divergence's non-negative form: ``Ψ_α − 1 = ∫ Q φ_α(P/Q)`` with
``φ_α(L) = L^α − 1 − α (L − 1) ≥ 0`` (:mod:`otbound.numerics.renyi`), as ``log φ_α(e^u)`` of
the privacy loss ``u``, accurate for tiny and huge ``|u|`` and for orders close to 1, and its
relative change when the loss is off by its rounding error.
"""

from __future__ import annotations

import math

import numpy as np

_SERIES = np.arange(2, 24)
_LOG_FACTORIAL = np.array([math.lgamma(k + 1) for k in _SERIES])


def log_phi(alpha, u: np.ndarray) -> np.ndarray:
    """``log φ_α(e^u) = log(e^{αu} − 1 − α(e^u − 1))``, accurate for tiny and huge ``|u|``.

    ``alpha`` is a number or an array shaped like ``u``.
    """
    u = np.asarray(u, dtype=float)
    alpha = np.broadcast_to(np.asarray(alpha, dtype=float), u.shape)
    au = alpha * u
    out = np.full(u.shape, -np.inf)
    small = np.abs(au) <= 0.5
    if small.any():
        values, which = np.unique(alpha[small], return_inverse=True)
        a = values[:, None]
        # (α^k − α)/k! = α (α^{k−1} − 1)/k!, exact even for α close to 1.
        coefficients = (a * np.expm1((_SERIES - 1) * np.log(a)) * np.exp(-_LOG_FACTORIAL))[which]
        us = u[small]
        total = np.zeros(us.size)
        for k in range(_SERIES.size - 1, -1, -1):   # Horner: Σ_k c_k u^k = u²(c₂ + u(c₃ + …))
            total = total * us + coefficients[:, k]
        with np.errstate(divide="ignore"):
            out[small] = np.log(total * us * us)
    middle = ~small & (au <= 700)
    if middle.any():
        b, um = alpha[middle] - 1, u[middle]
        # e^{αu} − 1 − α(e^u − 1) = e^u (e^{βu} − 1) − β (e^u − 1) with β = α − 1: no
        # cancellation of order 1/β when α is close to 1.
        with np.errstate(divide="ignore"):
            out[middle] = np.log(np.exp(um) * np.expm1(b * um) - b * np.expm1(um))
    large = au > 700
    if large.any():
        a, ul = alpha[large], u[large]
        # log(1 + α (e^u − 1)) = u + log(α − (α − 1) e^{−u}) for u > 0
        second = ul + np.log(a - (a - 1) * np.exp(-ul))
        out[large] = a * ul + np.log1p(-np.exp(second - a * ul))
    return out


def _phi_sensitivity(alpha, loss: np.ndarray, loss_error: np.ndarray) -> np.ndarray:
    """Relative change of ``φ_α(e^u)`` when ``u`` moves by ``loss_error``: at most
    ``(2/|u| + α + 1)·du`` (``φ ≈ α(α−1)u²/2`` near zero, ``≈ e^{αu}`` far out), capped at 1e300."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # capped below
        change = np.where(loss_error > 0, (2 / np.abs(loss) + alpha + 1) * loss_error, 0.0)
    return np.minimum(change, 1e300)
