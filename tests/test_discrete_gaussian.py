"""The discrete Gaussian family (issue 46 item 4), added through the family protocol alone:
its numbers against the verifier's independent reference (exact enumeration of the outputs,
theta-function normaliser, mpmath sums), the Gaussian's where they must agree (integer orders),
dp_accounting's PLD of the same mechanism, and the independent Monte Carlo; each check can
fail (a bound lowered by 3 % is caught)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from derivation_reports import by_derivation, report_for
from hypothesis import given
from hypothesis import strategies as st

import otbound
from otbound.errors import InvalidSpecification
from otbound.numerics.families import FAMILIES
from otbound.numerics.families.discrete_gaussian import DISCRETE_GAUSSIAN, log_normaliser
from otbound.numerics.pairs import MixturePair
from otbound.verify.noise_references import reference

LOWERED = 0.97
"""A bound multiplied by this must be caught by the check."""


def _poisson_pair(sigma: float, rate: float, removal: bool = True) -> MixturePair:
    """``((1 − r) N_Z(0) + r N_Z(1), N_Z(0))`` (removal) or its reverse (insertion)."""
    mixed = ([0.0, 1.0], [math.log1p(-rate), math.log(rate)])
    alone = ([0.0], [0.0])
    p, q = (mixed, alone) if removal else (alone, mixed)
    return MixturePair(DISCRETE_GAUSSIAN, sigma, *p, *q)


def test_the_family_is_registered_by_its_module_alone():
    assert "discrete-gaussian" in FAMILIES and "discrete_gaussian" in otbound.__all__
    assert len(otbound.__all__) <= 40
    assert otbound.discrete_gaussian(2.0).family is DISCRETE_GAUSSIAN
    assert reference("discrete-gaussian").name == "discrete-gaussian"


def test_only_unit_sensitivity_and_a_window_that_fits_are_taken():
    with pytest.raises(InvalidSpecification, match="sensitivity must be 1"):
        otbound.discrete_gaussian(2.0, sensitivity=2.0)
    with pytest.raises(InvalidSpecification, match="at most"):
        otbound.discrete_gaussian(2e4)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.5, 40.0])
def test_the_pmf_agrees_with_the_verifiers_theta_function(sigma):
    k = np.arange(-5.0, 6.0)
    ours = DISCRETE_GAUSSIAN.log_density(k, sigma)
    theirs = reference("discrete-gaussian").log_density(k, sigma)
    assert np.allclose(ours, theirs, rtol=1e-14, atol=1e-14)
    assert abs(log_normaliser(sigma) - math.log(sigma * math.sqrt(2 * math.pi))) < (
        1e-12 if sigma > 2 else 1.0)


@pytest.mark.parametrize("sigma", [0.7, 3.0])
def test_both_samplers_draw_the_pmf(sigma):
    rng = np.random.default_rng(11)
    k = np.arange(-8, 9)
    pmf = np.exp(reference("discrete-gaussian").log_density(k * 1.0, sigma))
    for draws in (DISCRETE_GAUSSIAN.sample(rng, 200_000, sigma),
                  reference("discrete-gaussian").draw(rng, 200_000, sigma)):
        assert np.all(draws == np.round(draws))
        observed = np.array([np.mean(draws == v) for v in k])
        assert np.max(np.abs(observed - pmf)) < 5e-3


@pytest.mark.parametrize("sigma, rate", [(0.8, 0.3), (2.0, 0.01), (5.0, 0.1)])
@pytest.mark.parametrize("removal", [True, False])
def test_the_bounds_are_the_exact_enumerated_divergences_never_below(sigma, rate, removal):
    """Against the verifier's mpmath sums over the integers: equal to 1e-9, never below, and
    a bound lowered by 3 % falls below the truth (the comparison can fail)."""
    pair, exact = _poisson_pair(sigma, rate, removal), reference("discrete-gaussian")
    from otbound.numerics.hockey_stick import hockey_stick_curve
    from otbound.numerics.renyi import log_psi_curve

    for alpha in (1.5, 2.0, 7.25, 32.0):
        (bound,) = log_psi_curve(pair, [alpha])
        truth = exact.log_psi(pair, alpha)
        assert bound.value >= truth and bound.value == pytest.approx(truth, rel=1e-9)
        assert LOWERED * bound.value < truth
    for epsilon in (-0.5, 0.0, 0.05, 0.5):
        (bound,) = hockey_stick_curve(pair, [epsilon])
        truth = exact.delta(pair, epsilon)
        assert bound.value >= truth and bound.value == pytest.approx(truth, rel=1e-9, abs=1e-300)
        assert truth == 0 or LOWERED * bound.value < truth


@pytest.mark.parametrize("sigma, rate", [(0.8, 0.3), (2.0, 0.01)])
def test_certified_enclosures_hold_the_exact_values_and_the_fast_bounds_are_above(sigma, rate):
    pair, exact = _poisson_pair(sigma, rate), reference("discrete-gaussian")
    for alpha in (2.0, 5.5):
        low, high = DISCRETE_GAUSSIAN.certified_log_psi(pair, alpha)
        truth = exact.log_psi(pair, alpha)
        assert low <= truth * (1 + 1e-12) and truth <= high * (1 + 1e-12)
        value, error = DISCRETE_GAUSSIAN.log_psi_values(pair, np.array([alpha]))
        assert value[0] + error[0] >= low
    for epsilon in (0.0, 0.3):
        low, high = DISCRETE_GAUSSIAN.certified_delta(pair, epsilon)
        truth = exact.delta(pair, epsilon)
        assert low <= truth * (1 + 1e-12) and truth <= high * (1 + 1e-12)


@given(sigma=st.floats(0.5, 8.0), rate=st.floats(1e-4, 0.5), order=st.integers(2, 64))
def test_at_integer_orders_the_subsampled_rdp_is_the_gaussians(sigma, rate, order):
    """``Ψ_α(N_Z(d) ‖ N_Z(0)) = e^{α(α−1)d²/2σ²}`` for integer ``αd`` (the normaliser is
    shift invariant), so 001 Prop. E.4's binomial expansion holds term by term: the Poisson
    subsampled discrete Gaussian's RDP equals the Gaussian's at integer orders (at other orders
    it can exceed it: σ = 0.5, r = 1e-4, α = 2.5 gives 6.964e-7 against 6.957e-7, which the
    verifier's sums confirm)."""
    setting = otbound.Subsampling("poisson", rate=rate)
    ours, = otbound.rdp(setting, otbound.discrete_gaussian(sigma), "tight", [order])
    theirs, = otbound.rdp(setting, otbound.gaussian(sigma), "tight", [order])
    assert ours.value == pytest.approx(theirs.value, rel=1e-9, abs=1e-300)


DP_ACCOUNTING_CASES = [(2.0, 0.01, 1000), (1.0, 0.05, 100), (5.0, 0.1, 200)]


@pytest.mark.parametrize("sigma, rate, steps", DP_ACCOUNTING_CASES)
def test_the_composed_epsilon_lies_between_dp_accountings_optimistic_and_pessimistic_plds(
        sigma, rate, steps):
    """dp_accounting 0.6.0 has no discrete Gaussian DpEvent; its PLD of the same mechanism
    (``from_discrete_gaussian_mechanism``, add and remove, noise truncated at 1e-30 mass) is
    an upper bound when pessimistic and a lower one when optimistic: otbound's ε lies between
    them."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    ends = [pld.from_discrete_gaussian_mechanism(
        sigma, sampling_prob=rate, pessimistic_estimate=pessimistic,
        value_discretization_interval=1e-4).self_compose(steps).get_epsilon_for_delta(1e-5)
        for pessimistic in (False, True)]
    found = otbound.account(otbound.Subsampling("poisson", rate=rate),
                            otbound.discrete_gaussian(sigma), steps, delta=1e-5,
                            accountant="pld").epsilon
    assert ends[0] <= found <= ends[1]


def test_one_steps_delta_lies_between_dp_accountings_plds():
    from dp_accounting.pld import privacy_loss_distribution as pld

    ends = [pld.from_discrete_gaussian_mechanism(
        1.5, sampling_prob=0.2, pessimistic_estimate=pessimistic,
        value_discretization_interval=1e-5).get_delta_for_epsilon(0.5)
        for pessimistic in (False, True)]
    found = max(b.value for b in otbound.adp(otbound.Subsampling("poisson", rate=0.2),
                                              otbound.discrete_gaussian(1.5), "tight", [0.5]))
    assert ends[0] <= found <= ends[1] and LOWERED * found < ends[0]


@pytest.mark.parametrize("derivation, variant, case", [
    ("001-prop-E.4", "K = 1", "removal"),
    ("001-thm-4.1", "K = 2", "removal"),
])
def test_the_independent_monte_carlo_is_consistent_and_refutes_a_lowered_bound(
        derivation, variant, case):
    from fractions import Fraction

    from otbound.engine.symbols import r
    from otbound.verify.independent_mc import CONSISTENT, VIOLATED, check_independent_mc, \
        case_instance

    instance = case_instance(report_for(derivation), variant, case,
                             {r: Fraction(1, 2)})
    mechanism = otbound.discrete_gaussian(1.0)
    row = check_independent_mc(instance, mechanism, 0.5, 200_000, np.random.default_rng(3))
    assert row.verdict == CONSISTENT
    lowered = check_independent_mc(instance, mechanism, 0.5, 200_000,
                                   np.random.default_rng(3), bound=0.9 * row.bound)
    assert lowered.verdict == VIOLATED


@pytest.mark.parametrize("derivation", by_derivation(["001-prop-E.4", "001-thm-4.1"]))
def test_the_verifier_finds_it_tight_and_sound_on_poisson_derivations(derivation):
    """By exact enumeration at N ≤ 4: the soundness search over integer Lipschitz functions,
    the published statements, and on every single-term instance the tightness of the worst
    case and the mutated bounds caught — K = 1 and groups of 2 (the collinear pattern, which no
    seed proves for the discrete Gaussian)."""
    from otbound.verify.mutations import check_mutations
    from otbound.verify.tightness import check_tightness
    from otbound.verify.verification import instances, verify_derivation

    mechanism = otbound.discrete_gaussian(1.0)
    report = verify_derivation(report_for(derivation), max_n=4, samples=60,
                               mechanisms=(mechanism,), mc_draws=20_000)
    assert report.passed, [f for f in report.findings if not f.passed]
    single = [instance for instance in instances(report_for(derivation), 4)
              if len(instance.terms) == 1]
    rows = [row for instance in single
            for row in check_tightness(instance, mechanism, [2.0, 8.0], [0.5])]
    rows += [row for instance in single if len(instance.terms[0].problem.left) > 2
             for row in check_mutations(instance, mechanism, 2.0, 0.5)]   # as the verifier
    assert rows and all(row.passed for row in rows), [r for r in rows if not r.passed]
    assert {row.verdict for row in rows} <= {"tight", "caught"}
    assert any(row.verdict == "tight" for row in rows)


def test_without_replacement_the_bound_is_sound_against_enumeration():
    """001-thm-F.3 (without replacement, insertion/removal): the bound against the exact
    divergences of random integer functions."""
    from otbound.engine.bundled import load_derivation
    from otbound.verify.verification import verify_derivation

    report = verify_derivation(load_derivation("001-thm-F.3"), max_n=4, samples=60,
                               mechanisms=(otbound.discrete_gaussian(1.0),), mc_draws=50_000)
    assert report.passed, [f for f in report.findings if not f.passed]


def test_the_command_line_takes_it(capsys):
    from cli_runs import run_cli

    code, out, err = run_cli(capsys, "rdp", "--scheme", "poisson", "--rate", "0.01",
                             "--mechanism", "discrete-gaussian", "--sigma", "2", "--alpha",
                             "4", "--json")
    assert code == 0 and '"mechanism": "discrete-gaussian"' in out, err
    code, out, err = run_cli(capsys, "rdp", "--scheme", "poisson", "--rate", "0.01",
                             "--mechanism", "discrete-gaussian", "--sigma", "2",
                             "--sensitivity", "2", "--alpha", "4")
    assert code == 2 and "sensitivity must be 1" in err
