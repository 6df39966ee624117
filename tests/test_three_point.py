"""The three-point pattern of 001 Thm. 3.6 with Gaussian noise (issue 14 item 4): the planar
formula against the one-dimensional evaluator, the sign of the maximum, its place between the
candidates and the relaxed bound, and the command of the acceptance criterion."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from otbound.numerics import three_point as tp
from otbound.numerics import three_point_balls as tp_balls
from otbound.numerics import three_point_certificate as tp_certificate
from otbound.numerics import three_point_formula as tp_formula
from otbound.numerics import three_point_search as tp_search
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.one_step import rdp
from otbound.numerics.families import GAUSSIAN
from otbound.numerics.pairs import MixturePair
from otbound.numerics.renyi import log_psi_curve
from otbound.numerics.settings import Subsampling
from tests.cli_runs import run_cli

ACCEPTANCE = Subsampling("wor", batch_size=10, dataset_size=1000)


def _recognised(setting) -> tuple[Fraction, float] | None:
    ((_, problem),) = setting.cases()[0]
    return tp.recognise(problem)


W = _recognised(ACCEPTANCE)[0]
"""``w = q/N = 1/100`` as the solver sees it: rounded up past the floating-point weights."""


def _one_dimensional(left: float, right: float, w: float, sigma: float, alpha: float) -> float:
    """``log Ψ_α((1 − w) N(0) + w N(left) ‖ (1 − w) N(0) + w N(right))`` by otbound's 1-D
    evaluator."""
    weights = np.log([1 - w, w])
    pair = MixturePair(GAUSSIAN, sigma, [0.0, left], weights, [0.0, right], weights)
    bound = log_psi_curve(pair, [alpha])[0]
    return bound.value - bound.error


@pytest.mark.parametrize("left, right", [(1.0, -1.0), (1.0, 0.5), (0.3, -0.7), (1.0, 0.0),
                                         (0.0, 1.0)])
@pytest.mark.parametrize("sigma, alpha", [(1.0, 2), (0.7, 8), (2.0, 32)])
def test_collinear_configurations_match_the_one_dimensional_evaluator(left, right, sigma, alpha):
    triangle = tp_formula.Triangle(abs(left), abs(right), left * right)
    fast, error = tp_formula.triangle_log_psi(triangle, 0.01, alpha, sigma)
    low, high = tp_balls.triangle_log_psi_ball(triangle, W, alpha, sigma)
    reference = _one_dimensional(left, right, 0.01, sigma, alpha)
    assert low <= high and high - low <= 1e-12 * max(1.0, abs(high))
    assert abs(fast - reference) <= 1e-9 * abs(reference) + error
    assert abs(low - reference) <= 1e-9 * abs(reference)


@pytest.mark.parametrize("rate, sigma, alpha", [(Fraction(1, 10), 1.0, 64),
                                                 (Fraction(1, 100), 5.0, 64),
                                                 (Fraction(1, 10), 5.0, 128)])
def test_enclosures_that_leave_terms_out_hold_the_value(rate, sigma, alpha, monkeypatch):
    """Where most binomial terms are below the enclosure's resolution (large orders), the ball
    evaluation integrates only the others: its enclosure still holds the 1-D evaluator's
    value, on both sides."""
    monkeypatch.setattr(tp_formula, "MAX_ORDER", 256)
    for left, right in ((1.0, -1.0), (1.0, 0.0), (0.6, 0.4)):
        triangle = tp_formula.Triangle(abs(left), abs(right), left * right)
        low, high = tp_balls.triangle_log_psi_ball(triangle, rate, alpha, sigma)
        reference = _one_dimensional(left, right, float(rate), sigma, alpha)
        assert low - 1e-10 * abs(reference) <= reference <= high + 1e-10 * abs(reference)


def test_terms_left_out_are_bounded_not_lost():
    from flint import arb

    kept, dropped = tp_balls._significant([arb(1), arb(1e-30), arb(2e-40)],
                                          [arb(1), arb(3), arb(1)], bits=45)
    assert kept == [0]
    assert dropped >= 3e-30 + 2e-40 and dropped < 4e-30


def test_the_formula_is_rotation_invariant():
    """The Gram parameters of a planar configuration, against a direct 2-D quadrature."""
    a, b, theta, w, alpha = 0.9, 0.8, 1.1, 0.05, 3
    nodes, weights = np.polynomial.hermite_e.hermegauss(120)
    x, y = np.meshgrid(nodes, nodes)
    mass = np.outer(weights, weights) / (2 * math.pi)
    left = 1 - w + w * np.exp(a * x - a * a / 2)
    s = b * (math.cos(theta) * x + math.sin(theta) * y)
    right = 1 - w + w * np.exp(s - b * b / 2)
    direct = math.log(np.sum(mass * left ** alpha * right ** (1 - alpha)))
    value, _ = tp_formula.triangle_log_psi(tp_formula.Triangle.planar(a, b, theta), w, alpha, 1.0)
    assert abs(value - direct) <= 1e-10 * abs(direct)


@pytest.mark.parametrize("alpha, sigma", [(2, 1.0), (4, 0.8)])
def test_the_certified_maximum_is_above_every_feasible_configuration(alpha, sigma):
    certificate = tp_certificate.certify_triangle(W, alpha, sigma)
    rng = np.random.default_rng(alpha)
    values = []
    for a, b, t in rng.uniform(0, 1, size=(300, 3)):
        triangle = tp_formula.Triangle.planar(a, b, t * tp_search._largest_angle(a, b))
        assert triangle.feasible()
        values.append(tp_formula.triangle_log_psi(triangle, float(W), alpha, sigma)[0])
    assert max(values) <= certificate.high
    assert certificate.witness.feasible(slack=0.0)
    assert certificate.low <= certificate.high <= certificate.low * (1 + 1e-3) + 1e-15


@pytest.mark.parametrize("alpha", [2, 8, 32])
def test_the_maximum_lies_between_the_candidates_and_the_relaxed_bound(alpha):
    certificate = tp.cached_certificate(W, alpha, 1.0)
    candidates = [tp_balls.triangle_log_psi_ball(t, W, alpha, 1.0)[0]
                  for t in (tp_formula.EQUILATERAL, tp_formula.REMOVAL)]
    relaxed = tp_balls.triangle_log_psi_ball(tp_formula.OPPOSITE, W, alpha, 1.0)[1]
    assert max(candidates) <= certificate.low <= certificate.high <= relaxed


def test_the_equilateral_conjecture_fails_at_larger_orders():
    """Evidence (not a proof): the equilateral triangle is the worst case at α = 2, the removal
    configuration (``μ₄ = 0``) at α = 8 and 32 (w = 0.01, σ = 1)."""
    assert tp.cached_certificate(W, 2, 1.0).witness == tp_formula.EQUILATERAL
    for alpha in (8, 32):
        assert tp.cached_certificate(W, alpha, 1.0).witness == tp_formula.REMOVAL


def test_the_search_finds_no_configuration_above_the_certificate():
    found = tp_search.search_triangles(0.01, 8, 1.0, starts=4)
    assert found.best.feasible()
    assert found.log_psi <= tp.cached_certificate(W, 8, 1.0).high
    assert found.log_psi >= max(found.equilateral, found.removal) - 1e-12


def test_the_acceptance_command_is_below_the_agnostic_bound(capsys):
    argv = ["rdp", "--scheme", "wor", "--batch-size", "10", "--dataset-size", "1000",
            "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2,8,32"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and "dominating pairs: tight: 001 Thm. 3.6's three-point pattern" in out
    tight = rdp(ACCEPTANCE, gaussian(1.0), "tight", [2, 8, 32])
    agnostic = rdp(ACCEPTANCE, gaussian(1.0), "agnostic", [2, 8, 32])
    for t, g, alpha in zip(tight, agnostic, (2, 8, 32)):
        certificate = tp.cached_certificate(W, alpha, 1.0)
        assert t.value == pytest.approx(certificate.epsilon[1], rel=1e-15)
        assert t.value - t.error <= certificate.epsilon[0] * (1 + 1e-15)
        assert t.value < g.value


def test_the_rate_is_read_from_the_problem_and_rounded_up():
    assert Fraction(1, 100) < W < Fraction(1, 100) * (1 + 1e-13)
    assert _recognised(Subsampling("wor", batch_size=10, dataset_size=1000,
                                   substitutions=2)) is None   # four components a side
    assert _recognised(Subsampling("poisson", rate=0.01)) is None   # 003 Thm. 3.7's pattern
    for group, size in ((2, 1000), (3, 999)):   # one record a batch: w = K/N, three points
        w, distance = _recognised(Subsampling("wor", batch_size=1, dataset_size=size,
                                              substitutions=group))
        assert distance == 1 and 0 <= w - Fraction(group, size) < Fraction(group, size) * 1e-13


def test_every_setting_with_the_pattern_gets_the_same_numbers(capsys):
    """A derivation's bound, a group of one-record batches and a derivation whose distances are
    doubled (001 Thm. F.2, with σ doubled) all reach the solver: one pipeline."""
    common = ["--mechanism", "gaussian", "--alpha", "2"]
    reference = rdp(Subsampling("wor", batch_size=2, dataset_size=1000), gaussian(1.0), "tight",
                    [2])[0]
    runs = [["--derivation", "001-thm-3.6", "--param", "q=2", "--param", "N=1000",
             "--sigma", "1"],
            ["--derivation", "001-thm-F.2", "--param", "q=2", "--param", "N=1000",
             "--sigma", "2"],
            ["--scheme", "wor", "--batch-size", "1", "--dataset-size", "1000",
             "--substitutions", "2", "--sigma", "1"]]
    for argv in runs:
        code, out, _ = run_cli(capsys, "rdp", *argv, *common, "--json")
        result = json.loads(out)
        assert code == 0
        assert result["epsilon"][0] == pytest.approx(reference.value, rel=1e-13)
        assert result["epsilon"][0] >= reference.value * (1 - 1e-13)
    code, out, _ = run_cli(capsys, "rdp", *runs[0], *common)
    assert "tight: 001 Thm. 3.6's three-point pattern" in out


def test_a_partition_over_its_budget_moves_to_the_next_tolerance():
    certificate = tp_certificate.certify_triangle(W, 2, 1.0, tolerances=((1e-3, 4), (1e-2, 6000)))
    exact = tp.cached_certificate(W, 2, 1.0)
    assert certificate.low <= exact.high and exact.low <= certificate.high
    assert certificate.high <= certificate.low * (1 + 1e-2) * (1 + 1e-9)
    with pytest.raises(RuntimeError, match="did not close within 4 boxes"):
        tp_certificate.certify_triangle(W, 2, 1.0, tolerances=((1e-3, 4),))


def test_a_certification_that_does_not_close_is_refused_clearly(monkeypatch):
    from otbound.errors import UnsupportedOperation

    def never(*_):
        raise RuntimeError("certification did not close within 6000 boxes")

    monkeypatch.setattr(tp, "cached_certificate", never)
    setting = Subsampling("wor", batch_size=999, dataset_size=1000)
    with pytest.raises(UnsupportedOperation, match="use method='agnostic'"):
        rdp(setting, gaussian(0.3), "tight", [2])


@pytest.mark.parametrize("sigma, alpha", [(3.0, 2), (1.0, 8), (0.5, 4)])
def test_the_surface_gradient_matches_finite_differences(sigma, alpha, monkeypatch):
    """``∂_a G``, ``∂_b G`` of ``G(a, b) = Ψ(a, b, (a² + b² − 1)/2)`` (001 Thm. 3.6's pattern on
    ``|μ₂ − μ₄| = 1``): the formulas against central differences of the fast evaluation, and
    the ball enclosure over a small box around the point (asked for more accuracy, with a
    larger evaluation budget, than in the solver, which needs little and gives up early)."""
    monkeypatch.setattr(tp_balls, "_SLOPE_EVALUATIONS", 4000)
    monkeypatch.setattr(tp_balls, "_SLOPE_BITS", 20)
    monkeypatch.setattr(tp_balls, "_SLOPE_ACCURACY", 30)

    def log_g(a: float, b: float) -> float:
        return tp_formula.triangle_log_psi(tp_formula.Triangle(a, b, (a * a + b * b - 1) / 2),
                                           0.01, alpha, sigma)[0]

    step = 1e-4
    for a, b in ((1.0, 1.0), (0.9, 0.6), (0.95, 0.1), (0.55, 0.7)):
        value, d_a, d_b = tp_formula.surface_log_gradient(a, b, 0.01, alpha, sigma)
        assert value == pytest.approx(log_g(a, b), rel=1e-12)
        differences = ((log_g(a + step, b) - log_g(a - step, b)) / (2 * step),
                       (log_g(a, b + step) - log_g(a, b - step)) / (2 * step))
        for exact, approximate in zip((d_a, d_b), differences):
            assert abs(exact - approximate) <= 1e-4 * abs(exact) + 1e-5 * abs(value)
        slopes = tp_balls.surface_gradient_ball((a - 1e-9, a + 1e-9), (b - 1e-9, b + 1e-9),
                                                Fraction(1, 100), alpha, sigma, value)
        for exact, ball in zip((d_a, d_b), slopes):   # e^{−scale} ∂G = ∂ log G here
            assert float(ball.lower()) - 1e-9 * abs(exact) <= exact
            assert exact <= float(ball.upper()) + 1e-9 * abs(exact)
            assert float(ball.rad()) <= 1e-3 * abs(exact) + 1e-6 * abs(value)


def _mean_value_bound(box, alpha: int, sigma: float) -> float:
    point, slack, scale = tp_certificate._mean_value_plan(box, W, alpha, sigma)
    return tp_certificate._lift_ball(tp_balls.triangle_log_psi_ball(point, W, alpha, sigma)[1],
                                     slack, scale)


@pytest.mark.parametrize("sigma, alpha", [(3.0, 2), (1.0, 8), (0.5, 4), (5.0, 8)])
def test_the_mean_value_box_bound_is_above_the_formula_in_its_box(sigma, alpha, monkeypatch):
    """Any valid box bound is above the worst feasible value at every point of its box (a
    wrong one fails this): random boxes inside ``a + b ≥ 1`` and anywhere in ``[0, 1]²``
    (the lemma of ``_mean_value_plan`` holds for every box). A larger evaluation budget than
    the solver's makes more of the enclosures finite at small σ."""
    monkeypatch.setattr(tp_balls, "_SLOPE_EVALUATIONS", 4000)
    rng = np.random.default_rng(int(10 * sigma) + alpha)
    finite = 0
    for inside in (True, True, True, False, False):
        size_a, size_b = 2.0 ** -rng.integers(6, 10, size=2)
        a0, b0 = rng.uniform(0, 1 - size_a), rng.uniform(0, 1 - size_b)
        if inside:
            b0 = max(b0, 1 - a0)
            size_b = min(size_b, 1 - b0)
        box = tp_certificate._Box(a0, a0 + size_a, b0, b0 + size_b)
        bound = _mean_value_bound(box, alpha, sigma)
        finite += math.isfinite(bound)
        corners = [(box.a0, box.b0), (box.a1, box.b1), (box.a0, box.b1), (box.a1, box.b0)]
        points = corners + list(zip(rng.uniform(box.a0, box.a1, 40),
                                    rng.uniform(box.b0, box.b1, 40)))
        for a, b in points:
            value, error = tp_formula.triangle_log_psi(tp_formula.Triangle.worst_for(a, b),
                                                       float(W), alpha, sigma)
            assert value - error <= bound
    assert finite >= 3


