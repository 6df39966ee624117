"""Any setting to a guarantee in one call — the API behind ``otbound account`` and ``otbound
calibrate``.

A *setting* is asked, never tested for its class: a per-step one (a built-in
:class:`~otbound.numerics.settings.Subsampling`, a derivation's
:class:`~otbound.numerics.derived.DerivedSetting`, or a factory of one such as
:class:`~otbound.accounting.truncated.TruncatedPoissonSetting`) composes steps, each method
applying to it; an epoch-level one (:class:`~otbound.numerics.epoch_settings.EpochSetting`:
random allocation, balls-in-bins, shuffled batches, or an epoch derivation) composes epochs
(``steps`` counts epochs) with its derived worst case.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Callable, overload

from otbound.accounting import calibrate as search
from otbound.accounting import pld
from otbound.accounting.accountant import (ComposeOptions, Guarantee, best_guarantee, check_target,
                                           compose, composed_guarantee)
from otbound.accounting.certified_epochs import certified_epochs
from otbound.accounting.posthoc import posthoc_guarantee
from otbound.accounting.profiles import profile_guarantee
from otbound.accounting.steps import Step, alternative_steps, subsampled_step
from otbound.accounting.substitution import chained
from otbound.choices import DEFAULT_DISCRETISATION, Accountant, Conversion, Method, Posthoc
from otbound.errors import (InternalError, InvalidSpecification, Refusal, UnsupportedOperation,
                            as_choice, granted, required)
from otbound.numerics.certified import certifying
from otbound.numerics.derived import as_setting
from otbound.numerics.epoch_settings import check_epochs
from otbound.numerics.families import FAMILIES
from otbound.numerics.limits import MAX_EPSILON, show
from otbound.numerics.mechanisms import AdditiveNoise, Mechanism

NOISE: dict[str, tuple[str, ...]] = {
    parameter: tuple(name for name, family in FAMILIES.items() if family.parameter == parameter)
    for parameter in dict.fromkeys(family.parameter for family in FAMILIES.values())}
"""The noise parameters a calibration can solve for, and the mechanisms each belongs to."""


def account(setting, mechanism: Mechanism, steps: int, *, method: Method | str = Method.TIGHT,
            accountant: Accountant | str = Accountant.BEST, posthoc: Posthoc | str = Posthoc.BEST,
            delta: float | None = None, epsilon: float | None = None,
            conversion: Conversion | str = Conversion.OPTIMAL,
            discretisation: float = DEFAULT_DISCRETISATION,
            lower_end: bool = True) -> Guarantee:
    """ε at ``delta`` (or δ at ``epsilon``) after ``steps`` steps of ``setting`` with
    ``mechanism``, bounded by ``method`` — ``tight`` (the engine's dominating pairs, 001, 003
    Thm. 3.8), ``agnostic`` (the per-step bounds of :mod:`otbound.numerics.one_step`) or
    ``posthoc`` (group privacy after the K = 1 bound, :mod:`.posthoc`) — and composed by
    ``accountant`` (``best`` of ``rdp`` and ``pld``).
    ``details["method"]`` names the bound used: where ``tight`` has no exact solver, the
    smallest of the sound alternatives is reported (the relaxed pairs, 001 Prop. E.5's pairs
    without replacement, the agnostic bound). An epoch-level setting counts epochs in ``steps``
    and, with ``lower_end``, also reports the lower end of its bracket (``epsilon_lower`` or
    ``delta_lower``: every valid guarantee is at least it)."""
    method = as_choice(Method, method, "method")
    accountant = as_choice(Accountant, accountant, "accountant")
    posthoc = as_choice(Posthoc, posthoc, "posthoc")
    conversion = as_choice(Conversion, conversion, "conversion")
    check_target(delta, epsilon)
    pld.check_discretisation(discretisation)
    options: ComposeOptions = {"delta": delta, "epsilon": epsilon, "conversion": conversion,
                               "discretisation": discretisation}
    setting = as_setting(setting)
    if setting.epoch_level:
        return granted(_epochs(setting, mechanism, steps, method, posthoc, accountant, options,
                               lower_end))
    step = subsampled_step(setting, mechanism, steps)   # checks the inputs, even if unused
    if method is Method.AGNOSTIC:
        return granted(_named(profile_guarantee(setting, mechanism, Method.AGNOSTIC, steps,
                                                accountant, **options), "agnostic"))
    if method is Method.POSTHOC:
        return granted(_named(posthoc_guarantee(setting, mechanism, steps, posthoc, accountant,
                                                **options), "posthoc"))
    if step.tight:
        return _named(compose([step], accountant, **options), "tight")

    def composed(alternative: Step, name: str) -> Guarantee | Refusal:
        return _named(composed_guarantee([alternative], accountant, **options), name)

    alternatives: dict[str, Callable[[], Guarantee | Refusal]] = {
        RELAXED: functools.partial(composed, step, RELAXED),
        "agnostic": lambda: _named(profile_guarantee(
            setting, mechanism, Method.AGNOSTIC, steps, accountant, **options), "agnostic")}
    for name, alternative in alternative_steps(setting, mechanism, steps).items():
        alternatives[name] = functools.partial(composed, alternative, name)
    return granted(best_guarantee(alternatives, delta, what="method"))


def _epochs(setting, mechanism: Mechanism, epochs: int, method: Method, posthoc: Posthoc,
            accountant: Accountant, options: ComposeOptions,
            lower_end: bool) -> Guarantee | Refusal:
    """``epochs`` epochs of an epoch-level setting: its worst case's pairs composed (upper); a
    substitution through its removal and insertion (:func:`.substitution.chained`); a group the
    best of splitting Gaussian noise among its records and post-hoc group privacy. Where the pairs
    have one, a pair they dominate composed the same way gives the lower end
    (``epsilon_lower`` or ``delta_lower`` in the details; for a group or a substitution, that
    of one record's insertion/removal, which they include)."""
    check_epochs(epochs)
    if method is Method.AGNOSTIC:
        raise UnsupportedOperation(f"{setting.summary()} is bounded by its derived worst case "
                                   "(method='tight'; 'posthoc' for a group)")
    if certifying():
        if method is not Method.TIGHT:
            raise UnsupportedOperation("certified epoch-level accounting uses the derived worst "
                                       "case (method='tight')")
        return certified_epochs(setting, mechanism, epochs, accountant, options,
                                LOWER_END["pair"])
    routes = {}
    if method is Method.TIGHT:
        name = "tight" if setting.group == 1 else "noise split among the group's records"
        routes[name] = lambda: _epoch_route(setting, mechanism, epochs, accountant, options)
    if setting.group > 1 or method is Method.POSTHOC:
        routes["posthoc"] = lambda: _named(_with_bound(posthoc_guarantee(
            setting, mechanism, epochs, posthoc, accountant, **options),
            f"post-hoc group privacy (group of {setting.group}) on one record's epochs"),
            "posthoc")
    found = (next(iter(routes.values()))() if len(routes) == 1
             else best_guarantee(routes, options["delta"], what="method"))
    if isinstance(found, Refusal):
        return found
    details = {"steps_per_epoch": setting.steps_per_epoch, "epochs": epochs}
    if lower_end:
        single = replace(setting, group=1, substitution=False)   # one record's removal
        found_lower = pld.lower_end([subsampled_step(single, mechanism, epochs)],
                                    options["delta"], options["epsilon"],
                                    options["discretisation"])
        if found_lower:
            details |= found_lower | {"lower_end": LOWER_END[
                "group" if setting.group > 1 else
                "substitution" if setting.substitution else "pair"]}
    kept = {k: v for k, v in found.details.items() if k != "profile"}
    return replace(found, steps=epochs, details=kept | details)


def _epoch_route(setting, mechanism: Mechanism, epochs: int, accountant: Accountant,
                 options: ComposeOptions) -> Guarantee | Refusal:
    """The derived worst case's pairs composed (a substitution: chained through its removal and
    insertion)."""
    if (refused := setting.cannot_solve(mechanism)) is not None:
        return refused
    step = subsampled_step(setting, mechanism, epochs)
    if setting.substitution:
        found = chained([step], options["delta"], options["epsilon"],
                        options["discretisation"])
    else:
        found = composed_guarantee([step], accountant, **options)
    if isinstance(found, Refusal):
        return found
    tight = step.tight and not setting.substitution
    bound = step.setting["pairs"] + ("; a substitution chained through the removal of one "
                                     "record and the insertion of the other"
                                     if setting.substitution else "")
    return replace(found, details={"method": "tight" if tight else "sound (not tight)",
                                   "bound": bound} | found.details)


def _with_bound(guarantee: Guarantee | Refusal, bound: str) -> Guarantee | Refusal:
    if isinstance(guarantee, Refusal):
        return guarantee
    return replace(guarantee, details={"bound": bound} | guarantee.details)


def calibrate(setting, mechanism: Mechanism, steps: int | None = None, *, solve_for: str,
              target_epsilon: float | None = None, delta: float | None = None,
              target_delta: float | None = None, epsilon: float | None = None,
              tolerance: float = search.DEFAULT_TOLERANCE,
              progress: Callable[[str], None] | None = None,
              **options) -> search.Calibration:
    """The safe value of ``solve_for`` — the smallest ``sigma`` (Gaussian) or ``scale``
    (Laplace), the largest ``steps`` or Poisson ``rate`` — whose :func:`account` meets
    ``ε ≤ target_epsilon`` at ``delta`` (or ``δ ≤ target_delta`` at ``epsilon``); the value of
    that quantity in ``setting``, ``mechanism`` or ``steps`` is not used. ``options`` are
    :func:`account`'s (``method``, ``accountant`` …). The result is accounted again at the value
    found before it is returned (:class:`~otbound.accounting.calibrate.Calibration`)."""
    _check_target(target_epsilon, delta, target_delta, epsilon)
    vary = _varying(setting, mechanism, steps, solve_for)
    at_target = {"delta": delta, "epsilon": epsilon} | options

    def measure(value: float, final: bool = False) -> Guarantee:
        return account(*vary(value), **at_target, lower_end=final)

    sensitivity = getattr(mechanism, "sensitivity", 1.0)
    found = search.safe_value(measure, solve_for, target_epsilon=target_epsilon,
                             target_delta=target_delta, tolerance=tolerance,
                             sensitivity=sensitivity, progress=progress)
    if progress:
        progress(f"verifying {solve_for} = {show(found.value)}")
    guarantee = measure(found.value, final=True)
    if not (guarantee.epsilon <= target_epsilon if target_epsilon is not None
            else guarantee.delta <= required(target_delta, "target_delta")):
        raise InternalError(f"{solve_for} = {show(found.value)} met the target once and not "
                            "on re-accounting")
    return replace(found, guarantee=guarantee)


def _check_target(target_epsilon, delta, target_delta, epsilon) -> None:
    if not ((target_epsilon is not None and delta is not None
             and target_delta is None and epsilon is None)
            or (target_delta is not None and epsilon is not None
                and target_epsilon is None and delta is None)):
        raise InvalidSpecification("give target_epsilon with delta, or target_delta with "
                                   "epsilon", parameter="target_epsilon")
    if target_epsilon is not None and not 0 <= target_epsilon <= MAX_EPSILON:   # NaN too
        raise InvalidSpecification(f"target_epsilon must be in [0, {MAX_EPSILON:g}], got "
                                   f"{show(target_epsilon)}", parameter="target_epsilon")
    if target_delta is not None and not 0 < target_delta < 1:
        raise InvalidSpecification(f"target_delta must be in (0, 1), got {show(target_delta)}",
                                   parameter="target_delta")


def _varying(setting, mechanism: Mechanism, steps: int | None, solve_for: str
             ) -> Callable[[float], tuple]:
    """``value ↦ (setting, mechanism, steps)`` with ``solve_for`` set to ``value``."""
    if solve_for in NOISE:
        if not (isinstance(mechanism, AdditiveNoise) and mechanism.family.parameter == solve_for):
            raise InvalidSpecification(f"solve_for={solve_for!r} needs the "
                                       f"{' or '.join(NOISE[solve_for])} mechanism, got "
                                       f"{mechanism.name}", parameter="solve_for")
        _need_steps(steps)
        return lambda value: (setting, replace(mechanism, scale=value), steps)
    if solve_for == "steps":
        return lambda value: (setting, mechanism, int(value))
    if solve_for == "rate":
        rated = getattr(setting, "with_rate", None)
        if rated is None:
            raise InvalidSpecification("solve_for='rate' needs Poisson sampling given by its "
                                       "rate (Subsampling('poisson', rate=…) or "
                                       "TruncatedPoissonSetting)", parameter="solve_for")
        rated(setting.rate)   # refuses a setting whose rate cannot vary
        _need_steps(steps)
        return lambda value: (rated(value), mechanism, steps)
    raise InvalidSpecification(f"solve_for must be one of {', '.join(search.SOLVABLE)}, got "
                               f"{solve_for!r}", parameter="solve_for")


def _need_steps(steps: int | None) -> None:
    if steps is None:
        raise InvalidSpecification("steps is needed unless solve_for='steps'",
                                   parameter="steps")


LOWER_END = {
    "pair": "a pair the epoch's pair dominates, composed the same way: the truth lies between",
    "group": "one record's: a user may hold a single record",
    "substitution": "one record's removal: replacing it by a record that changes no output is "
                    "a removal"}
"""What the lower end of an epoch-level guarantee is, by relation."""
RELAXED = "tight (relaxed pairs)"
"""``tight``'s fallback where no exact solver applies: the relaxed or product-coupling pairs."""


@overload
def _named(guarantee: Guarantee, method: str) -> Guarantee: ...
@overload
def _named(guarantee: Guarantee | Refusal, method: str) -> Guarantee | Refusal: ...
def _named(guarantee: Guarantee | Refusal, method: str) -> Guarantee | Refusal:
    """The guarantee with ``details["method"]`` first; a refusal as it is."""
    if isinstance(guarantee, Refusal):
        return guarantee
    return Guarantee(guarantee.epsilon, guarantee.delta, guarantee.steps, guarantee.accountant,
                     {"method": method} | guarantee.details)
