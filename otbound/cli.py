"""The ``otbound`` command line.

``otbound derive --list`` lists the catalogue; ``otbound derive NAME_OR_PATH [--latex] [--json]``
derives one bound and prints it with its checks; ``otbound derive --all`` runs every derivation and
prints a summary table. Exit codes: 0 when every check passes, 1 when a check fails, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys

from otbound.catalog import catalogue, find
from otbound.derivation import run
from otbound.errors import OtboundError
from otbound.report import DerivationReport

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _UsageError(OtboundError, ValueError):
    """A command-line call that does not make sense."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and exit with code 2."""

    def error(self, message: str) -> None:
        self.exit(EXIT_USAGE, f"otbound: error: {message} (see 'otbound --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="otbound", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    derive = commands.add_parser("derive", help="derive and check a bound from its ingredients")
    derive.add_argument("target", nargs="?", help="derivation name, file stem or path")
    derive.add_argument("--list", action="store_true", help="list the bundled derivations")
    derive.add_argument("--all", action="store_true", help="run every bundled derivation")
    derive.add_argument("--latex", action="store_true", help="print the theorem in LaTeX")
    derive.add_argument("--json", action="store_true", help="print one JSON object")
    derive.set_defaults(handler=_derive)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except OtboundError as error:
        print(f"otbound: error: {error}", file=sys.stderr)
        return EXIT_USAGE


def _derive(args: argparse.Namespace) -> int:
    chosen = sum(bool(x) for x in (args.list, args.all, args.target))
    if chosen != 1:
        raise _UsageError("derive needs exactly one of NAME_OR_PATH, --list or --all")
    if args.list:
        for path, derivation in catalogue():
            print(f"{derivation.name:16} {path.stem:14} {derivation.source}: {derivation.title}")
        return EXIT_OK
    if args.all:
        reports = [run(derivation) for _, derivation in catalogue()]
        if args.json:
            print(json.dumps([r.to_json() for r in reports], indent=2, ensure_ascii=False))
        else:
            print(_summary(reports))
        return EXIT_OK if all(r.passed for r in reports) else EXIT_FAILED
    report = run(find(args.target))
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    elif args.latex:
        print(report.to_latex())
    else:
        print(report.to_text())
    return EXIT_OK if report.passed else EXIT_FAILED


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
