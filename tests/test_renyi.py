"""Ψ_α of dominating pairs: closed forms, quadrature, and agreement with independent oracles."""

import math
import time

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otbound.errors import InvalidSpecification
from otbound.numerics.families import FAMILIES, GAUSSIAN
from otbound.numerics.pairs import FinitePair
from otbound.numerics.renyi import log_expm1, log_psi, log_psi_curve
from otbound.numerics.renyi_integrand import log_phi
from otbound.verify import high_precision as reference
from quadrature_rows import ON_THE_LINE, pair, some

DP_SIGMAS = [0.5, 1.0, 2.0, 5.0]
DP_RATES = [0.001, 0.01, 0.1, 0.2]
DP_ORDERS = [2, 3, 4, 8, 16, 32, 64, 128, 256]


def epsilon_k1(sigma, rate, orders):
    """K = 1 Poisson subsampled Gaussian: the larger of the removal and insertion terms."""
    removal = pair(GAUSSIAN, sigma, 0, 1, rate)
    forward, backward = log_psi_curve(removal, orders), log_psi_curve(removal.swapped(), orders)
    return np.array([max(f.value, b.value) / (a - 1)
                     for f, b, a in zip(forward, backward, orders)])


@pytest.mark.parametrize("alpha", [1.0001, 1.5, 2.0, 7.3, 100.0, 9999.0])
@pytest.mark.parametrize("u", [-40.0, -2.0, -0.3, -1e-3, -1e-9, 1e-12, 1e-6, 0.01, 0.7, 3.0, 50.0])
def test_log_phi_matches_mpmath(alpha, u):
    with mp.workdps(60):
        a, x = mp.mpf(alpha), mp.mpf(u)
        exact = mp.log(mp.exp(a * x) - 1 - a * mp.expm1(x))
    assert abs(log_phi(alpha, np.array([u]))[0] - float(exact)) <= 1e-13 * max(1, abs(float(exact)))


def test_k1_gaussian_agrees_with_dp_accounting():
    from dp_accounting.rdp.rdp_privacy_accountant import \
        _compute_rdp_poisson_subsampled_gaussian as dp_accounting_rdp
    worst = 0.0
    for sigma in DP_SIGMAS:
        for rate in DP_RATES:
            ours = epsilon_k1(sigma, rate, DP_ORDERS)
            theirs = dp_accounting_rdp(rate, sigma, DP_ORDERS)
            worst = max(worst, float(np.max(np.abs(ours - theirs) / theirs)))
    assert worst <= 1e-9, worst


FRACTIONAL = [(sigma, rate, alpha) for sigma in DP_SIGMAS for rate in DP_RATES
              for alpha in (1.5, 2.5, 7.3)]


@pytest.mark.parametrize("sigma, rate, alpha", some(FRACTIONAL, 5))
def test_fractional_orders_agree_with_high_precision_quadrature(sigma, rate, alpha):
    removal = pair(GAUSSIAN, sigma, 0, 1, rate)
    exact = max(float(reference.precise_log_psi(removal, alpha)[0]),
                float(reference.precise_log_psi(removal.swapped(), alpha)[0])) / (alpha - 1)
    ours = epsilon_k1(sigma, rate, [alpha])[0]
    assert ours >= exact and (ours - exact) <= 1e-9 * exact


def test_dp_accounting_is_loose_at_fractional_orders():
    from dp_accounting.rdp.rdp_privacy_accountant import \
        _compute_rdp_poisson_subsampled_gaussian as dp_accounting_rdp
    ours = epsilon_k1(1.0, 0.01, [1.5])[0]
    theirs = dp_accounting_rdp(0.01, 1.0, [1.5])[0]
    assert theirs > ours * 1.03


CASES = [(family, scale, inserted, removed, rate, alpha)
         for family in ON_THE_LINE for scale in (0.5, 2.0) for inserted, removed in ((0, 3), (3, 0),
                                                                                (2, 1))
         for rate in (1e-3, 0.2) for alpha in (1.5, 7.3, 64.0)]


