"""Random allocation over one epoch — each record in ``k`` of the ``T`` steps, chosen uniformly
(balls-in-bins is ``k = 1``) — as dominating pairs bounded above and below.

The engine derives the epoch's worst case (:mod:`otbound.engine.epoch_patterns`): with ``(P₁,
P₀)`` the mechanism's worst pair at distance 1, removing a record is dominated by

    P_k = avg over the k-subsets S of [T] of  ⊗_{t ∈ S} P₁ ⊗_{t ∉ S} P₀    against    Q = P₀^{⊗T},

``H(P_k ‖ Q)``, and inserting one by ``H(Q ‖ P_k)``. With ``L_t = dP₁/dP₀`` at step ``t`` the
likelihood ratio is ``e_k(L)/C(T, k)`` (the elementary symmetric polynomial): for ``k = 1`` the
mean ``S/T`` of ``T`` independent ratios, whose sum :mod:`otbound.numerics.ratio_sums` bounds in
convex order from both sides — an upper and a lower pair, each a true pair of distributions, so
both survive composition.

For ``k > 1`` the upper pair is the hidden-partition bound: a uniform ``k``-subset is a uniform
partition of ``[T]`` into ``k`` blocks of ``⌊T/k⌋`` or ``⌈T/k⌉`` steps with one step drawn in each
(the law of the set is invariant under permutations of ``[T]``, so it is uniform); joint convexity
over the partition bounds ``P_k`` by the ``k`` blocks' one-of-``m`` allocations composed. The
lower pair is the pair of laws of a nearly sufficient statistic of the outputs
(:func:`statistic_laws`): its divergence is at most the truth's (data processing). The two
bracket the truth; the gap is the reduction's looseness, shown rather than hidden.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from otbound.choices import DEFAULT_DISCRETISATION
from otbound.errors import InvalidSpecification, Refusal, required
from otbound.numerics.dense_pld import DensePmf
from otbound.numerics.ratio_laws import RatioLaw
from otbound.numerics.ratio_sums import ContractedSum, LogGrid, SpreadSum, repeated
from otbound.numerics.rounding import Bounds

GRID_STEP = 8e-3
"""Largest step of the grid of ``log S`` (natural logarithm; :func:`grid_step` takes a finer one
where the losses are small), rounded to a multiple of the PLD's discretisation so that the upper
pair's losses lie on the PLD's grid exactly. The convex-order bounds err by the square of the
step, the time grows as its inverse square (measured at ``T = 235``, ``σ = 1``, ten epochs,
δ = 1e-5: ε bracketed within 0.27 % at this step, 0.14 % at 5e-3)."""
ROUNDING_RELATIVE, ROUNDING_FLOOR = 1e-9, 1e-15
"""Margins for the floating-point sums (their relative error is below 1e-12 on these grids):
the upper pair's masses are raised by them, the lower pair's lowered."""
REACH = 1e-40
"""Mass of one step's likelihood ratio left beyond the grid on either side (moved the safe way)."""


@dataclass(frozen=True)
class Allocation:
    """One epoch: ``selected`` of ``steps`` steps per record, the mechanism's one-step ratio
    ``law``."""

    steps: int
    selected: int
    law: RatioLaw

    def __post_init__(self) -> None:
        if not 1 <= self.selected <= self.steps:
            raise InvalidSpecification(f"selected must be in [1, steps = {self.steps}], got "
                                       f"{self.selected}", parameter="selected")

    @property
    def blocks(self) -> tuple[tuple[int, int], ...]:
        """``(size, count)``: the one-of-``size`` allocations whose composition bounds the epoch
        from above (one block of ``T`` for ``k = 1``)."""
        small, extra = divmod(self.steps, self.selected)
        found = ((small, self.selected - extra), (small + 1, extra))
        return tuple((size, count) for size, count in found if count)

    def upper(self, direction: str, discretisation: float) -> DensePmf:
        """The pessimistic pmf of ``direction`` (``"remove"``: ``H(P_k ‖ Q)``, ``"add"``:
        ``H(Q ‖ P_k)``) on the loss grid of ``discretisation``."""
        composed = None
        for size, count in self.blocks:
            pmf = _upper_pmf(self.law, size, direction, discretisation)
            if count > 1:
                pmf = pmf.self_compose(count, 0.0)
            composed = pmf if composed is None else composed.compose(pmf)
        return required(composed, "the blocks of an epoch")

    def lower(self, direction: str, discretisation: float) -> DensePmf:
        """The optimistic pmf of a pair the epoch's pair dominates (losses rounded down)."""
        return _lower_pmf(self.law, self.steps, self.selected, direction, discretisation)


