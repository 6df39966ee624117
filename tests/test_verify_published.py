"""``otbound verify`` checks each derivation's *published statement*, not only the derived bound:
the exact divergence of the derived bound's worst-case constructions and a seeded soundness
search against the statement, and a comparison derived vs published (issue 12)."""

import json
import math
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp
from cli_runs import run_cli, write_derivation
from derivation_reports import by_derivation, report_for

from otbound.engine.bound import problem, statement
from otbound.engine.bundled import bundled_derivations, load_derivation
from otbound.engine.epoch_derivation import EpochDerivation
from otbound.engine.symbols import r
from otbound.numerics.mechanisms import gaussian
from otbound.verify.published_statements import McShaneFunction, worst_case_constructions
from otbound.verify.verification import instances, smallest_max_n, verify_derivation
from otbound.verify.verify_report import PublishedComparison

# 001 Thm. 4.1 with K = 1 as published: y1 = y3, d(y1, y2) <= 1, weights 1 - r and r.
AS_PUBLISHED = {("y3", "y1"): 0, ("y1", "y2"): 1}


def k1_statement(weight=r, constraints=None):
    """The published statement of 001 Thm. 4.1 for K = 1, with the weight of y2 and the
    constraints replaceable."""
    constraints = AS_PUBLISHED if constraints is None else constraints
    weights = [("y1", 1 - r), ("y2", weight)]
    return statement(removal=problem(weights, [("y3", 1)], constraints),
                     insertion=problem([("y3", 1)], weights, constraints))


def k1_derivation(printed):
    """001 Thm. 4.1 at K = 1 with ``printed`` as its published statement."""
    base = load_derivation("001-thm-4.1").at({"K": 1})
    return replace(base, variants=(replace(base.variants[0], published=printed),))


def verified(printed):
    return verify_derivation(k1_derivation(printed), max_n=4, samples=40, seed=0)


def published_findings(report):
    return [f for f in report.findings if f.check.startswith("published")]


def test_the_helper_statement_is_the_bundled_one():
    bundled = load_derivation("001-thm-4.1").at({"K": 1}).variants[0].statement()
    assert k1_statement().differences(bundled) == [] and k1_statement().difference(bundled) == ""


def test_every_difference_is_listed_not_only_the_first():
    lowered = k1_statement(weight=sp.Rational(49, 50) * r, constraints={("y3", "y1"): 0,
                                                                        ("y1", "y2"): 0})
    found = k1_statement().differences(lowered)
    # the weight and every changed entry of the closed constraints, in both cases
    assert "case removal: weight of y2: r vs 49*r/50" in found
    assert "case removal: d_Y(ŷ_y1, ŷ_y2) ≤ 1 vs ŷ_y1 = ŷ_y2" in found
    assert "case removal: d_Y(ŷ_y2, ŷ_y3) ≤ 1 vs ŷ_y2 = ŷ_y3" in found
    assert sum(line.startswith("case insertion:") for line in found) == 3 and len(found) == 6
    assert k1_statement().difference(lowered)   # the first difference only


def test_a_weight_scaled_down_is_unsound_with_a_witness():
    # r -> 0.98 r on y2 (nothing renormalised): every published value drops below the exact
    # divergence of the worst case, which the derived bound attains.
    report = verified(k1_statement(weight=sp.Rational(98, 100) * r))
    assert not report.passed
    assert all(f.passed for f in report.findings if f not in published_findings(report))
    unsound = [f for f in published_findings(report)
               if f.check == "published statement RDP" and f.verdict == "UNSOUND"]
    assert unsound and all(f.observed > f.bound * (1 + 1e-6) for f in unsound)
    witness = unsound[0].witness
    assert "f(y) = value of the worst component" in witness and "x = {" in witness
    assert "x' = {" in witness and "> published" in witness
    (comparison,) = report.published
    assert comparison.direction == "tighter" and comparison.witnesses
    assert comparison.summary().startswith("published tighter (UNSOUND, witness: f(y)")
    assert "case removal: weight of A1: r vs of y2: 49*r/50" in comparison.differences
    text = report.to_text()
    assert "FAILED published statement RDP" in text and "published tighter (UNSOUND" in text


