"""Issue 42: random allocation over an epoch (balls-in-bins is k = 1) — the one-step likelihood
ratios, their sums in convex order, the epoch's pairs against exact values, exact enumeration of
the real sampler, and an independent Monte Carlo; every comparison with sign."""

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy.special import ndtr
from scipy.stats import binom

import otbound
from otbound.errors import InvalidSpecification, UnsupportedOperation
from otbound.numerics.allocation import Allocation, EpochPair, contracted_sum, spread_sum
from otbound.numerics.ratio_laws import gaussian_law, laplace_law, ratio_law


def bracket(law, steps, selected, direction, epsilons):
    """``(lower, upper)`` of one epoch's δ(ε) from the lower and upper pmfs."""
    epoch = Allocation(steps, selected, law)
    pair = EpochPair(epoch, direction)
    return pair.lower_pmf().deltas(epsilons), pair.upper_pmf().deltas(epsilons)


@pytest.mark.parametrize("law", [gaussian_law(0.7), gaussian_law(3.0), laplace_law(0.5),
                                 ratio_law(otbound.randomized_response(0.8))],
                         ids=["gaussian-0.7", "gaussian-3", "laplace", "rr"])
def test_a_step_law_has_unit_mass_on_both_sides_and_tilts_by_its_ratio(law):
    """``P₀`` and ``P₁`` both have mass 1 on any grid; a cell's ``P₁`` mass is its first moment
    under ``P₀``, between its mass times the cell's two ends."""
    grid = np.linspace(law.reach(1e-30)[0] - 0.01, law.reach(1e-30)[1] + 0.01, 401)
    cells = law.cells(grid)
    for mass, below, above in ((cells.q, cells.q_below, cells.q_above),
                               (cells.p, cells.p_below, cells.p_above)):
        assert math.isclose(mass.sum() + below + above, 1.0, rel_tol=1e-12)
    values = np.exp(grid)
    assert np.all(cells.p <= cells.q * values[1:] * (1 + 1e-12) + 1e-300)
    assert np.all(cells.p >= cells.q * values[:-1] * (1 - 1e-12))


def exact_moment(steps: int, sigma: float, order: int) -> mp.mpf:
    """``E_Q[(S/T)^α]`` for integer ``α``: ``E[(Σ L_t)^α] = α! [z^α] F(z)^T`` with ``F(z) = Σ_j
    E[L^j] z^j/j!`` and ``E[L^j] = e^{j(j−1)/(2σ²)}`` (every term positive)."""
    with mp.workdps(50):
        series = [mp.e ** (mp.mpf(j * (j - 1)) / (2 * mp.mpf(sigma) ** 2)) / mp.factorial(j)
                  for j in range(order + 1)]
        power = [mp.mpf(1)] + [mp.mpf(0)] * order
        for _ in range(steps):
            power = [mp.fsum(power[i] * series[k - i] for i in range(k + 1))
                     for k in range(order + 1)]
        return mp.factorial(order) * power[order] / mp.mpf(steps) ** order


@pytest.mark.parametrize("steps, sigma", [(1, 1.0), (3, 2.0), (10, 1.0), (37, 1.5)])
@pytest.mark.parametrize("order", [2, 3, 5])
def test_the_sums_bracket_the_exact_moments_in_convex_order(steps, sigma, order):
    """``s ↦ (s/T)^α`` is convex: the contracted sum's moment is below the exact one, the spread
    sum's above it (its mass carried to infinity, below 1e-40, left out here), both within the
    second-order error of the grid."""
    law, step = gaussian_law(sigma), 5e-3
    spread, contracted = spread_sum(law, steps, step), contracted_sum(law, steps, step)
    above = float(np.sum(spread.mass * (spread.values() / steps) ** order))
    below = float(np.sum(contracted.mass * (contracted.means() / steps) ** order))
    exact = float(exact_moment(steps, sigma, order))
    assert below <= exact * (1 + 1e-12)
    assert exact <= above * (1 + 1e-12)
    assert above / below <= 1 + 1e-3 * order ** 2


