"""Issue 42: Rényi divergences of random-allocation epochs — against an independent expansion,
exact enumeration of the real sampler, quadrature, and the lower pair; every comparison with
sign (the bound is never below the reference)."""

import itertools
import math

import mpmath as mp
import numpy as np
import pytest

import otbound
from otbound.errors import UnsupportedOperation
from otbound.numerics.allocation import Allocation, EpochPair
from otbound.numerics.allocation_renyi import MAX_EPOCH_ORDER
from otbound.numerics.ratio_laws import gaussian_law, ratio_law


def ours(mechanism, steps, selected, direction, alphas):
    pair = EpochPair(Allocation(steps, selected, ratio_law(mechanism)), direction)
    return np.array([bound.value for bound in pair.log_psi_curve(alphas)])


def compositions(total, parts):
    """Every ``(a_1 … a_parts)`` of non-negative integers summing to ``total``."""
    for cut in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1,) + cut + (total + parts - 1,)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


def multinomial_log_psi(log_moment, steps, alpha):
    """``log E_Q[(S/T)^α]`` by the multinomial expansion over the steps, in 40 digits: every
    composition of ``α`` weighted by its coefficient and the product of the moments."""
    with mp.workdps(40):
        total = mp.fsum(mp.factorial(alpha) / mp.fprod(mp.factorial(a) for a in parts)
                        * mp.fprod(mp.exp(log_moment(a)) for a in parts)
                        for parts in compositions(alpha, steps))
        return float(mp.log(total) - alpha * mp.log(steps))


@pytest.mark.parametrize("sigma", [0.7, 2.0])
@pytest.mark.parametrize("steps", [2, 3, 4])
def test_a_removal_is_the_multinomial_expansion_at_integer_orders(sigma, steps):
    """Gaussian moments ``E[L^j] = e^{j(j−1)/(2σ²)}``: the generating function's value is the
    expansion's, rounded up by at most 1e-12 relative."""
    alphas = [2, 3, 5, 8]
    found = ours(otbound.gaussian(sigma), steps, 1, "remove", alphas)
    for alpha, value in zip(alphas, found):
        exact = multinomial_log_psi(lambda j: j * (j - 1) / (2 * sigma ** 2), steps, alpha)
        assert exact <= value <= exact + 1e-12 * (1 + exact)


def test_a_laplace_removal_uses_the_moments_of_its_own_ratio():
    """Laplace ``b = 0.8``: moments by mpmath quadrature of the two densities, independent of
    the mechanism's Rényi code."""
    b = 0.8

    def log_moment(j):
        def integrand(z):
            return mp.exp(-(j * abs(z - 1) + (1 - j) * abs(z)) / b) / (2 * b)
        with mp.workdps(30):
            return float(mp.log(mp.quad(integrand, [-mp.inf, 0, 1, mp.inf])))

    alphas = [2, 4, 7]
    found = ours(otbound.laplace(b), 3, 1, "remove", alphas)
    for alpha, value in zip(alphas, found):
        exact = multinomial_log_psi(log_moment, 3, alpha)
        assert exact <= value <= exact + 1e-9 * (1 + exact)


def enumerated(theta, steps, selected, alpha):
    """``(log Ψ_α(P_k ‖ Q), log Ψ_α(Q ‖ P_k))`` of the real sampler with randomized response at
    every step: every output sequence and every allocation of the record, in 30 digits."""
    pair = otbound.randomized_response(theta).distance_pair(1)
    with mp.workdps(30):
        one, zero = [mp.mpf(float(x)) for x in pair.p], [mp.mpf(float(x)) for x in pair.q]
        subsets = list(itertools.combinations(range(steps), selected))
        removal = insertion = mp.mpf(0)
        for outputs in itertools.product(range(len(zero)), repeat=steps):
            q = mp.fprod(zero[y] for y in outputs)
            p = mp.fsum(mp.fprod(one[y] if t in chosen else zero[y]
                                 for t, y in enumerate(outputs)) for chosen in subsets)
            p /= len(subsets)
            removal += q * (p / q) ** alpha
            insertion += p * (q / p) ** alpha
        return float(mp.log(removal)), float(mp.log(insertion))


@pytest.mark.parametrize("theta, steps, selected", [(0.75, 6, 1), (0.9, 6, 2), (0.75, 7, 3),
                                                    (0.6, 5, 5)])
