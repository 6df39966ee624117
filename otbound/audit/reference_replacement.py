"""Sampling with replacement: a lower end from a concrete construction, and no upper end.

otbound's engine has no bound for sampling with replacement yet (003 Thm. L.5, its dominating
pair, is not in the seeds), so a claim about it can be refuted but never confirmed: the
:class:`~otbound.audit.claims.Reference` built here has ``upper = None``.

The construction. A dataset ``x`` of ``n`` records, one of them ``a``; its neighbour ``x'`` under
substitution has ``a'`` in place of ``a``. A batch is ``m`` i.i.d. uniform draws kept as a
multiset (003 Sec. 3.4; :class:`otbound.engine.schemes.WithReplacement`). The function is
``f(y) = t·c_a(y) + (t − 1)·c_{a'}(y)``, ``c_e`` the multiplicity of ``e`` in ``y``, every other
record worth 0: for ``t ∈ [0, 1]`` two batches that differ in one drawn element differ in ``f``
by at most 1, so the Gaussian mechanism ``f(y) + N(0, σ²)`` has sensitivity 1 under substitution
of batches. The outputs are ``P = Σ_k w_k N(t k, σ²)`` and ``Q = Σ_k w_k N((t − 1) k, σ²)`` with
``w_k`` the probability that ``a`` (resp. ``a'``) is drawn ``k`` times, summed exactly from the
scheme's pmf. Their hockey-stick divergence, in either direction and for ``t ∈ {1, ½}``, is the
exact δ(ε) of a concrete pair of neighbouring datasets: a lower bound on the privacy profile of
the subsampled Gaussian.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import mpmath as mp
import numpy as np

from otbound.audit.claims import Reference, Witness
from otbound.audit.references import count_table, mechanism_text, outputs_text
from otbound.errors import InternalError, UnsupportedOperation
from otbound.numerics.families import GAUSSIAN
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.pairs import MixturePair

SHIFTS = (1.0, 0.5)
"""The values ``t`` of ``f`` on ``a`` tried (``f(a') = t − 1``); ``t = 0`` is ``t = 1`` mirrored."""
SUBSTITUTE = "a'"
"""The record of ``x'`` in place of ``a``."""
MAX_BATCHES = 200_000
"""Largest number of multisets enumerated for one ``(n, m)``."""


@lru_cache(maxsize=32)
def draw_counts(dataset_size: int, batch_size: int) -> tuple[Fraction, ...]:
    """``w_k = P[a is drawn k times]``, ``k = 0 … m``, by exact enumeration of the pmf of
    sampling with replacement on the dataset ``{0, …, n − 1}`` (``a = 0``)."""
    from otbound.engine.schemes import WithReplacement

    if math.comb(dataset_size + batch_size - 1, batch_size) > MAX_BATCHES:
        raise UnsupportedOperation(f"n = {dataset_size}, m = {batch_size}: too many batches to "
                                   "enumerate")
    weights = [Fraction(0)] * (batch_size + 1)
    for batch, probability in WithReplacement(batch_size).pmf(
            frozenset(range(dataset_size))).items():
        if not isinstance(batch, tuple):   # with replacement, batches are multisets (tuples)
            raise InternalError(f"a set batch {batch} from sampling with replacement")
        weights[batch.count(0)] += probability
    return tuple(weights)


def _witness(dataset_size: int, batch_size: int, sigma: float, pair: MixturePair, shift: float,
             direction: str) -> Witness:
    """The construction as data: ``x`` holds ``a``, ``x'`` holds ``a'`` in its place, the other
    ``n − 1`` records are common; ``f`` by the copies of the side's own record."""
    def by_copies(value: float) -> tuple[float, ...]:
        return tuple(value * k + 0.0 for k in range(batch_size + 1))

    on_x, on_x_prime = by_copies(shift), by_copies(shift - 1)
    counts = ", ".join(f"{float(w):.6g}" for w in draw_counts(dataset_size, batch_size))
    return Witness(("a",), (SUBSTITUTE,), f"{batch_size} draws with replacement from the "
                   f"{dataset_size} records, kept as a multiset",
                   f"{count_table(on_x, 'copies of a')} (y from x); "
                   f"{count_table(on_x_prime, f'copies of {SUBSTITUTE}')} (y from x'); the "
                   "other records contribute 0",
                   mechanism_text(gaussian(sigma)),
                   f"{direction}: {outputs_text(pair)}",
                   f"the construction f = t·(copies of a) + (t − 1)·(copies of a'), t = "
                   f"{shift:g}; a drawn k = 0…{batch_size} times with probabilities ({counts})",
                   (on_x, on_x_prime), dataset_size - 1)


def _log_weights(weights: tuple[Fraction, ...]) -> np.ndarray:
    with mp.workdps(40):
        return np.array([float(mp.log(mp.mpf(w.numerator) / w.denominator)) if w else -math.inf
                         for w in weights])


def construction_pairs(dataset_size: int, batch_size: int,
                       sigma: float) -> list[tuple[MixturePair, float, str]]:
    """The output pairs of the construction, each with its ``t`` and direction."""
    log_weights = _log_weights(draw_counts(dataset_size, batch_size))
    counts = np.arange(batch_size + 1, dtype=float)
    pairs = []
    for shift in SHIFTS:
        pair = MixturePair(GAUSSIAN, sigma, shift * counts, log_weights,
                           (shift - 1) * counts, log_weights)
        pairs.append((pair, shift, "P = M(x), Q = M(x')"))
        # the reverse direction, mirrored so that the likelihood ratio increases
        pairs.append((pair.swapped().reflected(), shift, "P = M(x'), Q = M(x)"))
    return pairs


def with_replacement(dataset_size: int, batch_size: int, sigma: float,
                     epsilon: float) -> Reference:
    """``δ(ε)`` of the Gaussian mechanism (sensitivity 1, noise ``σ``) on ``m`` draws with
    replacement from ``n`` records, substitution relation: no upper end; the lower end is the
    largest divergence of the constructions (its value less twice its error estimate)."""
    from otbound.numerics.hockey_stick import hockey_stick
    from otbound.verify.high_precision import precise_hockey_stick

    judged = []
    for pair, shift, direction in construction_pairs(dataset_size, batch_size, sigma):
        bound = hockey_stick(pair, epsilon)
        judged.append((bound.value - 2 * bound.error, pair, shift, direction))
    value, pair, shift, direction = max(judged, key=lambda entry: entry[0])
    lower = max(math.nextafter(value, -math.inf), 0.0)
    witness = _witness(dataset_size, batch_size, sigma, pair, shift, direction)
    return Reference(None, lower, witness,
                     lambda: float(precise_hockey_stick(pair, epsilon)[0]))
