"""An independent Monte Carlo estimate of δ(ε) at a derivation's worst case.

What is *shared* with the rest of the verifier: the worst-case dataset pair ``(x, x')`` of one
case (:attr:`Instance.datasets`) and the worst-case function ``f`` of the tightness check
(:func:`~otbound.verify.tightness.worst_function`, 001 F.1, G.2, G.3; 003 M.3), which depends on a
batch only through which of the records in ``x Δ x'`` (the *special* records) it holds. A
case whose bound has several terms (001 Prop. E.5: an expectation over the distance, without
conditioning) has no solver worst case; for randomized response it gets
:func:`hit_function`, ``f(y) = 1[y ∩ (x \\ x') ≠ ∅]``, which attains the bound only where
every batch of ``x`` holds a record of ``x \\ x'`` (see :func:`documented_configurations`).

What is *independent* of otbound's scheme and divergence code:

* **batches** are drawn by simulating the subsampling process with numpy's Generator — Poisson:
  one Bernoulli(``r``) draw per record; without replacement: the first ``q`` records of a
  uniformly random permutation (a uniform ``q``-subset, as ``random.sample``); with
  replacement: ``q`` uniform draws of a record (``rng.integers``); no ``Scheme.pmf`` is used;
* **outputs** are drawn from the mechanism: ``f(y)/L + (σ/L)·N(0, 1)`` (Gaussian),
  ``f(y)/L + (b/L)·Laplace(0, 1)`` (Laplace), or ``f(y)`` kept with probability ``θ`` and
  flipped otherwise (randomized response);
* **densities** ``p = m_x`` and ``q = m_{x'}`` are evaluated in closed form written here: the
  output given a dataset is a mixture over which special records the batch holds, with weights
  ``r^k (1 − r)^{m − k}`` (Poisson), ``C(N − m, q − k)/C(N, q)`` (without replacement) or the
  multinomial ``q!/(∏c_j! (q − k)!) N^{−k} ((N − m)/N)^{q − k}`` (with replacement) for ``k``
  special records (``c_j`` copies of the j-th) of the ``m`` in a dataset of ``N``.

The estimate is ``δ(ε) = H_{e^ε}(m_x ‖ m_{x'}) = E_{z∼p}[(1 − e^ε q(z)/p(z))_+]``, a mean of
numbers in [0, 1]. Its interval at confidence ``1 − FAILURE`` is the intersection of a
two-sided Hoeffding interval and a two-sided empirical-Bernstein interval (Maurer & Pontil
2009, Thm. 4), each at failure probability ``FAILURE/2`` (a union bound).

**Verdict rule.** With interval ``[lo, hi]`` and bound ``B``:

* ``VIOLATED`` if ``lo > B`` — the construction attains more than the bound, with confidence
  ``1 − FAILURE``;
* ``consistent`` if ``(1 − LOWERED) B < lo ≤ B`` — the bound holds *and* the same interval would
  have reported ``VIOLATED`` against the bound lowered by ``LOWERED`` (5 %): so "consistent"
  means the check could have refuted a bound 5 % too small;
* ``uninformative`` otherwise (``lo ≤ 0.95 B``): too few draws, or a construction that does not
  attain the bound (a non-tight derivation), so the row can refute nothing near the bound.

Rényi divergences are not estimated: ``L^{α−1}`` is unbounded for additive noise, so no
distribution-free interval exists without a tail bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product
from typing import Mapping

import numpy as np
from scipy.special import logsumexp

from otbound.choices import Quantity
from otbound.engine.batches import Batch
from otbound.engine.schemes import Poisson, Scheme, WithoutReplacement, WithReplacement
from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.numerics.mechanisms import AdditiveNoise, Mechanism, RandomizedResponse
from otbound.numerics.noise import NoiseFamily
from otbound.verify.checks import Finding, Instance
from otbound.verify.functions import TableFunction
from otbound.verify.noise_references import reference
from otbound.verify.tightness import worst_function

FAILURE = 1e-4
"""Probability that the true δ(ε) lies outside the interval (two-sided, both bounds)."""
LOWERED = 0.05
"""A ``consistent`` interval must refute the bound lowered by this fraction."""
DEFAULT_DRAWS = 200_000
"""Default number of simulated (batch, output) draws per row."""

SIMULATION_CHUNK = 250_000
"""Draws simulated at once (bounds the memory of one row)."""

CONSISTENT, UNINFORMATIVE, VIOLATED = "consistent", "uninformative", "VIOLATED"


@dataclass(frozen=True)
class Interval:
    """A mean of ``draws`` numbers in [0, 1] with its interval at confidence ``1 − FAILURE``."""

    value: float
    lower: float
    upper: float
    draws: int

    @property
    def width(self) -> float:
        return self.upper - self.lower

    @staticmethod
    def of(samples: np.ndarray, failure: float = FAILURE) -> "Interval":
        """Hoeffding ∩ empirical Bernstein (Maurer & Pontil 2009, Thm. 4), each at ``failure/2``
        and two-sided (``failure/4`` per side)."""
        n = samples.size
        if n < 2:
            raise InvalidSpecification(f"draws must be an integer >= 2, got {n}",
                                       parameter="draws")
        mean = float(samples.mean())
        hoeffding = math.sqrt(math.log(4 / failure) / (2 * n))
        log_term = math.log(8 / failure)
        variance = float(samples.var(ddof=1))
        bernstein = math.sqrt(2 * variance * log_term / n) + 7 * log_term / (3 * (n - 1))
        half = min(hoeffding, bernstein)
        return Interval(mean, max(0.0, mean - half), min(1.0, mean + half), n)

    def verdict(self, bound: float) -> str:
        """The module's rule: VIOLATED, consistent or uninformative."""
        if self.lower > bound:
            return VIOLATED
        return CONSISTENT if self.lower > (1 - LOWERED) * bound else UNINFORMATIVE


