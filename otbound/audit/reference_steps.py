"""A claim over ``T`` steps of the Poisson subsampled Gaussian (DP-SGD): otbound's accountant
above, a test on the worst-case construction composed ``T`` times below.

* ``upper`` — ``otbound.account`` for ``T`` repetitions of the step (the better of its RDP and
  PLD accountants): a sound ``ε`` at ``δ``.
* ``lower`` — the datasets ``x = B ∪ {r₁}`` and ``x' = B``, ``f`` = 1 on a batch holding ``r₁``
  and 0 otherwise, Gaussian noise ``σ`` added afresh at each of the ``T`` steps (the removal
  case of 003 Thm. 3.7 at ``(K₊, K₋) = (1, 0)``, each step's batch drawn independently). The
  outputs ``z₁ … z_T`` have the laws ``P = ((1 − q)N(0, σ²) + qN(1, σ²))^⊗T`` on ``x`` and
  ``Q = N(0, σ²)^⊗T`` on ``x'``. An ``(ε, δ)``-DP mechanism has ``P(A) ≤ e^ε Q(A) + δ`` for every
  event ``A``, so each ``A`` proves ``ε ≥ log((P(A) − δ)/Q(A))``. Two families of events with
  exact laws are searched:

  - the sum ``S = Σ zᵢ`` above ``t``: ``Q(A) = Φ̄(t/(σ√T))``, ``P(A) = Σ_k Bin(k; T, q)
    Φ̄((t − k)/(σ√T))`` (``k`` = the steps whose batch held ``r₁``);
  - the count ``N = #{i : zᵢ > c}`` at least ``m``: ``N ~ Bin(T, p)`` with ``p = Φ̄(c/σ)`` under
    ``Q`` and ``(1 − q)Φ̄(c/σ) + qΦ̄((c − 1)/σ)`` under ``P``.

  Neither is the likelihood-ratio test (whose law is what a PLD accountant computes), so the
  lower end is below the exact ``ε`` of the construction, and the bracket does not close: it
  can prove a claim unsound, never tight. The events are chosen in double precision; the
  chosen event's ``ε`` is then evaluated in 50-digit arithmetic (binomial terms dropped only
  from ``P(A)``, which lowers it), and ``confirm`` recomputes it at 80 digits by another route
  (every binomial term of the sum; the count's tail summed term by term).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp
from scipy.stats import binom, norm

from otbound.audit.claims import Reference, Witness

EVENT_DIGITS = 50
CONFIRM_DIGITS = 80
DROPPED = 1e-60
"""Binomial terms of ``P(A)`` below this fraction of the largest are left out (lowering
``P(A)``, so the lower end stays a lower end)."""
COUNT_THRESHOLDS = 81
"""Thresholds ``c`` of the count test tried, evenly from 0 to 8σ."""


@dataclass(frozen=True)
class CompositionEvent:
    """A test's event: ``S > t`` (``kind = "sum"``) or ``N ≥ m`` with ``zᵢ > c``
    (``kind = "count"``)."""

    kind: str
    threshold: float
    count: int = 0

    def __str__(self) -> str:
        if self.kind == "sum":
            return f"z₁ + … + z_T > {self.threshold:.6g}"
        return f"at least {self.count} of the T outputs above {self.threshold:.6g}"


def composed_poisson_gaussian(rate: float, sigma: float, steps: int,
                              delta: float) -> Reference:
    """``ε`` at ``δ`` after ``steps`` steps of Poisson subsampling at ``rate`` with Gaussian
    noise ``σ`` (sensitivity 1, insertion/removal of one record)."""
    import otbound

    setting = otbound.Subsampling("poisson", rate=rate)
    upper = otbound.account(setting, otbound.gaussian(sigma), steps, delta=delta).epsilon
    event = max(_best_sum(rate, sigma, steps, delta), _best_count(rate, sigma, steps, delta),
                key=lambda found: found[0])[1]
    value = event_epsilon(event, rate, sigma, steps, delta)
    lower = math.nextafter(float(value), -math.inf) if value is not None else None
    return Reference(upper, lower, _witness(event, rate, sigma, steps, delta, value),
                     lambda: _confirm(event, rate, sigma, steps, delta))


def event_epsilon(event: CompositionEvent, rate: float, sigma: float, steps: int, delta: float,
                  digits: int = EVENT_DIGITS) -> mp.mpf | None:
    """``log((P(A) − δ)/Q(A))`` for the event ``A`` (``None`` if ``P(A) ≤ δ``), in ``digits``
    digits; terms of ``P(A)`` are dropped only where they are negligible."""
    with mp.workdps(digits):
        p, q = _probabilities(event, rate, sigma, steps)
        return mp.log((p - delta) / q) if p > delta else None


def _probabilities(event: CompositionEvent, rate: float, sigma: float,
                   steps: int) -> tuple[mp.mpf, mp.mpf]:
    """``(P(A), Q(A))`` at the working precision."""
    r, s = mp.mpf(rate), mp.mpf(sigma)
    if event.kind == "sum":
        spread = s * mp.sqrt(steps)
        t = mp.mpf(event.threshold)
        low, high = _binomial_range(rate, steps)
        p = mp.fsum(mp.exp(_log_binomial(steps, k, r)) * mp.ncdf((k - t) / spread)
                    for k in range(low, high + 1))
        return p, mp.ncdf(-t / spread)
    c = mp.mpf(event.threshold)
    above_q = mp.ncdf(-c / s)
    above_p = (1 - r) * above_q + r * mp.ncdf((1 - c) / s)
    m = event.count
    return tuple(mp.betainc(m, steps - m + 1, 0, x, regularized=True)
                 for x in (above_p, above_q))


def _log_binomial(steps: int, k: int, rate) -> mp.mpf:
    return (mp.loggamma(steps + 1) - mp.loggamma(k + 1) - mp.loggamma(steps - k + 1)
            + k * mp.log(rate) + (steps - k) * mp.log1p(-rate))


def _binomial_range(rate: float, steps: int) -> tuple[int, int]:
    """The ``k`` whose ``Bin(k; T, q)`` is at least ``DROPPED`` times the largest."""
    k = np.arange(steps + 1)
    weights = binom.logpmf(k, steps, rate)
    kept = np.flatnonzero(weights >= weights.max() + math.log(DROPPED))
    return int(kept[0]), int(kept[-1])


def _best_sum(rate: float, sigma: float, steps: int,
              delta: float) -> tuple[float, CompositionEvent]:
    """The threshold ``t`` of the sum test with the largest ``ε`` (double precision)."""
    low, high = _binomial_range(rate, steps)
    k = np.arange(low, high + 1)
    weights = binom.logpmf(k, steps, rate)
    spread = sigma * math.sqrt(steps)

    def epsilon(t: float) -> float:
        log_p = float(logsumexp(weights + norm.logsf((t - k) / spread)))
        if log_p <= math.log(delta):
            return -math.inf
        return math.log(math.exp(log_p) - delta) - float(norm.logsf(t / spread))

    grid = rate * steps + spread * np.linspace(-2.0, 12.0, 141)
    values = [epsilon(t) for t in grid]
    best = int(np.argmax(values))
    found = minimize_scalar(lambda t: -epsilon(t), method="bounded",
                            bounds=(grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]),
                            options={"xatol": 1e-6 * spread})
    t = float(found.x) if -found.fun >= values[best] else float(grid[best])
    return max(-found.fun, values[best]), CompositionEvent("sum", t)


def _best_count(rate: float, sigma: float, steps: int,
                delta: float) -> tuple[float, CompositionEvent]:
    """The threshold ``c`` and count ``m`` of the count test with the largest ``ε`` (double
    precision; every ``m`` within 12 standard deviations above the mean under ``P``)."""
    best = (-math.inf, CompositionEvent("count", 0.0, 1))
    for c in np.linspace(0.0, 8.0 * sigma, COUNT_THRESHOLDS):
        above_q = float(norm.sf(c / sigma))
        above_p = (1 - rate) * above_q + rate * float(norm.sf((c - 1) / sigma))
        mean, spread = steps * above_p, math.sqrt(steps * above_p * (1 - above_p))
        m = np.arange(max(int(mean), 1), min(int(mean + 12 * spread) + 2, steps) + 1)
        log_p, log_q = binom.logsf(m - 1, steps, above_p), binom.logsf(m - 1, steps, above_q)
        kept = log_p > math.log(delta)
        if not kept.any():
            continue
        values = np.log(np.exp(log_p[kept]) - delta) - log_q[kept]
        i = int(np.argmax(values))
        if values[i] > best[0]:
            best = (float(values[i]), CompositionEvent("count", float(c), int(m[kept][i])))
    return best


def _confirm(event: CompositionEvent, rate: float, sigma: float, steps: int,
             delta: float) -> float:
    """The event's ``ε`` at 80 digits by another route: every binomial term of the sum test's
    ``P(A)`` with exact coefficients; the count test's tails summed term by term."""
    with mp.workdps(CONFIRM_DIGITS):
        r, s = mp.mpf(rate), mp.mpf(sigma)
        if event.kind == "sum":
            spread, t = s * mp.sqrt(steps), mp.mpf(event.threshold)
            p = mp.fsum(mp.binomial(steps, k) * r ** k * (1 - r) ** (steps - k)
                        * mp.ncdf((k - t) / spread) for k in range(steps + 1))
            q = mp.ncdf(-t / spread)
        else:
            c = mp.mpf(event.threshold)
            above_q = mp.ncdf(-c / s)
            above_p = (1 - r) * above_q + r * mp.ncdf((1 - c) / s)
            p, q = (mp.fsum(mp.binomial(steps, j) * x ** j * (1 - x) ** (steps - j)
                            for j in range(event.count, steps + 1))
                    for x in (above_p, above_q))
        return float(mp.log((p - delta) / q)) if p > delta else math.nan


def _witness(event: CompositionEvent, rate: float, sigma: float, steps: int, delta: float,
             value: mp.mpf | None) -> Witness:
    with mp.workdps(EVENT_DIGITS):
        p, q = _probabilities(event, rate, sigma, steps)
    proved = "" if value is None else f", so ε ≥ log((P(A) − δ)/Q(A)) = {float(value):.6g}"
    return Witness(
        ("r1",), (), f"Poisson, each record kept with probability {rate:g}, independently at "
        f"each of T = {steps} steps", "1 on a batch holding r1, 0 on any other (every step)",
        f"Gaussian (sigma = {sigma:g}), fresh noise at each step: outputs z₁ … z_T",
        f"P = ((1 − q)N(0, σ²) + qN(1, σ²))^⊗T, Q = N(0, σ²)^⊗T; the event A: {event}, "
        f"P(A) = {float(p):.6g}, Q(A) = {float(q):.6g} at δ = {delta:g}{proved}",
        "003 Thm. 3.7 at (K₊, K₋) = (1, 0), composed T times; a test of its outputs, not the "
        "likelihood-ratio test")
