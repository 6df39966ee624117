"""Subsampling schemes: exact pmfs on concrete datasets and symbolic pmfs over batch types.

Every scheme treats background elements symmetrically (001 Def. 2.6, 2.7; 003 Sec. 3.4; seed 002
Algorithm 1), which is what lets otbound reason about batch *types* for a symbolic dataset size.
Each scheme offers

* :meth:`Scheme.pmf` — the exact probability of every batch of a concrete dataset (``Fraction``);
* :meth:`Scheme.type_mass` — the total probability of all batches of one type (special content,
  number ``m`` of background elements) when the background has ``n`` elements (sympy);
* :meth:`Scheme.content_mass` — the same summed over ``m``.
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from dataclasses import Field, dataclass, fields, replace
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar, Iterator, Mapping, TypeAlias

import sympy as sp

from otbound.engine.batches import Batch, Content, is_background
from otbound.engine.binomial_tail import BinomialTail
from otbound.engine.products import power_product
from otbound.errors import InvalidSpecification

Parameter: TypeAlias = sp.Expr
"""A scheme parameter: an exact rational number or a sympy expression in shared symbols."""


def as_parameter(value: object, name: str) -> sp.Expr:
    """Convert ``value`` to an exact sympy parameter; floats are read as their decimal literal."""
    if isinstance(value, bool):
        raise InvalidSpecification(f"{name} must be a number or a sympy expression, got {value!r}")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidSpecification(f"{name} must be finite, got {value!r}")
        value = Fraction(str(value))
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    try:
        return sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError) as error:
        raise InvalidSpecification(
            f"{name} must be a number or a sympy expression, got {value!r}") from error


def as_fraction(value: sp.Expr) -> Fraction:
    """An exact ``Fraction`` for a concrete rational sympy value."""
    value = sp.sympify(value)
    if not value.is_Rational:
        raise InvalidSpecification(f"expected a concrete rational number, got {value}")
    return Fraction(int(value.p), int(value.q))


def _shown(name: str, value: sp.Expr) -> str:
    """``r`` for a symbolic parameter named r, ``r = 1/3`` for a number."""
    return name if str(value) == name else f"{name} = {value}"


def _check_probability(name: str, value: sp.Expr) -> None:
    if value.is_number and not (0 <= value <= 1):
        raise InvalidSpecification(f"{name} must be in [0, 1], got {value}")


def _check_size(name: str, value: sp.Expr, minimum: int) -> None:
    if value.is_number and (not value.is_integer or value < minimum):
        raise InvalidSpecification(f"{name} must be an integer >= {minimum}, got {value}")


class Scheme(ABC):
    """A subsampling scheme ``S``: a random batch ``y`` drawn from a dataset ``x``
    (001 Def. 2.5)."""

    multiset: bool = False
    """True when batches are multisets (sampling with replacement)."""

    if TYPE_CHECKING:   # every concrete scheme is a dataclass (fields, replace)
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @abstractmethod
    def describe(self) -> str:
        """One line naming the scheme and its parameters."""

    @abstractmethod
    def pmf(self, dataset: frozenset) -> dict[Batch, Fraction]:
        """Exact probability of every batch with non-zero probability."""

    @abstractmethod
    def type_mass(self, content: Content, m: sp.Expr, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        """Probability that the batch has special content ``content`` and ``m`` background elements.

        ``n`` is the number of background elements of the dataset and ``size`` its total size.
        """

    @abstractmethod
    def content_mass(self, content: Content, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        """Probability that the batch has special content ``content`` (summed over ``m``)."""

    def background_mass(self, content: Content, m: sp.Expr, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        """``P(m background elements | special content)``: ``type_mass / content_mass``."""
        return sp.powsimp(self.type_mass(content, m, n, size)
                          / self.content_mass(content, n, size), force=True)

    @abstractmethod
    def background_count(self, content: Content) -> sp.Expr | None:
        """The only possible number of background elements, or ``None`` if any ``0 … n`` is."""

    @abstractmethod
    def contents(self, specials: frozenset) -> Iterator[Content]:
        """Every special content a batch of a dataset holding ``specials`` may have."""

    def substitute(self, values: Mapping[sp.Symbol, object]) -> "Scheme":
        """The same scheme with symbols replaced by the given values."""
        values = {k: as_parameter(v, str(k)) for k, v in values.items()}
        changes = {f.name: getattr(self, f.name).subs(values) for f in fields(self)
                   if isinstance(getattr(self, f.name), sp.Basic)}
        return replace(self, **changes)

    def parameters(self) -> dict[str, sp.Expr]:
        """The scheme's parameters by name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def is_concrete(self) -> bool:
        """True when every parameter is a number."""
        return all(not isinstance(v, sp.Basic) or v.is_number for v in self.parameters().values())

    def _require_concrete(self) -> None:
        if not self.is_concrete():
            raise InvalidSpecification(
                f"{self.describe()}: exact pmfs need numeric parameters, got {self.parameters()}")


