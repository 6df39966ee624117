"""Balls-in-bins sampling over one epoch: its dominating pair and sound bounds on its privacy
profile.

Each record of the dataset is assigned to one of the epoch's ``T`` steps, uniformly and
independently of the others (Chua et al. 2025, "Balls-and-Bins Sampling for DP-SGD"; Feldman &
Shenfeld 2025's random allocation with one step per record); step ``t`` releases the sum of ``f``
over its records (sensitivity 1) plus ``N(0, σ²)``, the steps chosen adaptively. When one record is
removed (added), the epoch's output is dominated by the pair

    P = (1/T) Σ_t N(e_t, σ² I_T),    Q = N(0, σ² I_T)

in the direction ``H(P ‖ Q)`` (``H(Q ‖ P)``): the record lands in one uniformly random step.
The density ratio at ``y`` is ``W̄ = (1/T) Σ_t L_t`` with ``L_t = exp(y_t/σ² − 1/(2σ²))``: under
``Q`` the ``L_t`` are independent lognormals, ``log L_t ~ N(−s²/2, s²)`` with ``s = 1/σ``, and
under ``P`` one of them has ``log L ~ N(s²/2, s²)``. Hence, with ``S = T W̄``,

    δ_remove(ε) = E_P[(1 − e^ε/W̄)_+],    δ_add(ε) = E_Q[(1 − e^ε W̄)_+],

means of functions of ``S`` with values in ``[0, 1]``, increasing (remove) and decreasing (add)
in ``S``. :mod:`otbound.numerics.log_sums` gives the distribution of ``log S`` rounded up and
rounded down; each δ is bounded above with the rounding that raises it (mass beyond the grid
counted as 1) and below with the other (mass beyond counted as 0): deterministic bounds, whose gap
is the discretisation error.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from otbound.errors import InvalidSpecification
from otbound.numerics.epoch_settings import EpochSetting
from otbound.numerics.log_sums import LogSum, combined, lognormal, repeated
from otbound.numerics.rounding import EPS

GRID_STEP = 5e-4
"""Step of the grid of ``log S``. Each addition rounds ``log S`` by up to a step, so the upper
bound's loss is up to ``levels × step`` too large (levels ≈ 2 log₂ T): the bounds' gap is about
1–6 % of δ, and ε over E epochs is raised by up to E times that loss (at T = 235, σ = 1, ten
epochs: ε(1e-5) ≤ 1.0695 at this step, 1.0943 at twice it). The time grows as 1/step²."""
REACH = 12.0
"""Standard deviations of ``log L`` the grid spans beyond the bulk (tails of mass < 1e-32)."""
BALLS_IN_BINS_SOURCE = (
    "balls-in-bins dominating pair P = (1/T) Σ_t N(e_t, σ² I), Q = N(0, σ² I) (Chua et al. 2025; "
    "Feldman & Shenfeld 2025), δ bounded by the distribution of log Σ_t L_t rounded up and down "
    "on a grid (deterministic)")


@dataclass(frozen=True)
class BallsInBins(EpochSetting):
    """Balls-in-bins sampling: each of the ``dataset_size`` records goes to one uniformly random
    step of each epoch, independently; an epoch has ``⌈dataset_size / batch_size⌉`` steps, so
    that the expected batch size is at most ``batch_size``."""

    scheme: ClassVar[str] = "balls-in-bins"


@dataclass(frozen=True)
class Bracket:
    """Deterministic bounds on a privacy profile at each ε: ``lower ≤ δ ≤ upper``."""

    upper: np.ndarray
    lower: np.ndarray


@dataclass(frozen=True)
class EpochProfile:
    """The privacy profile of one balls-in-bins epoch (Gaussian noise σ, ``steps`` steps), in
    both directions, from ``log S`` rounded up and down under ``P`` and ``Q``."""

    steps: int
    p_up: LogSum
    p_down: LogSum
    q_up: LogSum
    q_down: LogSum

    def remove(self, epsilons) -> Bracket:
        """``δ_remove(ε) = E_P[(1 − e^ε/W̄)_+]``: the loss ``log W̄``, increasing in ``S``."""
        return _bracket(self.p_up, self.p_down, self.steps, epsilons, 1)

    def add(self, epsilons) -> Bracket:
        """``δ_add(ε) = E_Q[(1 − e^ε W̄)_+]``: the loss ``−log W̄``, decreasing in ``S``."""
        return _bracket(self.q_down, self.q_up, self.steps, epsilons, -1)

    def loss_range(self) -> tuple[float, float]:
        """The privacy losses both directions take on the grids: ``log W̄`` under ``P``
        (remove), ``−log W̄`` under ``Q`` (add)."""
        log_t = math.log(self.steps)
        p_points, q_points = self.p_up.points() - log_t, self.q_down.points() - log_t
        return (min(p_points[0], -q_points[-1]), max(p_points[-1], -q_points[0]))


def _bracket(raising: LogSum, lowering: LogSum, steps: int, epsilons, sign: int) -> Bracket:
    """``E[(1 − e^{ε − l})_+]`` for the loss ``l = sign · (log S − log T)``: bounded above by
    the distribution rounded the way that raises ``l`` (its mass beyond the grid, and what
    rounding lost, counted as 1), below by the other (that mass counted as 0); each sum moved
    by its floating-point error."""
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    value, error = _hockey_stick(raising, steps, eps, sign)
    upper = np.maximum(value, 0.0) + error + raising.beyond + _unaccounted(raising)
    value, error = _hockey_stick(lowering, steps, eps, sign)
    return Bracket(upper, np.maximum(value - error, 0.0))


def _hockey_stick(dist: LogSum, steps: int, eps: np.ndarray, sign: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``Σ_k m_k (1 − e^{ε − l_k})_+`` over the grid, ``l_k = sign · (log S_k − log T)`` put in
    increasing order, by suffix sums of ``m`` and ``m e^{−(l − l_0)}``, and a bound on its
    floating-point error."""
    losses = sign * (dist.points() - math.log(steps))
    mass = dist.mass
    if sign < 0:
        losses, mass = losses[::-1], mass[::-1]
    scaled = mass * np.exp(losses[0] - losses)   # ≤ mass: no overflow
    total = np.concatenate([np.cumsum(mass[::-1])[::-1], [0.0]])
    weighted = np.concatenate([np.cumsum(scaled[::-1])[::-1], [0.0]])
    first = np.searchsorted(losses, eps, side="right")
    factor = np.exp(eps - losses[0])
    value = total[first] - factor * weighted[first]
    return value, 4 * EPS * mass.size * (total[first] + factor * weighted[first])