def grid_step(law: RatioLaw, size: int, discretisation: float) -> float:
    """:data:`GRID_STEP`, or a tenth of the spread of ``log S`` (``√(Var L/size)``) where that
    is finer (large noise: small losses, which the grid must resolve as well as large ones; the
    cost stays that of a grid of a few hundred points), as a whole multiple of
    ``discretisation`` (at least one)."""
    wanted = min(GRID_STEP, math.sqrt(ratio_variance(law) / size) / 10)
    return discretisation * max(1, round(wanted / discretisation))


def ratio_variance(law: RatioLaw) -> float:
    """``Var_Q L = E_Q[L²] − 1``, roughly (to choose grids, never to bound)."""
    low, high = law.reach(1e-12)
    grid = np.linspace(low, high, 2001)
    cells = law.cells(grid)
    return max(float(cells.p @ np.exp(grid[1:])) - 1.0, 0.0)


def _grid(size: int, step: float) -> LogGrid:
    """The grid of ``log S`` that holds ``log size`` (the losses ``x_j − log size`` are whole
    steps)."""
    return LogGrid(step, math.log(size) - step * round(math.log(size) / step))


def _span(law: RatioLaw, grid: LogGrid) -> tuple[int, int]:
    low, high = law.reach(REACH)
    return (math.floor((low - grid.base) / grid.step) - 1,
            math.ceil((high - grid.base) / grid.step) + 1)


@functools.lru_cache(maxsize=32)
def spread_sum(law: RatioLaw, size: int, step: float) -> SpreadSum:
    """``S⁺`` of ``size`` ratios on the grid of ``log size``."""
    grid = _grid(size, step)
    return repeated(SpreadSum.of(law, grid, *_span(law, grid)), size)


def upper_sum(law: RatioLaw, size: int) -> SpreadSum:
    """``S⁺`` of ``size`` ratios on the grid the PLD uses."""
    return spread_sum(law, size, grid_step(law, size, DEFAULT_DISCRETISATION))


@functools.lru_cache(maxsize=32)
def contracted_sum(law: RatioLaw, size: int, step: float) -> ContractedSum:
    """``S⁻`` of ``size`` ratios on the grid of ``log size``."""
    grid = _grid(size, step)
    return repeated(ContractedSum.of(law, grid, *_span(law, grid)), size)


def _upper_pmf(law: RatioLaw, size: int, direction: str, discretisation: float) -> DensePmf:
    """One-of-``size`` allocation's spread pair as a pessimistic pmf: its losses are whole grid
    steps, so they lie on the PLD's grid; the mass carried to ``S = ∞`` (removal) or at
    ``S = 0`` (insertion) is at infinite loss."""
    step = grid_step(law, size, discretisation)
    found = spread_sum(law, size, step)
    ratio = found.values() / size
    per = round(step / discretisation)
    index = (found.offset + np.arange(found.mass.size)
             - round(math.log(size) / step)) * per
    if direction == "remove":
        probs, infinity = found.mass * ratio, found.infinite / size
    else:
        index, probs, infinity = -index[::-1], found.mass[::-1], found.zero
    return _dense(index, probs * (1 + ROUNDING_RELATIVE),
                  min(1.0, infinity * (1 + ROUNDING_RELATIVE) + ROUNDING_FLOOR), True,
                  discretisation)


