"""Truncated Poisson (002 Thm. 3.1, 3.3, 3.4) as derivation files with a public branch
(derivations/truncated_*.py, :mod:`otbound.engine.public_branch`): the engine's checks catch
wrong closed forms, a latent that is not public and a wrong coupling; the bounds relax to 002's
statements; and the numbers of ``account`` are unchanged from the hand-written pairs
(:mod:`tests.truncated_oracle`)."""

import json
import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from otbound.accounting.accountant import compose
from otbound.accounting.steps import Step
from otbound.accounting import truncated
from otbound.accounting.pld import TOLERANCE, pair_loss_range
from otbound.accounting.steps import subsampled_step
from otbound.accounting.truncated import TruncatedPoissonSetting
from otbound.choices import Accountant, Neighbouring
from otbound.engine.batches import background
from otbound.engine.binomial_tail import BinomialTail
from otbound.engine.bound import ConstraintMatrix
from otbound.engine.bundled import load_derivation
from otbound.engine.couplings import InsertInRandomOrder
from otbound.engine.derivation import run
from otbound.engine.public_branch import GivenBranch, branch_failures
from otbound.engine.schemes import SetScheme, TruncatedPoisson
from otbound.engine.symbols import B, N, r
from otbound.numerics.derived import derived_setting
from otbound.numerics.mechanisms import AdditiveNoise
from otbound.numerics.one_step import branches_delta
from tests.cli_runs import run_cli
from tests.truncated_oracle import oracle_cases, truncation_probability

NAMES = ("002-thm-3.1", "002-thm-3.3", "002-thm-3.4")


def _add_remove():
    return load_derivation("002-thm-3.1")


def _with_branch(derivation, index: int, **changes):
    """The derivation with branch ``index`` of its one variant changed."""
    (variant,) = derivation.variants
    branches = list(variant.branches)
    branches[index] = replace(branches[index], **changes)
    return replace(derivation, variants=(replace(variant, branches=tuple(branches)),))


@pytest.mark.parametrize("name", NAMES)
def test_each_file_passes_the_engines_checks(name, derivation_report):
    report = derivation_report(name)
    assert report.passed, report.to_text()
    (variant,) = report.variants
    assert [b.branch.weight for b in variant.branches] == [1 - sp.Symbol("w", nonnegative=True),
                                                           sp.Symbol("w", nonnegative=True)]
    for branch in variant.branches:
        assert not branch.failures and branch.checked >= 20
        assert all(case.checked >= 9 and max(case.sizes) == 8 for case in branch.cases)


def test_the_add_remove_file_is_002_thm_3_1(derivation_report):
    assert derivation_report("002-thm-3.1").matches_published


def test_a_wrong_closed_form_of_the_branch_probability_is_caught():
    derivation = _add_remove()
    scheme = TruncatedPoisson(r, B)
    wrong = replace(derivation, definitions={**derivation.definitions,
                                             sp.Symbol("w", nonnegative=True):
                                             scheme.fill_probability(N + 1)})
    report = run(wrong)
    assert not report.passed
    (variant,) = report.variants
    assert any("its closed form w gives" in f for b in variant.branches for f in b.failures)


def test_a_wrong_rate_within_the_branch_is_caught():
    # the rate of sampling without replacement (B/N) is a plausible but wrong q̃
    derivation = _add_remove()
    (variant,) = derivation.variants
    truncated = variant.branches[1]
    wrong = _with_branch(derivation, 1, scheme=replace(truncated.scheme, inclusion=B / N))
    failures, _ = branch_failures(wrong, wrong.variants[0].branches[1])
    assert failures and all("P(A2)" in f or "P(E2)" in f or "P(E1)" in f or "P(A1)" in f
                            for f in failures)


class _PrivateLatent(TruncatedPoisson):
    """A latent that counts the special record too: not the same law on x and x'."""

    def branch_pmf(self, dataset):
        return {"a" in dataset: SetScheme.pmf(self, dataset), "a" not in dataset: {}}


