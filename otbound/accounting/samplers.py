"""What the training code runs, mapped to the setting otbound accounts (issue 44 item 4).

A description is a frozen dataclass of a loader or batch-selection strategy as the code runs
it — PyTorch's ``DataLoader``, Opacus's Poisson loader, jax_privacy's batch-selection strategies
(``jax_privacy.batch_selection``, described here by their fields; jax_privacy is not imported)
— together with how long it runs. :meth:`plan` answers with a :class:`SamplerPlan`: the setting
whose bound holds for that code and the count of :func:`~otbound.accounting.guarantees.account`
(steps, or epochs for an epoch-level setting), or raises
:class:`~otbound.errors.UnsupportedOperation` saying why no sound bound is derived and what to
use instead. A description's own parameters are checked where it is made, by their names.

Asking for the account of another sampler than the one the code runs (``assume``, for a
``DataLoader``) gives that account with a :class:`SamplerMismatchWarning`: the Poisson ε of
a loader that shuffles is not a bound for it (Chua et al. 2024; Opacus issues #80, #128).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from enum import Enum
from typing import Protocol

from otbound.accounting.guarantees import account
from otbound.accounting.truncated import TruncatedPoissonSetting
from otbound.choices import Neighbouring, SchemeKind
from otbound.errors import InvalidSpecification, UnsupportedOperation, as_choice, required
from otbound.numerics.epoch_settings import BallsInBins, RandomAllocation, ShuffledBatches
from otbound.numerics.limits import show
from otbound.numerics.settings import Subsampling


class Sampler(Enum):
    """How a loader draws its batches, as an accountant is asked to assume it."""

    POISSON = "poisson"
    """Each record in each batch independently with one probability (Opacus's
    ``DPDataLoader``, ``poisson_sampling=True``)."""
    BALLS_IN_BINS = "balls-in-bins"
    """Each record in one uniformly random step of each epoch of ``⌈N/b⌉`` steps."""
    SHUFFLED = "shuffled"
    """A random permutation cut into ``⌈N/b⌉`` batches each epoch (``DataLoader(shuffle=True)``);
    bounded without amplification."""


class SamplerMismatchWarning(UserWarning):
    """An account was asked for another sampler than the one the code runs: its ε is not a
    bound for that code."""


@dataclass(frozen=True)
class SamplerPlan:
    """What otbound accounts for a described run: ``setting`` over ``steps`` (what
    :func:`account` counts: steps, or epochs for an epoch-level setting), and ``why`` it bounds
    the code."""

    setting: object
    steps: int
    why: str

    def account(self, mechanism, **options):
        """:func:`account` of the plan's setting over its steps."""
        return account(self.setting, mechanism, self.steps, **options)


class SamplerDescription(Protocol):
    """One of this module's descriptions of a sampler: what it accounts."""

    def plan(self) -> SamplerPlan:
        """The setting and the number of steps otbound accounts for the described run."""


