import math

import pytest

from otbound import InvalidSpecification
from otbound.engine import (BatchRelation, GroupInsertionRemoval, InsertRemove, InsertionRemoval,
                            KFoldSubstitution, NeighbourPair, Substitution)
from otbound.engine.relations import distance_between_supports, distance_to_support

PLUS, DELTA = BatchRelation.INSERTION_REMOVAL, BatchRelation.SUBSTITUTION


def test_insertion_removal_distance_is_symmetric_difference():
    assert PLUS.distance(frozenset("ab"), frozenset("bc")) == 2
    assert PLUS.distance(frozenset("ab"), frozenset("abc")) == 1
    assert PLUS.distance(frozenset(), frozenset()) == 0


def test_substitution_distance_counts_replacements_and_needs_equal_sizes():
    assert DELTA.distance(frozenset("ab"), frozenset("bc")) == 1
    assert DELTA.distance(frozenset("abc"), frozenset("axy")) == 2
    assert DELTA.distance(frozenset("ab"), frozenset("abc")) == math.inf


def test_multiset_distances_count_multiplicities():
    assert PLUS.distance(("a", "a", "b"), ("a", "b")) == 1
    assert DELTA.distance(("a", "a", "b"), ("a", "b", "b")) == 1
    assert DELTA.distance(("a", "a"), ("a",)) == math.inf


def test_distance_to_and_between_supports():
    support = [frozenset("ab"), frozenset("cd")]
    assert distance_to_support(frozenset("ac"), support, DELTA) == 1
    assert distance_to_support(frozenset("a"), [], DELTA) == math.inf
    assert distance_between_supports([frozenset("xy")], support, PLUS) == 4


def test_relations_list_their_pair_shapes():
    assert [p.name for p in InsertionRemoval().pairs()] == ["removal", "insertion"]
    (pair,) = Substitution().pairs()
    assert (pair.removed, pair.inserted) == (("a",), ("a'",))
    removal, insertion = GroupInsertionRemoval(3).pairs()
    assert removal.removed == insertion.inserted == ("g1", "g2", "g3")
    (pair,) = InsertRemove(inserted=2, removed=1).pairs()
    assert (pair.removed, pair.inserted) == (("g1",), ("h1", "h2"))
    (pair,) = KFoldSubstitution(2).pairs()
    x, x_prime = pair.datasets(3)
    assert len(x) == len(x_prime) == 5 and len(x - x_prime) == 2


@pytest.mark.parametrize("make, message", [
    (lambda: GroupInsertionRemoval(0), "group size K must be an integer >= 1, got 0"),
    (lambda: InsertRemove(-1, 2), "number of insertions K\\+ must be an integer >= 0, got -1"),
    (lambda: InsertRemove(0, 0), "K\\+ \\+ K- must be >= 1"),
    (lambda: KFoldSubstitution(1.5), "group size K must be an integer >= 1, got 1.5"),
    (lambda: NeighbourPair("p", ("b1",), ()), "special element name 'b1'"),
    (lambda: NeighbourPair("p", ("a",), ("a",)), "must be distinct elements"),
])
def test_bad_relations_are_rejected_with_the_value(make, message):
    with pytest.raises(InvalidSpecification, match=message):
        make()
