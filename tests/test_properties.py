"""Properties every method must have (issue 9): ε(α) never decreases, δ(ε) never increases, and
the tight bound is never above the agnostic or the post-hoc one (which bound the same truth)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from otbound.choices import Method
from otbound.numerics.mechanisms import RandomizedResponse, gaussian, laplace
from otbound.numerics.one_step import adp, rdp
from otbound.numerics.settings import Subsampling

MECHANISMS = st.one_of(
    st.floats(0.3, 100).map(gaussian),
    st.floats(0.3, 100).map(laplace),
    st.floats(0.5000001, 0.999999).map(RandomizedResponse))
POISSON = st.builds(lambda rate, k: Subsampling("poisson", rate=rate, group=k),
                    st.floats(1e-6, 1.0), st.integers(1, 8))
SHAPES = st.builds(lambda rate, i, r: Subsampling("poisson", rate=rate, insertions=i, removals=r),
                   st.floats(1e-6, 1.0), st.integers(0, 4), st.integers(1, 4))
WITHOUT_REPLACEMENT = st.builds(
    lambda n, q, k: Subsampling("wor", batch_size=max(1, q * n // 100), dataset_size=n,
                                substitutions=k),
    st.integers(20, 10 ** 5), st.integers(1, 50), st.integers(1, 8))
ORDERS = st.lists(st.floats(1.001, 1e4), min_size=2, max_size=5)
EPSILONS = st.lists(st.floats(0, 50), min_size=2, max_size=5)


def curve(evaluate, setting, mechanism, method, points):
    points = sorted(points)
    return np.array([b.value for b in evaluate(setting, mechanism, method, points)])


@settings(max_examples=20)
@given(setting=st.one_of(POISSON, SHAPES), mechanism=MECHANISMS,
       method=st.sampled_from(list(Method)), orders=ORDERS)
def test_epsilon_never_decreases_in_the_order(setting, mechanism, method, orders):
    values = curve(rdp, setting, mechanism, method, orders)
    assert np.all(np.isfinite(values)) and np.all(values >= 0)
    assert np.all(np.diff(values) >= 0)


@settings(max_examples=20)
@given(setting=st.one_of(POISSON, SHAPES), mechanism=MECHANISMS,
       method=st.sampled_from(list(Method)), epsilons=EPSILONS)
def test_delta_never_increases_in_epsilon(setting, mechanism, method, epsilons):
    values = curve(adp, setting, mechanism, method, epsilons)
    assert np.all((values >= 0) & (values <= 1))
    assert np.all(np.diff(values) <= 0)


@settings(max_examples=20)
@given(setting=st.one_of(POISSON, SHAPES, WITHOUT_REPLACEMENT), theta=st.floats(0.5000001, 0.999),
       orders=ORDERS, epsilons=EPSILONS)
def test_tight_is_never_above_agnostic_or_posthoc_randomized_response(setting, theta, orders,
                                                                       epsilons):
    check_ordering(setting, RandomizedResponse(theta), orders, epsilons)


@settings(max_examples=15)
@given(setting=st.one_of(POISSON, SHAPES), mechanism=MECHANISMS, orders=ORDERS,
       epsilons=EPSILONS)
def test_tight_is_never_above_agnostic_or_posthoc(setting, mechanism, orders, epsilons):
    check_ordering(setting, mechanism, orders, epsilons)


def check_ordering(setting, mechanism, orders, epsilons):
    """The tight estimate (value minus its error) is at most every other method's bound."""
    for evaluate, points in ((rdp, sorted(orders)), (adp, sorted(epsilons))):
        tight = evaluate(setting, mechanism, Method.TIGHT, points)
        for method in (Method.AGNOSTIC, Method.POSTHOC):
            other = evaluate(setting, mechanism, method, points)
            for t, o in zip(tight, other):
                assert t.value - t.error <= o.value, (method, t, o)


@settings(max_examples=20)
@given(setting=st.one_of(POISSON, SHAPES), mechanism=MECHANISMS, orders=ORDERS)
def test_separate_calls_agree_on_the_order_within_error_bars(setting, mechanism, orders):
    """Without the curve's own monotone envelope: one order at a time."""
    orders = sorted(orders)
    single = [rdp(setting, mechanism, Method.TIGHT, [a])[0] for a in orders]
    for low, high in zip(single, single[1:]):
        assert low.value - low.error <= high.value
