"""The soundness grid: no reported value below an independent high-precision reference.

Settings are drawn at random with fixed seeds over K ≤ 32, r ∈ [1e-6, 1], σ ∈ [0.3, 100],
θ ∈ (½, 1), α ∈ (1, 10⁴], ε ∈ [0, 50] and δ down to 1e-300. Every value otbound reports — by each
method, tight, agnostic and post-hoc, and by each conversion — is compared *with sign* against
the reference from ``tests/oracle.py`` (exact rationals for randomized response, arb/mpmath for
the Gaussian and Laplace pairs, a 60-digit search for the optimal conversion): a value below
its reference fails, however close. Values must also be non-negative, and finite wherever the
reference is. The default run draws ``DEFAULT_DRAWS`` settings (at least 500 values); ``-m slow``
draws ``SLOW_DRAWS`` more (at least 5,000 values).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath as mp
import numpy as np
import oracle
import pytest

from otbound.accounting.conversion import (balle_delta, balle_epsilon, mironov_delta,
                                           mironov_epsilon, optimal_deltas, optimal_epsilons)
from otbound.choices import Method
from otbound.numerics.mechanisms import RandomizedResponse, gaussian, laplace
from otbound.numerics.one_step import adp, rdp
from otbound.numerics.settings import Subsampling

DEFAULT_DRAWS, SLOW_DRAWS = 150, 1400


@dataclass(frozen=True)
class Draw:
    """One setting, mechanism and list of orders (``rdp``) or ε (``adp``) to check."""

    label: str
    kind: str                  # "rdp", "adp" or "conversion"
    setting: dict
    mechanism: tuple           # ("gaussian", σ) | ("laplace", b) | ("rr", θ) | ()
    points: tuple[float, ...]
    methods: tuple[Method, ...] = (Method.TIGHT,)

    def __str__(self) -> str:
        return self.label

    @property
    def values(self) -> int:
        return len(self.points) * len(self.methods)


def _log_uniform(rng, low: float, high: float) -> float:
    return float(math.exp(rng.uniform(math.log(low), math.log(high))))


def _orders(rng, count: int) -> tuple[float, ...]:
    """Orders in (1, 10⁴]: fractional and integer, near one and large."""
    orders = []
    for _ in range(count):
        alpha = 1 + _log_uniform(rng, 1e-3, 1e4 - 1)
        orders.append(float(round(alpha)) if rng.random() < 0.4 and alpha > 1.5 else alpha)
    return tuple(sorted(orders))


def _epsilons(rng, count: int) -> tuple[float, ...]:
    return tuple(sorted(float(rng.choice([0.0, _log_uniform(rng, 1e-4, 50)]))
                        for _ in range(count)))


def _theta(rng) -> float:
    return min(0.5 + 0.5 * _log_uniform(rng, 1e-7, 1.0), 0.999999)


def _setting(rng, group_limit: int) -> dict:
    rate = _log_uniform(rng, 1e-6, 1.0) if rng.random() < 0.9 else 1.0
    size = int(rng.integers(1, group_limit + 1))
    if rng.random() < 0.5:
        return {"scheme": "poisson", "rate": rate, "group": size}
    removed = int(rng.integers(0, size + 1))
    return {"scheme": "poisson", "rate": rate, "insertions": size - removed, "removals": removed}


def _wor_setting(rng, group_limit: int) -> dict:
    dataset = int(_log_uniform(rng, 10, 1e6))
    batch = int(rng.integers(1, max(dataset // 4, 1) + 1))
    group = int(rng.integers(1, min(group_limit, dataset) + 1))
    return {"scheme": "wor", "batch_size": batch, "dataset_size": dataset,
            "substitutions": group}


def draws(seed: int, count: int, slow: bool) -> list[Draw]:
    """``count`` draws: randomized response, Gaussian and Laplace pairs, conversions."""
    rng = np.random.default_rng(seed)
    kinds = ["rr-rdp", "rr-adp", "rr-wor-rdp", "rr-wor-adp", "gaussian-rdp", "gaussian-adp",
             "laplace-rdp", "laplace-adp", "conversion"]
    result = []
    for index in range(count):
        kind = kinds[index % len(kinds)]
        label = f"{kind}-{seed}-{index}"
        everything = (Method.TIGHT, Method.AGNOSTIC, Method.POSTHOC)
        if kind == "conversion":
            result.append(Draw(label, "conversion", {}, (), _conversion_points(rng)))
        elif kind.startswith("rr"):
            wor = "wor" in kind
            setting = _wor_setting(rng, 32) if wor else _setting(rng, 32)
            rdp_kind = kind.endswith("rdp")
            points = _orders(rng, 3) if rdp_kind else _epsilons(rng, 3)
            result.append(Draw(label, "rdp" if rdp_kind else "adp", setting, ("rr", _theta(rng)),
                               points, everything))
        else:
            family = kind.split("-")[0]
            # Mixture references integrate one pair per shape: keep groups moderate by default.
            setting = _setting(rng, 32 if slow else 6)
            scale = _log_uniform(rng, 0.3, 100)
            rdp_kind = kind.endswith("rdp")
            points = _orders(rng, 2) if rdp_kind else _epsilons(rng, 3)
            if rdp_kind and family == "gaussian" and _group(setting) > 8:
                points = tuple(min(a, 256.0) for a in points)   # keeps the arb reference fast
            methods = everything if _group(setting) <= (32 if slow else 8) else everything[:2]
            result.append(Draw(label, "rdp" if rdp_kind else "adp", setting, (family, scale),
                               points, methods))
    return result


def _group(setting: dict) -> int:
    return setting.get("group") or setting.get("insertions", 0) + setting.get("removals", 0)


def _conversion_points(rng) -> tuple[float, ...]:
    """``(α, ρ, ε, log δ)``: an RDP guarantee and the targets to convert it at."""
    alpha = 1 + _log_uniform(rng, 0.01, 1000)
    rho = _log_uniform(rng, 1e-5, 20)
    return alpha, rho, float(rng.uniform(0, 50)), float(-_log_uniform(rng, 1, 690))


# --- references -------------------------------------------------------------------------------

def _shapes(setting: dict) -> list[tuple[int, int]]:
    if "group" in setting:
        k = setting["group"]
        return [(i, k - i) for i in range(k + 1)]
    return [(setting["insertions"], setting["removals"])]


def reference(draw: Draw, point: float):
    """The true divergence (log Ψ/(α − 1) or δ) at one order or ε, in mpmath."""
    family, parameter = draw.mechanism
    s = draw.setting
    if family == "rr":
        if s["scheme"] == "wor":
            args = (s["batch_size"], s["dataset_size"], s["substitutions"], parameter, point)
            return (oracle.rr_wor_log_psi(*args) / (mp.mpf(point) - 1) if draw.kind == "rdp"
                    else oracle.rr_wor_delta(*args))
        values = [oracle.rr_poisson_log_psi(s["rate"], parameter, i, r, point)
                  / (mp.mpf(point) - 1) if draw.kind == "rdp"
                  else oracle.rr_poisson_delta(s["rate"], parameter, i, r, point)
                  for i, r in _shapes(s)]
        return max(values)
    values = []
    for inserted, removed in _shapes(s):
        pair = oracle.poisson_group_pair(s["rate"], inserted, removed, family=family,
                                         scale=parameter)
        if draw.kind == "adp":
            values.append(oracle.mixture_delta(pair, point))
        elif family == "gaussian" and (inserted, removed) == (0, 1) and point == int(point):
            values.append(oracle.gaussian_removal_log_psi(s["rate"], parameter, int(point))
                          / (mp.mpf(point) - 1))
        else:
            values.append(oracle.mixture_log_psi(pair, point) / (mp.mpf(point) - 1))
    return max(values)


def reported(draw: Draw, method: Method) -> list:
    family, parameter = draw.mechanism
    mechanism = {"gaussian": gaussian, "laplace": laplace,
                 "rr": RandomizedResponse}[family](parameter)
    evaluate = rdp if draw.kind == "rdp" else adp
    return evaluate(Subsampling(**draw.setting), mechanism, method, list(draw.points))


def check(draw: Draw) -> None:
    if draw.kind == "conversion":
        return check_conversion(*draw.points)
    references = [reference(draw, point) for point in draw.points]
    for method in draw.methods:
        bounds = reported(draw, method)
        for point, bound, truth in zip(draw.points, bounds, references):
            where = f"{draw}: {method.value} at {point!r}"
            assert bound.value >= 0 and bound.error >= 0, where
            assert math.isfinite(bound.value) or not mp.isfinite(truth), where
            assert mp.mpf(bound.value) >= truth, f"{where}: {bound.value!r} < {truth}"


def check_conversion(alpha: float, rho: float, epsilon: float, log_delta: float) -> None:
    """Every conversion's δ at ε and ε at δ against the optimal conversion's true value."""
    delta = math.exp(log_delta)
    true_delta = oracle.optimal_delta(alpha, rho, epsilon)
    true_epsilon = oracle.optimal_epsilon(alpha, rho, delta)
    (optimal,) = optimal_deltas([alpha], [rho], epsilon)
    for name, value in (("optimal", optimal.delta), ("balle", balle_delta(alpha, rho, epsilon)),
                        ("mironov", mironov_delta(alpha, rho, epsilon))):
        assert 0 <= value <= 1 and mp.mpf(value) >= min(true_delta, 1), (name, value, true_delta)
        assert value > 0 or true_delta == 0, (name, value)
    (optimal,) = optimal_epsilons([alpha], [rho], delta)
    for name, value in (("optimal", optimal.epsilon),
                        ("balle", balle_epsilon(alpha, rho, delta)),
                        ("mironov", mironov_epsilon(alpha, rho, delta))):
        assert math.isfinite(value) and mp.mpf(value) >= true_epsilon, (name, value,
                                                                         true_epsilon)


DEFAULT = draws(9, DEFAULT_DRAWS, slow=False)
SLOW = draws(99, SLOW_DRAWS, slow=True)


def test_the_grids_are_as_large_as_promised():
    assert sum(d.values if d.kind != "conversion" else 6 for d in DEFAULT) >= 500
    assert sum(d.values if d.kind != "conversion" else 6 for d in SLOW) >= 5000


@pytest.mark.parametrize("draw", DEFAULT, ids=str)
def test_no_value_below_its_reference(draw):
    check(draw)


@pytest.mark.slow
@pytest.mark.parametrize("draw", SLOW, ids=str)
def test_no_value_below_its_reference_slow(draw):
    check(draw)
