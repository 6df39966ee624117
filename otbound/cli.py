"""The ``otbound`` command line.

``otbound derive --list`` lists the catalogue; ``otbound derive NAME_OR_PATH [--latex] [--json]``
derives one bound and prints it with its checks; ``otbound derive --all`` runs every derivation and
prints a summary table. ``otbound rdp`` and ``otbound adp`` evaluate the privacy of one subsampled
step; ``otbound account`` composes many steps into (ε, δ) with an RDP or PLD accountant;
``otbound calibrate`` solves for the noise, steps or rate that meet a target;
``otbound verify`` checks a derivation by exact enumeration, Monte Carlo and an adversarial
soundness search; ``otbound audit`` judges published bounds (``audits/``) against otbound's.
Exit codes: 0 on success, 1 when a check fails or an audited claim is unsound (or otbound itself
fails: an internal error), 2 for bad input.

Each command is: its flags read (:mod:`otbound.command_line.flags`), one library call, its result
formatted (:mod:`otbound.command_line.text`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

# Only what building the parser needs is imported here (no numpy); each command imports the
# rest when it runs, so that --help needs no scipy and one RDP point no sympy or dp_accounting.
from otbound.choices import Accountant, Method, Quantity
from otbound.command_line import flags, text
from otbound.command_line.arguments import EXIT_FAILED, EXIT_OK, EXIT_USAGE, build_parser
from otbound.errors import Refusal, UnsupportedOperation
from otbound.progress import Progress

if TYPE_CHECKING:
    from otbound.engine.derivation import Derivation
    from otbound.engine.epoch_derivation import EpochDerivation
    from otbound.numerics.derived import DerivedSetting
    from otbound.numerics.mechanisms import Mechanism
    from otbound.numerics.settings import Subsampling

__all__ = ["build_parser", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run one command: exit 2 for bad input, 1 for a failed check or an internal error."""
    args = build_parser().parse_args(argv)
    try:
        _require_extras(args)
        return _HANDLERS[args.command](args)
    except BrokenPipeError:   # the reader stopped early (``| head``): stop quietly, output cut
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except flags.USER_ERRORS as error:
        print(f"otbound: error: {flags.flag_message(error)}", file=sys.stderr)
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
    if args.command == "figures" and not (args.list or args.check):
        require("matplotlib", "otbound figures")
    if getattr(args, "scheduler", None):
        require("distributed", "--scheduler (a Dask cluster)")


def _coupled(derivation: Derivation | EpochDerivation,
             args: argparse.Namespace) -> Derivation | EpochDerivation:
    """The derivation, with its couplings searched on each instance for ``--coupling auto``
    (epoch-level derivations keep theirs: under ``--all`` silently, else it is refused)."""
    from otbound.engine.epoch_derivation import EpochDerivation

    if args.coupling == "given" or (args.all and isinstance(derivation, EpochDerivation)):
        return derivation
    if isinstance(derivation, EpochDerivation):
        raise flags.UsageError(f"--coupling auto does not apply to the epoch-level derivation "
                               f"{derivation.name}: its coupling is given")
    from otbound.engine.derivation import with_searched_couplings

    return with_searched_couplings(derivation)


def _progress(args: argparse.Namespace, label: str) -> Progress:
    """The progress line of a long command, as ``--quiet`` and ``--progress`` say."""
    return Progress(label, quiet=args.quiet, force=args.progress)


def _derive(args: argparse.Namespace) -> int:
    chosen = sum(bool(x) for x in (args.list, args.all, args.target))
    if chosen != 1:
        raise flags.UsageError("derive needs exactly one of NAME_OR_PATH, --list or --all")
    if args.param and not args.target:
        raise flags.UsageError("--param applies to one derivation (derive NAME --param K=16)")
    from otbound.engine.bundled import bundled_derivations, load_derivation
    from otbound.engine.derivation import run

    if args.list:
        for path, derivation in bundled_derivations():
            print(f"{derivation.name:16} {path.stem:14} {derivation.source}: {derivation.title}")
        return EXIT_OK
    if args.all:
        return _derive_all(args, [derivation for _, derivation in bundled_derivations()])
    derivation = load_derivation(args.target)
    if args.param:
        derivation = derivation.at(flags.param_values(args.param))
    report = run(_coupled(derivation, args))
    if args.json:
        print(json.dumps(report.to_json(timings=args.timings), indent=2, ensure_ascii=False))
    elif args.latex:
        print(report.to_latex())
    else:
        print(report.to_text())
    return EXIT_OK if report.passed else EXIT_FAILED


def _derive_all(args: argparse.Namespace, derivations: list) -> int:
    """Every derivation run, on every core (each takes seconds; what comes back is its summary
    row and its JSON report: reports hold functions of the derivation files, which do not
    pickle)."""
    from otbound.engine.derivation import run
    from otbound.parallel import mapped

    def reported(derivation) -> tuple[text.SummaryRow, dict | None]:
        report = run(_coupled(derivation, args))
        return (text.SummaryRow.of(report),
                report.to_json(timings=args.timings) if args.json else None)

    done = mapped(reported, derivations, min_items=2)
    if args.json:
        print(json.dumps([found for _, found in done], indent=2, ensure_ascii=False))
    else:
        print(text.summary([row for row, _ in done]))
    return EXIT_OK if all(row.passed for row, _ in done) else EXIT_FAILED


