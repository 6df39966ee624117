"""Epoch-level settings: an epoch derivation at values of its structural parameters, and the
shorthands that build it.

Every epoch-level setting is an :class:`EpochSetting`: the bound of an epoch derivation
(:class:`otbound.engine.epoch_derivation.EpochDerivation`) at its ``T`` (and ``k``), whose worst
case per case the engine states (:meth:`EpochDerivation.patterns`) and
:mod:`otbound.numerics.epoch_solver` turns into pairs. The shorthands are factories of it:

* :func:`RandomAllocation` — ``epoch-random-allocation`` at ``T``, ``k``;
* :func:`BallsInBins` — ``epoch-balls-in-bins`` at ``T = ⌈N/b⌉`` (expected batch size at most
  ``b``);
* :func:`ShuffledBatches` — ``epoch-shuffling`` at ``T = ⌈N/b⌉`` (no amplification above).

Composition counts epochs: the records are reassigned independently in every epoch.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from otbound.choices import Neighbouring
from otbound.engine.relations import BatchRelation
from otbound.errors import InvalidSpecification, Refusal, UnsupportedOperation, as_choice, granted
from otbound.numerics.limits import MAX_EPOCH_GROUP, show

if TYPE_CHECKING:
    from otbound.engine.epoch_derivation import EpochDerivation
    from otbound.numerics.mechanisms import AdditiveNoise


@dataclass(frozen=True)
class EpochSetting:
    """An epoch derivation's bound at ``structural`` values (``(("T", 235), ("k", 1))``) and
    values of its scheme's symbols (``(("r", 0.01),)``); ``origin`` is what a shorthand was
    built from (shown first when it describes itself).

    ``group``: a user holds that many records, each allocated independently (user-level DP);
    ``substitution``: one record replaced by another, bounded through the removal of the one
    and the insertion of the other (the derivation's two cases; any mechanism)."""

    derivation: EpochDerivation
    structural: tuple[tuple[str, int], ...]
    values: tuple[tuple[str, float], ...] = ()
    origin: dict = field(default_factory=dict, compare=False)
    group: int = 1
    substitution: bool = False

    epoch_level = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "structural", tuple((str(k), int(v))
                                                     for k, v in self.structural))
        object.__setattr__(self, "group", _count("group", self.group, MAX_EPOCH_GROUP))
        if (self.group > 1 or self.substitution) and self.derivation.relation is not \
                BatchRelation.INSERTION_REMOVAL:
            raise InvalidSpecification(f"groups and substitution are bounded through the "
                                       f"insertion/removal of records; {self.derivation.name} "
                                       f"is under {self.derivation.relation.value}",
                                       parameter="group")
        if self.group > 1 and self.substitution:
            raise InvalidSpecification("a user's records cannot be replaced as one under an "
                                       "epoch-level scheme: give group=1 with "
                                       "neighbouring='replace-one', or neighbouring='add-remove'",
                                       parameter="group")
        self.patterns()   # the scheme checks its parameters

    @property
    def steps_per_epoch(self) -> int:
        return dict(self.structural)["T"]

    def patterns(self) -> dict:
        """The worst case of every case (removal, insertion, or substitution)."""
        return _patterns(self.derivation, self.structural)

    def solved(self, mechanism) -> tuple[list, int, str, bool]:
        """``(cases, repeats, how, tight)``: every case's branches of pairs, how many times the
        step of each repeats per epoch, how they were found and whether they are the worst
        case itself. A group of ``K`` records under Gaussian noise splits the noise among its
        records (:func:`split_noise`): ``K`` repetitions of one record's epoch."""
        from otbound.numerics.epoch_solver import solve_epoch

        rate = dict(self.values).get("r")
        used = mechanism if self.group == 1 else granted(split_noise(mechanism, self.group))
        found = [solve_epoch(pattern, used, rate) for pattern in self.patterns().values()]
        repeats = {count for _, count, _ in found}
        if len(repeats) != 1:
            raise UnsupportedOperation("the cases of this epoch repeat their steps differently")
        tight = all(p.tight for p in self.patterns().values()) and self.group == 1
        how = found[0][2] if self.group == 1 else (
            f"{found[0][2]}, at the noise split among the group's {self.group} records (σ/√K): "
            f"{self.group} compositions (sum queries with Gaussian noise; sound, not tight)")
        return ([branches for branches, _, _ in found], repeats.pop() * self.group, how, tight)

    def cannot_solve(self, mechanism) -> Refusal | None:
        """Why :meth:`solved` has no worst case for ``mechanism`` (a group whose noise does
        not split among its records, :func:`split_noise`), or ``None``: asked before a route
        takes it."""
        if self.group == 1:
            return None
        split = split_noise(mechanism, self.group)
        return split if isinstance(split, Refusal) else None

    def unit_setting(self) -> tuple["EpochSetting", int] | Refusal:
        """One record's setting, and the group size (post-hoc group privacy); refused for a
        substitution (one record already)."""
        if self.substitution:
            return Refusal("post-hoc group privacy applies to the insertion/removal of records "
                           "(a substitution is one record): use method='tight'")
        return replace(self, group=1), self.group

    def swapped(self) -> "EpochSetting":
        """Itself: its cases already hold both directions."""
        return self

    def relation_key(self) -> tuple:
        """What its steps refer to: epochs compose only with epochs of the same setting."""
        return ("epoch", self.derivation.name, self.structural, self.values, self.group,
                self.substitution)

    def summary(self) -> str:
        values = ", ".join(f"{k} = {v}" for k, v in self.structural + self.values)
        scheme = self.derivation.scheme_description(dict(self.structural))
        relation = (f", groups of {self.group} records" if self.group > 1 else "") + \
            (", substitution of one record" if self.substitution else "")
        return f"{scheme}{relation} (derivation {self.derivation.name}; {values})"

    def describe(self) -> dict:
        # a substitution is bounded as a removal and an insertion: the same unit
        unit = self.derivation.relation.unit()
        return (self.origin | {"derivation": self.derivation.name}
                | {name: value for name, value in self.structural + self.values}
                | ({"group": self.group} if self.group > 1 else {})
                | ({"neighbouring": "replace-one"} if self.substitution else {})
                | {"steps_per_epoch": self.steps_per_epoch, "distance_unit": unit})