@pytest.mark.parametrize("family, scale, inserted, removed, rate, alpha", some(CASES, 4))
def test_group_pairs_agree_with_high_precision_quadrature(family, scale, inserted, removed,
                                                         rate, alpha):
    p = pair(family, scale, inserted, removed, rate)
    bound = log_psi(p, alpha)
    exact = float(reference.precise_log_psi(p, alpha)[0])
    assert bound.value >= exact
    assert bound.value - exact <= 1e-11 * abs(exact) + 1e-15


def test_finite_pairs_use_the_closed_form():
    p = FinitePair([0.75, 0.25], [0.25, 0.75])
    expected = math.log(0.75 ** 3 * 0.25 ** -2 + 0.25 ** 3 * 0.75 ** -2)
    assert 0 <= log_psi(p, 3).value - expected < 3e-14
    assert log_psi(FinitePair([0.5, 0.5], [1.0, 0.0]), 2).value == math.inf


def test_binomial_closed_form_and_quadrature_agree():
    removal = pair(GAUSSIAN, 1.3, 0, 1, 0.07)
    closed = log_psi(removal, 12.0).value
    integrated = log_psi(removal, 12.0 + 1e-9).value
    assert abs(closed - integrated) < 1e-6 * closed


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("family", list(FAMILIES.values()))
@pytest.mark.parametrize("rate, scale", [(1e-6, 0.3), (1e-6, 5.0), (0.2, 0.3), (0.5, 5.0)])
def test_large_groups_evaluate_without_overflow_or_warnings(family, rate, scale):
    orders = [1.0001, 1.5, 2, 10, 100.5, 1000, 10_000]
    for inserted, removed in ((0, 32), (32, 0), (16, 16)):
        values = [b.value for b in log_psi_curve(pair(family, scale, inserted, removed, rate),
                                                 orders)]
        assert all(math.isfinite(v) and v >= 0 for v in values)
        epsilons = np.array(values) / (np.array(orders) - 1)
        assert np.all(np.diff(epsilons) >= -1e-12 * epsilons[1:])


@settings(max_examples=40)
@given(family=st.sampled_from(list(FAMILIES.values())), scale=st.floats(0.3, 5.0),
       inserted=st.integers(0, 4), removed=st.integers(0, 4),
       rate=st.floats(1e-5, 0.6), orders=st.lists(st.floats(1.01, 1e4), min_size=2, max_size=5))
def test_epsilon_is_non_decreasing_in_alpha(family, scale, inserted, removed, rate, orders):
    orders = np.sort(np.array(orders))
    p = pair(family, scale, inserted, removed, rate)
    epsilons = np.array([b.value for b in log_psi_curve(p, orders)]) / (orders - 1)
    assert np.all(np.isfinite(epsilons))
    assert np.all(np.diff(epsilons) >= -1e-9 * np.abs(epsilons[1:]) - 1e-15)


@pytest.mark.parametrize("alpha", [1.0, 0.5, 10_001.0, float("nan"), float("inf")])
def test_orders_outside_range_are_refused(alpha):
    with pytest.raises(InvalidSpecification, match=r"^alpha \(the Rényi order\) must be"):
        log_psi(pair(GAUSSIAN, 1.0, 0, 1, 0.1), alpha)


@pytest.mark.parametrize("group, rate, sigma, alpha", [(2, 0.2, 1.0, 5), (4, 0.01, 0.5, 8),
                                                       (8, 0.2, 1.0, 16), (3, 1e-4, 3.0, 3)])
def test_forward_group_term_matches_the_multinomial_expansion(group, rate, sigma, alpha):
    # 001 App. G.5: a closed form independent of any quadrature.
    removal = pair(GAUSSIAN, sigma, 0, group, rate)
    exact = float(reference.multinomial_log_psi(removal, alpha))
    bound = log_psi(removal, float(alpha))
    assert bound.value >= exact and bound.value - exact <= 1e-11 * exact + 1e-16