def test_a_latent_that_is_not_public_is_caught():
    derivation = _add_remove()
    (variant,) = derivation.variants
    branch = variant.branches[0]
    private = replace(branch, scheme=GivenBranch(_PrivateLatent(r, B), False, "¬T", r))
    failures, _ = branch_failures(derivation, private)
    assert any("not a public latent" in f for f in failures)


def test_a_wrong_coupling_in_a_branch_is_caught():
    # no displacement on truncation: the batch would hold B + 1 records
    derivation = _add_remove()
    (variant,) = derivation.variants
    truncated = variant.branches[1]
    removal = truncated.cases[0]
    steps = (removal.coupling.steps[0], InsertInRandomOrder("A1", ("a",), ("A2",)))
    wrong = _with_branch(derivation, 1, cases=(
        replace(removal, coupling=replace(removal.coupling, steps=steps)), truncated.cases[1]))
    report = run(wrong)
    assert not report.valid
    assert report.variants[0].cases[0].bound is None


@pytest.mark.parametrize("size", [3, 10, 41])
def test_the_closed_form_of_q_equals_its_definition(size):
    # 002 Thm. 3.1: q̃ = p Σ_{s ≥ B} P[Binom(N − 1, p) = s] B / (s + 1) / w
    rate, cap = Fraction(3, 11), 2
    scheme = TruncatedPoisson(rate, cap)
    w = scheme.fill_probability(sp.Integer(size)).doit()
    direct = rate * sum(math.comb(size - 1, s) * rate ** s * (1 - rate) ** (size - 1 - s)
                        * Fraction(cap, s + 1) for s in range(cap, size)) / w
    assert scheme.inclusion_when_filled(sp.Integer(size)).doit() == direct


@pytest.mark.parametrize("size, cap", [(1, 1), (4, 2), (6, 3), (5, 9)])
def test_the_branches_add_up_to_the_schemes_pmf(size, cap):
    scheme = TruncatedPoisson(Fraction(2, 7), cap)
    dataset = frozenset(background(size - 1)) | {"a"}
    law = scheme.branch_pmf(dataset)
    total = {}
    for part in law.values():
        for batch, p in part.items():
            total[batch] = total.get(batch, 0) + p
    # against the scheme's closed-form pmf (002 Algorithm 1's batch probabilities)
    closed_form = SetScheme.pmf(scheme, dataset)
    assert {y: p for y, p in total.items() if p} == {y: p for y, p in closed_form.items() if p}
    assert scheme.pmf(dataset) == {y: p for y, p in closed_form.items() if p}


@pytest.mark.parametrize("name, distance, published", [("002-thm-3.3", 1, 3),
                                                         ("002-thm-3.4", 2, 4)])
def test_the_bound_is_tighter_than_002s_before_the_relaxation(name, distance, published,
                                                              derivation_report):
    # the coupling bounds d_Y(y_A2, y_E2) in the truncated branch by 1 (zero-out) and 2
    # (replace-one); without that constraint its closure is 002 Thm. 3.3's distance between
    # the displaced means (3), resp. Thm. 3.4's (4)
    (variant,) = derivation_report(name).variants
    _, (_, truncated) = variant.bound.cases[0].terms
    closed = truncated.constraints.closure()
    assert closed.bound("A2", "E2") == distance
    i, j = closed.labels.index("A2"), closed.labels.index("E2")
    rows = [list(row) for row in truncated.constraints.bounds]
    rows[i][j] = rows[j][i] = math.inf
    dropped = ConstraintMatrix(closed.labels, tuple(map(tuple, rows))).closure()
    assert dropped.bound("A2", "E2") == published


def truncated_step(setting: TruncatedPoissonSetting, mechanism, count: int) -> Step:
    return subsampled_step(setting.derived_setting(), mechanism, count)


def derived_cases(setting: TruncatedPoissonSetting, mechanism) -> list:
    return [list(case) for case in truncated_step(setting, mechanism, 1).cases]


DERIVED = list(Neighbouring)


SETTINGS = [(0.005, 256, 60000, 1.0), (0.001, 256, 60000, 0.7), (0.01, 3, 10, 0.8),
            (0.3, 2, 8, 2.0), (0.05, 55, 1000, 1.0), (0.5, 1000, 100, 1.0)]


