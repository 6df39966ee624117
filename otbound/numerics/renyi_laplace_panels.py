"""Where :mod:`otbound.numerics.renyi` integrates a Laplace pair's ``Q φ_α(P/Q)``: the
log-densities are piecewise linear, so beyond every mean the privacy loss is constant and both
tails are exact; between the means the quadrature's panels end at the kinks.
"""

from __future__ import annotations

import math

import numpy as np

from otbound.numerics.pairs import MixturePair, Side
from otbound.numerics.renyi_integrand import log_phi
from otbound.numerics.rounding import EPS


def _linear_panels(pair: MixturePair, alphas: np.ndarray) -> tuple:
    """:func:`_laplace_panels`, with nothing neglected."""
    return (*_laplace_panels(pair, alphas), np.full(alphas.size, -np.inf))


def _laplace_panels(pair: MixturePair, alphas: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Panels between the means, ``log ∫`` over both tails (where ``P/Q`` is constant), and the
    relative error of the tails."""
    s = pair.scale
    means = np.unique(np.concatenate([pair.p_means, pair.q_means]))
    tails, tail_error = np.full(alphas.size, -np.inf), np.zeros(alphas.size)
    for end, direction in ((means.max(), 1), (means.min(), -1)):
        # Beyond every mean (and zero), each density is a multiple of exp(−direction·z/s), and
        # the loss is constant: log(P/D₀) and log(Q/D₀) there are the accurate mixture logs.
        beyond = np.array([max(direction * end, 0.0) * direction])
        relative_q = float(pair.log_relative_density(Side.Q, beyond)[0])
        loss = float(pair.log_relative_density(Side.P, beyond)[0]) - relative_q
        loss_error = float(_loss_error(pair, beyond)[0])
        log_q_tail = relative_q - direction * end / s - math.log(2)
        value = log_q_tail + log_phi(alphas, np.full(alphas.size, loss))
        away = loss + (loss_error if loss >= 0 else -loss_error)
        upper = log_q_tail + log_phi(alphas, np.full(alphas.size, away))
        with np.errstate(invalid="ignore"):
            relative = (np.where(np.isfinite(value), np.expm1(upper - value), 0.0)
                        + 8 * EPS * (1 + abs(log_q_tail) + alphas * abs(away) + loss_error))
        tails = np.logaddexp(tails, value)
        tail_error = np.maximum(tail_error, relative)
    points = [means[0]]
    for a, b in zip(means[:-1], means[1:]):
        points.extend(np.linspace(a, b, int(math.ceil(b - a)) + 1)[1:])
    cuts = np.array(points)
    if cuts.size < 2:
        return np.empty((0, 2)), np.empty(0, dtype=int), tails, tail_error
    single = np.column_stack([cuts[:-1], cuts[1:]])
    edges = np.tile(single, (alphas.size, 1))
    return edges, np.repeat(np.arange(alphas.size), single.shape[0]), tails, tail_error


def _loss_error(pair: MixturePair, z: np.ndarray) -> np.ndarray:
    """Absolute error of the privacy loss ``log(P/D₀) − log(Q/D₀)`` (its parts may cancel)."""
    return pair.log_relative_density_error(Side.P, z) + pair.log_relative_density_error(Side.Q, z)

