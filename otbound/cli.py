"""The ``otbound`` command line.

``otbound derive --list`` lists the catalogue; ``otbound derive NAME_OR_PATH [--latex] [--json]``
derives one bound and prints it with its checks; ``otbound derive --all`` runs every derivation and
prints a summary table. ``otbound rdp`` and ``otbound adp`` evaluate the privacy of one subsampled
step; ``otbound account`` composes many steps into (ε, δ) with an RDP or PLD accountant;
``otbound verify`` checks a derivation by exact enumeration, Monte Carlo and an adversarial
soundness search; ``otbound audit`` judges published bounds (``audits/``) against otbound's.
Exit codes: 0 on success, 1 when a check fails or an audited claim is unsound (or otbound itself
fails: an internal error), 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from typing import TYPE_CHECKING

# Only what building the parser needs is imported here (no numpy); each command imports the
# rest when it runs, so that --help needs no scipy and one RDP point no sympy or dp_accounting.
from otbound.choices import (DEFAULT_DISCRETISATION, Accountant, Conversion, Method, Neighbouring,
                             Posthoc)
from otbound.errors import (AuditFileError, DerivationFileError, InvalidSpecification, OtboundError,
                            UnsupportedOperation)
from otbound.progress import Progress

DESCRIPTION = ("Derive, verify, evaluate and audit privacy amplification bounds for subsampled "
               "mechanisms (conditional optimal transport, Schuchardt et al.).")
EXIT_CODES = ("exit codes: 0 success; 1 a check failed, an audited claim is unsound, or an "
              "internal error; 2 bad input")

if TYPE_CHECKING:
    from otbound.accounting.accountant import Guarantee
    from otbound.engine.derivation import Derivation
    from otbound.engine.report import DerivationReport
    from otbound.numerics.derived import DerivedSetting
    from otbound.numerics.mechanisms import Mechanism
    from otbound.numerics.settings import Subsampling

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _UsageError(OtboundError, ValueError):
    """A command-line call that does not make sense."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and exit with code 2.

    Values such as ``-1e-6`` are read as (negative) numbers, not as options, so that the range
    checks can name them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-inf$")

    def error(self, message: str) -> None:
        self.exit(EXIT_USAGE, f"otbound: error: {message} (see 'otbound --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="otbound", description=DESCRIPTION, epilog=EXIT_CODES)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    derive = commands.add_parser("derive", help="derive and check a bound from its ingredients")
    derive.add_argument("target", nargs="?", help="derivation name, file stem or path")
    derive.add_argument("--list", action="store_true", help="list the bundled derivations")
    derive.add_argument("--all", action="store_true", help="run every bundled derivation")
    derive.add_argument("--latex", action="store_true", help="print the theorem in LaTeX")
    derive.add_argument("--json", action="store_true", help="print one JSON object")
    derive.add_argument("--timings", action="store_true",
                        help="add elapsed_seconds to the JSON (which then differs between runs)")
    _add_params(derive, "a structural parameter of the derivation, e.g. K=16")
    derive.add_argument("--coupling", choices=["given", "auto"], default="given",
                        help="auto: replace each case's coupling by a search, by linear "
                             "programming on every instance of the grid, for a d_Y-compatible "
                             "coupling of the same events (or a certificate that none exists)")
    derive.set_defaults(handler=_derive)
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
    _add_quiet(verify)
    verify.set_defaults(handler=_verify)
    for name, values, handler in (("rdp", "--alpha", _rdp), ("adp", "--epsilon", _adp)):
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
        command.set_defaults(handler=handler)
    _add_account(commands)
    _add_calibrate(commands)
    _add_audit(commands)
    _add_figures(commands)
    return parser


def _add_plot(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument("--plot", metavar="FILE.png",
                         help=f"also write a PNG plot: {what} (needs matplotlib)")


def _add_quiet(command: argparse.ArgumentParser) -> None:
    command.add_argument("--quiet", action="store_true",
                         help="no progress line on stderr (shown only when it is a terminal)")


def _add_figures(commands) -> None:
    figures = commands.add_parser("figures", help="regenerate the seeds' main figures (PNG)")
    figures.add_argument("--out", default="docs/figures", metavar="DIR",
                         help="folder to write them to (default docs/figures)")
    figures.add_argument("--list", action="store_true", help="list the figures")
    figures.add_argument("names", nargs="*", metavar="NAME", help="only these figures")
    _add_quiet(figures)
    figures.set_defaults(handler=_figures)


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
    _add_quiet(audit)
    audit.set_defaults(handler=_audit)


def _numbers(flag: str):
    def parse(text: str) -> list[float]:
        try:
            return [float(part) for part in text.split(",")]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{flag} takes a number or a comma-separated list of numbers, got {text!r}")
    return parse


def _rate(text: str) -> float:
    """A rate as a number (``0.01``) or an exact fraction (``256/60000``: the nearest double)."""
    from fractions import Fraction

    try:
        return float(Fraction(text.strip())) if "/" in text else float(text)
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
    schemes = ("poisson", "wor", "truncated-poisson") if account else ("poisson", "wor")
    command.add_argument("--scheme", choices=schemes,
                         help="a built-in setting (a shorthand for a bundled derivation)")
    command.add_argument("--derivation", metavar="NAME_OR_FILE",
                         help="evaluate the bound of this derivation (instead of --scheme)")
    _add_params(command, "a parameter of the derivation, structural or of its scheme, named as "
                         "in the derivation file (e.g. K=16, r=0.2, q=10, N=1000)")
    command.add_argument("--rate", type=_rate, help="Poisson sampling rate r in [0, 1], as a "
                         "number or a fraction (256/60000)")
    command.add_argument("--group", type=int, help="every pair at insertion/removal distance <= K")
    command.add_argument("--insertions", type=int, help="K+ inserted elements (one pair)")
    command.add_argument("--removals", type=int, help="K- removed elements (one pair)")
    command.add_argument("--batch-size", type=int, help="batch size q (--scheme wor); with "
                         "--scheme poisson, the expected batch size B instead of --rate "
                         "(rate B/N)")
    command.add_argument("--dataset-size", type=int, help="dataset size N")
    command.add_argument("--substitutions", type=int, help="substituted elements (--scheme wor)")
    command.add_argument("--mechanism", required=True,
                         choices=("gaussian", "laplace", "randomized-response"))
    command.add_argument("--sigma", type=float, help="standard deviation σ of the Gaussian "
                         "noise (σ/L is the noise multiplier; L = --sensitivity)")
    command.add_argument("--scale", type=float, help="scale b of the Laplace noise (b/L is "
                         "the noise multiplier; L = --sensitivity)")
    command.add_argument("--theta", type=float, help="true-response probability in (0, 1)")
    command.add_argument("--sensitivity", type=float, help="sensitivity L of the function "
                         "per unit of the batch distance d_Y (default 1; the output names "
                         "the unit)")
    if not account:
        command.add_argument("--method", default="tight", type=_methods,
                             help="tight (default), agnostic or posthoc; a comma-separated "
                                  "list of them with --plot, to compare them")
        return
    command.add_argument("--max-batch", type=int, help="truncated batch size B")
    command.add_argument("--neighbouring", choices=[n.value for n in Neighbouring],
                         help="relation for --scheme truncated-poisson (default add-remove)")


def _add_account(commands) -> None:
    command = commands.add_parser("account", help="(ε, δ) of many subsampled steps")
    _add_setting(command, account=True)
    command.add_argument("--steps", required=True, type=int, help="number of steps T >= 1")
    target = command.add_mutually_exclusive_group(required=True)
    target.add_argument("--delta", type=float, help="report ε at this δ in (0, 1)")
    target.add_argument("--epsilon", type=float, help="report δ at this ε >= 0")
    _add_accounting(command)
    command.add_argument("--json", action="store_true", help="print one JSON object")
    command.add_argument("--certified", action="store_true",
                         help="each step's RDP curve from certified enclosures of its dominating "
                              "pairs (python-flint; --accountant rdp, --method tight or posthoc)")
    _add_plot(command, "ε at --delta (or δ at --epsilon) over the number of steps, on a log "
                       "grid up to --steps, one line per accountant")
    _add_quiet(command)
    command.set_defaults(handler=_account)


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
    command.add_argument("--solve-for", required=True, choices=("sigma", "scale", "steps", "rate"),
                         help="the quantity to solve for: sigma or scale (the smallest), steps "
                              "or rate (the largest); leave its own flag out")
    command.add_argument("--target-epsilon", type=float, help="meet ε <= this at --delta")
    command.add_argument("--target-delta", type=float, help="meet δ <= this at --epsilon")
    command.add_argument("--delta", type=float, help="δ at which --target-epsilon is met")
    command.add_argument("--epsilon", type=float, help="ε at which --target-delta is met")
    _add_accounting(command)
    command.add_argument("--json", action="store_true",
                         help="print one JSON object (the solved quantity as its key)")
    _add_quiet(command)
    command.set_defaults(handler=_calibrate)


_FLAGS = {
    "count": "--steps", "alpha": "--alpha", "alphas": "--alpha", "epsilon": "--epsilon",
    "epsilons": "--epsilon", "delta": "--delta", "rate": "--rate", "group": "--group",
    "insertions": "--insertions", "removals": "--removals", "batch_size": "--batch-size",
    "dataset_size": "--dataset-size", "substitutions": "--substitutions", "scheme": "--scheme",
    "sigma": "--sigma", "scale": "--scale", "theta": "--theta", "sensitivity": "--sensitivity",
    "method": "--method", "max_batch": "--max-batch", "neighbouring": "--neighbouring",
    "accountant": "--accountant", "conversion": "--conversion", "posthoc": "--posthoc",
    "target_epsilon": "--target-epsilon", "target_delta": "--target-delta",
    "solve_for": "--solve-for",
    "discretisation": "--discretisation", "seed": "--seed", "samples": "--soundness-cases",
    "max_n": "--max-n", "workers": "--workers",
}
"""The flag of each library parameter that a command sets, for the library's error messages."""
_SETTING = re.compile(r"(?<![\w-])([a-z_]+)=(?:'([^']*)'|([^\s,;:)'\"]+))")
_NAME = re.compile(r"(?<![\w-])[a-z_]+(?![\w=-])")
_USER_ERRORS = (InvalidSpecification, UnsupportedOperation, DerivationFileError, AuditFileError,
                _UsageError)


def main(argv: list[str] | None = None) -> int:
    """Run one command: exit 2 for bad input, 1 for a failed check or an internal error."""
    args = build_parser().parse_args(argv)
    try:
        _require_extras(args)
        return args.handler(args)
    except BrokenPipeError:   # the reader stopped early (``| head``): stop quietly, output cut
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except _USER_ERRORS as error:
        print(f"otbound: error: {_flag_message(error)}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:   # InternalError and anything unforeseen: a defect of otbound
        detail = " ".join(f"{type(error).__name__}: {error}".split())
        print("otbound: internal error (not a problem with your input; please report it): "
              + detail, file=sys.stderr)
        return EXIT_FAILED


def _require_extras(args: argparse.Namespace) -> None:
    """Refuse at once, before any long computation, a flag whose optional package is missing."""
    from otbound.optional import require

    if getattr(args, "plot", None):
        require("matplotlib", "--plot")
    if getattr(args, "markdown", None):
        require("matplotlib", "the audit report's plots (--markdown)")
    if args.command == "figures" and not args.list:
        require("matplotlib", "otbound figures")
    if getattr(args, "scheduler", None):
        require("distributed", "--scheduler (a Dask cluster)")


def _flag_message(error: OtboundError) -> str:
    """The library's message, with its parameters spelt as the flags that set them.

    ``name='value'`` (advice such as ``accountant='rdp'``) becomes ``--flag value`` in every
    message; a bare parameter name becomes its flag only in an error about a parameter with a
    flag, since elsewhere the same word may be plain English ("the PLD accountant")."""
    def setting(match: re.Match) -> str:
        flag = _FLAGS.get(match[1])
        return f"{flag} {match[2] or match[3]}" if flag else match[0]

    if isinstance(error, (AuditFileError, DerivationFileError)):
        return str(error)   # about the user's file, in its own words
    message = _SETTING.sub(setting, str(error))
    if getattr(error, "parameter", None) in _FLAGS:
        message = _NAME.sub(lambda match: _FLAGS.get(match[0], match[0]), message)
    return message


def _coupled(derivation: Derivation, args: argparse.Namespace) -> Derivation:
    """The derivation, with its couplings searched on each instance for ``--coupling auto``."""
    if args.coupling == "given":
        return derivation
    from otbound.engine.derivation import with_searched_couplings

    return with_searched_couplings(derivation)


def _derive(args: argparse.Namespace) -> int:
    chosen = sum(bool(x) for x in (args.list, args.all, args.target))
    if chosen != 1:
        raise _UsageError("derive needs exactly one of NAME_OR_PATH, --list or --all")
    if args.param and not args.target:
        raise _UsageError("--param applies to one derivation (derive NAME --param K=16)")
    from otbound.engine.bundled import bundled_derivations, load_derivation
    from otbound.engine.derivation import run

    if args.list:
        for path, derivation in bundled_derivations():
            print(f"{derivation.name:16} {path.stem:14} {derivation.source}: {derivation.title}")
        return EXIT_OK
    if args.all:
        reports = [run(_coupled(derivation, args)) for _, derivation in bundled_derivations()]
        if args.json:
            print(json.dumps([r.to_json(timings=args.timings) for r in reports], indent=2,
                             ensure_ascii=False))
        else:
            print(_summary(reports))
        return EXIT_OK if all(r.passed for r in reports) else EXIT_FAILED
    derivation = load_derivation(args.target)
    report = run(_coupled(derivation.at(_params(args.param)) if args.param else derivation, args))
    if args.json:
        print(json.dumps(report.to_json(timings=args.timings), indent=2, ensure_ascii=False))
    elif args.latex:
        print(report.to_latex())
    else:
        print(report.to_text())
    return EXIT_OK if report.passed else EXIT_FAILED


_MECHANISM_FLAGS = {"gaussian": "sigma", "laplace": "scale", "randomized-response": "theta"}


def _mechanism(args: argparse.Namespace) -> Mechanism:
    from otbound.numerics.mechanisms import RandomizedResponse, gaussian, laplace

    needed = _MECHANISM_FLAGS[args.mechanism]
    for flag in _MECHANISM_FLAGS.values():
        if flag != needed and getattr(args, flag) is not None:
            raise InvalidSpecification(f"--{flag} does not apply to --mechanism {args.mechanism}")
    if getattr(args, needed) is None:
        raise InvalidSpecification(f"--mechanism {args.mechanism} needs --{needed}")
    if args.mechanism == "randomized-response":
        if args.sensitivity is not None:
            raise InvalidSpecification("--sensitivity does not apply to randomized response")
        return RandomizedResponse(args.theta)
    sensitivity = 1.0 if args.sensitivity is None else args.sensitivity
    make = gaussian if args.mechanism == "gaussian" else laplace
    return make(getattr(args, needed), sensitivity)


def _params(pairs: list[tuple[str, str]]) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, value in pairs:
        if name in values:
            raise InvalidSpecification(f"--param {name} is given twice")
        values[name] = value
    return values


_SETTING_FLAGS = ("rate", "group", "insertions", "removals", "batch_size", "dataset_size",
                  "substitutions", "max_batch", "neighbouring")


def _derived_setting(args: argparse.Namespace) -> DerivedSetting:
    """``--derivation NAME --param …``: the derivation's bound at the given parameters."""
    from otbound.engine.bundled import load_derivation
    from otbound.numerics.derived import derived_setting

    given = [f"--{flag.replace('_', '-')}" for flag in _SETTING_FLAGS
             if getattr(args, flag, None) is not None]
    if args.scheme is not None or given:
        flag = "--scheme" if args.scheme is not None else given[0]
        raise InvalidSpecification(f"{flag} does not apply with --derivation: every parameter "
                                   "of a derivation is given with --param NAME=VALUE")
    return derived_setting(load_derivation(args.derivation), _params(args.param))


def _subsampling(args: argparse.Namespace) -> Subsampling:
    from otbound.numerics.settings import Subsampling

    if args.scheme is None:
        raise InvalidSpecification("give a setting: --scheme (poisson, wor …) or "
                                   "--derivation NAME_OR_FILE")
    if args.param:
        raise InvalidSpecification("--param applies with --derivation; a built-in setting "
                                   "takes its flags (--rate, --group …)")
    return Subsampling(args.scheme, rate=args.rate, batch_size=args.batch_size,
                       dataset_size=args.dataset_size, group=args.group,
                       insertions=args.insertions, removals=args.removals,
                       substitutions=args.substitutions)


def _setting(args: argparse.Namespace
             ) -> tuple[Subsampling | DerivedSetting, Mechanism, list[Method]]:
    setting = _derived_setting(args) if args.derivation else _subsampling(args)
    return setting, _mechanism(args), args.method


def _finite(values: list[float]) -> None:
    if not all(math.isfinite(v) for v in values):
        raise UnsupportedOperation("the bound is not finite for this setting")


def _evaluate(args: argparse.Namespace, inputs: str, outputs: str, evaluate) -> int:
    """``rdp``/``adp``: each --method's result (several only with --plot, which compares them
    in one plot), printed one after the other (JSON: one object, or a list of them)."""
    setting, mechanism, methods = _setting(args)
    if len(methods) > 1 and not args.plot:
        raise _UsageError(f"--method takes several methods ({', '.join(m.value for m in methods)})"
                          " only with --plot FILE.png, which compares them in one plot")
    # every method evaluated before anything is printed: a refused method prints nothing
    results = [_evaluate_method(args, inputs, outputs, evaluate, setting, mechanism, method)
               for method in methods]
    if args.plot:
        from otbound.plots.charts import one_step_chart, write

        write(one_step_chart(results, inputs, outputs), args.plot)
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else results, indent=2))
        return EXIT_OK
    for result in results:
        _print_evaluation(result, inputs, outputs)
    return EXIT_OK


def _evaluate_method(args: argparse.Namespace, inputs: str, outputs: str, evaluate,
                     setting: Subsampling | DerivedSetting, mechanism: Mechanism,
                     method: Method) -> dict:
    """One method's result, as in the JSON output."""
    from otbound.numerics.mechanisms import describe
    from otbound.numerics.one_step import explain

    points = getattr(args, inputs)
    bounds = evaluate(setting, mechanism, method, points, certified=args.certified)
    values = [b.value for b in bounds]
    _finite(values)
    result = {inputs: points, outputs: values, "error_bound": [b.error for b in bounds],
              "method": method.value, "setting": setting.describe() | describe(mechanism)}
    if args.certified:
        result["certified"] = True
    result["pairs"] = explain(setting, mechanism, method, renyi=outputs == "epsilon")
    return result


def _print_evaluation(result: dict, inputs: str, outputs: str) -> None:
    """One method's result as text: a heading, then a table of the points."""
    from otbound.numerics.limits import show
    from otbound.numerics.rounding import upper_text

    print(f"{'RDP' if outputs == 'epsilon' else 'ADP'} of one step — method {result['method']}; "
          + _setting_text(result["setting"]))
    if "pairs" in result:
        print(f"dominating pairs: {result['pairs']}")
    if result.get("certified"):
        print("certified: upper ends of rigorous enclosures (error bound = enclosure width)")
    print(f"{inputs:>12}  {outputs:>16}  {'error bound':>11}")
    for point, value, error in zip(result[inputs], result[outputs], result["error_bound"]):
        print(f"{show(point):>12}  {upper_text(value):>16}  {upper_text(error, 2):>11}")


def _setting_text(setting: dict) -> str:
    """A setting as ``name = value, …``: the rate with where it came from, the sensitivity
    with its unit of distance."""
    shown = {k: v for k, v in setting.items() if k not in ("rate_from", "distance_unit")}
    if "rate_from" in setting:
        shown["rate"] = f"{shown['rate']} ({setting['rate_from']})"
    if "sensitivity" in shown and "distance_unit" in setting:
        shown["sensitivity"] = f"{shown['sensitivity']} per {setting['distance_unit']}"
    return ", ".join(f"{k} = {v}" for k, v in shown.items())


def _rdp(args: argparse.Namespace) -> int:
    from otbound.numerics.one_step import rdp

    return _evaluate(args, "alpha", "epsilon", rdp)


def _adp(args: argparse.Namespace) -> int:
    from otbound.numerics.one_step import adp

    return _evaluate(args, "epsilon", "delta", adp)


def _account(args: argparse.Namespace) -> int:
    from otbound.numerics.certified import certified_mode
    from otbound.numerics.rounding import upper_text

    if args.plot and args.method != Method.TIGHT.value:
        raise _UsageError("account --plot draws --method tight only; drop --plot or --method")
    if args.certified and (args.accountant != Accountant.RDP.value
                           or args.method == Method.AGNOSTIC.value):
        raise _UsageError("account --certified needs --accountant rdp and --method tight or "
                          "posthoc (certified enclosures of the steps' dominating pairs)")
    with Progress("account", quiet=args.quiet) as progress, certified_mode(args.certified):
        progress(f"composing {args.steps} steps ({args.accountant})")
        guarantee, setting = _guarantee(args)
        if args.plot:
            _plot_account(args, progress)
    result = {"epsilon": guarantee.epsilon, "delta": guarantee.delta, "steps": guarantee.steps,
              "accountant": guarantee.accountant.value, "method": "tight", "setting": setting}
    result |= guarantee.details
    if args.certified:
        result["certified"] = True
    if args.json:
        print(json.dumps(result, indent=2))
        return EXIT_OK
    epsilon, delta = _pair_text(args, guarantee)
    floor = guarantee.details.get("at_floor")
    if floor is not None:
        delta = "≤ " + delta
    how = ", ".join(f"{k} {v}" for k, v in guarantee.details.items()
                    if k not in ("compared", "at_floor", "method", "posthoc"))
    print(f"({epsilon}, {delta})-DP after {guarantee.steps} steps — {_method_text(guarantee)}"
          f"accountant {guarantee.accountant.value} ({how})")
    for name, other in guarantee.details.get("compared", {}).items():
        if "unavailable" in other:
            print(f"  {name}: unavailable — {other['unavailable']}")
        else:
            value = "ε = " + upper_text(other["epsilon"]) if args.delta is not None \
                else "δ " + ("≤ " if "at_floor" in other else "= ") + upper_text(other["delta"])
            print(f"  {name}: {value}")
    print("setting: " + _setting_text(setting))
    if floor is not None:
        print(f"note: δ is within the PLD accountant's floor ({floor:g}: its rounding margin "
              "and the tails cut in each composition); the true δ may be far smaller "
              "(--accountant rdp resolves smaller values)")
    return EXIT_OK


def _calibrate(args: argparse.Namespace) -> int:
    """``calibrate``: the safe value of --solve-for that meets the target (one API call,
    :func:`otbound.accounting.guarantees.calibrate`, which accounts it again before reporting)."""
    from otbound.accounting.guarantees import NOISE, calibrate
    from otbound.numerics.limits import show

    solved = _check_calibration(args)
    start = (args.sensitivity or 1.0) if solved in NOISE else _PLACEHOLDER[solved]
    placeholder = argparse.Namespace(**(vars(args) | {solved: start}))
    setting, mechanism, options = _account_inputs(placeholder)
    with Progress("calibrate", quiet=args.quiet) as progress:
        found = calibrate(setting, mechanism, placeholder.steps, solve_for=solved,
                          target_epsilon=args.target_epsilon, target_delta=args.target_delta,
                          progress=progress, **options)
    guarantee = found.guarantee
    solution = argparse.Namespace(**(vars(args) | {solved: found.value}))
    target = ({"epsilon": args.target_epsilon, "delta": args.delta}
              if args.target_epsilon is not None
              else {"delta": args.target_delta, "epsilon": args.epsilon})
    result = {solved: found.value, "epsilon": guarantee.epsilon, "delta": guarantee.delta,
              "steps": guarantee.steps, "accountant": guarantee.accountant.value,
              "method": guarantee.details.get("method", "tight"), "target": target,
              "unsafe": found.unsafe, "setting": _shown(*_account_inputs(solution)[:2])
              } | guarantee.details
    if args.json:
        print(json.dumps(result, indent=2))
        return EXIT_OK
    which = "smallest" if solved in NOISE else "largest"
    goal = (f"ε <= {show(args.target_epsilon)} at δ = {show(args.delta)}"
            if args.target_epsilon is not None
            else f"δ <= {show(args.target_delta)} at ε = {show(args.epsilon)}")
    beyond = ("" if found.unsafe is None
              else f"; not met at {_solved_text(solved, found.unsafe, safe=False)}")
    print(f"{solved} = {_solved_text(solved, found.value)} (the {which} meeting {goal}{beyond})")
    epsilon, delta = _pair_text(args, guarantee)
    print(f"verified: ({epsilon}, {delta})-DP after "
          f"{guarantee.steps} steps — {_method_text(guarantee)}accountant "
          f"{guarantee.accountant.value}")
    print("setting: " + _setting_text(result["setting"]))
    return EXIT_OK


_PLACEHOLDER = {"steps": 1, "rate": 0.5}
"""A value for the quantity solved for, so that the setting can be built before it is known."""


def _pair_text(args: argparse.Namespace, guarantee) -> tuple[str, str]:
    """``(ε, δ)`` of a guarantee as text: the one given as a flag as given, the other a bound
    rounded up."""
    from otbound.numerics.limits import show
    from otbound.numerics.rounding import upper_text

    return (show(args.epsilon) if args.epsilon is not None else upper_text(guarantee.epsilon),
            show(args.delta) if args.delta is not None else upper_text(guarantee.delta))


def _solved_text(solved: str, value: float, safe: bool = True) -> str:
    """A calibrated value as text, rounded towards safety (more noise, fewer steps, a smaller
    rate) when ``safe``, and away from it for the value that failed."""
    if solved == "steps":
        return str(int(value))
    from otbound.accounting.guarantees import NOISE
    from otbound.numerics.rounding import lower_text, upper_text

    up = (solved in NOISE) == safe
    return upper_text(value) if up else lower_text(value)


def _check_calibration(args: argparse.Namespace) -> str:
    """The quantity solved for, once the flags make a calibration."""
    from otbound.accounting.guarantees import NOISE

    solved = args.solve_for
    if not ((args.target_epsilon is not None and args.delta is not None
             and args.target_delta is None and args.epsilon is None)
            or (args.target_delta is not None and args.epsilon is not None
                and args.target_epsilon is None and args.delta is None)):
        raise _UsageError("calibrate needs --target-epsilon E with --delta D, or "
                          "--target-delta D with --epsilon E")
    if getattr(args, solved) is not None:
        raise _UsageError(f"--{solved} is solved for (--solve-for {solved}): leave it out")
    if solved in NOISE and args.mechanism != NOISE[solved]:
        raise _UsageError(f"--solve-for {solved} needs --mechanism {NOISE[solved]}, "
                          f"got --mechanism {args.mechanism}")
    if solved == "rate" and args.scheme not in ("poisson", "truncated-poisson"):
        raise _UsageError("--solve-for rate needs --scheme poisson or truncated-poisson")
    if solved != "steps" and args.steps is None:
        raise _UsageError("calibrate needs --steps (unless --solve-for steps)")
    return solved


def _method_text(guarantee) -> str:
    """``method …, `` for the output line, unless it is the tight one with an exact solver."""
    method = guarantee.details.get("method", "tight")
    if method == "tight":
        return ""
    posthoc = guarantee.details.get("posthoc")
    return f"method {method}{f' ({posthoc})' if posthoc else ''}, "


def _options(args: argparse.Namespace) -> dict:
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


def _account_inputs(args: argparse.Namespace) -> tuple:
    """``account``'s (and ``calibrate``'s) setting, mechanism and API options from its flags."""
    from otbound.accounting.truncated import TruncatedPoissonSetting

    accountant, options, method = Accountant(args.accountant), _options(args), Method(args.method)
    if args.posthoc is not None and method is not Method.POSTHOC:
        raise InvalidSpecification("--posthoc applies to --method posthoc")
    _check_truncated_flags(args)
    if args.derivation:
        setting = _derived_setting(args)
    elif args.scheme == "truncated-poisson":
        setting = TruncatedPoissonSetting(args.rate, args.max_batch, args.dataset_size,
                                          Neighbouring(args.neighbouring or "add-remove"))
    else:
        setting = _subsampling(args)
    return setting, _mechanism(args), options | {
        "method": method, "accountant": accountant, "posthoc": Posthoc(args.posthoc or "best")}


def _shown(setting, mechanism: Mechanism) -> dict:
    """A setting and mechanism as the output shows them."""
    from otbound.numerics.mechanisms import describe

    return setting.describe() | describe(mechanism)


def _guarantee(args: argparse.Namespace) -> tuple[Guarantee, dict]:
    """``account``'s answer for its flags (one API call, :func:`otbound.accounting.guarantees.
    account`, which names the bound it used), and the setting as shown."""
    from otbound.accounting.guarantees import account

    setting, mechanism, options = _account_inputs(args)
    return account(setting, mechanism, args.steps, **options), _shown(setting, mechanism)


def _plot_account(args: argparse.Namespace, progress: Progress) -> None:
    """``account --plot``: the guarantee over a log grid of step counts up to --steps."""
    from otbound.accounting.over_steps import account_over_steps, steps_grid
    from otbound.accounting.steps import subsampled_step
    from otbound.accounting.truncated import TruncatedPoissonSetting, truncated_step
    from otbound.plots.charts import account_chart, write

    setting, mechanism, options = _account_inputs(args)
    make = truncated_step if isinstance(setting, TruncatedPoissonSetting) else subsampled_step
    step = make(setting, mechanism, args.steps)
    counts = steps_grid(args.steps)
    options = {k: v for k, v in options.items() if k not in ("method", "accountant", "posthoc")}
    curves = account_over_steps(step, counts, Accountant(args.accountant), progress=progress,
                                **options)
    write(account_chart({name: (counts, values) for name, values in curves.items()},
                        step.setting, args.delta, args.epsilon), args.plot)


def _check_truncated_flags(args: argparse.Namespace) -> None:
    """The flags of truncated Poisson sampling with it, and only with it."""
    truncated = args.scheme == "truncated-poisson"
    for flag in ("max_batch", "neighbouring"):
        if not truncated and getattr(args, flag) is not None:
            raise InvalidSpecification(f"--{flag.replace('_', '-')} applies to "
                                       "--scheme truncated-poisson")
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


def _verify(args: argparse.Namespace) -> int:
    from otbound.engine.bundled import load_derivation
    from otbound.engine.derivation import run
    from otbound.verify.verification import verify_derivation

    derivation = load_derivation(args.target)
    derived = run(derivation.at(_params(args.param)) if args.param else derivation)
    with Progress("verify", quiet=args.quiet) as progress:
        report = verify_derivation(derived, max_n=args.max_n, samples=args.samples,
                                   seed=args.seed, progress=progress, mc_draws=args.mc_draws)
    print(json.dumps(report.to_json(timings=args.timings), indent=2, ensure_ascii=False)
          if args.json else report.to_text())
    return EXIT_OK if report.passed else EXIT_FAILED


def _audit(args: argparse.Namespace) -> int:
    from otbound.audit.catalog import bundled_claims, find_claim

    if sum((bool(args.targets), args.all, args.list)) != 1:
        raise _UsageError("audit needs entries (NAME_OR_FILE ...), --all or --list")
    if args.list:
        for path, claim in bundled_claims():
            print(f"{claim.name:34} {path.stem:34} {claim.citation}")
        return EXIT_OK
    from otbound.audit.findings import to_json, to_text, write_markdown
    from otbound.audit.judge import run_audits

    entries = bundled_claims() if args.all else [find_claim(t) for t in args.targets]
    with Progress("audit", quiet=args.quiet) as progress:
        results = run_audits(entries, workers=args.workers, scheduler=args.scheduler,
                             progress=progress)
    if args.markdown:
        from pathlib import Path

        write_markdown(results, Path(args.markdown))
        print(f"wrote {args.markdown}", file=sys.stderr)
    print(json.dumps(to_json(results), indent=2, ensure_ascii=False) if args.json
          else to_text(results))
    return EXIT_FAILED if any(r.verdict.failed for r in results) else EXIT_OK


def _figures(args: argparse.Namespace) -> int:
    from otbound.plots.figures import chosen_figures, write_figures

    if args.list:
        for figure in chosen_figures(args.names):
            print(f"{figure.name:36} {figure.source}")
        return EXIT_OK
    with Progress("figures", quiet=args.quiet) as progress:
        written = write_figures(args.out, args.names, progress)
    for path in written:
        print(f"wrote {path}")
    return EXIT_OK


def _summary(reports: list[DerivationReport]) -> str:
    header = ("derivation", "variants", "validity", "d_Y-compatible", "matches published",
              "seconds")
    rows = [(r.derivation.name, str(len(r.variants)), r.validity, _yes(r.d_compatible),
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


if __name__ == "__main__":
    sys.exit(main())
