"""Rényi divergences of a random-allocation epoch (:mod:`otbound.numerics.allocation`), bounded
above at every order: exact at integer orders for the removal of a record, within the grid's
second-order error for its insertion, and between integer orders by log-convexity.

One of ``m`` steps: the likelihood ratio of the epoch's pair is ``S/m``, ``S = L₁ + … + L_m``
independent one-step ratios under ``Q``, so ``Ψ_α(P ‖ Q) = E_Q[(S/m)^α]`` (removal) and
``Ψ_α(Q ‖ P) = E_Q[(S/m)^{1−α}]`` (insertion).

* **Removal, integer α** (the multinomial expansion, as in Feldman & Shenfeld 2025's Cor. 6.2,
  here as one generating function): ``E_Q[S^α] = α! [x^α] f(x)^m`` with ``f(x) = Σ_j m_j x^j/j!``
  and ``m_j = E_Q[L^j] = Ψ_j(P₁ ‖ P₀)``, the mechanism's own one-step divergence. The power is
  taken as ``exp(m log f)`` of a power series in arb balls: every order up to the largest asked
  at once, rigorous given the ``m_j`` (each an upper bound; the expansion only grows with them).
* **Insertion, integer α** (``n = α − 1``): ``s ↦ s^{−n}`` continued below a point ``a`` by its
  tangent, ``g_a``, is convex, so ``E[g_a(S)] ≤ E[g_a(S⁺)]`` for the spread sum ``S⁺ ≥_cx S``
  (:class:`~otbound.numerics.ratio_sums.SpreadSum`; its mass at ``S = 0`` has the finite
  ``g_a(0)``, its first moment at ``S → ∞`` contributes nothing). What the tangent misses lies
  below ``a`` and is at most ``E[(S/m)^{−n}; S < a] ≤ E[G^{−n}; G < a/m]`` with ``G`` the
  geometric mean of the ``L_t`` (AM–GM), which Chernoff bounds by ``(a/m)^{mc − n}
  Ψ_{1+c}(P₀ ‖ P₁)^m`` for every ``c ≥ n/m`` (``E_Q[L^{−c}] = Ψ_{1+c}(P₀ ‖ P₁)``). The smallest
  over a few ``a`` and ``c`` is kept (each is a bound).
* **``k > 1``**: the hidden-partition bound of :class:`~otbound.numerics.allocation.Allocation`
  (``k`` blocks' one-of-``m`` allocations composed): ``log Ψ`` adds over the blocks (the
  divergence is jointly convex, so the average over partitions is at most one partition's).
* **Between integers**: ``α ↦ log Ψ_α`` is convex (Hölder), so it lies below the chord through
  the integer orders around ``α`` (``log Ψ_1 = 0``).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from otbound.errors import Refusal, granted
from otbound.numerics.pairs import log_sum_exp
from otbound.numerics.rounding import EPS, NumericBound

MAX_EPOCH_ORDER = 4096
"""Largest Rényi order of an epoch's pair (the series have one term per integer order)."""
SERIES_PRECISION = 128
"""Working precision (bits) of the removal's power series; doubled while a ball is wider than
:data:`SERIES_WIDTH` of its value."""
SERIES_WIDTH = 1e-12
TANGENT_POINTS = np.arange(0, 20) * 0.5
"""Where the insertion's tangent may start: ``a = v₀ e^{−j/2}`` below the spread sum's lowest
point ``v₀`` (a lower ``a`` weighs the mass at ``S = 0`` more and the tail less)."""
MASS_RELATIVE = 2e-9
"""Relative error allowed for the spread sum's masses (the PLD's margin, twice: their rounding
is below 1e-12 on these grids)."""
CHERNOFF_ORDERS = np.geomspace(1e-4, 1e3, 141)
"""The exponents ``c`` tried in the insertion's tail bound (with ``n/m`` itself)."""


def epoch_log_psi(epoch, direction: str, alphas: np.ndarray, spread) -> list[NumericBound]:
    """``log Ψ_α`` of one epoch's pair in ``direction`` (``"remove"``: ``Ψ_α(P_k ‖ Q)``,
    ``"add"``: ``Ψ_α(Q ‖ P_k)``) at every order, rounded up; ``spread(law, m)`` is the spread
    sum ``S⁺`` of ``m`` ratios. Refused (raised) as :func:`epoch_refusal` refuses."""
    alphas = np.asarray(alphas, dtype=float)
    if (refused := epoch_refusal(epoch, direction, alphas, spread)) is not None:
        raise refused.error()
    top = int(math.ceil(alphas.max()))
    value, error = np.zeros(top + 1), np.zeros(top + 1)
    for size, count in epoch.blocks:
        found, found_error = granted(_one_of(epoch.law, size, direction, max(top, 2), spread))
        value[:found.size] += count * found[:top + 1]
        error[:found.size] += count * found_error[:top + 1]
    return [NumericBound.rounded_up(*_between_integers(value, error, float(alpha)))
            for alpha in alphas]


def epoch_refusal(epoch, direction: str, alphas, spread) -> Refusal | None:
    """Why :func:`epoch_log_psi` cannot answer at ``alphas`` (an order above
    :data:`MAX_EPOCH_ORDER`, a law without its one-step pair, a removal's power series that
    lost its precision), or ``None``: the series it needs are computed (and kept,
    :func:`_one_of`), so that a route can ask before it calls."""
    alphas = np.asarray(alphas, dtype=float)
    top = int(math.ceil(alphas.max()))
    if top > MAX_EPOCH_ORDER:
        return Refusal(f"the Rényi divergence of a random-allocation epoch is bounded at "
                       f"orders up to {MAX_EPOCH_ORDER}; got {alphas.max():g}")
    for size, _ in epoch.blocks:
        if isinstance(found := _one_of(epoch.law, size, direction, max(top, 2), spread),
                      Refusal):
            return found
    return None


