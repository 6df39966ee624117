"""Describe the sampler, get the scheme (issue 44 item 4): every loader or strategy maps to the
setting whose bound holds for it, over the right count, or to a refusal that says why; a
Poisson account of a shuffling loader warns."""

import math
import warnings

import pytest

import otbound
from otbound.accounting.samplers import (JaxBallsInBinsSampling, JaxBMinSepSampling,
                                         JaxCyclicPoissonSampling, JaxFixedBatchSampling,
                                         JaxRandomAllocationSampling, JaxUserSelection,
                                         OpacusPoisson, SamplerMismatchWarning, TorchLoader)
from otbound.accounting.truncated import TruncatedPoissonSetting
from otbound.errors import InvalidSpecification, UnsupportedOperation


def test_a_shuffling_loader_is_shuffled_batches_counted_in_epochs():
    plan = TorchLoader(256, 60000, epochs=10).plan()
    assert plan.setting == otbound.ShuffledBatches(256, 60000)
    assert plan.steps == 10 and plan.setting.steps_per_epoch == 235


def test_drop_last_counts_the_batches_the_loader_yields_and_refuses_the_lower_bound():
    """⌊N/b⌋ steps per epoch, not ⌈N/b⌉: an epoch counted longer than it is would count fewer
    epochs for the same steps (Opacus's history), below the truth."""
    loader = TorchLoader(256, 60000, epochs=10, drop_last=True)
    plan = loader.plan()
    assert loader.steps_per_epoch == plan.setting.steps_per_epoch == 234
    assert plan.setting.describe()["dropped_records"] == 96
    with pytest.raises(UnsupportedOperation, match="leaves 96 records out.*drop_last"):
        otbound.shuffled_lower_bound(plan.setting, 1.0, 10, delta=1e-5)


def test_drop_last_of_a_divisible_dataset_is_the_plain_loader():
    plan = TorchLoader(100, 1000, epochs=1, drop_last=True).plan()
    assert plan.setting == otbound.ShuffledBatches(100, 1000)
    assert "dropped_records" not in plan.setting.describe()


def test_a_fixed_order_has_the_upper_bound_without_amplification():
    plan = TorchLoader(100, 1000, epochs=3, shuffle=False).plan()
    assert plan.setting == otbound.ShuffledBatches(100, 1000)
    assert plan.setting.describe()["scheme"] == "fixed order" and "exact" in plan.why
    mechanism = otbound.gaussian(2.0)
    once = otbound.account(otbound.Subsampling("poisson", rate=1.0), mechanism, 3, delta=1e-5)
    assert plan.account(mechanism, delta=1e-5).epsilon == pytest.approx(once.epsilon, rel=1e-6)


def test_a_poisson_account_of_a_shuffling_loader_warns_and_is_below_its_lower_bound():
    loader = TorchLoader(100, 1000, epochs=1)
    with pytest.warns(SamplerMismatchWarning, match="shuffles.*not a bound for it"):
        plan = loader.plan(assume="poisson")
    assert plan.setting == otbound.Subsampling("poisson", rate=0.1) and plan.steps == 10
    poisson = plan.account(otbound.gaussian(1.0), delta=1e-5).epsilon
    lower = otbound.shuffled_lower_bound(loader.plan().setting, 1.0, 1, delta=1e-5).epsilon
    assert poisson < lower     # the warning is warranted: Poisson's ε is below the truth


def test_a_balls_in_bins_account_of_a_fixed_order_loader_warns():
    with pytest.warns(SamplerMismatchWarning, match="keeps a fixed order"):
        plan = TorchLoader(100, 1000, epochs=2, shuffle=False).plan(assume="balls-in-bins")
    assert plan.setting == otbound.BallsInBins(100, 1000) and plan.steps == 2


def test_the_loader_described_as_it_runs_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TorchLoader(100, 1000, 1).plan(assume="shuffled") == TorchLoader(100, 1000,
                                                                                1).plan()


def test_opacus_poisson_is_poisson_over_its_steps():
    plan = OpacusPoisson(0.01, steps=100, group=4).plan()
    assert plan.setting == otbound.Subsampling("poisson", rate=0.01, group=4)
    assert plan.steps == 100
    small = OpacusPoisson(0.1, steps=20).plan()
    assert small.account(otbound.gaussian(1.1), delta=1e-5).epsilon == otbound.account(
        otbound.Subsampling("poisson", rate=0.1), otbound.gaussian(1.1), 20,
        delta=1e-5).epsilon


def test_cyclic_poisson_counts_the_steps_a_record_is_eligible_in():
    plan = JaxCyclicPoissonSampling(0.5, 101, cycle_length=4, partition_type="independent").plan()
    assert plan.setting == otbound.Subsampling("poisson", rate=0.5) and plan.steps == 26
    assert JaxCyclicPoissonSampling(0.01, 100).plan().steps == 100


def test_cyclic_poisson_under_replacement_is_a_removal_and_an_insertion():
    plan = JaxCyclicPoissonSampling(1.0, 8, cycle_length=4, neighbouring="replace-one").plan()
    assert plan.setting == otbound.Subsampling("poisson", rate=1.0, insertions=1, removals=1)
    assert plan.steps == 2


