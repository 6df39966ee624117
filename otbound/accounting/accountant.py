"""The privacy of a training run: steps composed by an accountant, converted to (ε, δ).

Both accountants give sound upper bounds, and neither dominates the other: the PLD accountant is
close to exact for many steps at moderate ε, the RDP accountant (with the optimal conversion) wins
at tiny δ, for very many steps, or when the PLD grid would be too coarse or too large. ``best``
runs both and reports the smaller answer, with both results (or why one was unavailable).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, TypedDict

import numpy as np

from otbound.accounting import pld, rdp
from otbound.accounting.prefixes import Prefixes
from otbound.accounting.pure_composition import pure_epsilon
from otbound.accounting.shift_composition import Shift, composed_shift
from otbound.accounting.steps import Step
from otbound.choices import Accountant, Conversion
from otbound.errors import InvalidSpecification, Refusal, as_choice, granted, required
from otbound.numerics.limits import DISCRETISATION_RANGE, MAX_EPSILON, show
from otbound.numerics.one_step import branches_delta
from otbound.numerics.three_point import certifying_orders


@dataclass(frozen=True)
class Guarantee:
    """``(ε, δ)``-DP after ``steps`` steps; ``accountant`` is the one whose answer this is, and
    ``details`` say how it was obtained."""

    epsilon: float
    delta: float
    steps: int
    accountant: Accountant
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"epsilon": self.epsilon, "delta": self.delta, "steps": self.steps,
                "accountant": self.accountant.value} | self.details


class ComposeOptions(TypedDict):
    """The keywords of :func:`compose` after the accountant: the target and how to compose."""

    delta: float | None
    epsilon: float | None
    conversion: Conversion
    discretisation: float


def compose(steps: list[Step], accountant: Accountant | str = Accountant.BEST, *,
            delta: float | None = None, epsilon: float | None = None,
            conversion: Conversion | str = Conversion.OPTIMAL,
            discretisation: float = pld.DEFAULT_DISCRETISATION,
            prefixes: Prefixes | None = None) -> Guarantee:
    """ε at the given δ, or δ at the given ε, after composing ``steps`` (upper bounds).
    ``prefixes`` keeps the compositions of a run that grows (:class:`.running.RunningAccountant`):
    composing it again after more steps extends them, with the same result. Refused (raised)
    as :func:`composed_guarantee` refuses."""
    return granted(composed_guarantee(steps, accountant, delta=delta, epsilon=epsilon,
                                      conversion=conversion, discretisation=discretisation,
                                      prefixes=prefixes))


def composed_guarantee(steps: list[Step], accountant: Accountant | str = Accountant.BEST, *,
                       delta: float | None = None, epsilon: float | None = None,
                       conversion: Conversion | str = Conversion.OPTIMAL,
                       discretisation: float = pld.DEFAULT_DISCRETISATION,
                       prefixes: Prefixes | None = None) -> Guarantee | Refusal:
    """:func:`compose`'s guarantee, or why the accountant (under ``best``: each of them) gives
    none."""
    check_target(delta, epsilon)
    accountant = as_choice(Accountant, accountant, "accountant")
    conversion = as_choice(Conversion, conversion, "conversion")
    _check_steps(steps)
    pld.check_discretisation(discretisation)
    prefixes = Prefixes() if prefixes is None else prefixes
    curves = functools.cache(lambda: rdp.case_curves(steps, prefixes=prefixes))
    found: dict[Accountant, Guarantee] = {}

    def by_pld() -> Guarantee | Refusal:
        shift = composed_shift(steps)
        answer = (
            _pld_guarantee(steps, curves, delta, epsilon, conversion, discretisation,
                           accountant is Accountant.BEST, prefixes) if shift is None
            else _exact_shift(shift, sum(step.count for step in steps), delta, epsilon))
        if isinstance(answer, Guarantee):
            found[Accountant.PLD] = answer
        return answer

    def by_rdp() -> Guarantee | Refusal:   # under best, after the PLD: sharpened to beat it
        if (refused := rdp.curves_refusal(steps)) is not None:
            return refused
        beat = _answer(found[Accountant.PLD], delta) if Accountant.PLD in found else math.inf
        return _rdp_guarantee(steps, rdp.worst_curve(curves()), delta, epsilon, conversion,
                              beat)

    attempts = {Accountant.PLD: by_pld, Accountant.RDP: by_rdp}
    found_by = (attempts[accountant]() if accountant is not Accountant.BEST else
                best_guarantee({each.value: attempt for each, attempt in attempts.items()},
                               delta))
    if isinstance(found_by, Refusal):
        return found_by
    return _at_most_pure(found_by, pure_epsilon(steps), delta, epsilon)


def _at_most_pure(guarantee: Guarantee, pure: float, delta: float | None,
                  epsilon: float | None) -> Guarantee:
    """The smaller of the accountant's answer and the steps' pure DP ``(pure, 0)``."""
    if delta is not None and pure < guarantee.epsilon:
        changed = replace(guarantee, epsilon=pure)
    elif epsilon is not None and epsilon >= pure and guarantee.delta > 0:
        changed = replace(guarantee, delta=0.0)
    else:
        return guarantee
    details = {key: value for key, value in guarantee.details.items() if key != "at_floor"}
    details["pure"] = (f"(ε = {pure:.10g}, δ = 0)-DP: each step's largest privacy loss, summed "
                       "(basic composition of pure DP)")
    return replace(changed, details=details)


def _exact_shift(shift: Shift, total: int, delta: float | None,
                 epsilon: float | None) -> Guarantee | Refusal:
    """The PLD accountant's answer where the steps compose to one shift: exact (refused where
    no ε up to 1e6 reaches ``delta``)."""
    if delta is not None:
        found = shift.epsilon(delta)
        if isinstance(found, Refusal):
            return found
        epsilon = found
    else:
        epsilon = required(epsilon, "epsilon")   # check_target: one of the two is given
        delta = shift.delta(epsilon)
    return Guarantee(epsilon, delta, total, Accountant.PLD, {"exact": (
        f"closed form: the steps compose to one {shift.family.name} mechanism with "
        f"mu = {shift.mu:.10g} (rotated to one axis: Dong, Roth & Su 2022, Cor. 3.3; "
        "Balle & Wang 2018, Thm. 8), in ball arithmetic")})


def _rdp_guarantee(steps: list[Step], curve, delta: float | None, epsilon: float | None,
                   conversion: Conversion, beat: float = math.inf) -> Guarantee | Refusal:
    """The composed curve converted, then sharpened where steps have certified Rényi cases
    (:func:`rdp.sharpened`), one integer order at a time, guided by a *hoped-for* curve: the
    certificates' estimates from below at every order not yet certified. The order certified
    next is the one that bounds the hoped-for curve's best order; it stops when that one is
    certified already, or when the hoped-for answer is no better than the answer so far or
    than ``beat`` (another accountant's answer). The conversion's refusal is the answer where
    the curve has one (a sharpened curve is never above it, so it converts where it does)."""
    total = sum(step.count for step in steps)

    def finish(curve) -> Guarantee | Refusal:
        return finish_guarantee(Accountant.RDP, curve, total, delta, epsilon, conversion)

    guarantee, done = finish(curve), set()
    if isinstance(guarantee, Refusal):
        return guarantee
    hoped = (rdp.sharpened(steps, curve, rdp.CERTIFIABLE, estimate=True)
             if rdp.sharpenable(steps) else None)
    while isinstance(hoped, rdp.RdpCurve):
        hope = finish(hoped)
        if isinstance(hope, Refusal):
            break
        order = int(certifying_orders(hope.details["order"])[0])
        if (order in done or order not in rdp.CERTIFIABLE
                or _answer(hope, delta) >= min(beat, _answer(guarantee, delta))):
            break
        if isinstance(sharper := rdp.sharpened(steps, curve, {order}), Refusal):
            break   # a certificate refused: the curve stays unsharpened (and is not said to be)
        if isinstance(sharpest := finish(sharper), Refusal):
            break
        done.add(order)
        curve, guarantee = sharper, sharpest
        at = rdp.bounded_by(curve.orders, {order})
        hoped = rdp.RdpCurve(curve.orders, np.where(at, curve.epsilons, hoped.epsilons))
    if not done:
        return guarantee
    spans = ", ".join(f"({n - 1}, {n}]" for n in sorted(done))
    return replace(guarantee, details=guarantee.details | {"sharpened": (
        f"orders in {spans} by 001 Thm. 3.6's three-point maximum, certified in ball arithmetic "
        "(otbound.numerics.three_point), where below the curve")})


def _pld_guarantee(steps: list[Step], curves: Callable[[], list], delta: float | None,
                   epsilon: float | None, conversion: Conversion, discretisation: float,
                   budgeted: bool, prefixes: Prefixes) -> Guarantee | Refusal:
    """The PLD accountant's worst case over the cases, composing only the cases that can be
    the worst. Each case has a valid bound, refined in steps — its RDP bound (Balle et al.
    2020's conversion), its PLD at a discretisation :data:`SCOUT` times coarser, its final
    PLD — and the case with the largest bound is refined next, until that
    case's bound is its final PLD: every other case's true value is below its own bound, so
    below that one. With two cases or fewer both are composed at once. ``budgeted`` (for
    ``best``): a case whose one-step PLD would take more than :data:`PLD_BUDGET` evaluations
    is discretised ten times coarser until it fits (sound at any discretisation; said in the
    details). The first refusal of a case's final PLD is the answer."""
    total = sum(step.count for step in steps)
    if total == 1:
        (step,) = steps
        return one_step_guarantee(lambda epsilons: np.max(
            [branches_delta(case, epsilons).upper for case in step.cases], axis=0),
            delta, epsilon)
    cases = len(steps[0].cases)

    def pld_at(case: int, used: float) -> Guarantee | Refusal:
        composed = pld.composed_plds(steps, used, [case], prefixes)
        if isinstance(composed, Refusal):
            return composed
        return finish_guarantee(Accountant.PLD, composed, total, delta, epsilon, conversion,
                                used)

    @functools.cache
    def used(case: int) -> float:
        return _affordable(steps, case, discretisation) if budgeted else discretisation

    def scout(case: int) -> float:
        return min(used(case) * SCOUT, DISCRETISATION_RANGE[1])

    def refined(case: int, level: int) -> tuple[int, Guarantee | Refusal]:
        """The case's bound at ``level`` or, where the scouting PLD would be no coarser or
        has no answer, its final PLD."""
        if level == SCOUTING and scout(case) > used(case):
            if isinstance(scouted := pld_at(case, scout(case)), Guarantee):
                return SCOUTING, scouted
        return FINAL, pld_at(case, used(case))

    def scout_ahead() -> None:
        """Every case whose RDP bound is above each bound refined so far is scouted next,
        whatever those scouts give: compose them together (on every core)."""
        refined_bounds = [bound for level, bound, _ in found.values() if level != BY_RDP]
        if refined_bounds:
            ahead = [case for case, (level, bound, _) in found.items()
                     if level == BY_RDP and max(refined_bounds) < bound < math.inf
                     and scout(case) > used(case) and case not in scouted]
            pld.prefetch_plds(steps, {case: scout(case) for case in ahead}, prefixes)
            scouted.update(ahead)

    scouted: set[int] = set()

    bounds = _rdp_bounds(steps, curves, delta, epsilon)
    found: dict[int, tuple[int, float, Guarantee | None]] = {
        case: (BY_RDP, bound, None) for case, bound in enumerate(bounds)}
    while True:
        case = max(found, key=lambda c: found[c][1])
        level, _, last = found[case]
        if level == FINAL:
            break
        if level == BY_RDP:
            scout_ahead()
        level, made = refined(case, level + 1 if bounds[case] < math.inf else FINAL)
        if isinstance(made, Refusal):
            return made
        found[case] = (level, _answer(made, delta), made)
    # a case's final PLD always comes with its guarantee
    guarantee = required(last, "the final PLD's guarantee")
    finals = [required(each, "a final PLD's guarantee").details["discretisation"]
              for level, _, each in found.values() if level == FINAL]
    details = guarantee.details | {"discretisation": max(finals)}
    if max(finals) > discretisation:
        details["coarsened from"] = f"{show(discretisation)} (to bound the time of best)"
    if len(finals) < cases:
        details["cases composed"] = (f"{len(finals)} of {cases} (the others are bounded below "
                                     "this by their RDP curves or coarser PLDs)")
    return replace(guarantee, details=details)


BY_RDP, SCOUTING, FINAL = range(3)
"""The bounds a case goes through in :func:`_pld_guarantee`: its RDP bound, a scouting PLD
(:data:`SCOUT` times coarser), its final PLD."""
SCOUT = 10
"""How much coarser a scouting PLD is. A pessimistic PLD errs upward by up to its grid step
per composed step, so a coarse scout only excludes cases where ε is large: at r = 0.001, σ =
5, a group of 256, T = 1000 (ε = 8.79, all cases within 4 % of each other) 100 times coarser
(0.1) erred by +2.9 and excluded no case, 10 times coarser by +0.03 and left 11 of 257 to
compose (60 s → 19 s)."""


def one_step_guarantee(profile: Callable[[np.ndarray], np.ndarray], delta: float | None,
                       epsilon: float | None) -> Guarantee | Refusal:
    """One step: ``δ(ε)`` is the privacy profile itself (upper bounds, vectorised in ε), which a
    one-step PLD only discretises (never below it); ε at ``delta`` is the first point of a
    search grid at which the profile is at most ``delta``, refined until the grid spacing is
    below 1e-12 of it. Refused where the profile is above ``delta`` up to
    :data:`~otbound.numerics.limits.MAX_EPSILON`."""
    details = {"profile": "of the one step, not discretised"}
    if epsilon is not None:
        return Guarantee(float(epsilon), min(float(profile(np.array([epsilon]))[0]), 1.0), 1,
                         Accountant.PLD, details)
    delta = required(delta, "delta")   # check_target: one of the two is given
    if profile(np.array([0.0]))[0] <= delta:
        return Guarantee(0.0, float(delta), 1, Accountant.PLD, details)
    low, high = 0.0, 1.0
    while profile(np.array([high]))[0] > delta:
        if high >= MAX_EPSILON:
            return Refusal(f"the privacy profile is above δ = {show(delta)} at every ε up to "
                           f"{MAX_EPSILON:g}")
        low, high = high, min(2 * high, MAX_EPSILON)
    while high - low > 1e-12 * high:
        grid = np.linspace(low, high, 65)
        first = int(np.argmax(profile(grid) <= delta))   # the last point always qualifies
        low, high = (grid[first - 1], grid[first]) if first else (low, grid[0])
    return Guarantee(float(high), float(delta), 1, Accountant.PLD, details)


def _answer(guarantee: Guarantee, delta: float | None) -> float:
    return guarantee.epsilon if delta is not None else guarantee.delta


def _rdp_bounds(steps: list[Step], curves: Callable[[], list], delta: float | None,
                epsilon: float | None) -> list[float]:
    """Each case's RDP bound (ε at ``delta``, or δ at ``epsilon``); unbounded with two cases
    or fewer (not worth the time), where the curves refuse (asked first:
    :func:`~otbound.accounting.rdp.curves_refusal`), or where a case's curve is infinite at
    every order."""
    cases = len(steps[0].cases)
    if cases <= 2 or rdp.curves_refusal(steps) is not None:
        return [math.inf] * cases
    found = curves()
    if not all(np.isfinite(curve.epsilons).any() for curve in found):
        return [math.inf] * cases
    if delta is not None:
        return [rdp.rdp_epsilon(curve, delta, Conversion.BALLE2020).epsilon for curve in found]
    at = required(epsilon, "epsilon")   # check_target: one of the two is given
    return [rdp.rdp_delta(curve, at, Conversion.BALLE2020).delta for curve in found]


def _affordable(steps: list[Step], case: int, discretisation: float) -> float:
    """``discretisation``, ten times coarser as often as needed for the case's one-step PLD
    to take at most :data:`PLD_BUDGET` evaluations (at most the coarsest allowed)."""
    coarsest = DISCRETISATION_RANGE[1]
    while (discretisation < coarsest
           and pld.profile_evaluations(steps, case, discretisation) > PLD_BUDGET):
        discretisation = min(float(f"{discretisation * 10:.6g}"), coarsest)
    return discretisation


PLD_BUDGET = 5e6
"""Grid points times mixture components of one case's one-step PLD that ``best`` builds at the
requested discretisation (about a second on 2 cores); a larger one is discretised coarser."""


def best_guarantee(attempts: Mapping[str, Callable[[], Guarantee | Refusal]],
                   delta: float | None, what: str = "accountant") -> Guarantee | Refusal:
    """The smallest of several sound answers (ε at ``delta``, else δ), with all of them (or why
    one was unavailable) in ``details["compared"]``, keyed by the names of ``attempts`` (each
    an ``accountant``, or ``what`` is said instead). An attempt answers a
    :class:`~otbound.errors.Refusal` where it finds one; where none is available for one
    reason, that reason is the refusal, else all of them are."""
    results, skipped = {}, {}
    for name, attempt in attempts.items():
        answer = attempt()
        if isinstance(answer, Refusal):
            skipped[name] = answer.reason
        else:
            results[name] = answer
    if not results:
        reasons = set(skipped.values())
        return Refusal(reasons.pop() if len(reasons) == 1 else (
            f"no {what} gives a guarantee: "
            + "; ".join(f"{name}: {reason}" for name, reason in skipped.items())))
    best = min(results.values(), key=lambda g: g.epsilon if delta is not None else g.delta)
    compared = {name: {"epsilon": g.epsilon, "delta": g.delta}
                | {k: v for k, v in g.details.items() if k == "at_floor"}
                for name, g in results.items()}
    compared |= {name: {"unavailable": reason} for name, reason in skipped.items()}
    return replace(best, details=best.details | {"compared": compared})


def finish_guarantee(accountant: Accountant, composed, total: int, delta: float | None,
                     epsilon: float | None, conversion: Conversion = Conversion.OPTIMAL,
                     discretisation: float = pld.DEFAULT_DISCRETISATION) -> Guarantee | Refusal:
    """ε at ``delta`` (or δ at ``epsilon``) of composed PLDs (one per case, the worst case is
    reported) or of a composed RDP curve (converted by ``conversion``); refused where the PLDs
    cannot certify ``delta``, where the RDP conversions are asked for δ at a negative ε
    (:func:`rdp_refusal`), or where the curve gives no finite ε."""
    if accountant is Accountant.PLD:
        plds = composed
        if delta is not None:
            epsilon = pld.pld_epsilon(plds, delta)
            if not math.isfinite(epsilon):
                return Refusal(
                    f"the PLD accountant cannot certify δ = {show(delta)}: after composition "
                    f"more than that mass sits at infinite loss (tails of mass "
                    f"{pld.TRUNCATION:g} are cut per composition), or is within the "
                    "floating-point noise of the composition; use a larger delta or "
                    "accountant='rdp'")
        else:
            epsilon = required(epsilon, "epsilon")   # check_target: one of the two is given
            delta = min(pld.pld_delta(plds, epsilon), 1.0)   # δ ≤ 1 always holds
        details: dict[str, object] = {"discretisation": discretisation}
        floor = pld.floor(plds)
        if epsilon is not None and delta <= floor:
            details["at_floor"] = floor
    else:
        curve = composed
        if (refused := rdp_refusal(epsilon)) is not None:
            return refused
        converted = (rdp.rdp_epsilon(curve, delta, conversion) if delta is not None
                     else rdp.rdp_delta(curve, required(epsilon, "epsilon"), conversion))
        epsilon, delta = converted.epsilon, min(converted.delta, 1.0)
        details = {"conversion": conversion.value, "order": converted.order}
        if not math.isfinite(epsilon):
            return Refusal(f"the RDP curve gives no finite ε at δ = {show(delta)}; "
                           "accountant='pld' may")
    return Guarantee(float(epsilon), float(delta), total, accountant, details)


def rdp_refusal(epsilon: float | None) -> Refusal | None:
    """Why the RDP conversions give no δ at ``epsilon`` (a negative ε), or ``None``."""
    if epsilon is None or epsilon >= 0:
        return None
    return Refusal(f"the RDP conversions give δ for ε >= 0 only, got ε = {show(epsilon)}; the "
                   "PLD accountant gives δ at negative ε (accountant='pld' or 'best')")


def _check_steps(steps: list[Step]) -> None:
    if (isinstance(steps, Step) or not isinstance(steps, (list, tuple)) or not steps
            or not all(isinstance(step, Step) for step in steps)):
        raise InvalidSpecification(
            "steps must be a non-empty list of Step (e.g. [subsampled_step(setting, mechanism, "
            f"count)]), got {steps!r:.80}", parameter="steps")


def check_target(delta: float | None, epsilon: float | None) -> None:
    if (delta is None) == (epsilon is None):
        raise InvalidSpecification("give exactly one of delta and epsilon", parameter="delta")
    if delta is not None and not 0 < delta < 1:
        raise InvalidSpecification(f"delta must be in (0, 1), got {show(delta)}",
                                   parameter="delta")
    if epsilon is not None and not (-MAX_EPSILON <= epsilon <= MAX_EPSILON):
        raise InvalidSpecification(f"epsilon must be in [{-MAX_EPSILON:g}, {MAX_EPSILON:g}], "
                                   f"got {show(epsilon)}", parameter="epsilon")
