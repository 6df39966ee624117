"""Certified brackets for random allocation (issue 42 item 5): both ends of an epoch's pair, and
their composition over epochs, in ball arithmetic (python-flint's arb).

The fast path (:mod:`otbound.numerics.allocation`) rounds with margins that are measured. Here
every number is a ball that holds the exact value, and each end is rounded the safe way.

**Upper end** (one of ``m`` steps). One step's likelihood ratio ``L`` (under ``Q = P₀``) is
spread onto the lattice ``0, h, …, Mh = c``: the mass of each cell ``(x_j, x_{j+1}]`` is split
between its ends keeping its first moment (``E_Q[L; A] = P₁(A)``), and what lies beyond ``c``
onto ``{c, ∞}`` (its moment above ``c`` carried to infinity, with no mass). Each summand is
spread independently, so the sum ``S⁺`` of ``m`` spread ratios bounds ``S`` in the convex order
(Shaked & Shanthikumar 2007, Thm. 3.A.12), and its law is exactly the ``m``-th power of the one
step's polynomial: one arb power series. What the series leaves out above its ``K``-th point is
spread onto ``{Kh, ∞}`` from its total mass and first moment (``f(1)^m`` and ``m f'(1)
f(1)^{m−1}``). Every privacy loss (``log(s/m)`` for the removal, ``log(m/s)`` for the insertion)
is rounded up to the PLD's grid and every mass taken at its ball's upper end. The hockey-stick
divergences of the composition are monotone in each mass and each loss, and convex in each
epoch's ratio, so every δ read from this measure bounds the truth. ``k > 1``: the
hidden-partition blocks of :class:`~otbound.numerics.allocation.Allocation`, composed.

**Lower end**: the pair of laws of a statistic of the outputs, ``Σ_t g(L_t)`` (a
post-processing, so its pair is dominated by the truth), with ``g`` the lattice cell of ``L``
for ``k = 1`` and of ``log(1 + ρL)`` (``ρ = k/(T − k)``, as in
:func:`~otbound.numerics.allocation.statistic_laws`) for ``k > 1``. The statistic is symmetric
in the steps, so its laws are ``a(x)^T`` under ``Q`` and ``b(x)^k a(x)^{T−k}`` under ``P_k``:
two arb power series. Masses are taken at their lower ends, losses rounded down, and outcomes
beyond the series dropped (a lower bound may lose mass).

The cells come from the family's
:meth:`~otbound.numerics.noise.NoiseFamily.shift_ratio_survival_ball` (erfc, exponentials) or
from a finite pair's own probabilities.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from otbound.errors import UnsupportedOperation, required
from otbound.numerics.allocation import Allocation, EpochPair, ratio_variance
from otbound.numerics.loss_measures import (LossMeasure, ball_end, loss_index, measure_of,
                                            working_precision)
from otbound.numerics.pairs import FinitePair

if TYPE_CHECKING:
    from flint import arb

LATTICE_TAIL = 1e-12
"""Mass of ``L`` beyond the lattice's end under ``P₁`` or ``Q`` (its moment goes to infinite
loss: at most about this much δ per epoch)."""
LATTICE_POINTS = 1 << 15
"""Points of one step's lattice sought: its step is the power of two that gives at most these,
unless that is coarser than a quarter of ``L``'s standard deviation (then the finer step)."""
MAX_LATTICE = 1 << 17
"""Most lattice points for one step's likelihood ratio; noise that needs more is refused."""
STATISTIC_LATTICE = 1e-3
"""Lattice step of ``log(1 + ρL)`` in the lower end's statistic for ``k > 1``."""
SERIES_SPREAD = 12
"""The power series keep the points up to ``M`` plus the sum's mean plus this many of its
standard deviations (the rest is spread to infinity or dropped)."""


# --- one step's likelihood ratio, in cells -------------------------------------------------

