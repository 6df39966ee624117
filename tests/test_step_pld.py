"""``step_pld``: a step handed to dp_accounting composes as tightly as ``account``.

Under insertion/removal of one element the step's two cases are dp_accounting's REMOVE and ADD
adjacencies, kept apart; merging them into one symmetric PLD (the largest profile) made a user's
703 steps at q = 256/60000, σ = 1.1 give ε = 0.601 where ``account`` gives 0.505. A group's cases
are kept apart the same way, one PLD per case and its reverse (``CasePLDs``): merged, a group of
2 at that setting gave 1.284 where ``compose`` gives 1.082.
"""

import pytest
from dp_accounting.pld import privacy_loss_distribution as peer_pld

import otbound
from otbound.accounting import case_plds, pld
from otbound.numerics.dense_pld import DensePLD

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


BELOW = 1e-8
"""How far ``step_pld``'s ε may fall below ``compose``'s. Both raise δ by the relative rounding
margin (``ROUNDING_RELATIVE = 1e-9``), in different places: ``step_pld`` in each step's profile
before dp_accounting composes it, ``compose`` in the δ it reads from the composition (with its
floor and FFT-noise allowance). A δ smaller by 1e-9 relative moves ε by 1e-9 / |d log δ / dε|,
below 1e-9 here; 1e-8 allows ten times that and is 2e7 times below the 0.2 by which merged
cases were looser. Measured, ``step_pld`` is above ``compose`` by 4e-9 to 9e-8."""
TRUNCATED = otbound.TruncatedPoissonSetting(0.004, 260, 60000)


def _epsilons(setting, sigma: float, steps: int, delta: float,
              discretisation: float) -> tuple[float, float]:
    """``(step_pld's, compose's)`` ε at ``delta`` of ``steps`` steps of Gaussian noise."""
    mechanism = otbound.gaussian(sigma)
    one = otbound.subsampled_step(setting, mechanism, 1)
    handed = otbound.step_pld(one, discretisation).self_compose(steps)
    accounted = otbound.compose([otbound.subsampled_step(setting, mechanism, steps)], "pld",
                                delta=delta, discretisation=discretisation).epsilon
    print(f"step_pld {handed.get_epsilon_for_delta(delta):.12f}, compose {accounted:.12f}")
    return handed.get_epsilon_for_delta(delta), accounted


@pytest.mark.parametrize("setting, sigma, steps, delta, discretisation, expected", [
    # docs/api.md: one PLD of the cases' largest profile gave 1.2842086 (19 % looser)
    (otbound.Subsampling("poisson", rate=RATE, group=2), SIGMA, STEPS, DELTA, 1e-4, 1.081657),
    (otbound.Subsampling("poisson", rate=0.01, group=3), 2.0, 100, 1e-6, 1e-3, 0.744370),
    (TRUNCATED.derived_setting(), 1.0, 200, 1e-6, 1e-3, 4.407027),
], ids=["group-of-2", "group-of-3", "truncated-poisson"])
def test_a_step_of_several_cases_self_composes_to_composes_epsilon(
        setting, sigma, steps, delta, discretisation, expected):
    handed, accounted = _epsilons(setting, sigma, steps, delta, discretisation)
    assert accounted == pytest.approx(expected, abs=1e-6)
    assert handed >= accounted - BELOW
    assert handed == pytest.approx(accounted, abs=1e-6)


def test_a_case_and_its_reverse_share_one_pld_whose_remove_has_more_removals():
    gaussian = otbound.gaussian(1.0)
    for group, expected in {1: ((0, 1),), 2: ((0, 2), (1,)), 3: ((0, 3), (1, 2))}.items():
        step = otbound.subsampled_step(otbound.Subsampling("poisson", rate=0.1, group=group),
                                       gaussian, 1)
        assert case_plds.case_groups(step) == expected
        shapes = step.relation[1]
        for remove, add in (held for held in expected if len(held) == 2):
            assert shapes[remove][1] > shapes[remove][0] and shapes[add] == shapes[remove][::-1]
    for setting in (otbound.Subsampling("poisson", rate=0.1, insertions=0, removals=1),
                    otbound.Subsampling("wor", batch_size=2, dataset_size=10),
                    TRUNCATED.derived_setting()):
        step = otbound.subsampled_step(setting, gaussian, 1)
        assert case_plds.case_groups(step) == tuple((i,) for i in range(len(step.cases)))


