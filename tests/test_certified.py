"""Certified mode (issue 14 item 1): rigorous enclosures against the fast path.

For every dominating pair the fast path reports ``value = estimate + error``. Soundness: the
value is never below the certified lower end. Tightness (where the fast path claims it): the
certified interval reaches the fast path's own interval ``[value − 2·error, value]``.
"""

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from cli_runs import run_cli

from otbound.errors import UnsupportedOperation
from otbound.numerics.certified_hockey_stick import certified_delta
from otbound.numerics.certified_renyi import certified_log_psi
from otbound.numerics.hockey_stick import hockey_stick_curve
from otbound.numerics.mechanisms import gaussian, laplace, randomized_response
from otbound.numerics.one_step import adp, rdp, tight_branches
from otbound.numerics.pairs import FinitePair
from otbound.numerics.renyi import log_psi_curve
from otbound.numerics.settings import Subsampling

pytest.importorskip("flint")

MECHANISMS = {"gaussian": gaussian, "laplace": laplace}


def pairs_of(group: int, rate: float, family: str, sigma: float) -> list:
    """The first and the last dominating pair of a Poisson group setting (the two extremes of
    its cases: all removals, all insertions)."""
    setting = Subsampling("poisson", rate=rate, group=group)
    pairs = [pair for terms in setting.cases()
             for _, branch in tight_branches(terms, MECHANISMS[family](sigma)) for pair in branch]
    return [pairs[0], pairs[-1]] if len(pairs) > 1 else pairs


def check_agreement(fast, interval: tuple[float, float]) -> None:
    """The fast bound is sound against the enclosure, and the two overlap (up to the ulps the
    fast path rounds up by, which are all there is to a subnormal δ)."""
    lower, upper = interval
    assert lower <= upper
    assert fast.value >= lower, (fast, interval)
    assert upper >= fast.value - 2 * fast.error - 4 * math.ulp(fast.value), (fast, interval)


def check_rdp_point(pair, alpha: float) -> tuple[float, float]:
    interval = certified_log_psi(pair, alpha)
    check_agreement(log_psi_curve(pair, [alpha])[0], interval)
    return interval


def check_adp_point(pair, epsilon: float) -> tuple[float, float] | None:
    try:
        fast = hockey_stick_curve(pair, [epsilon])[0]
    except UnsupportedOperation:   # the closed form needs a monotone ratio
        return None
    interval = certified_delta(pair, epsilon)
    check_agreement(fast, interval)
    return interval


SAMPLE = [  # (K, r, family, σ, α, ε)
    (1, 0.01, "gaussian", 1.0, 2.0, 0.5),
    (2, 1e-6, "gaussian", 0.3, 8.5, 20.0),
    (16, 1e-3, "gaussian", 0.3, 1e4, 1.0),
    (4, 0.5, "gaussian", 4.0, 1.5, 0.0),
    (3, 1e-3, "laplace", 1.0, 32.0, 0.0),
    (1, 0.1, "laplace", 0.3, 2.0, 2.0),
]


@pytest.mark.parametrize("group, rate, family, sigma, alpha, epsilon", SAMPLE)
def test_the_fast_path_agrees_with_the_certified_enclosures(group, rate, family, sigma, alpha,
                                                           epsilon):
    for pair in pairs_of(group, rate, family, sigma):
        check_rdp_point(pair, alpha)
        check_adp_point(pair, epsilon)


def test_a_lowered_bound_is_caught_where_the_enclosure_is_narrow():
    """The check can fail: a value lowered by one part in a million is below the lower end."""
    caught = 0
    for group, rate, family, sigma, alpha, _epsilon in SAMPLE:
        for pair in pairs_of(group, rate, family, sigma):
            fast = log_psi_curve(pair, [alpha])[0]
            lower, upper = certified_log_psi(pair, alpha)
            if lower > 0 and (upper - lower) < 1e-8 * upper:
                lowered = type(fast)(fast.value * (1 - 1e-6), 0.0)
                with pytest.raises(AssertionError):
                    check_agreement(lowered, (lower, upper))
                caught += 1
    assert caught >= 6


@pytest.mark.parametrize("theta, alpha, epsilon", [(0.75, 2.0, 0.1), (0.6, 7.5, 0.3),
                                                    (0.99, 1e4, 2.0)])