def test_a_large_quadrature_error_is_carried_into_the_bound(monkeypatch):
    """No silent fallback: an imprecise integral widens the reported bound (issue 9)."""
    from otbound.numerics import quadrature, renyi
    from otbound.numerics.quadrature import LogIntegrals

    original = quadrature.integrate_exp

    def sloppy(*args, **kwargs):
        result = original(*args, **kwargs)
        return LogIntegrals(result.log_values, np.full(result.log_values.shape, 1e-3))

    monkeypatch.setattr(renyi, "integrate_exp", sloppy)
    p = pair(GAUSSIAN, 1.0, 2, 1, 0.1)
    bound = log_psi(p, 3.5)
    exact = float(reference.precise_log_psi(p, 3.5)[0])
    assert bound.error > 1e-4 * exact and bound.value - 2 * bound.error <= exact <= bound.value


# --- the fast Gaussian path: closed-form far peak, cells by branch and bound, shared nodes ----

APPENDIX_B = np.floor(np.logspace(math.log10(2), 4, 121))


def test_the_kronrod_rule_is_exact_to_degree_31_and_contains_the_gauss_rule():
    from otbound.numerics import quadrature
    nodes, weights = quadrature._NODES, quadrature._WEIGHTS
    for k in range(32):
        assert abs(weights @ nodes ** k - (k % 2 == 0) * 2 / (k + 1)) < 1e-15
    gauss_nodes, gauss_weights = np.polynomial.legendre.leggauss(10)
    assert np.allclose(nodes[quadrature._GAUSS], gauss_nodes, rtol=0, atol=1e-15)
    assert np.allclose(quadrature._GAUSS_WEIGHTS, gauss_weights, rtol=1e-15, atol=0)


def test_repeated_orders_give_the_same_values():
    p = pair(GAUSSIAN, 1.0, 2, 3, 0.1)
    repeated = log_psi_curve(p, [2.0, 7.3, 2.0, 1000.0, 7.3])
    once = log_psi_curve(p, [2.0, 7.3, 1000.0])
    assert repeated == [once[0], once[1], once[0], once[2], once[1]]


@pytest.mark.filterwarnings("error")
def test_a_node_where_the_loss_vanishes_exactly_costs_no_warning():
    # The Kronrod rule has a node at each panel's centre; for (1 − r) N(0) + r N(1) against N(0)
    # the privacy loss is exactly zero at z = 1/2, with a zero error bound.
    from otbound.numerics.renyi_integrand import _phi_sensitivity
    assert _phi_sensitivity(2.0, np.array([0.0, 0.0]), np.array([0.0, 1e-17]))[0] == 0.0
    removal = pair(GAUSSIAN, 1.0, 0, 1, 0.2)
    assert math.isfinite(log_psi(removal, 2.5).value)


FAR_PEAKS = [(1.0, 0, 32, 0.2, 1000.0), (1.0, 16, 16, 0.2, 10_000.0),
             (2.0, 31, 1, 0.01, 9999.5), (0.1, 0, 1, 1e-6, 7.3), (10.0, 2, 6, 0.5, 9999.5),
             (0.3, 1, 1, 0.9, 100.5)]


@pytest.mark.parametrize("sigma, inserted, removed, rate, alpha", FAR_PEAKS)
def test_the_closed_form_far_peak_is_an_upper_bound_close_to_the_rigorous_oracle(
        sigma, inserted, removed, rate, alpha):
    import oracle

    from otbound.numerics.renyi_gaussian_cells import _far_peak
    p = pair(GAUSSIAN, sigma, inserted, removed, rate)
    assert _far_peak(p, np.array([alpha])).used[0]
    bound = log_psi(p, alpha)
    exact = float(oracle.mixture_log_psi(
        oracle.poisson_group_pair(rate, inserted, removed, scale=sigma), alpha))
    assert bound.value >= exact and bound.value - exact <= 1e-12 * exact


