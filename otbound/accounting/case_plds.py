"""A step handed to dp_accounting with its cases kept apart (issue 44).

A step's privacy is a maximum over cases, and a pair of datasets stays in one case over all
steps (:mod:`otbound.accounting.steps`), so each case is composed on its own and the worst case
reported, as :func:`otbound.accounting.pld.compose_plds` does. dp_accounting's
``PrivacyLossDistribution`` holds two cases, its adjacencies REMOVE (``mu_upper = M(x)``, ``x``
with the extra record) and ADD. A case and its reverse (the datasets exchanged: ``(K₊, K₋)`` and
``(K₋, K₊)``) fit in one such PLD; a group of ``K`` records under insertion/removal has ``K + 1``
cases (003 Thm. 3.8), more than one PLD holds. Its cases with ``K₊, K₋ > 0`` are pairs of two
Gaussian mixtures under Gaussian noise, which dp_accounting cannot yet build: that is
google/differential-privacy issue #274 ("double mixture of Gaussians", needed for tight group
accounting under insertion/removal and for substitution). :class:`CasePLDs` keeps one PLD
per pair of mutually reversed cases, each of them otbound's pessimistic connect-the-dots PLD of
the case's profile (:func:`otbound.accounting.pld.profile_pmf`), held as otbound's
:class:`~otbound.numerics.dense_pld.DensePLD` (dp_accounting's algorithms; ``to_dp_accounting()``
hands one over) until it is composed with a dp_accounting PLD, which dp_accounting then does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from otbound.accounting.pld import (ROUNDING_RELATIVE, TOLERANCE, TRUNCATION, check_composed_size,
                                    pair_loss_range, profile_pmf, sole_epoch_pair)
from otbound.accounting.steps import Step, StepCase
from otbound.choices import DEFAULT_DISCRETISATION
from otbound.errors import InvalidSpecification
from otbound.numerics.dense_pld import DensePLD, DensePmf
from otbound.numerics.limits import MAX_STEPS, show
from otbound.numerics.one_step import branches_delta

if TYPE_CHECKING:   # dp_accounting (with scipy.stats) is imported where a PLD is built
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution


@dataclass(frozen=True)
class CasePLDs:
    """The cases of a step (or of a composition of steps under one relation) as PLDs, kept
    apart: ``plds[i]`` holds the cases ``cases[i]`` (indices into the step's cases),
    ``(remove, add)`` for a case and its reverse, ``(case,)`` for a case held as a symmetric PLD
    (its own reverse, as ``(1, 1)``, or of unknown reverse). Every case's profile is in exactly
    one PLD. ε and δ are the largest over the PLDs, as :func:`otbound.compose` reports the worst
    case; composition is PLD by PLD, with dp_accounting's ``tail_mass_truncation`` (mass moved
    to an infinite loss: pessimistic). The PLDs are otbound's
    (:class:`~otbound.numerics.dense_pld.DensePLD`, composed and read as dp_accounting composes
    and reads its own), dp_accounting's once composed with one of its PLDs (dp_accounting
    composes them then). The readings are a PLD's: :func:`otbound.compose` also allows for the
    floating-point noise of the FFT compositions
    (:func:`otbound.accounting.pld.composition_noise`), these do not (100 steps of a group of 3:
    δ(1) read 1.8e-14 below compose's 2.425995e-9)."""

    relation: tuple
    cases: tuple[tuple[int, ...], ...]
    plds: tuple[DensePLD | PrivacyLossDistribution, ...]

    def __post_init__(self) -> None:
        if not self.plds or len(self.cases) != len(self.plds):
            raise InvalidSpecification(f"plds must be one PLD per group of cases, got "
                                       f"{len(self.plds)} for {self.cases}", parameter="plds")

    def self_compose(self, count: int, tail_mass_truncation: float = TRUNCATION) -> CasePLDs:
        """Every PLD composed with itself ``count`` times (refused, as in
        :func:`otbound.compose`, where the result would need too many grid points; a
        dp_accounting PLD's size is dp_accounting's to know)."""
        check_count(count)
        for pld in self.plds:
            if isinstance(pld, DensePLD):
                check_composed_size(pld, count)
        return self._with(pld.self_compose(count, tail_mass_truncation) if count > 1 else pld
                          for pld in self.plds)

    def compose(self, other: CasePLDs | PrivacyLossDistribution | DensePLD,
                tail_mass_truncation: float = TRUNCATION) -> CasePLDs:
        """Composed with ``other``: case by case with another ``CasePLDs`` of the same relation
        (refused otherwise), or with one dp_accounting PLD of another mechanism (or one of
        otbound's :class:`~otbound.numerics.dense_pld.DensePLD`), composed into every PLD held
        (REMOVE with its REMOVE, ADD with its ADD).

        The second is sound when ``other`` bounds the other mechanism on the same pairs of
        datasets ``(x, x')``: its REMOVE on the pairs of every case held here as a REMOVE
        (``x`` has more records: more removals than insertions, dp_accounting's convention),
        its ADD on those held as an ADD, and either of them on the pairs of a case held as a
        symmetric PLD (composed with both, the larger kept). A symmetric ``other`` that bounds
        the other mechanism on every pair of the relation, in both orders, always qualifies.
        """
        from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

        if isinstance(other, (PrivacyLossDistribution, DensePLD)):
            return self._with(_composed(pld, other, tail_mass_truncation) for pld in self.plds)
        if not isinstance(other, CasePLDs):
            raise InvalidSpecification("other must be a CasePLDs or a dp_accounting "
                                       f"PrivacyLossDistribution, got {type(other).__name__}",
                                       parameter="other")
        if (other.relation, other.cases) != (self.relation, self.cases):
            raise InvalidSpecification(
                "other holds the cases of another neighbouring relation: "
                f"{other.relation} (cases {other.cases}), not {self.relation} (cases "
                f"{self.cases}); cases are composed only under one relation", parameter="other")
        return self._with(_composed(mine, theirs, tail_mass_truncation)
                          for mine, theirs in zip(self.plds, other.plds))

    def get_delta_for_epsilon(self, epsilon: float | Sequence[float]) -> float | np.ndarray:
        """The largest δ(ε) over the PLDs (elementwise for a sequence of ε)."""
        deltas = np.max([np.asarray(pld.get_delta_for_epsilon(epsilon)) for pld in self.plds],
                        axis=0)
        return float(deltas) if deltas.ndim == 0 else deltas

    def get_epsilon_for_delta(self, delta: float) -> float:
        """The largest ε(δ) over the PLDs (each dp_accounting's smallest ε ≥ 0 with δ(ε) ≤
        ``delta``)."""
        return max(float(pld.get_epsilon_for_delta(delta)) for pld in self.plds)

    def _with(self, plds) -> CasePLDs:
        return CasePLDs(self.relation, self.cases, tuple(plds))


def _composed(mine: DensePLD | PrivacyLossDistribution, theirs: DensePLD | PrivacyLossDistribution,
              truncation: float) -> DensePLD | PrivacyLossDistribution:
    """Two PLDs composed: by otbound where both are its own, else by dp_accounting (otbound's
    handed over)."""
    if isinstance(mine, DensePLD):
        return mine.compose(theirs, truncation)
    if isinstance(theirs, DensePLD):
        theirs = theirs.to_dp_accounting()
    return mine.compose(theirs, truncation)


def check_count(count: int) -> None:
    if (isinstance(count, bool) or not isinstance(count, (int, np.integer))
            or not 1 <= count <= MAX_STEPS):
        raise InvalidSpecification(f"count must be an integer in [1, {MAX_STEPS:.0e}], got "
                                   f"{show(count)}", parameter="count")


def step_pld(step: Step, discretisation: float = DEFAULT_DISCRETISATION
             ) -> PrivacyLossDistribution | CasePLDs:
    """``step`` (its ``count`` repetitions composed) for dp_accounting, with its cases kept
    apart as :func:`otbound.compose` keeps them: self-composed, it gives compose's ε up to the
    rounding margins.

    The cases are grouped by :func:`case_groups`: a case and its reverse are one dp_accounting
    PLD, the case with more removals its REMOVE (``mu_upper = M(x)``, ``x`` the dataset with
    more records); any other case a symmetric PLD of its own profile. The result is a plain
    dp_accounting PLD when that is one PLD (Poisson subsampling of one element, ``group=1``,
    whose removal and insertion are REMOVE and ADD; an epoch's removal and insertion; a step of
    one case), which composes with anything dp_accounting composes, as before; otherwise a
    :class:`CasePLDs` (a group of ``K`` records: ``⌊K/2⌋ + 1`` PLDs; a derivation's step of
    several cases: one per case), since one dp_accounting PLD would have to merge cases into
    their largest profile, sound but looser (1.284 against 1.082 for a group of 2, docs/api.md).
    Each profile is raised by the relative rounding margin before dp_accounting sees it (an
    epoch's pair gives its own pessimistic PLD); the floating-point error of what the caller
    composes afterwards is dp_accounting's.
    """
    groups = case_groups(step)
    held = CasePLDs(step.relation, groups,
                    tuple(_group_pld(step, group, discretisation) for group in groups))
    composed = held.self_compose(step.count)
    if len(groups) > 1:
        return composed
    (sole,) = composed.plds
    return sole.to_dp_accounting() if isinstance(sole, DensePLD) else sole


def case_groups(step: Step) -> tuple[tuple[int, ...], ...]:
    """The step's cases as they are held in dp_accounting PLDs: ``(remove, add)`` for each case
    and its reverse (:func:`reversed_cases`), ``(case,)`` for every other case, in the order of
    their first case."""
    pairs = reversed_cases(step)
    paired = {case for pair in pairs for case in pair}
    return tuple(sorted(pairs + [(case,) for case in range(len(step.cases))
                                 if case not in paired]))


def reversed_cases(step: Step) -> list[tuple[int, int]]:
    """The ``(remove, add)`` indices of the cases that are each other's reverse, where the
    relation says so: under insertion/removal the shapes ``(K₊, K₋)`` and ``(K₋, K₊)`` named
    in the relation (``K₋ > K₊`` the REMOVE: ``x`` has more records); an epoch's two cases,
    removal first (its coupling's order, ``EpochSetting.patterns``; under ``replace-one`` too,
    bounded by a removal and an insertion). Other relations (a derivation's, truncated Poisson)
    do not say which case reverses which."""
    kind, *rest = step.relation
    if kind == "insert-remove" and len(rest) == 1 and len(rest[0]) == len(step.cases):
        shapes = [tuple(shape) for shape in rest[0]]
        return [(case, shapes.index((removed, inserted)))
                for case, (inserted, removed) in enumerate(shapes)
                if removed > inserted and (removed, inserted) in shapes]
    if kind == "epoch" and len(step.cases) == 2:
        return [(0, 1)]
    return []


def _group_pld(step: Step, group: tuple[int, ...], discretisation: float) -> DensePLD:
    """One PLD of the cases ``group`` (REMOVE first; one case: symmetric)."""
    return DensePLD(*(_case_pmf(step.cases[case], discretisation) for case in group))


def _case_pmf(case: StepCase, discretisation: float) -> DensePmf:
    """The pessimistic pmf of one case: an epoch's own, else the connect-the-dots pmf of its
    profile raised by the relative rounding margin."""
    epoch = sole_epoch_pair(case)
    if epoch is not None:
        return epoch.upper_pmf(discretisation)
    ranges = [pair_loss_range(pair) for _, pairs in case for pair in pairs]
    return profile_pmf(
        lambda epsilons: branches_delta(case, epsilons, TOLERANCE).upper * (1 + ROUNDING_RELATIVE),
        min(r[0] for r in ranges), max(r[1] for r in ranges), discretisation)
