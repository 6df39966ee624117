"""An Opacus accountant answered by otbound: ``PrivacyEngine(accountant="otbound")``.

:func:`register` puts an accountant into Opacus's registry
(``opacus.accountants.registry.register_accountant``) under a name; Opacus then makes it by that
name, for ``PrivacyEngine(accountant=name)`` and for the noise search of
``make_private_with_epsilon`` alike. Opacus makes accountants without arguments, so the options
— a user's group of records, the sampler, otbound's accountant — belong to the name: each
:func:`register` call with other options registers them under another name.

Opacus signals every optimiser step as ``step(noise_multiplier=σ, sample_rate=q)`` and keeps its
history as ``(σ, q, steps)`` triples (which its noise search assigns directly); ``get_epsilon``
turns the history into otbound's steps and answers as a
:class:`~otbound.accounting.running.RunningAccountant` stepped with them, so its answer is
:func:`~otbound.accounting.accountant.compose` of those steps.

Importing this module imports Opacus (and so PyTorch); nothing else in otbound imports it.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

from otbound.accounting.pld import check_discretisation
from otbound.accounting.running import RunningAccountant
from otbound.accounting.samplers import Sampler
from otbound.choices import DEFAULT_DISCRETISATION, Accountant, Conversion, SchemeKind
from otbound.errors import InvalidSpecification, UnsupportedOperation, as_choice, required
from otbound.numerics.epoch_settings import BallsInBins, EpochSetting, ShuffledBatches
from otbound.numerics.limits import NOISE_MULTIPLIER, show
from otbound.numerics.mechanisms import Mechanism, gaussian
from otbound.numerics.settings import Subsampling
from otbound.optional import optional_module

_registry = optional_module("opacus.accountants.registry", "the Opacus accountant")
_accountant = optional_module("opacus.accountants.accountant", "the Opacus accountant")

DEFAULT_NAME = "otbound"
"""The name :func:`register` registers under unless told another."""

OTHER_ACCOUNTANTS_OPTIONS = ("alphas", "eps_error", "delta_error")
"""Keyword arguments of Opacus's own accountants' ``get_epsilon`` (RDP's orders, PRV's error
budget): otbound's accountant has no such option, so they are refused, not ignored."""

RATE_TOLERANCE = 1e-9
"""How far ``sample_rate × steps_per_epoch`` may be from 1 under an epoch sampler (Opacus's
``1/len(data_loader)`` in floating point)."""


@dataclass(frozen=True)
class Options:
    """What a registered name accounts for: ``group`` records per user (user-level DP), the
    ``sampler`` (an epoch sampler with its ``batch_size`` and ``dataset_size``) and how
    otbound composes (``accountant``, ``conversion``, ``discretisation``)."""

    group: int = 1
    sampler: Sampler = Sampler.POISSON
    batch_size: int | None = None
    dataset_size: int | None = None
    accountant: Accountant = Accountant.BEST
    conversion: Conversion = Conversion.OPTIMAL
    discretisation: float = DEFAULT_DISCRETISATION
    epoch: EpochSetting | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sampler", as_choice(Sampler, self.sampler, "sampler"))
        object.__setattr__(self, "accountant",
                           as_choice(Accountant, self.accountant, "accountant"))
        object.__setattr__(self, "conversion",
                           as_choice(Conversion, self.conversion, "conversion"))
        check_discretisation(self.discretisation)
        if self.sampler is Sampler.POISSON:
            self._check_poisson()
        else:
            object.__setattr__(self, "epoch", self._epoch_setting())

    def _check_poisson(self) -> None:
        for name in ("batch_size", "dataset_size"):
            if getattr(self, name) is not None:
                raise InvalidSpecification(
                    f"{name} is for the epoch samplers ('balls-in-bins', 'shuffled'); under "
                    "Poisson sampling the rate is Opacus's sample_rate", parameter=name)
        Subsampling(SchemeKind.POISSON, rate=1.0, group=self.group)   # checks the group

    def _epoch_setting(self) -> EpochSetting:
        """The epoch-level setting of an epoch sampler (counted in epochs)."""
        batch_size, dataset_size = self.batch_size, self.dataset_size
        if batch_size is None or dataset_size is None:
            name = "batch_size" if batch_size is None else "dataset_size"
            raise InvalidSpecification(
                f"sampler={self.sampler.value!r} needs batch_size and dataset_size (an "
                f"epoch has ceil(dataset_size/batch_size) steps); {name} is missing",
                parameter=name)
        if self.sampler is Sampler.BALLS_IN_BINS:
            return BallsInBins(batch_size, dataset_size, group=self.group)
        if self.group != 1:
            raise UnsupportedOperation(
                f"group={show(self.group)}: groups of records are not derived for shuffled "
                "batches; use sampler='poisson' or 'balls-in-bins' for user-level accounting")
        return ShuffledBatches(batch_size, dataset_size)

    def running(self) -> RunningAccountant:
        """An empty otbound accountant that composes as these options say."""
        return RunningAccountant(self.accountant, conversion=self.conversion,
                                 discretisation=self.discretisation)

    def check_rate(self, sample_rate: float) -> None:
        """Refuse a step the sampler cannot have taken."""
        if self.epoch is None:
            self.poisson(sample_rate)
            return
        steps = self.epoch.steps_per_epoch
        if not (_is_number(sample_rate) and abs(sample_rate * steps - 1) <= RATE_TOLERANCE):
            raise InvalidSpecification(
                f"sample_rate must be 1/{steps} under sampler={self.sampler.value!r} "
                f"(one batch of the {steps} of an epoch of {self.dataset_size} records in "
                f"batches of {self.batch_size}), got {show(sample_rate)}: a loader of another "
                "length (drop_last=True?) or gradient accumulation is another setting",
                parameter="sample_rate")

    def poisson(self, sample_rate: float) -> Subsampling:
        """One Poisson step's setting."""
        return Subsampling(SchemeKind.POISSON, rate=sample_rate, group=self.group)