def test_the_cells_of_each_order_are_disjoint_narrow_and_avoid_the_far_peak():
    from otbound.numerics.renyi_gaussian_cells import _far_peak, _gaussian_cells
    sigma, alphas = 1.0, np.array([1.0001, 1.5, 3.0, 40.0, 1000.0])
    p = pair(GAUSSIAN, sigma, 3, 5, 0.2)
    far = _far_peak(p, alphas)
    assert far.used[-1] and not far.used[0]
    edges, owner, left_out = _gaussian_cells(p, alphas, far)
    for order in range(alphas.size):
        cells = edges[owner == order]
        cells = cells[np.argsort(cells[:, 0])]
        assert cells.size or far.used[order]
        assert np.all(cells[1:, 0] >= cells[:-1, 1])
        assert np.all(cells[:, 1] - cells[:, 0] <= 2 * sigma * (1 + 1e-9))
        if far.used[order]:
            low, high = far.center[order] - 12 * sigma, far.center[order] + 12 * sigma
            assert np.all((cells[:, 1] <= low) | (cells[:, 0] >= high))
    # the bound on what the cells leave out is far below Ψ − 1
    values = np.array([b.value for b in log_psi_curve(p, alphas)])
    assert np.all(left_out < log_expm1(values) - 50)


# σ, r, (K₊, K₋), α: extremes of every parameter, and the App. B orders of the K = 32 curve
ORACLE_GRID = [(s, r, shape, a) for s, r, shape, a in [
    (0.1, 1e-6, (0, 32), 1.0001), (0.1, 0.2, (32, 0), 10_000.0), (0.1, 0.9, (16, 16), 2.5),
    (0.3, 1e-3, (1, 31), 7.3), (1.0, 0.2, (16, 16), 1.001), (1.0, 0.01, (31, 1), 33.3),
    (1.0, 1.0, (3, 5), 100.5), (2.0, 0.2, (0, 32), 3.0), (2.0, 1e-6, (8, 0), 9999.5),
    (10.0, 0.5, (4, 4), 256.0), (10.0, 0.2, (32, 0), 1.01), (1000.0, 0.01, (16, 16), 10_000.0),
    (1000.0, 1e-6, (1, 0), 1.5), (1.0, 0.2, (20, 12), 12.0), (2.0, 0.01, (5, 27), 22.0),
    (0.5, 0.5, (1, 7), 1000.0)]]


@pytest.mark.parametrize("sigma, rate, shape, alpha", some(ORACLE_GRID, 2))
def test_extreme_gaussian_pairs_are_upper_bounds_of_the_rigorous_oracle(sigma, rate, shape,
                                                                         alpha):
    import oracle
    inserted, removed = shape
    bound = log_psi(pair(GAUSSIAN, sigma, inserted, removed, rate), alpha)
    exact = float(oracle.mixture_log_psi(
        oracle.poisson_group_pair(rate, inserted, removed, scale=sigma), alpha))
    assert bound.value >= exact
    assert bound.value - exact <= 1e-10 * exact + 1e-300


def test_the_k32_group_curve_takes_well_under_a_second():
    # 121 orders, every shape K₊ + K₋ = 32 (it took tens of seconds before the fast path).
    start = time.perf_counter()
    for inserted in range(33):
        log_psi_curve(pair(GAUSSIAN, 1.0, inserted, 32 - inserted, 0.2), APPENDIX_B)
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize("alpha", [1.5, 2.0, 8.0, 100.0])
def test_an_outcome_impossible_under_p_has_an_exact_term(alpha):
    """``p_i = 0 < q_i``: the loss is −∞ and the term ``q_i φ_α(0) = q_i (α − 1)`` is exact;
    the value must be a finite upper bound on ``log Σ p_i^α q_i^{1−α}`` (it used to be refused
    with an infinite error estimate)."""
    p, q = [0.0, 0.3, 0.7], [0.2, 0.3, 0.5]
    with mp.workdps(40):
        exact = mp.log(sum(mp.mpf(a) ** alpha * mp.mpf(b) ** (1 - alpha)
                           for a, b in zip(p, q) if a > 0))
    (bound,) = log_psi_curve(FinitePair(np.array(p), np.array(q)), [alpha])
    assert bound.value >= exact and bound.value - bound.error <= exact * (1 + 1e-12)
    assert bound.error <= 1e-12 * abs(float(exact))