def test_each_pld_holds_its_cases_own_profiles_and_dominates_the_step():
    """Group of 2: the REMOVE is case (0, 2), the ADD case (2, 0), the symmetric PLD case
    (1, 1), each read back as the case's own PLD (raised by the 1e-9 margin); REMOVE and ADD
    differ at ε > 0, so a swap would be caught. Their largest δ is above the exact one-step
    bound."""
    setting = otbound.Subsampling("poisson", rate=0.05, group=2)
    step = otbound.subsampled_step(setting, otbound.gaussian(1.0), 1)
    ours = otbound.step_pld(step, discretisation=1e-3)
    own = [pld.case_pld(case, 1e-3) for case in step.cases]
    pair, alone = ours.plds
    epsilons = [0.0, 0.05, 0.2]
    exact = otbound.adp(setting, otbound.gaussian(1.0), "tight", epsilons)
    for epsilon, bound in zip(epsilons, exact):
        held = [pair.remove.get_delta_for_epsilon(epsilon),
                alone.get_delta_for_epsilon(epsilon), pair.added.get_delta_for_epsilon(epsilon)]
        for delta, case in zip(held, own):
            assert delta == pytest.approx(case.get_delta_for_epsilon(epsilon), rel=1e-6)
        assert epsilon == 0 or held[0] > held[2] * (1 + 1e-3)   # at ε = 0 both are the TV
        assert ours.get_delta_for_epsilon(epsilon) == max(held) >= bound.value
    assert ours.get_delta_for_epsilon(epsilons) == pytest.approx(   # dp_accounting's
        [ours.get_delta_for_epsilon(e) for e in epsilons], rel=1e-12)  # vectorised sums


def test_a_plain_dp_accounting_pld_is_composed_into_every_case():
    """Against otbound's own composition with Gaussian noise (σ = 10) on a query that changes by
    at most 3 between the group's datasets: Poisson sampling at rate 1, a shift of 3/σ in every
    case, which dp_accounting's symmetric Gaussian PLD of sensitivity 3 bounds in both
    orders."""
    setting, mechanism = otbound.Subsampling("poisson", rate=0.01, group=3), otbound.gaussian(2.0)
    noise = otbound.subsampled_step(otbound.Subsampling("poisson", rate=1.0, group=3),
                                    otbound.gaussian(10.0), 1)
    accounted = otbound.compose([otbound.subsampled_step(setting, mechanism, 100), noise], "pld",
                                delta=1e-6, discretisation=1e-3).epsilon
    ours = otbound.step_pld(otbound.subsampled_step(setting, mechanism, 1), 1e-3).self_compose(100)
    peer = peer_pld.from_gaussian_mechanism(10.0, sensitivity=3, value_discretization_interval=1e-3)
    composed = ours.compose(peer)
    print(f"step_pld with dp_accounting's Gaussian {composed.get_epsilon_for_delta(1e-6):.12f}, "
          f"compose {accounted:.12f}")
    assert composed.cases == ours.cases
    assert all(after.get_epsilon_for_delta(1e-6) > before.get_epsilon_for_delta(1e-6) + 0.1
               for after, before in zip(composed.plds, ours.plds))
    assert composed.get_epsilon_for_delta(1e-6) >= accounted - BELOW
    assert composed.get_epsilon_for_delta(1e-6) == pytest.approx(accounted, abs=1e-6)


def test_otbounds_own_pld_is_composed_into_every_case_as_dp_accountings_form_of_it():
    """A ``DensePLD`` (otbound's) composes into every case by otbound's composition, to the
    numbers dp_accounting gives for it handed over."""
    setting, mechanism = otbound.Subsampling("poisson", rate=0.01, group=2), otbound.gaussian(2.0)
    ours = otbound.step_pld(otbound.subsampled_step(setting, mechanism, 1), 1e-3).self_compose(10)
    noise = pld.case_pld(otbound.subsampled_step(otbound.Subsampling("poisson", rate=1.0),
                                                 otbound.gaussian(10.0), 1).cases[0], 1e-3)
    mine, theirs = ours.compose(noise), ours.compose(noise.to_dp_accounting())
    assert all(isinstance(held, DensePLD) for held in mine.plds)
    assert not any(isinstance(held, DensePLD) for held in theirs.plds)
    for delta in (1e-6, 1e-3):
        assert mine.get_epsilon_for_delta(delta) == pytest.approx(
            theirs.get_epsilon_for_delta(delta), rel=1e-13)


