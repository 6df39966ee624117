"""A coupling with a wrong marginal is rejected, with the coordinate, batch and probabilities."""

from dataclasses import replace
from fractions import Fraction

from otbound import run
from otbound.engine import Copy, Coupling, InsertInRandomOrder, ReplaceRandomMember, Verdict
from otbound.engine.bundled import load_derivation
from otbound.engine.conditionals import ConcreteConditionals, SymbolicConditionals
from otbound.engine.symbols import q, r
from otbound.engine.validity import check_marginals, prove_marginals


def with_coupling(name: str, index: int, coupling: Coupling):
    derivation = load_derivation(name)
    variant = derivation.variants[0]
    cases = list(variant.cases)
    cases[index] = replace(cases[index], coupling=coupling)
    return replace(derivation, variants=(replace(variant, cases=tuple(cases)),))


def test_swapped_replacements_are_rejected_at_the_wrong_coordinate():
    derivation = with_coupling("001-thm-3.6", 0, Coupling("A1", (
        Copy("A1", "E1"), ReplaceRandomMember("A1", ("a'", "a"), ("A2", "E2")))))
    case = derivation.variants[0].cases[0]
    conditionals = ConcreteConditionals(case, derivation.scheme.substitute({q: 2}), 3)
    _, mismatch = check_marginals(conditionals)
    assert mismatch.coordinate == "A2" and mismatch.batch == frozenset({"a", "b1"})
    assert mismatch.expected == Fraction(1, 3) and mismatch.actual == 0
    assert mismatch.describe() == ("coordinate y_A2, batch {a, b1}: the coupling gives "
                                   "probability 0, the conditional pmf gives 1/3")


def test_a_wrong_marginal_makes_the_derivation_invalid_and_never_symbolic():
    derivation = with_coupling("001-prop-E.4", 0, Coupling("A1", (
        Copy("A1", "E1"), Copy("A1", "A2"))))
    report = run(derivation)
    removal = report.variants[0].cases[0]
    assert not report.valid and report.validity == "invalid"
    assert removal.mismatch is not None and "coordinate y_A2" in removal.mismatch.detail
    assert report.to_json()["variants"][0]["cases"][0]["marginal_mismatch"].startswith("at N = 1")
    assert prove_marginals(SymbolicConditionals(removal.case, derivation.scheme))[0] \
        is not Verdict.PROVED


def test_one_wrong_weight_of_a_random_order_is_caught():
    # Inserting the group in a fixed order is not a valid coupling for the events of 001 Thm. 4.1:
    # y_A1 would always contain g1, while s_x(· | A1) also puts mass on batches containing g2.
    derivation = load_derivation("001-thm-4.1")
    variant = derivation.variants[1]
    removal = variant.cases[0]
    fixed_order = Coupling("A0", (Copy("A0", "E0"), InsertInRandomOrder("A0", ("g1",), ("A1",)),
                                  InsertInRandomOrder("A1", ("g2",), ("A2",))))
    case = replace(removal, coupling=fixed_order)
    conditionals = ConcreteConditionals(case, derivation.scheme.substitute({r: Fraction(1, 2)}), 1)
    _, mismatch = check_marginals(conditionals)
    assert mismatch.coordinate == "A1"
    assert mismatch.expected == Fraction(1, 4) and mismatch.actual == Fraction(1, 2)
    verdict, note = prove_marginals(SymbolicConditionals(case, derivation.scheme))
    assert verdict is Verdict.UNDECIDED and "y_A1" in note


def test_replacing_members_under_poisson_is_not_claimed_proved():
    # ReplaceRandomMember shifts the background count, so the type-level identity cannot be
    # closed at the boundary m = 0 by otbound's symbolic check: it must say "undecided".
    derivation = load_derivation("001-prop-E.4")
    removal = derivation.variants[0].cases[0]
    case = replace(removal, coupling=Coupling("A1", (
        Copy("A1", "E1"), ReplaceRandomMember("A1", ("a",), ("A2",)))))
    verdict, note = prove_marginals(SymbolicConditionals(case, derivation.scheme))
    assert verdict is Verdict.UNDECIDED and "background" in note


def test_symbolic_proofs_of_the_bundled_couplings():
    for name in ("001-prop-E.4", "001-thm-3.6", "001-thm-4.1"):
        derivation = load_derivation(name)
        for variant in derivation.variants:
            for case in variant.cases:
                verdict, note = prove_marginals(SymbolicConditionals(case, derivation.scheme))
                assert verdict is Verdict.PROVED, (name, variant.label, note)
