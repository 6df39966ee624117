"""Shuffled batches (issue 45, docs/shuffling.md): the certificate that no coupling of the natural
events has two batches per step, the page's tables as the code gives them, and the bounds
against the exact δ of a small instance."""

import math
from pathlib import Path

import numpy as np
import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "shuffling.md"


def _block(name: str) -> str:
    text = PAGE.read_text()
    return text.split(f"<!-- generated: {name} table -->\n")[1].split(
        f"\n<!-- end of {name} table -->")[0]


@pytest.mark.parametrize("steps, batch_size", [(3, 1), (3, 2), (4, 2)])
def test_no_joint_draw_shows_two_batches_per_step_from_three_steps(steps, batch_size):
    """Exhaustively none with two; one with three, which is a real joint draw: every ŷ_At a cut
    of all N records into T batches of b with the record in batch t."""
    from otbound.engine.shuffle_certificate import RECORD, search_draws

    assert search_draws(steps, batch_size, 2).example is None
    draw = search_draws(steps, batch_size, 3).example
    assert draw is not None and len(draw) == steps
    records = {RECORD} | {f"o{i}" for i in range(1, steps * batch_size)}
    for t, outcome in enumerate(draw, start=1):
        assert [len(batch) for batch in outcome] == [batch_size] * steps
        assert set().union(*outcome) == records and RECORD in outcome[t - 1]
    assert all(len({outcome[s] for outcome in draw}) <= 3 for s in range(steps))


def test_two_steps_have_the_two_batch_structure():
    """The search is not blind: for T = 2 (swap the record with a member of the other batch)
    it finds a draw with two batches per step."""
    from otbound.engine.shuffle_certificate import search_draws

    assert search_draws(2, 3, 2).example is not None


def test_the_page_shows_what_the_certificate_command_prints():
    from otbound.engine.shuffle_certificate import certificate_table

    assert _block("certificate") == certificate_table()


def _bounds_rows() -> list[list[float]]:
    rows = [line.strip("|").split("|") for line in _block("bounds").splitlines()[2:]]
    return [[float(cell) for cell in row] for row in rows]


def test_the_bounds_table_is_the_codes_and_never_below_the_lower_bound():
    """Every row's upper bound at least its lower bound, the ratio their quotient; the rows of
    one epoch at T = 10 recomputed (the others cost seconds each: benchmarks/shuffling.py)."""
    import otbound

    rows = _bounds_rows()
    assert len(rows) == 18
    for *_, upper, lower, ratio, _ in rows:
        assert upper >= lower and ratio == pytest.approx(upper / lower, abs=0.005, rel=1e-3)
    for sigma, steps, epochs, upper, lower, _, _ in rows:
        if steps == 10 and epochs == 1:
            setting = otbound.ShuffledBatches(100, 1000)
            mechanism = otbound.gaussian(sigma)
            assert f"{otbound.account(setting, mechanism, 1, delta=1e-5).epsilon:.4f}" \
                == f"{upper:.4f}"
            assert f"{otbound.shuffled_lower_bound(setting, sigma, 1, delta=1e-5).epsilon:.4f}" \
                == f"{lower:.4f}"


def _exact_pair_delta(epsilon: float, sigma: float, points: int = 4001) -> float:
    """δ(ε) of Chua et al.'s pair for T = 2, ½N(2e₁) + ½N(2e₂) against ½N(e₁) + ½N(e₂) (noise σ),
    summed on a fine grid of the plane (±12σ around the means)."""
    from scipy.stats import norm

    grid = np.linspace(-12 * sigma, 12 * sigma + 2, points)
    cell = (grid[1] - grid[0]) ** 2

    def mixture(shift: float) -> np.ndarray:
        first, second = norm.pdf(grid, shift, sigma), norm.pdf(grid, 0.0, sigma)
        return (np.outer(first, second) + np.outer(second, first)) / 2

    return float(np.maximum(mixture(2.0) - math.exp(epsilon) * mixture(1.0), 0.0).sum() * cell)


