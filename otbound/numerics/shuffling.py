"""Shuffled batches over one epoch: a lower bound on the privacy profile (no upper bound is known).

Shuffling cuts a uniformly random permutation of the dataset into ``T`` batches of one size.
Chua et al. 2024 ("How Private are DP-SGD Implementations?", ICML) bound it from below with a
pair of datasets that differ in one record under zeroing-out (the record replaced by one that
contributes 0, the analogue of insertion/removal for batches of fixed size): every other record
contributes −1, the differing record +1. Step ``t`` releases its batch's sum plus ``N(0, σ²)``;
shifted by the batch size, the epoch's output is ``P = (1/T) Σ_t N(2e_t, σ² I)`` for the one
dataset and ``Q = (1/T) Σ_t N(e_t, σ² I)`` for the other. For the event ``max_t y_t > C``,

    δ(ε) ≥ [1 − Φ((C − 2)/σ) Φ(C/σ)^{T−1}] − e^ε [1 − Φ((C − 1)/σ) Φ(C/σ)^{T−1}],

for every ``C``: a lower bound on the profile of every accountant's subject, whatever the batch
size. An upper bound for shuffling would need a dominating pair, and none is known.
"""

from __future__ import annotations

import math

import numpy as np

from otbound.numerics.rounding import EPS

THRESHOLDS = np.linspace(-5.0, 40.0, 45001)
"""Values of ``C`` searched (a finer one is found near the best)."""


def lower_delta(steps: int, sigma: float, epsilon: float) -> float:
    """The largest of the event bounds over ``C``, less its floating-point error (still a
    lower bound)."""
    from scipy.optimize import minimize_scalar

    def bound(threshold) -> tuple[np.ndarray, np.ndarray]:
        p_event, q_event = _events(steps, sigma, np.atleast_1d(threshold))
        factor = math.exp(epsilon)
        return p_event - factor * q_event, 8 * EPS * (p_event + factor * q_event)

    values, _ = bound(THRESHOLDS)
    best = int(np.argmax(values))
    step = THRESHOLDS[1] - THRESHOLDS[0]
    refined = minimize_scalar(lambda c: -bound(c)[0][0], method="bounded",
                              bounds=(THRESHOLDS[best] - step, THRESHOLDS[best] + step)).x
    threshold = refined if bound(refined)[0][0] > values[best] else THRESHOLDS[best]
    value, error = bound(threshold)
    return max(0.0, float(value[0] - error[0]))


def _events(steps: int, sigma: float, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(max_t y_t > C)`` and ``Q(max_t y_t > C)``, each ``1 − Π Φ`` as ``−expm1(Σ log Φ)``
    (no cancellation in the tails)."""
    from scipy.special import log_ndtr

    rest = (steps - 1) * log_ndtr(thresholds / sigma)
    return (-np.expm1(log_ndtr((thresholds - 2) / sigma) + rest),
            -np.expm1(log_ndtr((thresholds - 1) / sigma) + rest))


def lower_epsilon(steps: int, sigma: float, delta: float) -> float:
    """The largest ``ε`` at which the lower bound on δ still reaches ``delta`` (so every valid
    ε at ``delta`` is at least this); 0 if it never does."""
    low, high = 0.0, 1.0
    if lower_delta(steps, sigma, 0.0) < delta:
        return 0.0
    while lower_delta(steps, sigma, high) >= delta:
        low, high = high, 2 * high
    for _ in range(50):
        middle = (low + high) / 2
        low, high = (middle, high) if lower_delta(steps, sigma, middle) >= delta else (low, middle)
    return low