def _finite(values: list[float]) -> None:
    if not all(math.isfinite(v) for v in values):
        raise UnsupportedOperation("the bound is not finite for this setting")


def _evaluate(args: argparse.Namespace, quantity: Quantity) -> int:
    """``rdp``/``adp``: each --method's result (several only with --plot, which compares them
    in one plot), printed one after the other (JSON: one object, or a list of them)."""
    setting, mechanism, methods = flags.one_step_inputs(args)
    if len(methods) > 1 and not args.plot:
        chosen = ", ".join(m.value for m in methods)
        raise flags.UsageError(f"--method takes several methods ({chosen}) only with --plot "
                               "FILE.png, which compares them in one plot")
    # every method evaluated before anything is printed: a refused method prints nothing
    results = [_evaluate_method(args, quantity, setting, mechanism, method) for method in methods]
    if args.plot:
        from otbound.plots.charts import one_step_chart, write

        write(one_step_chart(results, quantity), args.plot)
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else results, indent=2))
        return EXIT_OK
    for result in results:
        text.print_evaluation(result, quantity)
    return EXIT_OK


def _evaluate_method(args: argparse.Namespace, quantity: Quantity,
                     setting: Subsampling | DerivedSetting, mechanism: Mechanism,
                     method: Method) -> dict:
    """One method's result, as in the JSON output: ``quantity.output`` at ``quantity.axis``."""
    from otbound.numerics.mechanisms import describe
    from otbound.numerics.one_step import adp, explain, rdp

    evaluate = rdp if quantity.renyi else adp
    points = getattr(args, quantity.axis)
    bounds = evaluate(setting, mechanism, method, points, certified=args.certified)
    values = [b.value for b in bounds]
    _finite(values)
    result = {quantity.axis: points, quantity.output: values,
              "error_bound": [b.error for b in bounds], "method": method.value,
              "setting": setting.describe() | describe(mechanism)}
    if any(b.source for b in bounds):   # several sound bounds were compared: which one won
        result["bound_used"] = [b.source for b in bounds]
    if args.certified:
        result["certified"] = True
    result["pairs"] = explain(setting, mechanism, method, quantity)
    return result


def _account(args: argparse.Namespace) -> int:
    """``account``: one API call, :func:`otbound.accounting.guarantees.account`, which names the
    bound it used."""
    from otbound.accounting.guarantees import account
    from otbound.numerics.certified import certified_mode

    flags.check_account(args)
    setting, mechanism, options = flags.account_inputs(args)
    with _progress(args, "account") as progress, certified_mode(args.certified):
        progress(f"composing {args.steps} steps ({args.accountant})")
        guarantee = account(setting, mechanism, args.steps, **options)
        if args.plot:
            _plot_account(args, setting, mechanism, options, progress)
    # shuffled batches: the upper bound has no amplification; how low the truth can be
    lower = _shuffled_lower(args, setting, mechanism) if args.scheme == "shuffle" else None
    setting = text.shown(setting, mechanism)
    result = {"epsilon": guarantee.epsilon, "delta": guarantee.delta, "steps": guarantee.steps,
              "accountant": guarantee.accountant.value, "method": "tight", "setting": setting}
    result |= guarantee.details | _epochs_json(args)
    if args.certified:
        result["certified"] = True
    if isinstance(lower, Refusal):
        result["lower_bound"] = {"unavailable": lower.reason}
    elif lower is not None:
        result["lower_bound"] = {"epsilon": lower.epsilon, "delta": lower.delta,
                                 "bound": lower.source}
    print(json.dumps(result, indent=2) if args.json
          else text.account_text(args, guarantee, setting, lower))
    return EXIT_OK


def _epochs_json(args: argparse.Namespace) -> dict:
    """How ``--epochs`` of a per-step scheme became steps, for the JSON output."""
    converted = args.steps_from_epochs
    return {} if converted is None else {"steps_from_epochs": converted.to_json()}


def _shuffled_lower(args: argparse.Namespace, setting, mechanism):
    """Chua et al. 2024's lower bound for ``account --scheme shuffle`` (Gaussian noise), or why
    there is none."""
    from otbound.numerics.shuffling import lower_bound_refusal, shuffled_lower_bound

    if (refused := lower_bound_refusal(mechanism)) is not None:
        return refused
    return shuffled_lower_bound(setting, mechanism.noise_multiplier, args.steps,
                                delta=args.delta, epsilon=args.epsilon)