@dataclass(frozen=True)
class WorstCase:
    """The shared part: datasets ``x``, ``x'`` and ``f`` as a function of the special records a
    batch holds (``values[content] = f``; the content is a frozenset of special records, or
    their sorted tuple with multiplicities for batches drawn with replacement)."""

    x: frozenset
    x_prime: frozenset
    values: Mapping[Batch, float]

    @property
    def specials(self) -> tuple:
        """The records in exactly one of the datasets, sorted."""
        return tuple(sorted(self.x ^ self.x_prime))

    @staticmethod
    def of(x: frozenset, x_prime: frozenset, table: Mapping) -> "WorstCase":
        """From ``f`` on batches (``table``); an error if ``f`` depends on more than the special
        records in the batch."""
        specials = x ^ x_prime
        values: dict[Batch, float] = {}
        for batch, value in table.items():
            key = (frozenset(batch) & specials if isinstance(batch, frozenset)
                   else tuple(sorted(e for e in batch if e in specials)))
            if values.setdefault(key, float(value)) != float(value):
                raise UnsupportedOperation("the worst-case function depends on more than the "
                                           "special records in the batch")
        return WorstCase(frozenset(x), frozenset(x_prime), values)


def _content(scheme: Scheme, present: list, counts) -> Batch:
    """The key of :attr:`WorstCase.values` for ``counts[j]`` copies of ``present[j]``."""
    if isinstance(scheme, WithReplacement):
        return tuple(sorted(e for e, c in zip(present, counts) for _ in range(int(c))))
    return frozenset(e for e, c in zip(present, counts) if c)


# --- simulation -----------------------------------------------------------------------------

def simulate_counts(scheme: Scheme, dataset: frozenset, present: list, draws: int,
                    rng: np.random.Generator) -> np.ndarray:
    """``draws × len(present)``: how often each record of ``present`` is in a batch simulated
    from ``dataset`` — Bernoulli(``r``) per record (Poisson), the first ``q`` records of a
    uniformly random permutation (without replacement), ``q`` uniform draws (with
    replacement)."""
    records = sorted(dataset)
    size, columns = len(records), [records.index(e) for e in present]
    if isinstance(scheme, Poisson):
        members = rng.random((draws, size)) < float(scheme.rate)
        return members[:, columns].astype(int)
    if isinstance(scheme, WithoutReplacement):
        keys = rng.random((draws, size))
        ranks = np.argsort(np.argsort(keys, axis=1), axis=1)   # a uniform random permutation
        return (ranks[:, columns] < int(scheme.batch_size)).astype(int)
    if isinstance(scheme, WithReplacement):
        drawn = rng.integers(size, size=(draws, int(scheme.batch_size)))
        return np.stack([(drawn == c).sum(axis=1) for c in columns] or [np.zeros(draws, int)],
                        axis=1)[:, :len(columns)]
    raise UnsupportedOperation(f"no independent simulation of {type(scheme).__name__}")