def gaussian_delta(mu: float, eps: np.ndarray) -> np.ndarray:
    """Balle & Wang 2018: ``δ(ε)`` of ``N(μ, 1)`` against ``N(0, 1)``."""
    return ndtr(mu / 2 - eps / mu) - np.exp(eps) * ndtr(-mu / 2 - eps / mu)


def test_one_step_is_the_mechanism_itself():
    """``T = 1``: the pair is the mechanism's worst pair at distance 1 — Gaussian (closed form)
    and Laplace (``δ(ε) = 1 − e^{(ε − 1/b)/2}``), bracketed in both directions."""
    eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0])
    exact = gaussian_delta(1 / 1.3, eps)
    for direction in ("remove", "add"):
        lower, upper = bracket(gaussian_law(1.3), 1, 1, direction, eps)
        assert np.all(lower <= exact * (1 + 1e-9)) and np.all(exact <= upper)
        assert np.all(upper <= exact * (1 + 1e-3) + 1e-12)
    b = 0.8
    exact = np.maximum(1 - np.exp((eps - 1 / b) / 2), 0.0)
    lower, upper = bracket(laplace_law(b), 1, 1, "remove", eps)
    assert np.all(lower <= exact * (1 + 1e-9) + 1e-15) and np.all(exact <= upper)


def randomized_response_exact(theta: float, steps: int, selected: int, direction: str,
                              eps: np.ndarray) -> np.ndarray:
    """Randomized response under random allocation, exactly: ``L`` takes two values ``a =
    θ/(1−θ)`` (probability ``1 − θ`` under ``P₀``) and ``1/a``, so with ``n`` of the ``T``
    ratios equal to ``a`` (binomial) the likelihood ratio is ``Σ_j C(n, j) C(T − n, k − j) a^j
    a^{−(k−j)} / C(T, k)``."""
    a = theta / (1 - theta)
    n = np.arange(steps + 1)
    weights = binom.pmf(n, steps, 1 - theta)
    ratio = np.array([sum(math.comb(m, j) * math.comb(steps - m, selected - j)
                          * a ** (2 * j - selected) for j in range(selected + 1))
                      for m in n]) / math.comb(steps, selected)
    if direction == "remove":
        return np.array([weights @ np.maximum(ratio - math.exp(e), 0.0) for e in eps])
    return np.array([weights @ np.maximum(1 - math.exp(e) * ratio, 0.0) for e in eps])


@pytest.mark.parametrize("steps, selected", [(20, 1), (12, 3), (30, 5), (9, 9)])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_randomized_response_is_bracketed_exactly(steps, selected, direction):
    """Every ``k``: the lower pair (a statistic of the outputs: here a sufficient one, so it is
    exact) and the upper pair (for ``k > 1`` the hidden partition into blocks, looser) bracket
    the exact δ(ε), with sign."""
    theta, eps = 0.7, np.array([0.0, 0.2, 0.6, 1.0, 2.0])
    exact = randomized_response_exact(theta, steps, selected, direction, eps)
    lower, upper = bracket(ratio_law(otbound.randomized_response(theta)), steps, selected,
                           direction, eps)
    assert np.all(lower <= exact * (1 + 1e-9) + 1e-15)
    assert np.all(exact <= upper)
    # the statistic is sufficient here: the lower end is exact but for its losses rounded down
    # to the PLD's grid (1e-4)
    assert np.all(lower >= exact * (1 - 5e-3) - 1e-15)


def test_the_hidden_partition_bound_is_the_blocks_composed():
    """``k > 1``: the upper pair is the composition of ``k`` one-of-``T/k`` allocations (blocks
    of ``⌊T/k⌋`` and ``⌈T/k⌉``), so it equals that composition's pmf; and random allocation of
    ``k`` of ``T`` is more private than the blocks (its lower end is below their upper end)."""
    law = gaussian_law(2.0)
    epoch = Allocation(11, 3, law)
    assert epoch.blocks == ((3, 1), (4, 2))
    four = Allocation(4, 1, law).upper("remove", 1e-4)
    composed = Allocation(3, 1, law).upper("remove", 1e-4).compose(four.self_compose(2, 0.0))
    eps = np.array([0.5, 1.0, 2.0])
    assert np.allclose(epoch.upper("remove", 1e-4).deltas(eps), composed.deltas(eps),
                       rtol=1e-12)


