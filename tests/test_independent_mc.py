"""The independent Monte Carlo (otbound.verify.independent_mc): batches simulated, densities in
closed form; it confirms each tight bundled derivation at one configuration, catches the bound
lowered by 5 %, and never calls a row that could not have caught that "consistent"."""

import json
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from cli_runs import run_cli
from derivation_reports import report_for

from otbound.engine import symbols
from otbound.errors import UnsupportedOperation
from otbound.numerics.mechanisms import gaussian, laplace, randomized_response
from otbound.verify import divergence
from otbound.verify.checks import Instance
from otbound.verify.enumeration import value_distribution
from otbound.verify.independent_mc import (CONSISTENT, DEFAULT_DRAWS, LOWERED, UNINFORMATIVE,
                                           VIOLATED, Interval, case_instance, check_independent_mc,
                                           documented_configurations, hit_function, value_weights,
                                           worst_case_of, worst_table)
from otbound.verify.verification import verify_derivation

EPSILON = 0.5


def _instance(name: str, variant: str, case: str, values: dict, size: int) -> Instance:
    """The case of the bundled derivation at ``values`` on datasets of ``size`` records."""
    return case_instance(report_for(name), variant, case, values, size)


# One documented configuration per case of a bundled derivation with a tight mechanism, and
# 001 Prop. E.5 where it is attained (docs/verification.md), shared with
# benchmarks/independent_mc_table.py.
CONFIGURATIONS = documented_configurations()
IDS = [f"{c[0]}-{c[1]}-{c[2]}-{c[4].name}" for c in CONFIGURATIONS]


@pytest.mark.parametrize("name, variant, case, values, mechanism, draws", CONFIGURATIONS,
                         ids=IDS)
def test_confirms_the_bound_and_catches_it_lowered_by_five_percent(name, variant, case, values,
                                                                  mechanism, draws):
    instance = _instance(name, variant, case, values, 6)
    row = check_independent_mc(instance, mechanism, EPSILON, draws, np.random.default_rng(0))
    assert row.verdict == CONSISTENT and row.passed, row
    assert row.bound > 1e-3 and row.interval[0] <= row.bound   # δ is not tiny; the bound holds
    lowered = (1 - LOWERED) * row.bound
    caught = check_independent_mc(instance, mechanism, EPSILON, draws, np.random.default_rng(1),
                                  bound=lowered)
    assert caught.verdict == VIOLATED and not caught.passed, caught
    assert caught.interval[0] > lowered


@pytest.mark.parametrize("name, variant, case, values, mechanism, draws", CONFIGURATIONS,
                         ids=IDS)
def test_too_few_draws_are_uninformative_never_consistent(name, variant, case, values,
                                                         mechanism, draws):
    instance = _instance(name, variant, case, values, 6)
    row = check_independent_mc(instance, mechanism, EPSILON, 500, np.random.default_rng(0))
    assert row.verdict == UNINFORMATIVE, row
    assert row.interval[1] - row.interval[0] > LOWERED * row.bound


def test_a_bound_the_construction_does_not_attain_is_uninformative():
    instance = _instance("001-thm-4.1", "K = 2", "removal", {symbols.r: Fraction(1, 2)}, 6)
    bound = float(instance.bound_delta(gaussian(1.0), [EPSILON])[0])
    row = check_independent_mc(instance, gaussian(1.0), EPSILON, 200_000,
                               np.random.default_rng(0), bound=1.2 * bound)
    assert row.verdict == UNINFORMATIVE and row.interval[1] < bound * 1.2


@pytest.mark.parametrize("lower, upper, bound, verdict", [
    (0.50, 0.52, 0.49, VIOLATED), (0.48, 0.52, 0.49, CONSISTENT), (0.466, 0.5, 0.49, CONSISTENT),
    (0.465, 0.5, 0.49, UNINFORMATIVE), (0.0, 0.9, 0.49, UNINFORMATIVE),
    (0.0, 0.0, 0.0, UNINFORMATIVE), (1e-9, 1e-3, 0.0, VIOLATED)])
def test_the_verdict_rule(lower, upper, bound, verdict):
    assert Interval((lower + upper) / 2, lower, upper, 10).verdict(bound) == verdict


