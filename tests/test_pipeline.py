"""One pipeline: every number comes from a derived bound, for any group size (issue 11)."""

import json
import math
from dataclasses import replace
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
from cli_runs import INDEPENDENT_MEMBERS, POISSON_TWO_SUBSTITUTION, run_cli, write_derivation
from derivation_reports import report_for
from hand_written import poisson_problem, wor_group_problem, wor_group_terms

import otbound.numerics.derived as derived
from otbound.accounting.conversion import balle_epsilon, optimal_epsilon
from otbound.engine.bundled import bundled_derivations, load_derivation, load_file
from otbound.engine.derivation import run
from otbound.engine.epoch_derivation import EpochDerivation
from otbound.numerics.mechanisms import gaussian
from otbound.numerics.one_step import rdp
from otbound.numerics.families import GAUSSIAN
from otbound.numerics.pairs import MixturePair
from otbound.numerics.settings import Subsampling
from otbound.verify.high_precision import precise_hockey_stick, precise_log_psi
from otbound.verify.verification import verify_derivation


def same_problem(numeric, other) -> bool:
    return (np.allclose(numeric.left, other.left, rtol=1e-12, atol=0)
            and np.allclose(numeric.right, other.right, rtol=1e-12, atol=0)
            and numeric.closed() == other.closed())


# --- the built-in settings are bundled derivations ------------------------------------------

@pytest.mark.parametrize("setting", [
    Subsampling("poisson", rate=0.3, group=5),
    Subsampling("poisson", rate=1e-4, insertions=2, removals=7),
    Subsampling("wor", batch_size=6, dataset_size=40, substitutions=4),
])
def test_settings_name_bundled_derivations(setting):
    bundled = {d.name for _, d in bundled_derivations()}
    assert {name for name, _ in setting.derivations()} <= bundled


@pytest.mark.parametrize("rate", [0.3, 1e-4])
def test_poisson_settings_are_003_thm_3_7_for_any_group(rate):
    setting = Subsampling("poisson", rate=rate, group=6)
    cases = setting.cases()
    assert len(cases) == 7
    for (inserted, removed), terms in zip(setting.shapes(), cases):
        ((log_p, problem),) = terms
        assert log_p == 0 and same_problem(problem, poisson_problem(rate, inserted, removed))


@pytest.mark.parametrize("inserted, removed", [(0, 1), (1, 2), (0, 3), (2, 5)])
def test_a_mirrored_variant_is_its_direct_derivation(inserted, removed):
    """003 Thm. 3.7 at (K₊, K₋) with K₊ < K₋ is served as (K₋, K₊) read in the other direction;
    deriving it directly gives the same weights and constraints (up to the labels)."""
    derived.derived_bundled.cache_clear()
    mirrored = derived.derived_bundled("003-thm-3.7", K_plus=inserted, K_minus=removed)
    direct = derived.derive_bound(load_derivation("003-thm-3.7").at(
        {"K_plus": inserted, "K_minus": removed}))
    assert mirrored.label == direct.label
    assert ([[problem.constraints for _, problem in case.terms] for case in mirrored.cases]
            == [[problem.constraints.relabelled(mine.constraints.labels)
                 for (_, problem), (_, mine) in zip(case.terms, other.terms)]
                for case, other in zip(direct.cases, mirrored.cases)])
    for mine, theirs in zip(mirrored.bound.cases, direct.bound.cases, strict=True):
        for (p, problem), (p_direct, other) in zip(mine.terms, theirs.terms, strict=True):
            assert sp.simplify(p - p_direct) == 0
            for side, other_side in ((problem.left, other.left), (problem.right, other.right)):
                assert [sp.expand(c.weight) for c in side] == [sp.expand(c.weight)
                                                               for c in other_side]
            assert problem.constraints.bounds == other.constraints.bounds
            # served by the mirror: x's components are the events on x' of (K₋, K₊)
            assert [c.label[0] for c in problem.left] == ["E"] * (removed + 1)
            assert problem.swapped().swapped() == problem


@pytest.mark.parametrize("q, n, k", [(3, 50, 1), (6, 40, 4), (2, 30, 5)])
def test_wor_settings_are_the_group_substitution_derivation(q, n, k):
    setting = Subsampling("wor", batch_size=q, dataset_size=n, substitutions=k)
    ((log_p, problem),), = setting.cases()
    assert log_p == 0 and same_problem(problem, wor_group_problem(q, n, k))
    (terms,) = setting.agnostic_cases()
    expected = wor_group_terms(q, n, k)
    assert len(terms) == len(expected)
    for (log_p, problem), (log_e, other) in zip(terms, expected):
        assert math.isclose(log_p, log_e, rel_tol=1e-12, abs_tol=1e-15)
        assert problem.closed() == other.closed()


