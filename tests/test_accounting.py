"""Accounting over many steps: conversions, RDP and PLD composition, truncated Poisson (issue 5).

Peers: Google's dp_accounting (RDP and PLD accountants, truncated subsampled Gaussian event) and
mpmath evaluations of the Bernoulli pairs behind the optimal conversion.
"""

import itertools
import math
from collections import defaultdict

import dp_accounting
import mpmath as mp
import numpy as np
import pytest
from dp_accounting import NeighboringRelation
from dp_accounting.pld import privacy_loss_distribution as peer_pld
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from otbound.accounting import pld, rdp
from otbound.accounting.accountant import compose
from otbound.accounting.conversion import (balle_delta, balle_epsilon, lower_values,
                                           mironov_delta, mironov_epsilon, optimal_deltas,
                                           optimal_epsilons)
from otbound.accounting.steps import alternative_steps, subsampled_step
from otbound.accounting.truncated import TruncatedPoissonSetting, naive_epsilon
from otbound.choices import Accountant, Conversion, Method, Neighbouring
from otbound.errors import InvalidSpecification, Refusal, UnsupportedOperation
from otbound.numerics.hockey_stick import hockey_stick
from otbound.numerics.mechanisms import RandomizedResponse, gaussian, laplace
from otbound.numerics.one_step import branches_delta
from otbound.numerics.one_step import adp
from otbound.numerics.one_step import rdp as one_step_rdp
from otbound.numerics.families import GAUSSIAN, LAPLACE
from otbound.numerics.pairs import MixturePair
from otbound.numerics.settings import Subsampling
from otbound.verify.divergence import delta as exact_delta
from tests.truncated_oracle import branch_rate, branch_rate_direct, truncation_probability

POISSON = Subsampling("poisson", rate=0.01)


# --- conversions ------------------------------------------------------------------------------

ORDERS_AND_VALUES = st.lists(st.tuples(st.floats(1.05, 256), st.floats(1e-5, 20)),
                             min_size=1, max_size=25)


@pytest.mark.parametrize("sigma, delta", [(0.6, 1e-6), (1.09, 1e-6), (3.0, 1e-10)])
def test_the_pruned_search_over_orders_is_the_full_one(sigma, delta):
    """The optimal conversion runs only where an order's cheap lower bound is below Balle et
    al.'s best (orders near 1 included): same ε as converting at every order, and the lower
    bounds are below each order's optimum."""
    orders = rdp.DEFAULT_ORDERS
    rhos = 1000 * np.array([b.value for b in one_step_rdp(POISSON, gaussian(sigma), "tight",
                                                          orders)])
    full = [c.epsilon for c in optimal_epsilons(orders, rhos, delta)]
    everywhere = min(min(f, balle_epsilon(a, r, delta)) for f, a, r in zip(full, orders, rhos))
    curve = rdp.RdpCurve(orders, rhos)
    assert rdp.rdp_epsilon(curve, delta, Conversion.OPTIMAL).epsilon == everywhere
    lower = lower_values(orders, rhos, delta, solve_for_epsilon=True)
    assert np.all(lower <= np.array(full))
    assert np.sum(lower < min(full)) <= 2   # the bounds prune: near-1 orders included


