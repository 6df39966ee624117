"""From the command line's flags to the library's inputs (settings, mechanisms, accounting
options) and back: the library's error messages with its parameters spelt as the flags that set
them."""

from __future__ import annotations

import argparse
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, overload

from otbound.choices import (DEFAULT_DISCRETISATION, Accountant, Conversion, Method, Neighbouring,
                             Posthoc)
from otbound.errors import (AuditFileError, DerivationFileError, InvalidSpecification,
                            OtboundError, UnsupportedOperation)

if TYPE_CHECKING:
    from otbound.numerics.derived import DerivedSetting
    from otbound.numerics.epoch_settings import EpochSetting
    from otbound.numerics.mechanisms import Mechanism
    from otbound.numerics.settings import Subsampling


class UsageError(OtboundError, ValueError):
    """A command-line call that does not make sense."""


USER_ERRORS = (InvalidSpecification, UnsupportedOperation, DerivationFileError, AuditFileError,
               UsageError)
"""The errors that are the user's: a message and exit code 2, no traceback."""


FLAGS = {
    "count": "--steps", "alpha": "--alpha", "alphas": "--alpha", "epsilon": "--epsilon",
    "epsilons": "--epsilon", "delta": "--delta", "rate": "--rate", "group": "--group",
    "insertions": "--insertions", "removals": "--removals", "batch_size": "--batch-size",
    "dataset_size": "--dataset-size", "substitutions": "--substitutions", "scheme": "--scheme",
    "epochs": "--epochs",
    "sigma": "--sigma", "scale": "--scale", "theta": "--theta", "sensitivity": "--sensitivity",
    "method": "--method", "max_batch": "--max-batch", "neighbouring": "--neighbouring",
    "accountant": "--accountant", "conversion": "--conversion", "posthoc": "--posthoc",
    "target_epsilon": "--target-epsilon", "target_delta": "--target-delta",
    "solve_for": "--solve-for", "tolerance": "--tolerance",
    "discretisation": "--discretisation", "seed": "--seed", "samples": "--soundness-cases",
    "max_n": "--max-n", "workers": "--workers",
}
"""The flag of each library parameter that a command sets, for the library's error messages."""
_SETTING = re.compile(r"(?<![\w-])([a-z_]+)=(?:'([^']*)'|([^\s,;:)'\"]+))")
_NAME = re.compile(r"(?<![\w-])[a-z_]+(?![\w=-])")


def flag_message(error: OtboundError) -> str:
    """The library's message, with its parameters spelt as the flags that set them.

    ``name='value'`` (advice such as ``accountant='rdp'``) becomes ``--flag value`` in every
    message; a bare parameter name becomes its flag only in an error about a parameter with a
    flag, since elsewhere the same word may be plain English ("the PLD accountant")."""
    def setting(match: re.Match) -> str:
        flag = FLAGS.get(match[1])
        return f"{flag} {match[2] or match[3]}" if flag else match[0]

    if isinstance(error, (AuditFileError, DerivationFileError)):
        return str(error)   # about the user's file, in its own words
    message = _SETTING.sub(setting, str(error))
    if getattr(error, "parameter", None) in FLAGS:
        message = _NAME.sub(lambda match: FLAGS.get(match[0], match[0]), message)
    return message


def build_mechanism(args: argparse.Namespace) -> Mechanism:
    from otbound.numerics.families import FAMILIES
    from otbound.numerics.mechanisms import AdditiveNoise, RandomizedResponse

    flags = {name: family.parameter for name, family in FAMILIES.items()}
    flags["randomized-response"] = "theta"
    needed = flags[args.mechanism]
    for flag in (*flags.values(), "noise_multiplier"):
        if flag not in (needed, _ALIASES.get(needed)) and getattr(args, flag, None) is not None:
            raise InvalidSpecification(f"--{flag.replace('_', '-')} does not apply to "
                                       f"--mechanism {args.mechanism}")
    value = gaussian_sigma(args) if needed == "sigma" else getattr(args, needed)
    if value is None:
        also = f" (or --{_ALIASES[needed].replace('_', '-')})" if needed in _ALIASES else ""
        raise InvalidSpecification(f"--mechanism {args.mechanism} needs --{needed}{also}")
    if args.mechanism == "randomized-response":
        if args.sensitivity is not None:
            raise InvalidSpecification("--sensitivity does not apply to randomized response")
        return RandomizedResponse(args.theta)
    return AdditiveNoise(value, _sensitivity(args), FAMILIES[args.mechanism])


