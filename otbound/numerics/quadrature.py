"""Adaptive Gauss–Legendre quadrature of ``exp(log f)`` in log space, with an error estimate.

Integrands of privacy accounting span hundreds of orders of magnitude (``Ψ_α`` beyond
``10^(10^5)`` for large groups), so :func:`integrate_exp` works with ``log f`` throughout. Every
panel is integrated with 10 and 20 Gauss–Legendre nodes; the difference is the panel's error
estimate (conservative for the 20-node value, which is kept). While the summed error estimate of
an integral exceeds the requested relative tolerance, its worst panels are halved.

Many integrals (one per Rényi order, say) are computed together: each panel belongs to a *group*,
and ``log_f(z, group)`` receives the group of every node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from otbound.numerics.pairs import log_sum_exp

_X10, _W10 = np.polynomial.legendre.leggauss(10)
_X20, _W20 = np.polynomial.legendre.leggauss(20)
_NODES = np.concatenate([_X10, _X20])
_LOG_WEIGHTS = np.log(np.concatenate([_W10, _W20]))
ROUNDING = 1e-15
"""Relative rounding error charged to every integral (sums of up to thousands of terms)."""


@dataclass(frozen=True)
class LogIntegrals:
    """``log ∫ f`` per group, with estimates of the relative error of each ``∫ f``."""

    log_values: np.ndarray
    relative_errors: np.ndarray


def _panel_logs(log_f: Callable, a: np.ndarray, b: np.ndarray,
                group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``log`` of the 10- and 20-node Gauss–Legendre values on every panel, and the largest
    ``|log f|`` met on it (which sets the rounding error of ``log f``)."""
    half, mid = (b - a) / 2, (b + a) / 2
    z = mid[:, None] + half[:, None] * _NODES[None, :]
    log_values = log_f(z.ravel(), np.repeat(group, _NODES.size)).reshape(z.shape)
    magnitude = np.max(np.where(np.isfinite(log_values), np.abs(log_values), 0.0), axis=1)
    values = log_values + _LOG_WEIGHTS[None, :] + np.log(half)[:, None]
    return log_sum_exp(values[:, :10], axis=1), log_sum_exp(values[:, 10:], axis=1), magnitude


def _group_log_sum(logs: np.ndarray, group: np.ndarray, groups: int) -> np.ndarray:
    """``log Σ exp`` of ``logs`` per group (the same ``log1p`` care as :func:`log_sum_exp`)."""
    top = np.full(groups, -np.inf)
    np.maximum.at(top, group, logs)
    shift = np.where(np.isfinite(top), top, 0.0)
    terms = np.exp(logs - shift[group])
    first = np.full(groups, -1)
    order = np.flatnonzero(logs == top[group])
    first[group[order[::-1]]] = order[::-1]
    terms[first[first >= 0]] = 0.0
    rest = np.zeros(groups)
    np.add.at(rest, group, terms)
    return np.where(np.isfinite(top), shift + np.log1p(rest), top)


def _to_split(error: np.ndarray, budget: float) -> np.ndarray:
    """The fewest panels to split so that the others' errors fit in half the budget."""
    split = np.zeros(error.size, dtype=bool)
    if error.sum() <= budget:
        return split
    order = np.argsort(error)[::-1]
    remaining = error.sum() - np.cumsum(error[order])
    count = int(np.argmax(remaining <= budget / 2)) + 1 if budget > 0 else error.size
    split[order[:count]] = True
    return split