@settings(max_examples=8)
@given(points=ORDERS_AND_VALUES, log_delta=st.floats(-25, -1), ratio=st.floats(0, 2))
def test_optimal_conversion_never_loses_to_balle_or_mironov(points, log_delta, ratio):
    """A grid of (α, ρ) per drawn δ (and ε = ratio · max ρ), vectorised over the grid.

    Per order the optimum may exceed the others only by its safety margin (it coincides with
    Balle et al. in places); the reported value, the best over orders and conversions, never
    does."""
    alphas, rhos = map(np.array, zip(*points))
    delta, epsilon = math.exp(log_delta), float(np.max(rhos)) * ratio
    for (alpha, rho), best in zip(points, optimal_epsilons(alphas, rhos, delta)):
        others = min(balle_epsilon(alpha, rho, delta), mironov_epsilon(alpha, rho, delta))
        assert best.epsilon <= others + 2e-9 * (1 + others)
    for (alpha, rho), best in zip(points, optimal_deltas(alphas, rhos, epsilon)):
        others = min(balle_delta(alpha, rho, epsilon), mironov_delta(alpha, rho, epsilon))
        # the margin 1e-9 and an error bound that grows with |log δ| (600 at δ = 1e-262)
        assert best.delta <= others * (1 + 4e-9) + 1e-300
    curve = rdp.RdpCurve(alphas, rhos)
    reported = rdp.rdp_epsilon(curve, delta, Conversion.OPTIMAL).epsilon
    # the optimal search runs only where a cheap lower bound says an order can win: the
    # result is the best over every order (within the searches' 1e-9 safety margin: a
    # search's stopping point depends on the orders searched with it)
    every = min(min(c.epsilon, balle_epsilon(c.order, rho, delta))
                for c, rho in zip(optimal_epsilons(alphas, rhos, delta), rhos))
    assert reported == pytest.approx(every, rel=1e-9)
    every = min(min(c.delta, balle_delta(c.order, rho, epsilon))
                for c, rho in zip(optimal_deltas(alphas, rhos, epsilon), rhos))
    assert rdp.rdp_delta(curve, epsilon, Conversion.OPTIMAL).delta == pytest.approx(every,
                                                                                   rel=1e-9)
    for conversion in (Conversion.BALLE2020, Conversion.MIRONOV):
        assert reported <= rdp.rdp_epsilon(curve, delta, conversion).epsilon
        assert (rdp.rdp_delta(curve, epsilon, Conversion.OPTIMAL).delta
                <= rdp.rdp_delta(curve, epsilon, conversion).delta)


def _bernoulli(alpha, p, q):
    """``Ψ_α(Bern p ‖ Bern q)`` in 50 digits."""
    with mp.workdps(50):
        p, q, alpha = mp.mpf(p), mp.mpf(q), mp.mpf(alpha)
        return p ** alpha * q ** (1 - alpha) + (1 - p) ** alpha * (1 - q) ** (1 - alpha)


@settings(max_examples=8)
@given(points=ORDERS_AND_VALUES, log_delta=st.floats(-20, -2))
def test_reported_pair_is_rdp_feasible_and_attains_the_guarantee(points, log_delta):
    """The Bernoulli pair behind each answer satisfies the RDP constraint and reaches the reported
    δ up to the stated accuracy: the answer is neither unsound nor loose."""
    delta = math.exp(log_delta)
    alphas, rhos = map(np.array, zip(*points))
    for (alpha, rho), converted in zip(points, optimal_epsilons(alphas, rhos, delta)):
        _check_attained(alpha, rho, delta, converted)


def _check_attained(alpha, rho, delta, converted):
    p, q = converted.bernoulli
    with mp.workdps(50):
        assert _bernoulli(alpha, p, q) <= mp.exp((alpha - 1) * mp.mpf(rho)) * (1 + mp.mpf(1e-12))
        reached = mp.mpf(p) - mp.exp(mp.mpf(converted.epsilon)) * mp.mpf(q)
        at_estimate = mp.mpf(p) - mp.exp(mp.mpf(converted.epsilon) - 2e-9 *
                                         (1 + converted.epsilon)) * mp.mpf(q)
    if converted.epsilon > 0:
        assert reached <= delta          # the reported (ε, δ) dominates the pair
        assert at_estimate >= delta * (1 - 1e-6)   # and the pair nearly attains it


def test_optimal_conversion_matches_a_high_precision_search():
    """ε*(δ) for one (α, ρ) by 50-digit bisection and golden section near the reported pair."""
    alpha, rho, delta = 8.0, 0.3, 1e-6
    ours = optimal_epsilons([alpha], [rho], delta)[0]
    with mp.workdps(50):
        a, budget, d = mp.mpf(alpha), mp.exp((alpha - 1) * mp.mpf(rho)), mp.mpf(delta)

        def objective(t):
            q = mp.exp(-t)
            lo, hi = q, mp.mpf(1)
            for _ in range(100):
                middle = (lo + hi) / 2
                lo, hi = (middle, hi) if _bernoulli(a, middle, q) <= budget else (lo, middle)
            return mp.log((lo - d) / q)

        t = -mp.log(mp.mpf(ours.bernoulli[1]))
        lo, hi, golden = t - mp.mpf(0.5), t + mp.mpf(0.5), (mp.sqrt(5) - 1) / 2
        for _ in range(50):
            c, e = hi - golden * (hi - lo), lo + golden * (hi - lo)
            lo, hi = (lo, e) if objective(c) >= objective(e) else (c, hi)
        exact = float(objective((lo + hi) / 2))
    assert 0 <= ours.epsilon - exact <= 3e-9 * (1 + exact)


