"""dp_accounting's events through otbound's accountant (issue 44): every event it reads, alone
and nested in compositions, against dp_accounting's own PLDs — pessimistic above, optimistic
below — or tighter where otbound's pair is the exact worst case (said per case); refusals that
name the event and why; otbound's extras (groups, its own settings) as options."""

import math

import pytest
from dp_accounting import dp_event as E
from dp_accounting.pld import privacy_loss_distribution as peer_pld
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
from dp_accounting.privacy_accountant import NeighboringRelation as R, UnsupportedEventError
from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

import otbound
from otbound.accounting.dp_events import DpEventAccountant, OtboundStepEvent

DELTA = 1e-5
GRID = 1e-3
"""Both accountants' discretisation (dp_accounting's PLDs of a mixture of Gaussians take
seconds at 1e-3, minutes at 1e-4)."""
MARGIN = 1e-8
"""Relative slack below dp_accounting's optimistic value: otbound's grid is the same, but its
connect-the-dots pmf is built from its own profile evaluations (1e-6 relative tolerance,
rounded up) and the optimistic pmf rounds down; below this is a real disagreement."""
BELOW = 1e-7
"""otbound raises every step's profile by its rounding margin (1e-9 relative,
``pld.ROUNDING_RELATIVE``) and rounds its evaluations up by their error, which dp_accounting does
not: so otbound's ε at δ is compared with dp_accounting's pessimistic ε at ``δ (1 − BELOW)``
(measured: otbound's ε is at most 9e-11 relative above dp_accounting's at δ itself). A looser
bound than that is a real difference."""


def optimistic(event, relation: R):
    """dp_accounting's optimistic PLD of ``event`` (a lower end for the true ε), built from
    its mechanism constructors with ``pessimistic_estimate=False``."""
    if isinstance(event, E.SelfComposedDpEvent):
        return optimistic(event.event, relation).self_compose(event.count)
    if isinstance(event, E.ComposedDpEvent):
        found = peer_pld.identity(GRID, pessimistic_estimate=False)
        for part in event.events:
            found = found.compose(optimistic(part, relation))
        return found
    common = {"pessimistic_estimate": False, "value_discretization_interval": GRID}
    if isinstance(event, E.NoOpDpEvent):
        return peer_pld.identity(GRID, pessimistic_estimate=False)
    if isinstance(event, E.GaussianDpEvent):
        return peer_pld.from_gaussian_mechanism(event.noise_multiplier,
                                                neighboring_relation=relation, **common)
    if isinstance(event, E.LaplaceDpEvent):
        return peer_pld.from_laplace_mechanism(event.noise_multiplier, **common)
    if isinstance(event, E.PoissonSampledDpEvent):
        inner = event.event
        if isinstance(inner, E.GaussianDpEvent):
            return peer_pld.from_gaussian_mechanism(
                inner.noise_multiplier, sampling_prob=event.sampling_probability,
                neighboring_relation=relation, **common)
        return peer_pld.from_laplace_mechanism(inner.noise_multiplier,
                                               sampling_prob=event.sampling_probability, **common)
    if isinstance(event, E.MixtureOfGaussiansDpEvent):
        return peer_pld.from_mixture_gaussian_mechanism(
            event.standard_deviation, event.sensitivities, event.sampling_probs, **common)
    if isinstance(event, E.RandomizedResponseDpEvent):
        return peer_pld.from_randomized_response(event.noise_parameter, event.num_buckets,
                                                 neighboring_relation=relation, **common)
    raise AssertionError(f"no optimistic PLD for {event}")


POISSON_GAUSSIAN = E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(1.0))
ADDITIVE = [
    E.GaussianDpEvent(5.0),
    E.LaplaceDpEvent(10.0),
    POISSON_GAUSSIAN,
    E.SelfComposedDpEvent(POISSON_GAUSSIAN, 200),
    E.PoissonSampledDpEvent(0.05, E.LaplaceDpEvent(2.0)),
    E.MixtureOfGaussiansDpEvent(2.0, [0.0, 1.0, 2.0], [0.98, 0.019, 0.001]),
]
NESTED = E.ComposedDpEvent([
    E.NoOpDpEvent(),
    E.SelfComposedDpEvent(E.ComposedDpEvent([
        E.GaussianDpEvent(8.0),
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.02, E.GaussianDpEvent(1.5)), 10),
        E.PoissonSampledDpEvent(0.03, E.LaplaceDpEvent(3.0)),
        E.MixtureOfGaussiansDpEvent(2.0, [0.0, 1.0], [0.95, 0.05])]), 5),
])


