"""Privacy of one subsampled step in numbers: RDP ε(α) and ADP δ(ε), by three methods.

* ``tight`` — the engine's bound solved for the concrete mechanism (001 Thm. 3.7, 4.2, G.1;
  003 Thm. 3.8): the exact divergence of the dominating pairs.
* ``agnostic`` — the bound expressed through the base mechanism's group privacy profile only, by
  joint convexity: 001 Prop. E.4 (Zhu & Wang) and E.2 (Wang et al.) for RDP at integer orders,
  003 Sec. 3.3 (Balle et al. 2018) for ADP with pure insertion or removal, Balle et al. 2018 for
  sampling without replacement, 001 Prop. E.5 for K-fold substitution, and otherwise the
  product-coupling bound ``Σ_{i,j} w_i v_j D_{i+j}``.
* ``posthoc`` — the K = 1 tight bound followed by the generic group privacy property: Mironov
  2017 Cor. 4 applied ⌈log₂ K⌉ times (001 App. B.1) for RDP, and
  ``(Kε, Σ_{k<K} e^{kε} δ)`` for ADP.

Every number is an upper bound: each divergence is rounded up by its error estimate before it is
combined, and the reported error is the difference to the same combination of the estimates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Sequence

import numpy as np
from scipy.special import gammaln

from otbound.errors import UnsupportedOperation
from otbound.hockey_stick import ESCALATE, check_epsilons, hockey_stick_curve
from otbound.mechanisms import Mechanism, Pair, single_distance
from otbound.numeric import NumericBound
from otbound.pairs import log_sum_exp
from otbound.problems import log_binomial_weights
from otbound.renyi import check_orders, log_psi_curve
from otbound.subsampling import Subsampling, Term


class Method(Enum):
    TIGHT = "tight"
    AGNOSTIC = "agnostic"
    POSTHOC = "posthoc"


@dataclass(frozen=True)
class Bounds:
    """Upper bounds and the estimates they were rounded up from."""

    upper: np.ndarray
    estimate: np.ndarray

    def as_list(self) -> list[NumericBound]:
        return [NumericBound(float(u), float(max(u - e, 0.0)))
                for u, e in zip(self.upper, self.estimate)]


def _split(bounds: list[NumericBound]) -> Bounds:
    upper = np.array([b.value for b in bounds])
    return Bounds(upper, upper - np.array([b.error for b in bounds]))


# --- RDP ------------------------------------------------------------------------------------

def rdp(setting: Subsampling, mechanism: Mechanism, method: Method, alphas) -> list[NumericBound]:
    """``ε(α)`` for every order; each value is an upper bound with its error estimate."""
    alphas = check_orders(alphas)
    log_psi = {Method.TIGHT: _tight_log_psi, Method.AGNOSTIC: _agnostic_log_psi,
               Method.POSTHOC: _posthoc_log_psi}[method](setting, mechanism, alphas)
    scale = alphas - 1
    return Bounds(log_psi.upper / scale, log_psi.estimate / scale).as_list()


def _maximum(bounds: list[Bounds]) -> Bounds:
    """The elementwise maximum of upper bounds and of estimates."""
    return Bounds(np.max([b.upper for b in bounds], axis=0),
                  np.max([b.estimate for b in bounds], axis=0))


def terms_log_psi(terms: list[Term], mechanism: Mechanism, alphas: np.ndarray,
                  limit: bool = True) -> Bounds:
    """``log Σ_t P(t) · max_pairs Ψ_α(pair)`` for one case (tight, as upper bounds)."""
    return branches_log_psi(tight_branches(terms, mechanism), alphas, limit)


def terms_delta(terms: list[Term], mechanism: Mechanism, epsilons: np.ndarray) -> Bounds:
    """``Σ_t P(t) · max_pairs δ(ε; pair)`` for one case (tight, as upper bounds)."""
    return branches_delta(tight_branches(terms, mechanism), epsilons)


Branch = tuple[float, list[Pair]]
"""``(log probability, dominating pairs)``: one public branch of a mixture of mechanisms, whose
divergence is the largest over its pairs."""


def tight_branches(terms: list[Term], mechanism: Mechanism) -> list[Branch]:
    """The dominating pairs of every term of a case."""
    return [(log_weight, mechanism.tight_pairs(problem)) for log_weight, problem in terms]


def branches_log_psi(branches: Sequence[Branch], alphas: np.ndarray,
                     limit: bool = True) -> Bounds:
    """``log Σ_b P(b) · max_pairs Ψ_α(pair)`` (upper bounds and estimates)."""
    weights = np.array([log_weight for log_weight, _ in branches])[:, None]
    worst = [_maximum([_split(log_psi_curve(pair, alphas, limit=limit)) for pair in pairs])
             for _, pairs in branches]
    return Bounds(log_sum_exp(weights + np.array([w.upper for w in worst]), axis=0),
                  log_sum_exp(weights + np.array([w.estimate for w in worst]), axis=0))


def branches_delta(branches: Sequence[Branch], epsilons: np.ndarray,
                   tolerance: float = ESCALATE) -> Bounds:
    """``Σ_b P(b) · max_pairs δ(ε; pair)`` (upper bounds and estimates); ε may be negative.
    ``tolerance`` is the relative error of δ tolerated before high-precision recomputation."""
    upper, estimate = np.zeros(epsilons.size), np.zeros(epsilons.size)
    for log_weight, pairs in branches:
        worst = _maximum([_split(hockey_stick_curve(pair, epsilons, tolerance))
                          for pair in pairs])
        upper += math.exp(log_weight) * worst.upper
        estimate += math.exp(log_weight) * worst.estimate
    return Bounds(upper * (1 + 4e-16 * len(branches)), estimate)


def _each_case(setting: Subsampling, mechanism: Mechanism, evaluate) -> Bounds:
    """The maximum over the setting's cases, refusing clearly where no solver applies."""
    try:
        results = [evaluate(terms) for terms in setting.cases()]
    except UnsupportedOperation as error:
        raise UnsupportedOperation(
            f"--method tight: no exact solver for the {mechanism.name} mechanism with "
            f"{setting.describe()} ({error}); use --method agnostic or --method posthoc") from error
    return _maximum(results)