def integrate_exp(log_f: Callable[[np.ndarray, np.ndarray], np.ndarray], edges: np.ndarray,
                  group: np.ndarray | None = None, groups: int = 1, rtol: float = 1e-12,
                  max_rounds: int = 60, max_panels: int = 400_000,
                  log_sensitivity: Callable | None = None) -> LogIntegrals:
    """``log ∫ exp(log_f(z, g)) dz`` over the panels ``edges[k]`` of each group ``g``.

    ``log_f`` takes flat arrays of nodes and of their groups and may return ``-inf``.
    ``log_sensitivity(z, g)``, if given, is the logarithm of the relative error of ``f`` at each
    node from errors in its inputs; its average over ``f`` (``∫ f·err / ∫ f``, by the final
    panels' 20-node rule) is added to the relative errors.
    """
    edges = np.asarray(edges, dtype=float).reshape(-1, 2)
    group = np.zeros(len(edges), dtype=int) if group is None else np.asarray(group, dtype=int)
    wide = edges[:, 1] > edges[:, 0]
    a, b, group = edges[wide, 0].copy(), edges[wide, 1].copy(), group[wide]
    kept_log, kept_error, kept_group, kept_edges = [], [], [], []
    largest = np.zeros(groups)
    evaluated = 0
    for round_number in range(max_rounds):
        if not a.size:
            break
        evaluated += a.size
        coarse, fine, magnitude = _panel_logs(log_f, a, b, group)
        np.maximum.at(largest, group, magnitude)
        kept = (np.concatenate(kept_log) if kept_log else np.empty(0),
                np.concatenate(kept_error) if kept_error else np.empty(0),
                np.concatenate(kept_group) if kept_group else np.empty(0, dtype=int))
        total = _group_log_sum(np.concatenate([fine, kept[0]]),
                               np.concatenate([group, kept[2]]), groups)
        done_error = _group_log_sum(kept[1], kept[2], groups)
        scale = np.where(np.isfinite(total), total, 0.0)[group]
        error = np.abs(np.exp(coarse - scale) - np.exp(fine - scale))
        split = np.zeros(a.size, dtype=bool)
        last = round_number == max_rounds - 1 or evaluated + 2 * a.size > max_panels
        for g in ([] if last else np.unique(group)):
            members = np.flatnonzero(group == g)
            # Below the rounding noise of log f, halving panels cannot reduce the error.
            noise = 16 * np.finfo(float).eps * largest[g]
            budget = rtol + noise - np.exp(done_error[g] - scale[members[0]])
            split[members] = _to_split(error[members], budget)
        split &= (b - a) > 64 * np.finfo(float).eps * np.maximum(np.abs(a) + np.abs(b), 1.0)
        with np.errstate(divide="ignore"):
            kept_log.append(fine[~split])
            kept_error.append(np.log(error[~split]) + scale[~split])
        kept_group.append(group[~split])
        kept_edges.append(np.column_stack([a[~split], b[~split]]))
        middle = (a[split] + b[split]) / 2
        a, b = np.concatenate([a[split], middle]), np.concatenate([middle, b[split]])
        group = np.concatenate([group[split], group[split]])
    logs, errors, owners = (np.concatenate(kept_log), np.concatenate(kept_error),
                            np.concatenate(kept_group))
    values = _group_log_sum(logs, owners, groups)
    with np.errstate(invalid="ignore"):
        relative = np.where(np.isfinite(values),
                            np.exp(_group_log_sum(errors, owners, groups) - values), 0.0)
    # log f carries an absolute rounding error of a few ulps of its magnitude.
    relative = relative + ROUNDING + 8 * np.finfo(float).eps * largest
    if log_sensitivity is not None:
        relative = relative + _average_sensitivity(log_f, log_sensitivity,
                                                   np.concatenate(kept_edges), owners, groups,
                                                   values)
    return LogIntegrals(values, relative)


def _average_sensitivity(log_f: Callable, log_sensitivity: Callable, edges: np.ndarray,
                         group: np.ndarray, groups: int, log_values: np.ndarray) -> np.ndarray:
    """``∫ f·err / ∫ f`` per group, by the 20-node rule on the given panels."""
    a, b = edges[:, 0], edges[:, 1]
    half, mid = (b - a) / 2, (b + a) / 2
    z = (mid[:, None] + half[:, None] * _X20[None, :]).ravel()
    owners = np.repeat(group, _X20.size)
    log_values_f = log_f(z, owners)
    with np.errstate(invalid="ignore"):
        logs = np.where(log_values_f > -np.inf, log_values_f + log_sensitivity(z, owners), -np.inf)
    logs = logs + np.log(np.repeat(half, _X20.size)) + np.tile(np.log(_W20), a.size)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(np.isfinite(log_values),
                        np.exp(_group_log_sum(logs, owners, groups) - log_values), 0.0)