def _unaccounted(dist: LogSum) -> float:
    """Probability lost to floating-point rounding and clipping in the sums (counted as δ)."""
    return max(0.0, 1.0 - math.fsum(dist.mass) - dist.beyond) + 2 * EPS


@functools.lru_cache(maxsize=16)
def epoch_profile(steps: int, sigma: float, grid_step: float = GRID_STEP) -> EpochProfile:
    """The profile of one epoch of ``steps`` steps with Gaussian noise ``sigma`` (sensitivity 1)."""
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise InvalidSpecification(f"steps per epoch must be an integer >= 1, got {steps!r}",
                                   parameter="steps")
    if not (sigma > 0 and math.isfinite(sigma)):
        raise InvalidSpecification(f"sigma must be > 0, got {sigma!r}", parameter="sigma")
    s = 1.0 / sigma
    bottom = -s * s / 2 - REACH * s
    top = math.log(steps) + s * s / 2 + REACH * s
    found = {}
    for up in (True, False):
        plain = lognormal(-s * s / 2, s, grid_step, bottom, top, up)
        tilted = lognormal(s * s / 2, s, grid_step, bottom, top, up)
        others = (repeated(plain, steps - 1, functools.partial(combined, top=top))
                  if steps > 1 else None)
        found["p", up] = tilted if others is None else combined(tilted, others, top)
        found["q", up] = plain if others is None else combined(plain, others, top)
    return EpochProfile(steps, found["p", True], found["p", False], found["q", True],
                        found["q", False])