def batch_values(case: WorstCase, scheme: Scheme, present: list,
                 counts: np.ndarray) -> np.ndarray:
    """``f`` of every simulated batch, looked up by its special records (each row of
    ``counts`` coded as one integer in base ``max + 1``: a 1-d unique is far quicker)."""
    codes = counts @ (int(counts.max(initial=0)) + 1) ** np.arange(counts.shape[1])
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    table = np.empty(len(first))
    for index, row in enumerate(counts[first]):
        key = _content(scheme, present, row)
        if key not in case.values:
            raise UnsupportedOperation(f"f is not given on batches holding {sorted(key)}")
        table[index] = case.values[key]
    return table[inverse.reshape(-1)]


def simulate_outputs(values: np.ndarray, mechanism: Mechanism,
                     rng: np.random.Generator) -> np.ndarray:
    """The mechanism's outputs at ``f`` = ``values`` (additive outputs in units of L)."""
    if isinstance(mechanism, RandomizedResponse):
        return np.where(rng.random(values.size) < mechanism.theta, values, 1 - values)
    family, location, spread = _additive(mechanism)
    return values * location + reference(family).draw(rng, values.size, spread)


def _additive(mechanism: Mechanism) -> tuple[NoiseFamily, float, float]:
    """The noise family and ``(1/L, σ/L)``: outputs are in units of the sensitivity ``L``."""
    if not isinstance(mechanism, AdditiveNoise):
        raise UnsupportedOperation(f"no closed-form density for {type(mechanism).__name__}")
    return mechanism.family, 1 / mechanism.sensitivity, mechanism.scale / mechanism.sensitivity


# --- closed-form densities ------------------------------------------------------------------

def content_weights(scheme: Scheme, dataset: frozenset, present: list) -> dict[tuple, float]:
    """``P(counts)`` of the special records ``present`` (all in ``dataset``) in one batch, by
    count vector: ``r^k (1 − r)^{m − k}`` (Poisson), ``C(N − m, q − k)/C(N, q)`` (without
    replacement), ``q!/(∏c_j! (q − k)!) N^{−k} ((N − m)/N)^{q − k}`` (with replacement), for
    ``k`` special records (with multiplicity) of the ``m`` present in a dataset of ``N``."""
    m, size = len(present), len(dataset)
    top = int(scheme.batch_size) if isinstance(scheme, WithReplacement) else 1
    weights = {}
    for counts in product(range(top + 1), repeat=m):
        weight = _weight(scheme, counts, m, size)
        if weight > 0:
            weights[counts] = weight
    return weights


def _weight(scheme: Scheme, counts: tuple, m: int, size: int) -> float:
    """The probability of one count vector (see :func:`content_weights`)."""
    k = sum(counts)
    if isinstance(scheme, Poisson):
        r = float(scheme.rate)
        return r ** k * (1 - r) ** (m - k)
    if isinstance(scheme, WithoutReplacement):
        q = int(scheme.batch_size)
        return math.comb(size - m, q - k) / math.comb(size, q) if 0 <= q - k <= size - m else 0.0
    if isinstance(scheme, WithReplacement):
        q = int(scheme.batch_size)
        if k > q:
            return 0.0
        ways = math.factorial(q) / math.prod(math.factorial(c) for c in (*counts, q - k))
        return ways * size ** -k * ((size - m) / size) ** (q - k)
    raise UnsupportedOperation(f"no closed-form weights for {type(scheme).__name__}")


def value_weights(case: WorstCase, scheme: Scheme, dataset: frozenset) -> dict[float, float]:
    """``P(f(batch) = v)`` for the dataset: the content weights summed by ``f``'s value."""
    present = [e for e in case.specials if e in dataset]
    result: dict[float, float] = {}
    for counts, weight in content_weights(scheme, dataset, present).items():
        value = case.values[_content(scheme, present, counts)]
        result[value] = result.get(value, 0.0) + weight
    return result


def log_density(weights: Mapping[float, float], mechanism: Mechanism,
                outputs: np.ndarray) -> np.ndarray:
    """``log`` of the output density (pmf for randomized response) of the mixture."""
    if isinstance(mechanism, RandomizedResponse):
        theta = mechanism.theta
        one: float = sum(w * (theta if v == 1 else 1 - theta) for v, w in weights.items())
        with np.errstate(divide="ignore"):
            # three arguments typed Any (np.log of a float): numpy's stubs then pick the
            # one-argument where
            return np.where(outputs == 1, np.log(one),  # type: ignore[return-value]
                            np.log(1 - one))
    family, location, spread = _additive(mechanism)
    means = np.array(list(weights)) * location
    log_weights = np.log(np.array(list(weights.values())))
    gap = outputs[:, None] - means[None, :]
    parts = reference(family).log_density(gap, spread)
    return logsumexp(parts + log_weights[None, :], axis=1)


