"""Dominating pairs: the one-dimensional distributions a mechanism solver reduces a bound to.

A :class:`MixturePair` is ``P = Σ_i p_i D(μ_i, s)`` and ``Q = Σ_j q_j D(ν_j, s)`` with ``D`` the
density of a noise family (:mod:`otbound.numerics.families`: Gaussian with standard deviation
``s``, Laplace with scale ``s``, …) and means in units of the
sensitivity (001 Thm. 4.2, 003 Thm. 3.8). A :class:`FinitePair` is a pair of distributions on a
finite set (randomized response, 001 Thm. 3.7, G.1).

Densities are handled relative to the reference density ``D(0, s)``: with
``λ_i(z) = log D(z; μ_i) − log D(z; 0)``, ``log(P/D_0) = log Σ_i p_i e^{λ_i}``, computed as
``log1p(Σ_i p_i expm1(λ_i))`` where that sum is small (``Σ_i p_i = 1``). This keeps the privacy
loss ``log P − log Q`` accurate to a few ulps even when it is tiny, which is what makes 1e-9
relative accuracy of tiny ε possible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from otbound.errors import InvalidSpecification
from otbound.numerics.noise import NoiseFamily
from otbound.numerics.rounding import EPS

SMALL = 0.5
"""Below this size of ``Σ p_i expm1(λ_i)`` the log1p form is used."""


def log_sum_exp(values: np.ndarray, axis: int | None = None) -> np.ndarray:
    """``log Σ exp(values)`` along ``axis`` (``-inf`` for an empty sum).

    The largest term is factored out and the rest summed with ``log1p``, so a total close to the
    largest term keeps its relative precision (``log(1 + 10⁻⁵)`` is not rounded to a few digits).
    """
    values = np.asarray(values, dtype=float)
    if axis is None:
        return log_sum_exp(values.reshape(1, -1), axis=1)[0]
    values = np.moveaxis(values, axis, 0)
    if values.shape[0] == 0:
        return np.full(values.shape[1:], -np.inf)
    return _log_sum_and_shares(values)[0]


def _log_sum_and_shares(logs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log Σ_i e^{logs_i}`` along the first axis, and each term's share of the sum.

    The terms below the largest are summed apart (``log1p``); ties with it count one each."""
    top = logs.max(axis=0)
    finite = np.isfinite(top)
    with np.errstate(invalid="ignore", over="ignore"):
        shifted = np.exp(logs - np.where(finite, top, 0.0))
        below = logs < top
        rest = shifted.sum(axis=0, where=below) + (np.count_nonzero(~below, axis=0) - 1)
        total = np.where(finite, top + np.log1p(rest), top)
        return total, shifted / (1 + rest)


class Side(Enum):
    """Which distribution of a pair: ``P`` (the first) or ``Q``."""

    P = "p"
    Q = "q"


def _components(name: str, means, log_weights) -> tuple[np.ndarray, np.ndarray]:
    means = np.asarray(means, dtype=float)
    log_weights = np.asarray(log_weights, dtype=float)
    if means.shape != log_weights.shape or means.ndim != 1 or means.size == 0:
        raise InvalidSpecification(f"{name}: one log-weight per mean is needed")
    keep = log_weights > -np.inf
    if not np.all(np.isfinite(means)) or np.any(np.isnan(log_weights)):
        raise InvalidSpecification(f"{name}: means and weights must be finite numbers")
    total = np.logaddexp.reduce(log_weights[keep]) if keep.any() else -np.inf
    if not abs(total) < 1e-12:
        raise InvalidSpecification(f"{name}: weights must sum to 1, got exp({total})")
    return means[keep], log_weights[keep]


