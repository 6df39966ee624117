"""Subsampling settings of the command line: shorthands for bundled derivations.

A :class:`Subsampling` is a scheme with its parameters and a neighbouring relation. Its
:meth:`~Subsampling.cases` are the bound of a bundled derivation, derived by the engine and
evaluated at the setting's values (:mod:`otbound.numerics.derived`): a maximum over cases (pair
shapes) of expectations over terms, each term a mixture problem.

* ``--scheme poisson --insertions K₊ --removals K₋``: ``003-thm-3.7`` at ``(K₊, K₋)``;
* ``--scheme poisson --group K``: the same for every ``K₊ + K₋ = K`` (a pair at distance below
  ``K`` is dominated by one at distance ``K``: pad it with elements the function ignores);
* ``--scheme wor --substitutions K``: ``wor-group-substitution`` at ``K`` (001 Thm. 3.6 for
  ``K = 1``), and ``001-prop-E.5`` at ``K`` where a mechanism has no exact solver for it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Protocol, overload

from otbound.choices import SchemeKind
from otbound.engine.relations import BatchRelation
from otbound.errors import InvalidSpecification, as_choice, required
from otbound.numerics.limits import MAX_GROUP, MAX_SUBSTITUTIONS, show
from otbound.numerics.problems import Term
from otbound.parallel import mapped


class Setting(Protocol):
    """What the library asks of every setting (one setting protocol, issue 42: none is tested
    for its class), as far as the type checker needs to know."""

    @property
    def epoch_level(self) -> bool:
        """Whether its count is of epochs (else of steps)."""

    def relation_key(self) -> tuple:
        """What a step's cases refer to: steps compose only under one relation."""

    def summary(self) -> str:
        """The setting in words, for messages."""

    def describe(self) -> dict:
        """The setting's parameters, for JSON."""


@overload
def _count(name: str, value: None, minimum: int, maximum: int | None = None) -> None: ...
@overload
def _count(name: str, value: float, minimum: int, maximum: int | None = None) -> int: ...
def _count(name: str, value: float | None, minimum: int, maximum: int | None = None
           ) -> int | None:
    if value is None:
        return None
    if (isinstance(value, bool) or not math.isfinite(float(value))
            or not float(value).is_integer() or value < minimum):
        raise InvalidSpecification(f"{name} must be an integer >= {minimum}, got {show(value)}",
                                   parameter=name)
    if maximum is not None and value > maximum:
        raise InvalidSpecification(
            f"{name} must be an integer in [{minimum}, {maximum}], got {show(value)}",
            parameter=name)
    return int(value)