def _survivals(pair, edges: list) -> list[tuple]:
    """``(Q(log L > t), P(log L > t))`` at every ball ``t`` of ``edges``."""
    if isinstance(pair, FinitePair):
        return _finite_survivals(pair, edges)
    if pair is None:
        raise UnsupportedOperation("the likelihood-ratio law does not name its one-step pair; "
                                   "certified cells need it (build it with ratio_law)")
    survival = pair.family.shift_ratio_survival_ball
    found = [survival(t, pair.scale) for t in edges]
    if found and found[0] is None:
        raise UnsupportedOperation(f"the {pair.family.name} family has no certified "
                                   "likelihood-ratio law for epoch-level sampling")
    return found


def _finite_survivals(pair: FinitePair, edges: list) -> list[tuple]:
    from flint import arb

    atoms = [((arb(float(p)) / arb(float(q))).log(), arb(float(q)), arb(float(p)))
             for p, q in zip(pair.p, pair.q) if p > 0 and q > 0]
    found = []
    for t in edges:
        sure_q, sure_p, maybe_q, maybe_p = arb(0), arb(0), arb(0), arb(0)
        for log_ratio, q, p in atoms:
            if log_ratio > t:
                sure_q, sure_p = sure_q + q, sure_p + p
            elif not log_ratio <= t:
                maybe_q, maybe_p = maybe_q + q, maybe_p + p
        found.append((sure_q.union(sure_q + maybe_q), sure_p.union(sure_p + maybe_p)))
    return found


def _positive_mass(pair):
    """``Q(L > 0)``: 1 but for a finite pair's outputs that ``P`` never gives."""
    from flint import arb

    if not isinstance(pair, FinitePair):
        return arb(1)
    return sum((arb(float(q)) for p, q in zip(pair.p, pair.q) if p > 0), arb(0))


@dataclass(frozen=True)
class BallCells:
    """One step's ``L`` in cells: ``q[j]``, ``p[j]`` its masses under ``Q`` and ``P₁`` (balls),
    cell 0 holding ``L = 0``, the last cell unbounded above."""

    q: list
    p: list


def _cells(pair, edges: list) -> BallCells:
    """Cells ``[0, e^{t_0}], (e^{t_0}, e^{t_1}], …, (e^{t_last}, ∞)`` of ``L``."""
    from flint import arb

    above = _survivals(pair, edges)
    q = [arb(1) - above[0][0]] + [a[0] - b[0] for a, b in zip(above, above[1:])] + [above[-1][0]]
    p = [arb(1) - above[0][1]] + [a[1] - b[1] for a, b in zip(above, above[1:])] + [above[-1][1]]
    return BallCells(q, p)


@dataclass(frozen=True)
class Lattice:
    """The lattice ``0, h, …, Mh`` of one step's ``L``: its cells ``[0, h], (h, 2h], …, (Mh, ∞)``
    and the atom ``Q(L = 0)`` that the first holds."""

    step: float
    points: int
    cells: BallCells
    zero: arb


@functools.lru_cache(maxsize=8)
def lattice(allocation: Allocation) -> Lattice:
    """The lattice of about :data:`LATTICE_POINTS` up to where both laws have less than
    :data:`LATTICE_TAIL` beyond (the spread's error is of the order of the step squared)."""
    from flint import arb

    law = allocation.law
    top = math.exp(law.reach(LATTICE_TAIL)[1])
    coarsest = 2.0 ** math.floor(math.log2(math.sqrt(max(ratio_variance(law), 1e-300)) / 4))
    step = min(2.0 ** math.ceil(math.log2(top / LATTICE_POINTS)), coarsest)
    points = math.ceil(top / step)
    if points > MAX_LATTICE:
        raise UnsupportedOperation(
            f"certified epoch accounting needs a lattice of {points} > {MAX_LATTICE} points "
            f"for one step's likelihood ratio (it reaches {top:.3g} at this noise); drop "
            "--certified for the fast path's bracket")
    with working_precision():
        edges = [(arb(j) * step).log() for j in range(1, points + 1)]
        return Lattice(step, points, _cells(law.pair, edges),
                       arb(1) - _positive_mass(law.pair))


