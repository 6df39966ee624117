"""Truncated Poisson (002 Thm. 3.1, 3.3, 3.4) derived by the engine
(:mod:`otbound.engine.truncation`): exact checks of the coupling, soundness on exact instances,
and the numbers of ``account`` unchanged from the hand-written pairs (:mod:`tests.truncated_oracle`)."""

import json
import math
import random
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest

from otbound.accounting.accountant import compose
from otbound.accounting.steps import Step
from otbound.accounting.truncated import PROBABILITY_ERROR, TruncatedPoissonSetting, truncated_step
from otbound.accounting.truncated_derived import derived_cases as _derived_cases
from otbound.choices import Accountant, Neighbouring
from otbound.engine import truncation
from otbound.engine.couplings import InsertInRandomOrder, ReplaceRandomMember
from otbound.numerics.mechanisms import AdditiveNoise
from tests.cli_runs import run_cli
from tests.truncated_oracle import oracle_cases

GRID = [(size, rate, cap) for size in range(1, 8) for cap in (1, 2, 3)
        for rate in (Fraction(1, 2), Fraction(1, 3), Fraction(2, 7))]


@pytest.mark.parametrize("size, rate, cap", GRID)
def test_the_coupling_passes_the_exact_checks(size, rate, cap):
    assert truncation.check_instance(size, rate, cap) == []
    assert truncation.check_substitution_instance(size, rate, cap) == []
    assert truncation.check_zero_out_instance(size, rate, cap) == []


def test_wrong_zero_out_distances_are_caught(monkeypatch):
    # f(⊥) = 0: the untruncated ⊥ moves nothing, the truncated one removes the displaced member
    monkeypatch.setattr(truncation, "ZERO_OUT_DISTANCES", {False: (1, 1, 1), True: (2, 1, 1)})
    failures = truncation.check_zero_out_instance(6, Fraction(1, 2), 2)
    assert failures and all("branch False: distances" in f for f in failures)


def test_zero_out_is_tighter_before_the_relaxation():
    # the coupling bounds d_Y(y_A2, y_E2) by 1 in the truncated branch; 002 Thm. 3.3's pair
    # (means 2 and −1) has them 3 apart
    (_, truncated), _ = (case.terms for case in truncation.derived_zero_out_bound().cases)
    assert truncated[1].constraints.closure().bound("y'", "z'") == 1


def test_a_wrong_substitution_step_is_caught(monkeypatch):
    steps = dict(truncation.SUBSTITUTION_STEPS)
    steps[True] = (ReplaceRandomMember("E1", ("a",), ("A2",)),
                   ReplaceRandomMember("E1", ("a'",), ("E2",)))   # independent members
    monkeypatch.setattr(truncation, "SUBSTITUTION_STEPS", steps)
    failures = truncation.check_substitution_instance(6, Fraction(1, 2), 2)
    assert any("not the coupling step's law" in f for f in failures)


def test_replace_one_is_tighter_before_the_relaxation():
    # the coupling bounds d_Y(y_A2, y_E2) by 2 in the truncated branch; 002 Thm. 3.4 uses 4
    (_, truncated), _ = (case.terms for case in truncation.derived_substitution_bound().cases)
    assert truncated[1].constraints.closure().bound("y'", "z'") == 2


def test_a_wrong_branch_rate_is_caught(monkeypatch):
    # the rate of sampling without replacement (B/N) is a plausible but wrong q̃
    monkeypatch.setattr(truncation, "branch_rate", lambda n, p, b: Fraction(b, n))
    assert any("P(a ∈ y)" in f for f in truncation.check_instance(6, Fraction(1, 2), 2))


def test_a_wrong_coupling_step_is_caught(monkeypatch):
    steps = dict(truncation.BRANCH_STEPS)
    steps[True] = InsertInRandomOrder("E1", ("a",), ("A2",))   # no displacement on truncation
    monkeypatch.setattr(truncation, "BRANCH_STEPS", steps)
    failures = truncation.check_instance(6, Fraction(1, 2), 2)
    assert any("y | a ∈ y is not" in f for f in failures)