_ALIASES = {"sigma": "noise_multiplier"}
"""The other flag of a noise parameter: ``--noise-multiplier`` is σ/L (Opacus's and TF
Privacy's name)."""


def _sensitivity(args: argparse.Namespace) -> float:
    return 1.0 if args.sensitivity is None else args.sensitivity


def gaussian_sigma(args: argparse.Namespace) -> float | None:
    """σ from ``--sigma``, or from ``--noise-multiplier z`` as ``z·L`` (``L`` = --sensitivity),
    lowered by the last ulp where needed so that ``σ/L ≤ z``: never more noise than the user
    said there is."""
    from otbound.numerics.limits import NOISE_MULTIPLIER, show

    multiplier = getattr(args, "noise_multiplier", None)
    if multiplier is None:
        return args.sigma
    if args.sigma is not None:
        raise UsageError("give --sigma or --noise-multiplier, not both (--noise-multiplier z "
                         "is --sigma z·L, L = --sensitivity)")
    low, high = NOISE_MULTIPLIER
    if not low <= multiplier <= high:   # NaN too
        raise InvalidSpecification(f"--noise-multiplier (σ/L) must be in [{low:g}, {high:g}], "
                                   f"got {show(multiplier)}")
    sensitivity = _sensitivity(args)
    if not (math.isfinite(sensitivity) and sensitivity > 0):
        raise InvalidSpecification(f"--sensitivity must be a finite number > 0, got "
                                   f"{show(sensitivity)}")
    sigma = multiplier * sensitivity
    while sigma / sensitivity > multiplier:
        sigma = math.nextafter(sigma, 0.0)
    return sigma


def param_values(pairs: list[tuple[str, str]]) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, value in pairs:
        if name in values:
            raise InvalidSpecification(f"--param {name} is given twice")
        values[name] = value
    return values


_SETTING_FLAGS = ("rate", "group", "insertions", "removals", "batch_size", "dataset_size",
                  "substitutions", "max_batch", "neighbouring", "steps_per_epoch", "selected")


def build_derived_setting(args: argparse.Namespace) -> DerivedSetting | EpochSetting:
    """``--derivation NAME --param …``: the derivation's bound at the given parameters."""
    from otbound.engine.bundled import load_derivation
    from otbound.numerics.derived import derived_setting

    given = [f"--{flag.replace('_', '-')}" for flag in _SETTING_FLAGS
             if getattr(args, flag, None) is not None]
    if args.scheme is not None or given:
        flag = "--scheme" if args.scheme is not None else given[0]
        raise InvalidSpecification(f"{flag} does not apply with --derivation: every parameter "
                                   "of a derivation is given with --param NAME=VALUE")
    return derived_setting(load_derivation(args.derivation), param_values(args.param))


def build_subsampling(args: argparse.Namespace) -> Subsampling:
    from otbound.numerics.settings import Subsampling

    if args.scheme is None:
        raise InvalidSpecification("give a setting: --scheme (poisson, wor …) or "
                                   "--derivation NAME_OR_FILE")
    if args.param:
        raise InvalidSpecification("--param applies with --derivation; a built-in setting "
                                   "takes its flags (--rate, --group …)")
    for flag in ("steps_per_epoch", "selected"):
        if getattr(args, flag, None) is not None:
            raise InvalidSpecification(f"--{flag.replace('_', '-')} applies to --scheme "
                                       "random-allocation")
    return Subsampling(args.scheme, rate=args.rate, batch_size=args.batch_size,
                       dataset_size=args.dataset_size, group=args.group,
                       insertions=args.insertions, removals=args.removals,
                       substitutions=args.substitutions)


def one_step_inputs(args: argparse.Namespace
                    ) -> tuple[Subsampling | DerivedSetting, Mechanism, list[Method]]:
    """``rdp``'s and ``adp``'s setting, mechanism and methods from their flags (an epoch-level
    setting: one epoch)."""
    return build_setting(args), build_mechanism(args), args.method


def build_setting(args: argparse.Namespace):
    """The setting the flags name: a derivation's (--derivation) or a shorthand's (--scheme)."""
    from otbound.accounting.truncated import TruncatedPoissonSetting

    check_truncated_flags(args)
    if args.derivation:
        return build_derived_setting(args)
    if args.scheme in EPOCH_SCHEMES:
        return build_epoch_setting(args)
    if args.scheme == "truncated-poisson":
        return TruncatedPoissonSetting(args.rate, args.max_batch, args.dataset_size,
                                       Neighbouring(args.neighbouring or "add-remove"))
    return build_subsampling(args)


