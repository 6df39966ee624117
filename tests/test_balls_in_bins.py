"""Issue 28: balls-in-bins sampling over an epoch — its distributions of log S against exact
moments, its privacy profile against an independent computation, its accounting over epochs."""

import math

import mpmath as mp
import numpy as np
import pytest
from scipy.special import ndtr

from otbound.numerics.balls_in_bins import BallsInBins, epoch_profile
from otbound.numerics.log_sums import LogSum


def exact_moment(steps: int, sigma: float, order: int) -> mp.mpf:
    """``E_Q[W̄^α]`` for integer ``α``: ``W̄ = (1/T) Σ_t L_t`` with independent ``L_t``,
    ``E[L^j] = e^{j(j−1)/(2σ²)}``, so ``E[(Σ L_t)^α] = α! [z^α] F(z)^T`` with ``F(z) = Σ_j
    E[L^j] z^j/j!`` (the multinomial expansion; every term positive)."""
    with mp.workdps(50):
        series = [mp.e ** (mp.mpf(j * (j - 1)) / (2 * mp.mpf(sigma) ** 2)) / mp.factorial(j)
                  for j in range(order + 1)]
        power = [mp.mpf(1)] + [mp.mpf(0)] * order
        for _ in range(steps):
            power = [mp.fsum(power[i] * series[k - i] for i in range(k + 1))
                     for k in range(order + 1)]
        return mp.factorial(order) * power[order] / mp.mpf(steps) ** order


def grid_moment(dist: LogSum, steps: int, order: int) -> float:
    """``Σ_k m_k (S_k/T)^α`` over the grid (mass beyond it left out)."""
    return float(np.sum(dist.mass * np.exp(order * (dist.points() - math.log(steps)))))


@pytest.mark.parametrize("steps, sigma", [(1, 1.0), (3, 2.0), (10, 1.0), (37, 1.5)])
@pytest.mark.parametrize("order", [1, 2, 4])
def test_rounded_distributions_bracket_the_exact_moments(steps, sigma, order):
    """``W̄^α`` increases with ``S``: the moment of ``S`` rounded down is below the exact one,
    that of ``S`` rounded up above it (up to the tail beyond the grid, < 1e-30), and close:
    each rounding moves ``log S`` by less than a grid step. Under ``P`` the moment of order α
    is ``E_Q[W̄^{α+1}]`` (``dP/dQ = W̄``)."""
    profile = epoch_profile(steps, sigma)
    for low, high, exact in ((profile.q_down, profile.q_up, exact_moment(steps, sigma, order)),
                             (profile.p_down, profile.p_up,
                              exact_moment(steps, sigma, order + 1))):
        below, above = grid_moment(low, steps, order), grid_moment(high, steps, order)
        assert below <= exact * (1 + 1e-12)
        assert exact <= above * (1 + 1e-12)
        levels = 2 * math.ceil(math.log2(steps + 1)) + 1
        assert above / below <= math.exp(2 * order * levels * 1e-3)
        assert above / exact >= 1   # never below: checked with sign, not only closeness


def test_one_step_is_the_gaussian_mechanism():
    """``T = 1``: the pair is ``N(1, σ²)`` against ``N(0, σ²)`` whose δ(ε) is known in closed
    form (Balle & Wang 2018); both directions are bracketed by the profile's bounds."""
    sigma = 1.3
    profile = epoch_profile(1, sigma)
    for eps in (0.1, 0.5, 1.0, 2.0):
        exact = ndtr(0.5 / sigma - eps * sigma) - math.exp(eps) * ndtr(-0.5 / sigma - eps * sigma)
        for bracket in (profile.remove(eps), profile.add(eps)):
            assert bracket.lower[0] <= exact <= bracket.upper[0]
            assert bracket.upper[0] <= exact * 1.01


