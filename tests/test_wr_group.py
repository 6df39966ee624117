"""Group substitution under sampling with replacement (issue 13, item 3; otbound's own result,
docs/with_replacement.md): derived, equal to one substitution at the rate K/N, and sound on
adversarial exact cases."""

import json

import pytest
import sympy as sp
from cli_runs import run_cli

from otbound.engine.bundled import load_derivation
from otbound.engine.derivation import run
from otbound.engine.symbols import N
from otbound.verify.verification import verify_derivation

GROUP = "wr-group-substitution"


def _bound(name: str, **params):
    report = run(load_derivation(name).at(params))
    (variant,) = report.variants
    assert variant.valid and variant.d_compatible and variant.bound is not None
    return variant.bound


@pytest.mark.parametrize("K, q", [(2, 2), (3, 2), (2, 3)])
def test_a_group_of_K_costs_one_substitution_at_rate_K_over_N(K, q):
    group, single = _bound(GROUP, K=K, q=q), _bound("wr-substitution", q=q)
    (case,), (reference,) = group.cases, single.cases
    for (p, problem), (p_ref, problem_ref) in zip(case.canonical().terms,
                                                  reference.canonical().terms):
        assert sp.simplify(p - p_ref) == 0 and problem.constraints == problem_ref.constraints
        for mine, theirs in zip(problem.left + problem.right,
                                problem_ref.left + problem_ref.right):
            assert sp.simplify(mine.weight - theirs.weight.subs(N, N / K)) == 0


def test_the_default_variants_are_valid_and_compatible_on_every_instance():
    report = run(load_derivation(GROUP))
    assert report.valid and report.d_compatible
    for variant in report.variants:
        (case,) = variant.cases
        assert case.checked >= 9 and case.valid and case.d_compatible


@pytest.mark.parametrize("command, values, mechanism", [
    ("rdp", "2,8", ["--mechanism", "gaussian", "--sigma", "1"]),
    ("adp", "0.001,0.003", ["--mechanism", "laplace", "--scale", "1"]),
    ("rdp", "2,8", ["--mechanism", "randomized-response", "--theta", "0.75"]),
])
def test_numbers_equal_one_substitution_at_N_over_K(capsys, command, values, mechanism):
    flag = "--alpha" if command == "rdp" else "--epsilon"

    def numbers(derivation, *params):
        code, out, _ = run_cli(capsys, command, "--derivation", derivation,
                               *[a for p in params for a in ("--param", p)], *mechanism,
                               flag, values, "--json")
        assert code == 0
        result = json.loads(out)
        return result["epsilon" if command == "rdp" else "delta"]

    group = numbers(GROUP, "K=2", "q=3", "N=1000")
    single = numbers("wr-substitution", "q=3", "N=500")
    assert group == pytest.approx(single, rel=1e-12) and min(group) > 0


def test_no_adversarial_exact_case_exceeds_the_bound():
    report = verify_derivation(run(load_derivation(GROUP)), samples=120, seed=3, mc_draws=2000)
    soundness = [f for f in report.findings if f.check == "soundness search"]
    assert soundness and all(f.verdict == "sound" for f in soundness)
    assert report.passed


@pytest.mark.slow
def test_two_thousand_adversarial_exact_cases():
    report = verify_derivation(run(load_derivation(GROUP)), samples=2000, seed=0)
    assert report.passed and report.soundness_cases >= 2000