class SetScheme(Scheme):
    """A scheme drawing sets whose probability depends only on the batch and dataset sizes."""

    @abstractmethod
    def batch_probability(self, batch_size: sp.Expr, size: sp.Expr) -> sp.Expr:
        """Probability of one particular batch of ``batch_size`` elements from ``size``."""

    @abstractmethod
    def batch_sizes(self, size: int) -> range:
        """The batch sizes with non-zero probability for a concrete dataset size."""

    def pmf(self, dataset: frozenset) -> dict[Batch, Fraction]:
        self._require_concrete()
        elements, size = sorted(dataset), len(dataset)
        pmf: dict[Batch, Fraction] = {}
        for batch_size in self.batch_sizes(size):
            probability = as_fraction(self.batch_probability(sp.Integer(batch_size),
                                                             sp.Integer(size)))
            if probability == 0:
                continue
            for batch in itertools.combinations(elements, batch_size):
                pmf[frozenset(batch)] = probability
        return pmf

    def type_mass(self, content: Content, m: sp.Expr, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        return sp.binomial(n, m) * self.batch_probability(content.size + m, size)

    def contents(self, specials: frozenset) -> Iterator[Content]:
        ordered = sorted(specials)
        for k in range(len(ordered) + 1):
            for chosen in itertools.combinations(ordered, k):
                yield Content.of(chosen)


@dataclass(frozen=True)
class Poisson(SetScheme):
    """Poisson subsampling: every element is kept independently with probability ``rate``.

    ``s_x(y) = 1[y ⊆ x] · r^{|y|} (1 − r)^{|x| − |y|}`` (001 Def. 2.6).
    """

    rate: Parameter

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", as_parameter(self.rate, "rate r"))
        _check_probability("rate r", self.rate)

    def describe(self) -> str:
        return f"Poisson subsampling with rate {_shown('r', self.rate)}"

    def batch_probability(self, batch_size: sp.Expr, size: sp.Expr) -> sp.Expr:
        return self.rate ** batch_size * (1 - self.rate) ** (size - batch_size)

    def batch_sizes(self, size: int) -> range:
        return range(size + 1)

    def background_count(self, content: Content) -> sp.Expr | None:
        return None

    def background_mass(self, content: Content, m: sp.Expr, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        # the background elements are kept independently of the special ones
        return sp.binomial(n, m) * self.rate ** m * (1 - self.rate) ** (n - m)

    def content_mass(self, content: Content, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        # Binomial theorem: sum_m C(n, m) r^m (1 - r)^(n - m) = (r + (1 - r))^n = 1.
        r, specials = self.rate, size - n
        return power_product(r ** content.size, (1 - r) ** (specials - content.size))


@dataclass(frozen=True)
class WithoutReplacement(SetScheme):
    """Sampling without replacement: a uniformly random subset of exactly ``batch_size`` elements.

    ``s_x(y) = 1[y ⊆ x] · 1[|y| = q] · C(|x|, q)^{-1}`` (001 Def. 2.7).
    """

    batch_size: Parameter

    def __post_init__(self) -> None:
        object.__setattr__(self, "batch_size", as_parameter(self.batch_size, "batch size q"))
        _check_size("batch size q", self.batch_size, 1)

    def describe(self) -> str:
        return f"sampling without replacement with batch size {_shown('q', self.batch_size)}"

    def batch_probability(self, batch_size: sp.Expr, size: sp.Expr) -> sp.Expr:
        if batch_size != self.batch_size:
            return sp.Integer(0)
        return 1 / sp.binomial(size, self.batch_size)

    def batch_sizes(self, size: int) -> range:
        if self.batch_size > size:
            raise InvalidSpecification(
                f"batch size q = {self.batch_size} exceeds the dataset size N = {size}")
        return range(int(self.batch_size), int(self.batch_size) + 1)

    def type_mass(self, content: Content, m: sp.Expr, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        if sp.simplify(content.size + m - self.batch_size) != 0:
            return sp.Integer(0)
        return sp.binomial(n, m) / sp.binomial(size, self.batch_size)

    def background_count(self, content: Content) -> sp.Expr | None:
        return self.batch_size - content.size

    def background_mass(self, content: Content, m: sp.Expr, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        return sp.Integer(1)   # the batch size fixes the background count

    def content_mass(self, content: Content, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        m = self.background_count(content)
        return self.type_mass(content, m, n, size)


@dataclass(frozen=True)
class TruncatedPoisson(SetScheme):
    """Poisson sampling with rate ``rate``, truncated to a uniformly random subset of ``max_batch``.

    Seed 002 Algorithm 1: keep every element with probability p; if more than B elements were
    kept, keep a uniformly random B of them. ``max_batch = None`` means B = ∞ (plain Poisson).
    A batch of size j < B has probability p^j (1 − p)^{N − j}; a batch of size B has probability
    ``Σ_{k=B}^{N} C(N − B, k − B) p^k (1 − p)^{N − k} / C(k, B)``.
    """

    rate: Parameter
    max_batch: Parameter | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rate", as_parameter(self.rate, "rate p"))
        _check_probability("rate p", self.rate)
        if self.max_batch is not None:
            object.__setattr__(self, "max_batch", as_parameter(self.max_batch, "maximum batch B"))
            _check_size("maximum batch B", self.max_batch, 1)

    def describe(self) -> str:
        bound = "B = ∞" if self.max_batch is None else _shown("B", self.max_batch)
        return (f"truncated Poisson subsampling with rate {_shown('p', self.rate)}, "
                f"maximum batch {bound}")

    def batch_probability(self, batch_size: sp.Expr, size: sp.Expr) -> sp.Expr:
        p, B = self.rate, self.max_batch
        untruncated = p ** batch_size * (1 - p) ** (size - batch_size)
        if B is None:
            return untruncated
        if batch_size.is_number and B.is_number and batch_size > B:
            return sp.Integer(0)
        k = sp.Dummy("k", integer=True)
        truncated = sp.Sum(sp.binomial(size - B, k - B) * p ** k * (1 - p) ** (size - k)
                           / sp.binomial(k, B), (k, B, size))
        if batch_size.is_number and B.is_number:
            return untruncated if batch_size < B else truncated.doit()
        return sp.Piecewise((untruncated, sp.Lt(batch_size, B)),
                            (truncated, sp.Eq(batch_size, B)), (0, True))

    def batch_sizes(self, size: int) -> range:
        top = size if self.max_batch is None else min(size, int(self.max_batch))
        return range(top + 1)

    def background_count(self, content: Content) -> sp.Expr | None:
        return None

    def content_mass(self, content: Content, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        m = sp.Dummy("m", integer=True)
        return sp.Sum(self.type_mass(content, m, n, size), (m, 0, n)).doit()

    def pmf(self, dataset: frozenset) -> dict[Batch, Fraction]:
        """Exact, from the enumeration of the sample before truncation (shared with
        :meth:`branch_pmf`, computed once per dataset)."""
        if self.max_batch is None:
            return super().pmf(dataset)
        total: dict[Batch, Fraction] = {}
        for part in self.branch_pmf(dataset).values():
            for batch, probability in part.items():
                total[batch] = total.get(batch, Fraction(0)) + probability
        return {batch: p for batch, p in total.items() if p}

    def branch_pmf(self, dataset: frozenset) -> dict[bool, dict[Batch, Fraction]]:
        """The joint law of the batch and the public latent ``T = [|S ∩ background| ≥ B]``,
        ``S`` the sample before truncation (002 Sec. 3.1): ``T`` says whether the background
        records alone fill the batch, so it has the same law on both datasets of a pair."""
        self._require_concrete()
        cap = None if self.max_batch is None else int(self.max_batch)
        return _branch_law(as_fraction(self.rate), cap, dataset)

    def fill_probability(self, size: sp.Expr) -> sp.Expr:
        """``w = P[Binom(N − 1, p) ≥ B]``: the law of ``T`` when the pair's larger dataset has
        ``size`` records, one of them special (002 Thm. 3.1)."""
        return BinomialTail(size - 1, self.rate, self.max_batch)

    def inclusion_when_filled(self, size: sp.Expr) -> sp.Expr:
        """``q̃ = P[Binom(N, p) ≥ B + 1] / w · B / N``: the chance that the special record is
        in the batch given ``T`` (002 Sec. 3.4)."""
        if self.max_batch is None:
            raise InvalidSpecification("B = ∞: no maximum batch to fill")
        return (BinomialTail(size, self.rate, self.max_batch + 1)
                / self.fill_probability(size) * self.max_batch / size)


@dataclass(frozen=True)
class WithReplacement(Scheme):
    """Sampling with replacement: ``batch_size`` i.i.d. uniform draws, kept as a multiset.

    A multiset ``y`` of size q with multiplicities ``c_e`` has probability
    ``q! / (∏_e c_e!) · |x|^{-q}`` (003 Sec. 3.4).
    """

    batch_size: Parameter
    multiset = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "batch_size", as_parameter(self.batch_size, "batch size q"))
        _check_size("batch size q", self.batch_size, 1)

    def describe(self) -> str:
        return f"sampling with replacement with batch size {_shown('q', self.batch_size)}"

    def pmf(self, dataset: frozenset) -> dict[Batch, Fraction]:
        self._require_concrete()
        if not dataset:
            raise InvalidSpecification("sampling with replacement needs a non-empty dataset")
        q, size = int(self.batch_size), len(dataset)
        return {batch: Fraction(_multinomial(tuple(_multiplicities(batch))), size ** q)
                for batch in itertools.combinations_with_replacement(sorted(dataset), q)}

    def type_mass(self, content: Content, m: sp.Expr, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        # Sum over background multisets of size m of m!/prod(c_b!) is n^m (multinomial theorem).
        if sp.simplify(content.size + m - self.batch_size) != 0:
            return sp.Integer(0)
        q = self.batch_size
        weight = sp.factorial(q) / (sp.factorial(m) * sp.prod(
            [sp.factorial(c) for c in content.multiplicities()]))
        return weight * n ** m / size ** q

    def background_count(self, content: Content) -> sp.Expr | None:
        return self.batch_size - content.size

    def content_mass(self, content: Content, n: sp.Expr, size: sp.Expr) -> sp.Expr:
        return self.type_mass(content, self.background_count(content), n, size)

    def contents(self, specials: frozenset) -> Iterator[Content]:
        ordered, q = sorted(specials), self.batch_size
        top = int(q) if q.is_number else len(ordered)
        for k in range(top + 1):
            for chosen in itertools.combinations_with_replacement(ordered, k):
                yield Content.of(chosen)


def _multiplicities(batch: tuple) -> list[int]:
    return [len(list(group)) for _, group in itertools.groupby(batch)]


@lru_cache(maxsize=None)
def _multinomial(multiplicities: tuple[int, ...]) -> int:
    total, result = 0, 1
    for c in multiplicities:
        total += c
        result *= math.comb(total, c)
    return result


@lru_cache(maxsize=256)
def _branch_law(rate: Fraction, cap: int | None, dataset: frozenset
                ) -> dict[bool, dict[Batch, Fraction]]:
    """:meth:`TruncatedPoisson.branch_pmf`, by enumerating the sample before truncation (shared
    between callers: not to be modified)."""
    elements = sorted(dataset)
    top = len(elements) if cap is None else cap
    law: dict[bool, dict[Batch, Fraction]] = {False: {}, True: {}}
    for count in range(len(elements) + 1):
        weight = rate ** count * (1 - rate) ** (len(elements) - count)
        for sample in itertools.combinations(elements, count):
            fills = cap is not None and sum(map(is_background, sample)) >= top
            kept = list(itertools.combinations(sample, min(count, top)))
            for batch in map(frozenset, kept):
                law[fills][batch] = law[fills].get(batch, Fraction(0)) + weight / len(kept)
    return law