def reference_remove(steps: int, sigma: float, epsilon: float, cells: int = 2 ** 20,
                     reach: float = 5.0) -> tuple[float, float]:
    """``δ_remove(ε) = E_P[(1 − e^ε T/S)_+]`` by an independent method: ``S`` on a *linear*
    grid of ``cells`` points (step ``h``), each term rounded up (down) to it, sums exact on the
    grid, convolved by FFT; mass above ``reach · T e^ε`` counted as 1 (up) or as ``S`` at the
    top (down)."""
    threshold = steps * math.exp(epsilon)
    h = reach * threshold / (cells - 1)
    points = h * np.arange(cells)
    s = 1 / sigma

    def term(mean: float, up: bool) -> tuple[np.ndarray, float]:
        with np.errstate(divide="ignore"):
            cdf = ndtr((np.log(points) - mean) / s)
        if up:   # (x_{k−1}, x_k] → x_k; above the top: +∞
            return np.diff(cdf, prepend=0.0), 1 - cdf[-1]
        return np.append(np.diff(cdf), 1 - cdf[-1]), 0.0   # [x_k, x_{k+1}) → x_k

    def add(a, b, up):
        size = 2 * cells   # a power of two
        full = np.fft.irfft(np.fft.rfft(a[0], size) * np.fft.rfft(b[0], size), size)
        full = np.maximum(full, 0.0)
        mass, over = full[:cells], full[cells:].sum()
        if up:
            return mass, a[1] + b[1] - a[1] * b[1] + over
        mass[-1] += over   # rounded down: above the top counts as the top
        return mass, 0.0

    found = []
    for up in (True, False):
        plain, total = term(-s * s / 2, up), term(s * s / 2, up)
        count, power = steps - 1, plain
        while count:
            if count & 1:
                total = add(total, power, up)
            count >>= 1
            if count:
                power = add(power, power, up)
        with np.errstate(divide="ignore"):
            payoff = np.maximum(1 - threshold / points, 0.0)
        found.append(float(payoff @ total[0]) + total[1])
    upper, lower = found
    return lower, upper


@pytest.mark.parametrize("steps, sigma, epsilons", [(10, 1.0, (0.5, 1.0, 2.0)),
                                                     (100, 0.8, (0.5, 1.0, 2.0))])
def test_the_remove_profile_agrees_with_an_independent_computation(steps, sigma, epsilons):
    """Issue 28's acceptance cases: the profile's upper bound is never below the independent
    bracket's lower end and within 10 % of its upper end; the two brackets overlap."""
    profile = epoch_profile(steps, sigma)
    for eps in epsilons:
        lower, upper = reference_remove(steps, sigma, eps)
        ours = profile.remove(eps)
        assert upper - lower <= 0.01 * upper   # the reference is sharp enough to judge by
        assert ours.upper[0] >= lower
        assert ours.lower[0] <= upper
        assert ours.upper[0] <= 1.10 * upper


def test_add_is_smaller_than_remove_at_the_acceptance_points():
    """The insertion direction (``E_Q[(1 − e^ε W̄)_+]``) is below the removal direction there
    (its lower bound is below remove's upper bound: the epoch's profile is remove's)."""
    for steps, sigma in ((10, 1.0), (100, 0.8)):
        profile = epoch_profile(steps, sigma)
        eps = np.array([0.5, 1.0, 2.0])
        assert np.all(profile.add(eps).upper < profile.remove(eps).lower)


def test_accounting_over_epochs_composes_the_epoch():
    """Ten epochs cost more than one and less than ten times one (ε at δ); δ at ε is
    consistent with ε at δ; one epoch's δ(ε) is at least the profile's own upper bound at ε
    (the PLD is pessimistic)."""
    import otbound

    setting = BallsInBins(batch_size=10, dataset_size=100)
    mechanism = otbound.gaussian(1.0)
    one = otbound.account(setting, mechanism, 1, delta=1e-5)
    ten = otbound.account(setting, mechanism, 10, delta=1e-5)
    assert one.epsilon < ten.epsilon < 10 * one.epsilon
    assert ten.details["steps_per_epoch"] == 10
    back = otbound.account(setting, mechanism, 10, epsilon=ten.epsilon)
    assert back.delta <= 1e-5 * (1 + 1e-6)
    at_one = otbound.account(setting, mechanism, 1, epsilon=1.0).delta
    assert at_one >= epoch_profile(10, 1.0).remove(1.0).upper[0]


