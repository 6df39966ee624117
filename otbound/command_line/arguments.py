"""The ``otbound`` command line's arguments: the parser of every command and its flags.

Only what building the parser needs is imported here (no numpy), so that ``--help`` starts at once;
what a flag means for the library is in :mod:`otbound.command_line.flags`.
"""

from __future__ import annotations

import argparse
import math
import re
from fractions import Fraction
from typing import NoReturn

from otbound.choices import (DEFAULT_DISCRETISATION, DEFAULT_TOLERANCE, Accountant, Conversion,
                             Method, Neighbouring, Posthoc, mechanism_choices)
from otbound.progress import LINE_INTERVAL

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

DESCRIPTION = ("Derive, verify, evaluate and audit privacy amplification bounds for subsampled "
               "mechanisms (conditional optimal transport, Schuchardt et al.).")
EXIT_CODES = ("exit codes: 0 success; 1 a check failed, an audited claim is unsound, or an "
              "internal error; 2 bad input")

class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and exit with code 2.

    Values such as ``-1e-6`` are read as (negative) numbers, not as options, so that the range
    checks can name them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-inf$")

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"otbound: error: {message} (see 'otbound --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="otbound", description=DESCRIPTION, epilog=EXIT_CODES)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    derive = commands.add_parser("derive", help="derive and check a bound from its ingredients")
    derive.add_argument("target", nargs="?", help="derivation name, file stem or path")
    derive.add_argument("--list", action="store_true", help="list the bundled derivations")
    derive.add_argument("--all", action="store_true",
                        help="run every bundled derivation (on every core)")
    derive.add_argument("--latex", action="store_true", help="print the theorem in LaTeX")
    derive.add_argument("--json", action="store_true", help="print one JSON object")
    derive.add_argument("--timings", action="store_true",
                        help="add elapsed_seconds to the JSON (which then differs between runs)")
    _add_params(derive, "a structural parameter of the derivation, e.g. K=16")
    derive.add_argument("--coupling", choices=["given", "auto"], default="given",
                        help="auto: replace each case's coupling by a search, by linear "
                             "programming on every instance of the grid, for a d_Y-compatible "
                             "coupling of the same events (or a certificate that none exists)")
    verify = commands.add_parser("verify", help="check a derivation three independent ways")
    verify.add_argument("target", help="derivation name, file stem or path")
    verify.add_argument("--max-n", type=int, default=6, help="largest dataset size (default 6)")
    verify.add_argument("--soundness-cases", "--samples", dest="samples", type=int,
                        default=2000, help="datasets and functions tried by the adversarial "
                        "soundness search, per derivation (default 2000)")
    verify.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    verify.add_argument("--mc-draws", type=int, default=200_000,
                        help="simulated draws per independent Monte Carlo row (default 200000)")
    verify.add_argument("--json", action="store_true", help="print one JSON object")
    verify.add_argument("--timings", action="store_true",
                        help="add elapsed_seconds to the JSON (which then differs between runs)")
    _add_params(verify, "a structural parameter of the derivation, e.g. K=4")
    _add_progress(verify)
    for name, values in (("rdp", "--alpha"), ("adp", "--epsilon")):
        command = commands.add_parser(
            name, help=f"{'Rényi' if name == 'rdp' else 'approximate'} DP of one subsampled step")
        _add_setting(command)
        command.add_argument(values, required=True, type=_numbers(values),
                             help="one value or a comma-separated list")
        command.add_argument("--json", action="store_true", help="print one JSON object")
        command.add_argument("--certified", action="store_true",
                             help="rigorous ball arithmetic (python-flint): each value is the "
                                  "upper end of a certified enclosure, its width the error")
        _add_plot(command, "the curve, one line per --method (e.g. --method tight,posthoc)")
    _add_account(commands)
    _add_calibrate(commands)
    _add_audit(commands)
    _add_figures(commands)
    return parser


def _add_plot(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument("--plot", metavar="FILE.png",
                         help=f"also write a PNG plot: {what} (needs matplotlib)")


def _add_progress(command: argparse.ArgumentParser) -> None:
    """``--quiet`` or ``--progress``: the progress line on stderr never, or also in a log."""
    shown = command.add_mutually_exclusive_group()
    shown.add_argument("--quiet", action="store_true",
                       help="no progress line on stderr (shown only when it is a terminal)")
    shown.add_argument("--progress", action="store_true",
                       help="show progress on stderr even when it is not a terminal (a log, "
                            f"CI): plain lines, at most one every {LINE_INTERVAL:g} s, and the "
                            "time taken at the end")


def _add_figures(commands) -> None:
    figures = commands.add_parser("figures", help="regenerate the seeds' main figures and the docs' figures (PNG)")
    figures.add_argument("--out", default="docs/figures", metavar="DIR",
                         help="folder to write them to (default docs/figures)")
    figures.add_argument("--list", action="store_true", help="list the figures")
    figures.add_argument("--check", action="store_true",
                         help="recompute the figures' data and compare it with the NAME.json "
                              "files in --out (exit 1 when one is stale; needs no matplotlib)")
    figures.add_argument("names", nargs="*", metavar="NAME", help="only these figures")
    _add_progress(figures)


def _add_audit(commands) -> None:
    audit = commands.add_parser("audit", help="judge published bounds against otbound's")
    audit.add_argument("targets", nargs="*", metavar="NAME_OR_FILE",
                       help="audit entries (names, file stems or paths)")
    audit.add_argument("--all", action="store_true", help="every bundled entry")
    audit.add_argument("--list", action="store_true", help="list the bundled entries")
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    audit.add_argument("--markdown", nargs="?", const="docs/audit.md", metavar="PATH",
                       help="write the report with its plots (default docs/audit.md)")
    audit.add_argument("--workers", type=int, help="local processes (default: one per core)")
    audit.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on a Dask distributed cluster (pip install 'otbound[dask]')")
    _add_progress(audit)


def _numbers(flag: str):
    def parse(text: str) -> list[float]:
        try:
            return [float(part) for part in text.split(",")]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{flag} takes a number or a comma-separated list of numbers, got {text!r}"
            ) from None
    return parse