# --- RDP accounting ---------------------------------------------------------------------------

def test_rdp_accountant_matches_dp_accounting():
    """Acceptance: σ = 1, r = 0.01, T = 1000, δ = 1e-6 with the same conversion."""
    curve = rdp.compose_rdp([subsampled_step(POISSON, gaussian(1.0), 1000)])
    ours = rdp.rdp_epsilon(curve, 1e-6, Conversion.BALLE2020).epsilon
    peer = dp_accounting.rdp.RdpAccountant(list(rdp.DEFAULT_ORDERS))
    peer.compose(dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.0)),
                 1000)
    assert ours == pytest.approx(peer.get_epsilon(1e-6), rel=1e-6)
    optimal = rdp.rdp_epsilon(curve, 1e-6, Conversion.OPTIMAL).epsilon
    mironov = rdp.rdp_epsilon(curve, 1e-6, Conversion.MIRONOV).epsilon
    assert optimal < ours < mironov


def test_step_curve_is_the_one_step_tight_rdp():
    setting, mechanism = Subsampling("poisson", rate=0.05, group=2), laplace(1.5)
    orders = np.array([1.5, 2.0, 7.0])
    curve = rdp.step_curve(subsampled_step(setting, mechanism, 1), orders)
    direct = [b.value for b in one_step_rdp(setting, mechanism, Method.TIGHT, orders)]
    assert np.allclose(curve.epsilons, direct, rtol=1e-12, atol=0)


def test_heterogeneous_rdp_composition_adds_curves():
    steps = [subsampled_step(POISSON, gaussian(1.0), 300), subsampled_step(
        Subsampling("poisson", rate=0.02), gaussian(2.0), 200)]
    total = rdp.compose_rdp(steps)
    parts = [rdp.step_curve(s) * s.count for s in steps]
    assert np.allclose(total.epsilons, parts[0].epsilons + parts[1].epsilons, rtol=1e-14)


# --- PLD accounting ---------------------------------------------------------------------------

def test_pld_matches_dp_accounting_for_the_poisson_gaussian():
    """Acceptance: agreement within the discretisation error (measured ~1e-5 at 1e-4)."""
    ours = pld.pld_epsilon(pld.compose_plds([subsampled_step(POISSON, gaussian(1.0), 1000)]),
                                 1e-6)
    peer = peer_pld.from_gaussian_mechanism(1.0, sampling_prob=0.01,
                                            value_discretization_interval=1e-4)
    assert ours == pytest.approx(peer.self_compose(1000).get_epsilon_for_delta(1e-6), abs=1e-5)


def test_pld_matches_dp_accounting_for_laplace():
    ours = pld.pld_epsilon(
        pld.compose_plds([subsampled_step(Subsampling("poisson", rate=0.05), laplace(2.0), 200)]), 1e-6)
    peer = peer_pld.from_laplace_mechanism(2.0, sampling_prob=0.05).self_compose(200)
    assert ours == pytest.approx(peer.get_epsilon_for_delta(1e-6), abs=1e-4)


def test_randomized_response_pld_against_exact_composition():
    """T-fold binary randomized response: the loss is a scaled binomial, so ε(δ) is exact. The
    peer rounds each step's loss to its grid (error up to T × 1e-4); ours stays within 2e-8 (with
    the allowance for the compositions' floating-point noise: 1.05e-8)."""
    theta, steps, delta = 0.8, 50, 1e-6
    ours = pld.pld_epsilon(pld.compose_plds([subsampled_step(
        Subsampling("poisson", rate=1.0), RandomizedResponse(theta), steps)]), delta)
    loss = math.log(theta / (1 - theta)) * (2 * np.arange(steps + 1) - steps)
    weights = stats.binom.pmf(np.arange(steps + 1), steps, theta)
    exact = float(mp.findroot(lambda e: sum(float(w) * max(0.0, 1 - math.exp(float(e) - l))
                                            for w, l in zip(weights, loss)) - delta,
                              (60.0, 69.3), solver="bisect"))
    assert 0 <= ours - exact <= 2e-8
    peer = peer_pld.from_randomized_response(2 * (1 - theta), 2).self_compose(steps)
    assert 0 <= peer.get_epsilon_for_delta(delta) - ours <= steps * 1e-4