@pytest.mark.parametrize("kwargs, message", [
    (dict(batch_size=0, dataset_size=10), "batch_size must be an integer >= 1"),
    (dict(batch_size=20, dataset_size=10), "batch_size must be at most dataset_size"),
    (dict(batch_size=2.5, dataset_size=10), "batch_size must be an integer >= 1")])
def test_bad_settings_are_refused(kwargs, message):
    from otbound.errors import InvalidSpecification

    with pytest.raises(InvalidSpecification, match=message):
        BallsInBins(**kwargs)


def test_other_mechanisms_and_accountants_are_refused():
    import otbound
    from otbound.errors import UnsupportedOperation

    setting = BallsInBins(batch_size=10, dataset_size=100)
    with pytest.raises(UnsupportedOperation, match="Gaussian mechanism only"):
        otbound.account(setting, otbound.laplace(1.0), 1, delta=1e-5)
    with pytest.raises(UnsupportedOperation, match="accounted by its PLD"):
        otbound.account(setting, otbound.gaussian(1.0), 1, delta=1e-5, accountant="rdp")


def test_a_simulated_epoch_of_balls_in_bins_agrees_with_the_profile():
    """Issue 28's independent Monte Carlo: the real sampling — 30 records, each put in one of
    T = 10 steps uniformly, a toy query (the target record contributes 1, the others 0) and
    Gaussian noise per step — gives δ_remove(ε) = E_D[(1 − e^ε/W̄)_+] (W̄ the density ratio of
    the outputs with and without the target) within 5 standard errors of the profile's
    bracket."""
    steps, sigma, records, samples = 10, 1.0, 30, 400_000
    rng = np.random.default_rng(28)
    step_of = rng.integers(0, steps, size=(samples, records))   # record 0 is the target
    sums = np.zeros((samples, steps))
    np.put_along_axis(sums, step_of[:, :1], 1.0, axis=1)        # the others contribute 0
    outputs = sums + sigma * rng.standard_normal((samples, steps))
    ratio = np.exp((outputs - 0.5) / sigma ** 2).mean(axis=1)
    profile = epoch_profile(steps, sigma)
    for eps in (0.5, 1.0):
        values = np.maximum(1 - math.exp(eps) / ratio, 0.0)
        mean, error = values.mean(), values.std() / math.sqrt(samples)
        bracket = profile.remove(eps)
        assert bracket.lower[0] - 5 * error <= mean <= bracket.upper[0] + 5 * error


def test_the_shuffling_events_agree_with_a_simulated_shuffle():
    """The lower bound's event probabilities, against the real sampling: a random permutation
    of T·b records cut into T batches of b, every other record contributing −1, the target +1
    (or 0 when zeroed out), Gaussian noise per batch."""
    from otbound.numerics.shuffling import _events, lower_delta

    steps, size, sigma, samples = 10, 3, 1.0, 200_000
    rng = np.random.default_rng(24)
    position = np.argsort(rng.random((samples, steps * size)), axis=1)[:, 0]   # the target's
    batch = position // size
    threshold = 2.5
    predicted = _events(steps, sigma, np.array([threshold]))
    for target, expected in ((1.0, predicted[0][0]), (0.0, predicted[1][0])):
        sums = np.full((samples, steps), -float(size))
        sums[np.arange(samples), batch] += 1 + target   # −(b − 1) − 1 + 1 + target
        outputs = sums + size + sigma * rng.standard_normal((samples, steps))
        found = (outputs.max(axis=1) > threshold).mean()
        error = math.sqrt(expected * (1 - expected) / samples)
        assert abs(found - expected) <= 5 * error
    best = lower_delta(steps, sigma, 0.5)
    at_threshold = predicted[0][0] - math.exp(0.5) * predicted[1][0]
    assert best >= at_threshold * (1 - 1e-12)   # the maximum over C is at least one C's value


