"""Shuffled batches: the lower bound's events against a simulated shuffle, its composition over
epochs exactly from below, and the upper bound without amplification (derivation
epoch-shuffling)."""

import json
import math

import numpy as np
import pytest

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
    from otbound.numerics.epoch_settings import ShuffledBatches
    from otbound.numerics.shuffling import largest_output, lower_delta, shuffled_lower_bound

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
    assert "no amplification" in done.stdout
    assert "every valid guarantee has ε >= " in done.stdout and "lower bound" in done.stdout


@pytest.mark.parametrize("mechanism", [["laplace", "--scale", "2"],
                                       ["randomized-response", "--theta", "0.7"],
                                       ["discrete-gaussian", "--sigma", "2"]])
def test_only_gaussian_noise_gets_chua_et_als_lower_bound(capsys, mechanism):
    """Chua et al.'s pair is computed for Gaussian noise: other noise gets the upper bound and
    says why there is no lower bound (randomized response had ended in an internal error, and
    Laplace and the discrete Gaussian had been given the Gaussian's number at their scale)."""
    from cli_runs import run_cli

    argv = ["account", "--scheme", "shuffle", "--batch-size", "100", "--dataset-size", "10000",
            "--epochs", "1", "--delta", "1e-5", "--mechanism", *mechanism]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0 and err == "" and "every valid guarantee" not in out
    assert "no lower bound for the" in out and "computed for Gaussian noise" in out
    code, out, _ = run_cli(capsys, *argv, "--json")
    assert code == 0 and "computed for Gaussian noise" in json.loads(out)["lower_bound"][
        "unavailable"]


@pytest.mark.parametrize("arguments, message", [
    (["--steps", "3"], "composes epochs: give --epochs"),
    ([], "needs --epochs"),
    (["--epochs", "2", "--rate", "0.1"], "--rate does not apply to --scheme balls-in-bins"),
    (["--epochs", "2", "--selected", "2"], "--selected does not apply to --scheme balls-in-bins")])
def test_epoch_flags_are_checked(arguments, message):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "otbound.cli", "account", "--scheme",
                           "balls-in-bins", "--batch-size", "10", "--dataset-size", "100",
                           "--mechanism", "gaussian", "--sigma", "1", "--delta", "1e-5",
                           *arguments], capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