def test_numbers_follow_the_derived_bound(monkeypatch):
    """Replacing the bound a bundled derivation emits changes the numbers of its setting."""
    from otbound.engine.symbols import r

    alphas = [2.0, 8.0]
    setting = Subsampling("poisson", rate=0.01, group=2)
    before = [b.value for b in rdp(setting, gaussian(1.0), "tight", alphas)]
    original = derived.bundled

    def doubled_rate(name, **structural):
        found = derived.derived_bundled(name, **structural)
        bound = _substituted(found.bound, {r: 2 * r})
        return replace(found, cases=derived.compiled(bound), bound=bound)

    monkeypatch.setattr(derived, "bundled", doubled_rate)
    after = [b.value for b in rdp(Subsampling("poisson", rate=0.01, group=2), gaussian(1.0),
                                  "tight", alphas)]   # a setting evaluates its bound once
    monkeypatch.setattr(derived, "bundled", original)
    twice = [b.value for b in rdp(Subsampling("poisson", rate=0.02, group=2), gaussian(1.0),
                                  "tight", alphas)]
    assert after == pytest.approx(twice, rel=1e-12) and after[0] > 3 * before[0]


def _substituted(bound, values):
    """The bound with its symbols replaced (e.g. the rate r by 2r)."""
    from dataclasses import replace

    from otbound.engine.bound import Component, MixtureBound, MixtureProblem

    def side(components):
        return tuple(Component(c.label, c.weight.subs(values)) for c in components)

    return MixtureBound(tuple(
        replace(case, terms=tuple((probability.subs(values),
                                   MixtureProblem(side(p.left), side(p.right), p.constraints))
                                  for probability, p in case.terms))
        for case in bound.cases))


def test_no_mixture_weights_are_written_outside_derivations():
    import otbound.numerics.problems as problems
    import otbound.numerics.settings as settings

    for module in (problems, settings):
        for name in ("log_binomial_weights", "log_hypergeometric_weights", "poisson_problem",
                     "wor_group_problem", "wor_group_terms", "wor_substitution_problem"):
            assert not hasattr(module, name), f"{module.__name__}.{name}"


# --- derivations for any group size ------------------------------------------------------------

@pytest.mark.parametrize("name, params", [
    ("001-thm-4.1", ["K=16"]),
    ("003-thm-3.7", ["K_plus=5", "K_minus=11"]),
    ("001-prop-E.5", ["K=8"]),
])
def test_derive_any_group_size(capsys, name, params):
    code, out, _ = run_cli(capsys, "derive", name, *[a for p in params for a in ("--param", p)])
    assert code == 0
    assert out.count("marginals valid — proved for every N at the level of types") >= 1
    assert "NOT" not in out and "d_Y-compatible for every N (type level)" in out
    assert "instances not enumerated" in out
    assert "matches the published statement: yes" in out


def test_verify_takes_structural_parameters(capsys):
    code, out, _ = run_cli(capsys, "verify", "001-thm-4.1", "--param", "K=4", "--max-n", "5",
                           "--samples", "50", "--json")
    report = json.loads(out)
    variants = {check["parameters"]["variant"] for check in report["checks"]}
    assert code == 0 and variants == {"K = 4"}
    # Ψ_2 of the Gaussian at K = 4 is heavy-tailed: 20,000 samples cannot refute it, and say so
    gaussian_rdp = [c for c in report["checks"] if c["check"] == "Monte Carlo RDP (worst case)"
                    and c["parameters"]["mechanism"] == "gaussian"]
    assert {c["verdict"] for c in gaussian_rdp} >= {"uninformative"}


# multiset batches: type masses do not determine the pmf, so these are checked on instances only
# (their proof for every N is written out in docs/with_replacement.md)
INSTANCE_ONLY = {"wr-substitution", "wr-insertion-removal", "wr-group-substitution",
                 "002-thm-3.1", "002-thm-3.3", "002-thm-3.4"}
"""Checked on the instances of the grid only: multiset batches, and public branches (the
conditioned scheme has no symbolic batch-type masses)."""


def test_type_level_and_instances_agree_on_every_bundled_variant():
    for _, derivation in bundled_derivations():
        if isinstance(derivation, EpochDerivation):   # tests/test_epoch_derivations.py
            continue
        report = report_for(derivation.name)
        for variant in report.variants:
            for case in variant.cases:
                if derivation.name in INSTANCE_ONLY:
                    assert case.valid and not case.proved_valid, (derivation.name, case)
                else:
                    assert case.proved_valid and case.proved_compatible, (derivation.name, case)
                assert case.checked > 0 and case.violation is None


