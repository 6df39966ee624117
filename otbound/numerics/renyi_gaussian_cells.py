"""Where :mod:`otbound.numerics.renyi` integrates a Gaussian pair's ``Q φ_α(P/Q)``: the far peak
of ``P^α Q^{1−α}`` in closed form where each side is one component to within 1e-11 (at large α),
and the rest on cells that a branch and bound keeps, the cells it drops and the tails entering
the error as bounds, not estimates. Cells are shared between orders, so the densities are
evaluated once per node.

With ``t_i(z) = log(w_i D(z; μ_i)/D(z; 0)) = log w_i + (μ_i z − μ_i²/2)/σ²``, linear in ``z``,
``log(P/D₀) = log Σ_i e^{t_i}`` is convex (so is ``log(Q/D₀)``). This gives cheap bounds: a chord
of ``log(P/D₀)`` lies above it and a tangent of ``log(Q/D₀)`` below it, and on any interval
``log(P/D₀)`` exceeds a single ``t_i`` by at most ``log(1 + S(a) + S(b))``, ``S`` the sum of the
(monotone) ratios ``e^{t_k − t_i}`` at its ends.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from otbound.numerics.pairs import MixturePair, Side, log_sum_exp
from otbound.numerics.renyi_integrand import log_phi
from otbound.numerics.rounding import EPS

_PANEL = 2.0
"""Width of the quadrature cells, in standard deviations."""
_REACH = math.sqrt(200.0)
"""Margin (in standard deviations) beyond the critical points of ``P^α Q^{1−α}`` and the means of
``Q``: the integrand's tails beyond it fall below ``e^{−100}`` of its values there."""
_MAIN = 12.0
"""Half-width (in standard deviations) of the far peak given in closed form."""
_CERTIFIED = 1e-11
"""Largest error of the far peak's closed form (in ``log``) for which it is used."""
_DEPTH = 64.0
"""Cells whose mass is below ``e^{−64}`` of the estimated integral are left out (their bounds are
added to the error)."""
_LOG_ROOT_2PI = 0.5 * math.log(2 * math.pi)


@dataclass(frozen=True)
class _FarPeak:
    """Per order, ``∫ P^α Q^{1−α}`` over ``[m − 12σ, m + 12σ]`` in closed form (``m = α μ + (1 − α)
    ν`` for the components ``μ``, ``ν`` with the largest means): its centre, ``log`` value and
    relative error, and whether it is used."""

    center: np.ndarray
    log_value: np.ndarray
    error: np.ndarray
    used: np.ndarray


def _log_ratio_sum(means: np.ndarray, log_weights: np.ndarray, top: int, s: float,
                   z: np.ndarray) -> np.ndarray:
    """``log S(z) = log Σ_{k≠top} e^{t_k(z) − t_top(z)}`` (Gaussian components), any shape of z."""
    others = np.arange(means.size) != top
    if not others.any():
        return np.full(np.shape(z), -np.inf)
    gap, middle = means[others] - means[top], (means[others] + means[top]) / 2
    logs = (log_weights[others] - log_weights[top]) + gap * (z[..., None] - middle) / s ** 2
    return log_sum_exp(logs, axis=-1)


