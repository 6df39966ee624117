"""Every bundled derivation is valid, d_Y-compatible, and matches its published statement."""

from dataclasses import replace

import pytest
from derivation_reports import by_derivation

from otbound.engine import Copy, Coupling, InsertInRandomOrder, ReplaceGroup, problem, statement
from otbound.engine.bundled import bundled_derivations, load_derivation
from otbound.engine.derivation import run
from otbound.engine.symbols import N, q

NAMES = ["001-prop-E.4", "001-thm-3.6", "001-thm-F.2", "001-thm-F.3", "001-prop-E.5",
         "001-thm-4.1", "003-thm-3.7", "wor-group-substitution", "wr-substitution",
         "wr-insertion-removal", "wr-group-substitution", "002-thm-3.1", "002-thm-3.3",
         "002-thm-3.4"]
SYMBOLIC = ["001-prop-E.4", "001-thm-3.6", "001-thm-4.1"]
EPOCH_LEVEL = ["epoch-balls-in-bins", "epoch-poisson", "epoch-random-allocation",
               "epoch-shuffling"]
"""Checked in tests/test_epoch_derivations.py."""


def test_catalogue_holds_the_bundled_derivations():
    assert sorted(d.name for _, d in bundled_derivations()) == sorted(NAMES + EPOCH_LEVEL)


@pytest.mark.parametrize("name", by_derivation(NAMES))
def test_derivation_passes_every_check(name, derivation_report):
    report = derivation_report(name)
    assert report.valid and report.d_compatible and report.matches_published
    for variant in report.variants:
        for case in variant.cases:
            assert case.checked >= 9 and max(case.sizes) >= 8


@pytest.mark.parametrize("name", SYMBOLIC)
def test_required_couplings_are_proved_symbolically(name, derivation_report):
    assert derivation_report(name).validity == "symbolic"


def test_thm_4_1_covers_groups_up_to_three(derivation_report):
    assert [v.variant.label for v in derivation_report("001-thm-4.1").variants] == \
        ["K = 1", "K = 2", "K = 3"]


def test_the_statement_of_f3_as_printed_does_not_match():
    # As printed, the intermediate bound of 001 Thm. F.3 has d(y1, y2) <= 1: the engine disagrees.
    derivation = load_derivation("001-thm-F.3")
    w = q / N
    printed = statement(
        removal=problem([("y1", 1 - w), ("y2", w)], [("y3", 1)], {("y1", "y3"): 0, ("y1", "y2"): 1}),
        insertion=problem([("y3", 1)], [("y1", 1 - w), ("y2", w)],
                          {("y1", "y3"): 0, ("y1", "y2"): 1}))
    variant = replace(derivation.variants[0], published=printed)
    report = run(replace(derivation, variants=(variant,)))
    assert report.valid and not report.matches_published
    assert "constraints differ" in report.variants[0].difference


def test_the_weight_of_f3_with_n_the_smaller_dataset_does_not_match():
    derivation = load_derivation("001-thm-F.3")
    from otbound.engine.conditionals import SizeReference
    report = run(replace(derivation, size_reference=SizeReference.X_PRIME))
    assert not report.matches_published and "weight" in report.variants[0].difference


def _first_case_with(name, coupling):
    derivation = load_derivation(name)
    variant = derivation.variants[-1]
    case = replace(variant.cases[0], coupling=coupling)
    return run(replace(derivation, variants=(replace(variant, cases=(case,) + variant.cases[1:]),)))


def test_the_coupling_of_f3_as_printed_is_invalid():
    report = _first_case_with("001-thm-F.3", Coupling("A1", (
        Copy("A1", "E1"), InsertInRandomOrder("A1", ("a",), ("A2",)))))
    removal = report.variants[0].cases[0]
    assert not report.valid and "coordinate y_A2" in removal.mismatch.detail


def test_the_coupling_of_e5_as_printed_is_invalid():
    report = _first_case_with("001-prop-E.5", Coupling("A1", (
        ReplaceGroup("A1", ("g1", "g2", "g3"), ("g1", "g2", "g3"), "E1"),)))
    assert not report.valid
    assert "coordinate y_E1" in report.variants[0].cases[0].mismatch.detail


def _thm_3_6_against(left, right, constraints) -> str:
    """001 Thm. 3.6 derived, compared with a statement of the given shape."""
    derivation = load_derivation("001-thm-3.6")
    written = statement(substitution=problem(left=left, right=right, constraints=constraints))
    variant = replace(derivation.variants[0], published=written)
    return run(replace(derivation, variants=(variant,))).variants[0].difference


def test_a_statement_matches_in_any_order_and_with_a_point_split():
    """001 Thm. 3.6 written with its components in another order, or with one component split
    into two that the constraints put at one point, is the published statement; a weight or a
    constraint changed is not (the defect: reordered components were marked NO)."""
    w = q / N
    same = {("y1", "y3"): 0, ("y1", "y2"): 1, ("y1", "y4"): 1, ("y2", "y4"): 1}
    assert _thm_3_6_against([("y2", w), ("y1", 1 - w)], [("y4", w), ("y3", 1 - w)], same) == ""
    split = same | {("y2", "y5"): 0}
    assert _thm_3_6_against([("y1", 1 - w), ("y2", w / 2), ("y5", w / 2)],
                            [("y3", 1 - w), ("y4", w)], split) == ""
    assert "weight" in _thm_3_6_against([("y2", 2 * w), ("y1", 1 - 2 * w)],
                                        [("y4", w), ("y3", 1 - w)], same)
    assert "constraints differ" in _thm_3_6_against(
        [("y1", 1 - w), ("y2", w)], [("y3", 1 - w), ("y4", w)], same | {("y2", "y4"): 2})