# --- the estimate ---------------------------------------------------------------------------

def simulated_delta(case: WorstCase, scheme: Scheme, mechanism: Mechanism, epsilon: float,
                   draws: int, rng: np.random.Generator) -> Interval:
    """``δ(ε) = E_{z∼m_x}[(1 − e^ε m_{x'}(z)/m_x(z))_+]`` from ``draws`` simulated outputs
    (simulated in chunks of :data:`SIMULATION_CHUNK`)."""
    p_weights = value_weights(case, scheme, case.x)
    q_weights = value_weights(case, scheme, case.x_prime)
    terms = []
    present = [e for e in case.specials if e in case.x]
    for start in range(0, draws, SIMULATION_CHUNK):
        counts = simulate_counts(scheme, case.x, present, min(SIMULATION_CHUNK, draws - start), rng)
        outputs = simulate_outputs(batch_values(case, scheme, present, counts), mechanism, rng)
        log_p = log_density(p_weights, mechanism, outputs)
        log_q = log_density(q_weights, mechanism, outputs)
        with np.errstate(over="ignore"):
            terms.append(np.maximum(1 - np.exp(epsilon + log_q - log_p), 0.0))
    return Interval.of(np.concatenate(terms) if terms else np.zeros(0))


# --- a verifier row -------------------------------------------------------------------------

def hit_function(instance: Instance, mechanism: Mechanism) -> TableFunction:
    """``f(y) = 1[y ∩ (x \\ x') ≠ ∅]`` for randomized response: the construction of an
    instance whose bound has several terms (001 Prop. E.5, no conditioning), where the solver
    offers no worst case. For 001 Prop. E.5 (``K``-fold substitution, ``N`` records, batch size
    ``q``) its δ(ε) is ``(1 − h₀)(2θ − 1) + (1 − θ)(1 − e^ε)`` with ``h₀ = HyperGeom(0 | N, K,
    q)``, the bound ``(1 − h₀)(θ − e^ε(1 − θ))``: they differ by ``(1 − θ) h₀ (e^ε − 1)``, so
    the bound is attained at ε = 0 and, for ε > 0, exactly when ``q > N − K`` (``h₀ = 0``;
    both are 0 when ``θ ≤ e^ε(1 − θ)``)."""
    if not isinstance(mechanism, RandomizedResponse):
        raise UnsupportedOperation(f"no worst case of {instance.derivation.name} for "
                                   f"{mechanism.name}: its bound has several terms")
    x, x_prime = instance.datasets
    removed = x - x_prime
    if not removed:
        raise UnsupportedOperation("f(y) = 1[y ∩ (x \\ x') ≠ ∅] needs a record of x not in x'")
    return TableFunction({batch: float(any(e in removed for e in batch))
                          for batch in instance.batches()},
                         label="f(y) = 1[y holds a record of x \\ x']")


def worst_table(instance: Instance, mechanism: Mechanism, epsilon: float) -> TableFunction:
    """The tightness check's ``f`` for ADP at ``ε``
    (:func:`~otbound.verify.tightness.worst_function`), or :func:`hit_function` when the bound
    has several terms (the verifier claims no tightness there and runs no row)."""
    if len(instance.terms) == 1:
        return worst_function(instance, mechanism, Quantity.ADP, epsilon)
    return hit_function(instance, mechanism)


def worst_case_of(instance: Instance, mechanism: Mechanism, epsilon: float) -> WorstCase:
    """The shared part of an instance: its datasets and :func:`worst_table`'s ``f``."""
    x, x_prime = instance.datasets
    return WorstCase.of(x, x_prime, worst_table(instance, mechanism, epsilon).table)