def _tight_log_psi(setting: Subsampling, mechanism: Mechanism, alphas: np.ndarray,
                   limit: bool = True) -> Bounds:
    return _each_case(setting, mechanism,
                      lambda terms: terms_log_psi(terms, mechanism, alphas, limit))


def _exact(values: np.ndarray) -> Bounds:
    """Closed-form values, charged a few ulps of relative rounding error."""
    margin = 8 * np.finfo(float).eps * (1 + np.abs(values))
    return Bounds(values + margin, values)


def _agnostic_log_psi(setting: Subsampling, mechanism: Mechanism, alphas: np.ndarray) -> Bounds:
    integer = alphas == np.floor(alphas)
    if setting.scheme == "wor" and setting.substitutions == 1:
        w = setting.batch_size / setting.dataset_size
        value = np.logaddexp(math.log1p(-w), math.log(w) + mechanism.group_log_psi(1, alphas))
        if integer.any():
            value[integer] = _wang_et_al(w, mechanism, alphas[integer])
        return _exact(value)
    if setting.scheme == "wor":
        return _exact(log_sum_exp(np.array(
            [log_p + mechanism.group_log_psi(single_distance(problem), alphas)
             for log_p, problem in setting.cases()[0]]), axis=0))
    cases = []
    for inserted, removed in setting.shapes():
        value = _product_coupling_log_psi(setting.rate, inserted, removed, mechanism, alphas)
        if inserted + removed == 1 and integer.any():
            value[integer] = (_zhu_wang(setting.rate, mechanism, alphas[integer])
                              + (math.log(2) if inserted else 0.0))
        cases.append(value)
    return _exact(np.max(np.array(cases), axis=0))


def _zhu_wang(rate: float, mechanism: Mechanism, alphas: np.ndarray) -> np.ndarray:
    """001 Prop. E.4 (removal case): ``log Σ_l C(α,l) r^l (1−r)^{α−l} Ψ_l`` for integer α,
    with ``Ψ_0 = Ψ_1 = 1`` and ``Ψ_l`` the base divergence at distance 1."""
    if rate == 0:
        return np.zeros(alphas.size)
    if rate == 1:
        return mechanism.group_log_psi(1, alphas)
    result = []
    for alpha in alphas.astype(int):
        l = np.arange(0, alpha + 1)
        log_psi = np.where(l >= 2, mechanism.group_log_psi(1, np.maximum(l, 2)), 0.0)
        result.append(log_sum_exp(gammaln(alpha + 1) - gammaln(l + 1) - gammaln(alpha - l + 1)
                                  + l * math.log(rate) + (alpha - l) * math.log1p(-rate)
                                  + log_psi))
    return np.array(result)


def _wang_et_al(w: float, mechanism: Mechanism, alphas: np.ndarray) -> np.ndarray:
    """001 Prop. E.2: ``log(1 + 2 Σ_{l=2}^{α} C(α, l) w^l Ψ_l)`` for integer α."""
    result = []
    for alpha in alphas.astype(int):
        l = np.arange(2, alpha + 1)
        terms = (math.log(2) + gammaln(alpha + 1) - gammaln(l + 1) - gammaln(alpha - l + 1)
                 + l * math.log(w) + mechanism.group_log_psi(1, l))
        result.append(np.logaddexp(0.0, log_sum_exp(terms)))
    return np.array(result)


def _product_coupling_log_psi(rate: float, inserted: int, removed: int, mechanism: Mechanism,
                              alphas: np.ndarray) -> np.ndarray:
    """Joint convexity with the product coupling: ``Σ_{i,j} w_i v_j Ψ_α(distance i + j)``."""
    left, right = log_binomial_weights(removed, rate), log_binomial_weights(inserted, rate)
    terms = [left[i] + right[j] + mechanism.group_log_psi(i + j, alphas)
             for i in range(removed + 1) for j in range(inserted + 1)
             if left[i] > -math.inf and right[j] > -math.inf]
    return log_sum_exp(np.array(terms), axis=0)


