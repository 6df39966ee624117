"""The public API (issue 10): everything from ``import otbound``, choices checked by value, and
units that cannot be confused."""

import pytest
from hand_written import poisson_problem

import otbound

SETTING = otbound.Subsampling("poisson", rate=0.01)


def test_every_public_name_resolves():
    missing = [name for name in otbound.__all__ if getattr(otbound, name, None) is None]
    assert missing == []


def test_an_accountant_named_by_string_is_the_one_that_runs():
    step = otbound.subsampled_step(SETTING, otbound.gaussian(1.0), 10)
    by_name = otbound.compose([step], "pld", delta=1e-6)
    by_member = otbound.compose([step], otbound.Accountant.PLD, delta=1e-6)
    assert by_name.accountant is otbound.Accountant.PLD
    assert by_name.epsilon == by_member.epsilon
    assert by_name.epsilon != otbound.compose([step], "rdp", delta=1e-6).epsilon


@pytest.mark.parametrize("call, fragments", [
    (lambda step: otbound.compose([step], "moments", delta=1e-6),
     ["accountant must be one of", "'best', 'rdp', 'pld'", "'moments'"]),
    (lambda step: otbound.compose([step], conversion="exact", delta=1e-6),
     ["conversion must be one of", "'exact'"]),
    (lambda step: otbound.compose(step, delta=1e-6), ["steps must be a non-empty list of Step"]),
    (lambda step: otbound.rdp(SETTING, otbound.gaussian(1.0), "fast", [2]),
     ["method must be one of", "'tight', 'agnostic', 'posthoc'", "'fast'"]),
    (lambda step: otbound.adp(SETTING, "gaussian", "tight", [1]),
     ["mechanism must be a Mechanism", "str"]),
    (lambda step: otbound.Subsampling("shuffle", rate=0.1), ["scheme must be one of", "'shuffle'"]),
])
def test_misuse_names_the_argument_the_value_and_the_choices(call, fragments):
    step = otbound.subsampled_step(SETTING, otbound.gaussian(1.0), 10)
    with pytest.raises(otbound.InvalidSpecification) as raised:
        call(step)
    assert all(fragment in str(raised.value) for fragment in fragments), str(raised.value)


def test_a_probability_cannot_pass_for_a_log_probability():
    problem = poisson_problem(0.1, 0, 1)
    with pytest.raises(otbound.InvalidSpecification, match="log_probability must be a logarithm"):
        otbound.Term(0.5, problem)
    with pytest.raises(otbound.InvalidSpecification, match="probability must be in"):
        otbound.Term.of_probability(1.5, problem)
    assert otbound.Term.of_probability(1.0, problem) == otbound.Term.of_log_probability(0.0,
                                                                                         problem)


def test_terms_must_be_terms_not_tuples():
    from otbound.numerics.one_step import tight_branches

    with pytest.raises(otbound.InvalidSpecification, match="terms must be Term objects"):
        tight_branches([(1.0, poisson_problem(0.1, 0, 1))], otbound.gaussian(1.0))


def test_a_step_becomes_a_dp_accounting_pld_that_dominates_the_step():
    step = otbound.subsampled_step(SETTING, otbound.gaussian(2.0), 1)
    pld = otbound.step_pld(step, discretisation=1e-3)
    ours = otbound.adp(SETTING, otbound.gaussian(2.0), "tight", [0.05])[0].value
    assert ours <= pld.get_delta_for_epsilon(0.05) <= ours * 1.05


# --- one call from a setting to a guarantee ---------------------------------------------------

def test_account_is_the_composition_of_the_settings_step():
    mechanism = otbound.gaussian(1.0)
    direct = otbound.account(SETTING, mechanism, 50, accountant="rdp", delta=1e-6)
    step = otbound.subsampled_step(SETTING, mechanism, 50)
    assert direct.epsilon == otbound.compose([step], "rdp", delta=1e-6).epsilon
    assert direct.details["method"] == "tight"


def test_account_takes_truncated_poisson_as_the_bundled_derivation_with_every_method():
    truncated = otbound.TruncatedPoissonSetting(0.004, 260, 60000)
    mechanism = otbound.gaussian(1.0)
    setting = truncated.derived_setting()
    assert setting.derived.name == "002-thm-3.1"
    for method in ("tight", "agnostic"):
        direct = otbound.account(truncated, mechanism, 20, method=method, accountant="rdp",
                                 delta=1e-6)
        same = otbound.account(setting, mechanism, 20, method=method, accountant="rdp",
                               delta=1e-6)
        assert direct.epsilon == same.epsilon and direct.details == same.details
    refusals = []
    for route in (truncated, setting):   # no K = 1 bound to apply group privacy to
        with pytest.raises(otbound.UnsupportedOperation, match="method='posthoc'") as refused:
            otbound.account(route, mechanism, 20, method="posthoc", delta=1e-6)
        refusals.append(str(refused.value))
    assert refusals[0] == refusals[1]
    step = otbound.subsampled_step(setting, mechanism, 20)
    tight = otbound.account(truncated, mechanism, 20, accountant="rdp", delta=1e-6)
    assert tight.epsilon == otbound.compose([step], "rdp", delta=1e-6).epsilon


def test_calibrate_returns_a_value_that_meets_the_target_next_to_one_that_does_not():
    options = {"target_epsilon": 1.0, "delta": 1e-6, "accountant": "rdp",
               "conversion": "balle2020"}
    found = otbound.calibrate(SETTING, otbound.gaussian(5.0), 100, solve_for="sigma", **options)
    assert found.guarantee.epsilon <= 1.0
    assert found.unsafe < found.value <= found.unsafe * (1 + 1e-4)
    above = otbound.account(SETTING, otbound.gaussian(found.unsafe), 100, accountant="rdp",
                            conversion="balle2020", delta=1e-6)
    assert above.epsilon > 1.0
    steps = otbound.calibrate(SETTING, otbound.gaussian(2.0), None, solve_for="steps", **options)
    assert steps.guarantee.steps == steps.value and steps.unsafe == steps.value + 1


@pytest.mark.parametrize("kwargs, fragment", [
    ({"solve_for": "scale"}, "solve_for='scale' needs the laplace mechanism, got gaussian"),
    ({"solve_for": "rate", "setting": otbound.Subsampling("wor", batch_size=1, dataset_size=9)},
     "solve_for='rate' needs Poisson sampling given by its rate"),
    ({"solve_for": "sigma", "steps": None}, "steps is needed unless solve_for='steps'"),
    ({"solve_for": "noise"}, "solve_for must be one of"),
    ({"solve_for": "sigma", "epsilon": 1.0}, "give target_epsilon with delta, or target_delta"),
])
def test_calibrate_misuse_names_the_argument(kwargs, fragment):
    arguments = {"setting": SETTING, "mechanism": otbound.gaussian(1.0), "steps": 10,
                 "target_epsilon": 1.0, "delta": 1e-6} | kwargs
    with pytest.raises(otbound.InvalidSpecification) as raised:
        otbound.calibrate(**arguments)
    assert fragment in str(raised.value)