EPOCH_SCHEMES = ("random-allocation", "balls-in-bins", "shuffle")
"""The schemes whose composition counts epochs."""
_EPOCH_FLAGS = {"random-allocation": ("steps_per_epoch", "selected", "group", "neighbouring"),
                "balls-in-bins": ("batch_size", "dataset_size", "group", "neighbouring"),
                "shuffle": ("batch_size", "dataset_size")}
"""The flags of each epoch-level scheme (the last two of random allocation's and
balls-in-bins' are optional, and ``--selected``)."""
_OPTIONAL = ("selected", "group", "neighbouring")


def build_epoch_setting(args: argparse.Namespace):
    """``--scheme random-allocation --steps-per-epoch T [--selected k]``, ``--scheme
    balls-in-bins|shuffle --batch-size b --dataset-size N``."""
    from otbound.numerics.epoch_settings import BallsInBins, RandomAllocation, ShuffledBatches

    own = _EPOCH_FLAGS[args.scheme]
    for flag in _SETTING_FLAGS + ("param",):
        if flag not in own and getattr(args, flag, None):
            takes = " and ".join(f"--{name.replace('_', '-')}" for name in own)
            raise InvalidSpecification(f"--{flag.replace('_', '-')} does not apply to --scheme "
                                       f"{args.scheme} (it takes {takes})")
    for flag in own:
        if getattr(args, flag) is None and flag not in _OPTIONAL:
            raise InvalidSpecification(f"--scheme {args.scheme} needs "
                                       f"--{flag.replace('_', '-')}")
    group = 1 if args.group is None else args.group
    neighbouring = args.neighbouring or "add-remove"
    if args.scheme == "random-allocation":
        return RandomAllocation(args.steps_per_epoch, args.selected or 1, group=group,
                                neighbouring=neighbouring)
    if args.scheme == "balls-in-bins":
        return BallsInBins(args.batch_size, args.dataset_size, group=group,
                           neighbouring=neighbouring)
    return ShuffledBatches(args.batch_size, args.dataset_size)


def epoch_level(args: argparse.Namespace) -> bool:
    """Whether the setting the flags name composes epochs."""
    if args.scheme in EPOCH_SCHEMES:
        return True
    if getattr(args, "derivation", None):
        from otbound.engine.bundled import load_derivation

        return getattr(load_derivation(args.derivation), "epoch_level", False)
    return False


def epochs_as_steps(args: argparse.Namespace) -> None:
    """An epoch-level scheme counts epochs (``--epochs``), the others steps (``--steps``, or
    ``--epochs`` converted: ``args.steps_from_epochs``); the API counts either as ``steps``."""
    epochs = getattr(args, "epochs", None)
    named = f"--scheme {args.scheme}" if args.scheme else f"--derivation {args.derivation}"
    args.steps_from_epochs = None
    if epoch_level(args):
        if args.steps is not None:
            raise UsageError(f"{named} composes epochs: give --epochs, not --steps")
        if epochs is None and getattr(args, "solve_for", None) != "steps":
            raise UsageError(f"{named} needs --epochs")
        args.steps = epochs
    elif epochs is not None:
        if args.steps is not None:
            raise UsageError("give --steps or --epochs, not both")
        args.steps_from_epochs = per_step_epochs(args, epochs)
        args.steps = args.steps_from_epochs.steps
    elif args.steps is None and getattr(args, "solve_for", None) is None:
        raise UsageError("account needs --steps (or --epochs)")


@dataclass(frozen=True)
class EpochSteps:
    """``--epochs`` of a per-step scheme as steps: ``epochs × per_epoch``, rounded up (more
    steps, so the guarantee covers every epoch in full); ``source`` says where ``per_epoch``
    comes from."""

    epochs: int
    per_epoch: Fraction
    source: str

    @property
    def steps(self) -> int:
        return math.ceil(self.epochs * self.per_epoch)

    @property
    def rounded_up(self) -> bool:
        return (self.epochs * self.per_epoch).denominator != 1

    def to_json(self) -> dict:
        return {"epochs": self.epochs, "steps_per_epoch": float(self.per_epoch),
                "steps_per_epoch_from": self.source, "steps": self.steps,
                "rounded_up": self.rounded_up}