def bracket(event, relation: R, count: int = 1,
            ours: float | None = None) -> tuple[float, float, float]:
    """otbound's ε (PLD accountant, as dp_accounting's), dp_accounting's pessimistic ε at the
    δ slackened by :data:`BELOW`, and its optimistic ε."""
    if ours is None:
        ours = DpEventAccountant(relation, accountant="pld", discretisation=GRID)
        ours = ours.compose(event, count)
        ours = ours.get_epsilon(DELTA)
    pessimistic = PLDAccountant(relation, GRID).compose(event, count)
    lower = optimistic(event, relation)
    lower = lower.self_compose(count) if count > 1 else lower
    return ours, pessimistic.get_epsilon(DELTA * (1 - BELOW)), lower.get_epsilon_for_delta(DELTA)


@pytest.mark.parametrize("event", ADDITIVE + [NESTED], ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("relation", [R.ADD_OR_REMOVE_ONE, R.REPLACE_SPECIAL])
def test_each_event_is_between_dp_accountings_optimistic_and_pessimistic_values(event,
                                                                                relation):
    ours, pessimistic, lower = bracket(event, relation)
    assert lower * (1 - MARGIN) <= ours <= pessimistic, (lower, ours, pessimistic)
    assert lower < pessimistic   # the bracket is not empty: the test can fail


@pytest.mark.parametrize("event", [E.GaussianDpEvent(3.0), POISSON_GAUSSIAN,
                                   E.SelfComposedDpEvent(POISSON_GAUSSIAN, 50),
                                   E.RandomizedResponseDpEvent(0.5, 2),
                                   E.RandomizedResponseDpEvent(0.3, 10)],
                         ids=lambda e: type(e).__name__)
def test_substitution_is_between_dp_accountings_values(event):
    ours, pessimistic, lower = bracket(event, R.REPLACE_ONE)
    assert lower * (1 - MARGIN) <= ours <= pessimistic, (lower, ours, pessimistic)


def test_randomized_response_against_a_special_bucket():
    ours, pessimistic, lower = bracket(E.RandomizedResponseDpEvent(0.3, 10), R.REPLACE_SPECIAL)
    assert lower * (1 - MARGIN) <= ours <= pessimistic


def test_repeated_randomized_response_is_composed_which_dp_accountings_accountant_forgets():
    """dp_accounting 0.6.0's PLDAccountant composes a RandomizedResponseDpEvent once whatever
    its count (pld_privacy_accountant.py, the RandomizedResponseDpEvent branch has no
    self_compose): ten repetitions report one's ε. otbound composes them; its ε is within
    the bracket of dp_accounting's own PLD self-composed ten times."""
    event = E.RandomizedResponseDpEvent(0.5, 2)
    once = PLDAccountant(R.REPLACE_ONE).compose(event).get_epsilon(DELTA)
    assert PLDAccountant(R.REPLACE_ONE).compose(event, 10).get_epsilon(DELTA) == once
    ours = DpEventAccountant(R.REPLACE_ONE, discretisation=GRID).compose(event, 10)
    ours = ours.get_epsilon(DELTA)
    pessimistic = peer_pld.from_randomized_response(
        0.5, 2, value_discretization_interval=GRID).self_compose(10).get_epsilon_for_delta(DELTA)
    lower = optimistic(event, R.REPLACE_ONE).self_compose(10).get_epsilon_for_delta(DELTA)
    assert lower * (1 - MARGIN) <= ours <= pessimistic and ours > 9 * once


def test_truncated_poisson_is_tighter_than_dp_accounting_under_insertion_removal():
    """002 Thm. 3.1's pair is the worst case; dp_accounting bounds the truncated branch by the
    replace-one pair (as tests/test_accounting.py checks for the step itself). Under
    replace-one both use the same pairs."""
    event = E.TruncatedSubsampledGaussianDpEvent(1000, 0.05, 55, 1.0)
    for relation in (R.ADD_OR_REMOVE_ONE, R.REPLACE_ONE):
        ours = DpEventAccountant(relation, accountant="pld").compose(event, 20)
        peer = PLDAccountant(relation, 1e-4).compose(event, 20).get_epsilon(DELTA)
        setting = otbound.TruncatedPoissonSetting(
            0.05, 55, 1000, "add-remove" if relation is R.ADD_OR_REMOVE_ONE else "replace-one")
        alone = otbound.account(setting, otbound.gaussian(1.0), 20, accountant="pld",
                                delta=DELTA)
        assert ours.get_epsilon(DELTA) == alone.epsilon
        if relation is R.REPLACE_ONE:
            assert ours.get_epsilon(DELTA) == pytest.approx(peer, abs=1e-5)
        else:
            assert ours.get_epsilon(DELTA) < peer - 1e-3


def test_a_composition_of_every_event_read_is_the_composition_of_their_steps():
    """One accountant composing all events (nested) answers what otbound's accountant gives
    for their steps, between dp_accounting's values for the same events."""
    accountant = DpEventAccountant(accountant="pld", discretisation=GRID)
    for event in ADDITIVE + [NESTED]:
        accountant.compose(event)
    ours = accountant.get_epsilon(DELTA)
    assert ours == otbound.compose(accountant.running.as_steps(), "pld", delta=DELTA,
                                   discretisation=GRID).epsilon
    _, pessimistic, lower = bracket(E.ComposedDpEvent(ADDITIVE + [NESTED]), R.ADD_OR_REMOVE_ONE,
                                    ours=ours)
    assert lower * (1 - MARGIN) <= ours <= pessimistic


def test_the_best_accountant_is_within_the_bracket_too():
    """``best`` (the smaller of RDP and PLD) is never below dp_accounting's optimistic ε."""
    event = E.SelfComposedDpEvent(POISSON_GAUSSIAN, 200)
    best = DpEventAccountant(discretisation=GRID).compose(event).get_epsilon(DELTA)
    ours, pessimistic, lower = bracket(event, R.ADD_OR_REMOVE_ONE)
    assert lower * (1 - MARGIN) <= best <= ours <= pessimistic


def test_asked_along_the_way_it_answers_the_run_so_far():
    accountant = DpEventAccountant(accountant="pld")
    answers = []
    for sigma in (1.2, 1.0):
        accountant.compose(E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(sigma)), 100)
        answers.append(accountant.get_epsilon(DELTA))
    steps = [otbound.subsampled_step(otbound.Subsampling("poisson", rate=0.01),
                                     otbound.gaussian(sigma), 100) for sigma in (1.2, 1.0)]
    assert answers[-1] == otbound.compose(steps, "pld", delta=DELTA).epsilon
    assert answers[0] < answers[-1]
    assert accountant.get_delta(answers[-1]) <= DELTA * (1 + 1e-6)
    assert accountant.ledger == E.ComposedDpEvent([
        E.SelfComposedDpEvent(E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(s)), 100)
        for s in (1.2, 1.0)])


