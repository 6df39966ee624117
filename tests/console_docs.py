"""Console sessions in the docs: ```` ```console ```` blocks of ``$ otbound …`` commands, each
followed by its output. The tests run every command and compare its output with the block
(doctest's rules: ``...`` stands for any text, runs of whitespace are equal); ``render`` writes
the actual outputs into a document (then shorten variable parts to ``...`` by hand).

    python tests/console_docs.py docs/tutorial.md     # rewrite the outputs in place
"""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


@dataclass(frozen=True)
class Session:
    command: str
    output: str


def sessions(text: str) -> list[Session]:
    """Every ``$ command`` of the console blocks, with the output shown after it (a trailing
    ``# comment`` stays with the command: :mod:`documented_commands` reads it)."""
    found = []
    for block in BLOCK.findall(text):
        parts = re.split(r"^\$ ", block, flags=re.M)
        for part in parts[1:]:
            command, _, output = part.partition("\n")
            found.append(Session(command.strip(), output))
    return found


def run(command: str) -> tuple[int, str]:
    """Exit code and standard output of ``otbound …`` run from the repository root."""
    from otbound.cli import main

    argv = shlex.split(command, comments=True)   # a trailing "# needs …" is documentation
    if argv[0] != "otbound":
        raise ValueError(f"not an otbound command: {command}")
    out = io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(io.StringIO()):
        code = main(argv[1:])
    return code, out.getvalue()


def matches(expected: str, actual: str) -> bool:
    checker = doctest.OutputChecker()
    return checker.check_output(expected, actual,
                                doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)


WIDTH = 100


def shown(output: str) -> str:
    """An output as a page shows it: timings and the ends of long lines left out (``...``)."""
    output = re.sub(r"\[\d+\.\d s\]", "[...]", output)
    return "".join(line if len(line) <= WIDTH else line[:WIDTH - 3].rstrip() + "...\n"
                   for line in output.splitlines(keepends=True))


def render(path: Path) -> None:
    """Rewrite every console block of ``path`` with the commands' actual outputs."""
    def block(match: re.Match) -> str:
        lines = []
        for session in sessions(match.group(0)):
            _, output = run(session.command)
            lines.append(f"$ {session.command}\n{shown(output)}")
        return "```console\n" + "".join(lines) + "```"

    path.write_text(BLOCK.sub(block, path.read_text()))


if __name__ == "__main__":
    render(Path(sys.argv[1]))