def test_the_peers_row_is_beaten_with_its_lower_end_below_it():
    """dp_accounting's PR #414 row (Gaussian σ = 2, k = 10 of t = 100, δ = 1e-6: ε = 2.4265 by
    the reduction to k = 1): otbound's upper end is below it, its lower end below that."""
    found = otbound.account(otbound.RandomAllocation(100, 10), otbound.gaussian(2.0), 1,
                            delta=1e-6)
    assert found.epsilon < 2.4265
    assert 2.3 < found.details["epsilon_lower"] < found.epsilon


def test_ten_epochs_of_balls_in_bins_are_bracketed_within_half_a_percent():
    """Issue 42's practitioner setting: N = 60000, b = 256, σ = 1, δ = 1e-5."""
    found = otbound.account(otbound.BallsInBins(256, 60000), otbound.gaussian(1.0), 10,
                            delta=1e-5)
    lower = found.details["epsilon_lower"]
    assert lower <= found.epsilon <= lower * 1.005
    assert found.details["steps_per_epoch"] == 235 and found.steps == 10


def test_accounting_over_epochs_composes_the_epoch():
    """Ten epochs cost more than one and less than ten times one (ε at δ); δ at ε is
    consistent with ε at δ and is bracketed too."""
    setting, mechanism = otbound.BallsInBins(10, 100), otbound.gaussian(1.0)
    one = otbound.account(setting, mechanism, 1, delta=1e-5)
    ten = otbound.account(setting, mechanism, 10, delta=1e-5)
    assert one.epsilon < ten.epsilon < 10 * one.epsilon
    back = otbound.account(setting, mechanism, 10, epsilon=ten.epsilon)
    assert back.delta <= 1e-5 * (1 + 1e-6)
    assert back.details["delta_lower"] <= back.delta


def outputs_law(pmf: dict, theta: float, holder: str, steps: int) -> dict:
    """The exact law of randomized response per step (the bit ``[holder ∈ batch]`` reported
    with probability θ) under the scheme's exact law of outcomes."""
    law: dict = {}
    t = Fraction(theta).limit_denominator(1000)
    for outcome, mass in pmf.items():
        for bits in itertools.product((0, 1), repeat=steps):
            p = mass
            for batch, bit in zip(outcome, bits):
                truth = int(holder in batch)
                p *= t if bit == truth else 1 - t
            law[bits] = law.get(bits, Fraction(0)) + p
    return law


@pytest.mark.parametrize("steps, selected", [(3, 1), (3, 2), (4, 2)])
def test_exact_enumeration_of_the_real_sampler_meets_the_bound(steps, selected):
    """The real sampler (the engine's scheme enumerates every allocation of ``a``, ``o1``,
    ``o2``) with randomized response per step, exactly in rationals: the worst-case dataset's
    δ(ε) lies between the lower and the upper end (for ``k = 1`` the upper end is the pair's
    own δ, tight within the grid's error)."""
    from otbound.engine.epoch_schemes import RandomAllocationEpoch

    theta = 0.75
    scheme = RandomAllocationEpoch(steps, selected)
    with_a = outputs_law(scheme.pmf(("a", "o1", "o2")), theta, "a", steps)
    without = outputs_law(scheme.pmf(("o1", "o2")), theta, "a", steps)
    eps = np.array([0.0, 0.3, 1.0])
    pair = EpochPair(Allocation(steps, selected, ratio_law(otbound.randomized_response(theta))),
                     "remove")
    upper, lower = pair.upper_pmf().deltas(eps), pair.lower_pmf().deltas(eps)
    for e, high, low in zip(eps, upper, lower):
        gamma = Fraction(math.exp(e))
        exact = float(sum(max(p - gamma * without[y], 0) for y, p in with_a.items()))
        assert low <= exact <= high
        if selected == 1:
            assert high <= exact * 1.01 + 1e-12


