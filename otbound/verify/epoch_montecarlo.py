"""The verifier's independent Monte Carlo for epoch-level derivations (issue 28): the real epoch
sampling simulated with a toy query, against the numbers otbound reports for the scheme.

For each ``T`` of the derivation and each case, records are assigned to the steps as the scheme
does (balls-in-bins: one uniform step each; Poisson: each step with probability ``r``;
shuffling: a uniform permutation cut into batches of :data:`BATCH`), the query sums the records
of each batch (the modified record contributes 1, the others 0; for shuffling Chua et al.
2024's pair: the others −1, the record 1 against 0) and Gaussian noise of standard deviation
:data:`SIGMA` is added per step. ``δ(ε) = E[(1 − e^ε / L)_+]`` under the first dataset's
outputs, ``L`` their likelihood ratio (computed here from the two datasets' real mixtures), is
estimated from the draws with its standard error, and must lie within :data:`Z` standard errors
of the reported bounds: below the upper bound (soundness), above the lower bound where there is
one (tightness, or the published lower bound for shuffling).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from otbound.engine.epoch_derivation import EpochReport
from otbound.engine.epoch_schemes import BallsInBinsEpoch, PoissonEpoch, ShuffledEpoch
from otbound.engine.schemes import as_fraction

SIGMA = 1.0
SIMULATED_EPSILONS = (0.5, 1.0)
RECORDS = 30
"""Records of a simulated balls-in-bins or Poisson epoch (the modified one and 29 others)."""
BATCH = 3
"""Batch size of a simulated shuffled epoch (``N = T·b`` records)."""
Z = 4.0
"""Standard errors of slack on either side."""


@dataclass(frozen=True)
class EpochCheck:
    """One simulated δ(ε) against the reported bounds."""

    steps: int
    case: str
    epsilon: float
    estimate: float
    standard_error: float
    upper: float
    lower: float | None
    reference: str

    @property
    def passed(self) -> bool:
        slack = Z * self.standard_error
        return (self.estimate - slack <= self.upper
                and (self.lower is None or self.estimate + slack >= self.lower))


@dataclass(frozen=True)
class EpochVerifyReport:
    """What ``otbound verify`` prints for an epoch-level derivation."""

    report: EpochReport
    checks: tuple[EpochCheck, ...]
    draws: int
    elapsed: float

    @property
    def passed(self) -> bool:
        return self.report.passed and all(c.passed for c in self.checks)

    def to_text(self) -> str:
        derivation = self.report.derivation
        lines = [f"verify {derivation.name} — {derivation.title}",
                 f"derivation checks (exact enumeration): "
                 f"{'passed' if self.report.passed else 'FAILED'}",
                 f"independent Monte Carlo: the real epoch sampling, σ = {SIGMA}, {self.draws} "
                 f"draws per row, agreement within {Z:g} standard errors"]
        for c in self.checks:
            low = "" if c.lower is None else f"{c.lower:.6g} ≤ "
            lines.append(f"  T = {c.steps}, {c.case}, ε = {c.epsilon}: simulated δ = "
                         f"{c.estimate:.6g} ± {c.standard_error:.2g}; {low}δ ≤ {c.upper:.6g} "
                         f"({c.reference}): {'agrees' if c.passed else 'DISAGREES'}")
        lines.append(f"{'passed' if self.passed else 'FAILED'} ({self.elapsed:.1f} s)")
        return "\n".join(lines)

    def to_json(self, timings: bool = False) -> dict:
        found = {"derivation": self.report.derivation.name, "passed": self.passed,
                 "sigma": SIGMA, "draws": self.draws,
                 "monte_carlo": [{"T": c.steps, "case": c.case, "epsilon": c.epsilon,
                                  "estimate": c.estimate, "standard_error": c.standard_error,
                                  "upper": c.upper, "lower": c.lower, "reference": c.reference,
                                  "passed": c.passed} for c in self.checks]}
        return found | ({"seconds": round(self.elapsed, 3)} if timings else {})


def verify_epoch(report: EpochReport, draws: int, seed: int) -> EpochVerifyReport:
    """Every ``T`` and case of the derivation, simulated (its own random stream per row)."""
    start = time.perf_counter()
    derivation = report.derivation
    rng = np.random.default_rng(seed)
    checks = []
    for steps, cases in report.variants:
        scheme = derivation.scheme(steps).substitute(dict(derivation.values[0]))
        for case in cases:
            for epsilon in SIMULATED_EPSILONS:
                checks.append(_check(scheme, case.case.name, epsilon, draws, rng))
    return EpochVerifyReport(report, tuple(checks), draws, time.perf_counter() - start)


def _check(scheme, case: str, epsilon: float, draws: int, rng) -> EpochCheck:
    steps = scheme.steps
    if isinstance(scheme, ShuffledEpoch):
        values = _shuffled(steps, epsilon, draws, rng)
        upper, lower, reference = _shuffling_bounds(steps, epsilon)
    elif isinstance(scheme, BallsInBinsEpoch):
        values = _independent(_balls_in_bins(steps, draws, rng), case, epsilon, rng,
                              lambda o: np.log(np.exp((o - 0.5) / SIGMA ** 2).mean(axis=1)))
        upper, lower, reference = _balls_in_bins_bounds(steps, case, epsilon)
    elif isinstance(scheme, PoissonEpoch):
        rate = float(as_fraction(scheme.rate))
        values = _independent(_poisson(steps, rate, draws, rng), case, epsilon, rng,
                              lambda o: np.log1p(rate * np.expm1((o - 0.5) / SIGMA ** 2))
                              .sum(axis=1))
        upper, lower, reference = _poisson_bounds(steps, rate, epsilon)
    else:
        raise TypeError(f"no simulation for {type(scheme).__name__}")
    return EpochCheck(steps, case, epsilon, float(values.mean()),
                      float(values.std() / math.sqrt(values.size)), upper, lower, reference)


def _balls_in_bins(steps: int, draws: int, rng) -> np.ndarray:
    """The modified record's contribution to each step's sum (1 in the step it was put in)."""
    step_of = rng.integers(0, steps, size=(draws, RECORDS))   # record 0 is the modified one
    sums = np.zeros((draws, steps))
    np.put_along_axis(sums, step_of[:, :1], 1.0, axis=1)
    return sums


def _poisson(steps: int, rate: float, draws: int, rng) -> np.ndarray:
    included = rng.random((draws, RECORDS, steps)) < rate
    return included[:, 0, :].astype(float)


def _independent(sums: np.ndarray, case: str, epsilon: float, rng, log_ratio) -> np.ndarray:
    """Samples of ``(1 − e^ε/L)_+`` (removal: outputs of the dataset with the record) or of
    ``(1 − e^ε L)_+`` (insertion: outputs of the dataset without it)."""
    noise = SIGMA * rng.standard_normal(sums.shape)
    if case == "removal":
        return np.maximum(1 - np.exp(epsilon - log_ratio(sums + noise)), 0.0)
    return np.maximum(1 - np.exp(epsilon + log_ratio(noise)), 0.0)


def _shuffled(steps: int, epsilon: float, draws: int, rng) -> np.ndarray:
    """Chua et al.'s pair: the batch holding the record sums to 2 − b (record 1, others −1)
    against 1 − b (record 0), every other batch to −b; shifted by b."""
    slot = np.argsort(np.argsort(rng.random((draws, steps * BATCH)), axis=1), axis=1)[:, 0]
    outputs = SIGMA * rng.standard_normal((draws, steps))
    outputs[np.arange(draws), slot // BATCH] += 2.0
    log_p = np.log(np.exp((2 * outputs - 2) / SIGMA ** 2).sum(axis=1))
    log_q = np.log(np.exp((outputs - 0.5) / SIGMA ** 2).sum(axis=1))
    return np.maximum(1 - np.exp(epsilon + log_q - log_p), 0.0)


def _balls_in_bins_bounds(steps: int, case: str, epsilon: float):
    from otbound.numerics.balls_in_bins import epoch_profile

    profile = epoch_profile(steps, SIGMA)
    bracket = profile.remove(epsilon) if case == "removal" else profile.add(epsilon)
    return (float(bracket.upper[0]), float(bracket.lower[0]),
            "otbound.BallsInBins: the published pair's deterministic bracket")


def _poisson_bounds(steps: int, rate: float, epsilon: float):
    import otbound

    guarantee = otbound.account(otbound.Subsampling("poisson", rate=rate),
                                otbound.gaussian(SIGMA), steps, epsilon=epsilon)
    return guarantee.delta, None, f"otbound.account: {steps} Poisson steps composed"


def _shuffling_bounds(steps: int, epsilon: float):
    """Upper: what ``otbound.account`` reports for one epoch of the simulated shuffle (the
    mechanism once: joint convexity over the derivation's pairs); lower: Chua et al. 2024's
    events (otbound.numerics.shuffling)."""
    import otbound
    from otbound.numerics.shuffling import lower_delta

    setting = otbound.ShuffledBatches(batch_size=BATCH, dataset_size=steps * BATCH)
    once = otbound.account(setting, otbound.gaussian(SIGMA), 1, epsilon=epsilon).delta
    return once, lower_delta(steps, SIGMA, epsilon), \
        "otbound.account: the Gaussian mechanism once per epoch; lower: Chua et al. 2024"