def _lower_pmf(law: RatioLaw, steps: int, selected: int, direction: str,
               discretisation: float) -> DensePmf:
    """The dominated pair's optimistic pmf: its losses ``log(p/q)`` rounded down (after a
    margin for their rounding error), masses lowered by the margin; outcomes with an infinite
    loss are left out (a lower bound may drop mass). ``k = 1``: the contracted sum, whose
    groups have the ratio ``mean/T`` exactly; ``k > 1``: :func:`statistic_laws`."""
    if selected == 1:
        found = contracted_sum(law, steps, grid_step(law, steps, discretisation))
        q = found.mass
        p = q * found.means() / steps
    else:
        p, q, p_noise, q_noise = statistic_laws(law, steps, selected)
        p, q = np.maximum(p - p_noise, 0.0), q + q_noise
    keep = (p > 0) & (q > 0)
    p, q = p[keep], q[keep]
    if direction == "add":
        p, q = q, p
    loss = np.log(p) - np.log(q)
    margin = 1e-9 * (1 + np.abs(loss))
    index = np.floor((loss - margin) / discretisation).astype(np.int64)
    return _dense(index, p * (1 - ROUNDING_RELATIVE), 0.0, False, discretisation)


STATISTIC_STEP = 2e-3
"""Lattice step of the statistic ``g(L) = log(1 + ρL)`` (its cells are a post-processing: any
step is sound; a finer one is tighter), coarser where the sum's lattice would exceed
:data:`STATISTIC_POINTS`."""
STATISTIC_POINTS = 2 ** 22
"""Largest lattice of the statistic's sum (one FFT of this length takes about 0.3 s)."""


@functools.lru_cache(maxsize=4)
def statistic_laws(law: RatioLaw, steps: int, selected: int) -> tuple[np.ndarray, np.ndarray,
                                                                    float, np.ndarray]:
    """``(p, q, p_noise, q_noise)``: the laws under ``P_k`` and ``Q`` of the statistic ``Σ_t
    g(y_t)`` of the outputs, ``g = ⌊log(1 + ρ L)/Δ⌋`` with ``ρ = k/(T − k)`` (the saddle point of
    ``e_k``: ``log e_k(L) ≈ Σ_t log(1 + ρ L_t)`` + const, so the statistic is nearly
    sufficient), capped where both laws have less than 1e-30 beyond, and bounds on their
    transforms' rounding per cell. The statistic is symmetric in the steps, so its law under
    ``P_k`` is that of ``k`` tilted summands and ``T − k`` plain ones (FFT). An FFT's rounding is
    absolute (``noise``: measured, the largest negative value times
    :data:`otbound.accounting.pld.NOISE_FACTOR`'s 4), which would drown ``Q``'s upper tail, where
    the large losses are; there ``q`` is taken from the law of the sum under ``Q`` tilted by
    ``e^{Δ s}`` (:func:`_tilted_sum`), whose rounding is scaled down by ``e^{−Δ s}``."""
    rho = selected / (steps - selected) if selected < steps else 1e12
    low, high = law.reach(1e-15)
    top = math.log1p(rho * math.exp(high))
    lattice = max(STATISTIC_STEP, top * steps / STATISTIC_POINTS)
    points = np.arange(1, math.ceil(top / lattice) + 1) * lattice
    cells = law.cells(np.log(np.expm1(points) / rho))   # g's cell edges, as log L
    q = np.concatenate([[cells.q_below], cells.q, [cells.q_above]])
    p = np.concatenate([[cells.p_below], cells.p, [cells.p_above]])
    size = steps * (q.size - 1) + 1
    length = 1 << (size - 1).bit_length()
    plain, tilted = np.fft.rfft(q, length), np.fft.rfft(p, length)
    under_q = np.fft.irfft(plain ** steps, length)[:size]
    under_p = np.fft.irfft(tilted ** selected * plain ** (steps - selected), length)[:size]
    noise = 4 * max(0.0, -float(under_q.min()), -float(under_p.min())) + 1e-17
    from_tilt, tilt_noise = _tilted_sum(q, lattice, steps, length, size)
    better = tilt_noise < noise
    under_q = np.where(better, from_tilt, under_q)
    return (np.maximum(under_p, 0.0), np.maximum(under_q, 0.0), noise,
            np.minimum(tilt_noise, noise))