def test_both_directions_bound_the_enumerated_sampler(theta, steps, selected):
    """At integer and fractional orders (the chord between integers), ``k = 1`` and the
    hidden-partition bound of ``k > 1``; the removal of one of ``T`` is exact at integer orders,
    and so are both directions of ``k = T``."""
    alphas = [2, 3.5, 8, 20]
    removal = ours(otbound.randomized_response(theta), steps, selected, "remove", alphas)
    insertion = ours(otbound.randomized_response(theta), steps, selected, "add", alphas)
    for alpha, up_removal, up_insertion in zip(alphas, removal, insertion):
        exact_removal, exact_insertion = enumerated(theta, steps, selected, alpha)
        assert up_removal >= exact_removal
        assert up_insertion >= exact_insertion
        if float(alpha).is_integer() and selected == 1:
            assert up_removal <= exact_removal + 1e-12 * (1 + exact_removal)
        if float(alpha).is_integer() and selected == steps:   # the mechanism itself: exact
            assert up_insertion <= exact_insertion + 1e-12 * (1 + exact_insertion)


@pytest.mark.parametrize("sigma", [1.0, 2.0, 4.0])
def test_a_gaussian_insertion_is_within_its_grid_error_above_quadrature(sigma):
    """One of two steps: ``E_Q[((L₁ + L₂)/2)^{1−α}]`` by a 120-point Gauss–Hermite rule in each
    coordinate (an independent computation); ours is above it and within 1e-3 of it."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(120)
    weights = weights / math.sqrt(2 * math.pi)
    ratio = np.exp(nodes / sigma - 1 / (2 * sigma ** 2))
    mean = (ratio[:, None] + ratio[None, :]) / 2
    alphas = [2, 5, 10]
    found = ours(otbound.gaussian(sigma), 2, 1, "add", alphas)
    for alpha, value in zip(alphas, found):
        exact = math.log((weights[:, None] * weights[None, :] * mean ** (1 - alpha)).sum())
        assert exact <= value <= exact * (1 + 1e-3)


def test_large_epochs_lie_between_the_lower_pair_and_the_mechanism():
    """``T = 235``, σ = 1: each direction's ``ε(α)`` is at least that of the contracted sum (a
    pair the epoch's pair dominates) and at most one step's ``α/(2σ²)``; at α = 2 the two are
    within 1 %."""
    from otbound.choices import DEFAULT_DISCRETISATION
    from otbound.numerics.allocation import contracted_sum, grid_step

    law = ratio_law(otbound.gaussian(1.0))
    lower = contracted_sum(law, 235, grid_step(law, 235, DEFAULT_DISCRETISATION))
    mean, mass = lower.means() / 235, lower.mass
    keep = mean > 0
    alphas = np.array([2.0, 4.0, 8.0])
    for direction, power in (("remove", alphas), ("add", 1 - alphas)):
        found = ours(otbound.gaussian(1.0), 235, 1, direction, alphas)
        below = np.log([(mass[keep] * mean[keep] ** a).sum() for a in power])
        assert np.all(found >= below)
        assert np.all(found / (alphas - 1) <= alphas / 2)
        assert found[0] <= below[0] * 1.01


def test_the_accountants_compose_epochs_by_renyi_dp_too():
    """Ten epochs of balls-in-bins (N = 60000, b = 256, σ = 1, δ = 1e-5): the RDP accountant's
    ε lies above the PLD's (the conversion loses), and ``best`` reports the smaller with both
    compared."""
    setting = otbound.BallsInBins(256, 60000)
    rdp = otbound.account(setting, otbound.gaussian(1.0), 10, delta=1e-5, accountant="rdp")
    best = otbound.account(setting, otbound.gaussian(1.0), 10, delta=1e-5, accountant="best")
    assert rdp.accountant.value == "rdp"
    assert best.details["epsilon_lower"] <= best.epsilon < rdp.epsilon
    assert best.details["compared"]["rdp"]["epsilon"] == rdp.epsilon


def test_orders_beyond_the_series_are_refused_by_name():
    pair = EpochPair(Allocation(10, 1, ratio_law(otbound.gaussian(1.0))), "remove")
    with pytest.raises(UnsupportedOperation, match=f"orders up to {MAX_EPOCH_ORDER}"):
        pair.log_psi_curve([MAX_EPOCH_ORDER + 1.5])
    with pytest.raises(UnsupportedOperation, match="needs the one-step pair"):
        EpochPair(Allocation(10, 1, gaussian_law(1.0)), "add").log_psi_curve([2.0])