@pytest.mark.parametrize("mechanism", [gaussian(0.8), laplace(1.0)], ids=["gaussian", "laplace"])
def test_one_step_pld_is_pessimistic(mechanism):
    """Before composition the PLD's δ(ε) is never below the exact profile of the pairs."""
    setting = Subsampling("poisson", rate=0.2, group=2)
    step = subsampled_step(setting, mechanism, 1)
    plds = pld.compose_plds([step], discretisation=1e-3)
    for epsilon in (0.0, 0.05, 0.4, 1.5, 3.0):
        exact = max(sum(math.exp(w) * hockey_stick(pairs[0], epsilon).value for w, pairs in case)
                    for case in step.cases)
        assert pld.pld_delta(plds, epsilon) >= exact * (1 - 1e-12)


def test_heterogeneous_pld_composition_and_relation_check():
    half = subsampled_step(POISSON, gaussian(1.0), 250)
    split = pld.pld_epsilon(pld.compose_plds([half, half], 1e-3), 1e-6)
    whole = pld.pld_epsilon(pld.compose_plds([subsampled_step(POISSON, gaussian(1.0), 500)],
                                              1e-3), 1e-6)
    assert split == pytest.approx(whole, abs=1e-8)   # FFT rounding only
    other = subsampled_step(Subsampling("poisson", rate=0.01, group=2), gaussian(1.0), 1)
    with pytest.raises(InvalidSpecification, match="one neighbouring relation"):
        pld.compose_plds([half, other])


def test_accountant_reports_either_direction_consistently():
    step = [subsampled_step(POISSON, gaussian(1.0), 100)]
    for accountant in Accountant:
        at_delta = compose(step, accountant, delta=1e-5)
        at_epsilon = compose(step, accountant, epsilon=at_delta.epsilon)
        assert at_epsilon.delta <= 1e-5 * (1 + 1e-3)
    with pytest.raises(InvalidSpecification, match="exactly one of delta and epsilon"):
        compose(step, Accountant.PLD)
    # no exact solver: the product coupling's pairs (mechanism-agnostic), said so
    fallback = subsampled_step(Subsampling("poisson", rate=0.1), _NoSolver(0.75), 1)
    assert fallback.setting["pairs"].startswith("mechanism-agnostic") and not fallback.tight


def test_a_group_composes_only_the_cases_that_can_be_the_worst():
    """The PLD accountant refines each case's bound (RDP, a coarse PLD, its PLD) worst first:
    the answer is the largest case's PLD, as when every case is composed, with fewer PLDs."""
    steps = [subsampled_step(Subsampling("poisson", rate=0.05, group=6), gaussian(1.5), 200)]
    searched = compose(steps, Accountant.PLD, delta=1e-6, discretisation=1e-3)
    each = [pld.compose_plds(steps, 1e-3, [case]) for case in range(7)]
    assert searched.epsilon == max(pld.pld_epsilon(one, 1e-6) for one in each)
    assert searched.details["cases composed"].startswith(("1 of 7", "2 of 7", "3 of 7"))
    at_epsilon = compose(steps, Accountant.PLD, epsilon=searched.epsilon, discretisation=1e-3)
    assert at_epsilon.delta == pytest.approx(1e-6, rel=1e-3) and at_epsilon.delta <= 1.001e-6
    assert at_epsilon.delta == max(pld.pld_delta(one, searched.epsilon) for one in each)


def test_best_coarsens_only_a_pld_too_large_to_build_quickly():
    """``best`` bounds the time of a case's PLD by discretising it coarser (and says so); the
    PLD accountant asked for by name keeps the discretisation it was given."""
    steps = [subsampled_step(Subsampling("poisson", rate=0.01, group=64), gaussian(1.0), 10)]
    best = compose(steps, Accountant.BEST, delta=1e-6)
    assert best.accountant is Accountant.PLD and best.details["discretisation"] > 1e-4
    assert best.details["coarsened from"].startswith("0.0001")
    assert best.epsilon < best.details["compared"]["rdp"]["epsilon"]
    small = [subsampled_step(POISSON, gaussian(1.0), 10)]
    assert "coarsened from" not in compose(small, Accountant.BEST, delta=1e-6).details