def test_a_distance_constraint_lowered_is_unsound_with_a_witness():
    # d(y1, y2) <= 1 -> 0: the statement says the removed element changes nothing
    report = verified(k1_statement(constraints={("y3", "y1"): 0, ("y1", "y2"): 0}))
    assert not report.passed
    failed = [f for f in published_findings(report) if not f.passed]
    assert {f.check for f in failed} >= {"published statement RDP", "published statement ADP",
                                         "published soundness search"}
    rdp = next(f for f in failed if f.check == "published statement RDP")
    assert rdp.bound == 0 and rdp.observed > 0.1 and "> published 0" in rdp.witness
    (comparison,) = report.published
    assert comparison.direction == "tighter" and "UNSOUND" in comparison.summary()
    assert "d_Y(ŷ_A0, ŷ_A1) ≤ 1 vs ŷ_y1 = ŷ_y2" in " ".join(comparison.differences)


def test_a_distance_constraint_raised_is_sound_and_looser():
    # d(y1, y2) <= 1 -> 2: a larger feasible set, a larger bound (Gaussian and Laplace)
    report = verified(k1_statement(constraints={("y3", "y1"): 0, ("y1", "y2"): 2}))
    assert report.passed, report.to_text()
    checked = published_findings(report)
    assert {f.check for f in checked} == {"published statement RDP", "published statement ADP",
                                          "published soundness search"}
    assert all(f.verdict == "sound" for f in checked)
    gaussian_rdp = [f for f in checked if f.check == "published statement RDP"
                    and f.parameters["mechanism"] == "gaussian"]
    assert gaussian_rdp and all(f.bound > 1.5 * f.observed for f in gaussian_rdp)
    (comparison,) = report.published
    assert comparison.direction == "looser" and max(comparison.ratios) > 1
    assert min(comparison.ratios) >= 1 - 1e-9
    assert comparison.summary().startswith("published looser (sound): largest ratio")
    assert "median" in comparison.summary()
    assert "published looser (sound)" in report.to_text()
    section = report.to_json()["published"][0]
    assert section["direction"] == "looser" and section["sound"] is True
    assert section["median_ratio"] >= 1 and len(section["differences"]) == 4
    json.dumps(report.to_json())   # infinite ratios are written as strings: valid JSON


@pytest.mark.parametrize("name", by_derivation(d.name for _, d in bundled_derivations()
                                                if not isinstance(d, EpochDerivation)))
def test_bundled_published_statements_are_sound_and_identical(name):
    report = report_for(name)
    with_statement = [v for v in report.variants if v.variant.statement() is not None]
    result = verify_derivation(report, max_n=max(4, smallest_max_n(report)), samples=20, seed=0)
    assert result.passed, result.to_text()
    assert [c.variant for c in result.published] == [v.variant.label for v in with_statement]
    for comparison in result.published:
        assert comparison.direction == "identical" and not comparison.differences
        assert comparison.summary().startswith("identical to the derived bound (symbolically")
        assert all(abs(ratio - 1) <= 1e-9 for ratio in comparison.ratios)
    checked = published_findings(result)
    # otbound's own results (sampling with replacement) have no statement to check
    assert bool(checked) == bool(with_statement)
    assert all(f.verdict == "sound" for f in checked)


def test_worst_case_constructions_are_lipschitz_and_seed_the_search():
    derivation = load_derivation("001-thm-4.1").at({"K": 2})
    instance = next(i for i in instances(derivation, 4) if i.case.pair.name == "insertion")
    (construction,), notes = worst_case_constructions(instance, gaussian(1.0))
    assert not notes and isinstance(construction.climbable, McShaneFunction)
    table, mcshane = construction.function, construction.climbable
    lowest = min(table(b) for b in instance.batches())
    assert all(mcshane(b) == table(b) - lowest for b in instance.batches())
    assert len(mcshane.anchors) < len(instance.batches())
    # a perturbed construction keeps its table in step with the McShane formula
    moved = mcshane.changed(0, anchor=instance.batches()[-1], offset=0.5)
    for batch in instance.batches():
        assert moved(batch) == min(o + moved.relation.distance(batch, a)
                                   for a, o in zip(moved.anchors, moved.offsets))


def test_a_construction_above_the_sensitivity_is_not_used():
    derivation = load_derivation("001-thm-4.1").at({"K": 1})
    instance = next(i for i in instances(derivation, 4) if i.case.pair.name == "removal")
    from otbound.verify.published_statements import _construction
    found = _construction(instance, gaussian(1.0), np.array([0.0, 3.0, 0.0]))
    assert isinstance(found, str) and "sensitivity above 1" in found