@pytest.mark.parametrize("epsilon", [0.5, 1.0])
def test_both_bounds_bracket_the_exact_delta_of_a_small_instance(epsilon):
    """T = 2, σ = 1: the lower bound at most, and the upper bound at least, the exact δ of the
    pair the lower bound is built on (a pair of datasets of the relation), with room beyond the
    grid's error on both sides."""
    import otbound

    exact = _exact_pair_delta(epsilon, 1.0)
    setting = otbound.ShuffledBatches(5, 10)
    lower = otbound.shuffled_lower_bound(setting, 1.0, 1, epsilon=epsilon).delta
    upper = otbound.account(setting, otbound.gaussian(1.0), 1, epsilon=epsilon).delta
    assert lower <= exact - 1e-5 and exact + 1e-3 <= upper


def test_the_couplings_table_lists_estimates_below_the_upper_bound():
    """The page's estimates are labelled as such and none is above the upper bound of its σ at
    T = 1000, one epoch (every candidate's pairs (ŷ_At, ŷ_Et) differ in one step, so the
    diagonal bound covers it); the hub at θ = 0 is Chua et al.'s pair itself, whose estimate at
    σ = 1 is the lower bound's value (the largest output loses little there)."""
    assert "**estimates, not bounds**" in PAGE.read_text()
    rows = [line.strip("|").split("|") for line in _block("couplings").splitlines()[2:]]
    bounds = {row[0]: (row[3], row[4]) for row in _bounds_rows() if row[1:3] == [1000.0, 1.0]}
    assert len(rows) == 14
    for name, sigma, value, _ in rows:
        assert 0 < float(value) <= bounds[float(sigma)][0], name
    chua = next(float(value) for name, sigma, value, _ in rows
                if name.strip() == "hub, θ = 0 (Chua et al.'s pair)" and float(sigma) == 1)
    assert chua == pytest.approx(bounds[1.0][1], abs=0.05)


def _hub_derivation(coupling):
    from otbound.engine import BatchRelation, EpochDerivation, ShuffledEpoch

    return EpochDerivation(name="hub", source="test", title="shuffled batches, hub coupling",
                           scheme=ShuffledEpoch, relation=BatchRelation.SUBSTITUTION,
                           coupling=coupling, published=None,
                           variants=({"T": 2}, {"T": 3}, {"T": 4}), others=range(0, 8),
                           max_outcomes=50_000)


def test_the_hub_coupling_is_valid_and_keeps_to_its_own_steps_and_the_holes():
    """The engine's exact checks of the hub coupling (docs/shuffling.md): marginals and event
    weights on every instance with N ≤ 8; per draw, two components differ only in their own
    steps and the hole's, and the hole's step shows one batch per event."""
    from otbound.engine.epoch_couplings import SwapThroughHole
    from otbound.engine.epoch_derivation import run_epoch
    from otbound.engine.shuffle_certificate import hole_steps_only

    report = run_epoch(_hub_derivation(SwapThroughHole()))
    assert report.valid and report.d_compatible
    assert all(case.instances > 0 for variant in report.variants for case in variant.cases)
    check = hole_steps_only(3, 2)
    assert check.draws == 360 and check.own_steps_and_hole and check.most_batches == 3


def test_a_hub_that_always_displaces_the_first_member_is_caught():
    """The record always takes the place of batch t's first member: the other cuts with the
    record in batch t are never drawn, and the marginal check fails."""
    from fractions import Fraction

    from otbound.engine.epoch_couplings import HOLE, SwapThroughHole, _swap
    from otbound.engine.epoch_derivation import run_epoch
    from otbound.engine.epoch_patterns import component_label
    from otbound.engine.epoch_schemes import held

    class FirstMember(SwapThroughHole):
        def arranged_draws(self, scheme, others):
            for arrangement, mass in scheme.pmf(others + (HOLE,)).items():
                (hole,) = held(arrangement, HOLE)
                drawn = {}
                for t, batch in enumerate(arrangement, start=1):
                    moved = _swap(arrangement, HOLE if t == hole else min(batch), HOLE)
                    drawn[component_label("E", frozenset({t}))] = _swap(moved, HOLE, "a'")
                    drawn[component_label("A", frozenset({t}))] = _swap(moved, HOLE, "a")
                yield Fraction(mass), (hole, drawn)

    report = run_epoch(_hub_derivation(FirstMember()))
    assert not report.valid