def _count(name: str, value, smallest: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < smallest:
        raise InvalidSpecification(f"{name} must be an integer >= {smallest}, got "
                                   f"{show(value)}", parameter=name)
    return value


def _probability(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidSpecification(f"{name} must be a number in [0, 1], got {show(value)}",
                                   parameter=name)
    return float(value)


def _flag(name: str, value) -> None:
    if not isinstance(value, bool):
        raise InvalidSpecification(f"{name} must be True or False, got {value!r}",
                                   parameter=name)


def _relation(neighbouring) -> Neighbouring:
    return as_choice(Neighbouring, neighbouring, "neighbouring")


def _poisson(rate: float, neighbouring: Neighbouring, group: int = 1) -> Subsampling:
    """Poisson sampling under add/remove (``group`` records) or the replacement of one record
    (one removal and one insertion, as for dp_accounting's ``REPLACE_ONE``)."""
    if neighbouring is Neighbouring.REPLACE_ONE and group == 1:
        return Subsampling(SchemeKind.POISSON, rate=rate, insertions=1, removals=1)
    if neighbouring is not Neighbouring.ADD_REMOVE:
        raise UnsupportedOperation(
            f"Poisson sampling is accounted under add-remove (any group) or replace-one (one "
            f"record), got neighbouring={neighbouring.value!r} with group={group}; for a sum "
            "query, zeroing out a record is its removal: use neighbouring='add-remove'")
    return Subsampling(SchemeKind.POISSON, rate=rate, group=group)


@dataclass(frozen=True)
class TorchLoader:
    """PyTorch's ``DataLoader(dataset, batch_size, shuffle, drop_last)`` over ``dataset_size``
    records for ``epochs`` epochs (also Opacus's ``make_private(poisson_sampling=False)``, which
    keeps the loader). Each record is in at most one batch per epoch, so an epoch is at most
    the mechanism once (:func:`ShuffledBatches`' upper bound, substitution of one record): a
    permutation, fixed (``shuffle=False``) or drawn anew, cut into batches; ``drop_last``
    leaves some records out, a post-processing that the bound covers."""

    batch_size: int
    dataset_size: int
    epochs: int
    shuffle: bool = True
    drop_last: bool = False

    def __post_init__(self) -> None:
        _count("batch_size", self.batch_size)
        _count("dataset_size", self.dataset_size)
        _count("epochs", self.epochs)
        _flag("shuffle", self.shuffle)
        _flag("drop_last", self.drop_last)
        if self.batch_size > self.dataset_size:
            raise InvalidSpecification(f"batch_size must be at most dataset_size "
                                       f"({self.dataset_size}), got {self.batch_size}",
                                       parameter="batch_size")

    @property
    def steps_per_epoch(self) -> int:
        """``len(loader)``: ``⌈N/b⌉`` batches, ``⌊N/b⌋`` with ``drop_last``."""
        whole, rest = divmod(self.dataset_size, self.batch_size)
        return whole + (1 if rest and not self.drop_last else 0)

    def plan(self, assume: Sampler | str | None = None) -> SamplerPlan:
        """The shuffled-batches upper bound over the epochs; with ``assume``, the account of
        that sampler instead, with a :class:`SamplerMismatchWarning` unless it is
        ``"shuffled"``."""
        assumed = Sampler.SHUFFLED if assume is None else as_choice(Sampler, assume, "assume")
        if assumed is Sampler.SHUFFLED:
            return self._shuffled()
        warnings.warn(
            f"the loader {'shuffles' if self.shuffle else 'keeps a fixed order'}: every record "
            f"is in at most one batch of each epoch, so the {assumed.value} account's ε is "
            "not a bound for it (Chua et al. 2024: code that shuffles can be far less private "
            "than Poisson accounting claims). Sound options: TorchLoader.plan() (the mechanism "
            "once per epoch), or a loader that samples as assumed (for Poisson, Opacus's "
            "poisson_sampling=True)", SamplerMismatchWarning, stacklevel=2)
        if assumed is Sampler.POISSON:
            return SamplerPlan(_poisson(1 / self.steps_per_epoch, Neighbouring.ADD_REMOVE),
                               self.epochs * self.steps_per_epoch,
                               "assumed Poisson sampling at rate 1/len(loader), as Opacus "
                               "accounts it; not a bound for this loader")
        return SamplerPlan(BallsInBins(self.batch_size, self.dataset_size), self.epochs,
                           "assumed balls-in-bins; not a bound for this loader")

    def _shuffled(self) -> SamplerPlan:
        kept = self.steps_per_epoch * self.batch_size
        dropped = max(0, self.dataset_size - kept)
        setting = ShuffledBatches(self.batch_size, min(kept, self.dataset_size))
        origin = {"scheme": "shuffle" if self.shuffle else "fixed order",
                  "batch_size": self.batch_size, "dataset_size": self.dataset_size}
        if dropped:
            origin |= {"drop_last": True, "dropped_records": dropped}
        why = ("each record is in at most one batch per epoch: the mechanism once per epoch "
               "(no amplification)" + (", exact for a fixed order" if not self.shuffle else "")
               + (f"; {dropped} records left out of each epoch (drop_last), which the bound "
                  "covers, but not Chua et al.'s lower bound" if dropped else ""))
        return SamplerPlan(replace(setting, origin=origin), self.epochs, why)


@dataclass(frozen=True)
class OpacusPoisson:
    """Opacus's ``DPDataLoader`` (``poisson_sampling=True``, its default): each record in each
    of ``steps`` batches independently with probability ``sample_rate``; ``group``: records
    per user (user-level DP)."""

    sample_rate: float
    steps: int
    group: int = 1

    def __post_init__(self) -> None:
        _probability("sample_rate", self.sample_rate)
        _count("steps", self.steps)
        _count("group", self.group)

    def plan(self) -> SamplerPlan:
        """Poisson sampling at ``sample_rate`` over the steps."""
        return SamplerPlan(_poisson(self.sample_rate, Neighbouring.ADD_REMOVE, self.group),
                           self.steps, "Poisson sampling, as the loader draws its batches")


@dataclass(frozen=True)
class JaxCyclicPoissonSampling:
    """jax_privacy's ``CyclicPoissonSampling(sampling_prob, iterations, truncated_batch_size,
    cycle_length, partition_type)`` over ``dataset_size`` records: the records split into
    ``cycle_length`` groups (``"equal-split"``: a permutation cut into groups of
    ``⌊N/cycle_length⌋``; ``"independent"``: each record's group drawn independently), and
    step ``i`` Poisson-samples group ``i mod cycle_length``, truncated to
    ``truncated_batch_size`` records if given. ``dataset_size`` is needed for truncation."""

    sampling_prob: float
    iterations: int
    truncated_batch_size: int | None = None
    cycle_length: int = 1
    partition_type: str = "equal-split"
    dataset_size: int | None = None
    neighbouring: Neighbouring | str = Neighbouring.ADD_REMOVE

    def __post_init__(self) -> None:
        _probability("sampling_prob", self.sampling_prob)
        _count("iterations", self.iterations)
        _count("cycle_length", self.cycle_length)
        for name in ("truncated_batch_size", "dataset_size"):
            if getattr(self, name) is not None:
                _count(name, getattr(self, name))
        if self.partition_type not in ("equal-split", "independent"):
            raise InvalidSpecification(f"partition_type must be 'equal-split' or "
                                       f"'independent', got {self.partition_type!r}",
                                       parameter="partition_type")
        object.__setattr__(self, "neighbouring", _relation(self.neighbouring))

    def plan(self) -> SamplerPlan:
        """Poisson sampling (truncated if so) over the ``⌈iterations/cycle_length⌉`` steps in
        which a record is eligible; the group's randomness is not used (sound, not tight for
        ``cycle_length > 1``)."""
        cycled = self.cycle_length > 1
        if cycled and self.partition_type == "equal-split" and \
                self.neighbouring is Neighbouring.ADD_REMOVE:
            raise UnsupportedOperation(
                "partition_type='equal-split' with cycle_length > 1 is not accounted under "
                "add-remove: adding a record moves others between the groups (jax_privacy "
                "allows it only under zero-out and replace-one); give neighbouring="
                "'replace-one', or partition_type='independent'")
        steps = -(-self.iterations // self.cycle_length)
        why = ("Poisson sampling" + (" with truncation" if self.truncated_batch_size else "")
               + (f", each record eligible in one step of every {self.cycle_length} "
                  f"(at most {steps} of the {self.iterations}), without amplification by the "
                  "choice of its group" if cycled else ""))
        if self.truncated_batch_size is None:
            return SamplerPlan(_poisson(self.sampling_prob, _relation(self.neighbouring)), steps,
                               why)
        return SamplerPlan(self._truncated(), steps, why)

    def _truncated(self) -> TruncatedPoissonSetting:
        if self.dataset_size is None:
            raise InvalidSpecification("truncated Poisson sampling is bounded at its dataset "
                                       "size: give dataset_size", parameter="dataset_size")
        if self.cycle_length > 1 and self.partition_type == "independent":
            raise UnsupportedOperation(
                "truncation with partition_type='independent' truncates groups of random size, "
                "which the truncated Poisson bound (one dataset size) does not cover; use "
                "partition_type='equal-split' (groups of floor(N/cycle_length))")
        return TruncatedPoissonSetting(self.sampling_prob,
                                       required(self.truncated_batch_size, "the batch size"),
                                       self.dataset_size // self.cycle_length,
                                       _relation(self.neighbouring))


@dataclass(frozen=True)
class JaxBallsInBinsSampling:
    """jax_privacy's ``BallsInBinsSampling(iterations, cycle_length)``: each record in one
    uniformly random bin of ``cycle_length``, drawn once, and in every step ``i`` with
    ``i mod cycle_length`` its bin."""

    iterations: int
    cycle_length: int

    def __post_init__(self) -> None:
        _count("iterations", self.iterations)
        _count("cycle_length", self.cycle_length)

    def plan(self) -> SamplerPlan:
        """One balls-in-bins epoch of ``cycle_length`` steps; refused over several cycles."""
        if self.iterations > self.cycle_length:
            raise UnsupportedOperation(
                f"iterations={self.iterations} > cycle_length={self.cycle_length}: jax_privacy's "
                "balls-in-bins keeps each record's bin for every cycle, whereas otbound's "
                "BallsInBins draws it anew each epoch, so its epochs do not compose to this. "
                "Sound options: a new bin each epoch (otbound.BallsInBins), or, under Gaussian "
                "noise σ, one epoch of RandomAllocation(cycle_length, 1) at σ/sqrt(E), "
                "E = ceil(iterations/cycle_length) (the E releases of a record's bin are one "
                "Gaussian release of σ/sqrt(E))")
        return SamplerPlan(RandomAllocation(self.cycle_length, 1), 1,
                           "balls-in-bins: each record in one uniformly random step of the "
                           f"{self.cycle_length} (one epoch; fewer steps are a post-processing)")


@dataclass(frozen=True)
class JaxRandomAllocationSampling:
    """jax_privacy's ``RandomAllocationSampling(total_participations, iterations)``: each record
    in ``total_participations`` of the ``iterations`` steps, chosen uniformly and
    independently."""

    total_participations: int
    iterations: int

    def __post_init__(self) -> None:
        _count("total_participations", self.total_participations)
        _count("iterations", self.iterations)
        if self.total_participations > self.iterations:
            raise InvalidSpecification(
                f"total_participations must be at most iterations ({self.iterations}), got "
                f"{self.total_participations}", parameter="total_participations")

    def plan(self) -> SamplerPlan:
        """One epoch of random allocation, ``k`` of ``t`` steps."""
        return SamplerPlan(RandomAllocation(self.iterations, self.total_participations), 1,
                           "random allocation over all the iterations: one epoch")


@dataclass(frozen=True)
class JaxFixedBatchSampling:
    """jax_privacy's ``FixedBatchSampling(batch_size, iterations, replace)`` over
    ``dataset_size`` records: every batch ``batch_size`` records drawn uniformly, without
    (or with) replacement within the batch, independently across iterations."""

    batch_size: int
    iterations: int
    dataset_size: int
    replace: bool = False

    def __post_init__(self) -> None:
        _count("batch_size", self.batch_size)
        _count("iterations", self.iterations)
        _count("dataset_size", self.dataset_size)
        _flag("replace", self.replace)

    def plan(self) -> SamplerPlan:
        """Sampling without replacement under substitution of one record, over the
        iterations; with replacement is refused."""
        if not self.replace:
            return SamplerPlan(Subsampling(SchemeKind.WOR, batch_size=self.batch_size,
                                           dataset_size=self.dataset_size), self.iterations,
                               "sampling without replacement, substitution of one record")
        raise UnsupportedOperation(
            "FixedBatchSampling(replace=True): sampling with replacement within a batch is "
            "derived (wr-substitution) for batch sizes up to 5 and its coupling is checked only "
            "on the instances of its grid, not at every dataset size; use replace=False "
            "(sampling without replacement, accounted at any size)")


@dataclass(frozen=True)
class JaxBMinSepSampling:
    """jax_privacy's ``BMinSepSampling(sampling_prob, iterations, min_sep, warm_start,
    truncated_batch_size)``: Poisson sampling that skips the records sampled in the previous
    ``min_sep − 1`` steps; ``dataset_size`` is needed for truncation."""

    sampling_prob: float
    iterations: int
    min_sep: int
    warm_start: bool = True
    truncated_batch_size: int | None = None
    dataset_size: int | None = None

    def __post_init__(self) -> None:
        _count("min_sep", self.min_sep)
        _flag("warm_start", self.warm_start)
        self._unseparated()     # checks the Poisson parameters

    def _unseparated(self) -> JaxCyclicPoissonSampling:
        """The same Poisson sampling without the separation."""
        return JaxCyclicPoissonSampling(self.sampling_prob, self.iterations,
                                        self.truncated_batch_size,
                                        dataset_size=self.dataset_size)

    def plan(self) -> SamplerPlan:
        """``min_sep = 1`` is Poisson sampling; a larger separation is refused."""
        if self.min_sep > 1:
            raise UnsupportedOperation(
                f"b-min-sep sampling (min_sep={self.min_sep}) has no derived bound in otbound: "
                "whether a record may be sampled depends on its own hidden past participations, "
                "so the steps are not independent Poisson steps, and jax_privacy itself accounts "
                "it only by Monte Carlo. Sound options: JaxCyclicPoissonSampling with "
                "cycle_length=min_sep, or, at sampling_prob=1 with warm_start, its equivalent "
                "JaxBallsInBinsSampling(iterations, cycle_length=min_sep)")
        return self._unseparated().plan()


@dataclass(frozen=True)
class JaxUserSelection:
    """jax_privacy's ``UserSelectionStrategy(base_strategy, examples_per_user_per_batch)``:
    ``base`` (one of this module's descriptions) selects users, and each selected user brings
    ``examples_per_user_per_batch`` of their records, whose gradient is clipped as one
    (``clipped_per_user``, as jax_privacy expects)."""

    base: SamplerDescription
    examples_per_user_per_batch: int = 1
    clipped_per_user: bool = True

    def __post_init__(self) -> None:
        if not callable(getattr(self.base, "plan", None)):
            raise InvalidSpecification(f"base must be a sampler description (JaxCyclicPoisson"
                                       f"Sampling, …), got {self.base!r}", parameter="base")
        _count("examples_per_user_per_batch", self.examples_per_user_per_batch)
        _flag("clipped_per_user", self.clipped_per_user)

    def plan(self) -> SamplerPlan:
        """The base's plan with users as its records (user-level DP)."""
        if not self.clipped_per_user and self.examples_per_user_per_batch > 1:
            raise UnsupportedOperation(
                f"clipped per example, a user's {self.examples_per_user_per_batch} examples "
                "move a step's sum by that many clipping norms: clip each user-batch as one "
                "(jax_privacy's intended use), or account the base plan with the mechanism's "
                f"sensitivity {self.examples_per_user_per_batch}")
        found = self.base.plan()
        return replace(found, why=f"{found.why}; users are the records (user-level DP, each "
                                  "user-batch clipped as one)")
