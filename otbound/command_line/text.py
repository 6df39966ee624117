"""The command line's text output: results as headed tables and one-line summaries."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from otbound.choices import Quantity
from otbound.errors import Refusal

if TYPE_CHECKING:
    from otbound.engine.epoch_derivation import EpochReport
    from otbound.engine.report import DerivationReport


def print_evaluation(result: dict, quantity: Quantity) -> None:
    """One method's result as text: a heading, then a table of the points."""
    from otbound.numerics.limits import show
    from otbound.numerics.rounding import upper_text

    inputs, outputs = quantity.axis, quantity.output
    unit = "epoch" if "steps_per_epoch" in result["setting"] else "step"
    print(f"{quantity.name} of one {unit} — method {result['method']}; "
          + setting_text(result["setting"]))
    if "pairs" in result:
        print(f"dominating pairs: {result['pairs']}")
    if result.get("certified"):
        print("certified: upper ends of rigorous enclosures (error bound = enclosure width)")
    sources = result.get("bound_used", [""] * len(result[inputs]))
    print(f"{inputs:>12}  {outputs:>16}  {'error bound':>11}"
          + ("  the smallest sound bound" if "bound_used" in result else ""))
    for point, value, error, source in zip(result[inputs], result[outputs],
                                           result["error_bound"], sources):
        print(f"{show(point):>12}  {upper_text(value):>16}  {upper_text(error, 2):>11}"
              + (f"  {source}" if source else ""))


def setting_text(setting: dict) -> str:
    """A setting as ``name = value, …``: the rate with where it came from, the sensitivity
    with its unit of distance."""
    shown = {k: v for k, v in setting.items() if k not in ("rate_from", "distance_unit")}
    if "rate_from" in setting:
        shown["rate"] = f"{shown['rate']} ({setting['rate_from']})"
    if "sensitivity" in shown and "distance_unit" in setting:
        shown["sensitivity"] = f"{shown['sensitivity']} per {setting['distance_unit']}"
    return ", ".join(f"{k} = {v}" for k, v in shown.items())


def pair_text(args: argparse.Namespace, guarantee) -> tuple[str, str]:
    """``(ε, δ)`` of a guarantee as text: the one given as a flag as given, the other a bound
    rounded up."""
    from otbound.numerics.limits import show
    from otbound.numerics.rounding import upper_text

    return (show(args.epsilon) if args.epsilon is not None else upper_text(guarantee.epsilon),
            show(args.delta) if args.delta is not None else upper_text(guarantee.delta))


def more_is_safe(solved: str) -> bool:
    """Whether more of a calibrated quantity is safer: noise (σ, σ/L, scale), not steps or a
    rate."""
    from otbound.accounting.guarantees import NOISE

    return solved in NOISE or solved == "noise_multiplier"


def solved_text(solved: str, value: float, safe: bool = True) -> str:
    """A calibrated value as text, rounded towards safety (more noise, fewer steps, a smaller
    rate) when ``safe``, and away from it for the value that failed."""
    if solved == "steps":
        return str(int(value))
    from otbound.numerics.rounding import lower_text, upper_text

    return upper_text(value) if more_is_safe(solved) == safe else lower_text(value)


def method_text(guarantee) -> str:
    """``method …, `` for the output line, unless it is the tight one with an exact solver."""
    method = guarantee.details.get("method", "tight")
    if method == "tight":
        return ""
    posthoc = guarantee.details.get("posthoc")
    return f"method {method}{f' ({posthoc})' if posthoc else ''}, "


@dataclass(frozen=True)
class SummaryRow:
    """One derivation's line of ``derive --all``'s table."""

    name: str
    variants: int
    validity: str
    d_compatible: bool
    matches_published: bool
    elapsed: float
    passed: bool

    @staticmethod
    def of(report: DerivationReport | EpochReport) -> "SummaryRow":
        return SummaryRow(report.derivation.name, len(report.variants), report.validity,
                          report.d_compatible, report.matches_published, report.elapsed,
                          report.passed)


def summary(reports: Sequence[SummaryRow]) -> str:
    header = ("derivation", "variants", "validity", "d_Y-compatible", "matches published",
              "seconds")
    rows = [(r.name, str(r.variants), r.validity, _yes(r.d_compatible),
             _yes(r.matches_published), f"{r.elapsed:.1f}") for r in reports]
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in [header] + rows]
    total = sum(r.elapsed for r in reports)
    passed = sum(r.passed for r in reports)
    lines.append(f"{passed} of {len(reports)} derivations passed every check "
                 f"({total:.1f} s in total)")
    return "\n".join(lines)


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def shown(setting, mechanism) -> dict:
    """A setting and mechanism as the output shows them."""
    from otbound.numerics.mechanisms import describe

    return setting.describe() | describe(mechanism)


def composed_text(guarantee) -> str:
    """What was composed: steps, or epochs of an epoch-level scheme."""
    per_epoch = guarantee.details.get("steps_per_epoch")
    if per_epoch is None:
        return f"{guarantee.steps} steps"
    return f"{guarantee.steps} epoch{'s' if guarantee.steps != 1 else ''} of {per_epoch} steps"