def test_interval_covers_a_known_mean_and_shrinks():
    rng = np.random.default_rng(3)
    small, large = (Interval.of(rng.random(n) < 0.2) for n in (1_000, 100_000))
    assert small.lower <= 0.2 <= small.upper and large.lower <= 0.2 <= large.upper
    assert 0 <= large.lower and large.upper <= 1 and large.width < small.width / 5


@pytest.mark.parametrize("name, variant, case, values, mechanism, draws", CONFIGURATIONS,
                         ids=IDS)
def test_closed_form_weights_agree_with_enumerating_the_scheme(name, variant, case, values,
                                                               mechanism, draws):
    """The module's own binomial/hypergeometric/multinomial weights against otbound's pmf."""
    instance = _instance(name, variant, case, values, 6)
    function = worst_table(instance, mechanism, EPSILON)
    worst = worst_case_of(instance, mechanism, EPSILON)
    for dataset in instance.datasets:
        ours = value_weights(worst, instance.scheme, dataset)
        enumerated = value_distribution(instance.scheme, dataset, function)
        assert set(ours) == {float(v) for v, p in enumerated.items() if p > 0}
        for value, probability in enumerated.items():
            assert math.isclose(ours[float(value)], float(probability), rel_tol=1e-12)


@pytest.mark.parametrize("q, attained", [(5, True), (4, False), (3, False), (2, False)])
def test_e5_is_attained_exactly_where_every_batch_holds_a_group_record(q, attained):
    """001 Prop. E.5 with K = 2, N = 6, randomized response: ``f(y) = 1[y ∩ g ≠ ∅]`` attains
    the bound at ε = 0.5 only for q > N − K = 4 (HyperGeom(0) = 0); the gap is
    ``(1 − θ) HyperGeom(0) (e^ε − 1)``. At ε = 0 (total variation) it is attained for every q."""
    instance = _instance("001-prop-E.5", "K = 2", "substitution", {symbols.q: q}, 6)
    mechanism = randomized_response(0.75)
    pair = instance.exact_pair(mechanism, hit_function(instance, mechanism))
    h0 = math.comb(4, q) / math.comb(6, q)
    for epsilon in (0.0, EPSILON):
        bound = float(instance.bound_delta(mechanism, [epsilon])[0])
        exact = divergence.delta(pair, epsilon)
        assert exact == pytest.approx(bound - 0.25 * h0 * math.expm1(epsilon), rel=1e-9)
        assert math.isclose(exact, bound, rel_tol=1e-10) == (attained or epsilon == 0.0)


def test_several_term_bounds_have_a_construction_for_randomized_response_only():
    instance = _instance("001-prop-E.5", "K = 2", "substitution", {symbols.q: 5}, 6)
    assert len(instance.terms) == 2
    with pytest.raises(UnsupportedOperation, match="several terms"):
        worst_table(instance, gaussian(1.0), EPSILON)


def test_verify_reports_the_rows_with_their_interval_width(capsys):
    code, out, _ = run_cli(capsys, "verify", "001-thm-3.6", "--samples", "10", "--mc-draws",
                           "50000", "--json")
    rows = [c for c in json.loads(out)["checks"]
            if c["check"] == "independent Monte Carlo δ(ε)"]
    assert code == 0 and rows and all(r["parameters"]["draws"] == 50_000 for r in rows)
    assert all(r["interval_width"] == pytest.approx(r["interval"][1] - r["interval"][0])
               for r in rows)
    assert {r["verdict"] for r in rows} == {CONSISTENT}
    code, out, _ = run_cli(capsys, "verify", "001-thm-3.6", "--samples", "10", "--mc-draws",
                           "300")
    assert code == 0 and re.search(r"independent Monte Carlo δ\(ε\) .*uninformative", out)
    assert re.search(r"independent Monte Carlo δ\(ε\) \(K = 1, substitution, "
                     r"randomized-response\): interval \[[-0-9.e]+, [-0-9.e]+\], width ", out)


