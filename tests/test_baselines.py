"""The published baselines are data: each says which cases it applies to, and the agnostic
method takes the smallest of them and of joint convexity (otbound.numerics.baselines)."""

import numpy as np
import pytest

import otbound
from otbound.choices import Quantity
from otbound.numerics.baselines import BASELINES, applicable, baseline_bounds
from otbound.numerics.mechanisms import gaussian

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
