"""The two semantics of coupling steps (concrete batches, batch types) must agree."""

from collections import defaultdict
from fractions import Fraction

import pytest
import sympy as sp

from otbound import InvalidSpecification
from otbound.engine import Copy, Coupling, ReplaceGroup, ReplaceRandomMember
from otbound.engine.batches import BatchType, Content
from otbound.engine.bundled import load_derivation
from otbound.engine.conditionals import ConcreteConditionals, SymbolicConditionals
from otbound.engine.schemes import as_fraction
from otbound.engine.symbols import m, n, q, r

CASES = [
    ("001-prop-E.4", 0, 0, {r: Fraction(1, 3)}),
    ("001-prop-E.4", 0, 1, {r: Fraction(1, 3)}),
    ("001-thm-3.6", 0, 0, {q: 2}),
    ("001-thm-F.3", 0, 0, {q: 3}),
    ("001-thm-F.3", 0, 1, {q: 2}),
    ("001-prop-E.5", 2, 0, {q: 3}),
    ("001-thm-4.1", 2, 0, {r: Fraction(2, 7)}),
    ("001-thm-4.1", 1, 1, {r: Fraction(1, 2)}),
    ("003-thm-3.7", 6, 0, {r: Fraction(1, 3)}),
]


def case_of(name, variant, index):
    derivation = load_derivation(name)
    return derivation, derivation.variants[variant].cases[index]


def concrete_type_marginals(case, concrete) -> dict[str, dict]:
    result = {label: defaultdict(Fraction) for label in case.coupling.coordinates}
    for batches, p in concrete.joint().items():
        for label, batch in zip(case.coupling.coordinates, batches):
            content = Content.in_batch(batch, case.pair.specials)
            result[label][(content, len(batch) - content.size)] += p
    return {label: dict(masses) for label, masses in result.items()}


def symbolic_type_marginals(case, scheme, values, background_size) -> dict[str, dict]:
    point = {**values, n: background_size}
    result = {}
    for label, masses in SymbolicConditionals(case, scheme).marginal_types().items():
        evaluated = defaultdict(Fraction)
        for mass, btype in masses:
            for m_value in range(background_size + 1):
                at = {**point, m: m_value}
                count, weight = btype.background.subs(at), mass.subs(at)
                if 0 <= count <= background_size and weight != 0:
                    evaluated[(btype.content, int(count))] += as_fraction(sp.nsimplify(weight))
                if not btype.background.has(m) and not mass.has(m):
                    break
        result[label] = dict(evaluated)
    return result


@pytest.mark.parametrize("name, variant, index, values", CASES)
@pytest.mark.parametrize("background_size", [3, 5])
def test_type_semantics_agree_with_enumeration(name, variant, index, values, background_size):
    derivation, case = case_of(name, variant, index)
    concrete = ConcreteConditionals(case, derivation.scheme.substitute(values), background_size)
    assert symbolic_type_marginals(case, derivation.scheme, values, background_size) == \
        concrete_type_marginals(case, concrete)


def test_coupling_rejects_a_coordinate_read_before_it_exists():
    with pytest.raises(InvalidSpecification, match="reads \\['A2'\\] before it is generated"):
        Coupling("A1", (Copy("A2", "E1"), Copy("A1", "A2")))


def test_coupling_rejects_a_coordinate_generated_twice():
    with pytest.raises(InvalidSpecification, match="generates a coordinate twice"):
        Coupling("A1", (Copy("A1", "E1"), Copy("A1", "E1")))


def test_replacing_a_member_of_the_empty_batch_is_an_error():
    step = ReplaceRandomMember("A1", ("a",), ("A2",))
    with pytest.raises(InvalidSpecification, match="the source batch is empty"):
        step.outcomes(frozenset(), None)


def test_replace_group_draws_uniform_subsets_of_the_same_size():
    step = ReplaceGroup("A1", ("g1", "g2"), ("h1", "h2"), "E1")
    outcomes = step.outcomes(frozenset({"g1", "b1"}), None)
    assert sorted((p, sorted(b)) for p, (b,) in outcomes) == [
        (Fraction(1, 2), ["b1", "h1"]), (Fraction(1, 2), ["b1", "h2"])]
    (types,) = [t for _, t in step.type_outcomes(BatchType(Content.of(["g1", "g2"]), m), None)]
    assert types == (BatchType(Content.of(["h1", "h2"]), m),)