@dataclass(frozen=True)
class Subsampling:
    """A subsampling scheme and a neighbouring relation, as on the command line.

    ``scheme`` is ``"poisson"`` (with ``rate``, or ``batch_size`` and ``dataset_size`` for the
    rate ``batch_size/dataset_size`` of that expected batch size; relation ``group`` = every pair at
    insertion/removal distance ≤ K, or one pair with ``insertions`` and ``removals``) or ``"wor"``
    (sampling without replacement with ``batch_size`` and ``dataset_size``; relation
    ``substitutions``).
    """

    epoch_level = False
    """One step per count (an epoch-level setting counts epochs)."""

    scheme: SchemeKind | str
    """A :class:`SchemeKind` once made (a string is read as one: ``"poisson"``, ``"wor"``)."""
    rate: float | None = None
    batch_size: int | None = None
    dataset_size: int | None = None
    group: int | None = None
    insertions: int | None = None
    removals: int | None = None
    substitutions: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "scheme", as_choice(SchemeKind, self.scheme, "scheme"))
        if self.scheme is SchemeKind.POISSON:
            self._check_poisson()
        else:
            self._check_wor()

    def _check_poisson(self) -> None:
        if self.rate is None:
            rate = self._rate_from_sizes()
        elif self.batch_size is not None or self.dataset_size is not None:
            raise InvalidSpecification("give rate, or batch_size and dataset_size (then rate = "
                                       "batch_size/dataset_size), not both", parameter="rate")
        else:
            rate = self.rate
        if not 0 <= float(rate) <= 1:
            raise InvalidSpecification(f"rate must be in [0, 1], got {show(rate)}",
                                       parameter="rate")
        object.__setattr__(self, "rate", float(rate))
        if self.substitutions is not None:
            raise InvalidSpecification("substitutions applies to scheme='wor'",
                                       parameter="substitutions")
        explicit = self.insertions is not None or self.removals is not None
        if explicit and self.group is not None:
            raise InvalidSpecification("give either group or insertions/removals, not both",
                                       parameter="group")
        if explicit:
            inserted = _count("insertions", self.insertions or 0, 0, MAX_GROUP)
            removed = _count("removals", self.removals or 0, 0, MAX_GROUP)
            if not 1 <= inserted + removed <= MAX_GROUP:
                raise InvalidSpecification(f"insertions + removals must be in [1, {MAX_GROUP}], "
                                           f"got {inserted + removed}", parameter="insertions")
            object.__setattr__(self, "insertions", inserted)
            object.__setattr__(self, "removals", removed)
        else:
            object.__setattr__(self, "group", _count("group", 1 if self.group is None
                                                     else self.group, 1, MAX_GROUP))

    def _rate_from_sizes(self) -> float:
        """Poisson sampling with expected batch size ``batch_size``: rate B/N."""
        if self.batch_size is None or self.dataset_size is None:
            raise InvalidSpecification("scheme='poisson' needs rate (or batch_size and "
                                       "dataset_size: rate = batch_size/dataset_size)",
                                       parameter="rate")
        size = _count("dataset_size", self.dataset_size, 1)
        expected = _count("batch_size", self.batch_size, 0, size)
        return expected / size   # the double nearest to B/N (int division is correctly rounded)

    def _check_wor(self) -> None:
        for name in ("rate", "group", "insertions", "removals"):
            if getattr(self, name) is not None:
                raise InvalidSpecification(f"{name} applies to scheme='poisson'",
                                           parameter=name)
        q = _count("batch_size", self.batch_size, 1)
        n = _count("dataset_size", self.dataset_size, 1)
        if q is None or n is None:
            raise InvalidSpecification("scheme='wor' needs batch_size and dataset_size",
                                       parameter="batch_size" if q is None else "dataset_size")
        if q >= n:
            raise InvalidSpecification(
                f"batch_size must be smaller than dataset_size, got q = {q}, N = {n}",
                parameter="batch_size")
        k = _count("substitutions", 1 if self.substitutions is None else self.substitutions, 1,
                   MAX_SUBSTITUTIONS)
        if k > n:
            raise InvalidSpecification(f"substitutions must be <= dataset_size, got {k}",
                                       parameter="substitutions")
        object.__setattr__(self, "batch_size", q)
        object.__setattr__(self, "dataset_size", n)
        object.__setattr__(self, "substitutions", k)

    @property
    def _substitutions(self) -> int:
        """``K`` without replacement (set by ``__post_init__``)."""
        return required(self.substitutions, "substitutions")

    @property
    def group_size(self) -> int:
        """The induced distance between the datasets (K)."""
        if self.scheme is SchemeKind.WOR:
            return self._substitutions
        if self.group is not None:
            return self.group
        return required(self.insertions, "insertions") + required(self.removals, "removals")

    def shapes(self) -> list[tuple[int, int]]:
        """``(K₊, K₋)`` of each case. Poisson: every ``(K₊, K₋)`` covered (a pair at distance
        < K is dominated by one at distance K: pad it with elements the function ignores, their
        sampling changes nothing); without replacement, ``(K, K)``."""
        if self.scheme is SchemeKind.WOR:
            return [(self._substitutions, self._substitutions)]
        if self.group is not None:
            return [(k, self.group - k) for k in range(self.group + 1)]
        return [(required(self.insertions, "insertions"), required(self.removals, "removals"))]

    @property
    def sampled_fraction(self) -> float | None:
        """``q/N`` without replacement."""
        if self.scheme is not SchemeKind.WOR:
            return None
        return required(self.batch_size, "batch_size") / required(self.dataset_size,
                                                                  "dataset_size")

    def with_group_size(self, size: int) -> "Subsampling":
        """The same scheme for the relation at distance ``size`` (used by post-hoc bounds)."""
        if self.scheme is SchemeKind.WOR:
            return Subsampling(SchemeKind.WOR, batch_size=self.batch_size,
                               dataset_size=self.dataset_size, substitutions=size)
        return Subsampling(SchemeKind.POISSON, rate=self.rate, group=size)

    def derivations(self) -> list[tuple[str, dict[str, int]]]:
        """The bundled derivations (with structural parameters) whose bounds this setting is."""
        if self.scheme is SchemeKind.POISSON:
            return [("003-thm-3.7", {"K_plus": inserted, "K_minus": removed})
                    for inserted, removed in self.shapes()]
        return [("wor-group-substitution", {"K": self._substitutions})]

    def values(self) -> dict[str, object]:
        """The scheme parameters, named as in the derivations."""
        if self.scheme is SchemeKind.POISSON:
            return {"r": self.rate}
        return {"q": self.batch_size, "N": self.dataset_size}

    def cases(self) -> list[list[Term]]:
        """The derived bound: maximum over cases of ``Σ_terms P(term) · problem``."""
        return list(self._cases)

    @functools.cached_property
    def _cases(self) -> list[list[Term]]:
        return self._evaluated(self.derivations())

    def agnostic_cases(self) -> list[list[Term]]:
        """001 Prop. E.5's bound for K-fold substitution without replacement: no conditioning,
        so every term is one pair of batches at a distance (sound for any mechanism)."""
        if self.scheme is not SchemeKind.WOR:
            raise InvalidSpecification("001 Prop. E.5 applies to scheme='wor'",
                                       parameter="scheme")
        return self._evaluated([("001-prop-E.5", {"K": self.substitutions})])

    def _evaluated(self, derivations) -> list[list[Term]]:
        """The derivations' bounds at the setting's values, on every core for a large group:
        the splits ``K₊ = k`` and ``K₊ = K − k`` share their two mixtures, so they go
        together (their weights are evaluated once)."""
        from otbound.numerics.derived import bundled, evaluate

        values = self.values()

        def evaluated(indices: tuple[int, ...]) -> list[list[list[Term]]]:
            return [evaluate(bundled(derivations[i][0], **derivations[i][1]), values)
                    for i in indices]

        last = len(derivations) - 1
        together = [(i, last - i) if i < last - i else (i,) for i in range(last // 2 + 1)]
        found: dict[int, list[list[Term]]] = {}
        for indices, results in zip(together, mapped(evaluated, together)):
            found.update(zip(indices, results))
        return [terms for i in range(len(derivations)) for terms in found[i]]

    @property
    def batch_relation(self) -> BatchRelation:
        """The induced distance of the derivations this setting stands for."""
        return UNIT_RELATION[SchemeKind(self.scheme)]

    def relation_key(self) -> tuple:
        """What a step's cases refer to: steps compose only under one relation."""
        if self.scheme is SchemeKind.WOR:
            return ("substitution", self.substitutions)
        return ("insert-remove", tuple(self.shapes()))

    def unit_setting(self) -> tuple["Subsampling", int]:
        """The K = 1 setting post-hoc group privacy starts from, and the group size."""
        return self.with_group_size(1), self.group_size

    def swapped(self) -> "Subsampling":
        """The relation with the two datasets of every pair exchanged (itself where that
        changes nothing: a group, or a substitution)."""
        if self.group is not None or self.insertions is None:
            return self
        return Subsampling(self.scheme, rate=self.rate, insertions=self.removals,
                           removals=self.insertions)

    def with_rate(self, rate: float) -> "Subsampling":
        """The same setting at another Poisson rate (what ``calibrate --solve-for rate``
        varies)."""
        if self.scheme is not SchemeKind.POISSON or self.batch_size is not None:
            raise InvalidSpecification("solve_for='rate' needs Poisson sampling given by its "
                                       "rate (Subsampling('poisson', rate=…) or "
                                       "TruncatedPoissonSetting)", parameter="solve_for")
        return replace(self, rate=rate)

    def alternative_cases(self) -> dict[str, list[list[Term]]]:
        """Other sound bounds of ``tight`` where it has no exact solver, by name: 001 Prop.
        E.5's pairs without replacement."""
        if self.scheme is not SchemeKind.WOR:
            return {}
        return {"tight (001 Prop. E.5 pairs)": self.agnostic_cases()}

    def summary(self) -> str:
        """The setting in words, for messages."""
        if self.scheme is SchemeKind.WOR:
            return (f"sampling without replacement (batch size {self.batch_size} of "
                    f"{self.dataset_size}), {self.substitutions} substituted")
        relation = (f"groups of {self.group}" if self.group is not None
                    else f"{self.insertions} inserted and {self.removals} removed")
        return f"Poisson subsampling at rate {show(self.rate)}, {relation}"

    def describe(self) -> dict:
        fields = {"scheme": SchemeKind(self.scheme).value}
        for name in ("rate", "batch_size", "dataset_size", "group", "insertions", "removals",
                     "substitutions"):
            if getattr(self, name) is not None:
                fields[name] = getattr(self, name)
        if self.scheme is SchemeKind.POISSON and self.batch_size is not None:
            del fields["batch_size"], fields["dataset_size"]
            fields["rate_from"] = (f"expected batch size / dataset size = "
                                   f"{self.batch_size}/{self.dataset_size}")
        return fields | {"distance_unit": self.batch_relation.unit()}



UNIT_RELATION = {SchemeKind.POISSON: BatchRelation.INSERTION_REMOVAL,
                 SchemeKind.WOR: BatchRelation.SUBSTITUTION}
"""The distance each built-in setting counts the sensitivity in
(:attr:`Subsampling.batch_relation`), that of its K = 1 bound (post-hoc's,
:mod:`otbound.numerics.units`)."""
