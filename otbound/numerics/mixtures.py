"""Combining bounds: mixtures of divergences and profiles, and ε from ``log Ψ`` — each upper
bound rounded up before it is combined, each estimate combined alike."""

from __future__ import annotations

from typing import Callable

import numpy as np

from otbound.errors import granted
from otbound.numerics.mechanisms import single_distance
from otbound.numerics.problems import Term
from otbound.numerics.renyi import log_mixture_psi
from otbound.numerics.rounding import EPS, SMALLEST, Bounds


def rounded_up(values: np.ndarray, inputs: np.ndarray) -> np.ndarray:
    """One more ulp upwards, and the smallest positive double where a positive input
    underflowed."""
    return np.where(inputs > 0, np.maximum(np.nextafter(values, np.inf), SMALLEST), values)


def per_order(log_psi: Bounds, alphas: np.ndarray) -> Bounds:
    """``ε(α) = log Ψ_α/(α − 1)``, rounded up."""
    scale = alphas - 1
    return Bounds(rounded_up(log_psi.upper / scale * (1 + 2 * EPS), log_psi.upper),
                  log_psi.estimate / scale)


def mixture_log_psi(log_weights: np.ndarray, log_psis: list[Bounds],
                    log_weight_errors: np.ndarray | None = None) -> Bounds:
    """``log Σ_b w_b Ψ_b`` (weights summing to one) of upper bounds and of estimates."""
    if len(log_psis) == 1 and log_weights[0] == 0:
        return log_psis[0]
    upper, error = log_mixture_psi(log_weights, [b.upper for b in log_psis], log_weight_errors)
    estimate, _ = log_mixture_psi(log_weights, [b.estimate for b in log_psis])
    return Bounds(rounded_up(upper + error, upper), estimate)


def weighted_sum(log_weights, deltas: list[Bounds]) -> Bounds:
    """``Σ_b w_b δ_b`` of upper bounds (rounded up) and of estimates."""
    log_weights = np.asarray(log_weights, dtype=float)
    weights = np.exp(log_weights)
    upper = sum(w * d.upper for w, d in zip(weights, deltas))
    margin = 4 * EPS * (len(deltas) + np.max(np.abs(log_weights[np.isfinite(log_weights)]),
                                             initial=0.0))
    positive = sum((w > 0) * d.upper for w, d in zip(weights, deltas))
    return Bounds(rounded_up(upper * (1 + margin), positive),
                  sum(w * d.estimate for w, d in zip(weights, deltas)))


def labelled_terms(cases: list[list[Term]]) -> tuple[np.ndarray, np.ndarray]:
    """Log-probabilities and distances of a bound whose terms each compare two batches at a
    distance (001 Prop. E.5)."""
    (terms,) = cases
    return (np.array([log_p for log_p, _ in terms]),
            np.array([granted(single_distance(problem)) for _, problem in terms]))


def profile_mixture(log_weights, distances, profile, alphas: np.ndarray) -> Bounds:
    """``log Σ_b w_b Ψ_α(distance_b)`` from the group privacy profile (joint convexity)."""
    log_weights = np.asarray(log_weights, dtype=float)
    keep = log_weights > -np.inf
    return mixture_log_psi(log_weights[keep], [profile(int(d), alphas)
                                               for d in np.asarray(distances)[keep]])


def at_next_integer(bound: Callable[[int], Bounds], alphas: np.ndarray) -> Bounds:
    """An integer-order bound on ``log Ψ_n`` used at every order: ``ε(α) ≤ ε(⌈α⌉)``, because
    the Rényi divergence never decreases in its order."""
    orders = np.maximum(np.ceil(alphas), 2).astype(int)
    values = {n: bound(int(n)) for n in np.unique(orders)}
    upper = np.array([values[n].upper[0] for n in orders])
    estimate = np.array([values[n].estimate[0] for n in orders])
    return per_order(Bounds(upper, estimate), orders.astype(float))
