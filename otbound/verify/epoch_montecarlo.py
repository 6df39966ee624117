"""The verifier's independent Monte Carlo for epoch-level derivations (issue 28): the real epoch
sampling simulated with a toy query, against the numbers otbound reports for the scheme.

For each variant of the derivation and each case, records are assigned to the steps as the
scheme does (random allocation: ``k`` uniform steps each, balls-in-bins ``k = 1``; Poisson: each
step with probability ``r``; shuffling: a uniform permutation cut into batches of :data:`BATCH`),
the query sums the records of each batch (the modified record contributes 1, the others 0; for
shuffling Chua et al. 2024's pair: the others −1, the record 1 against 0) and Gaussian noise of
standard deviation :data:`SIGMA` is added per step; the likelihood ratio of the outputs is the
average over the record's possible placements, summed directly. ``δ(ε) = E[(1 − e^ε / L)_+]`` under the first dataset's
outputs, ``L`` their likelihood ratio (computed here from the two datasets' real mixtures), is
estimated from the draws with its standard error, and must lie within :data:`Z` standard errors
of the reported bounds: below the upper bound (soundness), above the lower bound where there is
one (tightness, or the published lower bound for shuffling).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass

import numpy as np

from otbound.engine.epoch_derivation import EpochReport, variant_label
from otbound.engine.epoch_schemes import PoissonEpoch, RandomAllocationEpoch, ShuffledEpoch
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

    variant: str
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
            lines.append(f"  {c.variant}, {c.case}, ε = {c.epsilon}: simulated δ = "
                         f"{c.estimate:.6g} ± {c.standard_error:.2g}; {low}δ ≤ {c.upper:.6g} "
                         f"({c.reference}): {'agrees' if c.passed else 'DISAGREES'}")
        lines.append(f"{'passed' if self.passed else 'FAILED'} ({self.elapsed:.1f} s)")
        return "\n".join(lines)

    def to_json(self, timings: bool = False) -> dict:
        found = {"derivation": self.report.derivation.name, "passed": self.passed,
                 "sigma": SIGMA, "draws": self.draws,
                 "monte_carlo": [{"variant": c.variant, "case": c.case, "epsilon": c.epsilon,
                                  "estimate": c.estimate, "standard_error": c.standard_error,
                                  "upper": c.upper, "lower": c.lower, "reference": c.reference,
                                  "passed": c.passed} for c in self.checks]}
        return found | ({"seconds": round(self.elapsed, 3)} if timings else {})


def verify_epoch(report: EpochReport, draws: int, seed: int) -> EpochVerifyReport:
    """Every variant and case of the derivation, simulated (its own random stream per row)."""
    start = time.perf_counter()
    derivation = report.derivation
    rng = np.random.default_rng(seed)
    checks = []
    for variant in report.variants:
        scheme = derivation.scheme_at(variant.values).substitute(dict(derivation.values[0]))
        for index, case in enumerate(variant.cases):
            for epsilon in SIMULATED_EPSILONS:
                checks.append(_check(derivation, variant.values, scheme, index, case.case.name,
                                     epsilon, draws, rng))
    return EpochVerifyReport(report, tuple(checks), draws, time.perf_counter() - start)


def _check(derivation, values, scheme, index: int, case: str, epsilon: float, draws: int,
           rng) -> EpochCheck:
    steps = scheme.steps
    if isinstance(scheme, ShuffledEpoch):
        samples = _shuffled(steps, epsilon, draws, rng)
        upper, lower, reference = _shuffling_bounds(steps, epsilon)
    elif isinstance(scheme, RandomAllocationEpoch):
        placements = _placements(steps, scheme.selected)
        samples = _independent(_allocated(placements, draws, rng), case, epsilon, rng,
                               lambda o: _log_mean_exp((o - 0.5) / SIGMA ** 2, placements))
        upper, lower, reference = _allocation_bounds(derivation, values, index, epsilon)
    elif isinstance(scheme, PoissonEpoch):
        rate = float(as_fraction(scheme.rate))
        samples = _independent(_poisson(steps, rate, draws, rng), case, epsilon, rng,
                               lambda o: np.log1p(rate * np.expm1((o - 0.5) / SIGMA ** 2))
                               .sum(axis=1))
        upper, lower, reference = _poisson_bounds(steps, rate, epsilon)
    else:
        raise TypeError(f"no simulation for {type(scheme).__name__}")
    return EpochCheck(variant_label(values), case, epsilon, float(samples.mean()),
                      float(samples.std() / math.sqrt(samples.size)), upper, lower, reference)


def _placements(steps: int, selected: int) -> np.ndarray:
    """Every set of ``selected`` steps, as rows of indicators."""
    return np.array([np.isin(np.arange(steps), chosen)
                     for chosen in itertools.combinations(range(steps), selected)], dtype=float)


def _allocated(placements: np.ndarray, draws: int, rng) -> np.ndarray:
    """The modified record's contribution to each step's sum (1 in the steps it was put in):
    one placement drawn uniformly per epoch (the others contribute 0 wherever they go)."""
    return placements[rng.integers(0, len(placements), draws)]


def _log_mean_exp(log_terms: np.ndarray, placements: np.ndarray) -> np.ndarray:
    """``log`` of the average over the placements ``S`` of ``exp(Σ_{t∈S} log_terms_t)``."""
    sums = log_terms @ placements.T
    top = sums.max(axis=1, keepdims=True)
    return (top + np.log(np.exp(sums - top).mean(axis=1, keepdims=True)))[:, 0]


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


def _allocation_bounds(derivation, values, index: int, epsilon: float):
    """The case's epoch pair as ``otbound.account`` composes it: its δ from above and the
    dominated pair's from below."""
    import otbound
    from otbound.numerics.epoch_settings import epoch_setting

    cases, _, _, _ = epoch_setting(derivation, values).solved(otbound.gaussian(SIGMA))
    ((_, (pair,)),) = cases[index]
    at = np.array([epsilon])
    return (float(pair.delta_bounds(at).upper[0]), float(pair.lower_pmf().deltas(at)[0]),
            "the epoch's pair (otbound.numerics.allocation), bounded above and below")


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
