import pytest

from otbound import InvalidSpecification
from otbound.engine import (AllOf, CountAtLeast, CountIs, Everything, Not, contains_none,
                            contains_some, count_partition)
from otbound.engine.batches import Content
from otbound.engine.events import partition_defect

CONTENTS = [Content.of(c) for c in ([], ["g1"], ["g2"], ["g1", "g2"])]


def test_count_partition_partitions_the_batch_space():
    events = count_partition("A", ["g1", "g2"])
    assert list(events) == ["A0", "A1", "A2"]
    assert partition_defect(events.values(), CONTENTS) is None
    assert list(count_partition("E", [], start=1)) == ["E1"]


def test_overlapping_or_missing_events_are_reported():
    assert "lies in 2 events" in partition_defect(
        [Everything(), contains_none(["g1"])], CONTENTS)
    assert "lies in no event" in partition_defect([CountIs(("g1", "g2"), 0)], CONTENTS)


def test_event_predicates():
    both = Content.of(["g1", "g2"])
    assert CountIs(("g1", "g2"), 2).holds(both)
    assert CountAtLeast(("g1",), 1).holds(both) and contains_some(["g2"]).holds(both)
    assert not Not(Everything()).holds(both)
    assert AllOf((CountIs(("g1",), 1), CountIs(("g2",), 0))).holds(Content.of(["g1"]))
    assert CountIs(("a",), 2).holds(Content.of(["a", "a"]))  # multiplicities count


@pytest.mark.parametrize("make, message", [
    (lambda: CountIs((), 0), "needs at least one element"),
    (lambda: CountIs(("a",), -1), "count must be an integer >= 0, got -1"),
    (lambda: CountIs(("b3",), 0), "special element name 'b3'"),
    (lambda: AllOf(()), "needs at least one event"),
])
def test_bad_events_are_rejected(make, message):
    with pytest.raises(InvalidSpecification, match=message):
        make()
