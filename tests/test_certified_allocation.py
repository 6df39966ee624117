"""Issue 42 item 5: certified brackets for random allocation — both ends in ball arithmetic,
checked with sign against exact values (randomized response, composed over epochs), an
independent linear-grid reference (Gaussian), and the fast path's bracket."""

import math

import numpy as np
import pytest
from scipy.stats import binom

import otbound
from otbound.errors import UnsupportedOperation
from otbound.numerics.allocation import Allocation, EpochPair
from otbound.numerics.certified import certified_mode
from otbound.numerics.certified_allocation import certified_bracket, lattice
from otbound.numerics.loss_measures import LossMeasure
from otbound.numerics.ratio_laws import ratio_law
from tests.cli_runs import run_cli
from tests.test_allocation import reference_remove

THETA = 0.7


def exact_outcomes(steps: int, selected: int, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """Randomized response under random allocation, exactly: with ``n`` of the ``T`` ratios
    equal to ``a = θ/(1 − θ)`` (binomial under ``Q``) the likelihood ratio is ``Σ_j C(n, j) C(T −
    n, k − j) a^{2j − k}/C(T, k)``; ``(Q-masses, ratios)`` of the direction's pair ``(P, Q)``
    (the insertion swaps the roles: masses under ``P_k``, ratio inverted)."""
    a = THETA / (1 - THETA)
    n = np.arange(steps + 1)
    weights = binom.pmf(n, steps, 1 - THETA)
    ratio = np.array([sum(math.comb(m, j) * math.comb(steps - m, selected - j)
                          * a ** (2 * j - selected) for j in range(selected + 1))
                      for m in n]) / math.comb(steps, selected)
    if direction == "remove":
        return weights, ratio
    return weights * ratio, 1 / ratio


def exact_delta(steps: int, selected: int, direction: str, epochs: int, epsilon: float) -> float:
    """``E_Q[(Π_e R_e − e^ε)_+]`` over ``epochs`` independent epochs, enumerated."""
    weights, ratio = exact_outcomes(steps, selected, direction)
    total_w, total_r = weights, ratio
    for _ in range(epochs - 1):
        total_w = np.outer(total_w, weights).ravel()
        total_r = np.outer(total_r, ratio).ravel()
    return float(total_w @ np.maximum(total_r - math.exp(epsilon), 0.0))


@pytest.mark.parametrize("steps, selected, epochs", [(12, 1, 2), (12, 3, 1), (9, 1, 3)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_the_certified_ends_hold_the_exact_value_with_sign(steps, selected, epochs, direction):
    """Randomized response (θ = 0.7) composed over epochs: the certified lower end is at or
    below the exact δ(ε) and the upper end at or above it, with no tolerance; and the lower end
    is close (the statistic is sufficient here, up to the losses rounded to the grid)."""
    law = ratio_law(otbound.randomized_response(THETA))
    found = certified_bracket(EpochPair(Allocation(steps, selected, law), direction), epochs,
                              1e-4)
    for epsilon in (0.0, 0.3, 1.0, 2.0):
        exact = exact_delta(steps, selected, direction, epochs, epsilon)
        lower, upper = found.lower.delta(epsilon), found.upper.delta(epsilon)
        assert lower <= exact <= upper
        assert lower >= exact * (1 - 5e-3) - 1e-15


def test_a_measure_three_percent_low_is_caught():
    """The comparison above can fail: the upper measure with its masses scaled by 0.97 falls
    below the exact value."""
    law = ratio_law(otbound.randomized_response(THETA))
    upper = certified_bracket(EpochPair(Allocation(12, 1, law), "remove"), 2, 1e-4).upper
    from flint import arb

    low = LossMeasure(upper.discretisation, upper.low,
                      tuple(m * arb(0.97) for m in upper.masses), upper.infinity, True)
    assert low.delta(0.3) < exact_delta(12, 1, "remove", 2, 0.3)


@pytest.mark.parametrize("steps, sigma", [(10, 1.0), (10, 2.0)])
def test_the_gaussian_bracket_meets_an_independent_reference_and_the_fast_path(steps, sigma):
    """Against ``S`` on an independent linear grid of 2²⁰ points (bracket under 1 %) and the
    fast path's bracket: the certified upper end is at or above both lower ends, the certified
    lower end at or below both upper ends, and the certified bracket is under 0.5 % wide."""
    pair = EpochPair(Allocation(steps, 1, ratio_law(otbound.gaussian(sigma))), "remove")
    found = certified_bracket(pair, 1, 1e-4)
    for epsilon in (0.5, 1.0):
        lower, upper = reference_remove(steps, sigma, epsilon)
        fast_lower = pair.lower_pmf().deltas(np.array([epsilon]))[0]
        fast_upper = pair.upper_pmf().deltas(np.array([epsilon]))[0]
        ours_lower, ours_upper = found.lower.delta(epsilon), found.upper.delta(epsilon)
        assert ours_upper >= max(lower, fast_lower)
        assert ours_lower <= min(upper, fast_upper)
        assert ours_upper - ours_lower <= 5e-3 * ours_upper


def test_epsilon_and_delta_read_back_consistently():
    """ε(δ) of the upper end has δ at or below the target there, and the lower end's ε(δ)
    has δ at or above it just below; the ends are ordered."""
    pair = EpochPair(Allocation(10, 1, ratio_law(otbound.laplace(1.0))), "remove")
    found = certified_bracket(pair, 2, 1e-4)
    for delta in (1e-3, 1e-6):
        upper, lower = found.upper.epsilon(delta), found.lower.epsilon(delta)
        assert lower <= upper
        assert found.upper.delta(upper) <= delta
        assert found.lower.delta(lower * (1 - 1e-9)) >= delta


def test_account_certified_reports_both_ends_and_says_so():
    """``account`` in certified mode: the details name the certified bracket and its lower end,
    which is at most the upper end; both are within 0.5 % of the fast path's bracket."""
    setting, mechanism = otbound.RandomAllocation(10), otbound.gaussian(2.0)
    fast = otbound.account(setting, mechanism, 2, delta=1e-6)
    with certified_mode():
        found = otbound.account(setting, mechanism, 2, delta=1e-6)
    assert "ball arithmetic" in found.details["certified_bracket"]
    assert found.details["epsilon_lower"] <= found.epsilon
    assert found.epsilon >= fast.details["epsilon_lower"]
    assert found.details["epsilon_lower"] <= fast.epsilon
    assert abs(found.epsilon - fast.epsilon) <= 5e-3 * fast.epsilon


@pytest.mark.parametrize("options, message", [
    ({"accountant": "rdp"}, "certified epoch-level accounting is by PLD"),
    ({"method": "posthoc"}, "method='tight'"),
])
def test_what_certified_epochs_do_not_cover_is_refused(options, message):
    with certified_mode(), pytest.raises(UnsupportedOperation, match=message):
        otbound.account(otbound.RandomAllocation(10), otbound.gaussian(2.0), 1, delta=1e-6,
                        **options)


def test_a_group_and_noise_too_small_for_the_lattice_are_refused():
    with certified_mode(), pytest.raises(UnsupportedOperation, match="one record's insertion"):
        otbound.account(otbound.RandomAllocation(10, group=2), otbound.gaussian(2.0), 1,
                        delta=1e-6)
    with pytest.raises(UnsupportedOperation, match="lattice of .* points"):
        lattice(Allocation(10, 1, ratio_law(otbound.gaussian(0.3))))


def test_the_command_line_runs_certified_epochs_and_refuses_rdp(capsys):
    code, out, err = run_cli(capsys, "account", "--scheme", "random-allocation",
                             "--steps-per-epoch", "10", "--epochs", "1", "--mechanism",
                             "gaussian", "--sigma", "2", "--delta", "1e-6", "--certified",
                             "--json")
    assert code == 0, err
    assert '"certified": true' in out and '"epsilon_lower"' in out
    code, out, err = run_cli(capsys, "account", "--scheme", "balls-in-bins", "--batch-size",
                             "10", "--dataset-size", "100", "--epochs", "1", "--mechanism",
                             "gaussian", "--sigma", "2", "--delta", "1e-6", "--certified",
                             "--accountant", "rdp")
    assert code == 2 and "--accountant pld or best" in err and "Traceback" not in err