def _calibrate(args: argparse.Namespace) -> int:
    """``calibrate``: the safe value of --solve-for that meets the target (one API call,
    :func:`otbound.accounting.guarantees.calibrate`, which accounts it again before reporting)."""
    from otbound.accounting.guarantees import calibrate

    solved, steps, (setting, mechanism, options) = flags.calibration_inputs(args)
    with _progress(args, "calibrate") as progress:
        found = calibrate(setting, mechanism, steps, solve_for=solved,
                          target_epsilon=args.target_epsilon, target_delta=args.target_delta,
                          tolerance=args.tolerance, progress=progress, **options)
    guarantee = found.guarantee
    solution = argparse.Namespace(**(vars(args) | {solved: found.value}))
    # as --solve-for names it (noise-multiplier: σ/L)
    shown = replace(found, solved_for=args.solve_for.replace("-", "_"),
                    value=flags.as_solved(args, found.value),
                    unsafe=flags.as_solved(args, found.unsafe, safe=False))
    target = ({"epsilon": args.target_epsilon, "delta": args.delta}
              if args.target_epsilon is not None
              else {"delta": args.target_delta, "epsilon": args.epsilon})
    result = {shown.solved_for: shown.value, "epsilon": guarantee.epsilon,
              "delta": guarantee.delta, "steps": guarantee.steps,
              "accountant": guarantee.accountant.value,
              "method": guarantee.details.get("method", "tight"), "target": target,
              "unsafe": shown.unsafe, "setting": text.shown(*flags.account_inputs(solution)[:2])
              } | guarantee.details | _epochs_json(args)
    print(json.dumps(result, indent=2) if args.json
          else text.calibration_text(args, shown, result["setting"]))
    return EXIT_OK


def _plot_account(args: argparse.Namespace, setting, mechanism: Mechanism, options: dict,
                  progress: Progress) -> None:
    """``account --plot``: the guarantee over a log grid of step counts up to --steps."""
    from otbound.accounting.over_steps import account_over_steps, steps_grid
    from otbound.accounting.steps import subsampled_step
    from otbound.numerics.derived import as_setting
    from otbound.plots.charts import account_chart, write

    step = subsampled_step(as_setting(setting), mechanism, args.steps)
    counts = steps_grid(args.steps)
    per = step.count // args.steps   # steps of the pairs per count (T for Poisson epochs)
    options = {k: v for k, v in options.items() if k not in ("method", "accountant", "posthoc")}
    curves = account_over_steps(step, [count * per for count in counts],
                                Accountant(args.accountant), progress=progress, **options)
    write(account_chart({name: (counts, values) for name, values in curves.items()},
                        step.setting, args.delta, args.epsilon), args.plot)


def _verify(args: argparse.Namespace) -> int:
    from otbound.engine.bundled import load_derivation
    from otbound.engine.derivation import run
    from otbound.verify.verification import verify_derivation

    derivation = load_derivation(args.target)
    derived = run(derivation.at(flags.param_values(args.param)) if args.param else derivation)
    with _progress(args, "verify") as progress:
        report = verify_derivation(derived, max_n=args.max_n, samples=args.samples,
                                   seed=args.seed, progress=progress, mc_draws=args.mc_draws)
    print(json.dumps(report.to_json(timings=args.timings), indent=2, ensure_ascii=False)
          if args.json else report.to_text())
    return EXIT_OK if report.passed else EXIT_FAILED


def _audit(args: argparse.Namespace) -> int:
    from otbound.audit.catalog import bundled_claims, find_claim

    if sum((bool(args.targets), args.all, args.list)) != 1:
        raise flags.UsageError("audit needs entries (NAME_OR_FILE ...), --all or --list")
    if args.list:
        for path, claim in bundled_claims():
            print(f"{claim.name:34} {path.stem:34} {claim.citation}")
        return EXIT_OK
    from otbound.audit.findings import to_json, to_text, write_markdown
    from otbound.audit.judge import run_audits

    entries = bundled_claims() if args.all else [find_claim(t) for t in args.targets]
    with _progress(args, "audit") as progress:
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
    from otbound.plots.figures import chosen_figures, stale_figures, write_figures

    if args.list:
        for figure in chosen_figures(args.names):
            print(f"{figure.name:36} {figure.source}")
        return EXIT_OK
    if args.check:
        with _progress(args, "figures") as progress:
            stale = stale_figures(args.out, args.names, progress)
        for figure in chosen_figures(args.names):
            print(f"stale: {figure.name}: {stale[figure.name]}" if figure.name in stale
                  else f"current: {figure.name}")
        if stale:
            print("regenerate with `otbound figures` (needs otbound[plots])")
        return EXIT_FAILED if stale else EXIT_OK
    with _progress(args, "figures") as progress:
        written = write_figures(args.out, args.names, progress)
    for path in written:
        print(f"wrote {path}")
    return EXIT_OK


_HANDLERS = {"derive": _derive, "verify": _verify,
             "rdp": lambda args: _evaluate(args, Quantity.RDP),
             "adp": lambda args: _evaluate(args, Quantity.ADP),
             "account": _account, "calibrate": _calibrate, "audit": _audit, "figures": _figures}

if __name__ == "__main__":
    sys.exit(main())
