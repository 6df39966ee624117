"""Shuffled batches: a lower bound on the privacy profile over epochs.

Shuffling cuts a uniformly random permutation of the dataset into ``T`` batches of one size, anew
in every epoch. Chua et al. 2024 ("How Private are DP-SGD Implementations?", ICML; "Scalable
DP-SGD: Shuffling vs. Poisson Subsampling", NeurIPS) bound it from below with a pair of datasets
that differ in one record under zeroing-out (the record replaced by one that contributes 0, the
analogue of insertion/removal for batches of fixed size): every other record contributes −1, the
differing record +1. Step ``t`` releases its batch's sum plus ``N(0, σ²)``; shifted by the batch
size, an epoch's output is ``P = (1/T) Σ_t N(2e_t, σ² I)`` for the one dataset and
``Q = (1/T) Σ_t N(e_t, σ² I)`` for the other, whatever the batch size.

Whatever is computed from the outputs cannot be more distinguishable than they are. Here: which
cell of a fine grid the largest output ``max_t y_t`` of each epoch falls in, whose laws are exact
(``P(max ≤ c) = Φ((c − 2)/σ) Φ(c/σ)^{T−1}``, ``Q(max ≤ c) = Φ((c − 1)/σ) Φ(c/σ)^{T−1}``). Its
privacy loss, rounded down to a grid and composed over the epochs, gives δ(ε) from below. For one
epoch the events ``max_t y_t > C`` alone give

    δ(ε) ≥ [1 − Φ((C − 2)/σ) Φ(C/σ)^{T−1}] − e^ε [1 − Φ((C − 1)/σ) Φ(C/σ)^{T−1}]

(:func:`_events`). No dominating pair for shuffling is known; the upper bound otbound reports
(``otbound.account``, :data:`SHUFFLED_UPPER_SOURCE`) is the mechanism once per epoch, without
amplification (the derivation ``epoch-shuffling``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from otbound.errors import InvalidSpecification, Refusal, UnsupportedOperation, required
from otbound.numerics.epoch_settings import check_epochs
from otbound.numerics.ratio_sums import cells_between, repeated_by
from otbound.numerics.rounding import EPS

EVENT_THRESHOLDS = np.linspace(-5.0, 40.0, 45001)
"""Values of ``C`` searched (a finer one is found near the best)."""


def lower_delta(steps: int, sigma: float, epsilon: float) -> float:
    """The largest of the event bounds over ``C``, less its floating-point error (still a
    lower bound)."""
    from scipy.optimize import minimize_scalar

    def bound(threshold) -> tuple[np.ndarray, np.ndarray]:
        p_event, q_event = _events(steps, sigma, np.atleast_1d(threshold))
        factor = math.exp(epsilon)
        return p_event - factor * q_event, 8 * EPS * (p_event + factor * q_event)

    values, _ = bound(EVENT_THRESHOLDS)
    best = EVENT_THRESHOLDS[int(np.argmax(values))]
    step = EVENT_THRESHOLDS[1] - EVENT_THRESHOLDS[0]
    refined = minimize_scalar(lambda c: -bound(c)[0][0], method="bounded",
                              bounds=(best - step, best + step)).x
    threshold = refined if bound(refined)[0][0] > values.max() else best
    value, error = bound(threshold)
    return max(0.0, float(value[0] - error[0]))


def _events(steps: int, sigma: float, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P(max_t y_t > C)`` and ``Q(max_t y_t > C)``, each ``1 − Π Φ`` as ``−expm1(Σ log Φ)``
    (no cancellation in the tails)."""
    from scipy.special import log_ndtr

    rest = (steps - 1) * log_ndtr(thresholds / sigma)
    return (-np.expm1(log_ndtr((thresholds - 2) / sigma) + rest),
            -np.expm1(log_ndtr((thresholds - 1) / sigma) + rest))


LOSS_STEP = 1e-3
"""Grid of the privacy loss of the largest output (rounded down: the bound stays a lower one)."""


@dataclass(frozen=True)
class LowerBound:
    """``(ε, δ)`` that no valid guarantee of the setting can beat: every valid ε at this δ is at
    least ``epsilon`` (or every valid δ at this ε at least ``delta``)."""

    epsilon: float
    delta: float
    epochs: int
    source: str


SHUFFLED_UPPER_SOURCE = (
    "upper bound: each record is in one batch per epoch, so an epoch is at most the mechanism "
    "once (derivation epoch-shuffling, substitution of one record, e.g. zero-out; no "
    "amplification), composed over the epochs")