def per_step_epochs(args: argparse.Namespace, epochs: int) -> EpochSteps:
    """``--epochs E`` of Poisson, truncated Poisson or without-replacement sampling: ``E``
    epochs of ``N/B`` steps (``--batch-size B --dataset-size N``; Poisson's ``B`` is the
    expected batch size) or of ``1/r`` steps (``--rate r``, the rate as typed)."""
    from otbound.numerics.epoch_settings import check_epochs
    from otbound.numerics.limits import MAX_STEPS, show

    check_epochs(epochs)
    solved = getattr(args, "solve_for", None)
    if solved in ("steps", "rate"):
        raise UsageError(f"--epochs does not apply with --solve-for {solved}: "
                         + ("the steps are solved for" if solved == "steps" else
                            "an epoch's steps depend on the rate solved for; give --steps"))
    if args.derivation:
        raise UsageError(f"--epochs applies to an epoch-level --derivation; "
                         f"{args.derivation} counts steps: give --steps")
    if args.rate is not None:
        if not 0 < args.rate <= 1:
            raise InvalidSpecification(f"--rate must be in (0, 1] with --epochs (an epoch is "
                                       f"1/rate steps), got {show(args.rate)}")
        exact = getattr(args.rate, "exact", Fraction(args.rate))   # as typed
        found = EpochSteps(epochs, 1 / exact, f"1/rate = {1 / exact}")
    elif args.batch_size is not None and args.dataset_size is not None:
        for flag in ("batch_size", "dataset_size"):
            if getattr(args, flag) < 1:
                raise InvalidSpecification(f"--{flag.replace('_', '-')} must be an integer "
                                           f">= 1, got {getattr(args, flag)}")
        batch = "expected batch size" if args.scheme == "poisson" else "batch size"
        found = EpochSteps(epochs, Fraction(args.dataset_size, args.batch_size),
                           f"dataset size / {batch} = {args.dataset_size}/{args.batch_size}")
    else:
        build_setting(args)   # names what is missing
        raise UsageError("--epochs needs --rate, or --batch-size and --dataset-size")
    if found.steps > MAX_STEPS:
        raise InvalidSpecification(f"--epochs {epochs} is {found.steps} steps: at most "
                                   f"{MAX_STEPS:g} steps are accounted")
    return found


def _check_calibration(args: argparse.Namespace) -> str:
    """The quantity solved for, once the flags make a calibration."""
    from otbound.accounting.guarantees import NOISE

    solved = solved_parameter(args)
    if not ((args.target_epsilon is not None and args.delta is not None
             and args.target_delta is None and args.epsilon is None)
            or (args.target_delta is not None and args.epsilon is not None
                and args.target_epsilon is None and args.delta is None)):
        raise UsageError("calibrate needs --target-epsilon E with --delta D, or "
                         "--target-delta D with --epsilon E")
    for flag in (solved, _ALIASES.get(solved)):
        if flag is not None and getattr(args, flag) is not None:
            given = ("epochs" if flag == "steps" and getattr(args, "epochs", None) is not None
                     else flag)   # an epoch-level scheme's --epochs are its steps
            raise UsageError(f"--{given.replace('_', '-')} is solved for (--solve-for "
                             f"{args.solve_for}): leave it out")
    if solved in NOISE and args.mechanism not in NOISE[solved]:
        raise UsageError(f"--solve-for {args.solve_for} needs --mechanism "
                         f"{' or '.join(NOISE[solved])}, got --mechanism {args.mechanism}")
    if solved == "rate" and args.scheme not in ("poisson", "truncated-poisson"):
        raise UsageError("--solve-for rate needs --scheme poisson or truncated-poisson")
    if solved != "steps" and args.steps is None:
        raise UsageError("calibrate needs --steps (unless --solve-for steps)")
    return solved


def solved_parameter(args: argparse.Namespace) -> str:
    """The library's name of the quantity ``--solve-for`` names (``noise-multiplier``: the
    calibration finds σ, reported as σ/L by :func:`as_solved`)."""
    return "sigma" if args.solve_for == "noise-multiplier" else args.solve_for


@overload
def as_solved(args: argparse.Namespace, value: float, safe: bool = True) -> float: ...
@overload
def as_solved(args: argparse.Namespace, value: None, safe: bool = True) -> None: ...
def as_solved(args: argparse.Namespace, value: float | None, safe: bool = True
              ) -> float | None:
    """A calibrated value as ``--solve-for`` names it: ``noise-multiplier`` is σ/L, rounded
    up when ``safe`` (at least the noise found) and down for the value that failed."""
    if value is None or args.solve_for != "noise-multiplier":
        return value
    sensitivity = _sensitivity(args)
    multiplier = value / sensitivity
    while (multiplier * sensitivity < value) if safe else (multiplier * sensitivity > value):
        multiplier = math.nextafter(multiplier, math.inf if safe else 0.0)
    return multiplier