@pytest.mark.parametrize("size", [3, 10, 41])
def test_the_closed_form_of_q_equals_its_definition(size):
    # 002 Thm. 3.1: q̃ = p Σ_{s ≥ B} P[Binom(N − 1, p) = s] B / (s + 1) / w
    rate, cap = Fraction(3, 11), 2
    w = truncation.truncation_probability(size, rate, cap)
    direct = rate * sum(math.comb(size - 1, s) * rate ** s * (1 - rate) ** (size - 1 - s)
                        * Fraction(cap, s + 1) for s in range(cap, size)) / w
    assert truncation.branch_rate(size, rate, cap) == direct


def _hockey(p: dict, q: dict, gamma: Fraction) -> Fraction:
    return sum((max(p.get(o, 0) - gamma * q.get(o, 0), 0) for o in set(p) | set(q)),
               Fraction(0))


def _mix(parts) -> dict:
    out = defaultdict(Fraction)
    for weight, law in parts:
        for o, v in law.items():
            out[o] += weight * v
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_bound_holds_exactly_for_random_mechanisms(seed):
    """``H_γ(m_x ‖ m_x') ≤ Σ_T P(T) E_t H_γ((1 − q_T) b_{y_A1} + q_T b_{y_A2} ‖ b_{y_E1})``,
    exactly, for random finite mechanisms (001 Thm. 3.4 within each branch)."""
    rng = random.Random(seed)
    size, rate, cap, gamma = 5, Fraction(2, 5), 2, Fraction(3, 2)
    joint = truncation.generate(size, rate, cap)
    laws = {}

    def b(batch):
        if batch not in laws:
            weights = [rng.randint(1, 9) for _ in range(3)]
            laws[batch] = {o: Fraction(v, sum(weights)) for o, v in enumerate(weights)}
        return laws[batch]

    m_x = _mix((v, b(o[1])) for o, v in joint.items())
    m_x_prime = _mix((v, b(o[2])) for o, v in joint.items())
    rates = {False: rate, True: truncation.branch_rate(size, rate, cap)}
    bound = Fraction(0)
    for branch in (False, True):
        prime = defaultdict(Fraction)
        for o, v in joint.items():
            if o[0] is branch:
                prime[o[2]] += v
        for batch, v in prime.items():
            outcomes = truncation.BRANCH_STEPS[branch].outcomes(batch, None)
            for share, (target,) in outcomes:
                mixed = _mix([(1 - rates[branch], b(batch)), (rates[branch], b(target))])
                bound += v * share * _hockey(mixed, b(batch), gamma)
    assert _hockey(m_x, m_x_prime, gamma) <= bound


def derived_cases(setting: TruncatedPoissonSetting, mechanism) -> list:
    w = setting.truncation_probability()
    return _derived_cases(setting.rate, w, setting.branch_rate() if w > 0 else 0.0, mechanism,
                          PROBABILITY_ERROR, setting.neighbouring)


DERIVED = list(Neighbouring)


SETTINGS = [(0.005, 256, 60000, 1.0), (0.001, 256, 60000, 0.7), (0.01, 3, 10, 0.8),
            (0.3, 2, 8, 2.0), (0.05, 55, 1000, 1.0), (0.5, 1000, 100, 1.0)]


@pytest.mark.parametrize("neighbouring", DERIVED)
@pytest.mark.parametrize("rate, cap, size, sigma", SETTINGS)
def test_the_derived_pairs_are_the_hand_written_ones(rate, cap, size, sigma, neighbouring):
    setting = TruncatedPoissonSetting(rate, cap, size, neighbouring)
    derived = derived_cases(setting, AdditiveNoise(sigma))
    expected = oracle_cases(setting, sigma)
    assert len(derived) == len(expected) == 2
    for ours, theirs in zip(derived, expected):
        assert len(ours) == len(theirs)
        for (log_w, (pair,)), (log_v, (other,)) in zip(ours, theirs):
            assert log_w == pytest.approx(log_v, rel=1e-12, abs=1e-14)
            for name in ("p_means", "q_means"):
                np.testing.assert_array_equal(getattr(pair, name) + 0.0, getattr(other, name))
            # the hand-written pairs also raised the exact rate p by PROBABILITY_ERROR (1e-12);
            # the derived bound uses p itself (it is exact), q̃ raised as before
            for name in ("p_log_weights", "q_log_weights"):
                np.testing.assert_allclose(getattr(pair, name), getattr(other, name),
                                           rtol=1e-11)
    if setting.truncation_probability() < 1:
        (untruncated,) = derived[0][0][1]     # removal case, untruncated branch
        assert untruncated.p_log_weights[1] == pytest.approx(math.log(rate), rel=1e-15)