Run = tuple[object, Mechanism, int]
"""``count`` steps (epochs, for an epoch-level setting) of a setting with a mechanism."""


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def mechanism_of(noise_multiplier: float) -> Mechanism:
    """The Gaussian mechanism of Opacus's noise multiplier (noise std over the clipping norm);
    one above otbound's range is accounted at its largest value, which is sound: more noise is
    a post-processing of less (add independent noise)."""
    return gaussian(min(float(noise_multiplier), NOISE_MULTIPLIER[1]))


def epoch_runs(history: list[tuple], steps_per_epoch: int) -> list[tuple[float, int]]:
    """Opacus's ``(σ, q, steps)`` history as ``(σ, epochs)``: consecutive steps cut into epochs
    of ``steps_per_epoch``, a last partial epoch counted whole and each epoch at the smallest σ
    of its steps (both sound: fewer steps, or more noise, are post-processings of the epoch's
    releases)."""
    epochs: list[tuple[float, int]] = []
    started, smallest = 0, math.inf        # steps of the epoch under way, its smallest σ
    for sigma, _, count in history:
        if started:
            taken = min(count, steps_per_epoch - started)
            started, smallest, count = started + taken, min(smallest, sigma), count - taken
            if started == steps_per_epoch:
                epochs.append((smallest, 1))
                started, smallest = 0, math.inf
        whole, rest = divmod(count, steps_per_epoch)
        if whole:
            epochs.append((sigma, whole))
        if rest:
            started, smallest = rest, sigma
    if started:
        epochs.append((smallest, 1))
    return merge_runs(epochs)


def merge_runs(runs: list[tuple]) -> list[tuple]:
    """Consecutive runs of the same kind (equal but for their last element, a count) as one."""
    found: list[tuple] = []
    for run in runs:
        if found and found[-1][:-1] == run[:-1]:
            found[-1] = (*run[:-1], found[-1][-1] + run[-1])
        else:
            found.append(tuple(run))
    return found


def _extends(runs: list[Run], fed: list[Run]) -> bool:
    """Whether ``runs`` is ``fed`` with more steps after it (the last run of ``fed`` may have
    grown)."""
    if len(fed) > len(runs) or fed[:-1] != runs[:len(fed) - 1]:
        return False
    if not fed:
        return True
    (setting, mechanism, count), (now_setting, now_mechanism, now) = fed[-1], runs[len(fed) - 1]
    return setting == now_setting and mechanism == now_mechanism and count <= now