def _far_peak(pair: MixturePair, alphas: np.ndarray) -> _FarPeak:
    """On ``[m − 12σ, m + 12σ]``: ``P = w D(z; μ) e^{c_P}`` and ``Q = v D(z; ν) e^{c_Q}`` with
    ``0 ≤ c ≤ log(1 + S(a) + S(b))``, and ``(w D(z; μ))^α (v D(z; ν))^{1−α} = C N(z; m, σ²)`` with
    ``log C = α log w + (1 − α) log v + α(α − 1)(μ − ν)²/2σ²``. So ``∫ P^α Q^{1−α}`` over the piece
    lies in ``[C e^{−(α−1) c_Q}(1 − 2Φ(−12)), C e^{α c_P}]``, and the piece's part of ``Ψ − 1``,
    ``∫ Q φ_α(P/Q) = ∫ P^α Q^{1−α} − αP + (α − 1)Q``, differs from it by at most ``α``. Used where
    ``α c_P`` and ``(α − 1) c_Q`` are below 1e-11 and ``C ≥ α e^{40}``; the error adds a few ulps
    of the parts of ``log C``."""
    s = pair.scale
    i, j = int(np.argmax(pair.p_means)), int(np.argmax(pair.q_means))
    mu, nu = pair.p_means[i], pair.q_means[j]
    center = alphas * mu + (1 - alphas) * nu
    parts = (alphas * pair.p_log_weights[i], (1 - alphas) * pair.q_log_weights[j],
             alphas * (alphas - 1) * (mu - nu) ** 2 / (2 * s * s))
    log_value = sum(parts)
    ends = center[:, None] + np.array([-_MAIN, _MAIN]) * s
    bump = []
    for means, log_weights, top in ((pair.p_means, pair.p_log_weights, i),
                                    (pair.q_means, pair.q_log_weights, j)):
        with np.errstate(over="ignore"):
            ratios = np.exp(_log_ratio_sum(means, log_weights, top, s, ends))
        bump.append(np.log1p(ratios.sum(axis=1)) * (1 + 1e-6))   # ratios carry rounding
    shape = np.maximum(alphas * bump[0], (alphas - 1) * bump[1])
    used = (shape <= _CERTIFIED) & (log_value >= np.log(alphas) + 40)
    with np.errstate(over="ignore"):
        error = (shape + 8 * EPS * sum(np.abs(part) for part in parts)
                 + np.exp(np.log(alphas) - log_value) + 1e-32)
    return _FarPeak(center, log_value, error, used)


@dataclass
class _Points:
    """Points with ``log(P/D₀)``, ``log(Q/D₀)`` and the mean of Q's posterior over components
    (plain log-sum-exp: they only steer the quadrature and bound what it leaves out)."""

    z: np.ndarray
    log_p: np.ndarray
    log_q: np.ndarray
    mean_q: np.ndarray

    @staticmethod
    def at(pair: MixturePair, z: np.ndarray) -> "_Points":
        log_p, _ = _log_mixture(pair, Side.P, z)
        log_q, mean_q = _log_mixture(pair, Side.Q, z)
        return _Points(z, log_p, log_q, mean_q)

    def add(self, pair: MixturePair, z: np.ndarray) -> np.ndarray:
        """Append the points ``z``; returns their indices."""
        new = _Points.at(pair, z)
        start = self.z.size
        for name in ("z", "log_p", "log_q", "mean_q"):
            setattr(self, name, np.concatenate([getattr(self, name), getattr(new, name)]))
        return np.arange(start, self.z.size)