def test_one_step_is_accounted_by_its_profile_itself():
    """A one-step PLD only discretises the profile: one step is read off the profile (δ at ε
    exactly, ε at δ the smallest point of a fine search where the profile is at most δ)."""
    setting, mechanism = Subsampling("poisson", rate=0.2, group=2), gaussian(1.0)
    step = [subsampled_step(setting, mechanism, 1)]
    (exact,) = adp(setting, mechanism, Method.TIGHT, [1.0])
    at_epsilon = compose(step, Accountant.PLD, epsilon=1.0)
    assert at_epsilon.delta == exact.value and "profile" in at_epsilon.details
    found = compose(step, Accountant.PLD, delta=exact.value).epsilon
    assert found == pytest.approx(1.0, rel=1e-9)
    (above,) = adp(setting, mechanism, Method.TIGHT, [found])
    (below,) = adp(setting, mechanism, Method.TIGHT, [found * (1 - 1e-9)])
    assert above.value <= exact.value < below.value
    assert compose(step, Accountant.PLD, delta=0.999).epsilon == 0.0


class _NoSolver(RandomizedResponse):
    """A mechanism whose solver refuses every problem (and says so when asked)."""

    def cannot_solve(self, problem, quantity=None):
        return Refusal("no solver")

    def worst_components(self, problem):
        raise UnsupportedOperation("no solver")


def test_substitution_without_an_exact_solver_has_relaxed_and_prop_e5_pairs():
    """Gaussian under substitution: the relaxed pattern's pairs, said so, and 001 Prop. E.5's
    labelled mixture: one substituted element is sampled with probability q/N = 0.2, so
    δ(ε) = 0.2 δ_{N(1)‖N(0)}(ε)."""
    setting = Subsampling("wor", batch_size=2, dataset_size=10)
    assert subsampled_step(setting, gaussian(1.0), 1).setting["pairs"].startswith("relaxed")
    (step,) = alternative_steps(setting, gaussian(1.0), 1).values()
    assert "Prop. E.5" in step.setting["pairs"]
    delta = compose([step], Accountant.PLD, epsilon=0.5).delta
    single = hockey_stick(MixturePair(GAUSSIAN, 1.0, [1.0], [0.0], [0.0], [0.0]), 0.5)
    assert 0.2 * single.value <= delta <= 0.2 * single.value * (1 + 1e-3)


# --- truncated Poisson (seed 002) ---------------------------------------------------------------

@pytest.mark.parametrize("n, p, b", [(100, 0.1, 8), (1000, 0.05, 55), (60000, 0.004, 260),
                                     (50, 0.9, 40), (10, 0.5, 1)])
def test_branch_rate_closed_form_equals_the_direct_sum(n, p, b):
    sampling = TruncatedPoissonSetting(p, b, n)
    assert branch_rate(sampling) == pytest.approx(branch_rate_direct(sampling), rel=1e-12)
    with mp.workdps(60):   # scipy's tails (for the naive bound) are within 1e-12 of them
        values = sampling.derived_setting().values   # the values the bound is evaluated at
        w, q = mp.mpf(values["w"]), mp.mpf(values["q_trunc"])
        assert abs(truncation_probability(sampling) - w) <= 1e-12 * w
        assert abs(branch_rate_direct(sampling) - q) <= 1e-12 * q
        direct = mp.fsum(mp.binomial(n - 1, s) * mp.mpf(repr(p)) ** s
                         * (1 - mp.mpf(repr(p))) ** (n - 1 - s) for s in range(b, n))
        assert abs(w - direct) <= mp.mpf(10) ** -38 * direct


def truncated_step(sampling: TruncatedPoissonSetting, mechanism, count: int):
    return subsampled_step(sampling.derived_setting(), mechanism, count)


def _epsilon(step, delta=1e-6, discretisation=1e-3):
    return pld.pld_epsilon(pld.compose_plds([step], discretisation), delta)


