import math

import pytest
import sympy as sp

from otbound import InvalidSpecification
from otbound.engine import ConstraintMatrix, problem, statement
from otbound.engine.symbols import r

LABELS = ("A1", "A2", "E1")


def test_closure_applies_the_triangle_inequality():
    matrix = ConstraintMatrix.from_pairs(LABELS, {("A1", "E1"): 0, ("A1", "A2"): 1})
    closed = matrix.closure()
    assert closed.bound("A2", "E1") == 1
    assert matrix.bound("A2", "E1") == math.inf


def test_essential_pairs_keep_the_closure():
    full = ConstraintMatrix.from_pairs(
        ("y1", "y2", "y3", "y4"),
        {("y1", "y2"): 1, ("y2", "y3"): 1, ("y1", "y3"): 2, ("y3", "y4"): 1, ("y1", "y4"): 3,
         ("y2", "y4"): 2})
    kept = full.essential_pairs()
    assert len(kept) == 3
    rebuilt = ConstraintMatrix.from_pairs(full.labels, {(t, u): v for t, u, v in kept})
    assert rebuilt.closure() == full.closure()


def test_constraints_are_validated():
    with pytest.raises(InvalidSpecification, match="unknown or equal labels"):
        ConstraintMatrix.from_pairs(LABELS, {("A1", "Z"): 1})
    with pytest.raises(InvalidSpecification, match="must be >= 0, got -1"):
        ConstraintMatrix.from_pairs(LABELS, {("A1", "A2"): -1})


def removal(weight, distance=1, equal=0):
    return problem([("y", 1 - weight), ("y'", weight)], [("z", 1)],
                   {("y", "z"): equal, ("y", "y'"): distance})


def test_equal_statements_match_up_to_labels_and_implied_constraints():
    mine = statement(removal=removal(r))
    theirs = statement(removal=problem([("a", sp.expand(1 - r)), ("b", r)], [("c", 1)],
                                       {("a", "c"): 0, ("b", "c"): 1}))
    assert mine.difference(theirs) == ""


@pytest.mark.parametrize("other, reason", [
    (statement(removal=removal(r ** 2)), "weight of y is"),
    (statement(removal=removal(r, distance=2)), "constraints differ"),
    (statement(removal=removal(r, equal=1)), "constraints differ"),
    (statement(removal=removal(r), insertion=removal(r)), "1 cases vs 2"),
    (statement(removal=[(sp.Rational(1, 2), removal(r)), (sp.Rational(1, 2), removal(r, 2))]),
     "1 constraint profiles vs 2"),
])
def test_different_statements_are_told_apart(other, reason):
    assert reason in statement(removal=removal(r)).difference(other)


def test_terms_with_the_same_problem_are_merged():
    split = statement(removal=[(sp.Rational(1, 3), removal(r)), (sp.Rational(2, 3), removal(r))])
    assert split.difference(statement(removal=removal(r))) == ""
