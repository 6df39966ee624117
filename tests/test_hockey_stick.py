"""δ(ε) of dominating pairs: the closed form against an independent high-precision quadrature."""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.numerics.hockey_stick import check_epsilons, hockey_stick, hockey_stick_curve
from otbound.numerics.families import FAMILIES, GAUSSIAN, LAPLACE
from otbound.numerics.pairs import FinitePair, MixturePair
from otbound.verify import high_precision as reference
from quadrature_rows import ON_THE_LINE, pair, some

CASES = [(family, scale, inserted, removed, rate, epsilon)
         for family in ON_THE_LINE for scale in (0.5, 2.0)
         for inserted, removed in ((0, 1), (1, 0), (0, 4), (4, 0), (2, 3))
         for rate in (1e-3, 0.2) for epsilon in (0.0, 0.3, 2.0, 6.0)]


@pytest.mark.parametrize("family, scale, inserted, removed, rate, epsilon", some(CASES, 7))
def test_delta_agrees_with_high_precision_quadrature(family, scale, inserted, removed, rate,
                                                    epsilon):
    p = pair(family, scale, inserted, removed, rate)
    bound = hockey_stick(p, epsilon)
    exact, error = reference.precise_hockey_stick(p, epsilon)
    exact = float(exact)
    if exact == 0 or bound.value == 0:
        assert bound.value == 0 and exact == 0
        return
    assert bound.value >= exact and bound.value - exact <= 1e-9 * exact


def test_delta_is_exactly_zero_above_the_supremum_of_the_ratio():
    rate, group = 0.1, 3
    insertion = pair(GAUSSIAN, 1.0, group, 0, rate)   # P = N(0): sup P/Q = (1 − r)^−K
    sup = -group * math.log1p(-rate)
    assert hockey_stick(insertion, sup).value == 0.0
    assert hockey_stick(insertion, sup * 0.99).value > 0.0
    laplace = pair(LAPLACE, 1.0, 0, 2, rate)
    assert hockey_stick(laplace, 5.0).value == 0.0


def test_total_variation_at_epsilon_zero():
    p = MixturePair(GAUSSIAN, 1.0, [1.0], [0.0], [0.0], [0.0])
    tv = math.erf(0.5 / math.sqrt(2))   # TV(N(1,1), N(0,1)) = 2Φ(1/2) − 1
    bound = hockey_stick(p, 0.0)
    assert 0 <= bound.value - tv <= 2 * bound.error + 1e-16


def test_finite_pairs():
    p = FinitePair([0.75, 0.25], [0.25, 0.75])
    bound = hockey_stick(p, math.log(2))
    assert 0 <= bound.value - (0.75 - 2 * 0.25) <= bound.error + 1e-16
    assert hockey_stick_curve(p, []) == []
    assert hockey_stick_curve(pair(GAUSSIAN, 1.0, 1, 1, 0.1), []) == []


@settings(max_examples=40)
@given(family=st.sampled_from(list(FAMILIES.values())), scale=st.floats(0.3, 5.0),
       inserted=st.integers(0, 6), removed=st.integers(0, 6), rate=st.floats(1e-6, 0.6),
       epsilons=st.lists(st.floats(0, 20), min_size=2, max_size=6))
def test_delta_is_non_increasing_in_epsilon(family, scale, inserted, removed, rate, epsilons):
    epsilons = np.sort(np.array(epsilons))
    deltas = np.array([b.value for b in hockey_stick_curve(
        pair(family, scale, inserted, removed, rate), epsilons)])
    assert np.all((deltas >= 0) & (deltas <= 1 + 1e-12))
    assert np.all(np.diff(deltas) <= 1e-12 * deltas[:-1] + 1e-300)


@pytest.mark.parametrize("family", ON_THE_LINE)
@pytest.mark.parametrize("epsilon", [-3.0, -0.3, -1e-5])
def test_negative_epsilon_matches_the_swapped_pair(family, epsilon):
    """``H_γ(P ‖ Q) = 1 − γ + γ H_{1/γ}(Q ‖ P)``; the right side from the mpmath oracle."""
    p = pair(family, 1.5, 1, 2, 0.1)
    bound = hockey_stick(p, epsilon)
    swapped, _ = reference.precise_hockey_stick(p.swapped().reflected(), -epsilon)
    with mp.workdps(40):
        exact = 1 - mp.exp(epsilon) + mp.exp(epsilon) * swapped
    assert 0 <= bound.value - float(exact) <= 2 * bound.error + 1e-16


def test_bad_epsilon_and_non_monotone_pairs_are_refused():
    with pytest.raises(InvalidSpecification,
                       match=r"^epsilon must be in \[-1000, 1000\], got -1001"):
        check_epsilons([-1001.0])
    with pytest.raises(InvalidSpecification, match="epsilon must be finite"):
        hockey_stick(pair(GAUSSIAN, 1.0, 0, 1, 0.1), math.nan)
    crossed = MixturePair(GAUSSIAN, 1.0, [-1.0], [0.0], [0.0], [0.0])
    with pytest.raises(UnsupportedOperation, match="monotone likelihood ratio"):
        hockey_stick(crossed, 1.0)


def test_rounding_arrays_rounds_each_entry_as_one_number():
    from otbound.numerics.rounding import Bounds, NumericBound

    estimates = np.array([0.0, -1e-20, 0.25, 1e-300, math.inf, 3.0])
    errors = np.array([0.0, 1e-25, 1e-17, 0.0, 0.0, 2.0])
    found = Bounds.rounded_up(estimates, errors)
    for estimate, error, upper in zip(estimates, errors, found.upper):
        assert upper == NumericBound.rounded_up(float(estimate), float(error)).value
    with pytest.raises(UnsupportedOperation):
        Bounds.rounded_up(np.array([1.0, math.nan]), np.array([0.0, 0.0]))
    with pytest.raises(UnsupportedOperation):
        Bounds.rounded_up(np.array([1.0]), np.array([-1.0]))


def test_a_tolerated_error_is_still_added_to_delta():
    """Within ``tolerating``, a δ far below its two terms (ε = 3–8 for N(0.25, 1) against
    N(0, 1): relative errors above 1e-11) is kept in double precision, raised by its error, and
    stays at or above the 60-digit reference; outside, it is recomputed (the same or tighter)."""
    from otbound.numerics.hockey_stick import _deltas_at, hockey_stick_bounds, tolerating

    gaussian = MixturePair(GAUSSIAN, 1.0, np.array([0.25]), np.zeros(1), np.zeros(1),
                           np.zeros(1))
    epsilons = np.linspace(3.0, 8.0, 11)
    escalated = []
    original = _deltas_at.__globals__["_precise_delta"]

    def counting(*args):
        escalated.append(args[1])
        return original(*args)

    _deltas_at.__globals__["_precise_delta"] = counting
    try:
        with tolerating(1e-6):
            relaxed = hockey_stick_bounds(gaussian, epsilons)
        assert not escalated
        strict = hockey_stick_bounds(gaussian, epsilons)
        assert escalated   # the default tolerance recomputes them
    finally:
        _deltas_at.__globals__["_precise_delta"] = original
    for epsilon, upper, precise in zip(epsilons, relaxed.upper, strict.upper):
        exact, error = reference.precise_hockey_stick(gaussian, epsilon)
        assert upper >= float(exact + error) and upper <= float(exact) * (1 + 1e-6)
        assert precise <= upper * (1 + 1e-12)