def _between_integers(value: np.ndarray, error: np.ndarray, alpha: float
                      ) -> tuple[float, float]:
    """The chord of ``log Ψ`` through ``⌊α⌋`` and ``⌈α⌉`` at ``α`` (its value at an integer)."""
    low = int(math.floor(alpha))
    if low == alpha:
        return float(value[low]), float(error[low])
    share = alpha - low
    return ((1 - share) * value[low] + share * value[low + 1],
            (1 - share) * error[low] + share * error[low + 1] + 4 * EPS * value[low + 1])


@functools.lru_cache(maxsize=32)
def _one_of(law, size: int, direction: str, top: int,
            spread) -> tuple[np.ndarray, np.ndarray] | Refusal:
    """``log Ψ_n`` and its error at ``n = 0 … top`` of one of ``size`` steps, or why not (a law
    without its one-step pair, a removal's series that lost its precision)."""
    if law.pair is None:
        return Refusal("the Rényi divergence of an epoch needs the one-step pair its "
                       "likelihood ratio comes from")
    if direction == "remove":
        return _removal(law.pair, size, top)
    if size == 1:   # the mechanism itself
        return _log_moments(law.pair.swapped(), top), np.zeros(top + 1)
    return _insertion(law, size, top, spread(law, size))


def _log_moments(pair, top: int) -> np.ndarray:
    """``log Ψ_j(P ‖ Q)`` (for ``(P₁, P₀)`` the moments ``log E_Q[L^j]``), ``j = 0 … top``, each
    rounded up."""
    from otbound.numerics.renyi import log_psi_curve

    found = log_psi_curve(pair, np.arange(2, top + 1, dtype=float), limit=False)
    return np.concatenate([[0.0, 0.0], [bound.value for bound in found]])


def _removal(pair, size: int, top: int) -> tuple[np.ndarray, np.ndarray] | Refusal:
    """``log E_Q[(S/m)^n] = log(n! [x^n] f(x)^m) − n log m`` in arb (module docstring), or a
    refusal where the series loses its precision at 16 times the working one."""
    from flint import arb, arb_series, ctx

    log_moments = _log_moments(pair, top)
    saved = ctx.cap, ctx.prec
    ctx.cap, ctx.prec = top + 1, SERIES_PRECISION
    try:
        while True:
            series = arb_series([arb(float(m)).exp() / arb.fac_ui(j)
                                 for j, m in enumerate(log_moments)])
            power = (arb(size) * series.log()).exp()
            balls = [power[n] * arb.fac_ui(n) for n in range(top + 1)]
            if all(ball > 0 and ball.rad() <= SERIES_WIDTH * ball.mid() for ball in balls):
                break
            if ctx.prec > 16 * SERIES_PRECISION:
                return Refusal("the removal's power series lost its precision")
            ctx.prec *= 2
        logs = [ball.log() - n * arb(size).log() for n, ball in enumerate(balls)]
        upper = np.array([float(ball.upper()) for ball in logs])
        mid = np.array([float(ball.mid()) for ball in logs])
    finally:
        ctx.cap, ctx.prec = saved
    upper[:2] = 0.0   # Ψ_0 = Ψ_1 = 1
    return upper, np.maximum(upper - mid, 0.0)


def _insertion(law, size: int, top: int, found) -> tuple[np.ndarray, np.ndarray]:
    """``log E_Q[(S/m)^{−n}]`` at ``n = α − 1`` for ``α = 0 … top``, bounded above (module
    docstring): the tangent's part from the spread sum ``found``, the tail below ``a`` by
    Chernoff."""
    from otbound.numerics.renyi import log_psi_curve

    n = np.arange(-1, top, dtype=float)[:, None]   # α − 1
    log_values = np.log(found.values() / size)
    with np.errstate(divide="ignore"):
        log_mass = np.log(found.mass)
        log_zero = math.log(found.zero) if found.zero > 0 else -math.inf
    grid_part = log_sum_exp(log_mass[None, :] - n * log_values[None, :], axis=1)
    log_a = log_values[0] - TANGENT_POINTS[None, :]    # log(a/m), one column per a
    zero_part = log_zero + np.log1p(np.maximum(n, 0.0)) - n * log_a
    exact = n[:, 0] / size                                      # c = n/m: θ = 0
    orders = 1 + np.concatenate([CHERNOFF_ORDERS, exact[2:]])   # from α = 2
    log_psis = np.array([bound.value for bound in
                         log_psi_curve(law.pair.swapped(), orders, limit=False)])
    grid_psis = log_psis[:CHERNOFF_ORDERS.size]
    exact_psis = np.concatenate([[0.0, 0.0], log_psis[CHERNOFF_ORDERS.size:]])
    usable = CHERNOFF_ORDERS[None, :] >= exact[:, None]          # θ = m c − n ≥ 0
    chernoff = np.where(usable[:, None, :],
                        (size * CHERNOFF_ORDERS[None, None, :] - n[:, :, None])
                        * log_a[:, :, None] + size * grid_psis[None, None, :],
                        math.inf).min(axis=2)
    tails = np.minimum(chernoff, size * exact_psis[:, None])
    # every a is at most the grid's lowest point, so g_a is s^{−n} on the whole grid
    total = log_sum_exp(np.stack([np.broadcast_to(grid_part[:, None], tails.shape),
                                   zero_part, tails]), axis=0).min(axis=1)
    total[:2] = 0.0   # Ψ_0 = Ψ_1 = 1
    magnitude = np.abs(n[:, 0]) * np.abs(log_values).max() + np.abs(total) + 1
    return total, np.log1p(MASS_RELATIVE) + 16 * EPS * magnitude