@pytest.mark.parametrize("argv, message", [
    (["derive", "001-thm-4.1", "--param", "K=0"], "K (group size) must be an integer in [1, 32]"),
    (["derive", "001-thm-4.1", "--param", "K=33"], "must be an integer in [1, 32], got '33'"),
    (["derive", "001-thm-4.1", "--param", "r=0.1"], "has no structural parameter r"),
    (["derive", "003-thm-3.7", "--param", "K_plus=2"], "needs a value for K_minus"),
    (["derive", "003-thm-3.7", "--param", "K_plus=0", "--param", "K_minus=0"],
     "K+ + K- must be >= 1"),
    (["derive", "--all", "--param", "K=2"], "--param applies to one derivation"),
    (["rdp", "--derivation", "001-thm-4.1", "--param", "K=2", "--param", "r=1.5",
      "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2"], "r must be in [0, 1], got 1.5"),
    (["rdp", "--derivation", "001-thm-4.1", "--param", "K=2", "--mechanism", "gaussian",
      "--sigma", "1", "--alpha", "2"], "depends on r: give it a value"),
    (["rdp", "--derivation", "001-thm-4.1", "--param", "r=0.1", "--mechanism", "gaussian",
      "--sigma", "1", "--alpha", "2"], "needs a value for K"),
    (["rdp", "--derivation", "001-thm-3.6", "--param", "q=0", "--param", "N=10",
      "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2"], "q must be an integer >= 1"),
    (["rdp", "--derivation", "001-thm-3.6", "--param", "q=20", "--param", "N=10",
      "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2"], "q must be at most N"),
    (["rdp", "--derivation", "001-thm-4.1", "--scheme", "poisson", "--param", "K=1",
      "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2"],
     "--scheme does not apply with --derivation"),
    (["rdp", "--scheme", "poisson", "--rate", "0.1", "--param", "K=1",
      "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2"], "--param applies with --derivation"),
    (["rdp", "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2"], "give a setting"),
    (["rdp", "--derivation", "001-thm-F.3", "--param", "q=2", "--param", "N=10",
      "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2", "--method", "posthoc"],
     "--method posthoc applies group privacy to a K = 1 bound of the same scheme"),
    (["rdp", "--derivation", "001-thm-F.2", "--param", "q=2", "--param", "Q=10",
      "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2"],
     "the maximum over N > Q of 001-thm-F.2 is not computed"),
    (["rdp", "--derivation", "no-such-derivation", "--mechanism", "gaussian", "--sigma", "1",
      "--alpha", "2"], "no-such-derivation"),
])
def test_bad_parameters_are_refused_clearly(capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "" and message in err, err
    assert "Traceback" not in err


# --- numbers for a user's derivation --------------------------------------------------------

def _two_substitution_pair(rate: float, sigma: float) -> MixturePair:
    """The worst case for 2-fold substitution under Poisson sampling, built by hand: means
    0, 1, 2 against 0, −1, −2 (in units of σ's sensitivity) with Binom(· | 2, r) weights."""
    with mp.workdps(40):
        r = mp.mpf(Fraction(str(rate)).numerator) / Fraction(str(rate)).denominator
        logs = [float(mp.log(w)) for w in ((1 - r) ** 2, 2 * r * (1 - r), r ** 2)]
    return MixturePair(GAUSSIAN, sigma, [0, 1, 2], logs, [0, -1, -2], logs)


def test_user_derivation_numbers_agree_with_high_precision_quadrature(capsys, tmp_path):
    path = write_derivation(tmp_path, "poisson_two", POISSON_TWO_SUBSTITUTION)
    common = ["--derivation", path, "--param", "r=0.05", "--mechanism", "gaussian",
              "--sigma", "1.5", "--json"]
    pair = _two_substitution_pair(0.05, 1.5)
    code, out, _ = run_cli(capsys, "rdp", *common, "--alpha", "2,7.5")
    result = json.loads(out)
    assert code == 0 and result["pairs"].startswith("tight")
    for alpha, epsilon in zip(result["alpha"], result["epsilon"]):
        reference = float(precise_log_psi(pair, alpha)[0]) / (alpha - 1)
        assert epsilon >= reference and epsilon == pytest.approx(reference, rel=1e-9)
    code, out, _ = run_cli(capsys, "adp", *common, "--epsilon", "0.5")
    result = json.loads(out)
    for epsilon, delta in zip(result["epsilon"], result["delta"]):
        reference = float(precise_hockey_stick(pair, epsilon)[0])
        assert delta >= reference and delta == pytest.approx(reference, rel=1e-9)
    code, out, _ = run_cli(capsys, "account", *common[:-1], "--steps", "500", "--delta", "1e-6",
                           "--accountant", "rdp", "--json")
    result = json.loads(out)
    alpha = result["order"]
    rho = 500 * float(precise_log_psi(pair, alpha)[0]) / (alpha - 1)
    # the accountant reports the better of the optimal conversion and Balle et al. 2020's
    reference = min(optimal_epsilon(alpha, rho, 1e-6).epsilon, balle_epsilon(alpha, rho, 1e-6))
    assert code == 0 and result["epsilon"] == pytest.approx(reference, rel=1e-9)
    assert result["epsilon"] >= reference * (1 - 1e-12)


def test_user_derivation_equals_the_built_in_insert_remove_setting(capsys, tmp_path):
    path = write_derivation(tmp_path, "poisson_two", POISSON_TWO_SUBSTITUTION)
    values = []
    for setting in (["--derivation", path, "--param", "r=0.1"],
                    ["--scheme", "poisson", "--rate", "0.1", "--insertions", "2", "--removals",
                     "2"]):
        code, out, _ = run_cli(capsys, "rdp", *setting, "--mechanism", "laplace", "--scale", "2",
                               "--alpha", "2,16", "--json")
        values.append(json.loads(out)["epsilon"])
    assert values[0] == values[1]


def test_f2_and_f3_are_evaluable(capsys):
    rr = ["--mechanism", "randomized-response", "--theta", "0.75", "--alpha", "2,8", "--json"]
    for name in ("001-thm-F.2", "001-thm-F.3"):
        code, out, _ = run_cli(capsys, "rdp", "--derivation", name, "--param", "q=4",
                               "--param", "N=21", *rr)
        assert code == 0 and all(e > 0 for e in json.loads(out)["epsilon"])
    at = {}
    for key, value in (("N", 21), ("Q", 20), ("N", 22), ("N", 400)):
        code, out, _ = run_cli(capsys, "rdp", "--derivation", "001-thm-F.3", "--param", "q=4",
                               "--param", f"{key}={value}", *rr)
        at[(key, value)] = json.loads(out)["epsilon"]
    # the maximum over N > 20 is attained at N = 21, and larger N give less
    assert at[("Q", 20)] == at[("N", 21)]
    assert all(a > b > c for a, b, c in zip(at[("N", 21)], at[("N", 22)], at[("N", 400)]))


# --- valid but not d_Y-compatible --------------------------------------------------------------

def test_valid_non_compatible_coupling_gives_a_sound_loose_bound(capsys, tmp_path):
    path = write_derivation(tmp_path, "independent", INDEPENDENT_MEMBERS)
    code, out, _ = run_cli(capsys, "derive", path)
    assert code == 1 and "NOT d_Y-compatible" in out
    assert "valid, not d_Y-compatible (may be loose)" in out and "Theorem." in out
    numbers = {}
    for method, mechanism in (("tight", ["randomized-response", "--theta", "0.8"]),
                              ("agnostic", ["gaussian", "--sigma", "1"])):
        for name in (str(path), "001-thm-3.6"):
            code, out, _ = run_cli(capsys, "rdp", "--derivation", name, "--param", "q=3",
                                   "--param", "N=12", "--mechanism", *mechanism,
                                   "--alpha", "2,8,64", "--method", method, "--json")
            assert code == 0
            result = json.loads(out)
            numbers[(method, name)] = result["epsilon"]
            if name == str(path):
                assert result["setting"]["bound"] == "valid, not d_Y-compatible (may be loose)"
        loose, compatible = numbers[(method, str(path))], numbers[(method, "001-thm-3.6")]
        assert all(a >= b for a, b in zip(loose, compatible))
    # agnostic: the published bounds of the scheme and relation (Wang et al. 2019) apply to both
    assert numbers[("agnostic", str(path))] == numbers[("agnostic", "001-thm-3.6")]
    report = verify_derivation(run(load_file(path)), max_n=5, samples=300, seed=1)
    assert report.passed


def test_derived_setting_rejects_an_invalid_coupling(capsys, tmp_path):
    from cli_runs import BROKEN_COUPLINGS

    path = write_derivation(tmp_path, "broken", BROKEN_COUPLINGS)
    code, _, err = run_cli(capsys, "rdp", "--derivation", path, "--param", "r=0.1",
                           "--mechanism", "gaussian", "--sigma", "1", "--alpha", "2")
    assert code == 2 and "no bound to evaluate" in err


def test_derivation_of_many_variants_needs_its_parameters():
    with pytest.raises(Exception, match="choose one with its structural parameters"):
        derived.derive_bound(load_derivation("001-thm-4.1"))
