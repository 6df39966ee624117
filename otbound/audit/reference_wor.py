"""Sampling without replacement: an upper end for the Gaussian, and concrete constructions.

For sampling without replacement under substitution, otbound's Gaussian solver handles
``K = 1`` only, by the certified three-point solver (001 Thm. 3.6,
:mod:`otbound.numerics.three_point`); for ``K``-fold substitution (``wor-group-substitution``)
the constraint ``d(L_t, R_u) ≤ max(t, u)`` between the two mixtures is not a pattern it
recognises exactly. This module adds, for the Gaussian mechanism:

* **a relaxed upper end** (:func:`relaxed_substitution_log_psi`, the solver registry's
  relaxation of :mod:`otbound.numerics.solvers`): keep the derived bound's
  weights and its constraints within each mixture (``d(L_t, L_u) ≤ |t − u|``,
  ``d(R_t, R_u) ≤ |t − u|``, ``L_0 = R_0``) and drop the constraints across the mixtures. The
  feasible set only grows, so the maximum is an upper bound; and by 001 Thm. H.12 (arbitrary
  weights) the Gaussian maximum of the relaxed problem is the collinear configuration with means
  ``0, 1, …, K`` against ``0, −1, …, −K``, which is the constraint pattern of 003 Thm. 3.7 with
  ``K₊ = K₋ = K`` (the dropped cross constraints ``t + u`` are implied by the triangle inequality
  through ``L_0 = R_0``): the mechanism solver evaluates it.
* **concrete constructions as the lower end** (:func:`substitution_constructions`): datasets
  ``x = g ∪ B`` and ``x' = g' ∪ B`` with ``|g| = |g'| = K``, and
  ``f(y) = L·(s·|y ∩ g| − (1 − s)·|y ∩ g'|)`` for a share ``s ∈ [0, 1]``; one substitution
  changes ``f`` by at most ``L`` (``L`` the sensitivity). The outputs are
  ``P = Σ_k w_k N(s k L, σ²)`` and ``Q = Σ_k w_k N(−(1 − s) k L, σ²)`` with ``w_k`` the exact
  probability that the batch holds ``k`` elements of ``g`` (:func:`group_count_weights`).
* **the insertion/removal construction of 001 Thm. F.3** (:func:`wor_removal`) and **the
  Gaussian group divergence** (:func:`gaussian_group`).

Each lower end is the exact divergence of its construction less twice its error; ``confirm``
recomputes it with the verifier's independent quadrature (:mod:`otbound.verify.divergence`).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Callable

import mpmath as mp
import numpy as np

from otbound.audit.claims import Reference
from otbound.choices import Quantity, SchemeKind
from otbound.errors import InvalidSpecification, Refusal, granted
from otbound.numerics.mechanisms import AdditiveNoise, Mechanism
from otbound.numerics.pairs import MixturePair
from otbound.numerics.rounding import Bounds
from otbound.numerics.settings import Subsampling

WOR_SHARES = (1.0, 0.5, 0.0)
"""The shares ``s`` of the construction ``f(y) = L(s|y ∩ g| − (1 − s)|y ∩ g'|)`` tried."""
WOR_ENUMERATION_LIMIT = 20_000
"""Up to this many batches, :func:`group_count_weights` enumerates every batch."""


@lru_cache(maxsize=256)
def group_count_weights(dataset_size: int, batch_size: int,
                        group: int) -> tuple[Fraction, ...]:
    """``w_k = P[|y ∩ g| = k]``, ``k = 0 … K``, for a batch ``y`` of ``q`` elements drawn without
    replacement from a dataset of ``N`` elements that holds the ``K`` elements ``g``: exact.

    Every batch is enumerated with its probability (001 Def. 2.7, the engine's pmf) when there
    are at most :data:`WOR_ENUMERATION_LIMIT`; otherwise the batches are counted by type,
    ``C(K, k) C(N − K, q − k)`` of the ``C(N, q)`` equally likely ones (the hypergeometric law).
    """
    from otbound.engine.schemes import WithoutReplacement

    if not 1 <= batch_size <= dataset_size or not 0 <= group <= dataset_size:
        raise InvalidSpecification(f"need 1 <= q <= N and 0 <= K <= N, got q = {batch_size}, "
                                   f"N = {dataset_size}, K = {group}")
    if math.comb(dataset_size, batch_size) > WOR_ENUMERATION_LIMIT:
        total = math.comb(dataset_size, batch_size)
        return tuple(Fraction(math.comb(group, k) * math.comb(dataset_size - group,
                                                              batch_size - k), total)
                     for k in range(group + 1))
    weights = [Fraction(0)] * (group + 1)
    for batch, probability in WithoutReplacement(batch_size).pmf(
            frozenset(range(dataset_size))).items():
        weights[sum(1 for element in batch if element < group)] += probability
    return tuple(weights)


def _log_weights(weights: tuple[Fraction, ...]) -> np.ndarray:
    """Logarithms of exact probabilities (``-inf`` for zero), from 40 digits."""
    with mp.workdps(40):
        return np.array([float(mp.log(mp.mpf(w.numerator) / w.denominator)) if w else -math.inf
                         for w in weights])


def _additive(mechanism: Mechanism) -> AdditiveNoise:
    return granted(_as_additive(mechanism))


def _as_additive(mechanism: Mechanism) -> AdditiveNoise | Refusal:
    """The mechanism as additive noise, or the refusal of the constructions here."""
    if not isinstance(mechanism, AdditiveNoise):
        return Refusal(f"no construction for the {mechanism.name} mechanism here")
    return mechanism


def _pair(mechanism: AdditiveNoise, weights: tuple[Fraction, ...], p_step: float,
          q_step: float) -> MixturePair:
    """``P = Σ_k w_k D(p_step · k)`` against ``Q = Σ_k w_k D(q_step · k)``, means in units of
    the sensitivity (the scale is the noise multiplier, as in the mechanism solvers)."""
    logs = _log_weights(weights)
    keep = logs > -np.inf
    steps = np.arange(len(weights), dtype=float)[keep]
    return MixturePair(mechanism.family, mechanism.noise_multiplier, p_step * steps, logs[keep],
                       q_step * steps, logs[keep])


def substitution_constructions(setting: Subsampling,
                               mechanism: Mechanism) -> list[tuple[MixturePair, str]]:
    """The output pairs of ``x = g ∪ B``, ``x' = g' ∪ B`` (``K``-fold substitution) under
    ``f(y) = L(s|y ∩ g| − (1 − s)|y ∩ g'|)``, one for every share in :data:`WOR_SHARES`."""
    mechanism = _additive(mechanism)
    if setting.scheme is not SchemeKind.WOR:
        raise InvalidSpecification("substitution constructions need scheme='wor'")
    q, n, k = setting.batch_size, setting.dataset_size, setting.substitutions
    weights = group_count_weights(n, q, k)
    shown = ", ".join(f"{float(w):.6g}" for w in weights)
    constructions = []
    for share in WOR_SHARES:
        pair = _pair(mechanism, weights, share, share - 1.0)
        function, outputs = _shown_share(share)
        constructions.append((pair, (
            f"x = g ∪ B, x' = g' ∪ B with |g| = |g'| = {k}, |x| = {n}, batches of {q} drawn "
            f"without replacement; f(y) = {function} (sensitivity L = {mechanism.sensitivity:g} "
            f"under substitution); |y ∩ g| = k with probability w_k = ({shown}) for "
            f"k = 0…{k}, counted exactly; outputs {outputs}, σ = {mechanism.scale:g}")))
    return constructions


def _shown_share(share: float) -> tuple[str, str]:
    """``f`` and the two outputs of the construction with share ``s``, in words."""
    if share == 1.0:
        return "L·|y ∩ g|", "P = Σ_k w_k N(kL, σ²), Q = N(0, σ²)"
    if share == 0.0:
        return "−L·|y ∩ g'|", "P = N(0, σ²), Q = Σ_k w_k N(−kL, σ²)"
    return (f"L·({share:g}·|y ∩ g| − {1 - share:g}·|y ∩ g'|)",
            f"P = Σ_k w_k N({share:g}·kL, σ²), Q = Σ_k w_k N(−{1 - share:g}·kL, σ²)")


def relaxed_substitution_log_psi(setting: Subsampling, mechanism: Mechanism,
                                 alpha: float) -> Bounds:
    """An upper bound on ``log Ψ_α`` for sampling without replacement and ``K``-fold substitution
    with the Gaussian mechanism: the derived bound as the solver registry relaxes it (its
    cross-mixture constraints loosened to 003 Thm. 3.7's pattern, solved by 001 Thm. H.12; see
    the module docstring and :mod:`otbound.numerics.solvers`). Refused (raised) as
    :func:`relaxed_substitution_bound` refuses."""
    return granted(relaxed_substitution_bound(setting, mechanism, alpha))


def relaxed_substitution_bound(setting: Subsampling, mechanism: Mechanism,
                               alpha: float) -> Bounds | Refusal:
    """:func:`relaxed_substitution_log_psi`, or why there is none: a mechanism other than
    additive rotation-invariant noise, or a problem no registered relaxation solves."""
    from otbound.numerics.one_step import branches_log_psi
    from otbound.numerics.solvers import solve

    additive = _as_additive(mechanism)
    if isinstance(additive, Refusal):
        return additive
    if not additive.family.rotation_invariant:
        return Refusal("the relaxation is solved for the Gaussian (001 Thm. H.12)")
    branches = []
    for terms in setting.cases():
        for log_probability, problem in terms:
            found = solve(problem, additive)
            if found.pairs is None:
                return Refusal("no registered relaxation of the derived bound's problem has a "
                               "Gaussian solver")
            branches.append((log_probability, found.pairs))
    return branches_log_psi(branches, np.array([float(alpha)]))


def _judged(candidates: list[tuple[MixturePair, str]], alpha: float):
    """The construction whose divergence, less twice its error, is largest."""
    from otbound.numerics.renyi import log_psi

    judged = [(log_psi(pair, alpha), pair, text) for pair, text in candidates]
    return max(judged, key=lambda entry: entry[0].value - 2 * entry[0].error)


def _lower(bound, alpha: float) -> float:
    """``(log Ψ − 2·error)/(α − 1)``, rounded down, at least zero."""
    value = math.nextafter(bound.value - 2 * bound.error, -math.inf)
    return max(value, 0.0) / (alpha - 1) * (1 - 4 * 2.0 ** -52)


def _confirmation(pair: MixturePair, alpha: float) -> Callable[[], float]:
    """The construction's ``ε(α)`` by the verifier's independent quadrature."""
    def confirm() -> float:
        from otbound.verify.divergence import independent_log_psi

        return independent_log_psi(pair, alpha) / (alpha - 1)
    return confirm


def wor_substitution(setting: Subsampling, mechanism: Mechanism, alpha: float) -> Reference:
    """``ε(α)`` of sampling without replacement under ``K``-fold substitution: the smaller of
    otbound's own bound (:func:`~otbound.audit.references.subsampled`) and the relaxed Gaussian
    bound as the upper end; the best of :func:`substitution_constructions` (or otbound's own
    worst case, where it has one) as the lower end."""
    from otbound.audit.references import constructions_only_mode, subsampled_reference
    from otbound.numerics.mixtures import per_order

    alpha = float(alpha)
    found = subsampled_reference(setting, mechanism, Quantity.RDP, alpha)
    # constructions-only mode (the search needs those only); otherwise a refusal is raised
    own = (Reference(None, None) if isinstance(found, Refusal) and constructions_only_mode()
           else granted(found))
    upper, published = own.upper, own.published
    relaxation = relaxed_substitution_bound(setting, mechanism, alpha)
    if not isinstance(relaxation, Refusal):
        relaxed = float(per_order(relaxation, np.array([alpha])).upper[0])
        if upper is None or relaxed < upper:
            upper, published = relaxed, ""
    bound, pair, text = _judged(substitution_constructions(setting, mechanism), alpha)
    lower = _lower(bound, alpha)
    if own.lower is not None and own.lower >= lower:
        return Reference(upper, own.lower, own.witness, own.confirm, published)
    return Reference(upper, lower, text, _confirmation(pair, alpha), published)


def wor_removal(batch_size: int, dataset_size: int, mechanism: Mechanism,
                alpha: float) -> Reference:
    """``ε(α)`` of the removal case of 001 Thm. F.3: ``x' = x \\ {a}`` with ``|x'| = N``
    (``dataset_size``), batches of ``q`` drawn without replacement, the base mechanism private
    under insertion/removal of batch elements.

    Upper end: the engine's derived bound of ``001-thm-F.3`` (corrected: distance 2, weight
    ``q/(N + 1)``), removal case, solved by the mechanism solver (the Gaussian worst case of
    001 Thm. H.4, means 0 and 2). Lower end: ``f(y) = 2L·1[a ∈ y]`` (``L``-Lipschitz in the
    insertion/removal distance, since batches of equal size that differ in ``a`` are at distance
    at least 2), whose outputs ``(1 − w) N(0) + w N(2L)`` and ``N(0)`` have ``w = P[a ∈ y]``
    counted exactly."""
    from otbound.numerics.derived import bundled, evaluate
    from otbound.numerics.mixtures import per_order
    from otbound.numerics.one_step import branches_log_psi

    mechanism = _additive(mechanism)
    alpha = float(alpha)
    larger = dataset_size + 1
    derived = bundled("001-thm-F.3")
    cases = dict(zip((case.name for case in derived.cases),
                     evaluate(derived, {"q": batch_size, "N": larger})))
    branches = [(log_p, mechanism.tight_pairs(problem)) for log_p, problem in cases["removal"]]
    upper = per_order(branches_log_psi(branches, np.array([alpha])), np.array([alpha])).upper[0]
    weights = group_count_weights(larger, batch_size, 1)
    pair = _pair(mechanism, weights, 2.0, 0.0)
    bound, _, _ = _judged([(pair, "")], alpha)
    text = (f"x = {{a, b_1, …, b_{dataset_size}}}, x' = x \\ {{a}} (|x'| = N = {dataset_size}), "
            f"batches of {batch_size} drawn without replacement; f(y) = 2L·1[a ∈ y] (sensitivity "
            f"L = {mechanism.sensitivity:g} under insertion/removal of batch elements); "
            f"P[a ∈ y] = {weights[1]} counted exactly; outputs P = {float(weights[0]):.6g}·N(0, "
            f"σ²) + {float(weights[1]):.6g}·N(2L, σ²), Q = N(0, σ²), σ = {mechanism.scale:g}")
    return Reference(float(upper), _lower(bound, alpha), text, _confirmation(pair, alpha))


def gaussian_group(distance: int, mechanism: Mechanism, alpha: float) -> Reference:
    """``ε(α)`` of the base mechanism between two batches at substitution distance ``k``: the
    closed form (``α k²/(2σ²)`` for the Gaussian, in units of the sensitivity) as the upper end;
    the batches ``y = B ∪ g``, ``y' = B ∪ g'`` with ``|g| = |g'| = k`` and
    ``f(y) = L·|y ∩ g|`` (outputs ``N(kL, σ²)`` and ``N(0, σ²)``) as the lower end."""
    from otbound.numerics.mixtures import per_order

    mechanism = _additive(mechanism)
    alpha = float(alpha)
    upper = per_order(mechanism.group_log_psi(distance, [alpha]), np.array([alpha])).upper[0]
    pair = MixturePair(mechanism.family, mechanism.noise_multiplier, np.array([float(distance)]),
                       np.array([0.0]), np.array([0.0]), np.array([0.0]))
    bound, _, _ = _judged([(pair, "")], alpha)
    text = (f"batches y = B ∪ g, y' = B ∪ g' with |g| = |g'| = {distance} ({distance} "
            f"substitutions); f(y) = L·|y ∩ g| (sensitivity L = {mechanism.sensitivity:g}); "
            f"outputs N({distance}L, σ²) and N(0, σ²), σ = {mechanism.scale:g}")
    return Reference(float(upper), _lower(bound, alpha), text, _confirmation(pair, alpha))