@functools.lru_cache(maxsize=64)
def _patterns(derivation, structural: tuple) -> dict:
    return derivation.patterns(dict(structural))


@functools.lru_cache(maxsize=8)
def _bundled(name: str):
    from otbound.engine.bundled import load_derivation

    return load_derivation(name)


def epoch_setting(derivation, structural: dict, values: dict | None = None,
                  origin: dict | None = None, group: int = 1,
                  substitution: bool = False) -> EpochSetting:
    """``derivation`` at ``structural`` values (any ``T``, not only those its checks
    enumerate)."""
    names = [p.name for p in derivation.parameters]
    if set(structural) != set(names):
        raise InvalidSpecification(
            f"derivation {derivation.name!r} needs its structural parameters "
            f"{', '.join(names)}; got {', '.join(structural) or 'none'}", parameter="param")
    return EpochSetting(derivation, tuple((name, _count(name, structural[name]))
                                          for name in names),
                        tuple(sorted((values or {}).items())), origin or {}, group, substitution)


def RandomAllocation(steps_per_epoch: int, selected: int = 1, *, group: int = 1,
                     neighbouring: str = "add-remove") -> EpochSetting:
    """Random allocation: every record in ``selected`` of the ``steps_per_epoch`` steps of each
    epoch, chosen uniformly and independently (dp_accounting's ``RandomAllocationDpEvent(event,
    num_selected=k, num_steps=T)``); ``group``: records per user, ``neighbouring``:
    ``add-remove`` or ``replace-one``."""
    steps = _count("steps_per_epoch", steps_per_epoch)
    chosen = _count("selected", selected)
    if chosen > steps:
        raise InvalidSpecification(f"selected must be at most steps_per_epoch = {steps}, got "
                                   f"{chosen}", parameter="selected")
    return epoch_setting(_bundled("epoch-random-allocation"), {"T": steps, "k": chosen},
                         origin={"scheme": "random-allocation"}, group=group,
                         substitution=_substitution(neighbouring))