def _oracle_step(setting, sigma, count):
    cases = oracle_cases(setting, sigma)
    return Step(tuple(tuple(c) for c in cases), count, ("oracle",), {})


def _epsilons(setting, sigma, accountant):
    ours = compose([truncated_step(setting, AdditiveNoise(sigma), 20)], accountant, delta=1e-5)
    theirs = compose([_oracle_step(setting, sigma, 20)], accountant, delta=1e-5)
    return ours.epsilon, theirs.epsilon


@pytest.mark.parametrize("neighbouring", DERIVED)
@pytest.mark.parametrize("rate, cap, size, sigma", SETTINGS[2:5])
def test_the_rdp_epsilons_are_unchanged(rate, cap, size, sigma, neighbouring):
    setting = TruncatedPoissonSetting(rate, cap, size, neighbouring)
    ours, theirs = _epsilons(setting, sigma, Accountant.RDP)
    assert ours == pytest.approx(theirs, rel=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("neighbouring", DERIVED)
@pytest.mark.parametrize("rate, cap, size, sigma", SETTINGS[2:5])
def test_the_pld_epsilons_are_unchanged(rate, cap, size, sigma, neighbouring):
    setting = TruncatedPoissonSetting(rate, cap, size, neighbouring)
    ours, theirs = _epsilons(setting, sigma, Accountant.PLD)
    assert ours == pytest.approx(theirs, rel=1e-9)


def test_the_cli_uses_the_derived_bound_with_the_same_numbers(capsys):
    code, out, _ = run_cli(capsys, "account", "--scheme", "truncated-poisson", "--rate", "0.05",
                           "--max-batch", "55", "--dataset-size", "1000", "--mechanism",
                           "gaussian", "--sigma", "1", "--steps", "100", "--delta", "1e-6",
                           "--accountant", "rdp", "--json")
    result = json.loads(out)
    assert code == 0 and result["setting"]["bound"] == "derived (002 Thm. 3.1)"
    setting = TruncatedPoissonSetting(0.05, 55, 1000)
    theirs = compose([_oracle_step(setting, 1.0, 100)], Accountant.RDP, delta=1e-6)
    assert result["epsilon"] == pytest.approx(theirs.epsilon, rel=1e-9)


def test_the_numbers_are_read_from_the_engines_bound(monkeypatch):
    """No pair is written in the accounting: replacing the engine's zero-out bound by its
    add/remove one makes zero-out account exactly as add/remove."""
    from otbound.accounting import truncated_derived

    setting = {n: TruncatedPoissonSetting(0.3, 2, 8, n) for n in Neighbouring}
    add_remove = truncated_step(setting[Neighbouring.ADD_REMOVE], AdditiveNoise(1.0), 1).cases
    zero_out = truncated_step(setting[Neighbouring.ZERO_OUT], AdditiveNoise(1.0), 1).cases
    assert repr(zero_out) != repr(add_remove)   # MixturePair holds arrays: compare by value
    truncated_derived.derived.cache_clear()
    monkeypatch.setattr(truncation, "derived_zero_out_bound", truncation.derived_bound)
    try:
        replaced = truncated_step(setting[Neighbouring.ZERO_OUT], AdditiveNoise(1.0), 1).cases
    finally:
        truncated_derived.derived.cache_clear()
    assert repr(replaced) == repr(add_remove)