def test_verify_exits_1_for_an_unsound_published_statement(capsys, tmp_path):
    path = write_derivation(tmp_path, "scaled", """
        from dataclasses import replace
        import sympy as sp
        from otbound.engine import problem, statement
        from otbound.engine.bundled import load_derivation
        from otbound.engine.symbols import r

        base = load_derivation("001-thm-4.1").at({"K": 1})
        weights = [("y1", 1 - r), ("y2", sp.Rational(98, 100) * r)]
        constraints = {("y3", "y1"): 0, ("y1", "y2"): 1}
        printed = statement(removal=problem(weights, [("y3", 1)], constraints),
                            insertion=problem([("y3", 1)], weights, constraints))
        DERIVATION = replace(base, name="scaled-weight", parameters=(), variant_for=None,
                             variants=(replace(base.variants[0], published=printed),))
    """)
    code, out, _ = run_cli(capsys, "verify", path, "--max-n", "4", "--samples", "20")
    assert code == 1 and "FAILED published statement RDP" in out
    assert "published tighter (UNSOUND, witness:" in out
    code, out, _ = run_cli(capsys, "verify", path, "--max-n", "4", "--samples", "20", "--json")
    result = json.loads(out)
    assert code == 1 and result["passed"] is False
    (section,) = result["published"]
    assert section["direction"] == "tighter" and section["sound"] is False
    assert section["witnesses"] and not math.isnan(section["smallest_ratio"])


@pytest.mark.parametrize("ratios, direction, start", [
    ((1.0, 1.0 + 1e-12), "identical", "identical to the derived bound (numerically at 2 points"),
    ((1.0, 1.5, 3.0), "looser", "published looser (sound): largest ratio 3,"),
    ((0.5, 1.0), "tighter", "published tighter (no counterexample found): smallest ratio 0.5"),
    ((0.5, 2.0), "incomparable", "incomparable (no counterexample found): ratios from 0.5 to 2"),
    ((), "not evaluated", "not evaluated (no exact solver)")])
def test_the_comparison_names_its_direction(ratios, direction, start):
    comparison = PublishedComparison("K = 1", ("case removal: weight of y2: r vs 2*r",), ratios,
                                     note="no exact solver")
    assert comparison.direction == direction and comparison.summary().startswith(start)
    assert comparison.sound is (None if direction == "not evaluated" else True)
    unsound = replace(comparison, witnesses=("x = {g}",))
    assert unsound.sound is False and (not ratios or "UNSOUND, witness: x = {g}"
                                       in unsound.summary())
    unchecked = replace(comparison, problems=("NO COUNTERPART: no case 'insertion'",))
    assert unchecked.sound is None and (not ratios or "not fully checked: NO COUNTERPART"
                                        in unchecked.summary())


def test_a_table_seed_for_additive_noise_is_refused():
    from otbound.errors import InvalidSpecification
    from otbound.verify.soundness import search_soundness
    instance = next(iter(instances(load_derivation("001-prop-E.4"), 3)))
    (construction,), _ = worst_case_constructions(instance, gaussian(1.0))
    with pytest.raises(InvalidSpecification, match="LipschitzFunction"):
        search_soundness(instance, gaussian(1.0), 5, np.random.default_rng(0), (2.0,), (0.5,),
                         seeds=[construction.function])
    result = search_soundness(instance, gaussian(1.0), 5, np.random.default_rng(0), (2.0,),
                              (0.5,), seeds=[construction.climbable])
    # the seed is the derived bound's own worst case: it attains the bound
    assert result.cases == 6 and abs(result.worst - 1) <= 1e-9


def test_a_published_case_no_mechanism_can_evaluate_fails():
    # the removal case weighted by q, a symbol Poisson sampling gives no value: never checked
    from otbound.engine.symbols import q
    printed = k1_statement()
    removal, insertion = (case.terms[0][1] for case in printed.cases)
    report = verify_derivation(k1_derivation(statement(removal=[(q, removal)],
                                                       insertion=insertion)),
                               max_n=3, samples=10, seed=0)
    assert not report.passed
    (failed,) = [f for f in report.findings if not f.passed]
    assert failed.verdict == "NOT EVALUATED" and "'removal'" in failed.witness
    assert any("symbol without a value" in s for s in report.skipped)
    (comparison,) = report.published
    assert comparison.sound is None and "not fully checked" in comparison.summary()