def _spread(grid: Lattice) -> tuple[list, arb]:
    """One summand spread onto the lattice: its masses (exact upper ends) and the first moment
    carried to infinity (upper end)."""
    from flint import arb

    h, q, p = arb(grid.step), list(grid.cells.q), grid.cells.p
    q[0] -= grid.zero   # the atom at 0 stays there; the rest of [0, h] is spread
    masses = [arb(0)] * (grid.points + 1)
    masses[0] = ball_end(grid.zero, True)
    for j in range(grid.points):
        cap = ball_end(q[j], True)
        up = min(max((p[j] - j * h * q[j]) / h, arb(0)).upper(), cap)
        down = min(max(((j + 1) * h * q[j] - p[j]) / h, arb(0)).upper(), cap)
        masses[j] += down
        masses[j + 1] += up
    masses[-1] += q[-1]
    carried = ball_end(p[-1] - grid.points * h * q[-1], True)
    return [ball_end(m, True) for m in masses], carried


def _series_length(cells: list, count: int, extra: int) -> int:
    """Points of a sum of ``count`` independent lattice values (law ``cells``) kept: ``extra``
    plus its mean plus :data:`SERIES_SPREAD` standard deviations, at most all of them."""
    mids = [float(c.mid()) for c in cells]
    total = sum(mids) or 1.0
    mean = sum(j * m for j, m in enumerate(mids)) / total
    variance = max(sum(j * j * m for j, m in enumerate(mids)) / total - mean * mean, 0.0)
    wanted = extra + math.ceil(count * mean + SERIES_SPREAD * math.sqrt(count * variance)) + 2
    return min(wanted, count * (len(cells) - 1) + 1)


def _power(coefficients: list, count: int, length: int, times: tuple = ()) -> list:
    """The first ``length`` coefficients of the ``count``-th power, times the ``times[1]``-th
    power of ``times[0]`` if given (balls)."""
    import flint

    flint.ctx.cap = length
    series = flint.arb_series(coefficients, prec=length) ** count
    if times:
        series *= flint.arb_series(times[0], prec=length) ** times[1]
    found = series.coeffs()
    return found + [flint.arb(0)] * (length - len(found))


def upper_measure(pair: EpochPair, discretisation: float) -> LossMeasure:
    """The certified upper end of one epoch (the module's text): blocks composed."""
    epoch, found = pair.epoch, None
    for size, count in epoch.blocks:
        block = _block_upper(epoch, size, pair.direction, discretisation)
        block = block.power(count)
        found = block if found is None else found.compose(block)
    return required(found, "the blocks of an epoch")


@dataclass(frozen=True)
class SpreadLaw:
    """The law of the spread sum ``S⁺`` of ``size`` steps on the lattice: its first ``len(law)``
    masses (balls), the mass and the first moment (lattice units) above them, and the moment
    carried to infinity."""

    step: float
    size: int
    law: list
    above: arb
    moment_above: arb
    carried: arb


@functools.lru_cache(maxsize=8)
def spread_law(epoch: Allocation, size: int) -> SpreadLaw:
    """:class:`SpreadLaw` of one of ``size`` steps: the one step's spread polynomial to the
    ``size``-th power, with its total ``F`` and moment ``F'`` (``f(1)^m``, ``m f'(1) f(1)^{m−1}``
    give what lies above the series)."""
    from flint import arb

    grid = lattice(epoch)
    with working_precision():
        one, carried = _spread(grid)
        length = _series_length(grid.cells.p, size, grid.points)
        law = _power(one, size, length)
        total = sum(one, arb(0))
        moment = sum((j * m for j, m in enumerate(one)), arb(0))
        above = total ** size - sum(law, arb(0))
        moment_above = size * moment * total ** (size - 1) - sum(
            (j * m for j, m in enumerate(law)), arb(0))
        return SpreadLaw(grid.step, size, law, above, moment_above,
                         carried * total ** (size - 1))