def test_the_shuffling_lower_bound_composes_the_largest_outputs_exactly_from_below():
    """Two epochs: the composed lower bound is at most the exact δ of the product of the
    largest outputs' cell laws (every pair of cells summed directly) and close to it; one
    epoch is at most the best threshold event's bound and close to it; more epochs, larger ε."""
    from otbound.numerics.shuffling import (ShuffledBatches, largest_output, lower_delta,
                                            shuffled_lower_bound)

    steps, sigma = 10, 1.0
    setting = ShuffledBatches(batch_size=5, dataset_size=5 * steps)
    p_cells, q_cells = largest_output(steps, sigma)
    kept = (p_cells > 1e-30) & (q_cells > 1e-30)
    p_two = np.outer(p_cells[kept], p_cells[kept]).ravel()
    q_two = np.outer(q_cells[kept], q_cells[kept]).ravel()
    for eps in (1.0, 3.0):
        exact = float(np.maximum(p_two - math.exp(eps) * q_two, 0.0).sum())
        found = shuffled_lower_bound(setting, sigma, 2, epsilon=eps).delta
        assert found <= exact and found >= 0.98 * exact
        one = shuffled_lower_bound(setting, sigma, 1, epsilon=eps).delta
        events = lower_delta(steps, sigma, eps)
        assert one <= events * (1 + 1e-9) and one >= 0.98 * events
    epsilons = [shuffled_lower_bound(setting, sigma, e, delta=1e-5).epsilon for e in (1, 2, 5)]
    assert epsilons[0] < epsilons[1] < epsilons[2]


def test_shuffled_batches_are_bounded_by_the_mechanism_once_per_epoch_and_from_below():
    """The upper bound (derivation epoch-shuffling: no amplification) is the Gaussian mechanism
    composed over the epochs, never below its exact value (Balle & Wang 2018's formula for
    N(0, 1) against N(√E/σ, 1)); the CLI prints it with the lower bound, each said to be one."""
    import subprocess
    import sys

    from scipy.stats import norm

    import otbound

    epochs, sigma = 2, 1.0
    found = otbound.account(otbound.ShuffledBatches(10, 100), otbound.gaussian(sigma), epochs,
                            epsilon=1.0)
    mu = math.sqrt(epochs) / sigma
    exact = norm.cdf(mu / 2 - 1 / mu) - math.e * norm.cdf(-mu / 2 - 1 / mu)
    assert exact <= found.delta <= exact * (1 + 1e-6)
    assert "no amplification" in found.details["bound"]
    lower = otbound.shuffled_lower_bound(otbound.ShuffledBatches(10, 100), sigma, epochs,
                                         epsilon=1.0)
    assert lower.delta <= found.delta
    done = subprocess.run([sys.executable, "-m", "otbound.cli", "account", "--scheme", "shuffle",
                           "--batch-size", "10", "--dataset-size", "100", "--epochs", "2",
                           "--mechanism", "gaussian", "--sigma", "1", "--delta", "1e-5"],
                          capture_output=True, text=True)
    assert done.returncode == 0
    assert "upper bound: each record is in one batch per epoch" in done.stdout
    assert "every valid guarantee has ε >= " in done.stdout and "lower bound" in done.stdout


@pytest.mark.parametrize("arguments, message", [
    (["--steps", "3"], "composes epochs: give --epochs"),
    ([], "needs --epochs"),
    (["--epochs", "2", "--rate", "0.1"], "--rate does not apply to --scheme balls-in-bins")])
def test_epoch_flags_are_checked(arguments, message):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "otbound.cli", "account", "--scheme",
                           "balls-in-bins", "--batch-size", "10", "--dataset-size", "100",
                           "--mechanism", "gaussian", "--sigma", "1", "--delta", "1e-5",
                           *arguments], capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