@pytest.mark.parametrize("neighbouring", DERIVED)
@pytest.mark.parametrize("rate, cap, size, sigma", SETTINGS)
def test_the_derived_pairs_are_the_hand_written_ones(rate, cap, size, sigma, neighbouring):
    setting = TruncatedPoissonSetting(rate, cap, size, neighbouring)
    derived = derived_cases(setting, AdditiveNoise(sigma))
    expected = oracle_cases(setting, sigma)
    if neighbouring is Neighbouring.REPLACE_ONE:
        # substitution is symmetric: the file's one case covers both directions, and the
        # hand-written reversed case is the same pair mirrored
        assert len(derived) == 1 and len(expected) == 2
        expected = expected[:1]
    assert len(derived) == len(expected)
    for ours, theirs in zip(derived, expected):
        assert len(ours) == len(theirs)
        for (log_w, (pair,)), (log_v, (other,)) in zip(ours, theirs):
            # the hand-written pairs raised scipy's w by a relative 1e-12; the derived bound
            # takes w to 40 digits: the branch weights are lower by at most that
            assert log_v - 1.1e-12 <= log_w <= log_v
            for name in ("p_means", "q_means"):
                np.testing.assert_array_equal(getattr(pair, name) + 0.0, getattr(other, name))
            # the hand-written pairs also raised the rates p and q̃ by a relative 1e-12
            for name in ("p_log_weights", "q_log_weights"):
                # (zero-out: the two components that ⊥ makes coincide are merged, their
                # weights 1 − r and r added in floating point: log 1 within 1e-17)
                np.testing.assert_allclose(getattr(pair, name), getattr(other, name),
                                           rtol=1e-11, atol=1e-15)
    if truncation_probability(setting) < 1:
        (untruncated,) = derived[0][0][1]     # removal case, untruncated branch
        assert untruncated.p_log_weights[1] == pytest.approx(math.log(rate), rel=1e-15)


def _oracle_step(setting, sigma, count):
    cases = oracle_cases(setting, sigma)
    return Step(tuple(tuple(c) for c in cases), count, ("oracle",), {})


def _epsilons(setting, sigma, accountant):
    """ε by the derived step and by the hand-written one; the derived step without its
    Rényi-only cases (the hand-written one has none: see the next test)."""
    step = replace(truncated_step(setting, AdditiveNoise(sigma), 20), renyi_cases=None)
    ours = compose([step], accountant, delta=1e-5)
    theirs = compose([_oracle_step(setting, sigma, 20)], accountant, delta=1e-5)
    return ours.epsilon, theirs.epsilon


@pytest.mark.parametrize("neighbouring", DERIVED)
@pytest.mark.parametrize("rate, cap, size, sigma", SETTINGS[2:5])
def test_the_rdp_epsilons_are_unchanged(rate, cap, size, sigma, neighbouring):
    setting = TruncatedPoissonSetting(rate, cap, size, neighbouring)
    ours, theirs = _epsilons(setting, sigma, Accountant.RDP)
    assert ours == pytest.approx(theirs, rel=1e-9)


def test_replacement_is_sharpened_by_the_three_point_maximum():
    """Replace-one under truncated Poisson has 001 Thm. 3.6's three-point pattern in its
    untruncated branch: the RDP accountant certifies it at the best order (8.06 → 6.90)."""
    setting = TruncatedPoissonSetting(0.3, 2, 8, Neighbouring.REPLACE_ONE)
    step = truncated_step(setting, AdditiveNoise(2.0), 20)
    assert step.renyi_cases is not None
    sharpened = compose([step], Accountant.RDP, delta=1e-5)
    _, theirs = _epsilons(setting, 2.0, Accountant.RDP)
    assert "three-point" in sharpened.details["sharpened"]
    assert sharpened.epsilon < theirs - 1


