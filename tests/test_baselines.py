"""The published baselines are data: each says which cases it applies to, and the agnostic
method takes the smallest of them and of joint convexity (otbound.numerics.baselines)."""

import json

import numpy as np
import pytest

import otbound
from otbound.choices import Quantity
from otbound.numerics.baselines import BASELINES, applicable, baseline_bounds
from otbound.numerics.mechanisms import gaussian
from tests.cli_runs import run_cli

POISSON = otbound.Subsampling("poisson", rate=0.1)
WOR = otbound.Subsampling("wor", batch_size=10, dataset_size=100)
WOR_GROUP = otbound.Subsampling("wor", batch_size=10, dataset_size=100, substitutions=2)


@pytest.mark.parametrize("setting, shape, quantity, names", [
    (POISSON, (0, 1), Quantity.RDP, ["001 Prop. E.4 (Zhu & Wang 2019)"]),
    (POISSON, (1, 0), Quantity.RDP, ["001 Prop. E.4 (Zhu & Wang 2019)"]),
    (POISSON, (1, 1), Quantity.RDP, []),
    (POISSON, (0, 1), Quantity.ADP, []),
    (WOR, (1, 1), Quantity.RDP, ["Wang et al. 2019 Thm. 9 and 27"]),
    (WOR, (1, 1), Quantity.ADP, ["Balle et al. 2018"]),
    (WOR_GROUP, (2, 2), Quantity.RDP, ["001 Prop. E.5"]),
    (WOR_GROUP, (2, 2), Quantity.ADP, ["001 Prop. E.5"]),
])
def test_each_baseline_knows_the_cases_it_applies_to(setting, shape, quantity, names):
    assert [baseline.name for baseline in applicable(setting, shape, quantity)] == names


def test_every_registered_baseline_applies_somewhere():
    cases = [(POISSON, (0, 1)), (WOR, (1, 1)), (WOR_GROUP, (2, 2))]
    used = {baseline for setting, shape in cases for quantity in Quantity
            for baseline in applicable(setting, shape, quantity)}
    assert used == set(BASELINES)


def test_the_agnostic_bound_is_never_above_an_applicable_baseline():
    """Without replacement, one substitution: the reported agnostic RDP is at most Wang et
    al.'s value at every order (the smaller of it and joint convexity)."""
    mechanism, alphas = gaussian(2.0), np.array([2.0, 3.0, 8.0, 20.0])
    profile = mechanism.group_log_psi
    (wang,) = baseline_bounds(WOR, (1, 1), Quantity.RDP, mechanism, profile, alphas)
    reported = np.array([b.value for b in otbound.rdp(WOR, mechanism, "agnostic", alphas)])
    assert np.all(reported <= wang.upper)


def test_each_value_names_the_sound_bound_it_is():
    """Where several sound bounds are compared, each value says which one it is: the one whose
    value it equals, and the smallest of them."""
    mechanism, alphas = gaussian(2.0), np.array([2.0, 8.0, 200.0])
    profile = mechanism.group_log_psi
    (wang,) = baseline_bounds(WOR, (1, 1), Quantity.RDP, mechanism, profile, alphas)
    agnostic = otbound.rdp(WOR, mechanism, "agnostic", alphas)
    for bound, value in zip(agnostic, wang.upper):
        assert bound.source in ("Wang et al. 2019 Thm. 9 and 27",
                                "joint convexity over the product coupling",
                                "joint convexity over 001 Thm. 3.6's coupling")
        if bound.source.startswith("Wang"):
            assert bound.value == pytest.approx(value, rel=1e-12)
        else:
            assert bound.value <= value
    tight = otbound.rdp(POISSON, mechanism, "tight", alphas)
    assert {b.source for b in tight} == {""}   # the pairs alone: nothing compared, no name
    # the three-point solver covers orders up to 256: above, the agnostic bound stands in
    wor_tight = otbound.rdp(WOR, mechanism, "tight", [2, 300])
    assert wor_tight[0].source == "the dominating pairs (tight)"
    assert wor_tight[1].source != wor_tight[0].source


def test_the_smallest_and_the_largest_keep_their_names():
    from otbound.numerics.rounding import Bounds, maximum, minimum

    a = Bounds(np.array([1.0, 5.0]), np.array([0.9, 4.9])).named("a")
    b = Bounds(np.array([2.0, 3.0]), np.array([1.9, 2.9])).named("b")
    assert list(minimum([a, b]).sources) == ["a", "b"]
    assert list(maximum([a, b]).sources) == ["b", "a"]
    assert minimum([a, Bounds(b.upper, b.estimate)]).sources is None   # one unnamed: no names
    assert [x.source for x in minimum([a, b]).as_list()] == ["a", "b"]


def test_the_command_line_names_the_bound_of_each_value(capsys):
    code, out, _ = run_cli(capsys, "rdp", "--scheme", "wor", "--batch-size", "10",
                           "--dataset-size", "100", "--mechanism", "gaussian", "--sigma", "2",
                           "--alpha", "2,8", "--method", "agnostic", "--json")
    result = json.loads(out)
    assert code == 0 and len(result["bound_used"]) == 2
    assert all(name for name in result["bound_used"])