def epochs_text(args: argparse.Namespace) -> list[str]:
    """How ``--epochs`` of a per-step scheme became steps (no line when it did not)."""
    converted = getattr(args, "steps_from_epochs", None)
    if converted is None:
        return []
    epochs = f"{converted.epochs} epoch{'s' if converted.epochs != 1 else ''}"
    return [f"  steps = {converted.steps} ({epochs} × {float(converted.per_epoch):.10g} steps "
            f"per epoch, {converted.source}"
            + ("; rounded up)" if converted.rounded_up else ")")]


def lower_text_of(value: float) -> str:
    """A lower end as printed: rounded down to the digits shown."""
    from otbound.numerics.rounding import lower_text

    return lower_text(value)


def account_text(args: argparse.Namespace, guarantee, setting: dict, lower=None) -> str:
    """``account``'s answer: the guarantee with how it was found, the accountants compared, a
    lower bound where one is given (shuffled batches), the setting, and a note when δ is at the
    PLD accountant's floor."""
    from otbound.numerics.rounding import upper_text

    epsilon, delta = pair_text(args, guarantee)
    floor = guarantee.details.get("at_floor")
    if floor is not None:
        delta = "≤ " + delta
    details = guarantee.details
    epoch = "steps_per_epoch" in details
    how = ", ".join(f"{k} {v}" for k, v in details.items()
                    if k not in ("compared", "at_floor", "method", "posthoc", "bound_used",
                                 "steps_per_epoch", "epochs", "epsilon_lower", "delta_lower",
                                 "lower_end", "substitution", "certified_bracket")
                    and not (epoch and k == "bound"))
    lines = [f"({epsilon}, {delta})-DP after {composed_text(guarantee)} — "
             f"{method_text(guarantee)}accountant {guarantee.accountant.value}"
             + (f" ({how})" if how else ""), *epochs_text(args)]
    if epoch:
        lines.append(f"  each epoch: {details.get('bound')}")
    if "certified_bracket" in details:
        lines.append(f"  certified: {details['certified_bracket']}")
    if "epsilon_lower" in details:
        lines.append(f"  lower end: every valid ε at δ = {args.delta:g} is at least "
                     f"{lower_text_of(details['epsilon_lower'])} ({details['lower_end']})")
    if "delta_lower" in details:
        lines.append(f"  lower end: every valid δ at ε = {args.epsilon:g} is at least "
                     f"{lower_text_of(details['delta_lower'])} ({details['lower_end']})")
    for name, other in guarantee.details.get("compared", {}).items():
        if "unavailable" in other:
            lines.append(f"  {name}: unavailable — {other['unavailable']}")
        else:
            value = "ε = " + upper_text(other["epsilon"]) if args.delta is not None \
                else "δ " + ("≤ " if "at_floor" in other else "= ") + upper_text(other["delta"])
            lines.append(f"  {name}: {value}")
    if "bound_used" in guarantee.details:
        lines.append("each step bounded by the smallest sound bound (at each point): "
                     + "; ".join(guarantee.details["bound_used"]))
    if isinstance(lower, Refusal):
        lines.append(lower.reason)
    elif lower is not None:
        what = (f"ε >= {lower.epsilon:.8g} at δ = {args.delta:g}" if args.delta is not None
                else f"δ >= {lower.delta:.8g} at ε = {args.epsilon:g}")
        lines.append(f"every valid guarantee has {what} ({lower.source})")
    lines.append("setting: " + setting_text(setting))
    if floor is not None:
        lines.append(f"note: δ is within the PLD accountant's floor ({floor:g}: its rounding "
                     "margin and the tails cut in each composition); the true δ may be far "
                     "smaller (--accountant rdp resolves smaller values)")
    return "\n".join(lines)


def calibration_text(args: argparse.Namespace, found, setting: dict) -> str:
    """``calibrate``'s answer: the solved value (``found.solved_for``, as --solve-for names it)
    rounded towards safety, the guarantee it was accounted to give (with the bound it rests on,
    where the route names one: an epoch-level scheme), and the setting."""
    from otbound.numerics.limits import show

    solved = found.solved_for
    which = "smallest" if more_is_safe(solved) else "largest"
    goal = (f"ε <= {show(args.target_epsilon)} at δ = {show(args.delta)}"
            if args.target_epsilon is not None
            else f"δ <= {show(args.target_delta)} at ε = {show(args.epsilon)}")
    beyond = ("" if found.unsafe is None
              else f"; not met at {solved_text(solved, found.unsafe, safe=False)}")
    guarantee = found.guarantee
    epsilon, delta = pair_text(args, guarantee)
    bound = guarantee.details.get("bound")
    return "\n".join([
        f"{solved} = {solved_text(solved, found.value)} (the {which} meeting {goal}{beyond})",
        f"verified: ({epsilon}, {delta})-DP after {composed_text(guarantee)} — "
        f"{method_text(guarantee)}accountant {guarantee.accountant.value}"
        + (f" ({bound})" if bound else ""), *epochs_text(args),
        "setting: " + setting_text(setting)])