@pytest.mark.parametrize("mechanism", [otbound.gaussian(1.0), otbound.laplace(1.0)],
                         ids=["gaussian", "laplace"])
def test_a_simulated_epoch_of_the_real_sampler_agrees_with_the_bracket(mechanism):
    """Independent Monte Carlo: 20 records, each in 2 of 5 steps chosen uniformly, a toy query
    (the target contributes 1, the others 0) plus noise per step; the likelihood ratio of the
    outputs summed over the C(5, 2) placements directly. δ_remove(ε) lies within 5 standard
    errors of the bracket (confidence well above 99.99 %)."""
    steps, selected, samples = 5, 2, 200_000
    rng = np.random.default_rng(42)
    placements = [np.isin(np.arange(steps), s) for s in itertools.combinations(range(steps),
                                                                               selected)]
    chosen = rng.integers(0, len(placements), samples)
    sums = np.array(placements, dtype=float)[chosen]
    if mechanism.name == "gaussian":
        outputs = sums + rng.standard_normal((samples, steps))
        log_l = outputs - 0.5
    else:
        outputs = sums + rng.laplace(size=(samples, steps))
        log_l = np.abs(outputs) - np.abs(outputs - 1)
    ratio = np.mean([np.exp((log_l * p).sum(axis=1)) for p in placements], axis=0)
    pair = EpochPair(Allocation(steps, selected, ratio_law(mechanism)), "remove")
    for eps in (0.3, 1.0):
        values = np.maximum(1 - math.exp(eps) / ratio, 0.0)
        mean, error = values.mean(), values.std() / math.sqrt(samples)
        low = pair.lower_pmf().deltas(np.array([eps]))[0]
        high = pair.upper_pmf().deltas(np.array([eps]))[0]
        assert low - 5 * error <= mean <= high + 5 * error


def test_the_lower_end_of_k_of_t_resolves_the_tail_of_q():
    """σ = 0.5, 10 of 100 steps: the large losses lie where ``Q``'s law of the statistic is far
    below an FFT's absolute rounding; through the law tilted by ``e^{Δs}`` the lower end's
    ε(1e-6) is above 24 (it was 21.2 from the plain transform alone), below the upper end, and
    the two transforms agree where both are accurate."""
    from otbound.numerics.allocation import _tilted_sum

    law = ratio_law(otbound.gaussian(0.5))
    pair = EpochPair(Allocation(100, 10, law), "remove")
    low, high = (pmf.deltas(np.array([24.0, 28.0])) for pmf in (pair.lower_pmf(),
                                                                     pair.upper_pmf()))
    assert low[0] >= 1e-6 and np.all(low <= high)
    q = law.cells(np.linspace(-3, 3, 61))
    single = np.concatenate([[q.q_below], q.q, [q.q_above]])
    size = 5 * (single.size - 1) + 1
    plain = np.fft.irfft(np.fft.rfft(single, 512) ** 5, 512)[:size]
    tilted, noise = _tilted_sum(single, 0.1, 5, 512, size)
    accurate = (plain > 1e-10) & (noise < 1e-6 * plain)
    assert accurate.sum() > 100
    assert np.allclose(tilted[accurate], plain[accurate], rtol=1e-8)


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



@pytest.mark.parametrize("steps, sigma", [(10, 1.0), (100, 0.8)])
def test_the_removal_bracket_agrees_with_an_independent_linear_grid(steps, sigma):
    """Against an independent method — ``S`` on a *linear* grid of 2²⁰ points, each term
    rounded up and down to it, summed exactly by FFT — whose bracket is under 1 % wide: the
    epoch pair's upper end is never below the reference's lower end, its lower end never above
    the reference's upper end, and both are within 1 % of it."""
    pair = EpochPair(Allocation(steps, 1, gaussian_law(sigma)), "remove")
    for eps in (0.5, 1.0, 2.0):
        lower, upper = reference_remove(steps, sigma, eps)
        assert upper - lower <= 0.01 * upper
        ours_upper = pair.upper_pmf().deltas(np.array([eps]))[0]
        ours_lower = pair.lower_pmf().deltas(np.array([eps]))[0]
        assert ours_upper >= lower and ours_lower <= upper
        assert ours_upper <= 1.01 * upper and ours_lower >= 0.99 * lower