def _posthoc_log_psi(setting: Subsampling, mechanism: Mechanism, alphas: np.ndarray) -> Bounds:
    depth = math.ceil(math.log2(setting.group_size)) if setting.group_size > 1 else 0
    single = setting.with_group_size(1)
    epsilon = _mironov_group(lambda orders: _tight_log_psi(single, mechanism, orders, limit=False),
                             alphas, depth)
    return Bounds(epsilon.upper * (alphas - 1), epsilon.estimate * (alphas - 1))


def _mironov_group(curve, alphas: np.ndarray, depth: int) -> Bounds:
    """Mironov 2017 Cor. 4, ``depth`` times: ``ε_{2K}(α) ≤ (α − ½)/(α − 1) ε_K(2α) +
    α/(α − 1) ε_K(2α − 1)`` (001 App. B.1); returns ε, not log Ψ."""
    if depth == 0:
        log_psi = curve(alphas)
        return Bounds(log_psi.upper / (alphas - 1), log_psi.estimate / (alphas - 1))
    inner = _mironov_group(curve, np.concatenate([2 * alphas, 2 * alphas - 1]), depth - 1)
    first, second = (alphas - 0.5) / (alphas - 1), alphas / (alphas - 1)
    n = alphas.size
    return Bounds(first * inner.upper[:n] + second * inner.upper[n:],
                  first * inner.estimate[:n] + second * inner.estimate[n:])


# --- ADP ------------------------------------------------------------------------------------

def adp(setting: Subsampling, mechanism: Mechanism, method: Method,
        epsilons) -> list[NumericBound]:
    """``δ(ε)`` for every ε; each value is an upper bound with its error estimate."""
    epsilons = check_epsilons(epsilons)
    result = {Method.TIGHT: _tight_delta, Method.AGNOSTIC: _agnostic_delta,
              Method.POSTHOC: _posthoc_delta}[method](setting, mechanism, epsilons)
    return Bounds(np.minimum(result.upper, 1.0), np.minimum(result.estimate, 1.0)).as_list()


def _tight_delta(setting: Subsampling, mechanism: Mechanism, epsilons: np.ndarray) -> Bounds:
    return _each_case(setting, mechanism, lambda terms: terms_delta(terms, mechanism, epsilons))


def _agnostic_delta(setting: Subsampling, mechanism: Mechanism, epsilons: np.ndarray) -> Bounds:
    if setting.scheme == "wor" and setting.substitutions == 1:
        w = setting.batch_size / setting.dataset_size
        return _balle(w, lambda eps: w * mechanism.group_delta(1, eps), epsilons)
    if setting.scheme == "wor":
        total = sum(math.exp(log_p) * mechanism.group_delta(single_distance(problem), epsilons)
                    for log_p, problem in setting.cases()[0])
        return _exact_delta(total)
    cases = []
    for inserted, removed in setting.shapes():
        if inserted == 0 or removed == 0:
            group = inserted + removed
            weights = np.exp(log_binomial_weights(group, setting.rate))

            def base(eps, weights=weights, group=group):
                return sum(weights[k] * mechanism.group_delta(k, eps) for k in range(1, group + 1))

            cases.append(_balle(1 - weights[0], base, epsilons).upper)
        else:
            left = np.exp(log_binomial_weights(removed, setting.rate))
            right = np.exp(log_binomial_weights(inserted, setting.rate))
            cases.append(sum(left[i] * right[j] * mechanism.group_delta(i + j, epsilons)
                             for i in range(removed + 1) for j in range(inserted + 1)))
    return _exact_delta(np.max(np.array(cases), axis=0))


def _exact_delta(values: np.ndarray) -> Bounds:
    return Bounds(values * (1 + 16 * np.finfo(float).eps), values)


def _balle(weight: float, base, epsilons: np.ndarray) -> Bounds:
    """Balle et al. 2018 / 003 Sec. 3.3: the subsampled mechanism is ``(ε', base(ε))``-DP with
    ``e^{ε'} = 1 + η (e^ε − 1)``, i.e. ``ε = log(1 + (e^{ε'} − 1)/η)``."""
    if weight == 0:
        return Bounds(np.zeros(epsilons.size), np.zeros(epsilons.size))
    inner = np.log1p(np.expm1(epsilons) / weight)
    return _exact_delta(np.asarray(base(inner), dtype=float))


def _posthoc_delta(setting: Subsampling, mechanism: Mechanism, epsilons: np.ndarray) -> Bounds:
    k = setting.group_size
    single = _tight_delta(setting.with_group_size(1), mechanism, epsilons / k)
    factor = np.array([sum(math.exp(j * e / k) for j in range(k)) for e in epsilons])
    return Bounds(single.upper * factor * (1 + 4 * k * np.finfo(float).eps),
                  single.estimate * factor)