def test_groups_are_otbounds_group_accounting():
    """``group=2``: every (K₊, K₋) with K₊ + K₋ = 2, as ``Subsampling(..., group=2)``."""
    event = E.PoissonSampledDpEvent(0.01, E.GaussianDpEvent(2.0))
    ours = DpEventAccountant(group=2, accountant="pld").compose(event, 100).get_epsilon(DELTA)
    assert ours == otbound.account(otbound.Subsampling("poisson", rate=0.01, group=2),
                                   otbound.gaussian(2.0), 100, accountant="pld",
                                   delta=DELTA).epsilon
    assert ours > DpEventAccountant(accountant="pld").compose(event, 100).get_epsilon(DELTA)


def test_substitution_composes_poisson_and_sampling_without_replacement():
    """Under REPLACE_ONE both are one case of one substitution: they compose, and sampling
    without replacement stays below dp_accounting's RDP bound for it."""
    without = E.SampledWithoutReplacementDpEvent(1000, 10, E.GaussianDpEvent(1.0))
    alone = DpEventAccountant(R.REPLACE_ONE).compose(without, 50).get_epsilon(DELTA)
    rdp = RdpAccountant(neighboring_relation=R.REPLACE_ONE).compose(without, 50)
    assert alone < rdp.get_epsilon(DELTA)
    both = DpEventAccountant(R.REPLACE_ONE).compose(without, 50).compose(POISSON_GAUSSIAN, 50)
    assert both.get_epsilon(DELTA) > alone


def test_sampling_with_replacement_of_one_draw_is_sampling_without_replacement_of_one():
    """One draw with replacement is one draw without: the two derivations agree (with
    replacement is otbound's own derivation, for sample sizes up to 5)."""
    draws = {kind: DpEventAccountant(R.REPLACE_ONE, accountant="pld").compose(
        kind(100, 1, E.GaussianDpEvent(2.0)), 20).get_epsilon(DELTA)
        for kind in (E.SampledWithReplacementDpEvent, E.SampledWithoutReplacementDpEvent)}
    with_, without = draws.values()
    assert with_ == pytest.approx(without, rel=1e-6)
    refused = DpEventAccountant()._maybe_compose(
        E.SampledWithReplacementDpEvent(1000, 64, E.GaussianDpEvent(1.0)), 1, False)
    assert "sample_size in [1, 5]" in refused.error_message


def test_otbounds_own_settings_are_events():
    balls = otbound.BallsInBins(batch_size=100, dataset_size=1000)
    event = OtboundStepEvent(balls, otbound.gaussian(1.0))
    ours = DpEventAccountant(accountant="pld").compose(event, 3).get_epsilon(DELTA)
    assert ours == otbound.account(balls, otbound.gaussian(1.0), 3, accountant="pld",
                                   delta=DELTA).epsilon
    assert not PLDAccountant().supports(event)
    poisson = OtboundStepEvent(otbound.Subsampling("poisson", rate=0.01), otbound.gaussian(1.0))
    mixed = DpEventAccountant().compose(POISSON_GAUSSIAN)
    assert mixed.supports(poisson)
    refused = mixed._maybe_compose(event, 1, False)
    assert "other neighbouring relations" in refused.error_message