def _tilted_sum(q: np.ndarray, lattice: float, steps: int, length: int, size: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """The law of the sum of ``steps`` summands of law ``q`` on ``0, 1, …`` through their law
    tilted by ``e^{Δ j}`` (``Δ`` the lattice step): ``P(sum = s) = M^T e^{−Δ s} r(s)``, ``M =
    Σ_j q_j e^{Δ j}``, ``r`` the tilted sum's law; with each cell's bound on its rounding."""
    log_weights = lattice * np.arange(q.size)
    shift = log_weights.max()
    with np.errstate(divide="ignore"):
        log_total = float(np.log(np.sum(q * np.exp(log_weights - shift)))) + shift
    weights = q * np.exp(log_weights - log_total)
    summed = np.fft.irfft(np.fft.rfft(weights, length) ** steps, length)[:size]
    noise = 4 * max(0.0, -float(summed.min())) + 1e-17
    with np.errstate(over="ignore", invalid="ignore"):   # an infinite bound is never used
        scale = np.exp(steps * log_total - lattice * np.arange(size))
        return np.maximum(summed, 0.0) * scale, noise * scale


def _dense(index: np.ndarray, probs: np.ndarray, infinity: float, pessimistic: bool,
           discretisation: float) -> DensePmf:
    """A dense pmf without the losses at either end that hold less than :data:`PMF_TAIL`: those
    below moved up to the lowest loss kept and those above to infinity (pessimistic), or left
    out (optimistic)."""
    low = int(index.min())
    mass = np.bincount(index - low, weights=probs, minlength=int(index.max()) - low + 1)
    first = int(np.searchsorted(np.cumsum(mass), PMF_TAIL, side="right"))
    last = mass.size - int(np.searchsorted(np.cumsum(mass[::-1]), PMF_TAIL, side="right"))
    first, last = min(first, mass.size - 1), max(last, first + 1)
    kept = mass[first:last].copy()
    if pessimistic:
        kept[0] += mass[:first].sum()
        infinity += mass[last:].sum()
    return DensePmf(discretisation, low + first, kept, infinity, pessimistic)


PMF_TAIL = 1e-20
"""Mass of an epoch's pmf cut at either end (pessimistically above): far below any δ the
accountant reports (it refuses targets within :data:`otbound.accounting.pld.RESOLUTION`)."""


@dataclass(frozen=True)
class EpochPair:
    """One direction of an epoch's dominating pair (``"remove"``: ``H(P_k ‖ Q)``, ``"add"``:
    ``H(Q ‖ P_k)``), as the accountants use a pair: its PLD bounded above, the PLD of a pair it
    dominates (the lower end), and δ(ε) of one epoch from both."""

    epoch: Allocation
    direction: str

    def upper_pmf(self, discretisation: float = DEFAULT_DISCRETISATION) -> DensePmf:
        return _cached_upper(self.epoch, self.direction, discretisation)

    def lower_pmf(self, discretisation: float = DEFAULT_DISCRETISATION) -> DensePmf:
        return _cached_lower(self.epoch, self.direction, discretisation)

    def delta_bounds(self, epsilons) -> Bounds:
        """``δ(ε)`` of one epoch, bounded above."""
        upper = np.minimum(self.upper_pmf().deltas(epsilons), 1.0)
        return Bounds(upper, upper)

    def loss_range(self, discretisation: float = DEFAULT_DISCRETISATION) -> tuple[float, float]:
        pmf = self.upper_pmf(discretisation)
        low = pmf.lower * discretisation
        return low, low + (pmf.size - 1) * discretisation

    def log_psi_curve(self, alphas):
        """``log Ψ_α`` of one epoch at every order, rounded up
        (:mod:`otbound.numerics.allocation_renyi`); refused (raised) as :meth:`refusal`."""
        from otbound.numerics.allocation_renyi import epoch_log_psi

        return epoch_log_psi(self.epoch, self.direction, alphas, upper_sum)

    def refusal(self, alphas) -> Refusal | None:
        """Why :meth:`log_psi_curve` cannot answer at ``alphas``, or ``None`` (its series are
        computed and kept: :func:`~otbound.numerics.allocation_renyi.epoch_refusal`)."""
        from otbound.numerics.allocation_renyi import epoch_refusal

        return epoch_refusal(self.epoch, self.direction, alphas, upper_sum)


@functools.lru_cache(maxsize=64)
def _cached_upper(epoch: Allocation, direction: str, discretisation: float) -> DensePmf:
    return epoch.upper(direction, discretisation)


@functools.lru_cache(maxsize=64)
def _cached_lower(epoch: Allocation, direction: str, discretisation: float) -> DensePmf:
    return epoch.lower(direction, discretisation)
