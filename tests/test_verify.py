"""The verifier: tightness of claimed bounds, adversarial soundness search, Monte Carlo, mutations."""

import json
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis import target
from derivation_reports import by_derivation, report_for
from published import rr_thm_g1

from otbound.choices import Quantity
from otbound.cli import main
from otbound.engine.bundled import bundled_derivations, load_derivation
from otbound.engine.derivation import check_case
from otbound.engine.epoch_derivation import EpochDerivation
from otbound.engine.symbols import q, r
from otbound.numerics.mechanisms import RandomizedResponse, gaussian, laplace
from otbound.verify import divergence
from otbound.verify.checks import (TRIVIAL_MEANING, UNINFORMATIVE_MEANING, Finding, Instance,
                                   SearchTally)
from otbound.verify.mutations import check_mutations
from otbound.verify.soundness import check_soundness, random_function, search_soundness
from otbound.verify.tightness import check_tightness, worst_function
from otbound.verify.verification import instances, verify_derivation
from otbound.verify.verify_report import VerifyReport

ONE_STEP = [(path, d) for path, d in bundled_derivations() if not isinstance(d, EpochDerivation)]
"""The one-step derivations (epoch-level ones: tests/test_epoch_derivations.py)."""

CLAIMS = [("001-thm-3.6", "randomized-response"),   # 001 Thm. 3.7 / F.1
          ("001-thm-4.1", "randomized-response"),   # 001 Thm. G.1 / G.2
          ("001-thm-4.1", "gaussian"),              # 001 Thm. 4.2 / G.3
          ("003-thm-3.7", "gaussian"),              # 003 Thm. 3.8, RDP and ADP
          ("003-thm-3.7", "laplace"),               # the Laplace analogue (003 Thm. M.2)
          ("001-prop-E.4", "laplace"),
          # otbound: randomized response sees only whether a batch distance is 0
          ("001-thm-F.2", "randomized-response"),
          ("001-thm-F.3", "randomized-response"),
          ("wr-group-substitution", "randomized-response")]
MECHANISMS = {"randomized-response": RandomizedResponse(0.75), "gaussian": gaussian(1.0),
              "laplace": laplace(1.0)}


@lru_cache(maxsize=None)
def first_case(name: str, variant: int):
    """A bundled derivation, one variant, its first case and the engine's bound of that case
    (derived once per session: the verifier no longer caches bounds)."""
    derivation = load_derivation(name)
    chosen = derivation.variants[variant]
    return derivation, chosen, chosen.cases[0], check_case(derivation, chosen.cases[0]).bound


@pytest.mark.parametrize("name, mechanism", CLAIMS)
def test_claimed_bounds_are_attained_by_their_worst_case(name, mechanism):
    derivation = load_derivation(name)
    assert mechanism in {claim for claim, _ in derivation.tight}
    findings = [f for instance in instances(derivation, 5)
                for f in check_tightness(instance, MECHANISMS[mechanism], (1.5, 2.0, 8.0),
                                         (0.0, 0.5, 2.0))]
    assert findings and all(f.verdict == "tight" for f in findings), \
        [(f.parameters, f.bound, f.observed) for f in findings if f.verdict != "tight"]
    for f in findings:
        assert abs(f.observed - f.bound) <= 1e-10 * max(f.bound, 1e-300)


@pytest.mark.parametrize("name", by_derivation(d.name for _, d in ONE_STEP))
def test_every_derivation_passes_verification(name, record_property):
    """Exact enumeration up to N = 5 (6 where the groups need it) and 1000 sampled functions (seconds per derivation); the
    slow target goes to N = 7 and 10,000 below."""
    smallest = {"wor-group-substitution": 6}   # its groups need N >= 6
    report = verify_derivation(report_for(name), max_n=smallest.get(name, 5), samples=1000,
                               seed=0)
    record_property("worst_soundness_ratio", report.worst_ratio)
    print(f"{name}: {report.soundness_cases} cases, worst ratio {report.worst_ratio:.9f}")
    assert report.passed, report.to_text()
    assert report.soundness_cases >= 1000 and report.worst_ratio <= 1 + 1e-9
    # the largest ratio is over non-trivial comparisons: its bound is above 0
    assert float(report.worst_at.rsplit(" vs ", 1)[1]) > 0, report.worst_at


