"""Automatic coupling search (issue 13 item 4): a d_Y-compatible coupling found by linear
programming on each instance, or an exact Farkas certificate that none exists."""

from dataclasses import replace
from fractions import Fraction
from types import SimpleNamespace

import pytest
from derivation_reports import by_derivation, report_for

from otbound import run
from otbound.engine import Case, CountIs, Everything
from otbound.cli import main
from otbound.engine.bundled import load_derivation
from otbound.engine.coupling_search import FOUND, INFEASIBLE, search_instance
from otbound.engine.derivation import with_searched_couplings
from otbound.engine.farkas import FarkasCertificate, certificate_defect
from otbound.engine.relations import BatchRelation

SEEDS = ["001-prop-E.4", "001-prop-E.5", "001-thm-3.6", "001-thm-4.1", "001-thm-F.2",
         "001-thm-F.3", "003-thm-3.7"]


@pytest.mark.parametrize("name", by_derivation(SEEDS))
def test_the_search_finds_a_compatible_coupling_and_the_same_bound_for_every_seed(name):
    given = report_for(name)
    searched = run(with_searched_couplings(load_derivation(name)))
    assert searched.valid and searched.d_compatible
    for hand, found in zip(given.variants, searched.variants):
        for case in found.cases:
            assert case.search.found_everywhere and len(case.search.outcomes) >= 18
        assert found.bound is not None and hand.bound.difference(found.bound) == ""
        assert found.searched_scope.startswith("holds on the instances searched only")


def test_a_coupling_the_solver_does_not_return_as_a_vertex_is_still_made_exact():
    """Group substitution without replacement at K = 3: the solver's masses on N ≥ 8 have
    denominators no rounding guesses; exact elimination on its support recovers them."""
    derivation = load_derivation("wor-group-substitution")
    report = run(with_searched_couplings(derivation))
    for variant in report.variants:
        (case,) = variant.cases
        assert case.search.found_everywhere, case.search.describe()
        assert variant.bound is not None


def _events_by_one_member():
    """001 Thm. 4.1's removal case at K = 2 with events by whether g1 is in the batch (g2
    ignored) instead of the count of group members: no d_Y-compatible coupling exists."""
    derivation = load_derivation("001-thm-4.1")
    variant = derivation.variant_for(K=2)
    removal, insertion = variant.cases
    first = removal.pair.removed[0]
    events = {"A0": CountIs((first,), 0), "A1": CountIs((first,), 1)}
    coarse = Case(removal.pair, events, {"E0": Everything()}, "auto")
    return replace(derivation, variants=(replace(variant, cases=(coarse, insertion),
                                                 published=None),))


def test_no_compatible_coupling_is_reported_with_a_checked_certificate():
    report = run(_events_by_one_member())
    case = report.variants[0].cases[0]
    assert not case.valid and report.variants[0].bound is None
    assert case.search.count(INFEASIBLE) == len(case.search.outcomes) > 0
    outcome = case.search.outcomes[-1]
    assert outcome.certificate.size == 1 and outcome.certificate.value > 0
    assert "no d_Y-compatible coupling exists" in case.defect
    assert "Farkas certificate" in "\n".join(case.describe_checks())


def _hall_violation():
    """Two coordinates whose allowed pairs are all covered, but ∅ (mass 1/2) can go only to
    {c} (mass 1/4): infeasible by mass, not by coverage."""
    empty, a, c, ac, ad = (frozenset(), frozenset("a"), frozenset("c"), frozenset("ac"),
                           frozenset("ad"))
    pmfs = {"Y": {empty: Fraction(1, 2), a: Fraction(1, 2)},
            "Z": {c: Fraction(1, 4), ac: Fraction(1, 2), ad: Fraction(1, 4)}}
    conditionals = SimpleNamespace(case=SimpleNamespace(coupling=SimpleNamespace(
        coordinates=("Y", "Z"))), conditional=pmfs.__getitem__)
    allowed = [(empty, c), (a, ac), (a, ad)]
    return conditionals, pmfs, allowed


def test_an_infeasibility_by_mass_gets_an_exact_certificate_from_the_solver_duals():
    conditionals, pmfs, allowed = _hall_violation()
    outcome = search_instance(conditionals, BatchRelation.INSERTION_REMOVAL, {"N": 0})
    assert outcome.status == INFEASIBLE and outcome.allowed == len(allowed)
    assert outcome.certificate.size >= 2
    assert certificate_defect(outcome.certificate, pmfs, allowed, ("Y", "Z")) == ""


def test_a_wrong_certificate_fails_the_exact_check():
    _, pmfs, allowed = _hall_violation()
    empty, c = frozenset(), frozenset("c")
    good = FarkasCertificate((("Y", empty, Fraction(1)), ("Z", c, Fraction(-1))), Fraction(1, 4))
    assert certificate_defect(good, pmfs, allowed, ("Y", "Z")) == ""
    positive_on_a_tuple = FarkasCertificate((("Y", empty, Fraction(1)),), Fraction(1, 2))
    assert "> 0 on the allowed tuple" in certificate_defect(positive_on_a_tuple, pmfs, allowed,
                                                            ("Y", "Z"))
    misstated = replace(good, value=Fraction(1, 3))
    assert "the certificate states" in certificate_defect(misstated, pmfs, allowed, ("Y", "Z"))
    outside = FarkasCertificate((("Z", frozenset("x"), Fraction(1)),), Fraction(1))
    assert "not in that coordinate's support" in certificate_defect(outside, pmfs, allowed,
                                                                    ("Y", "Z"))


def test_a_found_coupling_is_exact_and_has_the_given_marginals():
    conditionals, pmfs, _ = _hall_violation()
    pmfs["Z"] = {frozenset("c"): Fraction(1, 2), frozenset("ac"): Fraction(1, 4),
                 frozenset("ad"): Fraction(1, 4)}
    joint = _joint(conditionals)
    assert joint == {(frozenset(), frozenset("c")): Fraction(1, 2),
                     (frozenset("a"), frozenset("ac")): Fraction(1, 4),
                     (frozenset("a"), frozenset("ad")): Fraction(1, 4)}


def _joint(conditionals):
    from otbound.engine.coupling_search import _solve, allowed_tuples, exact_masses

    space = allowed_tuples(conditionals, BatchRelation.INSERTION_REMOVAL)
    result = _solve(space, "highs")
    assert result.status == 0 and result.fun <= 1e-9
    masses = exact_masses(space, result.x[:len(space.tuples)])
    return {space.batches(i): p for i, p in masses.items() if p}


def test_derive_searches_couplings_from_the_command_line(capsys):
    assert main(["derive", "001-thm-3.6", "--coupling", "auto"]) == 0
    text = capsys.readouterr().out
    assert "Theorem (on the instances searched)" in text
    assert f"26 {FOUND}, 0 infeasible, 0 undecided" in text
    assert "Scope: this bound holds on the instances searched only" in text