@pytest.mark.parametrize("call, message", [
    (lambda: otbound.RandomAllocation(10, 11), "selected must be at most steps_per_epoch"),
    (lambda: otbound.RandomAllocation(0), "steps_per_epoch must be an integer >= 1"),
    (lambda: otbound.BallsInBins(20, 10), "batch_size must be at most dataset_size"),
    (lambda: otbound.BallsInBins(2.5, 10), "batch_size must be an integer >= 1"),
])
def test_bad_settings_are_refused(call, message):
    with pytest.raises(InvalidSpecification, match=message):
        call()


def test_what_an_epoch_does_not_support_is_refused_clearly():
    setting = otbound.RandomAllocation(10, 2)
    with pytest.raises(UnsupportedOperation, match="method='tight'"):
        otbound.account(setting, otbound.gaussian(1.0), 1, delta=1e-5, method="agnostic")


def _simulated_delta(log_ratio, draws, epsilon):
    values = np.maximum(1 - np.exp(epsilon - log_ratio(draws)), 0.0)
    return values.mean(), values.std() / math.sqrt(values.size)


def test_a_substitution_is_bounded_through_a_removal_and_an_insertion():
    """Replacing a record (+1 in its steps) by one of the opposite sign (−1 in its own): an
    independent Monte Carlo of the real sampler's δ(ε) (the likelihood ratio of the two mixtures
    summed over the placements) lies below the chained bound, which is above the removal's and
    at most its ε twice over (ε₁ = ε₂)."""
    steps, sigma, samples, eps = 6, 1.0, 200_000, 1.5
    rng = np.random.default_rng(7)
    placements = np.eye(steps)
    outputs = placements[rng.integers(0, steps, samples)] + sigma * rng.standard_normal(
        (samples, steps))

    def log_ratio(y):
        up = np.log(np.exp((y - 0.5) / sigma ** 2).mean(axis=1))
        down = np.log(np.exp((-y - 0.5) / sigma ** 2).mean(axis=1))
        return up - down

    mean, error = _simulated_delta(log_ratio, outputs, eps)
    substitution = otbound.account(otbound.RandomAllocation(steps, neighbouring="replace-one"),
                                   otbound.gaussian(sigma), 1, epsilon=eps)
    removal = otbound.account(otbound.RandomAllocation(steps), otbound.gaussian(sigma), 1,
                              epsilon=eps)
    assert mean - 5 * error <= substitution.delta
    assert removal.delta <= substitution.delta
    assert substitution.details["delta_lower"] <= removal.delta
    twice = otbound.account(otbound.RandomAllocation(steps), otbound.gaussian(sigma), 1,
                            epsilon=eps / 2).delta
    assert substitution.delta <= twice * (1 + math.exp(eps / 2)) * (1 + 1e-6)