@pytest.mark.parametrize("event, relation, says", [
    (E.ZCDpEvent(0.1), R.ADD_OR_REMOVE_ONE, "ZCDpEvent has no otbound dominating pair"),
    (E.DiscreteLaplaceDpEvent(1.0, 1), R.ADD_OR_REMOVE_ONE, "DiscreteLaplaceDpEvent"),
    (E.UnsupportedDpEvent(), R.ADD_OR_REMOVE_ONE, "UnsupportedDpEvent"),
    (E.RepeatAndSelectDpEvent(POISSON_GAUSSIAN, 1.0, 1.0), R.ADD_OR_REMOVE_ONE,
     "RepeatAndSelectDpEvent"),
    (E.PoissonSampledDpEvent(0.1, E.RandomizedResponseDpEvent(0.5, 2)), R.REPLACE_ONE,
     "must sample a GaussianDpEvent or a LaplaceDpEvent"),
    (E.SampledWithoutReplacementDpEvent(100, 10, E.GaussianDpEvent(1.0)), R.ADD_OR_REMOVE_ONE,
     "REPLACE_ONE"),
    (E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]), R.REPLACE_ONE,
     "insertion/removal"),
    (E.RandomizedResponseDpEvent(0.5, 2), R.ADD_OR_REMOVE_ONE, "REPLACE_ONE or REPLACE_SPECIAL"),
    (E.PoissonSampledDpEvent(1.5, E.GaussianDpEvent(1.0)), R.ADD_OR_REMOVE_ONE,
     "rate must be in [0, 1], got 1.5"),
    (E.GaussianDpEvent(-1.0), R.ADD_OR_REMOVE_ONE, "noise_multiplier must be a finite number"),
    (E.ComposedDpEvent([POISSON_GAUSSIAN, E.ZCDpEvent(0.1)]), R.ADD_OR_REMOVE_ONE, "ZCDpEvent"),
])
def test_what_cannot_be_read_is_refused_by_name_before_anything_is_composed(event, relation,
                                                                           says):
    accountant = DpEventAccountant(relation)
    assert not accountant.supports(event)
    with pytest.raises(UnsupportedEventError, match=says.replace("[", r"\[")):
        accountant.compose(event)
    assert accountant.running.history == () and accountant.get_epsilon(DELTA) == 0.0


def test_group_size_is_refused_where_the_event_describes_one_record():
    accountant = DpEventAccountant(group=2)
    event = E.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.9, 0.1])
    assert "group = 1" in accountant._maybe_compose(event, 1, False).error_message
    with pytest.raises(otbound.InvalidSpecification, match="group must be an integer"):
        DpEventAccountant(group=0)
    with pytest.raises(otbound.InvalidSpecification, match="NeighboringRelation"):
        DpEventAccountant("add-remove")


def test_non_private_and_empty_parts_follow_dp_accountings_conventions():
    empty = DpEventAccountant()
    assert empty.get_epsilon(DELTA) == 0.0 and empty.get_delta(1.0) == 0.0
    nothing = DpEventAccountant().compose(E.ComposedDpEvent([
        E.NoOpDpEvent(), E.PoissonSampledDpEvent(0.0, E.GaussianDpEvent(1.0)),
        E.MixtureOfGaussiansDpEvent(1.0, [0.0], [1.0])]))
    assert nothing.running.history == ()
    exposed = DpEventAccountant().compose(POISSON_GAUSSIAN).compose(E.GaussianDpEvent(0.0))
    assert exposed.get_epsilon(DELTA) == math.inf and exposed.get_delta(1.0) == 1.0
    assert DpEventAccountant().compose(E.NonPrivateDpEvent()).get_epsilon(DELTA) == math.inf


def test_repeated_gaussians_compose_exactly_as_one_of_smaller_noise():
    """n Gaussian mechanisms are one of noise σ/√n (as dp_accounting composes them), its
    noise rounded down."""
    repeated = DpEventAccountant(accountant="pld").compose(E.GaussianDpEvent(8.0), 25)
    once = DpEventAccountant(accountant="pld").compose(E.GaussianDpEvent(8.0 / 5))
    assert repeated.get_epsilon(DELTA) >= once.get_epsilon(DELTA)
    assert repeated.get_epsilon(DELTA) == pytest.approx(once.get_epsilon(DELTA), rel=1e-12)
    assert repeated.running.history[0].step.setting["sigma"] < 8.0 / 5