def _log_mixture(pair: MixturePair, side: Side, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log(M/D₀)`` of one side ``M`` of a Gaussian pair and the posterior mean of its
    components, whose ratio to σ² is the derivative of ``log(M/D₀)``."""
    means, log_weights = pair.components(side)
    logs = log_weights[:, None] + pair.relative_log(means, z)
    top = logs.max(axis=0)
    shares = np.exp(logs - top)
    total = shares.sum(axis=0)
    return top + np.log(total), (shares * means[:, None]).sum(axis=0) / total


def _log_gaussian_factor(s: float, width: np.ndarray) -> np.ndarray:
    """``log min(width, σ√(2π))``: ``∫ e^{q}`` over a cell of this width, ``q`` a quadratic with
    curvature ``−1/σ²``, is at most ``e^{max q}`` times this."""
    return np.log(np.minimum(width, s * math.sqrt(2 * math.pi)))


def _quadratic_max(constant: np.ndarray, slope: np.ndarray, a: np.ndarray, b: np.ndarray,
                   s: float) -> np.ndarray:
    """``max_{z∈[a,b]} constant + slope·(z − a) − (z² − a²)/2σ²``."""
    z = np.clip(s * s * slope, a, b)
    return constant + slope * (z - a) - (z - a) * (z + a) / (2 * s * s)


def _cell_bounds(pair: MixturePair, alpha: np.ndarray, points: _Points, ia: np.ndarray,
                 ib: np.ndarray, log_phi_ends: np.ndarray, monotone: bool) -> np.ndarray:
    """Upper bounds on ``log ∫ Q φ_α(P/Q)`` over the cells ``[z[ia], z[ib]]``.

    ``Q φ_α(P/Q) = P^α Q^{1−α} − αP + (α − 1)Q ≤ P^α Q^{1−α} + (α − 1)Q``; on the cell ``log P`` is
    below its chord and ``log Q`` above its tangents and below its chord, which bounds both terms by
    Gaussians. Where the privacy loss is monotone, also ``Q φ ≤ max Q · max(φ at the ends)``.
    """
    s = pair.scale
    a, b = points.z[ia], points.z[ib]
    width = b - a
    reference = -a * a / (2 * s * s) - math.log(s) - _LOG_ROOT_2PI
    chord_p = (points.log_p[ib] - points.log_p[ia]) / width
    chord_q = (points.log_q[ib] - points.log_q[ia]) / width
    power = np.full(a.shape, np.inf)
    for end in (ia, ib):
        slope_q = points.mean_q[end] / (s * s)   # the tangent of log Q at this end
        tangent_at_a = points.log_q[end] + slope_q * (a - points.z[end])
        constant = alpha * points.log_p[ia] + (1 - alpha) * tangent_at_a + reference
        slope = alpha * chord_p + (1 - alpha) * slope_q
        power = np.minimum(power, _quadratic_max(constant, slope, a, b, s))
    top_q = _quadratic_max(points.log_q[ia] + reference, chord_q, a, b, s)
    with np.errstate(divide="ignore"):
        bound = np.logaddexp(power, np.log(alpha - 1) + top_q)
    if monotone:
        bound = np.minimum(bound, top_q + log_phi_ends.max(axis=0))
    return bound + _log_gaussian_factor(s, width)


def _initial_edges(center: float, low: float, high: float, s: float) -> np.ndarray:
    """Cell edges covering ``[low, high]``: cells of width 2σ at ``center``, doubling outwards."""
    steps = _PANEL * s * (2.0 ** np.arange(64) - 1)
    right = center + steps[: int(np.searchsorted(center + steps, high)) + 1]
    left = center - steps[1: int(np.searchsorted(steps - center, -low)) + 1]
    return np.concatenate([left[::-1], right])


def _log_tail(x: np.ndarray) -> np.ndarray:
    """``log Φ(−x)`` bounded above by Mills' ratio, ``φ(x)/x``, for ``x > 0``."""
    return -x * x / 2 - np.log(x) - _LOG_ROOT_2PI


def _log_tails(pair: MixturePair, alphas: np.ndarray, points: _Points, left: np.ndarray,
               right: np.ndarray) -> np.ndarray:
    """A bound on ``log`` of ``∫ Q φ_α(P/Q)`` outside ``[z[left], z[right]]``, which contains every
    critical point of ``g = log(P^α Q^{1−α})`` and the means of Q widened by 14σ.

    ``g′(z) = (α m_P(z) + (1 − α) m_Q(z) − z)/σ²`` with posterior means ``m`` between the extreme
    means, so beyond the critical points ``g`` falls at least like a Gaussian of variance σ²
    from its value at the edge: each tail of ``P^α Q^{1−α}`` is at most ``e^{g(edge)} σ√(π/2)``, and
    each tail of ``(α − 1)Q`` at most ``(α − 1) Φ(−distance/σ)``."""
    s = pair.scale
    total = np.full(alphas.size, -np.inf)
    for end, distance in ((left, pair.q_means.min() - points.z[left]),
                          (right, points.z[right] - pair.q_means.max())):
        z = points.z[end]
        g = (alphas * points.log_p[end] + (1 - alphas) * points.log_q[end]
             - z * z / (2 * s * s) - math.log(s) - _LOG_ROOT_2PI)
        with np.errstate(divide="ignore"):
            q_part = np.log(alphas - 1) + _log_tail(distance / s)
        total = np.logaddexp(total, np.logaddexp(g + math.log(s) + 0.5 * math.log(math.pi / 2),
                                                 q_part))
    return total


@dataclass
class _Search:
    """The branch and bound over cells ``[z[start], z[stop]]``: each pair ``(order, cell)`` is
    still open; ``best`` holds, per order, ``log`` of an estimate of the integral, ``left_out``
    ``log`` of the bounds of what was dropped."""

    start: np.ndarray
    stop: np.ndarray
    order: np.ndarray
    cell: np.ndarray
    best: np.ndarray
    left_out: np.ndarray


def _quadratic_panels(pair: MixturePair, alphas: np.ndarray) -> tuple:
    """Panels of a quadratic log-density (the Gaussian's): the cells of
    :func:`_gaussian_cells` and, where used, the closed-form far peak as a piece."""
    far = _far_peak(pair, alphas)
    edges, group, neglected = _gaussian_cells(pair, alphas, far)
    pieces = np.where(far.used, far.log_value, -np.inf)
    piece_error = np.where(far.used, far.error, 0.0)
    return edges, group, pieces, piece_error, neglected


def _gaussian_cells(pair: MixturePair, alphas: np.ndarray, far: _FarPeak
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells (at most 2σ wide, with their order) where ``∫ Q φ_α(P/Q)`` may matter, and per order
    ``log`` of a bound on everything else (cells whose bound is below ``e^{−64}`` times the
    estimate, and the tails). The far peak, where used, is excluded.

    Branch and bound: starting from cells that double in width away from the means of Q, every
    cell whose bound (:func:`_cell_bounds`) reaches the threshold is cut into cells of 2σ (at most
    64 at a time), the others are dropped."""
    s = pair.scale
    points, search = _start_search(pair, alphas, far)
    monotone = pair.ratio_increases
    found = [(np.empty(0, dtype=int), np.empty(0, dtype=int), np.empty(0))]
    while search.order.size:
        bound = _search_round(pair, alphas, points, search, monotone)
        keep = bound >= search.best[search.order] - _DEPTH
        _leave_out(search.left_out, search.order[~keep], bound[~keep])
        width = points.z[search.stop[search.cell]] - points.z[search.start[search.cell]]
        done = keep & (width <= _PANEL * s * (1 + 1e-9))
        found.append((search.order[done], search.cell[done], bound[done]))
        _split(pair, points, search, keep & ~done, s)
    order, cell, bound = (np.concatenate(part) for part in zip(*found))
    keep = bound >= search.best[order] - _DEPTH   # the estimates have grown meanwhile
    _leave_out(search.left_out, order[~keep], bound[~keep])
    edges = np.column_stack([points.z[search.start[cell[keep]]],
                             points.z[search.stop[cell[keep]]]])
    return edges, order[keep], search.left_out


def _start_search(pair: MixturePair, alphas: np.ndarray, far: _FarPeak
                  ) -> tuple[_Points, _Search]:
    """The initial cells of every order: those meeting ``[lo − 14σ, hi + 14σ]`` (``lo``, ``hi``
    bounding the critical points of ``P^α Q^{1−α}`` and the means of Q), less the far peak; the
    tails beyond them are left out from the start."""
    s = pair.scale
    nu_lo, nu_hi = pair.q_means.min(), pair.q_means.max()
    low = np.minimum(alphas * pair.p_means.min() + (1 - alphas) * nu_hi, nu_lo) - _REACH * s
    high = np.maximum(alphas * pair.p_means.max() + (1 - alphas) * nu_lo, nu_hi) + _REACH * s
    points = _Points.at(pair, _initial_edges((nu_lo + nu_hi) / 2, low.min(), high.max(), s))
    start, stop = np.arange(points.z.size - 1), np.arange(1, points.z.size)
    order, cell = np.nonzero((points.z[start][None, :] < high[:, None])
                             & (points.z[stop][None, :] > low[:, None]))
    left, right = np.full(alphas.size, start.size), np.zeros(alphas.size, dtype=int)
    np.minimum.at(left, order, start[cell])
    np.maximum.at(right, order, stop[cell])
    search = _Search(start, stop, order, cell, np.where(far.used, far.log_value, -np.inf),
                     _log_tails(pair, alphas, points, left, right))
    _cut_out_far_peak(pair, points, search, far, s)
    return points, search


def _cut_out_far_peak(pair: MixturePair, points: _Points, search: _Search, far: _FarPeak,
                      s: float) -> None:
    """Replaces each open pair whose cell overlaps its order's closed-form far peak by the parts
    of the cell on either side of it."""
    a, b = points.z[search.start[search.cell]], points.z[search.stop[search.cell]]
    low, high = (far.center - _MAIN * s)[search.order], (far.center + _MAIN * s)[search.order]
    over = far.used[search.order] & (a < high) & (b > low)
    if not over.any():
        return
    owner, cell = search.order[over], search.cell[over]
    ends = points.add(pair, np.concatenate([low[over], high[over]])).reshape(2, -1)
    left, right = a[over] < low[over], b[over] > high[over]
    base = search.start.size
    search.start = np.concatenate([search.start, search.start[cell[left]], ends[1][right]])
    search.stop = np.concatenate([search.stop, ends[0][left], search.stop[cell[right]]])
    search.order = np.concatenate([search.order[~over], owner[left], owner[right]])
    search.cell = np.concatenate([search.cell[~over],
                                  base + np.arange(left.sum() + right.sum())])


def _search_round(pair: MixturePair, alphas: np.ndarray, points: _Points, search: _Search,
                  monotone: bool) -> np.ndarray:
    """Bounds of the open pairs; raises ``best`` by the integrand's values at their ends."""
    s = pair.scale
    alpha = alphas[search.order]
    ends = np.stack([search.start[search.cell], search.stop[search.cell]])
    log_phi_ends = log_phi(np.broadcast_to(alpha, ends.shape),
                           points.log_p[ends] - points.log_q[ends])
    z = points.z[ends]
    values = log_phi_ends + points.log_q[ends] - z * z / (2 * s * s) - math.log(s) - _LOG_ROOT_2PI
    np.maximum.at(search.best, search.order, values.max(axis=0) + math.log(s))
    return _cell_bounds(pair, alpha, points, ends[0], ends[1], log_phi_ends, monotone)


def _leave_out(left_out: np.ndarray, order: np.ndarray, bound: np.ndarray) -> None:
    """Adds the bounds of dropped cells to their orders' ``left_out`` (in place, in logs)."""
    if order.size:
        top = np.full(left_out.size, -np.inf)
        np.maximum.at(top, order, bound)
        total = np.zeros(left_out.size)
        with np.errstate(invalid="ignore"):
            np.add.at(total, order, np.exp(bound - top[order]))
        with np.errstate(divide="ignore"):
            left_out[:] = np.logaddexp(left_out, top + np.log(total))


def _split(pair: MixturePair, points: _Points, search: _Search, wide: np.ndarray,
           s: float) -> None:
    """Cuts the cells of the ``wide`` open pairs into pieces of 2σ (at most 64); the pieces
    replace them as the open pairs."""
    parents, inverse = np.unique(search.cell[wide], return_inverse=True)
    a, b = points.z[search.start[parents]], points.z[search.stop[parents]]
    pieces = np.minimum(np.ceil((b - a) / (_PANEL * s)), 64).astype(int)
    owner = np.repeat(np.arange(parents.size), pieces - 1)
    step = np.arange(owner.size) - _starts(pieces - 1)[owner] + 1
    new = points.add(pair, a[owner] + (b - a)[owner] * step / pieces[owner])
    # each parent's edges: its start, its new points, its stop
    first = _starts(pieces + 1)
    last = first + pieces
    edge = np.empty(int((pieces + 1).sum()), dtype=int)
    inner = np.ones(edge.size, dtype=bool)
    inner[first], inner[last] = False, False
    edge[first], edge[last], edge[inner] = search.start[parents], search.stop[parents], new
    base = search.start.size
    search.start = np.concatenate([search.start, np.delete(edge, last)])
    search.stop = np.concatenate([search.stop, np.delete(edge, first)])
    count = pieces[inverse]
    search.order = np.repeat(search.order[wide], count)
    search.cell = (base + np.repeat(_starts(pieces)[inverse], count)
                   + np.arange(count.sum()) - np.repeat(_starts(count), count))


def _starts(counts: np.ndarray) -> np.ndarray:
    """Where each of consecutive blocks of the given sizes starts."""
    return np.cumsum(counts) - counts