class Rate(float):
    """A rate as accounted (a double), with ``exact``, the rate as typed (for ``--epochs``: an
    epoch is ``1/exact`` steps)."""

    exact: Fraction

    def __new__(cls, exact: Fraction) -> Rate:
        value = float(exact)
        rate = super().__new__(cls, math.nextafter(value, math.inf) if Fraction(value) < exact
                               else value)
        rate.exact = exact
        return rate


def _rate(text: str) -> Rate:
    """A rate as a number (``0.01``) or an exact fraction (``256/60000``), read exactly and
    rounded up to a double (a larger rate only raises the bound: a positive rate too small for
    a double becomes the smallest double, never 0)."""
    try:
        return Rate(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(
            f"--rate takes a number or a fraction such as 256/60000, got {text!r}") from None


def _methods(text: str) -> list[Method]:
    names = [part.strip() for part in text.split(",")]
    allowed = [m.value for m in Method]
    if any(name not in allowed for name in names) or len(set(names)) < len(names):
        raise argparse.ArgumentTypeError(
            f"--method takes one of {', '.join(allowed)} or a comma-separated list of distinct "
            f"ones, got {text!r}")
    return [Method(name) for name in names]


def _add_params(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                         type=_param, help=f"{what} (repeat for several)")


def _param(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"--param takes NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()


def _add_setting(command: argparse.ArgumentParser, account: bool = False) -> None:
    command.add_argument("--scheme", choices=("poisson", "wor", "truncated-poisson",
                                              "random-allocation", "balls-in-bins", "shuffle"),
                         help="a built-in setting (a shorthand for a bundled derivation); "
                              "random-allocation, balls-in-bins and shuffle are epoch-level "
                              "(one epoch for rdp and adp, --epochs for account and calibrate; "
                              "shuffle: the mechanism once per epoch, no amplification, and "
                              "account adds Chua et al. 2024's lower bound)")
    command.add_argument("--derivation", metavar="NAME_OR_FILE",
                         help="evaluate the bound of this derivation (instead of --scheme)")
    _add_params(command, "a parameter of the derivation, structural or of its scheme, named as "
                         "in the derivation file (e.g. K=16, r=0.2, q=10, N=1000)")
    command.add_argument("--rate", type=_rate, help="Poisson sampling rate r in [0, 1], as a "
                         "number or a fraction (256/60000)")
    command.add_argument("--group", type=int, help="every pair at insertion/removal distance <= K "
                         "(epoch-level schemes: a user's K records, each allocated "
                         "independently)")
    command.add_argument("--insertions", type=int, help="K+ inserted elements (one pair)")
    command.add_argument("--removals", type=int, help="K- removed elements (one pair)")
    command.add_argument("--batch-size", type=int, help="batch size q (--scheme wor); with "
                         "--scheme poisson, the expected batch size B instead of --rate "
                         "(rate B/N)")
    command.add_argument("--dataset-size", type=int, help="dataset size N")
    command.add_argument("--substitutions", type=int, help="substituted elements (--scheme wor)")
    command.add_argument("--steps-per-epoch", type=int, help="steps T of an epoch (--scheme "
                         "random-allocation)")
    command.add_argument("--selected", type=int, help="steps k of the epoch each record is in "
                         "(--scheme random-allocation; default 1, balls-in-bins)")
    command.add_argument("--mechanism", required=True, choices=mechanism_choices())
    command.add_argument("--sigma", type=float, help="σ of the noise: the Gaussian's standard "
                         "deviation, another family's parameter σ (σ/L is the noise "
                         "multiplier; L = --sensitivity)")
    command.add_argument("--noise-multiplier", type=float, help="the Gaussian noise's σ/L "
                         "(Opacus's and TF Privacy's noise_multiplier), instead of --sigma: "
                         "σ = this × --sensitivity (σ itself at the default L = 1)")
    command.add_argument("--scale", type=float, help="scale b of the Laplace noise (b/L is "
                         "the noise multiplier; L = --sensitivity)")
    command.add_argument("--theta", type=float, help="true-response probability in (0, 1)")
    command.add_argument("--sensitivity", type=float, help="sensitivity L of the function "
                         "per unit of the batch distance d_Y (default 1; the output names "
                         "the unit)")
    command.add_argument("--max-batch", type=int, help="truncated batch size B")
    command.add_argument("--neighbouring", choices=[n.value for n in Neighbouring],
                         help="relation for --scheme truncated-poisson, random-allocation or "
                              "balls-in-bins (default add-remove; replace-one: one record "
                              "replaced by another)")
    if not account:
        command.add_argument("--method", default="tight", type=_methods,
                             help="tight (default), agnostic or posthoc; a comma-separated "
                                  "list of them with --plot, to compare them")


def _add_account(commands) -> None:
    command = commands.add_parser("account", help="(ε, δ) of many subsampled steps")
    _add_setting(command, account=True)
    command.add_argument("--steps", type=int, help="number of steps T >= 1")
    _add_epochs(command)
    target = command.add_mutually_exclusive_group(required=True)
    target.add_argument("--delta", type=float, help="report ε at this δ in (0, 1)")
    target.add_argument("--epsilon", type=float, help="report δ at this ε >= 0")
    _add_accounting(command)
    command.add_argument("--json", action="store_true", help="print one JSON object")
    command.add_argument("--certified", action="store_true",
                         help="each step's RDP curve from certified enclosures of its dominating "
                              "pairs (python-flint; --accountant rdp, --method tight or posthoc); "
                              "on random allocation and balls-in-bins, both ends of the epochs' "
                              "PLD bracket in ball arithmetic (--accountant pld or best)")
    _add_plot(command, "ε at --delta (or δ at --epsilon) over the number of steps, on a log "
                       "grid up to --steps, one line per accountant")
    _add_progress(command)


def _add_epochs(command: argparse.ArgumentParser) -> None:
    command.add_argument("--epochs", type=int, help="number of epochs E >= 1, instead of "
                         "--steps (an epoch-level --scheme or --derivation composes epochs; "
                         "--scheme poisson, wor or truncated-poisson takes E × N/B steps, "
                         "B = --batch-size (Poisson: expected) and N = --dataset-size, or "
                         "E/r at --rate r, rounded up, as the output shows)")


def _add_accounting(command: argparse.ArgumentParser) -> None:
    """How ``account`` and ``calibrate`` bound the steps and compose them."""
    command.add_argument("--method", default="tight", choices=[m.value for m in Method],
                         help="tight (default: the dominating pairs; without replacement, "
                              "where Gaussian and Laplace noise have no exact solver, the "
                              "better of 001 Prop. E.5's pairs and the agnostic bound, named "
                              "in the output), agnostic (per-step mechanism-agnostic bounds) "
                              "or posthoc (group privacy after the K = 1 bound; --scheme "
                              "poisson or wor)")
    command.add_argument("--posthoc", choices=[p.value for p in Posthoc],
                         help="where --method posthoc applies group privacy: step-profile "
                              "(to each step's K = 1 profile, then composed), composed (once, "
                              "to the composed K = 1 guarantee), step-pair (to each step's "
                              "(ε, δ) pair, composed exactly), or best (default: all three, "
                              "the smallest answer)")
    command.add_argument("--accountant", default="best", choices=[a.value for a in Accountant],
                         help="best (default: both, the smaller answer), rdp or pld")
    command.add_argument("--conversion", choices=[c.value for c in Conversion],
                         help="RDP to (ε, δ) conversion (--accountant rdp or best; "
                              "default optimal)")
    command.add_argument("--discretisation", type=float,
                         help="PLD loss grid (--accountant pld or best; "
                              f"default {DEFAULT_DISCRETISATION:g})")


def _add_calibrate(commands) -> None:
    command = commands.add_parser(
        "calibrate", help="the smallest noise, or the largest number of steps or rate, that "
                          "meets a target (ε, δ)")
    _add_setting(command, account=True)
    command.add_argument("--steps", type=int, help="number of steps T >= 1 (unless solved for)")
    _add_epochs(command)
    command.add_argument("--solve-for", required=True,
                         choices=("sigma", "noise-multiplier", "scale", "steps", "rate"),
                         help="the quantity to solve for: sigma, noise-multiplier (σ/L) or "
                              "scale (the smallest), steps or rate (the largest); leave its "
                              "own flag out")
    command.add_argument("--target-epsilon", type=float, help="meet ε <= this at --delta")
    command.add_argument("--target-delta", type=float, help="meet δ <= this at --epsilon")
    command.add_argument("--delta", type=float, help="δ at which --target-epsilon is met")
    command.add_argument("--epsilon", type=float, help="ε at which --target-delta is met")
    command.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                         help="relative width of the final bracket of sigma, scale or rate, "
                              f"in [1e-9, 0.1] (default {DEFAULT_TOLERANCE:g}); steps are "
                              "always found exactly")
    _add_accounting(command)
    command.add_argument("--json", action="store_true",
                         help="print one JSON object (the solved quantity as its key)")
    _add_progress(command)
