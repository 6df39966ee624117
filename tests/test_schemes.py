from collections import defaultdict
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from strategies import dataset_sizes, open_rates, rates

from otbound import InvalidSpecification
from otbound.engine import Poisson, TruncatedPoisson, WithReplacement, WithoutReplacement
from otbound.engine.batches import Content, background
from otbound.engine.schemes import as_fraction
from otbound.engine.simplify import is_identically_zero
from otbound.engine.symbols import n, q, r

SPECIALS = ("a", "g1")


def dataset(background_size: int, specials=SPECIALS) -> frozenset:
    return frozenset(background(background_size)) | frozenset(specials)


@given(rate=rates, size=dataset_sizes)
def test_poisson_pmf_sums_to_one(rate, size):
    assert sum(Poisson(rate).pmf(frozenset(background(size))).values()) == 1


@given(data=st.data(), size=st.integers(1, 9))
def test_without_replacement_pmf_sums_to_one(data, size):
    batch_size = data.draw(st.integers(1, size))
    pmf = WithoutReplacement(batch_size).pmf(frozenset(background(size)))
    assert sum(pmf.values()) == 1
    assert all(len(y) == batch_size for y in pmf)


@given(rate=rates, size=dataset_sizes, max_batch=st.one_of(st.none(), st.integers(1, 9)))
def test_truncated_poisson_pmf_sums_to_one(rate, size, max_batch):
    pmf = TruncatedPoisson(rate, max_batch).pmf(frozenset(background(size)))
    assert sum(pmf.values()) == 1
    assert max_batch is None or all(len(y) <= max_batch for y in pmf)


@given(batch_size=st.integers(1, 4), size=st.integers(1, 5))
def test_with_replacement_pmf_sums_to_one(batch_size, size):
    pmf = WithReplacement(batch_size).pmf(frozenset(background(size)))
    assert sum(pmf.values()) == 1
    assert all(len(y) == batch_size for y in pmf)


def enumerated_type_masses(scheme, data: frozenset) -> dict[tuple[Content, int], Fraction]:
    masses = defaultdict(Fraction)
    for batch, p in scheme.pmf(data).items():
        content = Content.in_batch(batch, SPECIALS)
        masses[(content, len(batch) - content.size)] += p
    return masses


SCHEMES = [Poisson(Fraction(2, 7)), WithoutReplacement(3), TruncatedPoisson(Fraction(1, 3), 3),
           TruncatedPoisson(Fraction(1, 2)), WithReplacement(3)]


@pytest.mark.parametrize("scheme", SCHEMES, ids=lambda s: s.describe())
@pytest.mark.parametrize("background_size", [2, 5])
def test_type_masses_match_exact_enumeration(scheme, background_size):
    data = dataset(background_size)
    size = sp.Integer(len(data))
    enumerated = enumerated_type_masses(scheme, data)
    contents = set()
    for (content, m), mass in enumerated.items():
        assert as_fraction(scheme.type_mass(content, sp.Integer(m), sp.Integer(background_size),
                                            size)) == mass
        contents.add(content)
    for content in scheme.contents(frozenset(SPECIALS)):
        total = sum((mass for (c, _), mass in enumerated.items() if c == content), Fraction(0))
        assert as_fraction(scheme.content_mass(content, sp.Integer(background_size), size)) == total


def test_poisson_content_masses_sum_to_one_for_symbolic_size():
    scheme = Poisson(r)
    total = sum(scheme.content_mass(c, n, n + 2) for c in scheme.contents(frozenset(SPECIALS)))
    assert is_identically_zero(total - 1)


def test_without_replacement_content_masses_sum_to_one_for_symbolic_size():
    scheme = WithoutReplacement(q)
    total = sum(scheme.content_mass(c, n, n + 2) for c in scheme.contents(frozenset(SPECIALS)))
    assert is_identically_zero(total - 1)


def test_truncated_poisson_without_truncation_is_poisson():
    data = dataset(4)
    assert TruncatedPoisson(Fraction(1, 3)).pmf(data) == Poisson(Fraction(1, 3)).pmf(data)
    assert TruncatedPoisson(Fraction(1, 3), 6).pmf(data) == Poisson(Fraction(1, 3)).pmf(data)


def test_truncated_poisson_with_rate_one_is_a_fixed_size_batch():
    data = dataset(4)
    assert TruncatedPoisson(1, 3).pmf(data) == WithoutReplacement(3).pmf(data)


@given(rate=open_rates)
def test_poisson_pmf_is_the_product_form(rate):
    pmf = Poisson(rate).pmf(dataset(2))
    assert pmf[frozenset({"a"})] == rate * (1 - rate) ** 3


@pytest.mark.parametrize("make, message", [
    (lambda: Poisson(Fraction(3, 2)), r"rate r must be in \[0, 1\], got 3/2"),
    (lambda: Poisson(-0.1), r"rate r must be in \[0, 1\], got -1/10"),
    (lambda: WithoutReplacement(0), "batch size q must be an integer >= 1, got 0"),
    (lambda: WithoutReplacement(Fraction(1, 2)), "batch size q must be an integer >= 1"),
    (lambda: TruncatedPoisson(Fraction(1, 2), 0), "maximum batch B must be an integer >= 1, got 0"),
    (lambda: WithoutReplacement(5).pmf(frozenset(background(3))),
     "batch size q = 5 exceeds the dataset size N = 3"),
    (lambda: Poisson(r).pmf(frozenset(background(3))), "exact pmfs need numeric parameters"),
    (lambda: Poisson(float("nan")), "rate r must be finite"),
    (lambda: Poisson(True), "rate r must be a number"),
])
def test_bad_parameters_are_rejected_with_range_and_value(make, message):
    with pytest.raises(InvalidSpecification, match=message):
        make()


def test_substitute_makes_a_symbolic_scheme_concrete():
    scheme = WithoutReplacement(q).substitute({q: 2})
    assert scheme.is_concrete() and scheme.batch_size == 2
    assert not WithoutReplacement(q).is_concrete()