@dataclass(frozen=True, eq=False)
class MixturePair:
    """``P = Σ p_i D(μ_i, s)`` versus ``Q = Σ q_j D(ν_j, s)`` (weights given as logarithms)."""

    family: NoiseFamily
    scale: float
    p_means: np.ndarray
    p_log_weights: np.ndarray
    q_means: np.ndarray
    q_log_weights: np.ndarray

    def __post_init__(self) -> None:
        if not (math.isfinite(self.scale) and self.scale > 0):
            raise InvalidSpecification(f"scale must be a finite number > 0, got {self.scale}")
        p = _components("P", self.p_means, self.p_log_weights)
        q = _components("Q", self.q_means, self.q_log_weights)
        for name, value in zip(("p_means", "p_log_weights", "q_means", "q_log_weights"), p + q):
            object.__setattr__(self, name, value)

    def components(self, side: Side) -> tuple[np.ndarray, np.ndarray]:
        """``(means, log weights)`` of ``P`` or ``Q``."""
        if side is Side.P:
            return self.p_means, self.p_log_weights
        if side is Side.Q:
            return self.q_means, self.q_log_weights
        raise InvalidSpecification(f"side must be Side.P or Side.Q, got {side!r}",
                                   parameter="side")

    @property
    def ratio_increases(self) -> bool:
        """Whether ``P(z)/Q(z)`` is nondecreasing in ``z``: every mean of P at or above every
        mean of Q (the families' kernels are totally positive of order 2)."""
        return bool(self.p_means.min() >= self.q_means.max())

    def log_sup_ratio(self) -> float:
        """``lim_{z→∞} log P(z)/Q(z)``: ``log sup_z P/Q`` where :attr:`ratio_increases`."""
        return self.family.log_sup_ratio(self.p_means, self.p_log_weights, self.q_means,
                                         self.q_log_weights, self.scale)

    def swapped(self) -> "MixturePair":
        """The pair ``(Q, P)``."""
        return MixturePair(self.family, self.scale, self.q_means, self.q_log_weights,
                           self.p_means, self.p_log_weights)

    def reflected(self) -> "MixturePair":
        """The pair mirrored at zero (``z ↦ −z``): same divergences, as the densities are even."""
        return MixturePair(self.family, self.scale, -self.p_means, self.p_log_weights,
                           -self.q_means, self.q_log_weights)

    def is_trivial(self) -> bool:
        """True when ``P = Q`` component by component (every divergence vanishes)."""
        return (np.array_equal(np.sort(self.p_means), np.sort(self.q_means))
                and np.allclose(self.p_log_weights[np.argsort(self.p_means)],
                                self.q_log_weights[np.argsort(self.q_means)], rtol=0, atol=0))

    def relative_log(self, means: np.ndarray, z: np.ndarray) -> np.ndarray:
        """``λ_i(z) = log D(z; μ_i) − log D(z; 0)``, shape ``(len(means), len(z))``."""
        return self.family.relative_log(means, z, self.scale)

    def log_reference(self, z: np.ndarray) -> np.ndarray:
        """``log D(z; 0)``."""
        return self.family.log_density(z, self.scale)

    def log_relative_density(self, side: Side, z: np.ndarray) -> np.ndarray:
        """``log(P/D_0)`` (``Side.P``) or ``log(Q/D_0)`` (``Side.Q``), accurate near zero."""
        return self._log_relative(side, z)[0]

    def log_relative_density_error(self, side: Side, z: np.ndarray) -> np.ndarray:
        """A bound on the absolute rounding error of :meth:`log_relative_density`.

        Each term ``w_i e^{λ_i}`` (or ``w_i expm1(λ_i)`` near zero) is off by a few ulps of
        ``|log w_i| + |λ_i|`` (the log-weights are correctly rounded); the error of the sum is
        their share-weighted total, whatever cancellation the sum itself contains."""
        return self._log_relative(side, z)[1]

    def _log_relative(self, side: Side, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        means, log_weights = self.components(side)
        lam = self.relative_log(means, z)
        logs = log_weights[:, None] + lam
        result, shares = _log_sum_and_shares(logs)
        # Far from zero: each log-term is off by ulps of its parts, the sum by ulps of itself.
        magnitude = np.abs(log_weights)[:, None] + np.abs(lam)
        error = (shares * magnitude).sum(axis=0) + np.abs(logs.max(axis=0)) + np.abs(result)
        near = np.abs(lam).max(axis=0) < SMALL
        if near.any():
            # Near zero: log1p(Σ w_i expm1(λ_i)), each term off by ulps of its parts.
            terms = np.exp(log_weights)[:, None] * np.expm1(lam[:, near])
            total = terms.sum(axis=0)
            use = np.abs(total) < SMALL
            result[near] = np.where(use, np.log1p(total), result[near])
            small = (np.abs(terms) * (2 + magnitude[:, near])).sum(axis=0) / (1 + total)
            error[near] = np.where(use, small + np.abs(result[near]), error[near])
        return result, 4 * EPS * error

    def loss_features(self, z: np.ndarray) -> np.ndarray:
        """Rows ``log Q(z)``, the privacy loss ``log P(z) − log Q(z)`` and a bound on the loss's
        absolute rounding error (the two relative logs' errors added), at every point of ``z``."""
        relative_p, error_p = self._log_relative(Side.P, z)
        relative_q, error_q = self._log_relative(Side.Q, z)
        return np.stack([relative_q + self.log_reference(z), relative_p - relative_q,
                         error_p + error_q])

    def log_loss(self, z: np.ndarray) -> np.ndarray:
        """The privacy loss ``log P(z) − log Q(z)``."""
        return self.log_relative_density(Side.P, z) - self.log_relative_density(Side.Q, z)


@dataclass(frozen=True, eq=False)
class FinitePair:
    """Two distributions on the same finite set, as probability vectors.

    ``log_ratio`` holds the privacy losses ``log(p_i/q_i)`` and ``log_ratio_error`` a bound on
    their absolute error. By default they are computed from ``p`` and ``q``; a solver that knows
    the differences ``p − q`` more precisely than the subtraction of two rounded probabilities
    (``θ`` close to ½, tiny sampling rates) builds the pair with :meth:`from_differences`, which
    keeps tiny losses accurate to a few ulps.
    """

    p: np.ndarray
    q: np.ndarray
    # None: computed from p and q. Never None once made (__post_init__ sets them), which the
    # checker cannot see: hence the ignores.
    log_ratio: np.ndarray = None   # type: ignore[assignment]
    log_ratio_error: np.ndarray = None   # type: ignore[assignment]

    def __post_init__(self) -> None:
        p, q = np.asarray(self.p, dtype=float), np.asarray(self.q, dtype=float)
        if p.shape != q.shape or p.ndim != 1:
            raise InvalidSpecification("a finite pair needs two probability vectors of one length")
        for name, v in (("P", p), ("Q", q)):
            if not np.all(np.isfinite(v)) or np.any(v < 0) or not abs(v.sum() - 1) < 1e-12:
                raise InvalidSpecification(f"{name} must be a probability vector, got {v}")
        if self.log_ratio is None:
            with np.errstate(divide="ignore"):
                loss = np.log(p) - np.log(q)
            loss = np.where((p == 0) & (q == 0), 0.0, loss)
            # Each logarithm is within one ulp; so is their difference.
            error = np.where(p == q, 0.0, 2 * EPS * (np.abs(np.log(np.where(p > 0, p, 1)))
                                                     + np.abs(np.log(np.where(q > 0, q, 1)))))
        else:
            loss = np.asarray(self.log_ratio, dtype=float)
            error = np.asarray(self.log_ratio_error, dtype=float)
        for name, value in (("p", p), ("q", q), ("log_ratio", loss), ("log_ratio_error", error)):
            object.__setattr__(self, name, value)

    @staticmethod
    def from_differences(p, q, difference, difference_error) -> "FinitePair":
        """The pair with losses ``log1p((p − q)/q)`` from the given differences ``p − q`` and
        their absolute errors (``p`` and ``q`` accurate to a few ulps)."""
        p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
        difference = np.asarray(difference, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.where(q > 0, np.log1p(difference / np.where(q > 0, q, 1)), np.inf)
            loss = np.where(p > 0, loss, -np.inf)
            # d log1p(d/q) = d(d)/p; the quotient and the logarithm add a few ulps of |loss|.
            error = (np.asarray(difference_error, dtype=float) / np.where(p > 0, p, 1)
                     + 4 * EPS * np.where(np.isfinite(loss), np.abs(loss), 0.0))
        return FinitePair(p, q, loss, error)

    def is_trivial(self) -> bool:
        """True when ``P = Q`` exactly (every divergence vanishes)."""
        return bool(np.all(self.log_ratio == 0) and np.all(self.log_ratio_error == 0))

    def swapped(self) -> "FinitePair":
        return FinitePair(self.q, self.p, -self.log_ratio, self.log_ratio_error)