def BallsInBins(batch_size: int, dataset_size: int, *, group: int = 1,
                neighbouring: str = "add-remove") -> EpochSetting:
    """Balls-in-bins: every record in one uniformly random step of each epoch of
    ``⌈dataset_size / batch_size⌉`` steps, so that the expected batch size is at most
    ``batch_size``; ``group`` and ``neighbouring`` as for :func:`RandomAllocation`."""
    sizes = _sizes(batch_size, dataset_size)
    return epoch_setting(_bundled("epoch-balls-in-bins"), {"T": _steps(*sizes)},
                         origin={"scheme": "balls-in-bins", "batch_size": sizes[0],
                                 "dataset_size": sizes[1]}, group=group,
                         substitution=_substitution(neighbouring))


def _substitution(neighbouring: str) -> bool:
    """Whether the relation is the replacement of one record (else its insertion/removal)."""
    chosen = as_choice(Neighbouring, neighbouring, "neighbouring")
    if chosen is Neighbouring.ZERO_OUT:
        raise InvalidSpecification("neighbouring='zero-out' is not derived for epoch-level "
                                   "schemes: use add-remove or replace-one",
                                   parameter="neighbouring")
    return chosen is Neighbouring.REPLACE_ONE


def split_noise(mechanism, group: int) -> AdditiveNoise | Refusal:
    """The Gaussian mechanism with its noise split among ``group`` records: a sum query's noise
    ``N(0, σ²)`` is the sum of ``K`` independent ``N(0, σ²/K)``, one per record of the group,
    and the outputs are a function of the ``K`` records' noisy contributions, each one record's
    random allocation at ``σ/√K`` (independent; for adaptive steps by the concurrent
    composition of interactive mechanisms, Vadhan & Zhang 2023). Other noise has no such
    split: the group is bounded post hoc (``method='posthoc'``), and this is the refusal."""
    from otbound.numerics.mechanisms import AdditiveNoise

    split = getattr(getattr(mechanism, "family", None), "split_scale", None)
    scale = split(mechanism.scale, group) if split else None
    if scale is None:
        return Refusal(
            f"a group of {group} records under random allocation is bounded by splitting "
            f"Gaussian noise among its records; the {mechanism.name} mechanism has no such "
            "bound: use method='posthoc' (group privacy after one record's epoch)")
    return AdditiveNoise(scale, mechanism.sensitivity, mechanism.family)


def ShuffledBatches(batch_size: int, dataset_size: int) -> EpochSetting:
    """Shuffling: a uniformly random permutation of the records cut into
    ``⌈dataset_size / batch_size⌉`` batches per epoch (bounded above without amplification)."""
    sizes = _sizes(batch_size, dataset_size)
    return epoch_setting(_bundled("epoch-shuffling"), {"T": _steps(*sizes)},
                         origin={"scheme": "shuffle", "batch_size": sizes[0],
                                 "dataset_size": sizes[1]})


def _sizes(batch_size, dataset_size) -> tuple[int, int]:
    batch, size = _count("batch_size", batch_size), _count("dataset_size", dataset_size)
    if batch > size:
        raise InvalidSpecification(f"batch_size must be at most dataset_size ({size}), got "
                                   f"{batch}", parameter="batch_size")
    return batch, size


def _steps(batch_size: int, dataset_size: int) -> int:
    return -(-dataset_size // batch_size)


def _count(name: str, value, largest: int | None = None) -> int:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(float(value)) or not float(value).is_integer() or value < 1):
        raise InvalidSpecification(f"{name} must be an integer >= 1, got {show(value)}",
                                   parameter=name)
    if largest is not None and value > largest:
        raise InvalidSpecification(f"{name} must be an integer in [1, {largest}], got "
                                   f"{show(value)}", parameter=name)
    return int(value)


def check_epochs(epochs: int) -> None:
    """A number of epochs: an integer ``≥ 1``."""
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise InvalidSpecification(f"epochs must be an integer >= 1, got {epochs!r}",
                                   parameter="epochs")
