"""otbound's own dense PLDs (``otbound.numerics.dense_pld``) give dp_accounting's numbers, read
through dp_accounting's public constructors and methods only, and keep their rounding safe."""

import math

import numpy as np
import pytest
from dp_accounting.pld import pld_pmf
from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

from otbound.errors import InvalidSpecification
from otbound.numerics.dense_pld import TRUNCATION, DensePLD, DensePmf, connect_dots

GRID = 1e-3
EPSILONS = [-1.0, 0.0, 0.3, 1.0, 5.0, 50.0]
DELTAS = [1e-12, 1e-8, 1e-5, 1e-2, 0.5, 0.99]


def _random_pmf(rng: np.random.Generator, size: int, lower: int, infinity: float,
                pessimistic: bool = True) -> DensePmf:
    probabilities = rng.random(size) ** 3
    return DensePmf(GRID, lower, probabilities * (1 - infinity) / probabilities.sum(), infinity,
                    pessimistic)


def _peer(pmf: DensePmf) -> PrivacyLossDistribution:
    return PrivacyLossDistribution(pmf.to_dp_accounting())


def _assert_reads_alike(ours, peer) -> None:
    """The same δ(ε) (one ε and several), to the last bit, and ε(δ) to its last bits (its
    ``e^{−ℓ}`` are numpy's, not ``math.exp``'s: they may differ in the last bit)."""
    for epsilon in EPSILONS:
        assert ours.get_delta_for_epsilon(epsilon) == peer.get_delta_for_epsilon(epsilon)
    assert np.array_equal(ours.get_delta_for_epsilon(EPSILONS + [math.inf]),
                          peer.get_delta_for_epsilon(EPSILONS + [math.inf]))
    for delta in DELTAS:
        assert ours.get_epsilon_for_delta(delta) == pytest.approx(
            peer.get_epsilon_for_delta(delta), rel=1e-14, abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_compositions_are_dp_accountings(seed):
    rng = np.random.default_rng(seed)
    pessimistic = seed % 3 != 0
    first = _random_pmf(rng, int(rng.integers(1, 600)), int(rng.integers(-300, 100)),
                        [0.0, 1e-9, 1e-3][seed % 3], pessimistic)
    second = _random_pmf(rng, int(rng.integers(1, 600)), int(rng.integers(-500, 500)), 0.0,
                         pessimistic)
    for truncation in (0.0, 1e-15, 1e-6):
        _assert_reads_alike(first.compose(second, truncation),
                            _peer(first).compose(_peer(second), truncation))
    for count, truncation in [(1, 0.0), (2, 1e-15), (7, 0.0), (7, 1e-8), (1000, 1e-15)]:
        _assert_reads_alike(first.self_compose(count, truncation),
                            _peer(first).self_compose(count, truncation))
    both = first.compose(second, TRUNCATION).self_compose(50)
    _assert_reads_alike(both, _peer(first).compose(_peer(second)).self_compose(50))


def _gaussian_profile(epsilons: np.ndarray, mu: float = 1.0) -> np.ndarray:
    """δ(ε) of the Gaussian mechanism of sensitivity ``mu`` (unit noise)."""
    from scipy.stats import norm

    return norm.cdf(-epsilons / mu + mu / 2) - np.exp(epsilons) * norm.cdf(-epsilons / mu - mu / 2)


@pytest.mark.parametrize("size, grid", [(1, 1e-2), (5, 1e-2), (999, 5e-3), (1001, 5e-3),
                                        (5000, 1e-3)])
def test_connect_the_dots_is_dp_accountings_and_passes_through_the_profile(size, grid):
    """dp_accounting's is sparse up to 1000 points, dense above: both read as otbound's, whose
    δ(ε) at the grid's losses is the profile it was built from."""
    rounded = np.arange(size) - size // 3
    deltas = _gaussian_profile(rounded * grid)
    ours = connect_dots(grid, rounded, deltas)
    peer = PrivacyLossDistribution(
        pld_pmf.create_pmf_pessimistic_connect_dots(grid, rounded, deltas))
    _assert_reads_alike(ours, peer)
    assert ours.lower == rounded[0] and ours.infinity == deltas[-1]
    assert ours.get_delta_for_epsilon(rounded * grid) == pytest.approx(deltas, rel=1e-9,
                                                                       abs=1e-14)


def test_a_pld_of_two_adjacencies_reads_and_composes_as_dp_accountings():
    rng = np.random.default_rng(7)
    remove, add = (_random_pmf(rng, 400, -100, 1e-6), _random_pmf(rng, 300, -50, 0.0))
    ours = DensePLD(remove, add)
    peer = PrivacyLossDistribution(remove.to_dp_accounting(), add.to_dp_accounting())
    _assert_reads_alike(ours, peer)
    _assert_reads_alike(ours.self_compose(20), peer.self_compose(20))
    symmetric = DensePLD(_random_pmf(rng, 200, -20, 0.0))
    _assert_reads_alike(ours.compose(symmetric), peer.compose(_peer(symmetric.remove)))
    assert symmetric.pmfs == (symmetric.remove,) and symmetric.added is symmetric.remove
    handed = ours.to_dp_accounting()
    assert isinstance(handed, PrivacyLossDistribution)
    _assert_reads_alike(ours, handed)


def test_a_dp_accounting_pld_is_composed_by_dp_accounting():
    rng = np.random.default_rng(8)
    ours = DensePLD(_random_pmf(rng, 300, -40, 0.0))
    theirs = _peer(_random_pmf(rng, 200, -10, 0.0))
    composed = ours.compose(theirs)
    assert isinstance(composed, PrivacyLossDistribution)
    _assert_reads_alike(composed, _peer(ours.remove).compose(theirs))


@pytest.mark.parametrize("count", [2, 100, 10 ** 5])
def test_the_composed_span_is_the_support_kept_and_leaves_at_most_the_truncation(count):
    """Beyond the span the exact composition (no truncation) holds at most ``TRUNCATION``; the
    pessimistic self-composition counts that much at infinity."""
    one = _random_pmf(np.random.default_rng(count), 60, -30, 0.0)
    low, high = one.composed_span(count)
    composed = one.self_compose(count)
    assert (composed.lower, composed.size) == (one.lower * count + low, high - low + 1)
    assert composed.infinity == pytest.approx(TRUNCATION, rel=1e-12)
    if count <= 100:
        exact = one.self_compose(count, 0.0)
        outside = exact.probabilities[:low].sum() + exact.probabilities[high + 1:].sum()
        assert outside <= TRUNCATION


def test_pessimistic_tails_move_up_and_optimistic_ones_down():
    """Truncated, a pessimistic composition never lowers δ(ε) (the mass below is moved up, the
    mass above to infinity); an optimistic one never raises it."""
    rng = np.random.default_rng(9)
    for pessimistic in (True, False):
        first, second = (_random_pmf(rng, 500, -250, 0.0, pessimistic) for _ in range(2))
        exact, cut = first.compose(second), first.compose(second, 1e-3)
        assert cut.size < exact.size
        for epsilon in EPSILONS:
            if pessimistic:
                assert cut.get_delta_for_epsilon(epsilon) >= exact.get_delta_for_epsilon(
                    epsilon) - 1e-15
            else:
                assert cut.get_delta_for_epsilon(epsilon) <= exact.get_delta_for_epsilon(
                    epsilon) + 1e-15


def test_the_grid_deltas_are_the_sums_rounded_up():
    pmf = _random_pmf(np.random.default_rng(10), 2000, -700, 1e-7).self_compose(30)
    epsilons = np.linspace(-2.0, 8.0, 41)
    exact = pmf.get_delta_for_epsilon(epsilons)
    bounded = pmf.deltas(epsilons[::-1])[::-1]   # in any order
    assert np.all(bounded >= exact)
    assert bounded == pytest.approx(exact, rel=1e-9, abs=1e-15)


def test_a_pmf_is_read_only_and_checked():
    pmf = DensePmf(GRID, 3, np.array([0.5, 0.5]), 0.0)
    assert pmf.size == 2 and np.array_equal(pmf.losses, [0.003, 0.004])
    with pytest.raises(ValueError):
        pmf.probabilities[0] = 1.0
    with pytest.raises(InvalidSpecification, match="non-empty vector"):
        DensePmf(GRID, 0, np.array([]), 0.0)
    with pytest.raises(InvalidSpecification, match="one grid and with one rounding"):
        pmf.compose(DensePmf(2 * GRID, 0, np.array([1.0]), 0.0))
    with pytest.raises(InvalidSpecification, match="one grid and with one rounding"):
        pmf.compose(DensePmf(GRID, 0, np.array([1.0]), 0.0, pessimistic=False))
    with pytest.raises(InvalidSpecification, match="count must be at least 1"):
        pmf.self_compose(0)
    with pytest.raises(InvalidSpecification, match="strictly increasing"):
        connect_dots(GRID, np.array([0, 0]), np.array([0.5, 0.4]))
    assert pmf.get_epsilon_for_delta(0.0) == pytest.approx(0.004, rel=1e-9)
    assert DensePmf(GRID, 0, np.array([0.5]), 0.5).get_epsilon_for_delta(0.4) == math.inf
