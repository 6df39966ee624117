"""``step_pld``: a step handed to dp_accounting composes as tightly as ``account``.

Under insertion/removal of one element the step's two cases are dp_accounting's REMOVE and ADD
adjacencies, kept apart; merging them into one symmetric PLD (the largest profile) made a user's
703 steps at q = 256/60000, σ = 1.1 give ε = 0.601 where ``account`` gives 0.505.
"""

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as peer_pld

import otbound
from otbound.accounting import pld

RATE, SIGMA, STEPS, DELTA = 256 / 60000, 1.1, 703, 1e-5


def test_self_composed_step_pld_gives_the_accountants_epsilon():
    setting = otbound.Subsampling("poisson", rate=RATE)
    mechanism = otbound.gaussian(SIGMA)
    accounted = otbound.compose([otbound.subsampled_step(setting, mechanism, STEPS)], "pld",
                                delta=DELTA).epsilon
    composed = otbound.step_pld(otbound.subsampled_step(setting, mechanism, 1)).self_compose(
        STEPS).get_epsilon_for_delta(DELTA)
    assert accounted == pytest.approx(0.504714, abs=1e-6)
    assert composed == pytest.approx(accounted, abs=1e-6)   # the rounding margins differ


def test_removal_and_insertion_are_dp_accountings_remove_and_add():
    """Against dp_accounting's own subsampled Gaussian (REMOVE: ``mu_upper`` has the extra
    record): each adjacency's δ(ε) agrees, and the two differ, so a swap would be caught."""
    step = otbound.subsampled_step(otbound.Subsampling("poisson", rate=0.05),
                                   otbound.gaussian(1.0), 1)
    ours = otbound.step_pld(step, discretisation=1e-3)
    peer = peer_pld.from_gaussian_mechanism(1.0, sampling_prob=0.05,
                                            value_discretization_interval=1e-3)
    for epsilon in (0.02, 0.05):
        remove, add = (ours._pmf_remove.get_delta_for_epsilon(epsilon),
                       ours._pmf_add.get_delta_for_epsilon(epsilon))
        assert remove > add + 1e-3
        assert remove == pytest.approx(peer._pmf_remove.get_delta_for_epsilon(epsilon), rel=1e-6)
        assert add == pytest.approx(peer._pmf_add.get_delta_for_epsilon(epsilon), rel=1e-6)


def test_adjacency_cases_only_for_one_inserted_or_removed_element():
    gaussian = otbound.gaussian(1.0)
    one = otbound.subsampled_step(otbound.Subsampling("poisson", rate=0.1), gaussian, 1)
    assert pld.adjacency_cases(one) == (0, 1)
    for setting in (otbound.Subsampling("poisson", rate=0.1, group=2),
                    otbound.Subsampling("poisson", rate=0.1, insertions=0, removals=1),
                    otbound.Subsampling("wor", batch_size=2, dataset_size=10)):
        step = otbound.subsampled_step(setting, otbound.randomized_response(0.75), 1)
        assert pld.adjacency_cases(step) is None


def test_a_group_step_is_one_symmetric_pld_of_the_largest_profile():
    """With more cases than dp_accounting has adjacencies, the step is the largest profile:
    sound, and never below the accountant, which keeps the cases apart."""
    setting = otbound.Subsampling("poisson", rate=0.01, group=2)
    step = otbound.subsampled_step(setting, otbound.gaussian(2.0), 1)
    ours = otbound.step_pld(step, discretisation=1e-3)
    epsilons = np.array([0.0, 0.05, 0.2])
    exact = otbound.adp(setting, otbound.gaussian(2.0), "tight", list(epsilons))
    for epsilon, bound in zip(epsilons, exact):
        assert ours.get_delta_for_epsilon(epsilon) >= bound.value
    many = otbound.subsampled_step(setting, otbound.gaussian(2.0), 100)
    accounted = otbound.compose([many], "pld", delta=1e-6, discretisation=1e-3).epsilon
    assert ours.self_compose(100).get_epsilon_for_delta(1e-6) >= accounted


@pytest.mark.parametrize("steps", [2, 1000, 10 ** 6])
def test_the_composed_size_is_dp_accountings_own_bound(steps):
    """The refusal of a composition too large to hold uses the support dp_accounting keeps."""
    from dp_accounting.pld import common

    one = pld.case_pld(otbound.subsampled_step(otbound.Subsampling("poisson", rate=0.1),
                                               otbound.gaussian(0.5), 1).cases[0], 1e-3)
    lower, upper = common.compute_self_convolve_bounds(one._pmf_remove.to_dense_pmf()._probs,
                                                       steps, pld.TRUNCATION)
    assert pld._composed_points(one, steps) == upper - lower + 1