def test_a_group_under_random_allocation_is_bounded_above_a_simulation_and_enumeration():
    """A user with K = 2 records, each in its own uniform step (balls-in-bins): the Gaussian
    group bound (the best of the noise split and post-hoc group privacy) lies above an
    independent Monte Carlo of two identical records (the likelihood ratio over the T² joint
    placements); randomized response's (post hoc) above the exact δ of the real sampler with
    the bit "a group member is in the batch"."""
    steps, samples, eps = 5, 200_000, 1.0
    rng = np.random.default_rng(11)
    first, second = rng.integers(0, steps, (2, samples))
    counts = np.eye(steps)[first] + np.eye(steps)[second]
    outputs = counts + rng.standard_normal((samples, steps))
    joint = np.array([np.eye(steps)[i] + np.eye(steps)[j] for i in range(steps)
                      for j in range(steps)])

    def log_ratio(y):
        terms = y @ joint.T - 0.5 * (joint ** 2).sum(axis=1)
        top = terms.max(axis=1, keepdims=True)
        return (top + np.log(np.exp(terms - top).mean(axis=1, keepdims=True)))[:, 0]

    mean, error = _simulated_delta(log_ratio, outputs, eps)
    group = otbound.account(otbound.RandomAllocation(steps, group=2), otbound.gaussian(1.0), 1,
                            epsilon=eps)
    assert mean - 5 * error <= group.delta
    assert group.details["method"] in ("posthoc", "sound (not tight)")

    from otbound.engine.epoch_schemes import RandomAllocationEpoch

    theta, scheme = 0.75, RandomAllocationEpoch(3, 1)
    t = Fraction(3, 4)

    def reported(records):
        law: dict = {}
        for outcome, mass in scheme.pmf(records).items():
            for bits in itertools.product((0, 1), repeat=3):
                p = mass
                for batch, bit in zip(outcome, bits):
                    truth = int("g1" in batch or "g2" in batch)
                    p *= t if bit == truth else 1 - t
                law[bits] = law.get(bits, Fraction(0)) + p
        return law

    with_group, without = reported(("g1", "g2", "o1")), reported(("o1",))
    for e in (0.0, 0.5, 1.5):
        exact = float(sum(max(p - Fraction(math.exp(e)) * without[y], 0)
                          for y, p in with_group.items()))
        bound = otbound.account(otbound.RandomAllocation(3, group=2),
                                otbound.randomized_response(theta), 1, epsilon=e).delta
        assert exact <= bound


def test_a_group_of_8_is_bounded_above_a_simulation():
    """K = 8 records, each in its own uniform step of T = 3 (Gaussian, σ = 2): an independent
    Monte Carlo of the real sampler (the likelihood ratio over the 45 count vectors of the
    group, with their multinomial weights) lies below the group bound at ε = 1 and 3."""
    steps, records, sigma, samples = 3, 8, 2.0, 200_000
    rng = np.random.default_rng(13)
    counts = np.stack([np.bincount(row, minlength=steps)
                       for row in rng.integers(0, steps, (samples, records))])
    outputs = counts + sigma * rng.standard_normal((samples, steps))
    vectors = np.array([(a, b, records - a - b) for a in range(records + 1)
                        for b in range(records + 1 - a)], dtype=float)
    log_weights = np.array([math.lgamma(records + 1) - sum(math.lgamma(c + 1) for c in v)
                            for v in vectors]) - records * math.log(steps)

    def log_ratio(y):
        terms = (y @ vectors.T - 0.5 * (vectors ** 2).sum(axis=1)) / sigma ** 2 + log_weights
        top = terms.max(axis=1, keepdims=True)
        return (top + np.log(np.exp(terms - top).sum(axis=1, keepdims=True)))[:, 0]

    for eps in (1.0, 3.0):
        mean, error = _simulated_delta(log_ratio, outputs, eps)
        group = otbound.account(otbound.RandomAllocation(steps, group=records),
                                otbound.gaussian(sigma), 1, epsilon=eps)
        assert mean > 10 * error   # the simulation sees δ, so the comparison can fail
        assert mean - 5 * error <= group.delta


def test_a_group_of_32_is_bounded_with_its_guarantee_named():
    """Issue 42: K = 32 records per user, one epoch (N = 60000, b = 256, σ = 1): a number with
    its guarantee named (the noise split: post-hoc group privacy gives none at this K). Its time
    is a benchmark's to measure, not a unit test's (this one failed at 14.7 s on a loaded
    machine)."""
    found = otbound.account(otbound.BallsInBins(256, 60000, group=32), otbound.gaussian(1.0), 1,
                            delta=1e-5)
    assert math.isfinite(found.epsilon) and found.details["method"] == "sound (not tight)"
    assert "noise split" in found.details["bound"] or "σ/√K" in found.details["bound"]
