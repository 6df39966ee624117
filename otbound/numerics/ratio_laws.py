"""The likelihood ratio of one step: what an epoch's privacy is built from.

A mechanism's worst pair at distance 1, ``(P₁, P₀)`` (:meth:`Mechanism.distance_pair`), has the
likelihood ratio ``L = dP₁/dP₀``. Its law under ``P₀`` — and under ``P₁``, which is the same law
tilted by ``L`` — is a :class:`RatioLaw`: atoms of ``log L`` with their masses under both, and a
continuous part given by its distribution functions. Gaussian noise gives a lognormal ``L``,
Laplace noise two atoms and a continuous part between them, randomized response two atoms.

What the sums of :mod:`otbound.numerics.ratio_sums` need is the mass and the first moment of
``L`` under ``P₀`` on the cells of a grid of ``log L``; the first moment of a cell under ``P₀``
is its mass under ``P₁`` (``E_{P₀}[L; A] = P₁(A)``), so both are probabilities, each computed
from the side of its nearer tail (no cancellation in either tail).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from otbound.errors import UnsupportedOperation

Distribution = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
"""``x ↦ (P(X ≤ x), P(X > x))`` of the continuous part (each accurate in its own tail)."""


@dataclass(frozen=True)
class Cells:
    """Masses under ``P₀`` (``q``) and ``P₁`` (``p``) of ``log L`` in the cells ``(x_j, x_{j+1}]``
    of a grid, and below its first point and above its last."""

    q: np.ndarray
    p: np.ndarray
    q_below: float
    p_below: float
    q_above: float
    p_above: float


@dataclass(frozen=True, eq=False)
class RatioLaw:
    """The law of ``log L``: atoms (``log L`` values with their ``P₀`` and ``P₁`` masses) and a
    continuous part (its distribution functions under ``P₀`` and ``P₁``, each of total mass
    ``1 −`` the atoms' mass on its side); ``low``, ``high`` bound the support."""

    atoms: np.ndarray
    atom_q: np.ndarray
    atom_p: np.ndarray
    continuous_q: Distribution | None
    continuous_p: Distribution | None
    low: float
    high: float
    source: str
    pair: object = None
    """The one-step pair ``(P₁, P₀)`` the law is of, where known (its Rényi divergences give the
    moments of ``L``)."""

    def cells(self, grid: np.ndarray) -> Cells:
        """Masses of the cells of ``grid`` (increasing points of ``log L``)."""
        q, q_below, q_above = self._cells(grid, self.continuous_q, self.atom_q)
        p, p_below, p_above = self._cells(grid, self.continuous_p, self.atom_p)
        return Cells(q, p, q_below, p_below, q_above, p_above)

    def _cells(self, grid: np.ndarray, continuous: Distribution | None,
               atom_mass: np.ndarray) -> tuple[np.ndarray, float, float]:
        if continuous is None:
            mass, below, above = np.zeros(grid.size - 1), 0.0, 0.0
        else:
            cdf, sf = continuous(grid)
            mass = np.where(cdf[1:] <= sf[:-1], cdf[1:] - cdf[:-1], sf[:-1] - sf[1:])
            mass, below, above = np.maximum(mass, 0.0), float(cdf[0]), float(sf[-1])
        cell = np.searchsorted(grid, self.atoms, side="left") - 1   # (x_j, x_{j+1}] holds it
        inside = (cell >= 0) & (cell < grid.size - 1)
        np.add.at(mass, cell[inside], atom_mass[inside])
        below += float(atom_mass[cell < 0].sum())
        above += float(atom_mass[cell >= grid.size - 1].sum())
        return mass, below, above

    def reach(self, tail: float) -> tuple[float, float]:
        """An interval of ``log L`` outside which both laws have mass below ``tail`` on each
        side (within the support; within a factor 2 of the shortest, found by doubling and
        halving from the scale 1)."""
        def outside(edge: float, side: int) -> float:
            cells = self.cells(np.array([edge, edge + 1.0]) if side < 0
                               else np.array([edge - 1.0, edge]))
            return (max(cells.q_below, cells.p_below) if side < 0
                    else max(cells.q_above, cells.p_above))

        found = []
        for side, bound in ((-1, self.low), (1, self.high)):
            if math.isfinite(bound):
                found.append(bound)
                continue
            centre = -side * 0.0
            span = 1.0
            while outside(centre + side * span, side) > tail:
                span *= 2
                if span > 1e6:
                    raise UnsupportedOperation("the likelihood ratio of one step has no usable "
                                               "range")
            while span > 1e-9 and outside(centre + side * span / 2, side) <= tail:
                span /= 2
            found.append(centre + side * span)
        return found[0], found[1]


def gaussian_law(noise_multiplier: float) -> RatioLaw:
    """``N(1, σ²)`` against ``N(0, σ²)``: ``log L = z/σ² − 1/(2σ²)``, normal with mean ``∓s²/2``
    and variance ``s²`` under ``P₀`` and ``P₁`` (``s = 1/σ``)."""
    from scipy.special import ndtr

    s = 1.0 / noise_multiplier

    def normal(mean: float) -> Distribution:
        def both(x: np.ndarray):
            z = (x - mean) / s
            return ndtr(z), ndtr(-z)
        return both

    empty = np.zeros(0)
    return RatioLaw(empty, empty, empty, normal(-s * s / 2), normal(s * s / 2), -math.inf,
                    math.inf, f"Gaussian: N(1, σ²) against N(0, σ²), σ = {noise_multiplier:g}")


def laplace_law(noise_multiplier: float) -> RatioLaw:
    """``Laplace(1, b)`` against ``Laplace(0, b)``: ``log L = (|z| − |z − 1|)/b`` is ``−1/b`` for
    ``z ≤ 0`` (mass ½ under ``P₀``, ``e^{−1/b}/2`` under ``P₁``), ``+1/b`` for ``z ≥ 1`` (the
    reverse) and ``(2z − 1)/b`` in between."""
    b = noise_multiplier
    tail = math.exp(-1 / b) / 2
    middle = 0.5 - tail   # the continuous part's mass, the same under both

    def part(tilted: bool) -> Distribution:
        def both(x: np.ndarray):
            u = np.clip((1 + b * np.asarray(x, dtype=float)) / 2, 0.0, 1.0)   # z at x
            # P₀: density e^{−z/b}/2b on (0, 1); P₁: e^{−(1−z)/b}/2b
            if tilted:
                cdf = (np.exp(-(1 - u) / b) - math.exp(-1 / b)) / 2
                sf = -np.expm1(-(1 - u) / b) / 2
            else:
                cdf = -np.expm1(-u / b) / 2
                sf = (np.exp(-u / b) - math.exp(-1 / b)) / 2
            return np.minimum(cdf, middle), np.minimum(sf, middle)
        return both

    atoms = np.array([-1 / b, 1 / b])
    return RatioLaw(atoms, np.array([0.5, tail]), np.array([tail, 0.5]), part(False), part(True),
                    -1 / b, 1 / b,
                    f"Laplace: Laplace(1, b) against Laplace(0, b), b = {noise_multiplier:g}")


def finite_law(p: np.ndarray, q: np.ndarray, source: str) -> RatioLaw:
    """Two distributions on a finite set: ``log L = log(p_i/q_i)`` with masses ``q_i``, ``p_i``."""
    keep = (p > 0) | (q > 0)
    if np.any((p > 0) & (q == 0)):
        raise UnsupportedOperation("the worst pair at distance 1 has an output the other "
                                   "cannot produce: no finite likelihood ratio")
    p, q = p[keep & (q > 0)], q[keep & (q > 0)]
    with np.errstate(divide="ignore"):
        atoms = np.log(p) - np.log(q)
    order = np.argsort(atoms)
    atoms, p, q = atoms[order], p[order], q[order]
    finite = np.isfinite(atoms)
    return RatioLaw(atoms[finite], q[finite], p[finite], None, None,
                    float(atoms[finite].min()), float(atoms[finite].max()), source)


@functools.lru_cache(maxsize=64)
def ratio_law(mechanism) -> RatioLaw:
    """The law of the likelihood ratio of the mechanism's worst pair at distance 1: from its
    noise family (:meth:`NoiseFamily.shift_ratio_law`), or from the finite pair itself."""
    from otbound.numerics.pairs import FinitePair

    pair = mechanism.distance_pair(1)
    if isinstance(pair, FinitePair):
        law = finite_law(pair.p, pair.q, f"{mechanism.name}: its two outputs' distributions")
    else:
        law = pair.family.shift_ratio_law(pair.scale)
    if law is None:
        raise UnsupportedOperation(f"the {mechanism.name} family has no likelihood-ratio law "
                                   "for epoch-level sampling")
    return replace(law, pair=pair)