def test_randomized_response_is_enclosed_exactly(theta, alpha, epsilon):
    """A finite pair is summed exactly in arb: the enclosure holds the 50-digit value and is a
    few ulps wide."""
    pair = FinitePair(np.array([theta, 1 - theta]), np.array([1 - theta, theta]))
    with mp.workdps(50):
        t = mp.mpf(theta)
        psi = t ** alpha * (1 - t) ** (1 - alpha) + (1 - t) ** alpha * t ** (1 - alpha)
        log_psi = mp.log(psi)
        delta = max(t - mp.e ** epsilon * (1 - t), 0) + max(1 - t - mp.e ** epsilon * t, 0)
    lower, upper = certified_log_psi(pair, alpha)
    # the pair holds the doubles θ and 1 − θ: allow their rounding (a few ulps of log Ψ)
    slack = 1e-15 * alpha * float(abs(log_psi))
    assert lower - slack <= float(log_psi) <= upper + slack
    assert upper - lower <= 1e-13 * upper
    lower, upper = certified_delta(pair, epsilon)
    assert lower - 1e-16 <= float(delta) <= upper + 1e-16
    assert upper - lower <= 1e-13 * max(upper, 1e-300)   # the losses' declared errors
    check_agreement(log_psi_curve(pair, [alpha])[0], certified_log_psi(pair, alpha))


def test_randomized_response_settings_agree():
    setting, mechanism = Subsampling("poisson", rate=0.05, group=3), randomized_response(0.8)
    fast = rdp(setting, mechanism, "tight", [2, 16])
    certified = rdp(setting, mechanism, "tight", [2, 16], certified=True)
    for f, c in zip(fast, certified):
        assert f.value >= c.value - c.error and c.value >= f.value - 2 * f.error


def test_rdp_and_adp_report_the_upper_end_with_the_width_as_error():
    setting, mechanism = Subsampling("poisson", rate=0.01, group=2), gaussian(1.0)
    for evaluate, points in ((rdp, [2, 32]), (adp, [0.0, 1.0])):
        fast = evaluate(setting, mechanism, "tight", points)
        certified = evaluate(setting, mechanism, "tight", points, certified=True)
        for f, c in zip(fast, certified):
            assert 0 <= c.error <= 1e-9 * c.value
            assert f.value >= c.value - c.error
            assert c.value >= f.value - 2 * f.error


def test_the_agnostic_method_is_refused_in_certified_mode():
    with pytest.raises(UnsupportedOperation, match="dominating pairs"):
        rdp(Subsampling("poisson", rate=0.01), gaussian(1.0), "agnostic", [2], certified=True)


def test_the_command_line_flag(capsys):
    code, out, _ = run_cli(capsys, "rdp", "--scheme", "poisson", "--rate", "0.01", "--mechanism",
                           "gaussian", "--sigma", "1", "--alpha", "2,8", "--certified")
    assert code == 0 and "certified: upper ends of rigorous enclosures" in out
    code, out, _ = run_cli(capsys, "adp", "--scheme", "poisson", "--rate", "0.01", "--mechanism",
                           "gaussian", "--sigma", "1", "--epsilon", "1", "--certified", "--json")
    assert code == 0 and '"certified": true' in out


def test_account_certified_uses_the_rdp_accountant(capsys):
    base = ("account", "--scheme", "poisson", "--rate", "0.01", "--mechanism", "gaussian",
            "--sigma", "1", "--steps", "100", "--delta", "1e-5", "--json")
    code, out, _ = run_cli(capsys, *base, "--accountant", "rdp", "--certified")
    assert code == 0 and '"certified": true' in out
    code, _, err = run_cli(capsys, *base, "--certified")
    assert code == 2 and "--accountant rdp" in err


# --- the slow grid: K ≤ 16, α ≤ 10⁴, r ≥ 1e-6, σ ≥ 0.3, ε ∈ [0, 20] ---------------------------

GRID_SETTINGS = list(itertools.product([1, 2, 4, 8, 16], [1e-6, 1e-3, 0.1],
                                       ["gaussian", "laplace"], [0.3, 1.0, 4.0]))
ALPHAS = [1.5, 2.0, 8.0, 64.0, 1e4]
EPSILONS = [0.0, 0.5, 2.0, 20.0]


@pytest.mark.slow
@pytest.mark.parametrize("group, rate, family, sigma", GRID_SETTINGS)
def test_the_grid(group, rate, family, sigma):
    """90 settings × 2 pairs × (5 orders + 4 ε), less α = 10⁴ for Laplace b = 0.3: 1,590
    points (ε points of pairs without a monotone ratio, which the fast path refuses, would be
    skipped)."""
    checked = 0
    # Laplace pairs at α = 10⁴ cost ~b/α-wide quadrature pieces: b = 0.3 takes minutes a pair
    alphas = ALPHAS if family == "gaussian" or sigma >= 1 else ALPHAS[:-1]
    for pair in pairs_of(group, rate, family, sigma):
        for alpha in alphas:
            check_rdp_point(pair, alpha)
            checked += 1
        checked += sum(check_adp_point(pair, e) is not None for e in EPSILONS)
    assert checked >= len(ALPHAS)
