"""The accountant you step (issue 44): its answers are ``compose`` of the recorded steps, to the
bit, however often it is asked; it refuses what cannot be one run and records what it
accounted."""

import json

import pytest

import otbound
from otbound.accounting.prefixes import Prefixes
from otbound.errors import InvalidSpecification

POISSON = otbound.Subsampling("poisson", rate=0.01)


def stepped(accountant: str, asked_every: int, stages=(1.4, 1.2, 1.0), per_stage: int = 40):
    run = otbound.RunningAccountant(accountant=accountant)
    answers = []
    for sigma in stages:
        for step in range(per_stage):
            run.step(POISSON, otbound.gaussian(sigma))
            if (step + 1) % asked_every == 0:
                answers.append(run.epsilon(1e-5))
    return run, answers


@pytest.mark.parametrize("accountant", ["pld", "rdp", "best"])
def test_asked_along_the_way_it_answers_what_composing_the_run_at_once_gives(accountant):
    run, answers = stepped(accountant, asked_every=20)
    assert [entry.count for entry in run.history] == [20] * 6   # closed at each question
    once = otbound.compose(run.as_steps(), accountant, delta=1e-5)
    assert answers[-1] == once.epsilon
    assert answers == sorted(answers) and answers[0] < answers[-1]   # more steps, more ε


def test_a_run_of_one_step_asked_at_the_end_is_account_of_that_run():
    run = otbound.RunningAccountant(accountant="pld")
    for _ in range(300):
        run.step(POISSON, otbound.gaussian(1.0))
    assert len(run.history) == 1 and run.steps == 300
    assert run.epsilon(1e-5) == otbound.account(POISSON, otbound.gaussian(1.0), 300,
                                                accountant="pld", delta=1e-5).epsilon
    assert run.delta(1.0) == otbound.account(POISSON, otbound.gaussian(1.0), 300,
                                             accountant="pld", epsilon=1.0).delta


def test_a_run_that_changes_its_sampler_composes_both_parts():
    balls = otbound.BallsInBins(batch_size=100, dataset_size=1000)
    run = otbound.RunningAccountant(accountant="pld")
    run.step(POISSON, otbound.gaussian(1.0), 50)
    alone = run.epsilon(1e-5)
    run.step(otbound.Subsampling("poisson", rate=0.02), otbound.laplace(2.0), 30)
    assert run.epsilon(1e-5) > alone
    assert run.epsilon(1e-5) == otbound.compose(run.as_steps(), "pld", delta=1e-5).epsilon
    epochs = otbound.RunningAccountant(accountant="pld")
    epochs.step(balls, otbound.gaussian(1.0), 3)
    assert epochs.epsilon(1e-5) == otbound.compose(
        [otbound.subsampled_step(balls, otbound.gaussian(1.0), 3)], "pld", delta=1e-5).epsilon


def test_a_group_is_stepped_like_any_setting():
    group = otbound.Subsampling("poisson", rate=0.01, group=2)
    run = otbound.RunningAccountant(accountant="pld")
    run.step(group, otbound.gaussian(2.0), 100)
    assert run.epsilon(1e-6) == otbound.compose(
        [otbound.subsampled_step(group, otbound.gaussian(2.0), 100)], "pld",
        delta=1e-6).epsilon


def test_steps_under_another_relation_are_refused_by_name():
    run = otbound.RunningAccountant()
    run.step(POISSON, otbound.gaussian(1.0))
    wor = otbound.Subsampling("wor", batch_size=10, dataset_size=1000, substitutions=1)
    with pytest.raises(InvalidSpecification, match="another neighbouring relation"):
        run.step(wor, otbound.gaussian(1.0))
    assert run.steps == 1


@pytest.mark.parametrize("count", [0, -3, 1.5, True])
def test_a_count_that_is_not_a_positive_integer_is_refused(count):
    with pytest.raises(InvalidSpecification, match="count must be a positive integer"):
        otbound.RunningAccountant().step(POISSON, otbound.gaussian(1.0), count)


def test_a_question_before_any_step_or_without_a_target_is_refused():
    with pytest.raises(InvalidSpecification, match="call step"):
        otbound.RunningAccountant().epsilon(1e-5)
    run = otbound.RunningAccountant()
    run.step(POISSON, otbound.gaussian(1.0))
    with pytest.raises(InvalidSpecification, match="delta must be in"):
        run.epsilon(2.0)
    with pytest.raises(InvalidSpecification, match="accountant must be one of"):
        otbound.RunningAccountant(accountant="PLD")


def test_the_record_is_json_with_history_and_guarantee():
    run, _ = stepped("pld", asked_every=40, stages=(1.2, 1.0))
    record = json.loads(json.dumps(run.to_json(delta=1e-5)))
    assert [entry["sigma"] for entry in record["history"]] == [1.2, 1.0]
    assert [entry["steps"] for entry in record["history"]] == [40, 40]
    assert record["history"][0]["setting"]["rate"] == 0.01
    assert record["guarantee"]["epsilon"] == run.epsilon(1e-5)
    assert record["guarantee"]["accountant"] == "pld"


def test_a_kept_fold_is_extended_only_where_the_steps_extend_it():
    steps = [otbound.subsampled_step(POISSON, otbound.gaussian(s), 1) for s in (1.0, 2.0, 3.0)]
    prefixes, seen = Prefixes(), []

    def one(step):
        seen.append(step)
        return [step.setting["sigma"]]

    assert prefixes.fold("k", steps[:2], one, list.__add__) == [1.0, 2.0]
    assert prefixes.fold("k", steps, one, list.__add__) == [1.0, 2.0, 3.0]
    assert seen == steps                          # the third step only was added
    other = [steps[0], steps[2]]
    assert prefixes.fold("k", other, one, list.__add__) == [1.0, 3.0]   # not a prefix: anew


def test_the_true_positive_rate_bound_is_above_the_exact_gaussian_trade_off_and_close():
    """One Gaussian mechanism (σ = 2: μ = 0.5-GDP) has the exact trade-off curve
    TPR(α) = Φ(μ − Φ⁻¹(1 − α)) (Dong, Roth & Su 2022); the bound read from the run's δ(ε) is
    above it (sound) and within a few per cent (not vacuous)."""
    from scipy.stats import norm

    run = otbound.RunningAccountant(accountant="pld")
    run.step(otbound.Subsampling("poisson", rate=1.0), otbound.gaussian(2.0))
    for alpha in (1e-4, 1e-2, 0.1, 0.5):
        exact = norm.cdf(0.5 - norm.ppf(1 - alpha))
        bound = run.true_positive_rate(alpha)
        assert exact <= bound <= exact * 1.05 + 1e-4, (alpha, exact, bound)
    assert run.true_positive_rate(0.0) <= run.delta(0.0) + 1e-15
    assert run.true_positive_rate(1.0) == 1.0
    with pytest.raises(InvalidSpecification, match="false_positive_rate must be in"):
        run.true_positive_rate(1.5)
