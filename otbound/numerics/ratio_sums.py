"""Sums of independent likelihood ratios ``S = L₁ + … + L_T``, bounded in convex order on a grid
of ``log S`` — the numbers of epoch-level sampling (:mod:`otbound.numerics.allocation`).

Random allocation of one step in ``T`` has the likelihood ratio ``S/T``, so every divergence of
its pair is ``E[φ(S)]`` for a convex ``φ`` under ``Q`` (001 Sec. 2; the hockey stick
``(s/T − γ)_+`` and ``(1 − γ s/T)_+``, and ``(s/T)^α``). Two computations bound ``S`` in the
convex order, ``S⁻ ≤_cx S ≤_cx S⁺``, which bounds every such ``E[φ(S)]`` from both sides:

* :class:`SpreadSum` (``S⁺``): every value that falls between two grid points is split between
  them so that its mean is kept (a mean-preserving spread), at the start and in every addition;
  a spread only raises ``E[φ]``, and independent sums keep the order (Shaked & Shanthikumar
  2007, Thm. 3.A.12). Its losses lie on the grid exactly.
* :class:`ContractedSum` (``S⁻``): values are grouped and each group replaced by its mean (a
  conditional expectation, which only lowers ``E[φ]``); the masses and the first moments of the
  groups are carried exactly.

Both errors are of second order in the grid step: a spread or a grouping changes ``S`` by a
fraction of a step with mean zero, so ``E[φ]`` moves by the square of it.

The grid is ``x_j = base + j·step`` (natural logarithms). Adding two distributions pairs a point
``u`` of one with ``v ≤ u`` of the other: the sum is at ``u + log1p(e^{−(u−v)·step})/step``, a
shift ``κ`` of whole steps and a fraction that depend only on ``d = u − v``; the offsets with one
``κ`` are summed at once from cumulative sums (taken from the nearer end, so the tails keep their
relative precision), which makes an addition cost ``O(n log 2/step)``, not ``O(n²)``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from otbound.numerics.ratio_laws import RatioLaw

TAIL = 1e-30
"""Mass taken off either end of a distribution (the safe way: spread to zero or infinity for
``S⁺``, left out for ``S⁻``) to keep grids short."""


@dataclass(frozen=True)
class LogGrid:
    """The points ``base + j·step`` of ``log S``."""

    step: float
    base: float

    def values(self, offset: int, size: int) -> np.ndarray:
        """``e^{x_j}`` for ``j = offset … offset + size − 1``."""
        return np.exp(self.base + self.step * (offset + np.arange(size)))


@functools.lru_cache(maxsize=16)
def _shifts(step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs of offsets ``d ≥ 0`` with one shift ``κ(d) = ⌊log1p(e^{−d·step})/step⌋``:
    ``(κ, first d, last d)``; the last run (``κ = 0``) is open-ended."""
    last = math.ceil(-math.log(math.expm1(step)) / step) + 2   # κ(d) = 0 from here on
    d = np.arange(last + 1)
    kappa = np.floor(np.log1p(np.exp(-d * step)) / step).astype(np.int64)
    starts = np.concatenate([[0], np.flatnonzero(np.diff(kappa)) + 1])
    ends = np.concatenate([starts[1:] - 1, [np.iinfo(np.int64).max // 4]])
    return kappa[starts], starts, ends


def _runs(step: float, span: int, skip_zero: bool):
    """``(κ, first d, last d)`` for the offsets ``0 … span`` (``1 … span`` with
    ``skip_zero``)."""
    for kappa, first, last in zip(*_shifts(step)):
        first = max(int(first), 1 if skip_zero else 0)
        last = min(int(last), span)
        if first <= last:
            yield int(kappa), first, last


class _Windows:
    """``Σ values[i + first … i + last]`` for ``i = 0 … count − 1`` (zero outside the array,
    ``count ≤ reach``), each from prefix sums where they are below half the total and from suffix
    sums otherwise, so a window in either tail keeps its relative precision."""

    def __init__(self, values: np.ndarray, reach: int) -> None:
        self.size, self.pad = values.size, values.size + reach + 2
        pad = self.pad
        prefix = np.cumsum(values)
        total = prefix[-1] if prefix.size else 0.0
        suffix = np.cumsum(values[::-1])[::-1]
        self.prefix = np.concatenate([np.zeros(pad + 1), prefix, np.full(pad, total)])
        self.suffix = np.concatenate([np.full(pad, total), suffix, np.zeros(pad + 1)])
        self.half = total / 2

    def windows(self, firsts: np.ndarray, lasts: np.ndarray, count: int) -> np.ndarray:
        """One row of windows per ``(first, last)``: shape ``(len(firsts), count)``."""
        from numpy.lib.stride_tricks import sliding_window_view

        starts = self.pad + np.clip(firsts, -self.pad, self.size)
        stops = self.pad + np.clip(lasts + 1, -self.pad, self.size)
        prefix = sliding_window_view(self.prefix, count)
        suffix = sliding_window_view(self.suffix, count)
        below_stop = prefix[stops]
        found = np.where(below_stop <= self.half, below_stop - prefix[starts],
                         suffix[starts] - suffix[stops])
        return np.maximum(found, 0.0, out=found)


def _pairings(x_offset: int, x_size: int, y_offset: int, step: float,
              skip_zero: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the points ``u`` of ``x`` paired with ``v = u − d`` of ``y`` (``d ≥ 0``): each run of
    offsets as ``κ`` and the window of ``y``'s indices ``i + first … i + last`` for ``x``'s
    index ``i`` (arrays, one entry per run)."""
    span = x_offset + x_size - y_offset
    runs = np.array(list(_runs(step, span, skip_zero)), dtype=np.int64).reshape(-1, 3)
    shift = x_offset - y_offset
    return runs[:, 0], shift - runs[:, 2], shift - runs[:, 1]


def _deposit(out: np.ndarray, rows: np.ndarray, starts: np.ndarray) -> None:
    """``out[starts[g] + i] += rows[g, i]``."""
    width = rows.shape[1]
    for row, start in zip(rows, starts):
        out[start:start + width] += row


@dataclass(frozen=True)
class SpreadSum:
    """``S⁺``: masses at the grid points ``offset …``, a mass ``zero`` at ``S = 0`` and a first
    moment ``infinite`` carried by mass at ``S → ∞`` (the limit of spreading a tail to a point
    ever farther away: no mass, but its share of the mean). ``count`` summands."""

    grid: LogGrid
    offset: int
    mass: np.ndarray
    zero: float
    infinite: float
    count: int

    def plus(self, other: "SpreadSum") -> "SpreadSum":
        """``S⁺`` of the sum of independent ``self`` and ``other``: each pair's sum split between
        the two grid points around it, its mean kept."""
        step, base = self.grid.step, min(self.offset, other.offset)
        top = max(self.offset + self.mass.size, other.offset + other.mass.size)
        out = np.zeros(top - base + math.ceil(math.log(2) / step) + 3)
        grow = math.expm1(step)
        for x, y, skip in ((self, other, False), (other, self, True)):
            kappa, first, last = _pairings(x.offset, x.mass.size, y.offset, step, skip)
            if kappa.size == 0:
                continue
            size = x.mass.size
            near = _Windows(y.mass, size).windows(first, last, size)
            # Σ_v y_v e^{−(u−v)·step} over the window, by y's own offset
            exponent = np.minimum(-step * (x.offset - y.offset + np.arange(size)), 700.0)
            far = (_Windows(y.mass * np.exp(step * np.arange(y.mass.size)), size)
                   .windows(first, last, size) * np.exp(exponent))
            # value/e^{x_u} = 1 + e^{−d·step} ∈ [e^{κ·step}, e^{(κ+1)·step}): the share of the
            # upper point keeps the mean (affine in e^{−d·step}: two windows suffice)
            scale = (np.exp(kappa * step) * grow)[:, None]
            share = np.clip((far - np.expm1(kappa * step)[:, None] * near) / scale, 0.0, near)
            up = x.mass * share
            at = x.offset - base + kappa
            _deposit(out, x.mass * near - up, at)
            _deposit(out, up, at + 1)
        if self.zero:
            out[other.offset - base:other.offset - base + other.mass.size] += self.zero * \
                other.mass
        if other.zero:
            out[self.offset - base:self.offset - base + self.mass.size] += other.zero * self.mass
        return SpreadSum(self.grid, base, out, self.zero * other.zero,
                         self.infinite + other.infinite, self.count + other.count).trimmed()

    def trimmed(self) -> "SpreadSum":
        """Without the points at either end that hold less than :data:`TAIL` together: those
        below spread onto ``0`` and the first point kept, those above onto the last point kept
        and ``∞`` (their excess over it carried as ``infinite``)."""
        low, high = _trim_bounds(self.mass)
        if low == 0 and high == self.mass.size:
            return self
        values = self.grid.values(self.offset, self.mass.size)
        kept = self.mass[low:high].copy()
        under, over = self.mass[:low], self.mass[high:]
        lifted = under * values[:low] / values[low]
        kept[0] += lifted.sum()
        kept[-1] += over.sum()
        return SpreadSum(self.grid, self.offset + low, kept,
                         self.zero + float(np.maximum(under - lifted, 0.0).sum()),
                         self.infinite + float((over * (values[high:] - values[high - 1])).sum()),
                         self.count)

    def values(self) -> np.ndarray:
        return self.grid.values(self.offset, self.mass.size)

    @staticmethod
    def of(law: RatioLaw, grid: LogGrid, low: int, high: int) -> "SpreadSum":
        """One summand spread onto the points ``low … high``: each cell's mass split between its
        two ends keeping its first moment; below the first point onto ``{0, x_low}``, above the
        last onto ``{x_high, ∞}``."""
        values = grid.values(low, high - low + 1)
        cells = law.cells(np.log(values))
        mass = np.zeros(values.size)
        up = np.clip((cells.p - cells.q * values[:-1]) / (values[1:] - values[:-1]), 0.0,
                     cells.q)
        mass[1:] += up
        mass[:-1] += cells.q - up
        lifted = min(cells.p_below / values[0], cells.q_below)
        mass[0] += lifted
        mass[-1] += cells.q_above
        return SpreadSum(grid, low, mass, cells.q_below - lifted,
                         max(cells.p_above - cells.q_above * values[-1], 0.0), 1).trimmed()


@dataclass(frozen=True)
class ContractedSum:
    """``S⁻``: groups of outcomes at the grid points ``offset …`` (a point's group lies within
    about a step of it), each with its mass and its first moment ``moment`` (in units of the
    point's value: the group's mean is ``value · moment/mass``). ``count`` summands."""

    grid: LogGrid
    offset: int
    mass: np.ndarray
    moment: np.ndarray
    count: int

    def plus(self, other: "ContractedSum") -> "ContractedSum":
        """The groups of the sum: a pair's group is fixed by the two groups' points and the shift
        of their offset; masses and moments add up exactly."""
        step, base = self.grid.step, min(self.offset, other.offset)
        top = max(self.offset + self.mass.size, other.offset + other.mass.size)
        size = top - base + math.ceil(math.log(2) / step) + 3
        mass, moment = np.zeros(size), np.zeros(size)
        for x, y, skip in ((self, other, False), (other, self, True)):
            kappa, first, last = _pairings(x.offset, x.mass.size, y.offset, step, skip)
            if kappa.size == 0:
                continue
            count = x.mass.size
            at = x.offset - base + kappa
            near = _Windows(y.mass, count).windows(first, last, count)
            shrink = np.exp(-step * kappa)[:, None]   # units of the point u + κ
            exponent = np.minimum(step * (y.offset - x.offset - np.arange(count)), 700.0)
            far = (_Windows(y.moment * np.exp(step * np.arange(y.mass.size)), count)
                   .windows(first, last, count) * np.exp(exponent) * shrink)
            _deposit(mass, x.mass * near, at)
            _deposit(moment, x.moment * shrink * near + x.mass * far, at)
        return ContractedSum(self.grid, base, mass, moment,
                             self.count + other.count).regrouped()

    def regrouped(self) -> "ContractedSum":
        """Each group moved to the grid point nearest its mean, groups meeting there merged
        (coarser groups: still a contraction), and the groups at either end holding less than
        :data:`TAIL` left out (a lower bound may drop mass)."""
        present = np.flatnonzero(self.mass > 0)
        if present.size == 0:
            return self
        moment = self.moment[present]
        # a group whose moment underflowed stays where it is (its moment, only ever too small,
        # makes the lower bound only lower)
        ratio = np.where(moment > 0, moment, self.mass[present]) / self.mass[present]
        shift = np.rint(np.log(ratio) / self.grid.step)
        target = present + shift.astype(np.int64)
        low = int(target.min())
        size = int(target.max()) - low + 1
        mass = np.bincount(target - low, weights=self.mass[present], minlength=size)
        moment = np.bincount(target - low, weights=self.moment[present]
                             * np.exp(-self.grid.step * shift), minlength=size)
        first, last = _trim_bounds(mass)
        return ContractedSum(self.grid, self.offset + low + first, mass[first:last],
                             moment[first:last], self.count)

    def means(self) -> np.ndarray:
        """Each group's mean (``0`` for an empty one)."""
        filled = self.mass > 0
        return np.where(filled, self.grid.values(self.offset, self.mass.size)
                        * self.moment / np.where(filled, self.mass, 1.0), 0.0)

    @staticmethod
    def of(law: RatioLaw, grid: LogGrid, low: int, high: int) -> "ContractedSum":
        """One summand grouped by the cells ``(x_j, x_{j+1}]`` of ``low … high`` (below and above
        them into the end cells), each group at its cell's lower point."""
        values = grid.values(low, high - low + 1)
        cells = law.cells(np.log(values))
        q, p = cells.q.copy(), cells.p.copy()
        q[0] += cells.q_below
        p[0] += cells.p_below
        q[-1] += cells.q_above
        p[-1] += cells.p_above
        return ContractedSum(grid, low, q, p / values[:-1], 1).regrouped()


def _trim_bounds(mass: np.ndarray) -> tuple[int, int]:
    """``[low, high)``: the points kept when each end loses at most :data:`TAIL` of mass."""
    low = min(int(np.searchsorted(np.cumsum(mass), TAIL, side="right")), mass.size - 1)
    high = max(mass.size - int(np.searchsorted(np.cumsum(mass[::-1]), TAIL, side="right")),
               low + 1)
    return low, high


def repeated(item, count: int):
    """``item`` added to itself into ``count ≥ 1`` summands, by doubling (about ``2 log₂
    count`` additions)."""
    return repeated_by(item, count, lambda a, b: a.plus(b))


def repeated_by(item, count: int, combine):
    """``item`` combined with itself into ``count ≥ 1`` copies, by doubling (sums of independent
    copies, compositions …)."""
    total, power = None, item
    while count:
        if count & 1:
            total = power if total is None else combine(total, power)
        count >>= 1
        if count:
            power = combine(power, power)
    return total


def cells_between(below: np.ndarray, above: np.ndarray) -> np.ndarray:
    """The probabilities between consecutive points, from the distribution function
    (``below``) and the survival function (``above``) there, each difference taken on the side
    of the nearer tail (no cancellation in either tail)."""
    return np.where(below[1:] <= 0.5, below[1:] - below[:-1], above[:-1] - above[1:])
