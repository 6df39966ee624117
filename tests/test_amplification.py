"""Tight, mechanism-agnostic and post-hoc bounds: their order, where they coincide, bad input."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otbound.choices import Method
from otbound.errors import InvalidSpecification
from otbound.numerics.mechanisms import RandomizedResponse, gaussian, laplace
from otbound.numerics.one_step import adp, rdp
from otbound.numerics.settings import Subsampling

MECHANISMS = st.sampled_from([gaussian(0.8), gaussian(3.0), laplace(0.7), laplace(2.0),
                              RandomizedResponse(0.7)])


def values(bounds):
    return np.array([b.value for b in bounds])


@settings(max_examples=25)
@given(mechanism=MECHANISMS, rate=st.floats(1e-4, 0.5), group=st.integers(1, 4),
       alphas=st.lists(st.sampled_from([1.5, 2.0, 3.0, 7.3, 16.0, 50.0]), min_size=1,
                       max_size=3, unique=True))
def test_tight_rdp_is_below_agnostic_and_posthoc(mechanism, rate, group, alphas):
    _assert_tight_is_smallest(rdp, Subsampling("poisson", rate=rate, group=group), mechanism,
                              alphas, floor=1e-15)


@settings(max_examples=25)
@given(mechanism=MECHANISMS, rate=st.floats(1e-4, 0.5), group=st.integers(1, 4),
       epsilons=st.lists(st.sampled_from([0.0, 0.1, 0.5, 1.0, 3.0]), min_size=1, max_size=3,
                         unique=True))
def test_tight_adp_is_below_agnostic_and_posthoc(mechanism, rate, group, epsilons):
    _assert_tight_is_smallest(adp, Subsampling("poisson", rate=rate, group=group), mechanism,
                              epsilons, floor=1e-14)


def _assert_tight_is_smallest(evaluate, setting, mechanism, points, floor: float) -> None:
    tight = values(evaluate(setting, mechanism, Method.TIGHT, points))
    for method in (Method.AGNOSTIC, Method.POSTHOC):
        other = values(evaluate(setting, mechanism, method, points))
        assert np.all(tight <= other * (1 + 1e-9) + floor)


@pytest.mark.parametrize("mechanism", [gaussian(0.7), gaussian(2.0), laplace(1.0),
                                       RandomizedResponse(0.75)])
@pytest.mark.parametrize("rate", [1e-3, 0.2])
def test_tight_and_agnostic_adp_coincide_for_one_element(mechanism, rate):
    # 003 Sec. 3.3: for K = 1 the tight bound equals the bound of Balle et al. (2018).
    epsilons = [0.0, 0.2, 1.0, 2.5]
    setting = Subsampling("poisson", rate=rate, group=1)
    tight = values(adp(setting, mechanism, Method.TIGHT, epsilons))
    agnostic = values(adp(setting, mechanism, Method.AGNOSTIC, epsilons))
    assert np.allclose(tight, agnostic, rtol=1e-9, atol=1e-300)


def test_removal_rdp_at_integer_orders_is_the_zhu_wang_expansion():
    # For the Gaussian, E.4's binomial expansion is exact: agnostic = tight for removal.
    setting = Subsampling("poisson", rate=0.05, insertions=0, removals=1)
    orders = [2.0, 5.0, 40.0]
    tight = values(rdp(setting, gaussian(1.1), Method.TIGHT, orders))
    agnostic = values(rdp(setting, gaussian(1.1), Method.AGNOSTIC, orders))
    assert np.allclose(tight, agnostic, rtol=1e-12)


def test_tight_group_privacy_beats_post_hoc_for_large_groups():
    setting = Subsampling("poisson", rate=0.2, group=8)
    orders = [2.0, 4.0, 16.0]
    tight = values(rdp(setting, gaussian(1.0), Method.TIGHT, orders))
    posthoc = values(rdp(setting, gaussian(1.0), Method.POSTHOC, orders))
    assert np.all(tight < posthoc) and tight[0] < 0.5 * posthoc[0]


def test_without_replacement():
    setting = Subsampling("wor", batch_size=10, dataset_size=1000)
    rr = RandomizedResponse(0.75)
    tight = values(rdp(setting, rr, Method.TIGHT, [2.0, 10.0]))
    agnostic = values(rdp(setting, rr, Method.AGNOSTIC, [2.0, 10.0]))
    assert np.all(tight < agnostic)
    # one substitution: the certified three-point solver, below the agnostic bound
    (certified,), (loose,) = (values(rdp(setting, gaussian(1.0), method, [2.0]))
                              for method in (Method.TIGHT, Method.AGNOSTIC))
    assert 0 < certified < loose
    group = Subsampling("wor", batch_size=10, dataset_size=1000, substitutions=3)
    # no exact solver: the smaller of the relaxed bound and the agnostic one, both sound
    relaxed, agnostic = (values(adp(group, gaussian(1.0), method, [0.5, 1.0]))
                         for method in (Method.TIGHT, Method.AGNOSTIC))
    assert np.all(0 < relaxed) and np.all(relaxed <= agnostic)
    tight, posthoc = (values(adp(group, rr, method, [0.01, 0.5])) for method in
                      (Method.TIGHT, Method.POSTHOC))
    assert tight[0] > 0 and np.all(tight <= posthoc)


@pytest.mark.parametrize("make, message", [
    (lambda: Subsampling("poisson", rate=1.5), r"^rate must be in \[0, 1\], got 1.5"),
    (lambda: Subsampling("poisson", rate=-0.1), r"^rate must be in \[0, 1\]"),
    (lambda: Subsampling("poisson", rate=0.1, group=0), "^group must be an integer >= 1, got 0"),
    (lambda: Subsampling("poisson", rate=0.1, insertions=-1, removals=1),
     "^insertions must be an integer >= 0, got -1"),
    (lambda: Subsampling("poisson", rate=0.1, group=2, removals=1), "either group or"),
    (lambda: Subsampling("wor", batch_size=10, dataset_size=10), "smaller than dataset_size"),
    (lambda: Subsampling("wor", batch_size=0, dataset_size=10), "^batch_size must be an integer"),
    (lambda: Subsampling("wor", batch_size=2, dataset_size=10, substitutions=11),
     "^substitutions must be <= dataset_size"),
    (lambda: Subsampling("bernoulli"), "^scheme must be one of 'poisson', 'wor'"),
])
def test_invalid_settings_name_the_argument(make, message):
    with pytest.raises(InvalidSpecification, match=message):
        make()