def check_independent_mc(instance: Instance, mechanism: Mechanism, epsilon: float, draws: int,
                         rng: np.random.Generator, bound: float | None = None) -> Finding:
    """One row ``independent Monte Carlo δ(ε)``: the interval of :func:`simulated_delta` at the
    worst case against the instance's bound (or ``bound``), judged by the module's rule."""
    if bound is None:
        bound = float(instance.bound_delta(mechanism, [epsilon])[0])
    estimate = simulated_delta(worst_case_of(instance, mechanism, epsilon), instance.scheme,
                              mechanism, epsilon, draws, rng)
    verdict = estimate.verdict(bound)
    return Finding(
        "independent Monte Carlo δ(ε)",
        {**instance.describe(), "mechanism": mechanism.name, "epsilon": epsilon,
         "draws": draws},
        bound, estimate.value, verdict,
        f"interval [{estimate.lower:.6g}, {estimate.upper:.6g}], width {estimate.width:.3g} at "
        f"confidence 1 − {FAILURE:g}; consistent needs lower end > {1 - LOWERED:g} × bound = "
        f"{(1 - LOWERED) * bound:.6g}; batches simulated, densities in closed form",
        interval=(estimate.lower, estimate.upper))


DOCUMENTED_SIZE = 6
"""Dataset size of the documented configurations (docs/verification.md)."""


def documented_configurations() -> list[tuple]:
    """``(derivation, variant, case, parameters, mechanism, draws)`` of the table in
    docs/verification.md (ε = 0.5, N = 6): one configuration per case of each bundled derivation
    with a tight mechanism, with draws enough for δ ≈ 0.01 … 0.34. Poisson r = 1/2 with σ = 1;
    without replacement q = 3 with θ = 0.75 (the only tight mechanism there), except 001 Thm.
    F.3's insertion at q = 4 (at q = 3 its δ(0.5) is 0); with replacement q = 3 (q = 2 for
    wr-group-substitution, its default). 001 Thm. F.2, F.3 and wr-group-substitution are tight
    for randomized response, which sees only whether a batch distance is 0 (their derivation
    files' claims, checked by the verifier). 001 Prop. E.5 is not tight for ε > 0 in general:
    its row is at K = 2, q = 5 > N − K, where every batch holds a record of the group, so that
    :func:`hit_function` attains the bound. 003 Thm. 3.7 at ``K₊ = K₋ = 1`` (Gaussian)."""
    from fractions import Fraction

    from otbound.engine.symbols import q, r
    from otbound.numerics.mechanisms import gaussian, randomized_response

    half, three, theta = {r: Fraction(1, 2)}, {q: 3}, randomized_response(0.75)
    return [
        ("001-prop-E.4", "K = 1", "removal", half, gaussian(1.0), 200_000),
        ("001-prop-E.4", "K = 1", "insertion", half, gaussian(1.0), 1_000_000),
        ("001-thm-4.1", "K = 1", "removal", half, gaussian(1.0), 200_000),
        ("001-thm-4.1", "K = 2", "removal", half, gaussian(1.0), 200_000),
        ("001-thm-4.1", "K = 2", "insertion", half, gaussian(1.0), 200_000),
        ("001-thm-3.6", "K = 1", "substitution", three, randomized_response(0.75), 200_000),
        ("wor-group-substitution", "K = 2", "substitution", three, randomized_response(0.75),
         200_000),
        ("wr-insertion-removal", "q = 3", "removal", {}, gaussian(1.0), 200_000),
        ("wr-substitution", "q = 3", "substitution", {}, randomized_response(0.75), 200_000),
        ("001-thm-F.2", "K = 1", "substitution", three, theta, 200_000),
        ("001-thm-F.3", "K = 1", "removal", three, theta, 200_000),
        ("001-thm-F.3", "K = 1", "insertion", {q: 4}, theta, 200_000),
        ("wr-group-substitution", "K = 2, q = 2", "substitution", {}, theta, 200_000),
        ("001-prop-E.5", "K = 2", "substitution", {q: 5}, theta, 200_000),
        ("003-thm-3.7", "K+ = 1, K- = 1", "insert-remove", half, gaussian(1.0), 200_000),
    ]


def case_instance(report, variant: str, case: str, values: dict,
                  size: int = DOCUMENTED_SIZE) -> Instance:
    """The case ``case`` of the variant labelled ``variant`` in a derivation's report, at
    ``values``, on datasets of ``size`` records (the size of ``x`` or ``x'`` as the derivation
    measures ``N``)."""
    for found in report.variants:
        for case_report in found.cases:
            if found.variant.label == variant and case_report.case.pair.name == case:
                offset = case_report.case.size_offset(report.derivation.size_reference)
                return Instance(report.derivation, found.variant, case_report.case, values,
                                size - offset, bound=case_report.bound)
    raise LookupError(f"{report.derivation.name} has no case {case!r} in variant {variant!r}")