def _block_upper(epoch: Allocation, size: int, direction: str,
                 discretisation: float) -> LossMeasure:
    """One of ``size`` steps: the spread sum's law as a measure of privacy losses, what lies
    above the series spread onto its first point beyond and infinity."""
    from flint import arb

    found = spread_law(epoch, size)
    with working_precision():
        h, m, top = arb(found.step), arb(size), len(found.law)
        points = list(enumerate(found.law))[1:] + [(top, found.above)]
        pieces: dict = {}
        if direction == "remove":   # P-mass s/m at loss log(s/m)
            infinity = found.carried + max(found.moment_above - top * found.above,
                                           arb(0)) * h / m
            for j, mass in points:
                ratio = j * h / m
                pieces.setdefault(loss_index(ratio.log(), discretisation, True),
                                  []).append(ball_end(mass * ratio, True))
        else:   # the insertion: Q-mass at loss log(m/s), S = 0 at infinity
            infinity = found.law[0]
            for j, mass in points:
                pieces.setdefault(loss_index(-(j * h / m).log(), discretisation, True),
                                  []).append(ball_end(mass, True))
        return measure_of(pieces, infinity, discretisation, True)


def lower_measure(pair: EpochPair, discretisation: float) -> LossMeasure:
    """The certified lower end of one epoch: the statistic's pair (the module's text)."""
    from flint import arb

    under_p, under_q = statistic_balls(pair.epoch)
    if pair.direction == "add":
        under_p, under_q = under_q, under_p
    with working_precision():
        pieces: dict = {}
        for p, q in zip(under_p, under_q):
            mass = ball_end(p, False)
            if mass > 0 and q.upper() > 0:
                pieces.setdefault(loss_index((mass / q.upper()).log(), discretisation, False),
                                  []).append(mass)
        return measure_of(pieces, arb(0), discretisation, False)


@functools.lru_cache(maxsize=8)
def statistic_balls(epoch: Allocation) -> tuple[list, list]:
    """The laws (balls) of the statistic under ``P_k`` and ``Q``: ``b^k a^{T−k}`` and
    ``a^T``, through one power ``a^{T−k}``."""
    steps, selected = epoch.steps, epoch.selected
    cells = lattice(epoch).cells if selected == 1 else _statistic_cells(epoch)
    with working_precision():
        length = _series_length(cells.p, steps, len(cells.q))
        rest = _power(cells.q, steps - selected, length)
        return (_power(cells.p, selected, length, (rest, 1)),
                _power(cells.q, selected, length, (rest, 1)))


def _statistic_cells(epoch: Allocation) -> BallCells:
    """Cells of ``g(L) = ⌊log(1 + ρL)/Δ⌋`` (``Δ`` = :data:`STATISTIC_LATTICE`), up to where
    both laws have less than :data:`LATTICE_TAIL` beyond."""
    from flint import arb

    rho = epoch.selected / (epoch.steps - epoch.selected) if epoch.selected < epoch.steps \
        else 1e12
    top = math.log1p(rho * math.exp(epoch.law.reach(LATTICE_TAIL)[1]))
    count = math.ceil(top / STATISTIC_LATTICE)
    if count > MAX_LATTICE:
        raise UnsupportedOperation(
            f"certified epoch accounting needs a statistic of {count} > {MAX_LATTICE} cells "
            "at this noise; drop --certified for the fast path's bracket")
    with working_precision():
        step, ratio = arb(STATISTIC_LATTICE), arb(rho)
        edges = [((j * step).expm1() / ratio).log() for j in range(1, count + 1)]
        return _cells(epoch.law.pair, edges)


@dataclass(frozen=True)
class CertifiedBracket:
    """Both ends of ``epochs`` composed epochs of one pair, each a :class:`LossMeasure`."""

    upper: LossMeasure
    lower: LossMeasure


def certified_bracket(pair: EpochPair, epochs: int, discretisation: float) -> CertifiedBracket:
    """The certified measures of ``epochs`` epochs of ``pair``."""
    return CertifiedBracket(upper_measure(pair, discretisation).power(epochs),
                            lower_measure(pair, discretisation).power(epochs))
