"""dp_accounting's ``DpEvent``s accounted by otbound: a ``PrivacyAccountant`` that reads them.

Training code often describes its mechanism as dp_accounting events (jax_privacy, TF Privacy,
dp_accounting itself). :class:`DpEventAccountant` implements dp_accounting's
``PrivacyAccountant`` interface (``compose``, ``supports``, ``get_epsilon``, ``get_delta``,
``ledger``): each event becomes otbound steps — the dominating pairs of its setting's tight
bound where otbound has them, as :func:`~otbound.accounting.steps.subsampled_step` gives — and
a :class:`~otbound.accounting.running.RunningAccountant` composes them, so asking again after
more events composes only what is new.

Events are read under the accountant's neighbouring relation, dp_accounting's
``NeighboringRelation``, for a group of ``group`` records:

- ``ADD_OR_REMOVE_ONE``: insertion/removal (of up to ``group`` records: every ``(K₊, K₋)``
  with ``K₊ + K₋ = group``, 003 Thm. 3.7);
- ``REPLACE_SPECIAL``: one record replaced by a special one. For additive noise on a sum the
  special record adds nothing, so this is insertion/removal, as dp_accounting also treats it;
  truncated Poisson and randomized response have their own zero-out pairs (002 Thm. 3.3; the
  special bucket's uniform output);
- ``REPLACE_ONE``: substitution of ``group`` records (Poisson: ``K`` insertions and ``K``
  removals; sampling without replacement: ``K``-fold substitution).

The events read, beside ``NoOpDpEvent``, ``NonPrivateDpEvent`` (ε = ∞, δ = 1, as
dp_accounting reports it), ``SelfComposedDpEvent`` and ``ComposedDpEvent``: the Gaussian and
Laplace mechanisms (alone, or ``PoissonSampledDpEvent``, ``SampledWithoutReplacementDpEvent``,
``SampledWithReplacementDpEvent`` of them), ``TruncatedSubsampledGaussianDpEvent``,
``MixtureOfGaussiansDpEvent`` and ``RandomizedResponseDpEvent``; and :class:`OtboundStepEvent`,
any otbound setting and mechanism (an epoch-level sampler, a derivation's setting) as an
event. ``supports`` says which of an event's parts cannot be read, and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence, TypeAlias

import attr
import numpy as np
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation, PrivacyAccountant

from otbound.accounting.running import RunningAccountant
from otbound.accounting.shift_composition import composed_shift
from otbound.accounting.steps import Step, subsampled_step
from otbound.choices import (DEFAULT_DISCRETISATION, Accountant, Conversion, Neighbouring,
                             SchemeKind)
from otbound.errors import InternalError, InvalidSpecification, OtboundError
from otbound.numerics.derived import as_setting
from otbound.numerics.limits import MAX_GROUP, NOISE_MULTIPLIER, show
from otbound.numerics.mechanisms import Mechanism, gaussian, laplace
from otbound.numerics.families.gaussian import GAUSSIAN
from otbound.numerics.pairs import FinitePair, MixturePair
from otbound.numerics.settings import Subsampling

Details: TypeAlias = PrivacyAccountant.CompositionErrorDetails


@attr.s(frozen=True, slots=True, auto_attribs=True)
class OtboundStepEvent(dp_event.DpEvent):
    """One step of an otbound ``setting`` with ``mechanism`` (one epoch, for an epoch-level
    setting), as a ``DpEvent``: what dp_accounting has no event for (random allocation,
    balls-in-bins, a derivation's setting) composed beside the events it has. Its steps are
    under the setting's own relation; only :class:`DpEventAccountant` reads it."""

    setting: object
    mechanism: Mechanism


@dataclass(frozen=True)
class _Use:
    """``count`` repetitions of the step that ``build`` makes (once per ``key``), under
    ``relation``."""

    key: tuple
    build: Callable[[], Step]
    count: int
    relation: tuple


class _Refused(Exception):
    """An event (part) that cannot be read, with why."""

    def __init__(self, event: dp_event.DpEvent, why: str) -> None:
        super().__init__(why)
        self.event = event


class DpEventAccountant(PrivacyAccountant):
    """A dp_accounting ``PrivacyAccountant`` whose numbers are otbound's.

    ``neighboring_relation`` and ``group`` choose the relation events are read under (see the
    module's docstring); ``accountant``, ``conversion`` and ``discretisation`` are
    :class:`~otbound.accounting.running.RunningAccountant`'s. ``get_epsilon`` and ``get_delta``
    are upper bounds (otbound's rounding margins included). ``running`` is the otbound
    accountant behind it: its ``history``, ``guarantee`` and ``to_json`` say what was composed.
    """

    def __init__(self, neighboring_relation: NeighboringRelation
                 = NeighboringRelation.ADD_OR_REMOVE_ONE, *, group: int = 1,
                 accountant: Accountant | str = Accountant.BEST,
                 conversion: Conversion | str = Conversion.OPTIMAL,
                 discretisation: float = DEFAULT_DISCRETISATION) -> None:
        if not isinstance(neighboring_relation, NeighboringRelation):
            raise InvalidSpecification(
                "neighboring_relation must be a dp_accounting NeighboringRelation, got "
                f"{neighboring_relation!r}", parameter="neighboring_relation")
        if isinstance(group, bool) or not isinstance(group, int) or not 1 <= group <= MAX_GROUP:
            raise InvalidSpecification(f"group must be an integer in [1, {MAX_GROUP}], got "
                                       f"{show(group)}", parameter="group")
        super().__init__(neighboring_relation)
        self.group = group
        self.running = RunningAccountant(accountant, conversion=conversion,
                                         discretisation=discretisation)
        self._steps: dict[tuple, Step] = {}
        self._non_private = False

    def _maybe_compose(self, event: dp_event.DpEvent, count: int,
                       do_compose: bool) -> Details | None:
        try:
            uses = self._uses(event, count)
            self._check_relations(event, [use for use in uses if use is not None])
        except _Refused as refused:
            return Details(invalid_event=refused.event, error_message=str(refused))
        if do_compose:
            for use in uses:
                if use is None:
                    self._non_private = True
                    continue
                if use.count == 0:      # a part composed zero times
                    continue
                if use.key not in self._steps:
                    self._steps[use.key] = use.build()
                self.running.record(self._steps[use.key], use.count)
        return None

    def get_epsilon(self, target_delta: float) -> float:
        """ε at ``target_delta`` of what was composed (an upper bound; ∞ after a non-private
        event, 0 before any event)."""
        if self._non_private:
            return math.inf
        return self.running.epsilon(target_delta) if self.running.history else 0.0

    def get_delta(self, target_epsilon: float) -> float:
        """δ at ``target_epsilon`` of what was composed (an upper bound; 1 after a
        non-private event, 0 before any event)."""
        if self._non_private:
            return 1.0
        return self.running.delta(target_epsilon) if self.running.history else 0.0

    def _check_relations(self, event: dp_event.DpEvent, uses: list[_Use]) -> None:
        """Refuse steps under another relation than those composed (a pair of datasets must
        mean the same in every step)."""
        recorded = self.running.history
        relations = {use.relation for use in uses}
        relations |= {recorded[0].step.relation} if recorded else set()
        if len(relations) > 1:
            raise _Refused(event, "its steps are under other neighbouring relations than "
                                  f"each other or the steps composed ({sorted(relations)}): an "
                                  "OtboundStepEvent composes with the others only where its "
                                  "setting's relation is the accountant's")

    # --- reading events -------------------------------------------------------------------

    def _uses(self, event: dp_event.DpEvent, count: int) -> list[_Use | None]:
        """The steps ``count`` repetitions of ``event`` are (``None``: a non-private part)."""
        if isinstance(event, dp_event.NoOpDpEvent):
            return []
        if isinstance(event, dp_event.NonPrivateDpEvent):
            return [None]
        if isinstance(event, dp_event.SelfComposedDpEvent):
            return self._uses(event.event, count * _repetitions(event))
        if isinstance(event, dp_event.ComposedDpEvent):
            return [use for part in event.events for use in self._uses(part, count)]
        if isinstance(event, dp_event.GaussianDpEvent):
            return self._gaussian_uses(event, count)
        reader = _READERS.get(type(event))
        if reader is None:
            raise _Refused(event, f"{type(event).__name__} has no otbound dominating pair "
                                  f"(otbound reads {_READ_NAMES})")
        try:
            return [replace(use, count=use.count * count) if use is not None else None
                    for use in reader(self, event)]
        except OtboundError as error:
            raise _Refused(event, str(error)) from None

    @property
    def _insert_remove(self) -> bool:
        return self.neighboring_relation is not NeighboringRelation.REPLACE_ONE

    def _relation_key(self) -> tuple:
        """The relation every read step is put under, so that steps of different settings
        with the same meaning of their cases compose."""
        if self._insert_remove:
            return Subsampling(SchemeKind.POISSON, rate=1.0, group=self.group).relation_key()
        return ("substitution", self.group)

    def _poisson(self, rate: float) -> Subsampling:
        if self._insert_remove:
            return Subsampling(SchemeKind.POISSON, rate=rate, group=self.group)
        return Subsampling(SchemeKind.POISSON, rate=rate, insertions=self.group,
                           removals=self.group)

    def _setting_use(self, event, setting, mechanism: Mechanism | None,
                     names: tuple[str, ...] | None = None,
                     shifts: bool = False) -> list[_Use | None]:
        """One step of ``setting`` (a non-private part where ``mechanism`` is ``None``), read
        from ``event`` and put under the accountant's relation; ``names`` are its cases' names
        in the order that relation's cases take; ``shifts``: each of its cases must be one shift
        of a rotation-invariant noise (checked, :func:`.shift_composition.composed_shift`)."""
        if mechanism is None:
            return [None]
        key = self._relation_key()

        def build() -> Step:
            step = subsampled_step(as_setting(setting), mechanism, 1)
            if names is not None:
                _check_case_names(as_setting(setting), names)
            if shifts and composed_shift([step]) is None:
                raise InternalError(f"the steps of {setting.summary()} are not one shifted "
                                    "Gaussian per case: repeated steps cannot be one")
            return replace(step, relation=key)

        return [_Use(("event", event), build, 1, key)]

    def _gaussian_uses(self, event: dp_event.GaussianDpEvent, count: int) -> list[_Use | None]:
        """``count`` Gaussian mechanisms on the whole dataset, as one of noise ``σ/√count``:
        their dominating pairs are Gaussians shifted by the group's distance, and ``count`` of
        them compose to exactly that pair (as dp_accounting composes them), without the
        discretisation error of composing PLDs. The noise is rounded down (less noise: a
        larger bound); below otbound's smallest noise multiplier the repetitions are
        composed."""
        try:
            mechanism = _noise(event)
        except OtboundError as error:
            raise _Refused(event, str(error)) from None
        if mechanism is None or count == 0:
            return [None] if mechanism is None and count else []
        sigma = math.nextafter(event.noise_multiplier / math.sqrt(count), 0.0)
        if count == 1 or sigma < NOISE_MULTIPLIER[0]:
            return [replace(use, count=count) if use is not None else None for use in
                    self._setting_use(event, self._poisson(1.0), mechanism)]
        return self._setting_use((event, count), self._poisson(1.0), gaussian(sigma),
                                 shifts=True)

    def _need_single(self, event: dp_event.DpEvent, what: str) -> None:
        if self.group != 1:
            raise _Refused(event, f"{what} is read for one record only (group = 1), got "
                                  f"group = {self.group}")


def _repetitions(event: dp_event.SelfComposedDpEvent) -> int:
    count = event.count
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise _Refused(event, f"count must be an integer >= 0, got {show(count)}")
    return count


def _check_case_names(setting, names: tuple[str, ...]) -> None:
    found = tuple(case.name for case in setting.derived.cases)
    if found != names:
        raise InvalidSpecification(f"the cases of {setting.summary()} are {found}, expected "
                                   f"{names}: they cannot be put under the accountant's relation")


def _noise(event: dp_event.DpEvent) -> Mechanism | None:
    """The Gaussian or Laplace mechanism of ``event`` (``None``: noise 0, not private)."""
    make: Callable[[float], Mechanism]
    if isinstance(event, dp_event.GaussianDpEvent):
        make = gaussian
    elif isinstance(event, dp_event.LaplaceDpEvent):
        make = laplace
    else:
        raise _Refused(event, "a sampled event must sample a GaussianDpEvent or a "
                              f"LaplaceDpEvent, got {type(event).__name__}")
    multiplier = event.noise_multiplier
    if not (isinstance(multiplier, (int, float)) and math.isfinite(multiplier)
            and multiplier >= 0):
        raise _Refused(event, f"noise_multiplier must be a finite number >= 0, got "
                              f"{show(multiplier)}")
    return None if multiplier == 0 else make(float(multiplier))


def _read_laplace(accountant: DpEventAccountant, event) -> list[_Use | None]:
    """The mechanism on the whole dataset: Poisson sampling at rate 1."""
    return accountant._setting_use(event, accountant._poisson(1.0), _noise(event))


def _read_poisson(accountant: DpEventAccountant, event) -> list[_Use | None]:
    mechanism = _noise(event.event)
    if event.sampling_probability == 0:
        return []
    return accountant._setting_use(event, accountant._poisson(event.sampling_probability),
                                   mechanism)


def _read_without_replacement(accountant: DpEventAccountant, event) -> list[_Use | None]:
    mechanism = _noise(event.event)
    if accountant._insert_remove:
        raise _Refused(event, "sampling without replacement is read under substitution "
                              "(NeighboringRelation.REPLACE_ONE), as dp_accounting's RDP "
                              "accountant reads it")
    if event.sample_size == 0:
        return []
    setting = Subsampling(SchemeKind.WOR, batch_size=event.sample_size,
                          dataset_size=event.source_dataset_size,
                          substitutions=accountant.group)
    return accountant._setting_use(event, setting, mechanism)


def _read_with_replacement(accountant: DpEventAccountant, event) -> list[_Use | None]:
    from otbound.engine.bundled import load_derivation
    from otbound.numerics.derived import derived_setting

    mechanism = _noise(event.event)
    accountant._need_single(event, "sampling with replacement")
    if event.sample_size == 0:
        return []
    name, names = (("wr-insertion-removal", ("removal", "insertion"))
                   if accountant._insert_remove else ("wr-substitution", None))
    derivation = load_derivation(name)
    largest = max(parameter.maximum for parameter in derivation.parameters)
    if not 1 <= event.sample_size <= largest:
        raise _Refused(event, f"sampling with replacement is derived for sample_size in [1, "
                              f"{largest}] (derivation {name}), got {show(event.sample_size)}")
    setting = derived_setting(derivation, {"q": event.sample_size,
                                           "N": event.source_dataset_size})
    return accountant._setting_use(event, setting, mechanism, names)


_TRUNCATED = {NeighboringRelation.ADD_OR_REMOVE_ONE: (Neighbouring.ADD_REMOVE,
                                                      ("removal", "insertion")),
              NeighboringRelation.REPLACE_SPECIAL: (Neighbouring.ZERO_OUT,
                                                    ("zero-out", "zero-in")),
              NeighboringRelation.REPLACE_ONE: (Neighbouring.REPLACE_ONE, None)}
"""Truncated Poisson's relation (seed 002) for each of dp_accounting's, with its cases' names
in the order of the accountant's relation (a zero-out takes the record away: a removal)."""


def _read_truncated(accountant: DpEventAccountant, event) -> list[_Use | None]:
    from otbound.accounting.truncated import TruncatedPoissonSetting

    accountant._need_single(event, "truncated Poisson sampling")
    multiplier = _noise(dp_event.GaussianDpEvent(event.noise_multiplier))
    if 0 in (event.sampling_probability, event.truncated_batch_size, event.dataset_size):
        return []
    neighbouring, names = _TRUNCATED[accountant.neighboring_relation]
    setting = TruncatedPoissonSetting(event.sampling_probability, event.truncated_batch_size,
                                      event.dataset_size, neighbouring)
    return accountant._setting_use(event, setting, multiplier, names)


def _read_mixture(accountant: DpEventAccountant, event) -> list[_Use | None]:
    """``N(0, σ²)`` against ``Σ p_i N(c_i, σ²)``: the mixture is the dataset with the record
    (the removal case); the insertion is the pair swapped, mirrored at zero (same divergences)
    so that the likelihood ratio increases, as otbound's closed forms take it."""
    if not accountant._insert_remove:
        raise _Refused(event, "a mixture of Gaussians is read under insertion/removal (or "
                              "REPLACE_SPECIAL), as dp_accounting reads it")
    accountant._need_single(event, "a mixture of Gaussians")
    sensitivities = np.asarray(event.sensitivities, dtype=float)
    probabilities = np.asarray(event.sampling_probs, dtype=float)
    sigma = event.standard_deviation
    if (sensitivities.ndim != 1 or sensitivities.shape != probabilities.shape
            or sensitivities.size == 0):
        raise InvalidSpecification("sensitivities and sampling_probs must be two lists of one "
                                   f"length >= 1, got {list(sensitivities)} and "
                                   f"{list(probabilities)}", parameter="sensitivities")
    if not (np.all(np.isfinite(sensitivities)) and np.all(sensitivities >= 0)):
        raise InvalidSpecification(f"sensitivities must be finite and >= 0, got "
                                   f"{list(sensitivities)}", parameter="sensitivities")
    if not (np.all(probabilities >= 0) and abs(probabilities.sum() - 1) < 1e-12):
        raise InvalidSpecification(f"sampling_probs must be probabilities summing to 1, got "
                                   f"{list(probabilities)}", parameter="sampling_probs")
    if not (isinstance(sigma, (int, float)) and math.isfinite(sigma) and sigma >= 0):
        raise InvalidSpecification(f"standard_deviation must be a finite number >= 0, got "
                                   f"{show(sigma)}", parameter="standard_deviation")
    kept = probabilities > 0
    if np.all(sensitivities[kept] == 0):
        return []
    if sigma == 0:
        return [None]
    with np.errstate(divide="ignore"):
        log_weights = np.log(probabilities[kept])
    removal = MixturePair(GAUSSIAN, float(sigma), sensitivities[kept], log_weights,
                          np.zeros(1), np.zeros(1))
    described = {"event": "MixtureOfGaussiansDpEvent", "standard_deviation": float(sigma),
                 "sensitivities": sensitivities.tolist(),
                 "sampling_probs": probabilities.tolist(),
                 "pairs": "the event's own pair (mixture with the record, N(0, σ²) without)"}
    return [_pairs_use(accountant, ("mixture", float(sigma), tuple(sensitivities[kept]),
                                    tuple(probabilities[kept])),
                       (removal, removal.swapped().reflected()), described)]


def _read_randomized_response(accountant: DpEventAccountant, event) -> list[_Use | None]:
    """k-ary randomized response (keep the bucket with probability ``1 − p``, else a uniform
    one): the two outputs that differ, against each other (``REPLACE_ONE``) or against the
    special bucket's uniform output (``REPLACE_SPECIAL``), as dp_accounting defines them."""
    if accountant.neighboring_relation is NeighboringRelation.ADD_OR_REMOVE_ONE:
        raise _Refused(event, "randomized response is read under REPLACE_ONE or "
                              "REPLACE_SPECIAL, as dp_accounting reads it")
    accountant._need_single(event, "randomized response")
    p, k = event.noise_parameter, event.num_buckets
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidSpecification(f"num_buckets must be an integer >= 1, got {show(k)}",
                                   parameter="num_buckets")
    if not (isinstance(p, (int, float)) and 0 <= p <= 1):
        raise InvalidSpecification(f"noise_parameter must be in [0, 1], got {show(p)}",
                                   parameter="noise_parameter")
    if k == 1 or p == 1:
        return []
    if p == 0:
        return [None]
    keep, other = 1 - p + p / k, p / k
    if accountant.neighboring_relation is NeighboringRelation.REPLACE_ONE:
        rest = [1 - keep - other] if k > 2 else []    # the buckets neither dataset has
        pairs: tuple[FinitePair, ...] = (FinitePair(np.array([keep, other, *rest]),
                                                    np.array([other, keep, *rest])),)
    else:
        removal = FinitePair(np.array([keep, 1 - keep]), np.array([1 / k, 1 - 1 / k]))
        pairs = (removal, FinitePair(removal.q, removal.p))
    described = {"event": "RandomizedResponseDpEvent", "noise_parameter": float(p),
                 "num_buckets": k, "pairs": "the event's own outputs"}
    return [_pairs_use(accountant, ("randomized-response", float(p), k), pairs, described)]


def _pairs_use(accountant: DpEventAccountant, key: tuple, pairs: tuple, described: dict) -> _Use:
    """A step whose cases are ``pairs`` (one each, in the order of the accountant's relation),
    tight: they are the event's own distributions."""
    key = (*key, accountant.neighboring_relation)
    cases = tuple(((0.0, [pair]),) for pair in pairs)
    relation = accountant._relation_key()
    return _Use(key, lambda: Step(cases, 1, relation, described, True), 1, relation)


def _read_otbound(accountant: DpEventAccountant, event: OtboundStepEvent) -> list[_Use]:
    """Any otbound setting's step, under its own relation."""
    setting = as_setting(event.setting)
    return [_Use(("otbound", setting, event.mechanism),
                 lambda: subsampled_step(setting, event.mechanism, 1), 1,
                 setting.relation_key())]


_READERS: dict[type, Callable[[DpEventAccountant, Any], Sequence[_Use | None]]] = {
    dp_event.LaplaceDpEvent: _read_laplace,
    dp_event.PoissonSampledDpEvent: _read_poisson,
    dp_event.SampledWithoutReplacementDpEvent: _read_without_replacement,
    dp_event.SampledWithReplacementDpEvent: _read_with_replacement,
    dp_event.TruncatedSubsampledGaussianDpEvent: _read_truncated,
    dp_event.MixtureOfGaussiansDpEvent: _read_mixture,
    dp_event.RandomizedResponseDpEvent: _read_randomized_response,
    OtboundStepEvent: _read_otbound,
}
_READ_NAMES = ", ".join(sorted([kind.__name__ for kind in _READERS] + ["GaussianDpEvent"]))