"""What ``otbound.account`` reports for shuffled batches rests on."""
SHUFFLING_SOURCE = ("lower bound: Chua et al. 2024's pair of datasets (others −1, the record +1 "
                    "or 0), the largest output of each epoch, composed over the epochs")


def lower_bound_refusal(mechanism) -> Refusal | None:
    """Why Chua et al.'s lower bound (:func:`shuffled_lower_bound`, computed for Gaussian
    noise) is not one of ``mechanism``, or ``None`` where its family says it is
    (``NoiseFamily.shuffled_lower_bound``; the noise multiplier is the ``sigma`` to give)."""
    if getattr(getattr(mechanism, "family", None), "shuffled_lower_bound", False):
        return None
    return Refusal(f"no lower bound for the {mechanism.name} mechanism: Chua et al.'s pair is "
                   "computed for Gaussian noise")


def shuffled_lower_bound(setting, sigma: float, epochs: int, *,
                         delta: float | None = None,
                         epsilon: float | None = None) -> LowerBound:
    """The lower bound at ``delta`` (ε) or at ``epsilon`` (δ) after ``epochs`` epochs of
    shuffled batches (``setting``: :func:`otbound.numerics.epoch_settings.ShuffledBatches`)."""
    if (delta is None) == (epsilon is None):
        raise InvalidSpecification("give delta or epsilon", parameter="delta")
    check_epochs(epochs)
    if setting.origin.get("dropped_records"):
        raise UnsupportedOperation(
            f"the loader leaves {setting.origin['dropped_records']} records out of each epoch "
            "(drop_last): Chua et al.'s pair assumes every record is in a batch, so its lower "
            "bound is not one of this loader (the upper bound still holds)")
    profile = _composed_profile(setting.steps_per_epoch, sigma, epochs)
    if epsilon is not None:
        return LowerBound(epsilon, float(profile(np.array([epsilon]))[0]), epochs,
                          SHUFFLING_SOURCE)
    delta = required(delta, "delta")   # checked above: one of the two is given
    return LowerBound(_inverse(profile, delta), delta, epochs, SHUFFLING_SOURCE)


def _inverse(profile, delta: float) -> float:
    """The largest ε with ``profile(ε) ≥ delta`` (0 if none)."""
    low, high = 0.0, 1.0
    if profile(np.array([0.0]))[0] < delta:
        return 0.0
    while profile(np.array([high]))[0] >= delta:
        low, high = high, 2 * high
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if profile(np.array([middle]))[0] >= delta else (low, middle)
    return low


def _composed_profile(steps: int, sigma: float, epochs: int):
    """``ε ↦`` δ of the largest outputs' pair composed ``epochs`` times, from below: the loss
    rounded down to :data:`LOSS_STEP`, convolved by FFT, less an allowance for its rounding."""
    from scipy.signal import fftconvolve

    p_cells, q_cells = largest_output(steps, sigma)
    kept = p_cells > 0
    losses = np.log(p_cells[kept]) - np.log(q_cells[kept])
    index = np.floor(losses / LOSS_STEP).astype(np.int64)
    base = int(index.min())
    pmf = np.bincount(index - base, weights=p_cells[kept])
    composed = repeated_by(pmf, epochs, lambda a, b: np.maximum(fftconvolve(a, b), 0.0))
    grid = (epochs * base + np.arange(composed.size)) * LOSS_STEP
    allowance = 8 * EPS * composed.size * epochs

    def profile(epsilons: np.ndarray) -> np.ndarray:
        gains = np.maximum(-np.expm1(epsilons[:, None] - grid[None, :]), 0.0)
        return np.maximum(gains @ composed - allowance, 0.0)

    return profile


def largest_output(steps: int, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """The laws of the cell of ``max_t y_t`` under ``P`` and ``Q`` (cells of width σ/200 over
    the bulk, and the two tails), each cell from the side of the nearer tail."""
    from scipy.special import log_ndtr

    edges = np.arange(-10 * sigma, 2 + math.sqrt(2 * math.log(steps + 1)) * sigma
                      + 12 * sigma, sigma / 200)
    rest = (steps - 1) * log_ndtr(edges / sigma)
    cells = []
    for shift in (2.0, 1.0):
        below = np.exp(log_ndtr((edges - shift) / sigma) + rest)      # P(max ≤ c)
        above = -np.expm1(log_ndtr((edges - shift) / sigma) + rest)   # P(max > c)
        inner = cells_between(below, above)
        cells.append(np.maximum(np.concatenate([[below[0]], inner, [above[-1]]]), 0.0))
    return cells[0], cells[1]