@pytest.mark.parametrize("sigma, alpha", [(3.0, 2), (5.0, 8)])
def test_large_sigma_is_certified_at_the_finer_tolerance(sigma, alpha):
    """σ = 3, α = 2 (w = 1/100): the first-order corner bound alone needed 10⁻² (4 438 boxes);
    σ = 5, α = 8 closed at neither. With the mean-value bound 10⁻³ takes a few dozen boxes."""
    certificate = tp_certificate.certify_triangle(W, alpha, sigma, tolerances=((1e-3, 3000),))
    assert certificate.witness.feasible(slack=0.0)
    assert certificate.low <= certificate.high <= certificate.low * (1 + 1e-3)
    assert certificate.boxes <= 300


@pytest.mark.parametrize("sigma, alpha", [(1.0, 8), (4.0, 175)])
def test_inherited_gradient_enclosures_bound_their_boxes(sigma, alpha):
    """The boxes of a certification whose mean-value plan uses an ancestor's gradient
    enclosures (``_BoxBounds``): the rigorous bound of each is above the formula at random
    feasible points of the box, with sign (a plan from the wrong box fails this)."""
    w = Fraction(256, 60000)
    bounds = tp_certificate._BoxBounds(w, alpha, sigma)
    low = tp_balls.triangle_log_psi_ball(tp_formula.REMOVAL, w, alpha, sigma)[0]
    margin = low * (1 + 5e-5)
    tp_certificate._partition(lambda box: bounds.guide(box, margin, 1e-6 * low), margin, 400,
                              bounds.split)
    inherited = [box for box in bounds.plans if box not in bounds.slopes]
    assert inherited
    rng = np.random.default_rng(alpha)
    for box in inherited[:12]:
        bound = bounds.mean_value(box,
                                  lambda p: tp_balls.triangle_log_psi_ball(p, w, alpha, sigma)[1],
                                  tp_certificate._lift_ball, margin)
        for a, b in zip(rng.uniform(box.a0, box.a1, 20), rng.uniform(box.b0, box.b1, 20)):
            value, error = tp_formula.triangle_log_psi(tp_formula.Triangle.worst_for(a, b),
                                                       float(w), alpha, sigma)
            assert value - error <= bound