@pytest.mark.slow
@pytest.mark.parametrize("path, derivation", ONE_STEP, ids=lambda x: getattr(x, "name", ""))
def test_every_derivation_passes_a_longer_verification(path, derivation):
    report = verify_derivation(derivation, max_n=7, samples=10_000, seed=1)
    assert report.passed and report.soundness_cases >= 10_000, report.to_text()


def test_each_mutation_is_caught_with_a_witness():
    derivation = load_derivation("001-thm-4.1")
    instance = next(i for i in instances(derivation, 6)
                    if i.variant.label == "K = 2" and i.case.pair.name == "removal")
    findings = check_mutations(instance, gaussian(1.0), 2.0, 0.5)
    assert len(findings) == 6 and all(f.verdict == "caught" for f in findings)
    for f in findings:
        assert f.witness.startswith("unsound: x = {")
        assert "x' = {" in f.witness and "observed" in f.witness and f.observed > f.bound


def test_printed_g1_reverse_term_departs_from_the_exact_divergence():
    # The insertion case of 001 Thm. 4.1 with randomized response: the worst case built by the
    # verifier attains the corrected bound exactly, and the printed term is something else.
    derivation, rr, alpha = load_derivation("001-thm-4.1"), RandomizedResponse(0.75), 3.0
    instance = next(i for i in instances(derivation, 6)
                    if i.variant.label == "K = 2" and i.case.pair.name == "insertion")
    function = worst_function(instance, rr, Quantity.RDP, alpha)
    exact = divergence.independent_log_psi(instance.exact_pair(rr, function), alpha) / (alpha - 1)
    corrected = instance.bound_log_psi(rr, [alpha])[0] / (alpha - 1)
    printed = rr_thm_g1(0.75, float(instance.values[r]), 2, alpha, printed=True,
                        terms="reverse") / (alpha - 1)
    assert abs(exact - corrected) <= 1e-10 * corrected
    assert abs(printed - exact) > 0.05 * exact


@settings(max_examples=60)
@given(variant=st.integers(0, 8), rate=st.fractions(Fraction(1, 20), Fraction(19, 20),
                                                     max_denominator=20),
       background=st.integers(0, 3), mechanism=st.sampled_from(list(MECHANISMS.values())),
       alpha=st.sampled_from([1.5, 2.0, 5.0]), epsilon=st.sampled_from([0.0, 0.3, 1.0]),
       seed=st.integers(0, 2 ** 32 - 1))
def test_exact_divergence_never_exceeds_the_bound(variant, rate, background, mechanism, alpha,
                                                  epsilon, seed):
    derivation, chosen, case, bound = first_case("003-thm-3.7", variant)
    instance = Instance(derivation, chosen, case, {r: rate}, background, bound=bound)
    function = random_function(instance, mechanism, np.random.default_rng(seed))
    pair = instance.exact_pair(mechanism, function)
    bound_epsilon = instance.bound_log_psi(mechanism, [alpha])[0] / (alpha - 1)
    bound_delta = instance.bound_delta(mechanism, [epsilon])[0]
    observed_epsilon = divergence.independent_log_psi(pair, alpha) / (alpha - 1)
    observed_delta = divergence.delta(pair, epsilon)
    target(observed_epsilon / bound_epsilon if bound_epsilon else 0.0, label="RDP ratio")
    assert observed_epsilon <= bound_epsilon * (1 + 1e-9) + 1e-15
    assert observed_delta <= bound_delta * (1 + 1e-9) + 1e-15


@settings(max_examples=40)
@given(batch=st.integers(1, 3), extra=st.integers(1, 3), theta=st.sampled_from([0.6, 0.75, 0.9]),
       alpha=st.sampled_from([1.5, 2.0, 6.0]), seed=st.integers(0, 2 ** 32 - 1))