def test_no_truncation_is_plain_poisson():
    sampling = TruncatedPoissonSetting(0.05, 200, 200)          # B = n: never truncates
    assert truncation_probability(sampling) == 0
    truncated = _epsilon(truncated_step(sampling, gaussian(1.0), 100))
    plain = _epsilon(subsampled_step(Subsampling("poisson", rate=0.05), gaussian(1.0), 100))
    assert truncated == pytest.approx(plain, rel=1e-9)


def test_always_truncating_is_fixed_batch_with_doubled_sensitivity():
    """p = 1, B < n: a batch of B of n records, i.e. Poisson at rate B/n with sensitivity 2."""
    n, b = 500, 20
    sampling = TruncatedPoissonSetting(1.0, b, n)
    assert branch_rate(sampling) == pytest.approx(b / n, rel=1e-15)
    truncated = _epsilon(truncated_step(sampling, gaussian(3.0), 100))
    fixed = _epsilon(subsampled_step(Subsampling("poisson", rate=b / n),
                                     gaussian(3.0, sensitivity=2.0), 100))
    assert truncated == pytest.approx(fixed, rel=1e-9)


def test_truncated_poisson_against_dp_accounting():
    """Replace-one: the same pairs as dp_accounting's event; add/remove: 002 Thm. 3.1 is tighter
    than dp_accounting, which uses the replace-one pair for the truncated branch."""
    n, p, b, sigma, steps = 1000, 0.05, 55, 1.0, 100
    for neighbouring, relation in ((Neighbouring.REPLACE_ONE, NeighboringRelation.REPLACE_ONE),
                                   (Neighbouring.ADD_REMOVE,
                                    NeighboringRelation.ADD_OR_REMOVE_ONE)):
        ours = _epsilon(truncated_step(TruncatedPoissonSetting(p, b, n, neighbouring), gaussian(sigma),
                                       steps), discretisation=1e-4)
        peer = peer_pld.from_truncated_subsampled_gaussian_mechanism(
            n, p, b, sigma, neighboring_relation=relation).self_compose(steps)
        peer_epsilon = peer.get_epsilon_for_delta(1e-6)
        if neighbouring is Neighbouring.REPLACE_ONE:
            assert ours == pytest.approx(peer_epsilon, abs=1e-5)
        else:
            assert ours < peer_epsilon - 1e-3


def test_truncation_beats_the_naive_bound():
    n, p, b, steps = 1000, 0.05, 65, 100
    sampling = TruncatedPoissonSetting(p, b, n)
    ours = _epsilon(truncated_step(sampling, gaussian(1.0), steps))
    poisson = pld.compose_plds([subsampled_step(Subsampling("poisson", rate=p), gaussian(1.0),
                                           steps)], 1e-3)
    overflow = steps * sampling.overflow_probability()
    assert overflow == pytest.approx(steps * stats.binom.sf(b, n, p))
    naive = naive_epsilon(lambda e: pld.pld_delta(poisson, e), 1e-5, overflow)
    assert ours < naive


def _truncated_output(values, rate: float, max_batch: int, sigma: float):
    """The exact output distribution of a truncated-Poisson sum query plus Gaussian noise on
    scalar records: every Poisson draw, then every size-B subset of an overfull draw."""
    mass = defaultdict(float)
    for size in range(len(values) + 1):
        for drawn in itertools.combinations(range(len(values)), size):
            probability = rate ** size * (1 - rate) ** (len(values) - size)
            kept = (list(itertools.combinations(drawn, max_batch)) if size > max_batch
                    else [drawn])
            for batch in kept:
                mass[sum(values[i] for i in batch)] += probability / len(kept)
    means = sorted(mass)
    return means, [math.log(mass[m]) for m in means]


def _exact_pair(first, second, rate, max_batch, sigma, family=GAUSSIAN):
    return MixturePair(family, sigma, *_truncated_output(first, rate, max_batch, sigma),
                       *_truncated_output(second, rate, max_batch, sigma))


_NEIGHBOUR = {Neighbouring.ADD_REMOVE: lambda others: others,
              Neighbouring.ZERO_OUT: lambda others: others + [0.0],
              Neighbouring.REPLACE_ONE: lambda others: others + [-1.0]}


