"""Privacy loss distributions on a grid, held by otbound: a pmf's probabilities, lowest loss,
discretisation and infinity mass are fields anyone may read.

dp_accounting's ``DensePLDPmf`` and ``PrivacyLossDistribution`` keep these in private fields,
with no public accessor; otbound needs them (the composition noise shows in the probabilities,
the size of a composition is decided before composing, the chained substitution bound reads
δ(ε) of each adjacency at many ε). So otbound holds its own pmfs and composes them itself, by
dp_accounting's algorithms (``pld_pmf.DensePLDPmf`` and ``pld.common.self_convolve``,
dp-accounting 0.5.1 to 0.6.0, where the two are the same): an FFT convolution whose tails of
mass ``truncation`` are cut the pessimistic way (mass below moved up to the lowest loss kept,
mass above to infinity), and a self-composition by one FFT power over the support a Chernoff
bound keeps. The numbers are dp_accounting's (``tests/test_dense_pld.py`` compares them through
its public constructors and methods); :meth:`DensePmf.to_dp_accounting` and
:meth:`DensePLD.to_dp_accounting` hand them over through its public constructors.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence, overload

import numpy as np

from otbound.errors import InvalidSpecification
from otbound.numerics.rounding import EPS

if TYPE_CHECKING:   # dp_accounting (with scipy.stats) is imported where a PLD is handed over
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

TRUNCATION = 1e-15
"""Tail mass a self-composition (and, by default, a composition of PLDs) may cut: moved to an
infinite loss, the pessimistic way."""
SPAN_ORDERS = 20
"""The moment generating function is taken at ``k/n``, ``0 < |k| ≤ 20``, for ``n`` grid points
(dp_accounting's orders: larger ones overflow)."""


@dataclass(frozen=True, eq=False)
class DensePmf:
    """The pmf of one adjacency's privacy loss: ``probabilities[i]`` at the loss ``(lower + i)
    · discretisation``, ``infinity`` at ``+∞``; ``pessimistic`` when it was rounded so that δ(ε)
    is never under-reported (an optimistic one is rounded the other way)."""

    discretisation: float
    lower: int
    probabilities: np.ndarray
    infinity: float
    pessimistic: bool = True

    def __post_init__(self) -> None:
        probabilities = np.asarray(self.probabilities, dtype=float)
        if probabilities.ndim != 1 or probabilities.size == 0:
            raise InvalidSpecification("probabilities must be a non-empty vector, got shape "
                                       f"{probabilities.shape}", parameter="probabilities")
        probabilities = probabilities.view()
        probabilities.flags.writeable = False   # shared by every composition that reads it
        object.__setattr__(self, "probabilities", probabilities)
        object.__setattr__(self, "lower", int(self.lower))
        object.__setattr__(self, "infinity", float(self.infinity))

    @property
    def size(self) -> int:
        """Number of grid points."""
        return int(self.probabilities.size)

    @property
    def losses(self) -> np.ndarray:
        """The privacy loss of every grid point."""
        return (np.arange(self.size) + self.lower) * self.discretisation

    def compose(self, other: DensePmf, truncation: float = 0.0) -> DensePmf:
        """The pmf of both losses added (an FFT convolution), tails of mass up to
        ``truncation`` cut (pessimistic: the lower one moved up to the lowest loss kept, the
        upper one to infinity; optimistic: the upper one moved down to the highest loss kept,
        the lower one dropped)."""
        from scipy import signal

        self._check_composable(other)
        probabilities = signal.fftconvolve(self.probabilities, other.probabilities)
        infinity = self.infinity + other.infinity - self.infinity * other.infinity
        offset, kept, cut = _truncate_tails(probabilities, truncation, self.pessimistic)
        return DensePmf(self.discretisation, self.lower + other.lower + offset, kept,
                        infinity + cut, self.pessimistic)

    def self_compose(self, count: int, truncation: float = TRUNCATION) -> DensePmf:
        """``count`` copies composed, by one FFT power over the support :meth:`composed_span`
        keeps (what lies beyond it, at most ``truncation``, is counted at infinity; it also
        wraps around onto the support kept, which only adds mass)."""
        from scipy import fft

        if count < 1:
            raise InvalidSpecification(f"count must be at least 1, got {count}",
                                       parameter="count")
        low, high = self.composed_span(count, truncation)
        length = high - low + 1
        transform = fft.fft(self.probabilities, fft.next_fast_len(max(length, self.size)))
        powered = np.real(fft.ifft(transform ** count))
        probabilities = np.roll(powered, -low)[:length]
        # truncation + 1 − (1 − infinity)^count, stably
        infinity = truncation - math.expm1(count * math.log1p(-self.infinity))
        return DensePmf(self.discretisation, self.lower * count + low, probabilities, infinity,
                        self.pessimistic)

    def composed_span(self, count: int, truncation: float = TRUNCATION) -> tuple[int, int]:
        """``(low, high)``: the grid offsets (from ``count · lower``) that ``count``
        self-compositions keep, outside of which the Chernoff bound leaves at most
        ``truncation`` of the mass, at the orders :data:`SPAN_ORDERS`."""
        from scipy import special

        low, high = 0, (self.size - 1) * count
        if truncation == 0:
            return low, high
        indices = np.arange(self.size)
        orders = np.concatenate((np.arange(-SPAN_ORDERS, 0),
                                 np.arange(1, SPAN_ORDERS + 1))) / self.size
        for order in orders:
            log_mgf = special.logsumexp(indices * order, b=self.probabilities)
            bound = (count * log_mgf + math.log(2 / truncation)) / order
            if not math.isfinite(bound):
                continue
            if order > 0:
                high = min(high, math.ceil(bound))
            else:
                low = max(low, math.floor(bound))
        return low, high

    @overload
    def get_delta_for_epsilon(self, epsilon: float) -> float: ...

    @overload
    def get_delta_for_epsilon(self, epsilon: Sequence[float] | np.ndarray) -> np.ndarray: ...

    def get_delta_for_epsilon(self, epsilon: float | Sequence[float] | np.ndarray
                              ) -> float | np.ndarray:
        """``δ(ε) = μ_∞ + Σ_{ℓ > ε} p_ℓ (1 − e^{ε − ℓ})`` (dp_accounting's sums: at one ε, each
        term by ``expm1``; at several, by suffix sums)."""
        if isinstance(epsilon, (int, float, np.integer, np.floating)):
            losses = self.losses
            above = losses > epsilon
            return self.infinity + float(np.dot(-np.expm1(epsilon - losses[above]),
                                                self.probabilities[above]))
        epsilons = np.asarray(epsilon, dtype=float)
        upper, lower, first = self._suffix_sums(epsilons)
        with np.errstate(over="ignore", invalid="ignore"):   # +∞: the infinity mass alone
            found = upper[first] - np.exp(epsilons) * lower[first]
        return np.where(np.isposinf(epsilons), self.infinity, found)

    def get_epsilon_for_delta(self, delta: float) -> float:
        """The smallest ε ≥ 0 with δ(ε) ≤ ``delta`` (``inf`` where the infinity mass exceeds
        it), as dp_accounting finds it: the losses walked down from the largest (by repeated
        subtraction of the discretisation, as its walk does), adding each loss's mass until
        ``log((Σ p − δ)/Σ p e^{−ℓ})`` reaches the next loss."""
        if self.infinity > delta:
            return math.inf
        losses = np.cumsum(np.concatenate(
            ([(self.lower + self.size - 1) * self.discretisation],
             np.full(self.size - 1, -self.discretisation))))
        masses = self.probabilities[::-1]
        upper = np.cumsum(np.concatenate(([self.infinity], masses)))
        lower = np.cumsum(np.concatenate(([0.0], np.exp(-losses) * masses)))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            reached = ((upper[:-1] > delta) & (lower[:-1] > 0)
                       & (np.log((upper[:-1] - delta) / lower[:-1]) >= losses))
        stop = _first(reached)
        vanished = _first((upper[1:] >= delta) & (lower[1:] == 0))   # e^{−ℓ} underflowed
        if vanished < stop:
            return max(0.0, float(losses[vanished]))
        if upper[stop] <= lower[stop] + delta:
            return 0.0
        return math.log((upper[stop] - delta) / lower[stop])

    def deltas(self, epsilons: np.ndarray) -> np.ndarray:
        """δ(ε) at every ε (any order), by suffix sums of ``p`` and of ``p e^{−(ℓ − ℓ₀)}``,
        raised by a bound on their rounding error (``4 ε_mach n`` times the sums)."""
        epsilons = np.atleast_1d(np.asarray(epsilons, dtype=float))
        probabilities, losses = self.probabilities, self.losses
        scaled = probabilities * np.exp(losses[0] - losses)   # at most the mass: no overflow
        total = np.concatenate([np.cumsum(probabilities[::-1])[::-1], [0.0]])
        weighted = np.concatenate([np.cumsum(scaled[::-1])[::-1], [0.0]])
        first = np.searchsorted(losses, epsilons, side="right")
        factor = np.exp(np.minimum(epsilons - losses[0], 700.0))
        excess = total[first] - factor * weighted[first]
        error = 4 * EPS * probabilities.size * (total[first] + factor * weighted[first])
        return self.infinity + np.maximum(excess, 0.0) + error

    def to_dp_accounting(self) -> Any:
        """The same pmf as dp_accounting's ``DensePLDPmf`` (its public constructor)."""
        from dp_accounting.pld import pld_pmf

        return pld_pmf.DensePLDPmf(self.discretisation, self.lower, self.probabilities,
                                   self.infinity, self.pessimistic)

    def _suffix_sums(self, epsilons: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``μ_∞ + Σ p`` and ``Σ p e^{−ℓ}`` over the top ``k`` losses (``k = 0 … n``), and the
        ``k`` of the losses above each ε."""
        masses = self.probabilities[::-1]
        upper = np.cumsum(np.concatenate(([self.infinity], masses)))
        lower = np.cumsum(np.concatenate(([0.0], masses * np.exp(-self.losses[::-1]))))
        first = self.size - np.searchsorted(self.losses, epsilons, side="right")
        return upper, lower, first

    def _check_composable(self, other: DensePmf) -> None:
        if (other.discretisation, other.pessimistic) != (self.discretisation, self.pessimistic):
            raise InvalidSpecification(
                "pmfs compose only on one grid and with one rounding: got discretisations "
                f"{self.discretisation:g} and {other.discretisation:g}, pessimistic "
                f"{self.pessimistic} and {other.pessimistic}", parameter="other")


def _first(flags: np.ndarray) -> int:
    """The index of the first true flag (their number where none is)."""
    return int(np.argmax(flags)) if flags.any() else int(flags.size)


def _prefix_within(values: np.ndarray, threshold: float) -> int:
    """The length of the longest prefix whose running sums stay at or below ``threshold``."""
    return _first(np.cumsum(values) > threshold)


def _truncate_tails(probabilities: np.ndarray, truncation: float,
                    pessimistic: bool) -> tuple[int, np.ndarray, float]:
    """``(offset, kept, cut)``: the longest prefix and suffix of mass at most ``truncation / 2``
    each taken off, the lower one added to the first point kept and ``cut`` (the upper one)
    left for infinity (pessimistic), or the upper one added to the last point kept and the
    lower one dropped (optimistic)."""
    if truncation == 0:
        return 0, probabilities, 0.0
    left = _prefix_within(probabilities, truncation / 2)
    right = probabilities.size - _prefix_within(probabilities[::-1], truncation / 2)
    right = max(right, left + 1)
    left_mass, right_mass = float(np.sum(probabilities[:left])), float(np.sum(
        probabilities[right:]))
    kept = probabilities[left:right].copy()
    if pessimistic:
        kept[0] += left_mass
        return left, kept, right_mass
    kept[-1] += right_mass
    return left, kept, 0.0


def connect_dots(discretisation: float, rounded: np.ndarray, deltas: np.ndarray) -> DensePmf:
    """The pessimistic connect-the-dots pmf (Doroshenko et al. 2022, Alg. 1; dp_accounting's
    ``create_pmf_pessimistic_connect_dots``) of a privacy profile read at the losses ``rounded
    · discretisation`` (strictly increasing integers, ``deltas`` in ``[0, 1]``, made
    non-increasing): the mass at ``ε_i`` is ``(δ_i − δ_{i−1})/(e^{ε_{i−1} − ε_i} − 1) +
    (δ_{i+1} − δ_i)/(e^{ε_{i+1} − ε_i} − 1)`` (``δ_0 = 1`` at ``ε_0 = −∞``), clipped at 0, and
    ``δ_n`` is at infinity."""
    rounded = np.asarray(rounded, dtype=int)
    deltas = np.asarray(deltas, dtype=float)
    if rounded.size != deltas.size or rounded.size == 0:
        raise InvalidSpecification(f"rounded and deltas must be of one non-zero length, got "
                                   f"{rounded.size} and {deltas.size}", parameter="deltas")
    gaps = np.diff(rounded) * discretisation
    if np.any(gaps <= 0):
        raise InvalidSpecification("rounded must be strictly increasing", parameter="rounded")
    if np.any(deltas < 0) or np.any(deltas > 1):
        raise InvalidSpecification("deltas must lie in [0, 1]", parameter="deltas")
    deltas = np.minimum.accumulate(deltas)
    steps = np.diff(deltas)
    below = np.append(1 - deltas[0], steps / np.expm1(-gaps))
    above = np.append(steps / np.expm1(gaps), 0.0)
    probabilities = np.zeros(int(rounded[-1] - rounded[0]) + 1)
    probabilities[rounded - rounded[0]] = np.maximum(0, below + above)
    return DensePmf(discretisation, int(rounded[0]), probabilities, float(deltas[-1]), True)


@dataclass(frozen=True, eq=False)
class DensePLD:
    """A privacy loss distribution of two adjacencies, as dp_accounting's
    ``PrivacyLossDistribution`` holds them: ``remove`` (``mu_upper = M(x)``, ``x`` with the
    extra record) and ``add`` (``None``: the same as ``remove``, a symmetric PLD). Its methods
    are named as that class's, and read the worst of the two."""

    remove: DensePmf
    add: DensePmf | None = None

    @property
    def pmfs(self) -> tuple[DensePmf, ...]:
        """The distinct pmfs: ``(remove,)`` for a symmetric PLD, else ``(remove, add)``."""
        return (self.remove,) if self.add is None else (self.remove, self.add)

    @property
    def added(self) -> DensePmf:
        """The ADD adjacency's pmf (``remove``'s for a symmetric PLD)."""
        return self.remove if self.add is None else self.add

    def compose(self, other: DensePLD | PrivacyLossDistribution,
                truncation: float = TRUNCATION) -> Any:
        """Composed with ``other``, adjacency by adjacency; one of dp_accounting's PLDs is
        composed with this one handed over (:meth:`to_dp_accounting`), by dp_accounting."""
        if not isinstance(other, DensePLD):
            return self.to_dp_accounting().compose(other, truncation)
        remove = self.remove.compose(other.remove, truncation)
        if self.add is None and other.add is None:
            return DensePLD(remove)
        return DensePLD(remove, self.added.compose(other.added, truncation))

    def self_compose(self, count: int, truncation: float = TRUNCATION) -> DensePLD:
        """``count`` copies composed (:meth:`DensePmf.self_compose`)."""
        return DensePLD(*(pmf.self_compose(count, truncation) for pmf in self.pmfs))

    @overload
    def get_delta_for_epsilon(self, epsilon: float) -> float: ...

    @overload
    def get_delta_for_epsilon(self, epsilon: Sequence[float] | np.ndarray) -> np.ndarray: ...

    def get_delta_for_epsilon(self, epsilon: float | Sequence[float] | np.ndarray
                              ) -> float | np.ndarray:
        """The larger δ(ε) of the two adjacencies (elementwise for several ε)."""
        if self.add is None:
            return self.remove.get_delta_for_epsilon(epsilon)
        found = np.maximum(self.remove.get_delta_for_epsilon(epsilon),
                           self.add.get_delta_for_epsilon(epsilon))
        return float(found) if np.ndim(found) == 0 else found

    def get_epsilon_for_delta(self, delta: float) -> float:
        """The larger ε(δ) of the two adjacencies."""
        return max(pmf.get_epsilon_for_delta(delta) for pmf in self.pmfs)

    def to_dp_accounting(self) -> Any:
        """The same PLD as dp_accounting's ``PrivacyLossDistribution`` (its public
        constructor), to compose with what only dp_accounting knows."""
        from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

        return PrivacyLossDistribution(*(pmf.to_dp_accounting() for pmf in self.pmfs))
