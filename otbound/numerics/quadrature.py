"""Adaptive Gauss–Kronrod quadrature of ``exp(log f)`` in log space, with an error estimate.

Integrands of privacy accounting span hundreds of orders of magnitude (``Ψ_α`` beyond
``10^(10^5)`` for large groups), so :func:`integrate_exp` works with ``log f`` throughout. Every
panel is integrated with the 21-point Kronrod rule and the 10-point Gauss rule whose nodes it
contains (QUADPACK's ``qk21``); the Kronrod value is kept, and its error estimate is the larger of
the difference of the two and an estimate of how well the nodes resolve ``f`` (the last Legendre
coefficients of its interpolant: a sharp feature can make the two rules agree by accident).
While the summed error estimate of an integral exceeds the requested relative tolerance, the
panels whose error exceeds their share of it are halved.

Many integrals (one per Rényi order, say) are computed together: each panel belongs to a *group*,
and ``log_f`` receives the group of every node. When the integrand is a cheap function of an
expensive, group-independent part (the log-densities of a pair), ``features`` computes that part
once per node, and panels with the same edges in several groups share their nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from otbound.numerics.rounding import EPS

_ABSCISSAE = np.array([
    0.995657163025808080735527280689003, 0.973906528517171720077964012084452,
    0.930157491355708226001207180059508, 0.865063366688984510732096688423493,
    0.780817726586416897063717578345042, 0.679409568299024406234327365114874,
    0.562757134668604683339000099272694, 0.433395394129247190799265943165784,
    0.294392862701460198131126603103866, 0.148874338981631210884826001129720, 0.0])
"""Non-negative abscissae of the 21-point Kronrod rule (QUADPACK ``qk21``, Piessens et al. 1983);
those at odd positions are the nodes of the 10-point Gauss rule."""
_HALF_WEIGHTS = np.array([
    0.011694638867371874278064396062192, 0.032558162307964727478818972459390,
    0.054755896574351996031381300244580, 0.075039674810919952767043140916190,
    0.093125454583697605535065465083366, 0.109387158802297641899210590325805,
    0.123491976262065851077958109831074, 0.134709217311473325928054001771707,
    0.142775938577060080797094273138717, 0.147739104901338491374841515972068,
    0.149445554002916905664936468389821])
_NODES = np.concatenate([-_ABSCISSAE[:-1], _ABSCISSAE[::-1]])
"""The 21 nodes on ``[−1, 1]``, ascending."""
_GAUSS = np.arange(1, 20, 2)
"""Positions of the 10 Gauss nodes among :data:`_NODES`."""
_WEIGHTS = np.concatenate([_HALF_WEIGHTS[:-1], _HALF_WEIGHTS[::-1]])
"""The Kronrod weights of :data:`_NODES`."""
_GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(10)[1]
_TAIL = np.linalg.inv(np.polynomial.legendre.legvander(_NODES, 20))[-2:]
"""The two highest Legendre coefficients of the degree-20 interpolant through the 21 nodes."""
ROUNDING = 1e-15
"""Relative rounding error charged to every integral (sums of up to thousands of terms)."""


@dataclass(frozen=True)
class LogIntegrals:
    """``log ∫ f`` per group, with estimates of the relative error of each ``∫ f``."""

    log_values: np.ndarray
    relative_errors: np.ndarray


@dataclass
class _Panels:
    """Panels ``[a, b]`` of one round, each with its group."""

    a: np.ndarray
    b: np.ndarray
    group: np.ndarray


@dataclass
class _Results:
    """Per panel: ``log`` of the Kronrod and Gauss values, of the interpolation error estimate,
    of ``∫ f·err`` (Kronrod rule), and the largest ``|log f|`` met on it."""

    kronrod: np.ndarray
    gauss: np.ndarray
    interpolation: np.ndarray
    sensitivity: np.ndarray
    magnitude: np.ndarray

    def log_error(self) -> np.ndarray:
        """``log`` of the panel's error estimate: the larger of ``|Gauss − Kronrod|`` and the
        interpolation estimate."""
        with np.errstate(invalid="ignore", divide="ignore"):
            difference = self.kronrod + np.log(np.abs(np.expm1(self.gauss - self.kronrod)))
        return np.fmax(np.where(np.isfinite(self.kronrod), difference, -np.inf),
                       self.interpolation)


def _log_interpolation_error(values: np.ndarray, relative_noise: np.ndarray) -> np.ndarray:
    """``log`` of ``2 (|c₁₉| + |c₂₀|)``, ``c`` the Legendre coefficients of the interpolant of
    ``values`` (per panel, at the nodes) less what their noise (``relative_noise``) can produce.

    The Kronrod rule integrates that interpolant exactly, so this estimates its error from how
    well the nodes resolve ``f``; it catches panels too coarse for a sharp feature, where the
    Gauss and Kronrod values can agree by accident."""
    tail = np.abs(values @ _TAIL.T).sum(axis=1)
    noise = (values * relative_noise) @ np.abs(_TAIL).sum(axis=0)
    with np.errstate(divide="ignore"):
        return np.log(2 * np.maximum(tail - noise, 0.0))


def _evaluate(log_f: Callable, features: Callable | None, log_sensitivity: Callable | None,
              panels: _Panels) -> _Results:
    """The 21-node rule on every panel; nodes of panels with equal edges are computed once."""
    keys = panels.a + 1j * panels.b
    unique, inverse = np.unique(keys, return_inverse=True)
    a, b = unique.real, unique.imag
    half = (b - a) / 2
    z = ((a + b) / 2)[:, None] + half[:, None] * _NODES[None, :]
    shared = z.ravel() if features is None else features(z.ravel())
    index = (inverse[:, None] * _NODES.size + np.arange(_NODES.size)).ravel()
    nodes = shared[..., index]
    groups = np.repeat(panels.group, _NODES.size)
    log_values = log_f(nodes, groups).reshape(-1, _NODES.size)
    finite = np.isfinite(log_values)
    magnitude = np.max(np.where(finite, np.abs(log_values), 0.0), axis=1)
    top = log_values.max(axis=1)
    shift = np.where(np.isfinite(top), top, 0.0)
    values = np.exp(log_values - shift[:, None])   # at most one
    noise = 16 * EPS * (1 + np.where(finite, np.abs(log_values), 0.0))
    relative = np.zeros(values.shape)
    if log_sensitivity is not None:
        relative = np.exp(log_sensitivity(nodes, groups).reshape(values.shape))
        noise = noise + 2 * relative
    with np.errstate(divide="ignore"):
        offset = shift + np.log(half)[inverse]
        return _Results(offset + np.log(values @ _WEIGHTS),
                        offset + np.log(values[:, _GAUSS] @ _GAUSS_WEIGHTS),
                        offset + _log_interpolation_error(values, noise),
                        offset + np.log((values * relative) @ _WEIGHTS), magnitude)


def _group_log_sum(logs: np.ndarray, group: np.ndarray, groups: int) -> np.ndarray:
    """``log Σ exp`` of ``logs`` per group (the largest term factored out, the rest summed by
    ``log1p``)."""
    top = np.full(groups, -np.inf)
    np.maximum.at(top, group, logs)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(invalid="ignore"):
        terms = np.exp(logs - shift[group])
    first = np.full(groups, -1)
    order = np.flatnonzero(logs == top[group])
    first[group[order[::-1]]] = order[::-1]
    terms[first[first >= 0]] = 0.0
    rest = np.zeros(groups)
    np.add.at(rest, group, terms)
    return np.where(np.isfinite(top), shift + np.log1p(rest), top)


def _to_split(error: np.ndarray, group: np.ndarray, budget: np.ndarray) -> np.ndarray:
    """Per group whose errors exceed its budget: the panels above their fair share of it."""
    total = np.zeros(budget.size)
    np.add.at(total, group, error)
    count = np.bincount(group, minlength=budget.size)
    over = total > budget
    share = np.maximum(budget, 0.0) / np.maximum(count, 1)
    return over[group] & (error >= share[group])


def integrate_exp(log_f: Callable[[np.ndarray, np.ndarray], np.ndarray], edges: np.ndarray,
                  group: np.ndarray | None = None, groups: int = 1, rtol: float = 1e-12,
                  max_rounds: int = 60, max_panels: int = 400_000,
                  log_sensitivity: Callable | None = None,
                  features: Callable[[np.ndarray], np.ndarray] | None = None) -> LogIntegrals:
    """``log ∫ exp(log_f(x, g)) dz`` over the panels ``edges[k]`` of each group ``g``.

    ``x`` is the array of nodes ``z`` or, with ``features``, the columns of ``features(z)``
    (an array whose last axis runs over the nodes) at the nodes; ``log_f`` takes them with the
    group of every node and may return ``-inf``. ``log_sensitivity(x, g)``, if given, is the
    logarithm of the relative error of ``f`` at each node from errors in its inputs; its average
    over ``f`` (``∫ f·err / ∫ f``, by the Kronrod rule on the final panels) is added to the
    relative errors.
    """
    edges = np.asarray(edges, dtype=float).reshape(-1, 2)
    group = np.zeros(len(edges), dtype=int) if group is None else np.asarray(group, dtype=int)
    wide = edges[:, 1] > edges[:, 0]
    panels = _Panels(edges[wide, 0].copy(), edges[wide, 1].copy(), group[wide])
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    largest = np.zeros(groups)
    evaluated = 0
    for round_number in range(max_rounds):
        if not panels.a.size:
            break
        evaluated += panels.a.size
        results = _evaluate(log_f, features, log_sensitivity, panels)
        np.maximum.at(largest, panels.group, results.magnitude)
        done = [np.concatenate(parts) for parts in zip(*kept)] if kept else [np.empty(0)] * 4
        done_group = done[2].astype(int)
        total = _group_log_sum(np.concatenate([results.kronrod, done[0]]),
                              np.concatenate([panels.group, done_group]), groups)
        scale = np.where(np.isfinite(total), total, 0.0)
        log_error = results.log_error()
        error = np.exp(log_error - scale[panels.group])
        last = round_number == max_rounds - 1 or evaluated + 2 * panels.a.size > max_panels
        split = np.zeros(panels.a.size, dtype=bool)
        if not last:
            # Below the rounding noise of log f, halving panels cannot reduce the error.
            done_error = np.exp(_group_log_sum(done[1], done_group, groups) - scale)
            budget = rtol + 16 * EPS * largest - done_error
            split = _to_split(error, panels.group, budget)
            split &= (panels.b - panels.a) > 64 * EPS * np.maximum(
                np.abs(panels.a) + np.abs(panels.b), 1.0)
        kept.append((results.kronrod[~split], log_error[~split],
                     panels.group[~split].astype(float), results.sensitivity[~split]))
        a, b, g = panels.a[split], panels.b[split], panels.group[split]
        middle = (a + b) / 2
        panels = _Panels(np.concatenate([a, middle]), np.concatenate([middle, b]),
                         np.concatenate([g, g]))
    logs, errors, owners, sensitivity = [np.concatenate(parts) for parts in zip(*kept)] \
        if kept else [np.empty(0)] * 4
    owners = owners.astype(int)
    values = _group_log_sum(logs, owners, groups)
    with np.errstate(invalid="ignore", over="ignore"):
        relative = np.where(np.isfinite(values),
                            np.exp(_group_log_sum(errors, owners, groups) - values), 0.0)
        # log f carries an absolute rounding error of a few ulps of its magnitude.
        relative = relative + ROUNDING + 8 * EPS * largest
        if log_sensitivity is not None:
            relative = relative + np.where(
                np.isfinite(values),
                np.exp(_group_log_sum(sensitivity, owners, groups) - values), 0.0)
    return LogIntegrals(values, relative)