def test_uninformative_rows_are_counted_apart_from_passes_and_do_not_fail(capsys):
    """With 300 draws the independent row is uninformative (so are the old Gaussian and Laplace
    rows): the summary counts them apart, says what they mean, and the exit code stays 0."""
    code, out, _ = run_cli(capsys, "verify", "001-thm-3.6", "--samples", "10", "--mc-draws",
                           "300", "--json")
    report = json.loads(out)
    verdicts = [c["verdict"] for c in report["checks"]]
    uninformative = verdicts.count(UNINFORMATIVE)
    independent = [c for c in report["checks"] if c["check"] == "independent Monte Carlo δ(ε)"]
    assert code == 0 and report["passed"] is True
    assert independent and all(c["verdict"] == UNINFORMATIVE for c in independent)
    assert report["counts"] == {"passed": len(verdicts) - uninformative,
                                "uninformative": uninformative, "failed": 0,
                                "total": len(verdicts)}
    assert "0.95 × bound" in report["uninformative_means"]
    code, out, _ = run_cli(capsys, "verify", "001-thm-3.6", "--samples", "10", "--mc-draws",
                           "300")
    table = [line.split()[-1] for line in out.splitlines()
             if line.startswith(("soundness", "Monte Carlo", "independent", "tightness",
                                 "published statement ", "published soundness"))
             and "  " in line]
    counts = re.search(r"^(\d+) passed, (\d+) uninformative \(.+\), (\d+) failed, of (\d+) "
                       r"checks", out, re.M)
    assert code == 0 and counts, out
    assert [int(n) for n in counts.groups()] == [len(table) - uninformative, uninformative, 0,
                                                 len(table)]
    assert table.count(UNINFORMATIVE) == uninformative >= len(independent)
    assert re.search(r"^uninformative: a Monte Carlo row whose confidence interval cannot "
                     r"refute the bound: its lower end is not above 0.95 × bound", out, re.M)


@pytest.mark.parametrize("draws", ["1", "10000001"])
def test_verify_refuses_draws_out_of_range(capsys, draws):
    code, _, err = run_cli(capsys, "verify", "001-thm-3.6", "--mc-draws", draws)
    assert code == 2 and "mc_draws must be an integer in [2, 10000000]" in err


def test_cli_default_draws_match_the_module():
    from otbound.cli import build_parser
    args = build_parser().parse_args(["verify", "001-thm-3.6"])
    assert args.mc_draws == DEFAULT_DRAWS


def test_no_monte_carlo_row_that_cannot_catch_a_lowered_bound_says_consistent():
    """Old and new Monte Carlo rows: "consistent" only with the lower end above 0.95 × bound."""
    report = verify_derivation(report_for("001-prop-E.4"), max_n=6, samples=10, mc_draws=20_000)
    rows = [f for f in report.findings if "Monte Carlo" in f.check]
    assert {f.verdict for f in rows} >= {CONSISTENT, UNINFORMATIVE}
    for row in rows:
        lower = (row.interval[0] if row.interval is not None
                 else float(re.search(r"interval \[([^,]+),", row.witness).group(1)))
        if row.verdict == CONSISTENT:
            assert lower > (1 - LOWERED) * row.bound, row


@pytest.mark.slow
@pytest.mark.parametrize("name, variant, case, values, mechanism", [
    ("003-thm-3.7", "K+ = 1, K- = 1", "insert-remove", {symbols.r: Fraction(1, 2)},
     gaussian(1.0)),
    ("003-thm-3.7", "K+ = 1, K- = 2", "insert-remove", {symbols.r: Fraction(1, 2)},
     laplace(1.0)),
    ("wor-group-substitution", "K = 3", "substitution", {symbols.q: 3},
     randomized_response(0.75)),
    ("001-thm-4.1", "K = 3", "removal", {symbols.r: Fraction(1, 2)}, gaussian(1.0)),
])
def test_larger_groups_with_a_million_draws(name, variant, case, values, mechanism):
    instance = _instance(name, variant, case, values, 6)
    row = check_independent_mc(instance, mechanism, EPSILON, 1_000_000,
                               np.random.default_rng(0))
    caught = check_independent_mc(instance, mechanism, EPSILON, 1_000_000,
                                  np.random.default_rng(1), bound=(1 - LOWERED) * row.bound)
    assert (row.verdict, caught.verdict) == (CONSISTENT, VIOLATED), (row, caught)