@pytest.mark.slow
@pytest.mark.parametrize("neighbouring", DERIVED)
@pytest.mark.parametrize("rate, cap, size, sigma", SETTINGS[2:5])
def test_the_pld_epsilons_are_unchanged(rate, cap, size, sigma, neighbouring):
    setting = TruncatedPoissonSetting(rate, cap, size, neighbouring)
    ours, theirs = _epsilons(setting, sigma, Accountant.PLD)
    assert ours == pytest.approx(theirs, rel=1e-9)


@pytest.mark.parametrize("neighbouring", DERIVED)
def test_each_one_step_profile_is_at_most_the_hand_written_one(neighbouring):
    """At the README's setting the composed PLD epsilons (T = 1000, δ = 1e-6) differ from the
    hand-written pairs' by −1.6e-9 (add/remove), −2.5e-8 (zero-out) and +2.6e-9 (replace-one)
    relative. The rise is dp_accounting's composition noise, not the bound: the
    one-step profile the PLD is built from is below the hand-written one at every loss (the
    rates are no longer raised by 1e-12), and lowering the hand-written profile itself by a
    relative 1e-12 moves its composed epsilon by as much, either way (docs/accounting.md)."""
    setting = TruncatedPoissonSetting(0.004, 260, 60000, neighbouring)
    ours, theirs = truncated_step(setting, AdditiveNoise(1.0), 1).cases, \
        _oracle_step(setting, 1.0, 1).cases
    ranges = np.array([pair_loss_range(p) for case in ours for _, pairs in case for p in pairs])
    epsilons = np.linspace(ranges[:, 0].min(), ranges[:, 1].max(), 4001)

    def profile(cases):
        return np.max([branches_delta(case, epsilons, TOLERANCE).upper for case in cases], axis=0)

    derived, written = profile(ours), profile(theirs)
    assert np.all(derived <= written) and np.all(derived[written > 0] > 0)
    assert np.max(written - derived) > 0


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


def test_the_numbers_are_read_from_the_bundled_files(monkeypatch):
    """No pair is written in the accounting: pointing zero-out at the add/remove file makes
    zero-out account exactly as add/remove."""
    setting = {n: TruncatedPoissonSetting(0.3, 2, 8, n) for n in Neighbouring}
    add_remove = truncated_step(setting[Neighbouring.ADD_REMOVE], AdditiveNoise(1.0), 1).cases
    zero_out = truncated_step(setting[Neighbouring.ZERO_OUT], AdditiveNoise(1.0), 1).cases
    assert repr(zero_out) != repr(add_remove)   # MixturePair holds arrays: compare by value
    monkeypatch.setitem(truncated.DERIVATIONS, Neighbouring.ZERO_OUT, "002-thm-3.1")
    replaced = truncated_step(setting[Neighbouring.ZERO_OUT], AdditiveNoise(1.0), 1).cases
    assert repr(replaced) == repr(add_remove)


@pytest.mark.parametrize("n, p, k", [(7, Fraction(1, 3), 3), (10, Fraction(2, 5), 0),
                                     (10, Fraction(2, 5), 11), (300, Fraction(1, 250), 2),
                                     (12, Fraction(1), 12)])
def test_a_binomial_tail_evaluates_to_its_exact_sum(n, p, k):
    """The numbers' evaluation (an incomplete beta function) against the engine's (the sum
    added up exactly), to 50 digits."""
    tail = BinomialTail(sp.Integer(n), sp.Rational(p.numerator, p.denominator), sp.Integer(k))
    exact = tail.doit()
    assert exact.is_Rational and 0 <= exact <= 1
    assert abs(tail.evalf(60) - exact) <= sp.Float("1e-50") * max(exact, 1)


def test_a_setting_that_never_truncates_leaves_the_rate_given_t_undefined():
    """B ≥ N: w = 0 and q̃ = 0/0, which no term of positive probability needs."""
    setting = derived_setting(load_derivation("002-thm-3.1"), {"r": "0.05", "B": 50, "N": 50})
    assert setting.values["q_trunc"] is None and float(setting.values["w"]) == 0
    assert len(setting.cases()) == 2 and all(len(terms) == 1 for terms in setting.cases())
