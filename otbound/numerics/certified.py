"""Certified numerics: rigorous enclosures of ``log Ψ_α`` and ``δ(ε)`` of dominating pairs.

The fast paths (:mod:`otbound.numerics.renyi`, :mod:`otbound.numerics.hockey_stick`) report an
estimate plus a heuristic error estimate. The certified mode encloses the same quantities with ball
arithmetic (python-flint's arb, issue 14 item 1): every operation returns a ball that contains
the exact result, integrals come from ``acb.integral`` (Petras' algorithm with rigorous error
bounds for analytic integrands) or from closed forms (``erfc``, exponentials), and the parts of
the real line left out are bounded by closed-form tail bounds. The result is an interval
``(lower, upper)`` of doubles, rounded outwards, that contains the true value for the pair *as
given*: means, scale and weights are the doubles the pair holds (the weights normalised to sum to
one), and a :class:`FinitePair`'s privacy losses are taken within their declared errors.

This module holds the mode (:func:`certified_mode`) and the curves the evaluation path asks for;
the enclosures are :mod:`otbound.numerics.certified_renyi` (``log Ψ_α``) and
:mod:`otbound.numerics.certified_hockey_stick` (``δ(ε)``), on one side of a pair in arb
(:mod:`otbound.numerics.certified_mixture`) and the working precision and outward rounding of
:mod:`otbound.numerics.certified_rounding`.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from typing import Iterator

import numpy as np

from otbound.numerics.certified_hockey_stick import certified_delta
from otbound.numerics.certified_renyi import certified_log_psi
from otbound.numerics.pairs import FinitePair, MixturePair
from otbound.numerics.rounding import NumericBound

_CERTIFIED = contextvars.ContextVar("otbound_certified", default=False)


@contextlib.contextmanager
def certified_mode(enabled: bool = True) -> Iterator[None]:
    """Within this block, dominating pairs are evaluated by the certified functions."""
    token = _CERTIFIED.set(enabled)
    try:
        yield
    finally:
        _CERTIFIED.reset(token)


def certifying() -> bool:
    """True inside :func:`certified_mode`."""
    return _CERTIFIED.get()


def as_bound(interval: tuple[float, float]) -> NumericBound:
    """The certified interval as a reported bound: the upper end, with the width as error."""
    lower, upper = interval
    return NumericBound(upper, upper - lower if math.isfinite(upper) else 0.0)


# --- curves, as the evaluation path uses them -----------------------------------------------

def certified_log_psi_curve(pair: MixturePair | FinitePair, alphas,
                            limit: bool = True) -> list[NumericBound]:
    """:func:`~otbound.numerics.renyi.log_psi_curve` in certified mode: each order's upper end,
    with the enclosure's width as the error."""
    from otbound.numerics.renyi import check_orders

    alphas = check_orders(alphas, limit)
    if not isinstance(pair, (FinitePair, MixturePair)):   # an epoch's pair: its own arb series
        return pair.log_psi_curve(alphas)
    cache: dict[float, NumericBound] = {}
    for alpha in alphas:
        if float(alpha) not in cache:
            cache[float(alpha)] = as_bound(certified_log_psi(pair, float(alpha)))
    return [cache[float(alpha)] for alpha in alphas]


def certified_delta_curve(pair: MixturePair | FinitePair, epsilons) -> list[NumericBound]:
    """:func:`~otbound.numerics.hockey_stick.hockey_stick_curve` in certified mode."""
    epsilons = np.atleast_1d(np.asarray(epsilons, dtype=float))
    cache: dict[float, NumericBound] = {}
    for epsilon in epsilons:
        if float(epsilon) not in cache:
            cache[float(epsilon)] = as_bound(certified_delta(pair, float(epsilon)))
    return [cache[float(epsilon)] for epsilon in epsilons]