@pytest.mark.parametrize("neighbouring", list(Neighbouring))
@pytest.mark.parametrize("family", [GAUSSIAN, LAPLACE], ids=lambda f: f.name)
def test_truncated_pairs_dominate_exact_enumeration(neighbouring, family):
    """002 Thm. 3.1/3.3/3.4 against the exact output distributions of the truncated-Poisson sum
    query (n = 7, p = 0.5, B = 3: truncation is frequent) on records in [−1, 1], both
    directions: never below the truth, and close to it where the others oppose the target.
    Laplace noise goes through the same derived bound and solver registry."""
    n, rate, max_batch, sigma = 7, 0.5, 3, 1.0
    mechanism = gaussian(sigma) if family is GAUSSIAN else laplace(sigma)
    cases = truncated_step(TruncatedPoissonSetting(rate, max_batch, n, neighbouring),
                           mechanism, 1).cases
    rng = np.random.default_rng(5)
    datasets = [[value] * (n - 1) for value in (-1.0, 0.0, 1.0)]
    datasets += [list(rng.uniform(-1, 1, n - 1)) for _ in range(2)]
    for epsilon in (0.0, 0.5, 1.5):
        bound = max(branches_delta(case, np.array([epsilon])).upper[0] for case in cases)
        for others in datasets:
            neighbour = _NEIGHBOUR[neighbouring](others)
            exact = max(exact_delta(_exact_pair(others + [1.0], neighbour, rate, max_batch,
                                                sigma, family), epsilon),
                        exact_delta(_exact_pair(neighbour, others + [1.0], rate, max_batch,
                                                sigma, family), epsilon))
            assert exact <= bound * (1 + 1e-9), (others, epsilon)
            if family is GAUSSIAN and epsilon == 0.0 and others[0] == -1.0:
                assert exact >= 0.5 * bound


@pytest.mark.parametrize("arguments, message", [
    ((1.5, 10, 100), "^rate must be in"), ((0.1, 0, 100), "^max_batch must be an integer"),
    ((0.1, 10, 0), "^dataset_size must be an integer"), ((0.1, 2.5, 10), "^max_batch")])
def test_truncated_poisson_rejects_bad_input(arguments, message):
    with pytest.raises(InvalidSpecification, match=message):
        TruncatedPoissonSetting(*arguments)


WOR_SMALL = Subsampling("wor", batch_size=5, dataset_size=50, substitutions=1)


def test_the_rdp_accountant_sharpens_without_replacement_by_a_certified_three_point_maximum():
    """Issue 26: at the best order the RDP accountant replaces the relaxed pairs' curve by 001
    Thm. 3.6's certified maximum — the certificate's upper end, times the step count: the
    answer is that conversion exactly, above the one from the certificate's lower end, and
    below the relaxed pairs' answer (1.64 → 1.43 here)."""
    from dataclasses import replace

    from otbound.numerics import three_point

    step = subsampled_step(WOR_SMALL, gaussian(1.0), 3)
    (((_, (maximum,)),),) = step.renyi_cases
    sharpened = compose([step], "rdp", delta=1e-3)
    relaxed = compose([replace(step, renyi_cases=None)], "rdp", delta=1e-3)
    order = sharpened.details["order"]
    certificate = three_point.cached_certificate(maximum.w, math.ceil(order), maximum.sigma)
    low, high = certificate.epsilon

    def converted(rho: float) -> float:
        return rdp.rdp_epsilon(rdp.RdpCurve([order], [rho]), 1e-3, Conversion.OPTIMAL).epsilon

    assert sharpened.epsilon == pytest.approx(converted(3 * high), rel=1e-12)
    assert converted(3 * low) < sharpened.epsilon < relaxed.epsilon - 0.1
    assert "three-point maximum, certified" in sharpened.details["sharpened"]
    assert "sharpened" not in relaxed.details


def test_best_skips_certificates_that_cannot_beat_the_pld_accountant():
    """Under ``best`` the PLD accountant runs first; the certificates' estimates show that no
    sharpened RDP answer gets below its ε here, so none is computed."""
    from otbound.numerics import three_point

    three_point._CERTIFICATES.clear()
    best = compose([subsampled_step(WOR_SMALL, gaussian(1.0), 3)], "best", delta=1e-3)
    assert best.accountant is Accountant.PLD
    assert best.details["compared"]["rdp"]["epsilon"] > best.epsilon
    assert not three_point._CERTIFICATES