def test_sampling_without_replacement_randomized_response_is_sound(batch, extra, theta, alpha,
                                                                  seed):
    derivation, variant, case, bound = first_case("001-thm-3.6", 0)
    instance = Instance(derivation, variant, case, {q: batch}, batch + extra - 1, bound=bound)
    rr = RandomizedResponse(theta)
    pair = instance.exact_pair(rr, random_function(instance, rr, np.random.default_rng(seed)))
    bound = instance.bound_log_psi(rr, [alpha])[0]
    assert divergence.independent_log_psi(pair, alpha) <= bound * (1 + 1e-9) + 1e-15


def test_verify_command(capsys):
    code = main(["verify", "001-thm-3.6", "--samples", "50", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["passed"] is True and report["soundness_cases"] >= 50
    assert {"check", "parameters", "bound", "observed", "ratio", "verdict"} <= set(report["checks"][0])
    code = main(["verify", "001-thm-3.6", "--max-n", "0"])
    assert code == 2 and "--max-n" in capsys.readouterr().err


def test_printed_distance_of_f3_is_unsound_for_the_gaussian_mechanism():
    # 001 Thm. F.3 prints the intermediate bound with d(y1, y2) <= 1; the coupling has distance 2.
    # The worst case the verifier builds from the corrected bound exceeds the printed one.
    from otbound.numerics.problems import NumericProblem, insert_remove_pattern
    from otbound.numerics.renyi import log_psi
    derivation, mechanism, alpha = load_derivation("001-thm-F.3"), gaussian(1.0), 2.0
    instance = next(i for i in instances(derivation, 6) if i.case.pair.name == "removal")
    (_, problem), = instance.terms
    function = worst_function(instance, mechanism, Quantity.RDP, alpha)
    exact = divergence.independent_log_psi(instance.exact_pair(mechanism, function), alpha)
    printed = NumericProblem(problem.left, problem.right, insert_remove_pattern(0, 1))
    (printed_pair,) = mechanism.tight_pairs(printed)
    corrected = instance.bound_log_psi(mechanism, [alpha])[0]
    assert abs(exact - corrected) <= 1e-10 * corrected
    assert log_psi(printed_pair, alpha).value < 0.9 * exact


# --- trivial comparisons and uninformative rows in the report (issue 24) -------------------------

RR = RandomizedResponse(0.75)


@lru_cache(maxsize=None)
def _wor_substitution() -> Instance:
    """001 Thm. 3.6 at N = 6, q = 3: with randomized response (θ = 3/4, privacy loss at most
    log 3 < 2) its bound is δ(2) = 0 exactly, so every comparison at ε = 2 is trivial."""
    (instance,) = instances(load_derivation("001-thm-3.6"), 6)
    return instance


def test_trivial_comparisons_are_counted_and_left_out_of_the_largest_ratio():
    instance = _wor_substitution()
    assert instance.bound_delta(RR, [2.0])[0] == 0 and instance.bound_log_psi(RR, [2.0])[0] > 0

    def search(alphas, epsilons):
        return search_soundness(instance, RR, 20, np.random.default_rng(0), alphas, epsilons)

    rdp, both, trivial_only = search((2.0,), ()), search((2.0,), (2.0,)), search((), (2.0,))
    assert rdp.trivial == 0 and 0 < rdp.largest < 0.99   # the search did not reach the bound
    assert (both.comparisons, both.trivial) == (40, 20)
    assert both.largest == rdp.largest and both.where.startswith("RDP α = 2.0")
    assert (trivial_only.comparisons, trivial_only.trivial) == (20, 20)
    assert trivial_only.largest is None and trivial_only.worst == 0.0


def test_a_trivial_comparison_with_a_divergence_above_zero_still_fails(monkeypatch):
    # A bound claiming δ(0) = 0 (trivial) where the real δ(0) > 0: left out of the largest
    # ratio, but the row is UNSOUND.
    # (two cases: the same two functions as the search at α = 2 alone, whose ratios are < 1)
    instance = _wor_substitution()
    rdp = check_soundness(instance, RR, 2, np.random.default_rng(0), (2.0,), ())
    monkeypatch.setattr(instance, "bound_delta", lambda mechanism, epsilons: np.zeros(1))
    row = check_soundness(instance, RR, 2, np.random.default_rng(0), (2.0,), (0.0,))
    assert row.verdict == "UNSOUND" and not row.passed and row.observed == float("inf")
    assert row.search == SearchTally(4, 2, rdp.search.largest, rdp.search.where)
    assert "ADP ε = 0.0" in row.witness and row.search.largest < 1


def _row(check: str, verdict: str, observed: float = 0.5, search=None, **parameters) -> Finding:
    return Finding(check, {"variant": "K = 1", "case": "removal", **parameters}, 1.0, observed,
                   verdict, search=search)


def _report(*findings: Finding) -> VerifyReport:
    return VerifyReport(load_derivation("001-thm-3.6"), findings, (), 1.0)


def test_the_report_gives_the_largest_nontrivial_ratio_and_counts_uninformative_rows_apart():
    searches = (
        _row("soundness search", "sound", 0.75, SearchTally(12, 3, 0.75, "RDP α = 2.0: 3 vs 4"),
             mechanism="gaussian", cases=3),
        _row("soundness search", "sound", 0.0, SearchTally(12, 12, None), mechanism="rr", cases=3),
        # a trivial comparison above 0: UNSOUND (ratio ∞), whatever the non-trivial ratios
        _row("soundness search", "UNSOUND", float("inf"),
             SearchTally(12, 3, 0.5, "RDP α = 8.0: 1 vs 2"), mechanism="laplace", cases=3),
        _row("published soundness search", "sound", 0.9, SearchTally(4, 0, 0.9, "x"),
             mechanism="gaussian", cases=1))
    monte_carlo = (_row("Monte Carlo ADP", "consistent"), _row("Monte Carlo ADP", "uninformative"),
                   _row("independent Monte Carlo δ(ε)", "uninformative"),
                   _row("independent Monte Carlo δ(ε)", "uninformative"))
    report = _report(*searches, *monte_carlo)
    assert report.counts == {"passed": 4, "uninformative": 3, "failed": 1} and not report.passed
    assert report.worst_ratio == 0.75 and report.worst_at == "K = 1, removal, gaussian; RDP α = " \
                                                            "2.0: 3 vs 4"
    assert (report.soundness_cases, report.soundness_comparisons,
            report.trivial_comparisons) == (9, 36, 18)
    *_, ratio, counts, trivial, uninformative = report.to_text().splitlines()
    assert ratio == ("9 soundness cases, 36 comparisons of a divergence with its bound, 18 "
                     "trivial; largest ratio divergence/bound over the other 18: 0.750000000 "
                     "(K = 1, removal, gaussian; RDP α = 2.0: 3 vs 4)")
    assert counts.startswith("4 passed, 3 uninformative (") and counts.endswith(
        "), 1 failed, of 8 checks [1.0 s]")
    assert (trivial, uninformative) == (f"trivial: {TRIVIAL_MEANING}",
                                        f"uninformative: {UNINFORMATIVE_MEANING}")
    result = report.to_json()
    assert result["counts"] == {"passed": 4, "uninformative": 3, "failed": 1, "total": 8}
    assert (result["worst_soundness_ratio"], result["trivial_soundness_comparisons"],
            result["soundness_comparisons"]) == (0.75, 18, 36)
    assert result["uninformative_means"] == UNINFORMATIVE_MEANING
    assert result["checks"][2]["largest_nontrivial_ratio"] == 0.5
    assert json.loads(json.dumps(result)) == result


def test_uninformative_rows_alone_do_not_fail_and_a_report_without_ratio_says_so():
    report = _report(_row("soundness search", "sound", 0.0, SearchTally(4, 4, None), cases=1),
                     _row("independent Monte Carlo δ(ε)", "uninformative"))
    assert report.passed and report.counts == {"passed": 1, "uninformative": 1, "failed": 0}
    assert report.worst_ratio is None and report.to_json()["worst_soundness_ratio"] is None
    lines = report.to_text().splitlines()
    assert lines[-4] == ("1 soundness cases, 4 comparisons of a divergence with its bound, 4 "
                         "trivial; no non-trivial comparison, so no largest ratio "
                         "divergence/bound")
    assert lines[-3].startswith("1 passed, 1 uninformative (")
    assert not any(line.startswith("trivial:") for line in _report(
        _row("Monte Carlo ADP", "uninformative")).to_text().splitlines())
