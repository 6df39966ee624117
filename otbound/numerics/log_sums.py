"""Sums of independent lognormal variables, as distributions of ``log S`` on a grid, rounded the
safe way.

A distribution is kept on the grid ``origin + k·step``; every value that falls between two grid
points is moved to the one above (``up``: the computed ``S`` is stochastically larger than the
true one) or below (``down``: smaller). The mean of a function of ``S`` that increases with ``S``
is then bounded above by the ``up`` distribution and below by the ``down`` one (and the other way
round for a decreasing function): no approximation goes the wrong way, and the gap between the
two is the discretisation error.

Two distributions combine into that of ``log(e^A + e^B)`` (independent ``A``, ``B``): grid
points ``i`` of ``A`` and ``j`` of ``B`` go to ``i + κ(j − i)`` (or ``j + κ'(j − i)``), where
``κ`` depends only on the offset ``d = j − i`` and takes few values, so each value's pairs are
summed at once from cumulative sums (``O(n · log 2/step)`` instead of ``O(n²)``). Where one
term is negligible, the result's origin is moved by a tiny ``η`` instead of a whole grid step, so
sums of many terms do not drift by a step per addition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

SAFETY = 1e-9
"""Slack (in grid steps) of every rounding to the grid: covers the floating-point error of the
computed position (below 1e-11 steps for grids of up to 10⁶ points)."""
SHIFT = 1e-6
"""``η`` (in grid steps, well above :data:`SAFETY`): how far an origin moves per addition to
absorb a negligible term."""
TRIM = 1e-30
"""Mass at either end of a distribution taken off its grid, the safe way, to keep grids
short."""


@dataclass(frozen=True)
class LogSum:
    """The distribution of ``log S`` on ``origin + k·step``, and ``beyond``: the probability
    that ``S`` is above the grid (``up``: counted as ``+∞``) or below it (``down``: counted as
    ``0``)."""

    origin: float
    step: float
    mass: np.ndarray
    beyond: float
    up: bool

    def points(self) -> np.ndarray:
        return self.origin + self.step * np.arange(self.mass.size)


def lognormal(mean: float, scale: float, step: float, bottom: float, top: float,
              up: bool) -> LogSum:
    """``log S ~ N(mean, scale²)`` on the grid from ``bottom`` to ``top`` (rounded ``up`` or
    down); each cell's probability from the normal distribution function, taken from the side
    of the nearer tail (no cancellation)."""
    from scipy.special import ndtr

    size = math.ceil((top - bottom) / step) + 1
    z = (bottom + step * np.arange(size) - mean) / scale
    below, above = ndtr(z), ndtr(-z)
    between = cells_between(below, above)
    if up:   # (g_{k−1}, g_k] → g_k
        mass, beyond = np.concatenate([[below[0]], between]), above[-1]
    else:    # [g_k, g_{k+1}) → g_k
        mass, beyond = np.concatenate([between, [above[-1]]]), below[0]
    return LogSum(bottom, step, np.maximum(mass, 0.0), float(beyond), up)


def cells_between(below: np.ndarray, above: np.ndarray) -> np.ndarray:
    """The probabilities between consecutive points, from the distribution function
    (``below``) and the survival function (``above``) there, each difference taken on the side
    of the nearer tail (no cancellation in either tail)."""
    return np.where(below[1:] <= 0.5, below[1:] - below[:-1], above[:-1] - above[1:])


def repeated(item, count: int, combine: Callable):
    """``item`` combined with itself into ``count`` copies (``count ≥ 1``), by doubling: about
    ``2 log₂ count`` combinations (sums of independent copies, compositions …)."""
    total, power = None, item
    while count:
        if count & 1:
            total = power if total is None else combine(total, power)
        count >>= 1
        if count:
            power = combine(power, power)
    return total


def combined(a: LogSum, b: LogSum, top: float) -> LogSum:
    """The distribution of ``log(e^A + e^B)``, rounded as ``a`` and ``b`` are, on a grid up to
    ``top`` (above it: ``beyond`` when rounding up, the last point when rounding down)."""
    if a.up != b.up or a.step != b.step:
        raise ValueError("combine distributions rounded the same way on grids of one step")
    h, up = a.step, a.up
    origin = (max(a.origin, b.origin) + SHIFT * h if up
              else min(a.origin, b.origin) - SHIFT * h)
    size = max(math.ceil((top - origin) / h) + 1, 1)
    out = np.zeros(size + 1)   # the last entry: above the grid
    gap = b.origin - a.origin
    split = math.floor(-gap / h)   # d ≤ split: A is the larger term
    pad = a.mass.size + b.mass.size + 2   # windows reach this far past either end
    sums_a, sums_b = _WindowSums(a.mass, pad), _WindowSums(b.mass, pad)
    low, high = -(a.mass.size - 1), b.mass.size - 1
    offsets = np.arange(low, min(split, high) + 1)        # A larger: value a + log1p(e^{b−a})
    _add_groups(out, a.mass, sums_b, offsets,
                _rounded((a.origin - origin + np.log1p(np.exp(gap + offsets * h))) / h, up), 1)
    offsets = np.arange(max(split + 1, low), high + 1)   # B larger
    _add_groups(out, b.mass, sums_a, offsets,
                _rounded((b.origin - origin + np.log1p(np.exp(-gap - offsets * h))) / h, up), -1)
    mass, overflow = out[:size], out[size]
    if up:
        beyond = a.beyond + b.beyond - a.beyond * b.beyond + overflow
    else:   # the sum is at least the other term: pairs with one term below the grid stay
        mass[-1] += overflow
        _add_shifted(mass, b.mass * a.beyond, _rounded((b.origin - origin) / h, False))
        _add_shifted(mass, a.mass * b.beyond, _rounded((a.origin - origin) / h, False))
        beyond = a.beyond * b.beyond
    return _trimmed(LogSum(origin, h, mass, beyond, up))


def _rounded(position: np.ndarray | float, up: bool):
    """Grid indices of exact positions (in steps), rounded the safe way."""
    if up:
        return np.ceil(np.asarray(position) + SAFETY).astype(np.int64)
    return np.floor(np.asarray(position) - SAFETY).astype(np.int64)


class _WindowSums:
    """``Σ mass[i + first … i + last]`` for ``i = 0 … m − 1`` as array slices (zero outside
    the array), from prefix sums in the lower half and suffix sums in the upper half, so that a
    window in either tail keeps its relative precision."""

    def __init__(self, mass: np.ndarray, pad: int) -> None:
        self.pad = pad
        prefix = np.concatenate([[0.0], np.cumsum(mass)])
        suffix = np.concatenate([np.cumsum(mass[::-1])[::-1], [0.0]])
        self.prefix = np.concatenate([np.zeros(self.pad), prefix, np.full(self.pad, prefix[-1])])
        self.suffix = np.concatenate([np.full(self.pad, suffix[0]), suffix, np.zeros(self.pad)])

    def window(self, first: int, last: int, count: int) -> np.ndarray:
        lo, hi = self.pad + first, self.pad + last + 1
        below_hi, below_lo = self.prefix[hi:hi + count], self.prefix[lo:lo + count]
        above_lo, above_hi = self.suffix[lo:lo + count], self.suffix[hi:hi + count]
        window = np.where(below_hi <= 0.5, below_hi - below_lo, above_lo - above_hi)
        return np.maximum(window, 0.0)


def _add_groups(out: np.ndarray, mass: np.ndarray, other: _WindowSums, offsets: np.ndarray,
                shifts: np.ndarray, sign: int) -> None:
    """For each run of offsets ``d`` with one shift ``κ``: ``out[i + κ] += mass[i] ·
    Σ_d other[i + sign·d]`` (``sign`` −1: ``other``'s index is ``i − d``)."""
    if offsets.size == 0:
        return
    starts = np.concatenate([[0], np.flatnonzero(np.diff(shifts)) + 1])
    ends = np.concatenate([starts[1:] - 1, [offsets.size - 1]])
    for start, end in zip(starts, ends):
        first, last = sorted((sign * int(offsets[start]), sign * int(offsets[end])))
        _add_shifted(out, mass * other.window(first, last, mass.size), int(shifts[start]))


def _add_shifted(out: np.ndarray, values: np.ndarray, shift: int) -> None:
    """``out[k + shift] += values[k]``, the part past the end into ``out[-1]`` (a negative
    shift only for pairs that have no mass: a term below its own grid)."""
    if shift < 0:
        if values[:-shift].any():
            raise ValueError("a sum rounded below the grid of its larger term")
        values, shift = values[-shift:], 0
    fit = max(0, min(values.size, out.size - 1 - shift))
    out[shift:shift + fit] += values[:fit]
    out[-1] += values[fit:].sum()


def _trimmed(dist: LogSum) -> LogSum:
    """Grid points at either end holding at most :data:`TRIM` in all taken off: those at the
    low end moved to the next point (up) or below the grid (down), those at the high end above
    the grid (up) or to the point before (down)."""
    mass = dist.mass
    low = min(int(np.searchsorted(np.cumsum(mass), TRIM, side="right")), mass.size - 1)
    high = max(mass.size - int(np.searchsorted(np.cumsum(mass[::-1]), TRIM, side="right")),
               low + 1)
    if low == 0 and high == mass.size:
        return dist
    kept, under, over = mass[low:high].copy(), float(mass[:low].sum()), float(mass[high:].sum())
    beyond = dist.beyond
    if dist.up:
        kept[0] += under
        beyond += over
    else:
        kept[-1] += over
        beyond += under
    return LogSum(dist.origin + low * dist.step, dist.step, kept, beyond, dist.up)