_PLACEHOLDER = {"steps": 1, "rate": 0.5}
"""A value for the quantity solved for, so that the setting can be built before it is known."""


def accounting_options(args: argparse.Namespace) -> dict:
    """The accountant's options from ``account``'s (or ``calibrate``'s) flags."""
    accountant = Accountant(args.accountant)
    if accountant is Accountant.PLD and args.conversion is not None:
        raise InvalidSpecification("--conversion applies to --accountant rdp or best")
    if accountant is Accountant.RDP and args.discretisation is not None:
        raise InvalidSpecification("--discretisation applies to --accountant pld or best")
    return {"delta": args.delta, "epsilon": args.epsilon,
            "conversion": Conversion(args.conversion or "optimal"),
            "discretisation": (DEFAULT_DISCRETISATION if args.discretisation is None
                               else args.discretisation)}


def account_inputs(args: argparse.Namespace) -> tuple:
    """``account``'s (and ``calibrate``'s) setting, mechanism and API options from its flags."""
    accountant, method = Accountant(args.accountant), Method(args.method)
    options = accounting_options(args)
    if args.posthoc is not None and method is not Method.POSTHOC:
        raise InvalidSpecification("--posthoc applies to --method posthoc")
    return build_setting(args), build_mechanism(args), options | {
        "method": method, "accountant": accountant, "posthoc": Posthoc(args.posthoc or "best")}


def check_truncated_flags(args: argparse.Namespace) -> None:
    """The flags of truncated Poisson sampling with it, and only with it."""
    truncated = args.scheme == "truncated-poisson"
    for flag in ("max_batch", "neighbouring"):
        if (not truncated and getattr(args, flag) is not None
                and flag not in _EPOCH_FLAGS.get(args.scheme, ())):
            raise InvalidSpecification(f"--{flag.replace('_', '-')} applies to "
                                       "--scheme truncated-poisson"
                                       + (", random-allocation or balls-in-bins"
                                          if flag == "neighbouring" else ""))
    if not truncated:
        return
    for flag in ("group", "insertions", "removals", "batch_size", "substitutions"):
        if getattr(args, flag) is not None:
            raise InvalidSpecification(f"--{flag.replace('_', '-')} does not apply to "
                                       "--scheme truncated-poisson")
    for flag in ("rate", "max_batch", "dataset_size"):
        if getattr(args, flag) is None:
            raise InvalidSpecification(f"--scheme truncated-poisson needs "
                                       f"--{flag.replace('_', '-')}")


def check_account(args: argparse.Namespace) -> None:
    """The flags of ``account`` that only make sense together."""
    epochs_as_steps(args)
    if args.plot and args.method != Method.TIGHT.value:
        raise UsageError("account --plot draws --method tight only; drop --plot or --method")
    if args.certified and args.scheme in ("random-allocation", "balls-in-bins"):
        if args.accountant == Accountant.RDP.value or args.method != Method.TIGHT.value:
            raise UsageError(f"account --certified on --scheme {args.scheme} needs --accountant "
                             "pld or best and --method tight (both ends of the epoch's bracket "
                             "in ball arithmetic)")
    elif args.certified and (args.accountant != Accountant.RDP.value
                             or args.method == Method.AGNOSTIC.value):
        raise UsageError("account --certified needs --accountant rdp and --method tight or "
                         "posthoc (certified enclosures of the steps' dominating pairs); on "
                         "--scheme random-allocation or balls-in-bins, --accountant pld")


def calibration_inputs(args: argparse.Namespace) -> tuple[str, int, tuple]:
    """``calibrate``'s quantity solved for, steps, and setting, mechanism and options (built
    with a placeholder for the quantity solved for, which the API replaces)."""
    from otbound.accounting.guarantees import NOISE

    epochs_as_steps(args)
    solved = _check_calibration(args)
    start = (args.sensitivity or 1.0) if solved in NOISE else _PLACEHOLDER[solved]
    placeholder = argparse.Namespace(**(vars(args) | {solved: start}))
    return solved, placeholder.steps, account_inputs(placeholder)