def test_an_equal_split_under_add_remove_is_refused():
    with pytest.raises(UnsupportedOperation, match="moves others between the groups"):
        JaxCyclicPoissonSampling(0.5, 10, cycle_length=2).plan()


def test_zero_out_poisson_is_refused_with_the_sound_option():
    with pytest.raises(UnsupportedOperation, match="neighbouring='add-remove'"):
        JaxCyclicPoissonSampling(0.5, 10, neighbouring="zero-out").plan()


def test_truncated_cyclic_poisson_is_truncated_poisson_of_one_group():
    plan = JaxCyclicPoissonSampling(0.1, 30, truncated_batch_size=20, cycle_length=3,
                                    dataset_size=1000, neighbouring="replace-one").plan()
    assert plan.setting == TruncatedPoissonSetting(0.1, 20, 333, "replace-one")
    assert plan.steps == 10


def test_truncation_needs_the_dataset_size_and_groups_of_one_size():
    with pytest.raises(InvalidSpecification, match="give dataset_size") as error:
        JaxCyclicPoissonSampling(0.1, 30, truncated_batch_size=20).plan()
    assert error.value.parameter == "dataset_size"
    with pytest.raises(UnsupportedOperation, match="groups of random size"):
        JaxCyclicPoissonSampling(0.1, 30, 20, 3, "independent", 1000).plan()


def test_balls_in_bins_of_one_cycle_is_random_allocation_of_one_step():
    plan = JaxBallsInBinsSampling(iterations=7, cycle_length=10).plan()
    assert plan.setting == otbound.RandomAllocation(10, 1) and plan.steps == 1


def test_balls_in_bins_over_several_cycles_is_refused():
    """jax_privacy keeps a record's bin: composing otbound's fresh-bin epochs would be below
    the truth."""
    with pytest.raises(UnsupportedOperation, match="keeps each record's bin"):
        JaxBallsInBinsSampling(iterations=11, cycle_length=10).plan()


def test_random_allocation_is_one_epoch():
    plan = JaxRandomAllocationSampling(total_participations=3, iterations=50).plan()
    assert plan.setting == otbound.RandomAllocation(50, 3) and plan.steps == 1


def test_fixed_batches_are_sampling_without_replacement():
    plan = JaxFixedBatchSampling(4, 10, 100).plan()
    assert plan.setting == otbound.Subsampling("wor", batch_size=4, dataset_size=100)
    assert plan.steps == 10
    with pytest.raises(UnsupportedOperation, match="use replace=False"):
        JaxFixedBatchSampling(4, 10, 100, replace=True).plan()


def test_b_min_sep_is_refused_beyond_a_separation_of_one():
    assert JaxBMinSepSampling(0.1, 10, min_sep=1).plan().setting == otbound.Subsampling(
        "poisson", rate=0.1)
    with pytest.raises(UnsupportedOperation, match="min_sep=3.*Monte Carlo"):
        JaxBMinSepSampling(0.1, 10, min_sep=3).plan()


def test_user_selection_accounts_users_as_the_records():
    base = JaxRandomAllocationSampling(1, 10)
    plan = JaxUserSelection(base, examples_per_user_per_batch=3).plan()
    assert plan.setting == base.plan().setting and "user-level" in plan.why
    with pytest.raises(UnsupportedOperation, match="sensitivity 3"):
        JaxUserSelection(base, 3, clipped_per_user=False).plan()
    with pytest.raises(InvalidSpecification, match="base must be a sampler description"):
        JaxUserSelection("poisson")


@pytest.mark.parametrize("make, fragments", [
    (lambda: TorchLoader(0, 100, 1), ["batch_size", ">= 1", "0"]),
    (lambda: TorchLoader(200, 100, 1), ["batch_size", "at most dataset_size (100)", "200"]),
    (lambda: TorchLoader(10, 100, 1, shuffle="yes"), ["shuffle", "True or False", "'yes'"]),
    (lambda: TorchLoader(10, 100, 1).plan(assume="uniform"), ["assume", "'poisson'",
                                                              "'uniform'"]),
    (lambda: OpacusPoisson(1.5, 10), ["sample_rate", "[0, 1]", "1.5"]),
    (lambda: JaxCyclicPoissonSampling(0.1, 10, partition_type="random"),
     ["partition_type", "'equal-split'", "'random'"]),
    (lambda: JaxRandomAllocationSampling(11, 10), ["total_participations", "at most", "11"]),
    (lambda: JaxBMinSepSampling(0.1, 10, min_sep=0), ["min_sep", ">= 1", "0"]),
])
def test_bad_input_names_the_argument_the_value_and_the_range(make, fragments):
    with pytest.raises(InvalidSpecification) as error:
        make()
    assert all(fragment in str(error.value) for fragment in fragments)
    assert error.value.parameter == fragments[0]


def test_the_count_is_never_below_the_eligible_steps():
    for iterations in range(1, 13):
        for cycle in range(1, 6):
            plan = JaxCyclicPoissonSampling(0.5, iterations, cycle_length=cycle,
                                            partition_type="independent").plan()
            most = max(len(range(j, iterations, cycle)) for j in range(cycle))
            assert plan.steps == most == math.ceil(iterations / cycle)