def test_steps_of_one_relation_compose_case_by_case():
    """Two phases of a group of 2 (rates 0.01 then 0.04): what ``compose`` gives for them."""
    mechanism = otbound.gaussian(2.0)
    phases = [otbound.subsampled_step(otbound.Subsampling("poisson", rate=rate, group=2),
                                      mechanism, 50) for rate in (0.01, 0.04)]
    accounted = otbound.compose(phases, "pld", delta=1e-6, discretisation=1e-3).epsilon
    first, second = (otbound.step_pld(phase, 1e-3) for phase in phases)
    handed = first.compose(second).get_epsilon_for_delta(1e-6)
    print(f"step_pld {handed:.12f}, compose {accounted:.12f}")
    assert handed >= accounted - BELOW and handed == pytest.approx(accounted, abs=1e-6)


def test_composition_across_relations_or_with_other_things_is_refused():
    mechanism = otbound.gaussian(2.0)
    two, three = (otbound.step_pld(otbound.subsampled_step(
        otbound.Subsampling("poisson", rate=0.01, group=group), mechanism, 1), 1e-3)
        for group in (2, 3))
    with pytest.raises(otbound.InvalidSpecification,
                       match=r"other holds the cases of another neighbouring relation") as error:
        two.compose(three)
    assert error.value.parameter == "other"
    with pytest.raises(otbound.InvalidSpecification, match="other must be a CasePLDs"):
        two.compose(0.5)
    for count in (0, 2.5, True):
        with pytest.raises(otbound.InvalidSpecification, match="count must be an integer"):
            two.self_compose(count)


def test_the_cases_delta_is_never_below_composes():
    """δ(ε) of the self-composed step against ``compose``'s δ. Each is dp_accounting's FFT
    composition, off the truth by up to its noise allowance (``pld.composition_noise``);
    ``compose`` adds its own and its floor (its resolution, ``pld.floor``) and the rounding
    margin to what it reads, ``step_pld`` reads dp_accounting's δ as it is. So ``step_pld``
    may be below ``compose`` by that resolution, the margin and its own noise allowance, no
    more (measured at ε = 1: 1.8e-14 below, of 2.5e-14 allowed)."""
    setting, mechanism = otbound.Subsampling("poisson", rate=0.01, group=3), otbound.gaussian(2.0)
    one = otbound.subsampled_step(setting, mechanism, 1)
    handed = otbound.step_pld(one, 1e-3).self_compose(100)
    many = otbound.subsampled_step(setting, mechanism, 100)
    resolution = pld.floor(pld.compose_plds([many], 1e-3))
    noise = max(pld.composition_noise(composed) for composed in handed.plds)
    for epsilon in (0.2, 0.5, 1.0):
        accounted = otbound.compose([many], "pld", epsilon=epsilon, discretisation=1e-3).delta
        delta = handed.get_delta_for_epsilon(epsilon)
        print(f"ε = {epsilon}: step_pld δ {delta:.12e}, compose {accounted:.12e}")
        assert delta >= accounted * (1 - pld.ROUNDING_RELATIVE) - resolution - noise
        assert delta == pytest.approx(accounted, rel=1e-6, abs=1e-13)


@pytest.mark.parametrize("steps", [2, 1000, 10 ** 6])
def test_the_composed_size_is_dp_accountings_own_bound(steps):
    """The refusal of a composition too large to hold uses the support the composition keeps,
    the one dp_accounting's keeps (``pld.common.compute_self_convolve_bounds``)."""
    from dp_accounting.pld import common

    one = pld.case_pld(otbound.subsampled_step(otbound.Subsampling("poisson", rate=0.1),
                                               otbound.gaussian(0.5), 1).cases[0], 1e-3)
    lower, upper = common.compute_self_convolve_bounds(one.remove.probabilities, steps,
                                                       pld.TRUNCATION)
    assert pld._composed_points(one, steps) == upper - lower + 1
    if steps <= 1000:
        assert one.self_compose(steps).remove.size == upper - lower + 1