# Opacus's IAccountant, imported when this module is (an optional dependency): not a type
# the checker knows
class OtboundAccountant(_accountant.IAccountant):  # type: ignore[name-defined]
    """Opacus's ``IAccountant``, answered by otbound with the :class:`Options` of its registered
    name (:func:`register` makes the subclass; Opacus makes its instances by that name).

    ``history`` is Opacus's list of ``(noise_multiplier, sample_rate, steps)``; ``len()`` is
    the number of steps taken (the interface's meaning; Opacus's own accountants count the
    history's entries)."""

    name: str | None = None
    options: Options | None = None

    def __init__(self) -> None:
        if self.options is None:
            raise UnsupportedOperation("make an otbound accountant with register() (Opacus "
                                       "then makes it by its name)")
        super().__init__()
        self._running = self.options.running()
        self._fed: list[Run] = []

    @property
    def _registered(self) -> Options:
        """The options of its registered name (checked when it is made)."""
        return required(self.options, "the options of a registered accountant")

    @classmethod
    def mechanism(cls) -> str:
        """The registered name (Opacus makes a new accountant of it for its noise search)."""
        return required(cls.name, "the registered name")

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one optimiser step (consecutive equal steps are one entry of the history)."""
        if not (_is_number(noise_multiplier) and noise_multiplier >= 0):
            raise InvalidSpecification(f"noise_multiplier must be a number >= 0, got "
                                       f"{show(noise_multiplier)}", parameter="noise_multiplier")
        self._registered.check_rate(sample_rate)
        last = self.history[-1] if self.history else None
        if last is not None and last[:2] == (noise_multiplier, sample_rate):
            self.history[-1] = (noise_multiplier, sample_rate, last[2] + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        return sum(count for _, _, count in self.history)

    def get_epsilon(self, delta: float, **options) -> float:
        """ε of the steps taken at ``delta`` (an upper bound): ``compose`` of the history's
        steps. No steps: 0. A noise multiplier below otbound's range (σ < 0.1): ``inf``, a
        valid if vacuous bound, which lets Opacus's noise search go on. Keyword arguments that
        Opacus passes on from ``make_private_with_epsilon`` are ignored, except the options of
        its own accountants (:data:`OTHER_ACCOUNTANTS_OPTIONS`), which are refused."""
        refused = sorted(set(options) & set(OTHER_ACCOUNTANTS_OPTIONS))
        if refused:
            raise InvalidSpecification(
                f"{refused[0]} is an option of Opacus's own accountants; otbound's accountant "
                f"is configured by register() (accountant, conversion, discretisation)",
                parameter=refused[0])
        if not self.history:
            return 0.0
        if min(float(sigma) for sigma, _, _ in self.history) < NOISE_MULTIPLIER[0]:
            return math.inf
        return self.running().epsilon(delta)

    def running(self) -> RunningAccountant:
        """The otbound accountant stepped with the history (its ``to_json`` records the run);
        extended with the steps taken since it was last asked, or made anew if the history was
        replaced (Opacus's noise search and ``load_state_dict`` assign it)."""
        runs = self._runs()
        if not _extends(runs, self._fed):
            self._running, self._fed = self._registered.running(), []
        for index, (setting, mechanism, count) in enumerate(runs):
            done = self._fed[index][2] if index < len(self._fed) else 0
            if count > done:
                self._running.step(setting, mechanism, count - done)
        self._fed = runs
        return self._running

    def _runs(self) -> list[Run]:
        """The history as otbound's runs of steps (Poisson) or epochs (an epoch sampler)."""
        options = self._registered
        epoch = options.epoch
        found: list[Run]
        if epoch is None:
            found = [(options.poisson(rate), mechanism_of(sigma), count)
                     for sigma, rate, count in self.history]
        else:
            for _, sample_rate, _ in self.history:
                options.check_rate(sample_rate)
            found = [(epoch, mechanism_of(sigma), epochs)
                     for sigma, epochs in epoch_runs(self.history, epoch.steps_per_epoch)]
        return merge_runs(found)


_REGISTERED: dict[str, type[OtboundAccountant]] = {}


def register(name: str = DEFAULT_NAME, *, group: int = 1, sampler: Sampler | str = "poisson",
             batch_size: int | None = None, dataset_size: int | None = None,
             accountant: Accountant | str = Accountant.BEST,
             conversion: Conversion | str = Conversion.OPTIMAL,
             discretisation: float = DEFAULT_DISCRETISATION,
             replace: bool = False) -> type[OtboundAccountant]:
    """Register otbound's accountant in Opacus under ``name`` (then
    ``PrivacyEngine(accountant=name)``) and return its class.

    ``group``: records per user (user-level DP: every pair of datasets that differ in at most
    ``group`` records); ``sampler``: ``"poisson"`` (Opacus's default loader),
    ``"balls-in-bins"`` or ``"shuffled"`` with the loader's ``batch_size`` and
    ``dataset_size``; ``accountant``, ``conversion``, ``discretisation``: as for
    :class:`~otbound.accounting.running.RunningAccountant`. Registering the same options
    under the same name again returns the class registered; a name taken otherwise is refused
    unless ``replace``."""
    if not isinstance(name, str) or not name:
        raise InvalidSpecification(f"name must be a non-empty string, got {name!r}",
                                   parameter="name")
    options = Options(group, as_choice(Sampler, sampler, "sampler"), batch_size, dataset_size,
                      as_choice(Accountant, accountant, "accountant"),
                      as_choice(Conversion, conversion, "conversion"), discretisation)
    known = _REGISTERED.get(name)
    if known is not None and known.options == options and not replace:
        return known
    made = type(f"OtboundAccountant[{name}]", (OtboundAccountant,),
                {"name": name, "options": options, "__module__": __name__,
                 "__doc__": OtboundAccountant.__doc__})
    try:
        _registry.register_accountant(name, made, force=replace)
    except ValueError:
        raise InvalidSpecification(
            f"name {name!r} is already registered in Opacus (with other options, or by another "
            "accountant): choose another name, or give replace=True", parameter="name") from None
    _REGISTERED[name] = made
    return made
